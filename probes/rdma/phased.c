/* The phased RDMA write test of ixperf ecmp --path rdma (phased.h). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "probes/core/clock.h"
#include "probes/rdma/phased.h"

double ix_rdma_phase_start_s(const struct ix_rdma_phases *ph, uint32_t nqps, uint32_t i)
{
	(void)nqps;
	return ph->lead_s + (double)i * (ph->alone_s + ph->gap_s);
}

double ix_rdma_phases_end_s(const struct ix_rdma_phases *ph, uint32_t nqps)
{
	return ix_rdma_phase_start_s(ph, nqps, nqps) + ph->warmup_s + ph->duration_s;
}

double ix_rdma_phase_read_s(const struct ix_rdma_phases *ph, uint32_t nqps, uint32_t k)
{
	if (k > nqps)
		return ix_rdma_phases_end_s(ph, nqps) + ph->gap_s / 2;
	return ix_rdma_phase_start_s(ph, nqps, k) - ph->gap_s / 2;
}

const char *ix_rdma_sport_how_name(enum ix_rdma_sport_how h)
{
	switch (h) {
	case IX_RDMA_SPORT_QPN:
		return "qpn";
	case IX_RDMA_SPORT_FLOW_LABEL:
		return "flow_label";
	default:
		return "unknown";
	}
}

uint32_t ix_rdma_calc_flow_label(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t fl = (uint64_t)lqpn * rqpn;

	fl ^= fl >> 20;
	fl ^= fl >> 40;
	return (uint32_t)(fl & 0xfffff);
}

uint16_t ix_rdma_flow_label_sport(uint32_t fl)
{
	uint32_t lo = fl & 0x03fff, hi = fl & 0xfc000;

	return (uint16_t)(0xc000u | (lo ^ (hi >> 14)));
}

void ix_rdma_phased_sports(struct ix_rdma_phased *out, uint32_t vendor_id)
{
	bool labels = out->nqps > 0;

	for (uint32_t i = 0; i < out->nqps; i++)
		labels &= out->flow_label[i] != 0;
	out->how = labels                            ? IX_RDMA_SPORT_FLOW_LABEL
		   : vendor_id == IX_RDMA_RXE_VENDOR ? IX_RDMA_SPORT_QPN
						     : IX_RDMA_SPORT_UNKNOWN;
	for (uint32_t i = 0; i < out->nqps; i++) {
		uint32_t fl = out->how == IX_RDMA_SPORT_FLOW_LABEL ? out->flow_label[i]
			      : out->how == IX_RDMA_SPORT_QPN
				      ? ix_rdma_calc_flow_label(out->qpn[i], out->remote_qpn[i])
				      : 0;

		out->sport[i] =
			out->how == IX_RDMA_SPORT_UNKNOWN ? 0 : ix_rdma_flow_label_sport(fl);
	}
}

/* The engine's ops over one QP (qp) or all (all): the engine numbers the
 * QPs of its run from 0. A completion of a QP outside the phase gets an
 * index past the run's, which the engine refuses. */
struct sel {
	const struct ix_rdma_ops *in;
	void *ctx;
	uint32_t qp;
	bool all;
};

static int sel_post_send(void *ctx, uint32_t qp, const struct ix_rdma_wr *wr, struct ix_err *err)
{
	struct sel *s = ctx;

	return s->in->post_send(s->ctx, s->all ? qp : s->qp, wr, err);
}

static int sel_post_recv(void *ctx, uint32_t qp, uint64_t wr_id, struct ix_err *err)
{
	struct sel *s = ctx;

	return s->in->post_recv(s->ctx, s->all ? qp : s->qp, wr_id, err);
}

static int sel_poll(void *ctx, struct ix_rdma_wc *wc, int max, struct ix_err *err)
{
	struct sel *s = ctx;
	int n = s->in->poll(s->ctx, wc, max, err);

	for (int i = 0; !s->all && i < n; i++)
		wc[i].qp = wc[i].qp == s->qp ? 0 : UINT32_MAX;
	return n;
}

static int64_t sel_now(void *ctx)
{
	struct sel *s = ctx;

	return s->in->now_ns(s->ctx);
}

