/* RDMA bandwidth and latency engine over struct ix_rdma_ops (see the header
 * for the meaning of every figure). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "probes/rdma/engine.h"

#define NO_TIME INT64_MIN

/* The messages of this opcode consume receives at the other end. */
static bool needs_recv(enum ix_rdma_opcode op)
{
	return op == IX_RDMA_SEND || op == IX_RDMA_WRITE_IMM;
}

static int validate(const struct ix_rdma_run *r, bool lat, struct ix_err *err)
{
	const char *why = NULL;

	if ((unsigned)r->opcode > IX_RDMA_WRITE_IMM || (unsigned)r->side > IX_RDMA_RESPONDER)
		why = "unknown opcode or side";
	else if (r->qps == 0 || (lat && r->qps != 1))
		why = lat ? "latency runs on exactly one QP" : "at least one QP is needed";
	else if (r->size == 0 || r->tx_depth == 0)
		why = "message size and tx depth must be at least 1";
	else if (r->cq_mod == 0 || r->cq_mod > r->tx_depth)
		why = "CQ moderation must be between 1 and the tx depth";
	else if (needs_recv(r->opcode) && r->rx_depth == 0)
		why = "send and write_imm need an rx depth of at least 1";
	else if ((r->iters == 0) == (r->duration_ns <= 0))
		why = "give either iterations or a duration";
	else if (r->iters && r->warmup_ns)
		why = "iterations mode warms up by iterations, not by time";
	else if (!r->iters && r->warmup_iters)
		why = "duration mode warms up by time, not by iterations";
	else if (r->warmup_ns < 0 || r->interval_ns < 0 || r->timeout_ns <= 0)
		why = "warm-up and interval must not be negative, the timeout must be positive";
	else if (r->qps > 65536 || r->iters > (1ull << 40) || r->warmup_iters > (1ull << 40))
		why = "too many QPs or iterations";
	else if (lat && r->bidir)
		why = "bidirectional runs are for bandwidth";
	if (why)
		return ix_fail(err, IX_EXIT_USAGE, "rdma %s: %s", ix_rdma_opcode_name(r->opcode),
			       why);
	return 0;
}

/* ---- what bandwidth and latency share ------------------------------------ */

struct rdma_qp {
	uint64_t posted;   /* send WRs posted */
	uint64_t done;     /* send WRs known complete */
	uint64_t last_sig; /* WRs up to the last signaled one */
	uint64_t unsig;    /* bytes posted unsignaled since it */
	int64_t sig_ns;    /* the clock's last reading when it was posted */
	uint64_t rposted, rdone;
};

struct core {
	const struct ix_rdma_ops *ops;
	void *ctx;
	const struct ix_rdma_run *run;
	struct ix_err *err;
	struct rdma_qp *qp;
	uint64_t quota;  /* WRs and receives per QP, warm-up included */
	uint64_t sig_at; /* this WR of each QP is signaled too (0: none) */
	bool fine;       /* duration mode's counting: signal by bytes and time too */
	uint64_t polls, clock_reads, recvs_posted;
	int64_t now; /* last clock reading */
	unsigned check_every;
};

static void core_init(struct core *c, const struct ix_rdma_ops *ops, void *ctx,
		      const struct ix_rdma_run *run, struct ix_err *err)
{
	memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->ctx = ctx;
	c->run = run;
	c->err = err;
	c->quota = run->iters ? run->warmup_iters + run->iters : UINT64_MAX;
	c->check_every = run->check_every ? run->check_every : IX_RDMA_CHECK_EVERY;
}

static int64_t core_clock(struct core *c)
{
	c->clock_reads++;
	c->now = c->ops->now_ns(c->ctx);
	return c->now;
}

static int core_post_recvs(struct core *c, uint32_t q)
{
	struct rdma_qp *p = &c->qp[q];

	while (needs_recv(c->run->opcode) && p->rposted < c->quota &&
	       p->rposted - p->rdone < c->run->rx_depth) {
		if (c->ops->post_recv(c->ctx, q, p->rposted + 1, c->err) < 0)
			return ix_fail_prefix(c->err, "QP %u: posting receive %" PRIu64, q,
					      p->rposted + 1);
		p->rposted++;
		c->recvs_posted++;
	}
	return 0;
}

