/* A bandwidth run over several threads, each with its own QPs and CQ, and
 * their figures merged into one run's (team.h). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "probes/rdma/team.h"

struct team;

/* One thread: its QPs are k, k + n, k + 2n ... of the run, its own 0, 1,
 * 2 ...; its completions come on CQ k. */
struct member {
	struct team *t;
	uint32_t k;
	struct ix_rdma_run run;
	struct ix_rdma_bw_figures fig;
	struct ix_err err;
};

struct team {
	const struct ix_rdma_ops *in;
	void *ctx;
	uint32_t n;
	struct ix_rdma_sync sync;
	const struct ix_rdma_end *end; /* the caller's */
	_Atomic uint32_t done_left;    /* threads whose own WRs are not all done */
	pthread_mutex_t lock;          /* around the caller's peer_done */
	bool peer_done;
	_Atomic int failed; /* the first thread that failed, -1: none */
	struct member m[IX_RDMA_TEAM_MAX];
};

uint32_t ix_rdma_team_threads(uint32_t asked, uint32_t qps, int ncpus)
{
	uint32_t n = asked, half_cpus = ncpus > 1 ? (uint32_t)ncpus / 2 : 1;

	if (qps == 0)
		return 1;
	if (n == 0) /* automatic */
		n = qps < IX_RDMA_TEAM_AUTO_QPS ? 1 : qps / 2;
	if (asked == 0 && n > half_cpus)
		n = half_cpus;
	if (n > qps)
		n = qps;
	return n > IX_RDMA_TEAM_MAX ? IX_RDMA_TEAM_MAX : n;
}

static int m_post_send(void *ctx, uint32_t qp, const struct ix_rdma_wr *wr, struct ix_err *err)
{
	struct member *m = ctx;

	return m->t->in->post_send(m->t->ctx, m->k + qp * m->t->n, wr, err);
}

static int m_post_recv(void *ctx, uint32_t qp, uint64_t wr_id, struct ix_err *err)
{
	struct member *m = ctx;

	return m->t->in->post_recv(m->t->ctx, m->k + qp * m->t->n, wr_id, err);
}

/* A completion of a QP not this thread's gets an index past its QPs,
 * which the engine refuses (naming it). */
static int m_poll(void *ctx, struct ix_rdma_wc *wc, int max, struct ix_err *err)
{
	struct member *m = ctx;
	int n = m->t->in->poll_cq(m->t->ctx, m->k, wc, max, err);

	for (int i = 0; i < n; i++)
		wc[i].qp = wc[i].qp % m->t->n == m->k ? wc[i].qp / m->t->n : UINT32_MAX;
	return n;
}

static int64_t m_now(void *ctx)
{
	struct member *m = ctx;

	return m->t->in->now_cq ? m->t->in->now_cq(m->t->ctx, m->k) : m->t->in->now_ns(m->t->ctx);
}

static const char *m_clock(void *ctx)
{
	struct member *m = ctx;

	return m->t->in->clock_name ? m->t->in->clock_name(m->t->ctx) : NULL;
}

static const struct ix_rdma_ops member_ops = { m_post_send, m_post_recv, m_poll, m_now,
					       m_clock,     NULL,        NULL };

/* The end of a duration run: this end is done when every thread is. */
static void m_done(void *ctx)
{
	struct member *m = ctx;

	if (atomic_fetch_sub(&m->t->done_left, 1) == 1 && m->t->end->done)
		m->t->end->done(m->t->end->ctx);
}

static bool m_peer_done(void *ctx)
{
	struct member *m = ctx;
	bool done;

	pthread_mutex_lock(&m->t->lock);
	if (!m->t->peer_done)
		m->t->peer_done = m->t->end->peer_done(m->t->end->ctx);
	done = m->t->peer_done;
	pthread_mutex_unlock(&m->t->lock);
	return done;
}

