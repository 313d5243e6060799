/* Unit tests for probes/rdma/engine.c, run against the simulated NIC of
 * tests/unit/probes/rdma/sim.c (virtual clock, RC invariants, injected faults). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/rdma/engine.h"
#include "tests/unit/probes/rdma/sim.h"

#define MS 1000000LL

#define assert_within(v, want, rel)                                                       \
	cr_assert(fabs((double)(v) - (double)(want)) <= (rel) * (double)(want),           \
		  "%s = %.6g, not within %.3g%% of %.6g", #v, (double)(v), 100.0 * (rel), \
		  (double)(want))

static struct rdma_sim sim;
static struct ix_err err;

static void sim_up(const struct rdma_sim_cfg *c)
{
	cr_assert_eq(rdma_sim_init(&sim, c), 0);
	memset(&err, 0, sizeof(err));
}

static void sim_down(void)
{
	rdma_sim_free(&sim);
}

static struct ix_rdma_run bw_run(enum ix_rdma_opcode op, uint64_t iters)
{
	struct ix_rdma_run r;

	ix_rdma_run_defaults(&r);
	r.opcode = op;
	r.size = 4096;
	r.iters = iters;
	r.cq_mod = 16;
	r.timeout_ns = 1 * MS;
	return r;
}

static double line_bps(void)
{
	return sim.cfg.rate * 8e9;
}

static int run_bw(const struct ix_rdma_run *r, struct ix_rdma_bw_figures *f)
{
	return ix_rdma_engine_run_bw(&rdma_sim_ops, &sim, r, f, &err);
}

/* ---- bandwidth ---------------------------------------------------------- */

Test(rdma_bw, write_by_iterations_counts_exactly_at_line_rate, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 10000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	sim_up(&c);
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert(f.complete);
	cr_assert(f.tx.valid);
	cr_assert_not(f.rx.valid);
	cr_assert_eq(f.tx.messages, 10000);
	cr_assert_eq(f.tx.bytes, 10000ull * 4096);
	cr_assert_eq(sim.posts, 10000);
	assert_within(f.tx.bits_per_second, line_bps(), 0.01);
	assert_within(f.tx.mpps, sim.cfg.rate * 1e3 / 4096, 0.01);
	cr_assert_eq(sim.sq_full, 0);
	cr_assert_leq(sim.max_sq_used, r.tx_depth);
	cr_assert(f.tx.peak_bits_per_second.valid);
	cr_assert_geq(f.tx.peak_bits_per_second.v, f.tx.bits_per_second * 0.999);
	cr_assert_leq(f.tx.peak_bits_per_second.v, line_bps() * 1.01);
	cr_assert_eq(f.clock_reads, sim.now_calls);
	cr_assert_eq(f.polls, sim.polls);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, read_by_iterations, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_READ, 4000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	sim_up(&c);
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_eq(f.tx.messages, 4000);
	assert_within(f.tx.bits_per_second, line_bps(), 0.01);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, duration_stops_at_the_deadline_within_one_window, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 0);
	struct ix_rdma_bw_figures f;

	r.duration_ns = 2 * MS;
	rdma_sim_cfg_default(&c);
	sim_up(&c);
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert(f.complete);
	cr_assert_geq(f.tx.ns, 2 * MS);
	cr_assert_leq(f.tx.ns, 2 * MS + 10000, "window %lld ns", (long long)f.tx.ns);
	/* Nothing posted past the deadline: what is not counted was in flight. */
	cr_assert_leq(sim.posts, f.tx.messages + r.tx_depth);
	assert_within(f.tx.bits_per_second, line_bps(), 0.01);
	cr_assert_not(f.tx.peak_bits_per_second.valid, "perftest has no peak by duration");
	/* The deadline costs a clock reading every few polls, not one per WR. */
	cr_assert_leq(f.clock_reads, f.polls / IX_RDMA_CHECK_EVERY + 2);
	cr_assert_lt(f.clock_reads * 2, f.tx.messages, "%llu clock readings",
		     (unsigned long long)f.clock_reads);
	ix_rdma_bw_figures_free(&f);
}

