/* ixperf incast: many senders to one receiver, streaming or synchronised
 * reads, swept over sender counts. */
#ifndef IX_INCAST_H
#define IX_INCAST_H

#include "probes/cluster/multi.h"
#include "probes/core/err.h"

struct ix_coord;

/* Run every step of the sweep over the coordinator's agents (hosts in the
 * same order; the receiver is params->receiver, senders the others in
 * order). A failed step keeps its reason; the sweep goes on. */
int ix_incast_run(struct ix_coord *co, const struct ix_incast_params *p,
		  const struct ix_hostlist *hosts, struct ix_incast_result *r, struct ix_err *err);

#endif
