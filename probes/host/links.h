/*
 * Link counters of this host, read from sysfs: network devices
 * (/sys/class/net) and InfiniBand/RoCE ports (/sys/class/infiniband), the
 * rates between two snapshots, per-link history for sparklines, each
 * link's fabric counters (drops, pause frames, CNPs... of
 * probes/core/counters.h) as rates, and the model a live monitor
 * ("ixperf top") samples once per refresh.
 *
 * root is a prefix put before every "/sys/..." path: "" (or NULL) for the
 * live system, a fixture directory in tests.
 */
#ifndef IX_LINKS_H
#define IX_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/counters.h"
#include "probes/core/err.h"

#define IX_LINKS_NAME_MAX 64
#define IX_LINKS_HISTORY  120 /* samples kept per link for sparklines */

/* Counters as bits of struct ix_link.known and struct ix_link_rate.known. */
#define IX_LINK_RX_BYTES      (1u << 0)
#define IX_LINK_TX_BYTES      (1u << 1)
#define IX_LINK_RX_PACKETS    (1u << 2)
#define IX_LINK_TX_PACKETS    (1u << 3)
#define IX_LINK_RX_ERRORS     (1u << 4)
#define IX_LINK_TX_ERRORS     (1u << 5)
#define IX_LINK_RX_DROPPED    (1u << 6)
#define IX_LINK_TX_DROPPED    (1u << 7)
#define IX_LINK_SYMBOL_ERRORS (1u << 8) /* InfiniBand only */
#define IX_LINK_LINK_DOWNED   (1u << 9) /* InfiniBand only */
#define IX_LINK_NCOUNTERS     10

enum ix_link_kind {
	IX_LINK_NET = 0, /* a network device */
	IX_LINK_IB = 1,  /* a port of an InfiniBand/RoCE device */
};

struct ix_link {
	char name[IX_LINKS_NAME_MAX]; /* "eth0"; IB: "mlx5_0/1" (device/port) */
	enum ix_link_kind kind;
	char dev[IX_LINKS_NAME_MAX];    /* IB device ("mlx5_0"); net: the name */
	unsigned port;                  /* IB port number; 0 for net */
	char state[32];                 /* net: operstate "up"; IB: "ACTIVE" */
	char phys_state[32];            /* IB: "LinkUp"; "" for net */
	char link_layer[16];            /* IB: "InfiniBand" or "Ethernet"; "" for net */
	char address[64];               /* net: MAC/hardware address; "" for IB */
	char netdev[IX_LINKS_NAME_MAX]; /* RoCE port: its network device, else "" */
	uint32_t ifindex;               /* net; 0 when unknown or IB */
	bool is_virtual;                /* under /sys/devices/virtual (lo, bridges, veth) */
	bool is_loopback;
	bool mtu_known;
	uint32_t mtu;
	bool speed_known; /* false when down or not reported (never 0) */
	double speed_bps;
	uint32_t known;              /* IX_LINK_* bits of the counters below that were read */
	uint64_t rx_bytes, tx_bytes; /* IB: 4-octet units already multiplied */
	uint64_t rx_packets, tx_packets;
	uint64_t rx_errors, tx_errors;   /* IB: port_rcv_errors; tx unknown */
	uint64_t rx_dropped, tx_dropped; /* IB: tx is port_xmit_discards */
	uint64_t symbol_errors, link_downed;
};

struct ix_links {
	struct ix_link *v; /* sorted by name (version order: eth2 before eth10) */
	size_t n;
};

/* Every link under root. Unreadable attributes leave their valid bit
 * clear; a missing /sys/class/infiniband is no error; a missing
 * /sys/class/net is (IX_EXIT_UNAVAILABLE). out is replaced, not freed. */
int ix_links_read(const char *root, struct ix_links *out, struct ix_err *err);
void ix_links_free(struct ix_links *ls);
/* The link called name, or NULL. */
const struct ix_link *ix_links_find(const struct ix_links *ls, const char *name);
/* An IB "rate" attribute ("200 Gb/sec (4X HDR)", "2.5 Gb/sec (1X SDR)")
 * in bit/s; -1 when it is not one. Independent of the locale. */
int ix_links_parse_rate(const char *s, double *bps);

/* Per-second figures over one interval. A figure is known (its IX_LINK_*
 * bit set) when the counter was read in both snapshots and did not go
 * down; a counter that went down (reset, wrap, device re-created) sets
 * reset and leaves that figure unknown. */
struct ix_link_rate {
	uint32_t known;
	bool reset;
	double interval_s;     /* 0 when no previous snapshot */
	double rx_bps, tx_bps; /* bit/s */
	double rx_pps, tx_pps;
	double rx_errors_ps, tx_errors_ps;
	double rx_dropped_ps, tx_dropped_ps;
	double symbol_errors_ps, link_downed_ps;
	bool util_known;
	double util; /* max(rx_bps, tx_bps) / speed_bps, 0..1 (more if counters run ahead) */
};

/* Rates from prev to cur, elapsed_ns apart. prev NULL (a link that just
 * appeared), elapsed_ns <= 0, or a changed ifindex: everything unknown. */
void ix_links_rate(const struct ix_link *prev, const struct ix_link *cur, int64_t elapsed_ns,
		   struct ix_link_rate *out);

/* The last IX_LINKS_HISTORY rx/tx rates of one link, a ring; NAN marks an
 * interval whose rate was unknown. */
