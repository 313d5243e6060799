/*
 * An InfiniBand subnet: its nodes (switches and channel adapters), their
 * ports with the state, width and speed each reports (as active, enabled
 * and supported, in the encodings of the PortInfo attribute), the cable
 * to the port at the other end, and each port's PMA counters as read at
 * two moments. Filled by discovery (discover.c) and the counters (pma.c),
 * or read back from a saved document; judged by ix_ibfab_check.
 */
#ifndef IX_IBFAB_H
#define IX_IBFAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

#define IX_IBFAB_DESC_MAX 65 /* NodeDescription: 64 bytes and a NUL */

/* PortCounters (and PortCountersExtended for the data counters), in the
 * names perfquery gives them. */
enum ix_ibfab_ctr {
	IX_IBC_SYMBOL_ERRORS,
	IX_IBC_LINK_RECOVERS,
	IX_IBC_LINK_DOWNED,
	IX_IBC_RCV_ERRORS,
	IX_IBC_RCV_REMOTE_PHYS,
	IX_IBC_RCV_SWITCH_RELAY,
	IX_IBC_XMIT_DISCARDS,
	IX_IBC_XMIT_CONSTRAINT,
	IX_IBC_RCV_CONSTRAINT,
	IX_IBC_LOCAL_INTEGRITY,
	IX_IBC_EXCESS_OVERRUN,
	IX_IBC_VL15_DROPPED,
	IX_IBC_XMIT_WAIT,
	IX_IBC_XMIT_DATA, /* in 4-byte words, as the PMA counts */
	IX_IBC_RCV_DATA,
	IX_IBC_XMIT_PKTS,
	IX_IBC_RCV_PKTS,
	IX_IBC_N
};

struct ix_ibfab_counters {
	bool valid;    /* read */
	bool extended; /* the data counters are the 64-bit extended ones */
	uint64_t v[IX_IBC_N];
	char error[96]; /* why they could not be read; "" when valid */
};

struct ix_ibfab_port {
	uint8_t num;
	uint64_t guid;
	uint16_t lid; /* the port's own (adapters), its switch's (switches) */
	/* PortState 1 Down, 2 Init, 3 Armed, 4 Active; PhysState 2 Polling,
	 * 3 Disabled, 5 LinkUp, ... */
	uint8_t state, phys;
	/* LinkWidth bits: 1 1x, 2 4x, 4 8x, 8 12x, 16 2x. */
	uint8_t width_active, width_enabled, width_supported;
	/* LinkSpeed bits: 1 SDR, 2 DDR, 4 QDR; extended: 1 FDR, 2 EDR,
	 * 4 HDR, 8 NDR (active 0: none, the base speed holds). */
	uint8_t speed_active, speed_enabled, speed_supported;
	uint8_t ext_active, ext_enabled, ext_supported;
	/* The other end of its cable: a node index and port; -1 when none. */
	int32_t peer_node;
	uint8_t peer_port;
	struct ix_ibfab_counters ctr[2]; /* at the first and the second read */
};

struct ix_ibfab_node {
	uint64_t guid;
	bool is_switch;
	char desc[IX_IBFAB_DESC_MAX];
	uint16_t lid;
	uint8_t nports;
	struct ix_ibfab_port *ports; /* ports[0 .. nports], [0] the switch's own */
	/* A switch's linear forwarding table as read (ix_ibfab_read_routes):
	 * lft[lid] the port a packet for that LID leaves by, IX_IBFAB_NO_ROUTE
	 * where there is none; nlft entries (0: not read). */
	uint8_t *lft;
	uint32_t nlft;
};

#define IX_IBFAB_NO_ROUTE 0xff

struct ix_ibfab {
	char via[64]; /* the local port discovery started from */
	struct ix_ibfab_node *nodes;
	uint32_t n, cap;
};

void ix_ibfab_init(struct ix_ibfab *f);
void ix_ibfab_free(struct ix_ibfab *f);
/* A new node with nports ports (numbered, peers none); NULL on no memory. */
struct ix_ibfab_node *ix_ibfab_add(struct ix_ibfab *f, uint64_t guid, bool is_switch,
				   const char *desc, uint8_t nports);
/* The node with this GUID, or -1. */
int32_t ix_ibfab_find(const struct ix_ibfab *f, uint64_t guid);
/* Port p of node n, or NULL when there is none. */
struct ix_ibfab_port *ix_ibfab_port(const struct ix_ibfab *f, int32_t n, uint32_t p);

/* Names: "SymbolErrorCounter", ...; whether a counter counts errors
 * (those a healthy link keeps still). */
const char *ix_ibfab_ctr_name(enum ix_ibfab_ctr c);
bool ix_ibfab_ctr_is_error(enum ix_ibfab_ctr c);
/* Lanes of the widest width in bits (1, 2, 4, 8 or 12; 0 none); the
 * name of a width value ("4X"). */
unsigned ix_ibfab_lanes(uint8_t width_bits);
const char *ix_ibfab_width_name(uint8_t width_bits);
/* The fastest speed in base and extended bits, as a lane's data rate in
 * Gbit/s (SDR 2, DDR 4, QDR 8, FDR 13.64, EDR 25, HDR 50, NDR 100) and a
 * name ("QDR"); 0 and "?" for none. */