static void moderation(uint64_t iters, uint32_t cq_mod, uint32_t depth, uint64_t cqes)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, iters);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.sq_depth = depth;
	sim_up(&c);
	r.cq_mod = cq_mod;
	r.tx_depth = depth;
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_eq(f.tx.messages, iters);
	cr_assert_eq(sim.cqes, cqes, "%llu completions", (unsigned long long)sim.cqes);
	cr_assert_eq(f.cqes, cqes);
	cr_assert_eq(sim.sq_full, 0);
	cr_assert_leq(sim.max_sq_used, depth);
	rdma_sim_free(&sim);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, cq_moderation_signals_one_in_n_and_the_last)
{
	moderation(1000, 10, 32, 100);
	moderation(1005, 10, 32, 101); /* the last WR is signaled too */
	moderation(1000, 16, 16, 63);  /* a window of one moderation batch */
	moderation(1000, 1, 8, 1000);
}

Test(rdma_bw, a_window_deeper_than_the_send_queue_is_refused, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 1000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.sq_depth = 32;
	sim_up(&c);
	r.tx_depth = 64; /* the simulated queue enforces its depth */
	cr_assert_eq(run_bw(&r, &f), -1);
	cr_assert_eq(sim.sq_full, 1);
	cr_assert(strstr(err.msg, "send queue full"), "%s", err.msg);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, several_qps_share_the_line, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 2500);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.qps = 4;
	sim_up(&c);
	r.qps = 4;
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_eq(f.tx.messages, 10000);
	for (int q = 0; q < 4; q++)
		cr_assert_eq(sim.qp_posts[q], 2500);
	assert_within(f.tx.bits_per_second, line_bps(), 0.01);
	cr_assert_leq(sim.max_sq_used, r.tx_depth);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, warmup_iterations_are_not_counted, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 1000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	sim_up(&c);
	r.warmup_iters = 500;
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_eq(sim.posts, 1500);
	cr_assert_eq(f.tx.messages, 1000);
	assert_within(f.tx.ns, 1000 * 4096 / sim.cfg.rate, 0.01);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, warmup_time_is_excluded_and_intervals_flag_it, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 0);
	struct ix_rdma_bw_figures f;
	uint64_t all = 0;

	rdma_sim_cfg_default(&c);
	sim_up(&c);
	r.duration_ns = 2 * MS;
	r.warmup_ns = 1 * MS;
	r.interval_ns = MS / 2;
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_geq(f.tx.ns, 2 * MS);
	cr_assert_leq(f.tx.ns, 2 * MS + 10000);
	assert_within(f.tx.bits_per_second, line_bps(), 0.01);
	/* About a third of what went out was warm-up. */
	assert_within((double)f.tx.messages, sim.posts * 2.0 / 3.0, 0.02);
	cr_assert_geq(f.nintervals, 6);
	cr_assert(f.intervals[0].warmup);
	cr_assert(f.intervals[1].warmup);
	cr_assert_not(f.intervals[2].warmup);
	cr_assert_not(f.intervals[4].warmup);
	for (size_t i = 0; i < f.nintervals; i++) {
		all += f.intervals[i].tx_messages;
		cr_assert_eq(f.intervals[i].tx_bytes, f.intervals[i].tx_messages * 4096);
		if (i)
			cr_assert_eq(f.intervals[i].start_ns, f.intervals[i - 1].end_ns);
	}
	/* Every WR up to the last signaled one is in some interval. */
	cr_assert_leq(all, sim.posts);
	cr_assert_geq(all + r.cq_mod, sim.posts);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, send_receiver_posts_receives_ahead, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_SEND, 3000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.rq_depth = 64;
	c.in_msgs = 3000;
	sim_up(&c);
	r.side = IX_RDMA_RESPONDER;
	r.rx_depth = 64;
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_not(f.tx.valid);
	cr_assert(f.rx.valid);
	cr_assert_eq(f.rx.messages, 3000);
	cr_assert_eq(f.rx.bytes, 3000ull * 4096);
	assert_within(f.rx.bits_per_second, line_bps(), 0.01);
	cr_assert_eq(sim.rnr_naks, 0, "a send found no receive");
	cr_assert_eq(sim.rq_full, 0);
	cr_assert_eq(sim.recv_posts, 3000, "no receive beyond the messages expected");
	cr_assert_eq(f.recv_cqes, 3000);
	ix_rdma_bw_figures_free(&f);
}