struct ix_link_history {
	size_t head;  /* next slot written */
	size_t count; /* samples held */
	double rx_bps[IX_LINKS_HISTORY];
	double tx_bps[IX_LINKS_HISTORY];
};

void ix_links_history_push(struct ix_link_history *h, double rx_bps, double tx_bps);
/* Copy the last min(count, max) rx (tx false) or tx samples, oldest
 * first, into out; returns how many. */
size_t ix_links_history_get(const struct ix_link_history *h, bool tx, double *out, size_t max);

/* One character per value, scaled to max (max <= 0: the largest value):
 * UTF-8 blocks U+2581..U+2588, or the ASCII levels "._-=^#" for terminals
 * without UTF-8. Zero, negative and unknown (NAN) values are a space.
 * Writes whole characters only and a terminating NUL (when len > 0);
 * returns the bytes written before the NUL. */
size_t ix_sparkline(const double *v, size_t n, double max, char *buf, size_t len);
size_t ix_sparkline_ascii(const double *v, size_t n, double max, char *buf, size_t len);

/* A link's fabric counters over one interval: a network device's netdev,
 * ethtool and root qdisc counters, or an InfiniBand/RoCE port's
 * hw_counters and port counters. A RoCE port and its network device are
 * two links, so no counter is counted under both. */
#define IX_LINK_FABRIC_TOP 8 /* moved counters a link names */

struct ix_link_moved {
	char name[IX_CTR_NAME_MAX]; /* the driver's name: "rx_prio3_pause" */
	uint8_t source;             /* enum ix_ctr_source */
	uint8_t cls;                /* enum ix_ctr_class */
	uint64_t delta;             /* growth over the interval */
};

struct ix_link_fabric {
	bool valid;       /* read at both ends of the interval: the rates are known */
	uint32_t sources; /* 1 << IX_SRC_* read at both ends */
	bool truncated;   /* a snapshot held more counters than it keeps */
	double interval_s;
	uint32_t has;         /* 1 << class of the classes that moved */
	double rate[IX_CC_N]; /* per second; a class: the largest of its sources' sums */
	size_t nmoved;        /* classed counters that grew (a reset is left out) */
	size_t ntop;          /* the largest growths, largest first */
	struct ix_link_moved top[IX_LINK_FABRIC_TOP];
};

/* The fabric counters of link l (a snapshot, see probes/host/fabric.h);
 * out is replaced. Nothing readable leaves out->valid false. */
void ix_link_fabric_read(const char *root, const struct ix_link *l, struct ix_ctr_set *out);
/* Rates from prev to cur, elapsed_ns apart. prev NULL, elapsed_ns <= 0 or
 * a snapshot not valid: out is not valid. -1 when out of memory. */
int ix_link_fabric_rates(const struct ix_ctr_set *prev, const struct ix_ctr_set *cur,
			 int64_t elapsed_ns, struct ix_link_fabric *out);
/* Whether a view highlights a class: drops, errors, pause frames, CNPs,
 * retransmissions, link events. */
bool ix_link_fabric_alarm(enum ix_ctr_class c);
/* A class's short label for a table: "pause rx". */
const char *ix_link_fabric_label(enum ix_ctr_class c);
/* "drops 12/s" for class c ("" when it did not move); the length written. */
size_t ix_link_fabric_clause(const struct ix_link_fabric *f, enum ix_ctr_class c, char *buf,
			     size_t len);
/* Every class that moved, in class order, sep between: "drops 12/s, pause
 * rx 400/s"; "" when none did. Returns the length written. */
size_t ix_link_fabric_text(const struct ix_link_fabric *f, const char *sep, char *buf, size_t len);
/* The names of the max counters that moved most: "rx_prio3_pause,
 * tbf_drops"; "" when none. Returns the length written. */
size_t ix_link_fabric_names(const struct ix_link_fabric *f, size_t max, char *buf, size_t len);

/* Which links a monitor shows. Zeroed: all of them. */
struct ix_top_filter {
	bool exclude_loopback;
	bool exclude_virtual;
	size_t nnames;
	/* When nnames > 0, only these: a link's name, an IB device (all its
	 * ports) or a RoCE port's network device (that port too). */
	char **names;
};

/* Everything a live monitor shows. rates[i], hist[i], fabric[i] and
 * snaps[i] belong to cur.v[i]; a link's history and its previous fabric
 * snapshot follow it by name across samples. */
struct ix_top_model {
	struct ix_top_filter filter; /* own copy of the names */
	struct ix_links prev, cur;   /* the last two snapshots, filtered */
	struct ix_link_rate *rates;
	struct ix_link_history *hist;
	struct ix_link_fabric *fabric; /* fabric counters over the last interval */
	struct ix_ctr_set *snaps;      /* the fabric counters read with cur */
	bool fabric_all;               /* renderers: also every fabric counter read */
	int64_t prev_ns, cur_ns;       /* when they were taken */
	uint64_t samples;              /* successful ix_top_model_sample calls */
};

/* filter may be NULL (all links). */
int ix_top_model_init(struct ix_top_model *m, const struct ix_top_filter *filter,
		      struct ix_err *err);
void ix_top_model_free(struct ix_top_model *m);
/* One refresh: read a snapshot at now_ns (monotonic) and every link's
 * fabric counters, compute rates since the previous one and push them onto
 * the histories. On failure the model is left as it was. */
int ix_top_model_sample(struct ix_top_model *m, const char *root, int64_t now_ns,
			struct ix_err *err);

#endif
