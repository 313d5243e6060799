/* SIMULATED RDMA NIC for the engine's unit tests (see sim.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/probes/rdma/sim.h"

void rdma_sim_cfg_default(struct rdma_sim_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->qps = 1;
	c->sq_depth = 128;
	c->rq_depth = 512;
	c->rate = 12.5; /* 100 Gb/s */
	c->lat_ns = 1000;
	c->poll_cost_ns = 50;
	c->idle_step_ns = 1000;
	c->rnr_delay_ns = 1000;
	c->in_len = 4096;
	c->in_opcode = IX_RDMA_SEND;
	c->echo_opcode = IX_RDMA_SEND;
}

static double ser_ns(const struct rdma_sim *s, uint32_t len)
{
	return s->cfg.rate > 0 ? (double)len / s->cfg.rate : 0;
}

int rdma_sim_init(struct rdma_sim *s, const struct rdma_sim_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	if (!cfg->qps || cfg->qps > RDMA_SIM_MAX_QPS || !cfg->sq_depth || !cfg->rq_depth)
		return -1;
	s->pend_cap = (size_t)cfg->qps * cfg->sq_depth;
	s->cq_cap = (size_t)cfg->qps * (cfg->sq_depth + cfg->rq_depth) + RDMA_SIM_MAX_ECHO;
	s->pend = calloc(s->pend_cap, sizeof(*s->pend));
	s->cq = calloc(s->cq_cap, sizeof(*s->cq));
	if (!s->pend || !s->cq)
		return -1;
	for (uint32_t q = 0; q < cfg->qps; q++) {
		s->qp[q].rq = calloc(cfg->rq_depth, sizeof(uint64_t));
		if (!s->qp[q].rq)
			return -1;
		s->qp[q].in_left = cfg->in_msgs;
	}
	s->in_next = cfg->in_start_ns + cfg->lat_ns + (int64_t)ceil(ser_ns(s, cfg->in_len));
	if (cfg->echo && cfg->echo_starts) {
		s->echo[s->echo_n++] =
			(struct rdma_sim_arrival){ cfg->echo_start_ns, 0, cfg->echo_opcode,
						   cfg->in_len, 0 };
		s->echoes = 1;
	}
	return 0;
}

void rdma_sim_free(struct rdma_sim *s)
{
	free(s->pend);
	free(s->cq);
	for (uint32_t q = 0; q < RDMA_SIM_MAX_QPS; q++)
		free(s->qp[q].rq);
	memset(s, 0, sizeof(*s));
}

static void push_cqe(struct rdma_sim *s, const struct ix_rdma_wc *wc, uint64_t qidx)
{
	if (s->cq_n == s->cq_cap) {
		s->cq_overrun = true;
		return;
	}
	s->cq[(s->cq_head + s->cq_n++) % s->cq_cap] = (struct rdma_sim_cqe){ *wc, qidx };
}

static bool stream_pending(const struct rdma_sim *s)
{
	for (uint32_t q = 0; q < s->cfg.qps; q++)
		if (s->qp[q].in_left)
			return true;
	return false;
}

enum ev { EV_NONE, EV_WR, EV_ECHO, EV_STREAM };

/* The earliest event; on a tie, completions before arrivals. */
static int64_t next_event(const struct rdma_sim *s, enum ev *kind, size_t *which)
{
	int64_t t = INT64_MAX;

	*kind = EV_NONE;
	if (s->pend_n && s->pend[s->pend_head].done_ns < t) {
		t = s->pend[s->pend_head].done_ns;
		*kind = EV_WR;
	}
	for (size_t i = 0; i < s->echo_n; i++)
		if (s->echo[i].t < t) {
			t = s->echo[i].t;
			*kind = EV_ECHO;
			*which = i;
		}
	if (stream_pending(s) && s->in_next < t) {
		t = s->in_next;
		*kind = EV_STREAM;
	}
	return t;
}

