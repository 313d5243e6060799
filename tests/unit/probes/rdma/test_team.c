/* Unit tests for probes/rdma/team.c: a bandwidth run over several threads
 * against the simulated NIC (sim.h) behind a lock, its completions sorted
 * into one queue per CQ as a NIC with a CQ per thread would (QP q on CQ
 * q % threads), and the merged figures against what the NIC did. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/rdma/team.h"
#include "tests/unit/probes/rdma/sim.h"

#define MS     1000000LL
#define QCAP   8192
#define MAXCQS 8

struct cq_queue {
	struct ix_rdma_wc v[QCAP];
	size_t head, n;
};

static struct {
	struct rdma_sim sim;
	pthread_mutex_t lock;
	uint32_t ncq;
	struct cq_queue q[MAXCQS];
	uint64_t polled_by[MAXCQS]; /* completions handed to each CQ's poller */
	bool wrong_cq;              /* a QP's completion handed to another CQ */
} t;

static struct ix_err err;

static void pull(void)
{
	struct ix_rdma_wc wc[IX_RDMA_POLL_BATCH];
	int n = rdma_sim_ops.poll(&t.sim, wc, IX_RDMA_POLL_BATCH, &err);

	for (int i = 0; i < n; i++) {
		struct cq_queue *q = &t.q[wc[i].qp % t.ncq];

		cr_assert_lt(q->n, QCAP);
		q->v[(q->head + q->n++) % QCAP] = wc[i];
	}
}

static int take(uint32_t cq, struct ix_rdma_wc *wc, int max)
{
	struct cq_queue *q = &t.q[cq];
	int n = 0;

	for (; n < max && q->n; n++, q->n--) {
		wc[n] = q->v[q->head];
		q->head = (q->head + 1) % QCAP;
		t.wrong_cq |= wc[n].qp % t.ncq != cq;
	}
	t.polled_by[cq] += (uint64_t)n;
	return n;
}

static int l_post_send(void *ctx, uint32_t qp, const struct ix_rdma_wr *wr, struct ix_err *e)
{
	int rc;

	(void)ctx;
	pthread_mutex_lock(&t.lock);
	rc = rdma_sim_ops.post_send(&t.sim, qp, wr, e);
	pthread_mutex_unlock(&t.lock);
	return rc;
}

static int l_post_recv(void *ctx, uint32_t qp, uint64_t wr_id, struct ix_err *e)
{
	int rc;

	(void)ctx;
	pthread_mutex_lock(&t.lock);
	rc = rdma_sim_ops.post_recv(&t.sim, qp, wr_id, e);
	pthread_mutex_unlock(&t.lock);
	return rc;
}

static int l_poll_cq(void *ctx, uint32_t cq, struct ix_rdma_wc *wc, int max, struct ix_err *e)
{
	int n;

	(void)ctx;
	(void)e;
	pthread_mutex_lock(&t.lock);
	if (!t.q[cq].n)
		pull();
	n = take(cq, wc, max);
	pthread_mutex_unlock(&t.lock);
	return n;
}

static int l_poll(void *ctx, struct ix_rdma_wc *wc, int max, struct ix_err *e)
{
	return l_poll_cq(ctx, 0, wc, max, e);
}

static int64_t l_now(void *ctx)
{
	int64_t v;

	(void)ctx;
	pthread_mutex_lock(&t.lock);
	v = rdma_sim_ops.now_ns(&t.sim);
	pthread_mutex_unlock(&t.lock);
	return v;
}

static const struct ix_rdma_ops locked_ops = { l_post_send, l_post_recv, l_poll, l_now,
					       NULL,        l_poll_cq,   NULL };

static void up(const struct rdma_sim_cfg *c, uint32_t ncq)
{
	memset(&t, 0, sizeof(t));
	cr_assert_eq(rdma_sim_init(&t.sim, c), 0);
	pthread_mutex_init(&t.lock, NULL);
	t.ncq = ncq;
	memset(&err, 0, sizeof(err));
}

static void down(void)
{
	rdma_sim_free(&t.sim);
	pthread_mutex_destroy(&t.lock);
}

/* Virtual time: 1 s without a completion is a stall. */
static struct ix_rdma_run bw_run(enum ix_rdma_opcode op, uint32_t qps, uint64_t iters)
{
	struct ix_rdma_run r;

	ix_rdma_run_defaults(&r);
	r.opcode = op;
	r.qps = qps;
	r.size = 4096;
	r.iters = iters;
	r.cq_mod = 16;
	r.timeout_ns = 1000 * MS;
	return r;
}