/* Duration mode: the ends agree on the end (struct ix_rdma_end). */
static unsigned done_calls;

static void count_done(void *ctx)
{
	(void)ctx;
	done_calls++;
}

static bool stream_over(void *ctx)
{
	const struct rdma_sim *s = ctx;

	return s->qp[0].in_done == s->cfg.in_msgs;
}

static void stream_by_duration(struct ix_rdma_run *r, bool agree)
{
	struct rdma_sim_cfg c;

	rdma_sim_cfg_default(&c);
	c.in_msgs = 3000; /* about 1 ms at the line rate: past the 300 us deadline */
	sim_up(&c);
	*r = bw_run(IX_RDMA_SEND, 0);
	r->side = IX_RDMA_RESPONDER;
	r->duration_ns = 300 * 1000;
	r->warmup_ns = 0;
	if (agree)
		r->end = (struct ix_rdma_end){ count_done, stream_over, &sim };
	done_calls = 0;
}

Test(rdma_bw, a_receiver_serves_past_its_deadline_until_the_peer_is_done, .fini = sim_down)
{
	struct ix_rdma_run r;
	struct ix_rdma_bw_figures f;

	stream_by_duration(&r, true);
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_eq(f.recv_cqes, 3000, "every message of the peer met a receive");
	cr_assert_gt(f.rx.messages, 0);
	cr_assert_lt(f.rx.messages, 1000, "only the window counts: %llu",
		     (unsigned long long)f.rx.messages);
	cr_assert_leq(f.rx.ns, 300 * 1000 + 10000);
	cr_assert_eq(done_calls, 0, "a receiver has no work of its own to finish");
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, without_agreement_a_receiver_stops_at_its_deadline, .fini = sim_down)
{
	struct ix_rdma_run r;
	struct ix_rdma_bw_figures f;

	stream_by_duration(&r, false);
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_lt(f.recv_cqes, 3000, "the peer's later messages find no receive");
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, a_sender_says_once_that_its_work_is_done, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 0);
	struct ix_rdma_bw_figures f;

	r.duration_ns = 300 * 1000;
	r.end = (struct ix_rdma_end){ count_done, NULL, &sim };
	done_calls = 0;
	rdma_sim_cfg_default(&c);
	sim_up(&c);
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_eq(done_calls, 1);
	cr_assert_eq(sim.cqes, f.cqes, "every signaled WR completed before");
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, write_imm_receiver_with_warmup, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE_IMM, 2000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.in_msgs = 2200;
	c.in_opcode = IX_RDMA_WRITE_IMM;
	sim_up(&c);
	r.side = IX_RDMA_RESPONDER;
	r.warmup_iters = 200;
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_eq(f.rx.messages, 2000);
	assert_within(f.rx.bits_per_second, line_bps(), 0.01);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, too_few_receives_cost_rnr_retries_not_the_run, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_SEND, 100);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.in_msgs = 100;
	c.poll_cost_ns = 700; /* slower than a message arrives */
	sim_up(&c);
	r.side = IX_RDMA_RESPONDER;
	r.rx_depth = 1;
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_eq(f.rx.messages, 100);
	cr_assert_gt(sim.rnr_naks, 0, "the simulation must refuse a send without a receive");
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, bidirectional_reports_each_direction, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_SEND, 3000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.in_msgs = 3000;
	sim_up(&c);
	r.bidir = true;
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert(f.tx.valid && f.rx.valid);
	cr_assert_eq(f.tx.messages, 3000);
	cr_assert_eq(f.rx.messages, 3000);
	assert_within(f.tx.bits_per_second, line_bps(), 0.01);
	assert_within(f.rx.bits_per_second, line_bps(), 0.01);
	cr_assert_eq(sim.rnr_naks, 0);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, bidirectional_write_and_qps_with_warmup, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 1000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.qps = 4;
	sim_up(&c);
	r.qps = 4;
	r.bidir = true; /* incoming writes are silent: the peer reports them */
	r.warmup_iters = 100;
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert(f.tx.valid);
	cr_assert_not(f.rx.valid);
	cr_assert_eq(f.tx.messages, 4000);
	cr_assert_eq(sim.posts, 4400);
	assert_within(f.tx.bits_per_second, line_bps(), 0.01);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_bw, passive_end_of_a_write_has_nothing_to_do, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 1000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	sim_up(&c);
	r.side = IX_RDMA_RESPONDER;
	cr_assert_eq(run_bw(&r, &f), 0);
	cr_assert(f.complete);
	cr_assert_not(f.tx.valid || f.rx.valid);
	cr_assert_eq(sim.polls + sim.posts, 0);
}

