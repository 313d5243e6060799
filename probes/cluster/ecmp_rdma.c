/* ixperf ecmp --path rdma (probes/cluster/ecmp.h): K QPs of one RDMA write
 * connection from A to B, in one phased test at A (probes/rdma/phased.h),
 * with each switch reading its counters on the same schedule. A QP keeps
 * its UDP source port from its phase alone to the phase at once: it is
 * the same QP, and where its flow label is set, the label fixes the port
 * (rdma_get_udp_sport). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/ecmp.h"
#include "probes/cluster/phasewire.h"
#include "probes/cluster/runner.h"

#define JOB_EXTRA_S 30.0

/* Switch s's series: its interfaces up, the control connection's too (it
 * may be the pair's port: the mapping leaves it out of the uplinks), or the
 * uplinks named when they are more than a series carries; read before each
 * phase and after the last. */
static int series_of(const struct ix_ecmp_result *r, const struct ix_rdma_phases *ph,
		     const struct ix_ifstat *v, uint32_t n, struct ix_series *se, char *why,
		     size_t len)
{
	const struct ix_ecmp_params *p = &r->params;

	memset(se, 0, sizeof(*se));
	se->nreads = r->nflows + 2;
	for (uint32_t k = 0; k < se->nreads; k++)
		se->at_s[k] = ix_rdma_phase_read_s(ph, r->nflows, k);
	for (uint32_t i = 0; i < n && se->nifs <= IX_SERIES_MAX_IFS; i++)
		if (v[i].up && se->nifs++ < IX_SERIES_MAX_IFS)
			snprintf(se->names[se->nifs - 1], IX_IFNAME_SIZE, "%s", v[i].name);
	if (se->nifs <= IX_SERIES_MAX_IFS)
		return 0;
	if (!p->nuplinks) {
		snprintf(why, len,
			 "it has over %d interfaces up: name its uplinks (--uplinks) for --path "
			 "rdma",
			 IX_SERIES_MAX_IFS);
		return -1;
	}
	se->nifs = p->nuplinks < IX_SERIES_MAX_IFS ? p->nuplinks : IX_SERIES_MAX_IFS;
	for (uint32_t i = 0; i < se->nifs; i++)
		snprintf(se->names[i], IX_IFNAME_SIZE, "%s", p->uplinks[i]);
	return 0;
}

/* The flows' figures from A's phased report. */
static void flows_from(struct ix_ecmp_result *r, const struct ix_rdma_phased *o)
{
	uint64_t sum = 0;
	double secs = o->together.end_s - o->together.start_s;

	r->sport_how = o->nqps ? ix_rdma_sport_how_name(o->how) : NULL;
	r->ready_s = o->ready_s;
	for (uint32_t i = 0; i < r->nflows && i < o->nqps; i++) {
		struct ix_ecmp_flow *f = &r->flows[i];
		const struct ix_rdma_phase_fig *a = &o->alone[i];

		f->sport = o->sport[i];
		f->dport = 4791; /* RoCE v2 */
		f->alone_dport = 4791;
		f->qpn = o->qpn[i];
		f->remote_qpn = o->remote_qpn[i];
		f->flow_label = o->flow_label[i];
		f->alone_ok = a->ran;
		f->alone_bytes = a->bytes;
		f->alone_start_s = a->start_s;
		f->alone_end_s = a->end_s;
		f->alone_bps =
			a->end_s > a->start_s ? (double)a->bytes * 8 / (a->end_s - a->start_s) : 0;
		f->ok = o->together.ran;
		f->bytes = o->together_bytes[i];
		f->seconds = secs > 0 ? secs : 0;
		f->bps = secs > 0 ? (double)f->bytes * 8 / secs : 0;
		sum += f->bytes;
	}
	r->together_ok = o->together.ran && o->nqps == r->nflows;
	r->pair_bytes = sum;
	r->pair_bps = secs > 0 ? (double)sum * 8 / secs : 0;
}

/* Switch s from its series: each flow's hop between the reads around its
 * phase (none where the phase ran past them: the reads then do not hold
 * it alone), the mapping, and the figures at once. */
static void switch_from(struct ix_ecmp_result *r, uint32_t s, const struct ix_series *se,
			const struct ix_ifstat *all, uint32_t nall)
{
	struct ix_ifstat *b = calloc(2 * IX_SERIES_MAX_IFS, sizeof(*b)), *a;
	bool late[IX_ECMP_MAX_FLOWS] = { false };
	uint32_t n = se->nifs, k = r->nflows;

	if (!b)
		return;
	a = b + IX_SERIES_MAX_IFS;
	for (uint32_t i = 0; i < k; i++) {
		struct ix_ecmp_flow *f = &r->flows[i];

		ix_series_read(se, i, b);
		ix_series_read(se, i + 1, a);
		ix_ecmp_hop_from(&f->hop[s], b, n, a, n);
		late[i] = f->alone_ok &&
			  (f->alone_start_s < se->at_s[i] || f->alone_end_s > se->at_s[i + 1]);
		f->hop[s].read = !late[i];
	}
	ix_ecmp_map_switch(r, s, all, nall);
	for (uint32_t i = 0; i < k; i++)
		if (late[i])
			snprintf(r->flows[i].hop[s].why, sizeof(r->flows[i].hop[s].why),
				 "it ran alone from %.2f to %.2f s, not between the switch's reads "
				 "at %.2f and %.2f s",
				 r->flows[i].alone_start_s, r->flows[i].alone_end_s, se->at_s[i],
				 se->at_s[i + 1]);
	ix_series_read(se, k, b);
	ix_series_read(se, k + 1, a);
	ix_ecmp_together_switch(r, s, b, n, a, n);
	free(b);
}

