/* Reading a mesh document back into the heatmap's snapshot, so that
 * 'ixperf top --mesh FILE' shows a running mesh's state file or a saved
 * result (report/tui/heat_state.c). */
#ifndef IX_HEAT_STATE_H
#define IX_HEAT_STATE_H

#include <jansson.h>

#include "probes/core/err.h"
#include "report/tui/heatmap.h"

/* Fill s from a document written by 'ixperf mesh --state' or '--json', by
 * 'ixperf gpu --json' (its GPU x GPU bandwidth and latency matrices as a
 * mesh of GPUs) or by 'ixperf coll --json' (its pair scan: the ring's
 * links as a mesh of ranks, the slow ones bad, the rank named a suspect).
 * Errors name what is missing or malformed. */
int ix_heat_src_load(struct ix_heat_src *s, json_t *doc, struct ix_err *err);

#endif