static struct rdma_sim_cfg cfg(uint32_t qps)
{
	struct rdma_sim_cfg c;

	rdma_sim_cfg_default(&c);
	c.qps = qps;
	/* The clock moves with the NIC's events, not with polls: a thread the
	 * OS holds off while the others spin must not see time pass for them. */
	c.fast_forward = true;
	c.poll_cost_ns = 0;
	c.idle_step_ns = 10;
	return c;
}

Test(rdma_team, threads_asked_automatic_and_bounded)
{
	cr_assert_eq(ix_rdma_team_threads(0, 1, 64), 1);
	cr_assert_eq(ix_rdma_team_threads(0, 3, 64), 1, "below 4 QPs: one");
	cr_assert_eq(ix_rdma_team_threads(0, 4, 64), 2, "a thread per 2 QPs");
	cr_assert_eq(ix_rdma_team_threads(0, 8, 64), 4);
	cr_assert_eq(ix_rdma_team_threads(0, 8, 4), 2, "at most half the CPUs");
	cr_assert_eq(ix_rdma_team_threads(0, 8, 2), 1, "2 CPUs: one thread");
	cr_assert_eq(ix_rdma_team_threads(0, 8, 1), 1);
	cr_assert_eq(ix_rdma_team_threads(0, 64, 256), IX_RDMA_TEAM_MAX);
	cr_assert_eq(ix_rdma_team_threads(3, 8, 1), 3, "asked: whatever the CPUs");
	cr_assert_eq(ix_rdma_team_threads(8, 2, 64), 2, "never more than the QPs");
	cr_assert_eq(ix_rdma_team_threads(0, 0, 64), 1);
}

/* Every QP's WRs, the warm-up's and the measured ones, on its own thread's
 * CQ; the figures those of one run over all QPs. */
Test(rdma_team, iterations_over_threads_count_every_wr_once, .fini = down)
{
	struct rdma_sim_cfg c = cfg(8);
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 8, 2000);
	struct ix_rdma_bw_figures f;
	uint64_t sum = 0;

	r.warmup_iters = 200;
	up(&c, 4);
	cr_assert_eq(ix_rdma_team_run_bw(&locked_ops, NULL, &r, 4, &f, &err), 0, "%s", err.msg);
	cr_assert(f.complete);
	cr_assert(f.tx.valid);
	cr_assert_eq(f.tx.messages, 8 * 2000);
	cr_assert_eq(f.tx.bytes, 8ull * 2000 * 4096);
	cr_assert_eq(f.posted, 8 * 2200);
	cr_assert_eq(t.sim.posts, 8 * 2200);
	cr_assert_eq(f.nqps, 8);
	for (uint32_t q = 0; q < 8; q++) {
		cr_assert_eq(f.qp_messages[q], 2200, "QP %u: %llu", q,
			     (unsigned long long)f.qp_messages[q]);
		cr_assert_eq(t.sim.qp_posts[q], 2200);
		sum += f.qp_messages[q];
	}
	cr_assert_eq(sum, t.sim.posts);
	cr_assert_not(t.wrong_cq, "a completion reached another thread's CQ");
	for (uint32_t k = 0; k < 4; k++)
		cr_assert_gt(t.polled_by[k], 0, "CQ %u was never polled", k);
	cr_assert_eq(t.sim.sq_full, 0);
	cr_assert_eq(f.cqes, t.sim.cqes);
	cr_assert_gt(f.tx.ns, 0);
	cr_assert_eq(f.tx.t_end - f.tx.t_start, f.tx.ns);
	/* bytes over the window, as one run's */
	cr_assert_float_eq(f.tx.bits_per_second, (double)f.tx.bytes * 8e9 / (double)f.tx.ns, 1e-3);
	cr_assert(f.tx.peak_bits_per_second.valid, "the peak over all threads' WRs");
	cr_assert_geq(f.tx.peak_bits_per_second.v, f.tx.bits_per_second * 0.999);
	ix_rdma_bw_figures_free(&f);
}

/* One thread, or an ops without poll_cq: the engine alone, the same count. */
Test(rdma_team, one_thread_is_the_engine_alone, .fini = down)
{
	struct rdma_sim_cfg c = cfg(4);
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 4, 1000);
	struct ix_rdma_bw_figures f;

	up(&c, 1);
	cr_assert_eq(ix_rdma_team_run_bw(&locked_ops, NULL, &r, 1, &f, &err), 0, "%s", err.msg);
	cr_assert_eq(f.tx.messages, 4000);
	cr_assert_eq(t.polled_by[0], f.cqes);
	ix_rdma_bw_figures_free(&f);
}