/* Post the QP's next WR: signaled one in cq_mod, the last, sig_at; and where
 * the count is a window's (c->fine), after IX_RDMA_SIG_BYTES unsignaled or
 * IX_RDMA_SIG_NS since the last signaled one (engine.h says why). */
static int core_post(struct core *c, uint32_t q, bool signal)
{
	const struct ix_rdma_run *r = c->run;
	struct rdma_qp *p = &c->qp[q];
	uint64_t cnt = p->posted + 1;
	struct ix_rdma_wr wr = {
		.opcode = r->opcode,
		.length = r->size,
		.wr_id = cnt,
		.signaled = signal || cnt % r->cq_mod == 0 || cnt == c->quota || cnt == c->sig_at ||
			    (c->fine && (p->unsig + r->size >= IX_RDMA_SIG_BYTES ||
					 c->now - p->sig_ns >= IX_RDMA_SIG_NS)),
		.inline_data = r->inline_data,
		.imm = (uint32_t)cnt,
	};

	if (c->ops->post_send(c->ctx, q, &wr, c->err) < 0)
		return ix_fail_prefix(c->err, "QP %u: posting %s WR %" PRIu64, q,
				      ix_rdma_opcode_name(r->opcode), cnt);
	p->posted = cnt;
	p->unsig += r->size;
	if (wr.signaled) {
		p->last_sig = cnt;
		p->unsig = 0;
		p->sig_ns = c->now;
	}
	return 0;
}

static int core_poll(struct core *c, struct ix_rdma_wc *wc)
{
	int n = c->ops->poll(c->ctx, wc, IX_RDMA_POLL_BATCH, c->err);

	c->polls++;
	if (n < 0)
		return ix_fail_prefix(c->err, "polling the completion queue");
	if (n > IX_RDMA_POLL_BATCH)
		return ix_fail(c->err, IX_EXIT_FAIL, "poll returned %d completions for %d asked", n,
			       IX_RDMA_POLL_BATCH);
	return n;
}

/* Check one completion and count it in its QP; *before: the QP's done (a
 * send) or rdone (a receive) count before it. RC completes in order, so a
 * send completion covers every WR of its QP up to it. */
static int core_wc(struct core *c, const struct ix_rdma_wc *wc, uint64_t messages, uint64_t *before)
{
	struct rdma_qp *p;

	if (wc->status != 0)
		return ix_fail(c->err, IX_EXIT_FAIL,
			       "QP %u: %s%s completion failed with %s (status %d) after %" PRIu64
			       " messages",
			       wc->qp, wc->is_recv ? "incoming " : "",
			       ix_rdma_opcode_name(wc->opcode), ix_rdma_status_name(wc->status),
			       wc->status, messages);
	if (wc->qp >= c->run->qps)
		return ix_fail(c->err, IX_EXIT_FAIL, "completion for QP %u, the run has %u", wc->qp,
			       c->run->qps);
	p = &c->qp[wc->qp];
	if (wc->is_recv) {
		*before = p->rdone;
		if (!needs_recv(wc->opcode))
			return 0; /* a write landing, seen by the latency poller */
		if (p->rdone == p->rposted)
			return ix_fail(c->err, IX_EXIT_FAIL,
				       "QP %u: incoming %s with no receive posted", wc->qp,
				       ix_rdma_opcode_name(wc->opcode));
		p->rdone++;
		return core_post_recvs(c, wc->qp);
	}
	if (wc->wr_id <= p->done || wc->wr_id > p->posted)
		return ix_fail(c->err, IX_EXIT_FAIL,
			       "QP %u: completion for WR %" PRIu64 " out of order (%" PRIu64
			       " done, %" PRIu64 " posted)",
			       wc->qp, wc->wr_id, p->done, p->posted);
	*before = p->done;
	p->done = wc->wr_id;
	return 0;
}

/* ---- bandwidth ---------------------------------------------------------- */

struct bw_run {
	struct core c;
	struct ix_rdma_bw_figures *out;
	bool tx, rx;   /* this end posts WRs / consumes receives */
	bool by_iters; /* else by duration */
	bool sampling; /* duration mode: inside the measured window */
	bool stopping; /* duration mode: past the deadline */
	uint64_t warm; /* warm-up WRs per QP (iterations mode) */
	uint64_t tx_meas, rx_meas, tx_all, rx_all, seen, tx_posted_meas;
	int64_t t0, deadline, progress_t;
	int64_t tx_start, tx_end, rx_start, rx_end, win_start, win_end;
	int64_t ival_t;
	uint64_t ival_tx, ival_rx;
	unsigned polls_since;
	bool warmed;  /* said to the team (run->sync) */
	bool waiting; /* warm, waiting for the team's other threads: no stall */
	bool peak;
	struct ix_rdma_marks posts, dones;
};