/* ---- faults ------------------------------------------------------------- */

Test(rdma_fault, vanished_peer_stops_the_run_in_bounded_time, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 10000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.vanish = true;
	c.vanish_after = 3000;
	sim_up(&c);
	cr_assert_eq(run_bw(&r, &f), -1);
	cr_assert_not(f.complete);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	cr_assert(strstr(err.msg, "stopped responding"), "%s", err.msg);
	/* Partial figures: up to the last signaled WR before the peer went. */
	cr_assert_eq(f.tx.messages, 3000 / 16 * 16);
	cr_assert_gt(f.tx.bits_per_second, 0);
	/* Given up one timeout (and one clock check) after the last completion. */
	cr_assert_geq(sim.now - sim.last_cqe_ns, r.timeout_ns);
	cr_assert_leq(sim.now - sim.last_cqe_ns, r.timeout_ns + 100000);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_fault, vanished_sender_stops_the_receiver, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_SEND, 1000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.in_msgs = 400;
	sim_up(&c);
	r.side = IX_RDMA_RESPONDER;
	cr_assert_eq(run_bw(&r, &f), -1);
	cr_assert(strstr(err.msg, "stopped responding"), "%s", err.msg);
	cr_assert_eq(f.rx.messages, 400);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_fault, vanished_peer_in_duration_mode, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 0);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.vanish = true;
	c.vanish_after = 2000;
	sim_up(&c);
	r.duration_ns = 10 * MS;
	cr_assert_eq(run_bw(&r, &f), -1);
	cr_assert(strstr(err.msg, "stopped responding"), "%s", err.msg);
	cr_assert_eq(f.tx.messages, 2000);
	cr_assert_lt(sim.now, 5 * MS, "the timeout, not the deadline, ended the run");
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_fault, error_completion_fails_the_run_and_names_the_status, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 10000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.error_wr = 5000;
	c.error_status = 12;
	sim_up(&c);
	cr_assert_eq(run_bw(&r, &f), -1);
	cr_assert_not(f.complete);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	cr_assert(strstr(err.msg, "IBV_WC_RETRY_EXC_ERR"), "%s", err.msg);
	cr_assert(strstr(err.msg, "status 12"), "%s", err.msg);
	cr_assert_eq(f.tx.messages, 5000 / 16 * 16, "figures up to the failure are kept");
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_fault, a_lost_completion_is_covered_by_the_next, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 1000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.drop_wr = 160; /* signaled (cq_mod 16) */
	sim_up(&c);
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert_eq(sim.dropped, 1);
	cr_assert_eq(f.tx.messages, 1000);
	cr_assert_eq(f.cqes, 62);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_fault, a_lost_last_completion_ends_in_a_timeout, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 1000);
	struct ix_rdma_bw_figures f;

	rdma_sim_cfg_default(&c);
	c.drop_wr = 1000;
	sim_up(&c);
	cr_assert_eq(run_bw(&r, &f), -1);
	cr_assert(strstr(err.msg, "stopped responding"), "%s", err.msg);
	cr_assert_eq(f.tx.messages, 992);
	ix_rdma_bw_figures_free(&f);
}

/* ---- latency ------------------------------------------------------------ */

#define LAT_N 100
static int64_t lat_table[LAT_N];

/* One-way latencies 1000 .. 1990 ns in a shuffled order. */
static void lat_sim_up(enum ix_rdma_opcode op)
{
	struct rdma_sim_cfg c;

	for (int k = 0; k < LAT_N; k++)
		lat_table[k] = 1000 + 10 * ((k * 37) % LAT_N);
	rdma_sim_cfg_default(&c);
	c.rate = 0;
	c.poll_cost_ns = 0;
	c.fast_forward = true;
	c.lat_table = lat_table;
	c.lat_table_len = LAT_N;
	c.echo = true;
	c.echo_opcode = op;
	sim_up(&c);
}

