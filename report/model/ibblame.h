/*
 * A mesh's bad pairs joined with the InfiniBand subnet they crossed: which
 * cable is to blame.
 *
 * Each host of the mesh is tied to its adapter port: by the port GUID its
 * agent reported with its link, else by the node description, whose first
 * word is the host's name on Linux ("node07 mlx5_0"; where a host has
 * several adapters, the one whose description names the mesh's interface).
 * Each measured pair is followed through the switches' forwarding tables
 * (as ibtracert follows it): its bandwidth test's data crossed the cables
 * out, its latency test's round trip the cables out and back (a failed
 * test, both). A cable is counted per direction, as errors are counted at
 * the port that receives, and per test: a direction is suspect when most
 * of the bandwidth tests or most of the latency tests through it are bad,
 * so round trips that came back over a cable do not clear it of what the
 * data going out found.
 *
 * Blame: the fewest cable directions that explain the bad pairs, chosen
 * one at a time among those most of whose pairs are bad, the one that
 * explains the most bad pairs not yet explained first (fewer good pairs
 * through it on a tie). Then named as the smallest common element: a
 * host's cable, one switch-to-switch link, a switch's uplinks (all its
 * cables towards other switches), or a switch. Evidence: how many bad and
 * good pairs cross it, one bad pair, the counters that moved at its ends
 * over the same window and what the subnet's own findings say of its
 * ends.
 */
#ifndef IX_IBBLAME_MODEL_H
#define IX_IBBLAME_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/cluster/multi.h"
#include "probes/core/err.h"
#include "probes/ibfab/ibfab.h"

/* How a mesh host was tied to the subnet. */
struct ix_ibb_tie {
	int32_t node; /* the adapter, -1 when not tied */
	uint32_t port;
	char by[24];   /* "port GUID", "node description" */
	char why[160]; /* not tied: why */
};

enum ix_ibb_kind {
	IX_IBB_HOST_CABLE, /* a host's cable to its switch */
	IX_IBB_LINK,       /* one switch-to-switch cable */
	IX_IBB_UPLINKS,    /* every cable of one switch towards other switches */
	IX_IBB_SWITCH,     /* every cable of one switch */
	IX_IBB_CABLES,     /* cables with nothing smaller in common */
};

#define IX_IBB_MAX_ELEMENTS 16
#define IX_IBB_MAX_CABLES   32 /* cable directions kept per element */

struct ix_ibb_element {
	enum ix_ibb_kind kind;
	char what[320];     /* "node07's cable (\"node07\"/1 - \"leaf2\"/3)" */
	char evidence[768]; /* the pairs, one bad pair, counters, findings */
	uint32_t bad, good; /* pairs through it (its cables together) */
	uint32_t explained; /* bad pairs it explains */
	uint32_t ncables;
	struct ix_ibfab_hop cables[IX_IBB_MAX_CABLES]; /* directions: the port left by */
};

struct ix_ibblame {
	uint32_t hosts, tied;
	struct ix_ibb_tie *ties; /* per mesh host */
	uint32_t switches_routed;
	uint64_t pairs_bad, pairs_good; /* placed on the subnet */
	uint64_t unplaced;              /* measured pairs not placed: a host untied, no route */
	char unplaced_why[256];         /* the first reason */
	struct ix_ibb_element v[IX_IBB_MAX_ELEMENTS];
	uint32_t n;
	uint64_t unexplained;   /* bad pairs no element explains */
	bool counters;          /* the counters of the window were joined */
	char counters_why[160]; /* why not, when not */
	/* Said when the mesh's traffic need not have crossed this subnet: a
	 * TCP or UDP mesh whose hosts' links are none InfiniBand (an Ethernet
	 * fabric beside it); "" when its tests ran over RDMA or IPoIB. */
	char caveat[200];
};

/* What is joined. */
struct ix_ibblame_input {
	const struct ix_mesh_result *mesh; /* its cells' bad flags as analysed */
	/* the subnet whose forwarding tables were read (ix_ibfab_read_routes)
	 * when the mesh started: the routes its pairs took */
	const struct ix_ibfab *routes;
	/* the counters read before and after the mesh (NULL, or
	 * why_no_counters set: not joined, said) */
	const struct ix_ibfab *ctrs;
	const char *why_no_counters;
	/* the subnet's findings (ix_ibfab_check) over judged; NULL: none */
	const struct ix_ibfab *judged;
	const struct ix_ibfab_findings *findings;
};

/* Join the mesh with the subnet. -1 with err on no memory. */
int ix_ibblame_build(const struct ix_ibblame_input *in, struct ix_ibblame *out, struct ix_err *err);
void ix_ibblame_free(struct ix_ibblame *b);
const char *ix_ibb_kind_name(enum ix_ibb_kind k);
/* Each tied host's switch port as a neighbour (source "ib", chassis
 * "ib 0xGUID", the switch's description, port "N"), into nbrs (r->n of
 * them; untied hosts' left empty), so the mesh's fabric model groups the
 * hosts under their InfiniBand switches as it does under LLDP ones. */
void ix_ibblame_neighbors(const struct ix_ibblame *b, const struct ix_ibfab *routes,
			  struct ix_neighbor *nbrs);

#endif
