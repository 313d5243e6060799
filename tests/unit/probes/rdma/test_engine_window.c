/* Unit tests for probes/rdma/engine.c: what a bandwidth window counts by
 * duration, against the simulated NIC of tests/unit/probes/rdma/sim.c
 * (part of the test_engine binary). */
#include "config.h"

#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/rdma/engine.h"
#include "tests/unit/probes/rdma/sim.h"

#define MS 1000000LL

static struct rdma_sim sim;

static void sim_down(void)
{
	rdma_sim_free(&sim);
}

/* The simulated NIC at rate bytes per ns (0: its default) and a write run
 * of size-byte messages, one in cq_mod signaled. */
static struct ix_rdma_run write_run(double rate, uint32_t size, uint32_t cq_mod)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r;

	rdma_sim_cfg_default(&c);
	c.rate = rate > 0 ? rate : c.rate;
	cr_assert_eq(rdma_sim_init(&sim, &c), 0);
	ix_rdma_run_defaults(&r);
	r.opcode = IX_RDMA_WRITE;
	r.size = size;
	r.cq_mod = cq_mod;
	return r;
}

/* A slow link (soft-RoCE on a loaded host, or a link shared by the tests of
 * a traffic pattern): cq_mod 64-KiB messages (4 MiB) take longer than the
 * window. A completion counts every WR up to it when it comes, so signaled
 * one in cq_mod alone, the window counted none of what it carried: 0 bit/s
 * for a link moving 168 Mbit/s. Signaled by bytes and time too, the count
 * is off by a few messages at most. */
Test(rdma_window, a_window_shorter_than_a_moderation_batch_counts_what_it_carried, .fini = sim_down)
{
	double rate = 4194304.0 / (200.0 * MS), line = rate * 8e9; /* 4 MiB in 200 ms */
	struct ix_rdma_run r = write_run(rate, 65536, 64);
	struct ix_rdma_bw_figures f;
	struct ix_err err = { 0 };

	r.tx_depth = 128;
	r.iters = 0;
	r.duration_ns = 100 * MS;
	r.timeout_ns = 1000 * MS;
	cr_assert_eq(ix_rdma_engine_run_bw(&rdma_sim_ops, &sim, &r, &f, &err), 0, "%s", err.msg);
	cr_assert(f.complete);
	cr_assert_gt(f.tx.messages, 0, "the window counted none of what it carried");
	cr_assert_leq(f.tx.ns, 101 * MS, "window %lld ns", (long long)f.tx.ns);
	/* 4 messages (256 KiB) each side of the window at most: 25% of 32 */
	cr_assert(fabs(f.tx.bits_per_second - line) <= 0.25 * line, "%.4g bit/s for %.4g",
		  f.tx.bits_per_second, line);
	ix_rdma_bw_figures_free(&f);
}

/* By iterations the count is exact: signaled one in cq_mod and the last
 * only, whatever the size. */
Test(rdma_window, iterations_keep_one_completion_in_cq_mod, .fini = sim_down)
{
	struct ix_rdma_run r = write_run(0, 1 << 20, 64);
	struct ix_rdma_bw_figures f;
	struct ix_err err = { 0 };

	r.iters = 640;
	r.warmup_iters = 0;
	cr_assert_eq(ix_rdma_engine_run_bw(&rdma_sim_ops, &sim, &r, &f, &err), 0, "%s", err.msg);
	cr_assert_eq(f.tx.messages, 640);
	cr_assert_eq(sim.cqes, 10, "%llu completions", (unsigned long long)sim.cqes);
	ix_rdma_bw_figures_free(&f);
}

/* What the engine's end callback saw: WRs still in flight when it said done. */
static uint64_t in_flight_at_done = UINT64_MAX;

static void record_done(void *ctx)
{
	(void)ctx;
	in_flight_at_done = sim.qp[0].posted - sim.qp[0].freed;
}

/* By duration the window closes wherever the WRs are: signaled by time as
 * well as one in cq_mod, the last one posted may be unsignaled, and no
 * completion says when it is done. The end still says it is done only once
 * nothing it posted is in flight (its peer then stops serving and both
 * tear their queue pairs down). */
Test(rdma_window, by_duration_nothing_is_in_flight_when_the_end_says_done, .fini = sim_down)
{
	/* 4 KiB in 0.3 ms: signaled by time every few WRs, not one in 16 */
	struct ix_rdma_run r = write_run(4096.0 / (0.3 * MS), 4096, 16);
	struct ix_rdma_bw_figures f;
	struct ix_err err = { 0 };

	r.iters = 0;
	r.duration_ns = 50 * MS;
	r.timeout_ns = 1000 * MS;
	r.end = (struct ix_rdma_end){ record_done, NULL, NULL };
	cr_assert_eq(ix_rdma_engine_run_bw(&rdma_sim_ops, &sim, &r, &f, &err), 0, "%s", err.msg);
	cr_assert_gt(f.tx.messages, 100);
	cr_assert_eq(in_flight_at_done, 0, "%llu WRs in flight when the end said done",
		     (unsigned long long)in_flight_at_done);
	cr_assert_eq(sim.qp[0].posted, f.posted);
	ix_rdma_bw_figures_free(&f);
}
