#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/incast.h"
#include "probes/cluster/runner.h"

#define JOB_EXTRA_S 20.0

void ix_incast_result_free(struct ix_incast_result *r)
{
	for (uint32_t i = 0; r->steps && i < r->nsteps; i++)
		free(r->steps[i].flows);
	free(r->steps);
	memset(r, 0, sizeof(*r));
}

/* The k senders of a step: every host but the receiver, in order. */
static uint32_t sender_host(const struct ix_incast_params *p, uint32_t k)
{
	return k < p->receiver ? k : k + 1;
}

static void step_failed(struct ix_incast_step *st, const char *why)
{
	st->ok = false;
	snprintf(st->error, sizeof(st->error), "%s", why);
}

/* A flow's counters into its step: the sender's add up, the receiver's
 * are the same host over the same moment for every flow (the largest). */
static void flow_counters(struct ix_incast_step *st, json_t *report)
{
	struct ix_ctr_set snd, rcv;
	struct ix_ctr_sum s, r;
	struct ix_err err = { 0 };

	if (ix_runner_parse_counters(report, &snd, &rcv, &err) < 0)
		return;
	if (snd.valid && rcv.valid)
		st->point.counters = true;
	ix_ctr_summarize(&snd, &s);
	ix_ctr_summarize(&rcv, &r);
	ix_ctr_sum_add(&st->point.at_senders, &s);
	for (int k = 0; k < IX_CC_N; k++)
		if (r.v[k] > st->point.at_receiver.v[k])
			st->point.at_receiver.v[k] = r.v[k];
	st->point.at_receiver.has |= r.has;
	ix_ctr_set_free(&snd);
	ix_ctr_set_free(&rcv);
}

/* The receiver's link from a report: the remote end of a sender's flow,
 * the local end of the receiver's own read job. */
static void receiver_link(json_t *report, bool remote, struct ix_link_limit *out)
{
	struct ix_link_limit local, far;

	if (ix_runner_parse_links(report, &local, &far, NULL) < 0)
		return;
	if ((remote ? far : local).iface[0])
		*out = remote ? far : local;
}

/* All senders stream to the receiver at once. */
static void stream_step(struct ix_coord *co, const struct ix_incast_params *p,
			const struct ix_hostlist *hosts, struct ix_incast_step *st,
			struct ix_coord_job *jobs, struct ix_link_limit *rx_link)
{
	uint32_t k = st->point.senders;
	double sum = 0, *bps = calloc(k, sizeof(*bps));
	uint64_t retr = 0;
	uint32_t nok = 0;

	st->flows = calloc(k, sizeof(*st->flows));
	if (!st->flows || !bps) {
		free(bps);
		step_failed(st, "out of memory");
		return;
	}
	st->nflows = k;
	for (uint32_t i = 0; i < k; i++) {
		struct ix_run_job job = { .kind = IX_RUN_BW,
					  .targets = &hosts->v[p->receiver],
					  .ntargets = 1,
					  .bw = &p->bw,
					  .rdma = &p->rdma };
		jobs[i].peer = sender_host(p, i);
		jobs[i].run = ix_runner_request(&job);
	}
	ix_coord_dispatch(co, jobs, k,
			  p->bw.warmup_s + (p->bw.duration_s > 0 ? p->bw.duration_s : 60) +
				  JOB_EXTRA_S);
	st->ok = true;
	for (uint32_t i = 0; i < k; i++) {
		struct ix_incast_flow *fl = &st->flows[i];
		struct ix_run_figures f;

		fl->host = jobs[i].peer;
		if (!jobs[i].report) {
			snprintf(fl->error, sizeof(fl->error), "%s", jobs[i].error);
		} else if (ix_runner_parse_report(jobs[i].report, &f) < 0 || !f.ok) {
			snprintf(fl->error, sizeof(fl->error), "%s",
				 f.error[0] ? f.error : "malformed report");
		} else {
			flow_counters(st, jobs[i].report);
			receiver_link(jobs[i].report, true, rx_link);
			fl->ok = true;
			fl->bps = f.bw_bps;
			fl->retransmits = f.retransmits;
			fl->loss_percent = f.loss_percent;
			retr += f.retransmits.valid ? f.retransmits.v : 0;
		}
		if (!fl->ok && st->ok)
			step_failed(st, "a sender failed (see its flow)");
		if (fl->ok)
			bps[nok++] = fl->bps;
		sum += fl->bps;
		json_decref(jobs[i].run);
		json_decref(jobs[i].report);
	}
	st->point.goodput_bps = sum;
	st->point.retransmits = retr;
	st->jain = ix_jain_index(bps, nok); /* over the flows that ran */
	free(bps);
}

/* The receiver reads sru bytes from every sender per round. */
static void read_step(struct ix_coord *co, const struct ix_incast_params *p,
		      const struct ix_hostlist *hosts, struct ix_incast_step *st,
		      struct ix_coord_job *job, struct ix_link_limit *rx_link)
{
	uint32_t k = st->point.senders;
	struct ix_host *senders = calloc(k, sizeof(*senders));
	struct ix_run_job rj = { .kind = IX_RUN_READ, .read = &p->read };
	struct ix_run_figures f;