/* Top up every QP's window; measured WRs only once every QP's warm-up WRs
 * have completed. One clock reading per pass that posts measured WRs: the
 * peak's tposted for the whole burst. */
static int fill(struct bw_run *b)
{
	const struct ix_rdma_run *r = b->c.run;
	bool stamped = false;
	bool warm = b->tx_all >= b->warm * r->qps;
	uint64_t limit;

	if (warm && r->sync && !b->warmed) { /* this thread's part of the team's warm-up */
		b->warmed = true;
		atomic_fetch_sub(&r->sync->warming, 1);
	}
	b->waiting = warm && r->sync && atomic_load(&r->sync->warming) > 0;
	limit = warm && !b->waiting ? b->c.quota : b->warm;

	for (uint32_t q = 0; q < r->qps; q++) {
		struct rdma_qp *p = &b->c.qp[q];

		while (p->posted < limit && p->posted - p->done < r->tx_depth) {
			bool meas = b->by_iters && p->posted >= b->warm;

			if (meas && !stamped) {
				int64_t t = core_clock(&b->c);

				stamped = true;
				if (b->tx_start == NO_TIME)
					b->tx_start = t;
				if (b->peak)
					ix_rdma_marks_add(&b->posts, b->tx_posted_meas, t);
			}
			if (core_post(&b->c, q, false) < 0)
				return -1;
			b->out->posted++;
			b->tx_posted_meas += meas;
		}
	}
	return 0;
}

static int bw_handle(struct bw_run *b, const struct ix_rdma_wc *wc)
{
	uint64_t before, n, meas;

	if (wc->is_recv && wc->status == 0 && (!b->rx || !needs_recv(wc->opcode)))
		return ix_fail(b->c.err, IX_EXIT_FAIL, "QP %u: unexpected incoming %s", wc->qp,
			       ix_rdma_opcode_name(wc->opcode));
	if (core_wc(&b->c, wc, b->tx_all + b->rx_all, &before) < 0)
		return -1;
	if (wc->is_recv) {
		if (b->by_iters ? before >= b->warm : b->sampling)
			b->rx_meas++;
		b->rx_all++;
		b->out->recv_cqes++;
		return 0;
	}
	n = wc->wr_id - before;
	if (b->out->qp_messages)
		b->out->qp_messages[wc->qp] += n;
	if (b->by_iters)
		meas = wc->wr_id <= b->warm ? 0 : wc->wr_id - (before > b->warm ? before : b->warm);
	else
		meas = b->sampling ? n : 0;
	b->tx_all += n;
	b->tx_meas += meas;
	b->out->cqes++;
	return 0;
}

static int push_interval(struct bw_run *b, int64_t t)
{
	struct ix_rdma_bw_figures *o = b->out;
	struct ix_rdma_interval *iv;
	int64_t start = b->by_iters ? (b->tx ? b->tx_start : b->rx_start) : b->win_start;
	bool warming = b->by_iters ? b->warm > 0 : b->c.run->warmup_ns > 0;
	size_t n = o->nintervals;

	/* Room for 16, then doubled each time the count reaches a power of two. */
	if (n == 0 || (n >= 16 && (n & (n - 1)) == 0)) {
		iv = realloc(o->intervals, (n ? n * 2 : 16) * sizeof(*iv));
		if (!iv)
			return ix_fail(b->c.err, IX_EXIT_FAIL, "out of memory for intervals");
		o->intervals = iv;
	}
	iv = &o->intervals[o->nintervals++];
	iv->start_ns = b->ival_t - b->t0;
	iv->end_ns = t - b->t0;
	iv->warmup = warming && (start == NO_TIME || b->ival_t < start);
	iv->tx_messages = b->tx_all - b->ival_tx;
	iv->rx_messages = b->rx_all - b->ival_rx;
	iv->tx_bytes = iv->tx_messages * b->c.run->size;
	iv->rx_bytes = iv->rx_messages * b->c.run->size;
	b->ival_t = t;
	b->ival_tx = b->tx_all;
	b->ival_rx = b->rx_all;
	return 0;
}