int ix_ecmp_rdma_run(struct ix_coord *co, struct ix_ecmp_result *r,
		     struct ix_ifstat (*bv)[IX_IFSTAT_MAX], const uint32_t *nb, const bool *ok,
		     struct ix_err *err)
{
	const struct ix_ecmp_params *p = &r->params;
	struct ix_rdma_phases ph = { p->lead_s, p->alone_s, p->gap_s, p->bw.warmup_s,
				     p->bw.duration_s };
	struct ix_rdma_params rp;
	struct ix_coord_job jobs[1 + IX_ECMP_MAX_SWITCHES];
	struct ix_series *se = calloc(IX_ECMP_MAX_SWITCHES, sizeof(*se));
	struct ix_rdma_phased *o = calloc(1, sizeof(*o));
	uint32_t idx[IX_ECMP_MAX_SWITCHES], nj = 1;
	struct ix_run_figures fig;
	int rc = -1;

	if (!se || !o) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto out;
	}
	memset(jobs, 0, sizeof(jobs));
	ix_rdma_params_init(&rp, IX_RDMA_MESH, IX_RDMA_OP_WRITE);
	rp.qps = r->nflows;
	struct ix_run_job a = { .kind = IX_RUN_BW,
				.targets = &r->hosts->v[1],
				.ntargets = 1,
				.bw = &p->bw,
				.rdma = &rp,
				.phases = &ph,
				.sport = p->bw.src_port };

	jobs[0] = (struct ix_coord_job){ .peer = 0, .run = ix_runner_request(&a) };
	for (uint32_t s = 0; s < r->nswitches; s++) {
		struct ix_ecmp_switch *sw = &r->sw[s];

		if (sw->ok && !ok[s])
			continue; /* read_switches said why */
		for (uint32_t u = 0; sw->ok && u < p->nuplinks; u++)
			if (!ix_ifstats_find(bv[s], nb[s], p->uplinks[u])) {
				sw->ok = false;
				snprintf(sw->error, sizeof(sw->error),
					 "it has no interface '%s' (--uplinks)", p->uplinks[u]);
			}
		if (sw->ok &&
		    series_of(r, &ph, bv[s], nb[s], &se[s], sw->error, sizeof(sw->error)) < 0)
			sw->ok = false;
		if (!sw->ok)
			continue;
		struct ix_run_job j = { .kind = IX_RUN_IFSERIES, .series = &se[s] };

		idx[nj - 1] = s;
		jobs[nj++] =
			(struct ix_coord_job){ .peer = sw->host, .run = ix_runner_request(&j) };
	}
	ix_coord_dispatch(co, jobs, nj, ix_rdma_phases_end_s(&ph, r->nflows) + JOB_EXTRA_S);
	for (uint32_t k = 1; k < nj; k++) {
		struct ix_ecmp_switch *sw = &r->sw[idx[k - 1]];
		struct ix_err e = { 0 };

		if (!jobs[k].report || ix_runner_parse_report(jobs[k].report, &fig) < 0 ||
		    !fig.ok ||
		    ix_phasewire_parse_series(json_object_get(jobs[k].report, "ifseries"),
					      &se[idx[k - 1]], &e) < 0) {
			sw->ok = false;
			snprintf(sw->error, sizeof(sw->error),
				 "its counters could not be read on the schedule: %.200s",
				 !jobs[k].report ? jobs[k].error
				 : e.msg[0]      ? e.msg
				 : fig.error[0]  ? fig.error
						 : "an agent older than this ixperf");
		}
	}
	if (!jobs[0].report) {
		snprintf(r->together_error, sizeof(r->together_error), "%s", jobs[0].error);
	} else if (ix_runner_parse_report(jobs[0].report, &fig) < 0 ||
		   !json_object_get(jobs[0].report, "phased")) {
		snprintf(r->together_error, sizeof(r->together_error), "%s",
			 fig.error[0] ? fig.error
				      : "the agent at A ran no phased test (an ixperf older than "
					"this one?)");
	} else if (ix_phasewire_parse_phased(json_object_get(jobs[0].report, "phased"), o, err) <
		   0) {
		goto out;
	} else {
		flows_from(r, o);
		if (!fig.ok)
			snprintf(r->together_error, sizeof(r->together_error), "%s", fig.error);
		for (uint32_t i = 0; i < r->nflows; i++)
			if (!r->flows[i].alone_ok)
				snprintf(r->flows[i].alone_error, sizeof(r->flows[i].alone_error),
					 "%s", fig.error[0] ? fig.error : "it did not run alone");
	}
	r->alone_done = r->nswitches > 0;
	for (uint32_t i = 0; i < r->nflows; i++)
		r->alone_done &= r->flows[i].alone_ok;
	for (uint32_t s = 0; s < r->nswitches; s++)
		if (r->sw[s].ok)
			switch_from(r, s, &se[s], bv[s], nb[s]);
	rc = 0;
out:
	for (uint32_t k = 0; k < nj; k++) {
		json_decref(jobs[k].run);
		json_decref(jobs[k].report);
	}
	free(se);
	free(o);
	return rc;
}