double ix_ibfab_lane_gbps(uint8_t speed_bits, uint8_t ext_bits);
const char *ix_ibfab_speed_name(uint8_t speed_bits, uint8_t ext_bits);
/* A port's data rate as active (lanes times a lane's rate), Gbit/s. */
double ix_ibfab_port_gbps(const struct ix_ibfab_port *p);
/* PortState's name: "Down", "Init", "Armed", "Active" ("?" else). */
const char *ix_ibfab_state_name(uint8_t state);
/* Whether the cable at node n's port p is listed from this end: it has
 * one, and this is its end with the lower node index (port, on one node). */
bool ix_ibfab_cable_here(const struct ix_ibfab *f, uint32_t n, uint32_t p);
/* The switches and the cables (each once) of f. */
void ix_ibfab_counts(const struct ix_ibfab *f, uint32_t *switches, uint32_t *cables);
/* What counter k of port p moved between the reads (a counter below its
 * first reading was cleared in between: it counts from 0); 0 unless both
 * reads are valid. */
uint64_t ix_ibfab_moved(const struct ix_ibfab_port *p, enum ix_ibfab_ctr k);
/* "S leaf1/3" style name of a node's port, into buf. */
const char *ix_ibfab_port_label(const struct ix_ibfab *f, int32_t n, uint32_t p, char *buf,
				size_t len);

/* ---- the subnet (mad.c: libibnetdisc and libibmad) ---- */

/* Discover the subnet through local adapter ca, port (NULL, 0: the first
 * active one) into f (initialised here). IX_EXIT_UNAVAILABLE in a build
 * without libibnetdisc; IX_EXIT_FAIL with why when nothing answers. */
int ix_ibfab_discover(struct ix_ibfab *f, const char *ca, int port, struct ix_err *err);
/* Read the PMA counters of every cabled port of f into ctr[slot] (0 or
 * 1), each query bounded by timeout_ms; a port that does not answer keeps
 * its counters invalid with the reason. -1 with err when the local port
 * cannot be opened at all. */
int ix_ibfab_read_counters(struct ix_ibfab *f, const char *ca, int port, int slot,
			   unsigned timeout_ms, struct ix_err *err);
/* Copy each port's ctr[0] from first, matched by node GUID and port. */
void ix_ibfab_take_first(struct ix_ibfab *f, const struct ix_ibfab *first);
/* Read every switch's linear forwarding table (SwitchInfo's LinearFDBTop,
 * then LinearForwardingTable blocks of 64 LIDs, LID-routed SMPs as ibroute
 * sends them). A switch that does not answer keeps none (nlft 0); the
 * number of switches read is returned, -1 with err when the local port
 * cannot be opened. */
int ix_ibfab_read_routes(struct ix_ibfab *f, const char *ca, int port, unsigned timeout_ms,
			 struct ix_err *err);

/* ---- routes (route.c) ---- */

#define IX_IBFAB_MAX_HOPS 64

/* One cable a packet crosses: the port it leaves by. */
struct ix_ibfab_hop {
	int32_t node;
	uint8_t port;
};

/* The path from adapter node src's port sport to LID dlid through the
 * switches' forwarding tables: the cables in order, the first leaving src,
 * the last arriving at the port that owns dlid. -1 with why (a switch
 * without a table or a route for dlid, a port with no cable, a loop). */
int ix_ibfab_path(const struct ix_ibfab *f, int32_t src, uint32_t sport, uint16_t dlid,
		  struct ix_ibfab_hop *hops, uint32_t *nhops, char *why, size_t whylen);
/* The adapter node and port whose LID is lid; -1 when none. */
int32_t ix_ibfab_by_lid(const struct ix_ibfab *f, uint16_t lid, uint32_t *port);
/* The node and port of the adapter port with this port GUID; -1 when none. */
int32_t ix_ibfab_by_port_guid(const struct ix_ibfab *f, uint64_t guid, uint32_t *port);

/* ---- findings ---- */

enum ix_ibfab_kind {
	IX_IBF_WIDTH,      /* a link narrower than its ends can train */
	IX_IBF_SPEED,      /* a link slower than its ends can train */
	IX_IBF_NOT_ACTIVE, /* a cabled port that is not Active */
	IX_IBF_ERRORS,     /* error counters moved between the reads */
	IX_IBF_LINK_LOST,  /* a cable of the reference is gone */
	IX_IBF_NODE_LOST,  /* a node of the reference is gone */
	IX_IBF_NO_COUNTERS /* a port's counters could not be read */
};

struct ix_ibfab_finding {
	enum ix_ibfab_kind kind;
	int32_t node; /* in the fabric judged; -1 for what is gone */
	uint32_t port;
	char text[256]; /* one sentence naming it and the evidence */
};

struct ix_ibfab_findings {
	struct ix_ibfab_finding *v;
	size_t n, cap;
};

const char *ix_ibfab_kind_name(enum ix_ibfab_kind k);
/* Judge f: each link once (from its lower node index), every port's
 * counters between ctr[0] and ctr[1] where both were read, and against
 * ref (a baseline, or the same subnet at the first read; NULL: none) the
 * nodes and cables that are gone. 0, or -1 on no memory. */
int ix_ibfab_check(const struct ix_ibfab *f, const struct ix_ibfab *ref,
		   struct ix_ibfab_findings *out, struct ix_err *err);
void ix_ibfab_findings_free(struct ix_ibfab_findings *fs);

#endif
