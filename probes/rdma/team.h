/*
 * A bandwidth run spread over threads: perftest polls every QP from one
 * thread, which caps what one process can drive with many QPs; here QP q
 * goes to thread q % threads, each thread polls a completion queue of its
 * own (the verbs layer opened with as many CQs, QP q on CQ q % threads)
 * and runs the engine over its QPs, and the figures of all threads are
 * merged into one run's, with the same meaning as the engine's
 * (engine.h): the window from the first measured post of any thread to
 * the last completion of any, the BW peak over every thread's WRs in one
 * posting order, intervals added up, the per-QP counts in the run's QP
 * numbering. All threads' measured WRs wait until every thread's warm-up
 * completed, and a thread that fails stops the others.
 */
#ifndef IX_RDMA_TEAM_H
#define IX_RDMA_TEAM_H

#include <stdint.h>

#include "probes/rdma/engine.h"

#define IX_RDMA_TEAM_MAX      16 /* threads of one run at most */
#define IX_RDMA_TEAM_AUTO_QPS 4  /* automatic: a team from this many QPs up */

/* The threads a bandwidth run of qps QPs gets on ncpus CPUs (the CPUs this
 * thread may run on): asked when > 0 (at most qps and IX_RDMA_TEAM_MAX);
 * 0: automatic, one below IX_RDMA_TEAM_AUTO_QPS QPs, else a thread per two
 * QPs, on at most half the CPUs (the rest left to the kernel's completion
 * work and, on the same host, the peer), and at least one. */
uint32_t ix_rdma_team_threads(uint32_t asked, uint32_t qps, int ncpus);

/* ix_rdma_engine_run_bw over threads threads (1, or an ops without
 * poll_cq: the engine alone, in this thread). Same contract: 0, or -1 with
 * err the first failing thread's error and out what was done. */
int ix_rdma_team_run_bw(const struct ix_rdma_ops *ops, void *ctx, const struct ix_rdma_run *run,
			uint32_t threads, struct ix_rdma_bw_figures *out, struct ix_err *err);

#endif