/* Every check_every polls: warm-up end, deadline, intervals, vanished peer. */
static int bw_check(struct bw_run *b)
{
	const struct ix_rdma_run *r = b->c.run;
	int64_t t = core_clock(&b->c);

	b->polls_since = 0;
	if (r->sync && atomic_load(&r->sync->stop))
		return ix_fail(b->c.err, IX_EXIT_FAIL,
			       "stopped: another thread of the test failed");
	if (!b->by_iters && !b->stopping) {
		if (!b->sampling && t - b->t0 >= r->warmup_ns) {
			b->sampling = true;
			b->win_start = t;
			b->deadline = t + r->duration_ns;
		} else if (b->sampling && t >= b->deadline) {
			b->sampling = false;
			b->stopping = true;
			b->win_end = t;
		}
	}
	if (r->interval_ns > 0 && t - b->ival_t >= r->interval_ns && push_interval(b, t) < 0)
		return -1;
	if (b->tx_all + b->rx_all != b->seen || b->waiting) {
		b->seen = b->tx_all + b->rx_all;
		b->progress_t = t;
	} else if (t - b->progress_t >= r->timeout_ns) {
		uint64_t wrs = 0, rcv = 0;

		for (uint32_t q = 0; q < r->qps; q++) {
			wrs += b->c.qp[q].posted - b->c.qp[q].done;
			rcv += b->c.qp[q].rposted - b->c.qp[q].rdone;
		}
		return ix_fail(b->c.err, IX_EXIT_FAIL,
			       "no completion for %.3f s with %" PRIu64
			       " WRs outstanding and %" PRIu64
			       " receives pending: the peer stopped responding",
			       (double)(t - b->progress_t) / 1e9, wrs, rcv);
	}
	return 0;
}

/* Iterations mode: clock readings for the windows and the peak, one per
 * productive poll at most. */
static void bw_stamp(struct bw_run *b, uint64_t tx0, uint64_t rx0)
{
	uint64_t target = b->c.run->iters * b->c.run->qps;
	bool tx_more = b->tx_meas != tx0, rx_more = b->rx_meas != rx0;
	int64_t t;

	if (!(tx_more && (b->peak || b->tx_meas == target)) &&
	    !(rx_more && (b->rx_start == NO_TIME || b->rx_meas == target)))
		return;
	t = core_clock(&b->c);
	if (rx_more && b->rx_start == NO_TIME)
		b->rx_start = t;
	if (tx_more && b->peak)
		ix_rdma_marks_add(&b->dones, b->tx_meas, t);
	if (tx_more && b->tx_meas == target)
		b->tx_end = t;
	if (rx_more && b->rx_meas == target)
		b->rx_end = t;
}

static int bw_poll(struct bw_run *b)
{
	struct ix_rdma_wc wc[IX_RDMA_POLL_BATCH];
	uint64_t tx0 = b->tx_meas, rx0 = b->rx_meas;
	int n = core_poll(&b->c, wc);

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (bw_handle(b, &wc[i]) < 0)
			return -1;
	if (b->by_iters)
		bw_stamp(b, tx0, rx0);
	if (++b->polls_since >= b->c.check_every)
		return bw_check(b);
	return 0;
}

static bool bw_finished(const struct bw_run *b)
{
	uint64_t all = b->c.quota * b->c.run->qps;

	if (!b->by_iters)
		return b->stopping;
	return (!b->tx || b->tx_all == all) && (!b->rx || b->rx_all == all);
}

static bool bw_outstanding(const struct bw_run *b)
{
	for (uint32_t q = 0; q < b->c.run->qps; q++)
		if (b->c.qp[q].done < b->c.qp[q].last_sig)
			return true;
	return false;
}

/* Duration mode, past the deadline and with this end's own WRs done: say
 * so, then keep serving the peer's messages (reposting receives) until it
 * says it is done too. peer_done may cost a system call: it is asked once
 * per check_every polls, with the clock. The engine's timeout bounds the
 * wait. */
