/*
 * A mesh drawn as a fabric: hosts grouped under the switches they hang
 * off, each host's edge and each switch's uplink with the mesh's figures
 * through it (median bandwidth out and in, latency, bad pairs) and a
 * health that says where the bad pairs point.
 *
 * Where the switches come from, in order of trust: the LLDP neighbour each
 * host's agent reported with its link, or the InfiniBand switch its
 * adapter is cabled to (ibblame.h; hosts on one chassis share a switch),
 * else groups inferred from the mesh itself (hosts whose mutual
 * pairs are fast and near, apart from the slower rest), marked inferred;
 * groups that the pairs do not bear out (most pairs within near, most
 * between not) are one group.
 *
 * Bad pairs: those the mesh flagged, and those below its bandwidth rule
 * against the pairs within a switch (a slow uplink can hold most pairs
 * down, and the mesh's median with them).
 *
 * Blame: a switch's uplink carries the pairs between its hosts and the
 * others. It is bad when every one of its hosts sees most of its pairs
 * across it bad (not one host's own link), once pairs towards a worse
 * uplink are set aside; two switches whose pairs between them are all
 * that is bad are both marked (each uplink is on that path). A host's edge
 * is bad when most of its pairs are bad that no bad uplink explains.
 *
 * Layout, computed once for every renderer: hosts in drawing order
 * (grouped by switch), and a grid in host-sized cells: each switch a block
 * of columns under the fabric's core, blocks wrapping into bands.
 */
#ifndef IX_FABRIC_MODEL_H
#define IX_FABRIC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/cluster/analysis.h"
#include "probes/cluster/multi.h"
#include "probes/core/counters.h"
#include "probes/core/probe.h"

enum ix_fab_health {
	IX_FAB_OK,
	IX_FAB_WARN, /* some bad pairs through it, not most */
	IX_FAB_BAD,  /* most pairs through it bad, and they point here */
};

/* The figures of the pairs through one edge (measured cells only). */
struct ix_fab_edge {
	double out_bps, in_bps; /* medians of the goodput leaving and entering; 0 unknown */
	double lat_ns;          /* median p50 latency either way; 0 unknown */
	uint32_t pairs, bad;    /* measured cells through it, and the bad ones */
	/* A host's edge leaves out its cells across a bad uplink (they are the
	 * uplink's): the bad ones among them. */
	uint32_t explained;
	enum ix_fab_health health;
	char why[128]; /* one sentence when not OK */
	/* The fabric counters that moved at the hosts (a host's own; an
	 * uplink's, its hosts' together) over their tests. */
	struct ix_ctr_sum ctrs;
};

struct ix_fab_switch {
	char name[80];    /* the system name, else the chassis ID, else "group N" */
	char chassis[80]; /* "" when inferred */
	bool inferred;
	uint32_t first, count; /* its hosts: order[first .. first + count) */
	struct ix_fab_edge uplink;
	/* Layout: its block of host cells. */
	int x, y, cols, rows;
};

struct ix_fab_host {
	uint32_t node; /* index into the mesh's hosts */
	int sw;        /* its switch */
	char port[64]; /* the switch port, "" when not known */
	struct ix_fab_edge edge;
	int x, y; /* layout: its cell */
};

/* The input: a mesh's matrix with its bad cells flagged (ix_mesh_analyze,
 * or the live view's provisional analysis), and each host's neighbour. */
struct ix_fab_input {
	uint32_t n;
	const struct ix_cells *cells;   /* n x n; row = initiator */
	const struct ix_neighbor *nbrs; /* n, or NULL: none known */
	const struct ix_ctr_sum *ctrs;  /* n, or NULL: no counters read */
	double bw_fraction;             /* the mesh's rule (0: 0.7) */
};

struct ix_fabric {
	uint32_t n, nsw;
	struct ix_fab_switch *sw;
	struct ix_fab_host *host; /* n, in drawing order */
	uint32_t *at;             /* n: mesh index -> position in host */
	uint32_t lldp_hosts;      /* hosts placed by their LLDP neighbour */
	uint32_t ib_hosts;        /* hosts placed by their InfiniBand switch */
	bool inferred;            /* some groups are inferred */
	/* The colour scale and the bandwidth rule's baseline: the median
	 * goodput of the pairs within a switch (ref_within), else of all. */
	double ref_bps;
	bool ref_within;
	double split_bps;  /* inference: the gap it split at (0: none found) */
	int width, height; /* the grid, in host cells (the core's row above it) */
};

/* Build the model. Returns -1 when out of memory (out is then empty). */
int ix_fabric_build(const struct ix_fab_input *in, struct ix_fabric *out);
/* The same from a mesh result: its matrix, rules and the neighbours its
 * agents reported with their links. */
int ix_fabric_of_mesh(const struct ix_mesh_result *r, struct ix_fabric *out);
/* Whether a fabric says more than the matrix: a neighbour known, or the
 * mesh split into groups. */
bool ix_fabric_worth_drawing(const struct ix_fabric *f);
void ix_fabric_free(struct ix_fabric *f);
/* Where the switches came from: "LLDP", "the InfiniBand subnet",
 * "inferred from the mesh", or those joined ("LLDP and inferred from the
 * mesh"). */
const char *ix_fabric_source(const struct ix_fabric *f);
/* An edge's colour share: its worse direction's median against the
 * fabric's reference (0..1, capped); -1 when nothing through it is
 * measured. */
double ix_fab_share(const struct ix_fabric *f, const struct ix_fab_edge *e);
/* The worst health in f and how many edges have it. */
enum ix_fab_health ix_fabric_worst(const struct ix_fabric *f, uint32_t *count);

#endif
