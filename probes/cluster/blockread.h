/* Synchronised reads, the receiver's side of an incast (Phanishayee et al.,
 * FAST'08): ask every sender for a block at once, wait for all, repeat. */
#ifndef IX_BLOCKREAD_H
#define IX_BLOCKREAD_H

#include <stdint.h>

#include "probes/cluster/hostlist.h"
#include "probes/core/err.h"
#include "probes/core/probe.h"

struct ix_token;

/* Connect to the agents in senders[0..n), run the rounds, fill f. On
 * failure f keeps what was measured, with f->complete false. */
int ix_read_run(const struct ix_read_params *p, const struct ix_host *senders, uint32_t n,
		const struct ix_token *token, struct ix_read_figures *f, struct ix_err *err);

#endif