static int bw_agree_end(struct bw_run *b)
{
	const struct ix_rdma_end *e = &b->c.run->end;

	if (b->tx && e->done)
		e->done(e->ctx);
	if (!b->rx || !e->peer_done)
		return 0;
	while (!e->peer_done(e->ctx))
		do {
			if (bw_poll(b) < 0)
				return -1;
		} while (b->polls_since != 0);
	return 0;
}

/* Post and poll until done, then wait (bounded by the timeout) for the
 * signaled WRs still in flight. By duration, a QP whose last WR went
 * unsignaled gets one more, signaled: RC completes in order, so once it
 * is done nothing this end posted is in flight when it says it is done. */
static int bw_loop(struct bw_run *b)
{
	for (;;) {
		if (b->tx && !b->stopping && fill(b) < 0)
			return -1;
		if (bw_finished(b))
			break;
		if (bw_poll(b) < 0)
			return -1;
	}
	for (uint32_t q = 0; b->tx && !b->by_iters && q < b->c.run->qps; q++)
		while (b->c.qp[q].posted > b->c.qp[q].last_sig) {
			bool room = b->c.qp[q].posted - b->c.qp[q].done < b->c.run->tx_depth;

			if ((room ? core_post(&b->c, q, true) : bw_poll(b)) < 0)
				return -1;
			b->out->posted += room;
		}
	while (b->tx && bw_outstanding(b))
		if (bw_poll(b) < 0)
			return -1;
	return b->by_iters ? 0 : bw_agree_end(b);
}

static void dir_figures(struct ix_rdma_dir_figures *d, uint64_t msgs, uint32_t size, int64_t start,
			int64_t end)
{
	d->valid = true;
	d->messages = msgs;
	d->bytes = msgs * size;
	d->ns = start != NO_TIME && end > start ? end - start : 0;
	if (d->ns > 0) {
		d->t_start = start;
		d->t_end = end;
		d->bits_per_second = (double)d->bytes * 8e9 / (double)d->ns;
		d->mpps = (double)msgs * 1e3 / (double)d->ns;
	}
}

static void bw_finish(struct bw_run *b)
{
	struct ix_rdma_bw_figures *o = b->out;
	uint32_t size = b->c.run->size;
	int64_t now = core_clock(&b->c);
	int64_t tx0 = b->by_iters ? b->tx_start : b->win_start;
	int64_t rx0 = b->by_iters ? b->rx_start : b->win_start;
	int64_t tx1 = b->by_iters ? b->tx_end : b->win_end;
	int64_t rx1 = b->by_iters ? b->rx_end : b->win_end;

	if (b->tx)
		dir_figures(&o->tx, b->tx_meas, size, tx0, tx1 != NO_TIME ? tx1 : now);
	if (b->rx)
		dir_figures(&o->rx, b->rx_meas, size, rx0, rx1 != NO_TIME ? rx1 : now);
	if (b->tx && b->peak && b->c.run->keep_marks) { /* the team's to merge */
		o->peak_posts = b->posts;
		o->peak_dones = b->dones;
		memset(&b->posts, 0, sizeof(b->posts));
		memset(&b->dones, 0, sizeof(b->dones));
	} else if (b->tx && b->peak && !b->posts.lost && !b->dones.lost) {
		double ns = ix_rdma_peak_msg_ns(b->posts.v, b->posts.n, b->dones.v, b->dones.n);

		if (ns > 0)
			o->tx.peak_bits_per_second = ix_f64((double)size * 8e9 / ns);
	}
	if (b->c.run->interval_ns > 0 && now > b->ival_t)
		push_interval(b, now);
	o->polls = b->c.polls;
	o->clock_reads = b->c.clock_reads;
	o->recvs_posted = b->c.recvs_posted;
}