static struct ix_rdma_run lat_run(enum ix_rdma_opcode op, uint64_t iters)
{
	struct ix_rdma_run r;

	ix_rdma_run_defaults(&r);
	r.opcode = op;
	r.size = 2;
	r.iters = iters;
	r.timeout_ns = 1 * MS;
	return r;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Round trip i (from 0) uses lat_table[i % LAT_N] each way. */
static void check_lat(const struct ix_rdma_lat_figures *f, uint64_t first, uint64_t n, int factor)
{
	uint64_t *want = calloc(n, sizeof(*want));
	double sum = 0;

	cr_assert_not_null(want);
	for (uint64_t i = 0; i < n; i++) {
		want[i] = (uint64_t)(lat_table[(first + i) % LAT_N] * factor);
		sum += (double)want[i];
	}
	qsort(want, n, sizeof(*want), cmp_u64);
	cr_assert(f->stats.valid && f->stats.exact);
	cr_assert_eq(f->stats.count, n);
	cr_assert_eq(f->stats.min, want[0]);
	cr_assert_eq(f->stats.max, want[n - 1]);
	cr_assert_eq(f->stats.p50, ix_percentile_sorted(want, n, 50));
	cr_assert_eq(f->stats.p99, ix_percentile_sorted(want, n, 99));
	cr_assert_eq(f->stats.p999, ix_percentile_sorted(want, n, 99.9));
	cr_assert_float_eq(f->stats.mean, sum / (double)n, 1e-6);
	free(want);
}

static void lat_case(enum ix_rdma_opcode op, uint64_t warm, int factor)
{
	struct ix_rdma_run r = lat_run(op, 1000);
	struct ix_rdma_lat_figures f;

	lat_sim_up(op);
	r.warmup_iters = warm;
	cr_assert_eq(ix_rdma_engine_run_lat(&rdma_sim_ops, &sim, &r, &f, &err), 0, "%s", err.msg);
	cr_assert(f.complete);
	cr_assert_eq(f.iters, 1000);
	cr_assert_eq(f.one_way, op != IX_RDMA_READ);
	check_lat(&f, warm, 1000, factor);
	cr_assert_eq(sim.sq_full + sim.rnr_naks, 0);
	ix_rdma_lat_figures_free(&f);
	sim_down();
}

Test(rdma_lat, send_one_way_is_half_the_round_trip)
{
	lat_case(IX_RDMA_SEND, 0, 1);
	lat_case(IX_RDMA_SEND, 100, 1); /* warm-up round trips excluded */
}

Test(rdma_lat, write_polls_for_the_incoming_write)
{
	lat_case(IX_RDMA_WRITE, 0, 1);
}

Test(rdma_lat, write_uses_no_receives, .fini = sim_down)
{
	struct ix_rdma_run r = lat_run(IX_RDMA_WRITE, 100);
	struct ix_rdma_lat_figures f;

	lat_sim_up(IX_RDMA_WRITE);
	cr_assert_eq(ix_rdma_engine_run_lat(&rdma_sim_ops, &sim, &r, &f, &err), 0, "%s", err.msg);
	cr_assert_eq(sim.recv_posts, 0);
	cr_assert_eq(sim.posts, 100);
	ix_rdma_lat_figures_free(&f);
}

Test(rdma_lat, read_counts_the_full_round_trip)
{
	lat_case(IX_RDMA_READ, 0, 2);
}

Test(rdma_lat, responder_answers_each_ping, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = lat_run(IX_RDMA_SEND, 500);
	struct ix_rdma_lat_figures f;

	rdma_sim_cfg_default(&c);
	c.rate = 0;
	c.poll_cost_ns = 0;
	c.fast_forward = true;
	c.echo = true;
	c.echo_limit = 500; /* the peer's pings, the first included */
	c.echo_starts = true;
	c.echo_start_ns = 3000;
	sim_up(&c);
	r.side = IX_RDMA_RESPONDER;
	cr_assert_eq(ix_rdma_engine_run_lat(&rdma_sim_ops, &sim, &r, &f, &err), 0, "%s", err.msg);
	cr_assert(f.complete);
	cr_assert_eq(f.iters, 500);
	cr_assert_eq(sim.posts, 500);
	cr_assert_eq(sim.recv_cqes, 500);
	cr_assert_not(f.stats.valid, "the responder keeps no samples");
	ix_rdma_lat_figures_free(&f);
}

Test(rdma_lat, duration_mode_keeps_percentiles, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = lat_run(IX_RDMA_SEND, 0);
	struct ix_rdma_lat_figures f;

	rdma_sim_cfg_default(&c);
	c.rate = 0;
	c.poll_cost_ns = 0;
	c.fast_forward = true;
	c.echo = true;
	sim_up(&c);
	r.duration_ns = 1 * MS;
	r.warmup_ns = MS / 10;
	cr_assert_eq(ix_rdma_engine_run_lat(&rdma_sim_ops, &sim, &r, &f, &err), 0, "%s", err.msg);
	/* 2 us round trips: 500 in the measured millisecond, 50 warming up. */
	cr_assert_eq(f.iters, 500);
	cr_assert_eq(sim.posts, 550);
	cr_assert_eq(f.stats.count, 500);
	cr_assert_eq(f.stats.min, 1000);
	cr_assert_eq(f.stats.p99, 1000);
	cr_assert_eq(f.stats.p999, 1000);
	cr_assert_float_eq(f.stats.stdev, 0, 1e-9);
	ix_rdma_lat_figures_free(&f);
}

Test(rdma_lat, vanished_peer_keeps_the_samples_so_far, .fini = sim_down)
{
	struct ix_rdma_run r = lat_run(IX_RDMA_SEND, 100);
	struct ix_rdma_lat_figures f;

	lat_sim_up(IX_RDMA_SEND);
	sim.cfg.echo_limit = 50; /* the peer answers 50 pings, then goes */
	cr_assert_eq(ix_rdma_engine_run_lat(&rdma_sim_ops, &sim, &r, &f, &err), -1);
	cr_assert_not(f.complete);
	cr_assert(strstr(err.msg, "stopped responding"), "%s", err.msg);
	cr_assert_eq(f.iters, 50);
	check_lat(&f, 0, 50, 1);
	ix_rdma_lat_figures_free(&f);
}

/* ---- BW peak ------------------------------------------------------------ */

Test(rdma_peak, a_slow_start_lowers_the_average_not_the_peak, .fini = sim_down)
{
	static int64_t slow_first[2000];
	struct rdma_sim_cfg c;
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 2000);
	struct ix_rdma_bw_figures f;