static void wr_done(struct rdma_sim *s)
{
	struct rdma_sim_wr w = s->pend[s->pend_head];
	struct rdma_sim_qp *q = &s->qp[w.qp];
	int status = 0;

	s->pend_head = (s->pend_head + 1) % s->pend_cap;
	s->pend_n--;
	if (q->error) {
		status = RDMA_SIM_FLUSH;
	} else if (w.seq == s->cfg.error_wr) {
		status = s->cfg.error_status;
		q->error = true;
	}
	/* Unsignaled WRs complete silently, errors never do. */
	if (status || w.signaled) {
		struct ix_rdma_wc wc = { .wr_id = w.wr_id,
					 .qp = w.qp,
					 .status = status,
					 .opcode = w.op,
					 .byte_len = w.len };

		if (!status && w.seq == s->cfg.drop_wr)
			s->dropped++;
		else
			push_cqe(s, &wc, w.qidx);
	}
	if (!status && s->cfg.echo && w.op != IX_RDMA_READ &&
	    (!s->cfg.echo_limit || s->echoes < s->cfg.echo_limit) &&
	    s->echo_n < RDMA_SIM_MAX_ECHO) {
		s->echo[s->echo_n++] =
			(struct rdma_sim_arrival){ w.echo_ns, w.qp, w.op, w.len, w.imm };
		s->echoes++;
	}
}

/* A message from the peer lands: 0, or -1 when it found no receive. */
static int arrive(struct rdma_sim *s, uint32_t qpn, enum ix_rdma_opcode op, uint32_t len,
		  uint32_t imm)
{
	struct rdma_sim_qp *q = &s->qp[qpn];
	struct ix_rdma_wc wc = { .qp = qpn, .opcode = op, .byte_len = len, .is_recv = true };

	if (op == IX_RDMA_SEND || op == IX_RDMA_WRITE_IMM) {
		if (!q->rq_n) {
			s->rnr_naks++;
			return -1;
		}
		wc.wr_id = q->rq[q->rq_head];
		wc.imm = imm;
		q->rq_head = (q->rq_head + 1) % s->cfg.rq_depth;
		q->rq_n--;
	}
	push_cqe(s, &wc, 0);
	q->in_done++;
	return 0;
}

static void stream_arrive(struct rdma_sim *s)
{
	const struct rdma_sim_cfg *c = &s->cfg;
	uint32_t q = s->in_qp;

	if (arrive(s, q, c->in_opcode, c->in_len, (uint32_t)s->qp[q].in_done) < 0) {
		s->in_next += c->rnr_delay_ns;
		return;
	}
	s->qp[q].in_left--;
	s->in_next += (int64_t)ceil(ser_ns(s, c->in_len));
	for (uint32_t k = 1; k <= c->qps; k++) {
		uint32_t n = (q + k) % c->qps;

		if (s->qp[n].in_left) {
			s->in_qp = n;
			break;
		}
	}
}

/* Play every event due by time t, in time order. */
static void advance(struct rdma_sim *s, int64_t t)
{
	for (;;) {
		enum ev kind;
		size_t i = 0;
		int64_t when = next_event(s, &kind, &i);

		if (kind == EV_NONE || when > t)
			return;
		if (kind == EV_WR) {
			wr_done(s);
		} else if (kind == EV_STREAM) {
			stream_arrive(s);
		} else {
			struct rdma_sim_arrival a = s->echo[i];

			if (arrive(s, a.qp, a.op, a.len, a.imm) < 0)
				s->echo[i].t += s->cfg.rnr_delay_ns;
			else
				s->echo[i] = s->echo[--s->echo_n];
		}
	}
}

static int64_t wr_lat(const struct rdma_sim *s, uint64_t seq)
{
	if (s->cfg.lat_table && s->cfg.lat_table_len)
		return s->cfg.lat_table[(seq - 1) % s->cfg.lat_table_len];
	return s->cfg.lat_ns;
}