int ix_rdma_engine_run_bw(const struct ix_rdma_ops *ops, void *ctx, const struct ix_rdma_run *run,
			  struct ix_rdma_bw_figures *out, struct ix_err *err)
{
	struct bw_run b;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (validate(run, false, err) < 0)
		return -1;
	memset(&b, 0, sizeof(b));
	core_init(&b.c, ops, ctx, run, err);
	b.out = out;
	b.tx = run->bidir || run->side == IX_RDMA_REQUESTER;
	b.rx = needs_recv(run->opcode) && (run->bidir || run->side == IX_RDMA_RESPONDER);
	if (!b.tx && !b.rx) { /* passive end of write or read */
		out->complete = true;
		return 0;
	}
	b.c.qp = calloc(run->qps, sizeof(*b.c.qp));
	out->qp_messages = b.tx ? calloc(run->qps, sizeof(*out->qp_messages)) : NULL;
	if (!b.c.qp || (b.tx && !out->qp_messages)) {
		free(b.c.qp);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory for %u QPs", run->qps);
	}
	out->nqps = b.tx ? run->qps : 0;
	b.by_iters = run->iters > 0;
	b.warm = b.c.sig_at = b.by_iters ? run->warmup_iters : 0;
	b.c.fine = !b.by_iters;
	b.peak = run->peak && b.by_iters;
	b.tx_start = b.tx_end = b.rx_start = b.rx_end = b.win_start = b.win_end = NO_TIME;
	b.t0 = b.progress_t = b.ival_t = core_clock(&b.c);
	if (run->sync) /* the team's common start */
		b.t0 = b.ival_t = run->sync->t0_ns;
	b.deadline = INT64_MAX;
	if (!b.by_iters && run->warmup_ns == 0) {
		b.sampling = true;
		b.win_start = b.t0;
		b.deadline = b.t0 + run->duration_ns;
	}
	for (uint32_t q = 0; b.rx && q < run->qps && rc == 0; q++)
		rc = core_post_recvs(&b.c, q);
	if (rc == 0)
		rc = bw_loop(&b);
	bw_finish(&b);
	out->complete = rc == 0;
	free(b.c.qp);
	free(b.posts.v);
	free(b.dones.v);
	return rc;
}

void ix_rdma_bw_figures_free(struct ix_rdma_bw_figures *f)
{
	free(f->intervals);
	f->intervals = NULL;
	f->nintervals = 0;
	free(f->qp_messages);
	f->qp_messages = NULL;
	f->nqps = 0;
	free(f->peak_posts.v);
	free(f->peak_dones.v);
	memset(&f->peak_posts, 0, sizeof(f->peak_posts));
	memset(&f->peak_dones, 0, sizeof(f->peak_dones));
}

/* ---- latency ------------------------------------------------------------ */

struct lat_run {
	struct core c;
	struct rdma_qp qp;
	struct ix_rdma_lat_figures *out;
	uint64_t incoming; /* messages (or write landings) from the peer */
	int64_t deadline, warm_end;
};

static int lat_poll(struct lat_run *l)
{
	struct ix_rdma_wc wc[IX_RDMA_POLL_BATCH];
	uint64_t before;
	int n = core_poll(&l->c, wc);

	for (int i = 0; i < n; i++) {
		if (core_wc(&l->c, &wc[i], l->out->iters, &before) < 0)
			return -1;
		l->incoming += wc[i].is_recv;
	}
	return n;
}

/* Poll until incoming >= in and done >= done. 1: stop is set and the
 * deadline passed first. The clock is read only after check_every empty
 * polls in a row: a busy link costs no clock reading. */
static int lat_wait(struct lat_run *l, uint64_t in, uint64_t done, bool stop)
{
	int64_t since = NO_TIME;
	unsigned empty = 0;

	while (l->incoming < in || l->qp.done < done) {
		int n = lat_poll(l);
		int64_t t;

		if (n < 0)
			return -1;
		if (n > 0) {
			since = NO_TIME;
			empty = 0;
			continue;
		}
		if (++empty < l->c.check_every)
			continue;
		empty = 0;
		t = core_clock(&l->c);
		if (stop && (l->c.run->end.peer_done ? l->c.run->end.peer_done(l->c.run->end.ctx)
						     : t >= l->deadline))
			return 1;
		if (since == NO_TIME)
			since = t;
		else if (t - since >= l->c.run->timeout_ns)
			return ix_fail(l->c.err, IX_EXIT_FAIL,
				       "no completion for %.3f s after %" PRIu64
				       " round trips: the peer stopped responding",
				       (double)(t - since) / 1e9, l->out->iters);
	}
	return 0;
}

/* Room in the send queue: a signaled WR is always among the last tx_depth. */
static int lat_room(struct lat_run *l)
{
	uint64_t depth = l->c.run->tx_depth;

	if (l->qp.posted - l->qp.done < depth)
		return 0;
	return lat_wait(l, 0, l->qp.posted - depth + 1, false) < 0 ? -1 : 0;
}