	for (int k = 0; k < 2000; k++)
		slow_first[k] = k ? 1000 : 100000;
	rdma_sim_cfg_default(&c);
	c.lat_table = slow_first;
	c.lat_table_len = 2000;
	sim_up(&c);
	cr_assert_eq(run_bw(&r, &f), 0, "%s", err.msg);
	cr_assert(f.tx.peak_bits_per_second.valid);
	assert_within(f.tx.peak_bits_per_second.v, line_bps(), 0.01);
	cr_assert_lt(f.tx.bits_per_second, 0.9 * line_bps());
	ix_rdma_bw_figures_free(&f);
}

/* ---- parameters, names and the simulation itself ------------------------ */

Test(rdma_params, bad_runs_are_usage_errors)
{
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 100);
	struct ix_rdma_bw_figures f;

	r.cq_mod = r.tx_depth + 1;
	cr_assert_eq(ix_rdma_engine_run_bw(&rdma_sim_ops, NULL, &r, &f, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	r = bw_run(IX_RDMA_WRITE, 100);
	r.duration_ns = MS;
	cr_assert_eq(ix_rdma_engine_run_bw(&rdma_sim_ops, NULL, &r, &f, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	r = bw_run(IX_RDMA_WRITE, 100);
	r.warmup_ns = MS;
	cr_assert_eq(ix_rdma_engine_run_bw(&rdma_sim_ops, NULL, &r, &f, &err), -1);
	r = bw_run(IX_RDMA_SEND, 100);
	r.rx_depth = 0;
	cr_assert_eq(ix_rdma_engine_run_bw(&rdma_sim_ops, NULL, &r, &f, &err), -1);
}