static int sim_post_send(void *ctx, uint32_t qpn, const struct ix_rdma_wr *wr, struct ix_err *err)
{
	struct rdma_sim *s = ctx;
	struct rdma_sim_qp *q;
	struct rdma_sim_wr *w;
	double ser, start, done;
	int64_t lat;

	if (qpn >= s->cfg.qps)
		return ix_fail(err, IX_EXIT_FAIL, "sim: no QP %u", qpn);
	q = &s->qp[qpn];
	if (q->posted - q->freed >= s->cfg.sq_depth) {
		s->sq_full++;
		return ix_fail(err, IX_EXIT_FAIL, "sim: QP %u send queue full (%u entries)", qpn,
			       s->cfg.sq_depth);
	}
	s->now += s->cfg.post_cost_ns;
	s->seq++;
	lat = wr_lat(s, s->seq);
	ser = ser_ns(s, wr->length);
	start = (double)s->now > s->out_free ? (double)s->now : s->out_free;
	s->out_free = start + ser;
	done = s->out_free + 2.0 * (double)lat;
	if (done < s->done_last)
		done = s->done_last; /* RC completes in order */
	s->done_last = done;
	w = &s->pend[(s->pend_head + s->pend_n++) % s->pend_cap];
	*w = (struct rdma_sim_wr){ .qp = qpn,
				   .wr_id = wr->wr_id,
				   .seq = s->seq,
				   .qidx = ++q->posted,
				   .op = wr->opcode,
				   .len = wr->length,
				   .imm = wr->imm,
				   .signaled = wr->signaled,
				   .done_ns = (int64_t)ceil(done),
				   .echo_ns = (int64_t)ceil(done + ser) };
	if (s->cfg.vanish && s->seq > s->cfg.vanish_after)
		w->done_ns = INT64_MAX;
	if (q->posted - q->freed > s->max_sq_used)
		s->max_sq_used = (uint32_t)(q->posted - q->freed);
	s->posts++;
	s->qp_posts[qpn]++;
	return 0;
}

static int sim_post_recv(void *ctx, uint32_t qpn, uint64_t wr_id, struct ix_err *err)
{
	struct rdma_sim *s = ctx;
	struct rdma_sim_qp *q;

	if (qpn >= s->cfg.qps)
		return ix_fail(err, IX_EXIT_FAIL, "sim: no QP %u", qpn);
	q = &s->qp[qpn];
	if (q->rq_n >= s->cfg.rq_depth) {
		s->rq_full++;
		return ix_fail(err, IX_EXIT_FAIL, "sim: QP %u receive queue full (%u entries)", qpn,
			       s->cfg.rq_depth);
	}
	q->rq[(q->rq_head + q->rq_n++) % s->cfg.rq_depth] = wr_id;
	if (q->rq_n > s->max_rq_used)
		s->max_rq_used = q->rq_n;
	s->recv_posts++;
	return 0;
}

static int sim_poll(void *ctx, struct ix_rdma_wc *wc, int max, struct ix_err *err)
{
	struct rdma_sim *s = ctx;
	enum ev kind;
	size_t i;
	int n = 0;

	(void)err;
	s->polls++;
	s->now += s->cfg.poll_cost_ns;
	advance(s, s->now);
	while (s->cfg.fast_forward && !s->cq_n) {
		int64_t t = next_event(s, &kind, &i);

		if (kind == EV_NONE || t == INT64_MAX)
			break;
		if (t > s->now)
			s->now = t;
		advance(s, s->now);
	}
	if (!s->cq_n && next_event(s, &kind, &i) == INT64_MAX)
		s->now += s->cfg.idle_step_ns;
	while (n < max && s->cq_n) {
		struct rdma_sim_cqe *c = &s->cq[s->cq_head];

		s->cq_head = (s->cq_head + 1) % s->cq_cap;
		s->cq_n--;
		wc[n++] = c->wc;
		if (c->wc.is_recv) {
			s->recv_cqes++;
		} else {
			/* The send queue is freed up to the WR this completion is for. */
			struct rdma_sim_qp *q = &s->qp[c->wc.qp];

			if (c->qidx > q->freed)
				q->freed = c->qidx;
			s->cqes++;
		}
		s->last_cqe_ns = s->now;
	}
	return n;
}

static int64_t sim_now(void *ctx)
{
	struct rdma_sim *s = ctx;

	s->now_calls++;
	return s->now;
}

const struct ix_rdma_ops rdma_sim_ops = {
	.post_send = sim_post_send,
	.post_recv = sim_post_recv,
	.poll = sim_poll,
	.now_ns = sim_now,
};