static const char *sel_clock(void *ctx)
{
	struct sel *s = ctx;

	return s->in->clock_name ? s->in->clock_name(s->ctx) : NULL;
}

static const struct ix_rdma_ops sel_ops = { sel_post_send, sel_post_recv, sel_poll, sel_now,
					    sel_clock,     NULL,          NULL };

static void sleep_until_ns(int64_t t)
{
	for (int64_t left = t - ix_now_ns(); left > 0; left = t - ix_now_ns()) {
		struct timespec ts = { .tv_sec = left / IX_NSEC_PER_SEC,
				       .tv_nsec = left % IX_NSEC_PER_SEC };

		if (nanosleep(&ts, NULL) < 0 && errno != EINTR)
			return;
	}
}

/* One phase: the engine over s's QPs from its scheduled start. */
static int phase(struct sel *s, const struct ix_rdma_run *run, int64_t t0, double at_s,
		 struct ix_rdma_phase_fig *f, uint64_t *per_qp, struct ix_err *err)
{
	struct ix_rdma_bw_figures bw;
	int rc;

	sleep_until_ns(t0 + ix_seconds_to_ns(at_s));
	f->start_s = (double)(ix_now_ns() - t0) / 1e9;
	rc = ix_rdma_engine_run_bw(&sel_ops, s, run, &bw, err);
	f->end_s = (double)(ix_now_ns() - t0) / 1e9;
	f->ran = rc == 0;
	f->bytes = 0;
	for (uint32_t q = 0; q < bw.nqps; q++) {
		f->bytes += bw.qp_messages[q] * run->size;
		if (per_qp)
			per_qp[q] = bw.qp_messages[q] * run->size;
	}
	ix_rdma_bw_figures_free(&bw);
	return rc;
}

int ix_rdma_phased_run(const struct ix_rdma_ops *ops, void *ectx, const struct ix_rdma_run *base,
		       const struct ix_rdma_phases *ph, int64_t t0_ns, struct ix_rdma_phased *out,
		       struct ix_err *err)
{
	struct sel s = { .in = ops, .ctx = ectx };
	struct ix_rdma_run run = *base;
	uint32_t n = base->qps;

	if (n != out->nqps || n > IX_RDMA_PHASED_MAX_QPS || base->opcode != IX_RDMA_WRITE ||
	    base->iters || base->bidir)
		return ix_fail(err, IX_EXIT_USAGE,
			       "a phased test is a write test by duration of 1 to %d QPs",
			       IX_RDMA_PHASED_MAX_QPS);
	if (out->ready_s > ph->lead_s)
		return ix_fail(err, IX_EXIT_FAIL,
			       "the QPs were connected %.2f s after the start, past the %.2f s the "
			       "schedule left for it",
			       out->ready_s, ph->lead_s);
	/* Phases in a row on the same QPs: a duration-mode run waits for
	 * its signaled WRs only, so every WR is signaled (none is left in
	 * a send queue for the next phase) and no phase ends the test with
	 * the peer (the caller does, after the last). */
	run.cq_mod = 1;
	run.end = (struct ix_rdma_end){ 0 };
	run.interval_ns = 0;
	run.peak = false;
	for (uint32_t i = 0; i < n; i++) {
		run.qps = 1;
		run.warmup_ns = 0;
		run.duration_ns = ix_seconds_to_ns(ph->alone_s);
		s.qp = i;
		if (phase(&s, &run, t0_ns, ix_rdma_phase_start_s(ph, n, i), &out->alone[i], NULL,
			  err) < 0)
			return ix_fail_prefix(err, "QP %u alone", i);
	}
	run.qps = n;
	run.warmup_ns = ix_seconds_to_ns(ph->warmup_s);
	run.duration_ns = ix_seconds_to_ns(ph->duration_s);
	s.all = true;
	if (phase(&s, &run, t0_ns, ix_rdma_phase_start_s(ph, n, n), &out->together,
		  out->together_bytes, err) < 0)
		return ix_fail_prefix(err, "the QPs at once");
	return 0;
}
