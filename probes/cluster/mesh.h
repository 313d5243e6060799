/* ixperf mesh: all-pairs bandwidth and latency over agents. */
#ifndef IX_MESH_H
#define IX_MESH_H

#include "probes/cluster/multi.h"
#include "probes/core/err.h"

struct ix_coord;

/* Run the mesh over the coordinator's agents (hosts in the same order).
 * Failed agents fail their pairs; the rest goes on. Returns -1 only when
 * nothing can run (out of memory); r->complete says whether every pair
 * was measured. */
int ix_mesh_run(struct ix_coord *co, const struct ix_mesh_params *p,
		const struct ix_hostlist *hosts, struct ix_mesh_result *r,
		const struct ix_mesh_hooks *hooks, struct ix_err *err);

#endif