	if (!senders) {
		step_failed(st, "out of memory");
		return;
	}
	for (uint32_t i = 0; i < k; i++)
		senders[i] = hosts->v[sender_host(p, i)];
	rj.targets = senders;
	rj.ntargets = k;
	job->peer = p->receiver;
	job->run = ix_runner_request(&rj);
	ix_coord_dispatch(co, job, 1,
			  p->read.timeout_s * (p->read.rounds + p->read.warmup_rounds) +
				  JOB_EXTRA_S);
	if (!job->report) {
		step_failed(st, job->error);
	} else if (ix_runner_parse_report(job->report, &f) < 0) {
		step_failed(st, "malformed report");
	} else {
		st->read = f.read;
		st->ok = f.ok;
		receiver_link(job->report, false, rx_link);
		if (!f.ok)
			step_failed(st, f.error);
		st->point.goodput_bps = f.read.goodput_bps;
		st->point.rounds = f.read.rounds;
		st->point.stalled_rounds = f.read.stalled_rounds;
		st->point.retransmits = f.read.retransmits.valid ? f.read.retransmits.v : 0;
		st->point.counters = f.read.counters;
		st->point.at_senders = f.read.at_senders;
		st->point.at_receiver = f.read.at_receiver;
	}
	json_decref(job->run);
	json_decref(job->report);
	free(senders);
}

static void missed(struct ix_incast_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void missed(struct ix_incast_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nfailed >= IX_INCAST_MAX_FAILED)
		return;
	va_start(ap, fmt);
	vsnprintf(r->failed[r->nfailed++], sizeof(r->failed[0]), fmt, ap);
	va_end(ap);
}

void ix_incast_judge(struct ix_incast_result *r)
{
	const struct ix_incast_limits *l = &r->params.limits;

	r->nfailed = 0;
	r->judged = l->min_goodput_bps > 0 || l->min_jain > 0 || l->have_max_stalled;
	for (uint32_t i = 0; r->judged && i < r->nsteps; i++) {
		const struct ix_incast_step *st = &r->steps[i];
		uint32_t n = st->point.senders;
		char a[32], b[32];

		if (!st->ok) /* a failed step is an error, not a measure */
			continue;
		if (l->min_goodput_bps > 0 && st->point.goodput_bps < l->min_goodput_bps) {
			ix_rate_text(st->point.goodput_bps, a, sizeof(a));
			ix_rate_text(l->min_goodput_bps, b, sizeof(b));
			missed(r, "N=%u: goodput %s < %s", n, a, b);
		}
		if (l->min_jain > 0 && r->params.mode == IX_INCAST_STREAM && st->nflows >= 2 &&
		    st->jain < l->min_jain)
			missed(r, "N=%u: Jain fairness %.3f < %.3f", n, st->jain, l->min_jain);
		if (l->have_max_stalled && r->params.mode == IX_INCAST_READ &&
		    st->point.stalled_rounds > l->max_stalled)
			missed(r, "N=%u: %llu stalled rounds > %llu", n,
			       (unsigned long long)st->point.stalled_rounds,
			       (unsigned long long)l->max_stalled);
	}
}

int ix_incast_run(struct ix_coord *co, const struct ix_incast_params *p,
		  const struct ix_hostlist *hosts, struct ix_incast_result *r, struct ix_err *err)
{
	uint32_t most = 0, npts = 0;
	struct ix_coord_job *jobs;
	struct ix_incast_point *pts;

	memset(r, 0, sizeof(*r));
	r->params = *p;
	r->hosts = hosts;
	for (uint32_t i = 0; i < p->nsweep; i++)
		if (p->sweep[i] > most)
			most = p->sweep[i];
	if (most == 0 || most + 1 > hosts->n)
		return ix_fail(err, IX_EXIT_USAGE,
			       "a sweep up to %u senders needs %u hosts (the receiver and the "
			       "senders); %zu given",
			       most, most + 1, hosts->n);
	r->steps = calloc(p->nsweep, sizeof(*r->steps));
	jobs = calloc(most, sizeof(*jobs));
	pts = calloc(p->nsweep, sizeof(*pts));
	if (!r->steps || !jobs || !pts) {
		free(jobs);
		free(pts);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	r->nsteps = p->nsweep;
	r->complete = true;
	for (uint32_t i = 0; i < p->nsweep; i++) {
		struct ix_incast_step *st = &r->steps[i];

		st->point.senders = p->sweep[i];
		if (!ix_coord_ready(co, p->receiver)) {
			step_failed(st, co->peers[p->receiver].error[0]
						? co->peers[p->receiver].error
						: "the receiver's agent is not ready");
		} else if (p->mode == IX_INCAST_STREAM) {
			stream_step(co, p, hosts, st, jobs, &r->receiver_link);
		} else {
			read_step(co, p, hosts, st, jobs, &r->receiver_link);
		}
		r->complete = r->complete && st->ok;
		if (st->ok) /* failed steps say nothing about the fabric */
			pts[npts++] = st->point;
	}
	ix_incast_judge(r);
	ix_incast_diagnose(pts, npts, r->diagnosis, sizeof(r->diagnosis));
	if (npts >= 2)
		ix_incast_ceiling_clause(pts, npts, &r->receiver_link, r->diagnosis,
					 sizeof(r->diagnosis));
	free(jobs);
	free(pts);
	return 0;
}