/* By duration with intervals: the windows and intervals of all threads
 * from one start; every message of every interval is one the NIC
 * completed. */
Test(rdma_team, duration_and_intervals_from_one_start, .fini = down)
{
	struct rdma_sim_cfg c = cfg(4);
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 4, 0);
	struct ix_rdma_bw_figures f;
	uint64_t in_ivals = 0, sum = 0;

	r.duration_ns = 4 * MS;
	r.warmup_ns = 1 * MS;
	r.interval_ns = 1 * MS;
	up(&c, 2);
	cr_assert_eq(ix_rdma_team_run_bw(&locked_ops, NULL, &r, 2, &f, &err), 0, "%s", err.msg);
	cr_assert(f.complete);
	cr_assert_geq(f.tx.ns, 4 * MS);
	cr_assert_gt(f.tx.messages, 0);
	cr_assert_not(f.tx.peak_bits_per_second.valid, "no peak by duration");
	cr_assert_geq(f.nintervals, 4);
	for (size_t i = 0; i < f.nintervals; i++) {
		in_ivals += f.intervals[i].tx_messages;
		if (i)
			cr_assert_geq(f.intervals[i].start_ns, f.intervals[i - 1].start_ns);
	}
	cr_assert(f.intervals[0].warmup);
	for (uint32_t q = 0; q < 4; q++)
		sum += f.qp_messages[q];
	cr_assert_eq(in_ivals, sum, "intervals %llu, QPs %llu", (unsigned long long)in_ivals,
		     (unsigned long long)sum);
	cr_assert_leq(f.tx.messages, sum);
	ix_rdma_bw_figures_free(&f);
}

/* The receiving end of send over threads: each thread posts the receives
 * of its QPs and counts what arrives on them. */
Test(rdma_team, receives_over_threads, .fini = down)
{
	struct rdma_sim_cfg c = cfg(4);
	struct ix_rdma_run r = bw_run(IX_RDMA_SEND, 4, 500);
	struct ix_rdma_bw_figures f;

	c.in_msgs = 500;
	c.in_opcode = IX_RDMA_SEND;
	/* A send that finds no receive is retried: jumping to it would spin
	 * inside the NIC while the thread that posts that receive waits. */
	c.fast_forward = false;
	c.poll_cost_ns = 1;
	r.side = IX_RDMA_RESPONDER;
	r.rx_depth = 64;
	up(&c, 2);
	cr_assert_eq(ix_rdma_team_run_bw(&locked_ops, NULL, &r, 2, &f, &err), 0, "%s", err.msg);
	cr_assert(f.rx.valid);
	cr_assert_not(f.tx.valid);
	cr_assert_eq(f.rx.messages, 4 * 500);
	cr_assert_eq(f.recv_cqes, 4 * 500);
	cr_assert_not(t.wrong_cq);
	ix_rdma_bw_figures_free(&f);
}

/* A completion error on one thread's QP: the run fails with that
 * thread's error, naming it and how its QPs map to the run's, and the
 * other threads stop at their next check instead of running on. */
Test(rdma_team, a_failing_thread_stops_the_others, .fini = down)
{
	struct rdma_sim_cfg c = cfg(4);
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 4, 200000);
	struct ix_rdma_bw_figures f;

	c.error_wr = 3000;
	c.error_status = 12; /* IBV_WC_RETRY_EXC_ERR */
	up(&c, 2);
	cr_assert_eq(ix_rdma_team_run_bw(&locked_ops, NULL, &r, 2, &f, &err), -1);
	cr_assert_not(f.complete);
	cr_assert_not_null(strstr(err.msg, "IBV_WC_RETRY_EXC_ERR"), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "of 2 (its QP j is the run's QP"), "%s", err.msg);
	cr_assert_lt(t.sim.posts, 4 * 200000 / 4, "the others ran on: %llu posts",
		     (unsigned long long)t.sim.posts);
	ix_rdma_bw_figures_free(&f);
}

Test(rdma_team, more_threads_than_qps_refused, .fini = down)
{
	struct rdma_sim_cfg c = cfg(2);
	struct ix_rdma_run r = bw_run(IX_RDMA_WRITE, 2, 100);
	struct ix_rdma_bw_figures f;

	up(&c, 2);
	cr_assert_eq(ix_rdma_team_run_bw(&locked_ops, NULL, &r, 3, &f, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, "3 threads for 2 QPs"), "%s", err.msg);
	cr_assert_eq(t.sim.posts, 0);
}