static void *member_main(void *arg)
{
	struct member *m = arg;
	int none = -1;

	if (ix_rdma_engine_run_bw(&member_ops, m, &m->run, &m->fig, &m->err) < 0) {
		atomic_compare_exchange_strong(&m->t->failed, &none, (int)m->k);
		atomic_store(&m->t->sync.stop, true);
	}
	return NULL;
}

/* One direction: the messages of all threads over the window from the
 * first one's start to the last one's end. */
static void merge_dir(struct ix_rdma_dir_figures *d, const struct member *m, uint32_t n, bool tx,
		      uint32_t size)
{
	bool timed = false;

	for (uint32_t k = 0; k < n; k++) {
		const struct ix_rdma_dir_figures *in = tx ? &m[k].fig.tx : &m[k].fig.rx;

		if (!in->valid)
			continue;
		d->valid = true;
		d->messages += in->messages;
		if (in->ns <= 0)
			continue;
		if (!timed || in->t_start < d->t_start)
			d->t_start = in->t_start;
		if (!timed || in->t_end > d->t_end)
			d->t_end = in->t_end;
		timed = true;
	}
	d->bytes = d->messages * size;
	d->ns = timed ? d->t_end - d->t_start : 0;
	if (d->ns > 0) {
		d->bits_per_second = (double)d->bytes * 8e9 / (double)d->ns;
		d->mpps = (double)d->messages * 1e3 / (double)d->ns;
	}
}

/* Intervals by their number: every thread's start at the team's t0. */
static int merge_intervals(struct ix_rdma_bw_figures *o, const struct member *m, uint32_t n)
{
	size_t most = 0;

	for (uint32_t k = 0; k < n; k++)
		if (m[k].fig.nintervals > most)
			most = m[k].fig.nintervals;
	if (most == 0)
		return 0;
	if (!(o->intervals = calloc(most, sizeof(*o->intervals))))
		return -1;
	o->nintervals = most;
	for (size_t i = 0; i < most; i++)
		o->intervals[i].start_ns = INT64_MAX; /* the earliest thread's, below */
	for (uint32_t k = 0; k < n; k++)
		for (size_t i = 0; i < m[k].fig.nintervals; i++) {
			const struct ix_rdma_interval *a = &m[k].fig.intervals[i];
			struct ix_rdma_interval *iv = &o->intervals[i];

			iv->start_ns = a->start_ns < iv->start_ns ? a->start_ns : iv->start_ns;
			iv->end_ns = a->end_ns > iv->end_ns ? a->end_ns : iv->end_ns;
			iv->warmup |= a->warmup;
			iv->tx_messages += a->tx_messages;
			iv->rx_messages += a->rx_messages;
			iv->tx_bytes += a->tx_bytes;
			iv->rx_bytes += a->rx_bytes;
		}
	return 0;
}

/* The BW peak over every thread's WRs in one posting order. */
static void merge_peak(struct ix_rdma_bw_figures *o, const struct member *m, uint32_t n,
		       uint32_t size)
{
	struct ix_rdma_marks posts[IX_RDMA_TEAM_MAX], dones[IX_RDMA_TEAM_MAX], p, d;
	double ns = 0;

	for (uint32_t k = 0; k < n; k++) {
		posts[k] = m[k].fig.peak_posts;
		dones[k] = m[k].fig.peak_dones;
	}
	if (ix_rdma_marks_merge(posts, dones, n, &p, &d) == 0) /* a lost list: no peak */
		ns = ix_rdma_peak_msg_ns(p.v, p.n, d.v, d.n);
	if (ns > 0)
		o->tx.peak_bits_per_second = ix_f64((double)size * 8e9 / ns);
	free(p.v);
	free(d.v);
}

