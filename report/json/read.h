/*
 * Saved documents read back into the result structs, so that a saved mesh
 * or incast renders with the same renderer as the live one (ixperf report).
 * The input is a document from outside: every member the structs need is
 * checked for its type and range, sizes are bounded by the document itself
 * (a matrix must have the rows and columns its hosts say), and a malformed
 * result is an error naming the member ("matrix.state[2][1]: ..."), never a
 * crash. Strings are copied made safe for a terminal (ix_text_safe).
 */
#ifndef IX_REPORT_JSON_READ_H
#define IX_REPORT_JSON_READ_H

#include <jansson.h>

#include "probes/cluster/fleet.h"
#include "probes/cluster/multi.h"
#include "probes/cluster/patrun.h"
#include "probes/cluster/rails.h"
#include "probes/core/err.h"
#include "probes/core/wirefig.h"
#include "probes/host/topo.h"
#include "probes/ibfab/ibfab.h"
#include "probes/mem/mem.h"

/* A mesh result read back and what it owns. */
struct ix_mesh_saved {
	struct ix_mesh_result r;  /* r.hosts points at hosts */
	struct ix_hostlist hosts; /* in the order of the document's "hosts" */
	char bw_path[16], lat_path[16];
	/* The bad pairs' saved reasons, one per bad cell in row-major order
	 * (r.findings.bad_pairs of them); an entry is NULL where the document
	 * has none (older documents), and the reason is then worked out again. */
	char **reasons;
};

/* res: a "mesh" result object. On failure *out is empty (free it anyway). */
int ix_json_read_mesh(json_t *res, struct ix_mesh_saved *out, struct ix_err *err);
void ix_mesh_saved_free(struct ix_mesh_saved *s);

/* A traffic pattern's result read back (read_pattern.c), judged again
 * from its tests, links and counters. */
struct ix_pattern_saved {
	struct ix_pattern_result r; /* r.hosts points at hosts */
	struct ix_hostlist hosts;
	char path[16];
};

/* res: a "pattern" result object. On failure *out is empty. */
int ix_json_read_pattern(json_t *res, struct ix_pattern_saved *out, struct ix_err *err);
void ix_pattern_saved_free(struct ix_pattern_saved *s);

/* A "rails" result read back (read_rails.c): the rails with their
 * verdicts (each rail's hosts counted, not listed: its mesh, a result of
 * its own, has them), each node's all-rail throughput; r.rails and
 * r.nodes point at rails and nodes, r.mesh stays empty. */
struct ix_rails_saved {
	struct ix_rails rails;
	struct ix_hostlist nodes;
	struct ix_rails_result r;
};

/* res: a "rails" result object. On failure *out is empty. */
int ix_json_read_rails(json_t *res, struct ix_rails_saved *out, struct ix_err *err);
void ix_rails_saved_free(struct ix_rails_saved *s);

/* An incast result read back. Its hosts are the receiver (index 0) and the
 * senders in the order the flows first name them. */
struct ix_incast_saved {
	struct ix_incast_result r; /* r.hosts points at hosts */
	struct ix_hostlist hosts;
	char path[16];
};

/* res: an "incast" result object. On failure *out is empty (free it anyway). */
int ix_json_read_incast(json_t *res, struct ix_incast_saved *out, struct ix_err *err);
void ix_incast_saved_free(struct ix_incast_saved *s);

/* A saved topology ('ixperf topo --json' result, a run's "topology") back
 * into a topo, as much as report/model/topotree.h draws: PCI functions,
 * NUMA nodes, interfaces and RDMA ports with their states (read_topo.c).
 * On failure *out is empty. Free it with ix_topo_free. */
int ix_json_read_topo(json_t *topo, struct ix_topo *out, struct ix_err *err);

/* An "ib_fabric" result ('ixperf fabric --json') back into a subnet: its
 * nodes and cables, as a baseline (read_ibfab.c). On failure *f is
 * empty. Free it with ix_ibfab_free. */
int ix_json_read_ibfab(json_t *res, struct ix_ibfab *f, struct ix_err *err);

/* A "wire" object (null: no capture, present false). */
int ix_json_read_wire(json_t *w, struct ix_wire_figures *out, struct ix_err *err);

/* A "fleet" object back into its struct, every node's inventory checked
 * as an agent's reply is (read_fleet.c), the odd ones out computed again.
 * On failure *out is empty. Free it with ix_fleet_free. */
int ix_json_read_fleet(json_t *fleet, struct ix_fleet_result *out, struct ix_err *err);

/* A "mem" result ('ixperf mem --json') back into its struct, for the text
 * of ixperf mem (read_mem.c): nodes, pairs, curves and the comparison with
 * HMAT as saved. On failure *out is empty. Free it with ix_mem_result_free. */
int ix_json_read_mem(json_t *res, struct ix_mem_result *out, struct ix_err *err);

#endif