static int lat_requester(struct lat_run *l)
{
	const struct ix_rdma_run *r = l->c.run;
	struct ix_rdma_lat_figures *o = l->out;
	int64_t first = NO_TIME;

	for (uint64_t i = 0; i < l->c.quota; i++) {
		int64_t t0, t1, v;
		bool meas;

		if (lat_room(l) < 0) /* before t0: the wait is not in the sample */
			return -1;
		t0 = core_clock(&l->c);
		if (!r->iters && t0 >= l->deadline)
			break;
		meas = r->iters ? i >= r->warmup_iters : t0 >= l->warm_end;
		/* Reads are all signaled: their completion is the answer. */
		if (core_post(&l->c, 0, r->opcode == IX_RDMA_READ) < 0)
			return -1;
		if (r->opcode == IX_RDMA_READ ? lat_wait(l, 0, l->qp.posted, false)
					      : lat_wait(l, i + 1, 0, false))
			return -1;
		t1 = core_clock(&l->c);
		if (!meas)
			continue;
		v = t1 - t0;
		if (ix_samples_add(&o->samples, (uint64_t)(o->one_way ? v / 2 : v)) < 0)
			return ix_fail(l->c.err, IX_EXIT_FAIL, "out of memory for samples");
		o->iters++;
		if (first == NO_TIME)
			first = t0;
		o->ns = t1 - first;
	}
	return 0;
}

static int lat_responder(struct lat_run *l)
{
	const struct ix_rdma_run *r = l->c.run;
	struct ix_rdma_lat_figures *o = l->out;
	int64_t first = NO_TIME;

	for (uint64_t i = 0; i < l->c.quota; i++) {
		int rc;

		if (!r->iters && !r->end.peer_done && i % l->c.check_every == 0 &&
		    core_clock(&l->c) >= l->deadline)
			break;
		rc = lat_wait(l, i + 1, 0, !r->iters);
		if (rc < 0)
			return -1;
		if (rc == 1)
			break;
		if (lat_room(l) < 0 || core_post(&l->c, 0, false) < 0)
			return -1;
		if (r->iters ? i >= r->warmup_iters : l->c.now >= l->warm_end) {
			o->iters++;
			if (first == NO_TIME)
				first = l->c.now;
			o->ns = l->c.now - first;
		}
	}
	return 0;
}

int ix_rdma_engine_run_lat(const struct ix_rdma_ops *ops, void *ctx, const struct ix_rdma_run *run,
			   struct ix_rdma_lat_figures *out, struct ix_err *err)
{
	struct lat_run l;
	int rc;

	memset(out, 0, sizeof(*out));
	if (ix_samples_init(&out->samples) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory for samples");
	out->one_way = run->opcode != IX_RDMA_READ;
	if (validate(run, true, err) < 0)
		return -1;
	if (run->side == IX_RDMA_RESPONDER && run->opcode == IX_RDMA_READ) {
		out->complete = true; /* reads need nothing of the responder's CPU */
		return 0;
	}
	memset(&l, 0, sizeof(l));
	core_init(&l.c, ops, ctx, run, err);
	l.c.qp = &l.qp;
	l.out = out;
	l.warm_end = core_clock(&l.c) + run->warmup_ns;
	l.deadline = run->iters ? INT64_MAX : l.warm_end + run->duration_ns;
	rc = core_post_recvs(&l.c, 0);
	if (rc == 0)
		rc = run->side == IX_RDMA_REQUESTER ? lat_requester(&l) : lat_responder(&l);
	/* Signaled WRs still in flight: a bounded wait, so the QP is quiet. */
	if (rc == 0 && lat_wait(&l, 0, l.qp.last_sig, false) < 0)
		rc = -1;
	if (rc == 0 && !run->iters && run->side == IX_RDMA_REQUESTER && run->end.done)
		run->end.done(run->end.ctx);
	ix_stats_compute(&out->samples, &out->stats);
	out->polls = l.c.polls;
	out->clock_reads = l.c.clock_reads;
	out->clock = ops->clock_name ? ops->clock_name(ctx) : "simulated";
	out->complete = rc == 0;
	return rc;
}

void ix_rdma_lat_figures_free(struct ix_rdma_lat_figures *f)
{
	ix_samples_free(&f->samples);
}