static int merge(struct team *t, const struct ix_rdma_run *run, struct ix_rdma_bw_figures *o)
{
	bool tx = false;

	o->complete = true;
	for (uint32_t k = 0; k < t->n; k++) {
		const struct ix_rdma_bw_figures *f = &t->m[k].fig;

		o->complete &= f->complete;
		o->posted += f->posted;
		o->recvs_posted += f->recvs_posted;
		o->polls += f->polls;
		o->cqes += f->cqes;
		o->recv_cqes += f->recv_cqes;
		o->clock_reads += f->clock_reads;
		tx |= f->qp_messages != NULL;
	}
	if (tx && !(o->qp_messages = calloc(run->qps, sizeof(*o->qp_messages))))
		return -1;
	merge_dir(&o->tx, t->m, t->n, true, run->size);
	merge_dir(&o->rx, t->m, t->n, false, run->size);
	o->nqps = tx ? run->qps : 0;
	for (uint32_t k = 0; tx && k < t->n; k++)
		for (uint32_t j = 0; t->m[k].fig.qp_messages && j < t->m[k].fig.nqps; j++)
			o->qp_messages[k + j * t->n] = t->m[k].fig.qp_messages[j];
	if (run->peak && o->tx.valid)
		merge_peak(o, t->m, t->n, run->size);
	return merge_intervals(o, t->m, t->n);
}

int ix_rdma_team_run_bw(const struct ix_rdma_ops *ops, void *ctx, const struct ix_rdma_run *run,
			uint32_t threads, struct ix_rdma_bw_figures *out, struct ix_err *err)
{
	struct team *t;
	pthread_t th[IX_RDMA_TEAM_MAX];
	uint32_t started = 0;
	int rc = 0, failed;

	if (threads <= 1 || !ops->poll_cq || run->qps < 2)
		return ix_rdma_engine_run_bw(ops, ctx, run, out, err);
	memset(out, 0, sizeof(*out));
	if (threads > run->qps || threads > IX_RDMA_TEAM_MAX)
		return ix_fail(err, IX_EXIT_USAGE,
			       "%u threads for %u QPs (at most one a QP, and %d)", threads,
			       run->qps, IX_RDMA_TEAM_MAX);
	if (!(t = calloc(1, sizeof(*t))))
		return ix_fail(err, IX_EXIT_FAIL, "out of memory for a team of %u threads",
			       threads);
	*t = (struct team){ .in = ops, .ctx = ctx, .n = threads, .end = &run->end };
	pthread_mutex_init(&t->lock, NULL);
	atomic_init(&t->failed, -1);
	atomic_init(&t->done_left, threads);
	atomic_init(&t->sync.warming, threads);
	atomic_init(&t->sync.stop, false);
	t->sync.t0_ns = ops->now_ns(ctx);
	for (uint32_t k = 0; k < threads; k++) {
		struct member *m = &t->m[k];

		*m = (struct member){ .t = t, .k = k, .run = *run };
		m->run.qps = (run->qps - k + threads - 1) / threads;
		m->run.sync = &t->sync;
		m->run.keep_marks = run->peak;
		m->run.end = (struct ix_rdma_end){ run->end.done ? m_done : NULL,
						   run->end.peer_done ? m_peer_done : NULL, m };
	}
	for (; started < threads; started++)
		if (pthread_create(&th[started], NULL, member_main, &t->m[started]) != 0) {
			atomic_store(&t->sync.stop, true);
			rc = ix_fail(err, IX_EXIT_FAIL, "cannot start thread %u of %u", started + 1,
				     threads);
			break;
		}
	for (uint32_t k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	failed = atomic_load(&t->failed);
	if (rc == 0 && failed >= 0) {
		*err = t->m[failed].err;
		ix_fail_prefix(err, "thread %d of %u (its QP j is the run's QP %d + %u j)",
			       failed + 1, threads, failed, threads);
		rc = -1;
	}
	if (started == threads && merge(t, run, out) < 0 && rc == 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory merging the threads' figures");
	out->complete &= rc == 0;
	for (uint32_t k = 0; k < threads; k++)
		ix_rdma_bw_figures_free(&t->m[k].fig);
	pthread_mutex_destroy(&t->lock);
	free(t);
	return rc;
}
