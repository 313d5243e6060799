/* The RDMA engine on real hardware (probes/rdma/rdma.c): the engine's
 * operations implemented with the verbs layer, and the engine's run
 * derived from the options both ends agreed on. */
#ifndef IX_RDMA_H
#define IX_RDMA_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/core/tsc.h"
#include "probes/rdma/engine.h"
#include "probes/rdma/setup.h"
#include "probes/rdma/team.h"
#include "probes/rdma/verbs.h"

/* The context of ix_rdma_hw_ops. */
struct ix_rdma_hw {
	struct ix_verbs *v;
	uint32_t size; /* message size: receives and watched writes */
	enum ix_rdma_opcode opcode;
	/* Write latency, as perftest's write_lat: the buffer holds two
	 * messages; this end writes from the first into the peer's second
	 * (ix_verbs_remote_offset) and watches the last byte of its own second
	 * for the peer's writes, so its own stores are never taken for them. */
	bool watch_writes;
	uint8_t last_seen;
	uint32_t next_cq; /* poll of every CQ: where the next one starts */
	/* A team's threads (team.h): each its own copy of the calibrated
	 * clock, whose anchor is per reader. */
	struct ix_tsc tsc_cq[IX_RDMA_TEAM_MAX];
	/* The engine's clock: the TSC where clock_gettime is slow (ix_tsc_init
	 * with IX_RDMA_SLOW_CLOCK_NS), since the latency loop reads it twice
	 * per round trip. */
	struct ix_tsc tsc;
};

#define IX_RDMA_SLOW_CLOCK_NS 250

extern const struct ix_rdma_ops ix_rdma_hw_ops;

/* The engine's run for one end: requester (the client's end) or
 * responder, bandwidth or latency. In iterations mode a warm-up of a
 * tenth of the iterations runs first when warmup_s > 0. */
void ix_rdma_run_from_params(const struct ix_rdma_params *p, bool requester, bool latency,
			     struct ix_rdma_run *run);

#endif
