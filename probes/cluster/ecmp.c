/* ixperf ecmp's driver (probes/cluster/ecmp.h): the flows alone between
 * reads of the switches' counters, then all at once. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/ecmp.h"
#include "probes/cluster/runner.h"
#include "probes/ctl/ifwire.h"
#include "probes/net/proto.h"

#define JOB_EXTRA_S    20.0
#define IFSTATS_WAIT_S 5.0

/* Each switch's interfaces, read once. */
struct reads {
	struct ix_ifstat (*v)[IX_IFSTAT_MAX];
	uint32_t n[IX_ECMP_MAX_SWITCHES];
	bool ok[IX_ECMP_MAX_SWITCHES];
};

/* Read every switch still working; one that fails is marked with why. */
static void read_switches(struct ix_coord *co, struct ix_ecmp_result *r, struct reads *rd)
{
	struct ix_coord_job jobs[IX_ECMP_MAX_SWITCHES];
	json_t *req = ix_ifstats_request();
	uint32_t n = 0, idx[IX_ECMP_MAX_SWITCHES];

	for (uint32_t s = 0; s < r->nswitches; s++) {
		rd->ok[s] = false;
		rd->n[s] = 0;
		if (!r->sw[s].ok)
			continue;
		jobs[n] = (struct ix_coord_job){ .peer = r->sw[s].host, .run = req };
		idx[n++] = s;
	}
	if (n)
		ix_coord_ask(co, jobs, n, IX_MSG_IFSTATS, IX_MSG_IFSTATS_REPLY, IFSTATS_WAIT_S);
	for (uint32_t k = 0; k < n; k++) {
		struct ix_ecmp_switch *sw = &r->sw[idx[k]];
		struct ix_err e = { 0 };
		bool trunc;

		if (!jobs[k].report) {
			sw->ok = false;
			snprintf(sw->error, sizeof(sw->error),
				 "cannot read its interface counters: %.200s (an agent older than "
				 "this ixperf does not answer IFSTATS)",
				 jobs[k].error);
			continue;
		}
		if (ix_ifstats_reply_parse(jobs[k].report, rd->v[idx[k]], &rd->n[idx[k]], &trunc,
					   &e) < 0) {
			sw->ok = false;
			snprintf(sw->error, sizeof(sw->error), "%s", e.msg);
		} else {
			rd->ok[idx[k]] = true;
		}
		json_decref(jobs[k].report);
	}
	json_decref(req);
}

/* One bandwidth job from A to B; its REPORT (NULL with why). */
static json_t *run_bw(struct ix_coord *co, const struct ix_ecmp_result *r,
		      const struct ix_bw_params *bw, char *why, size_t len)
{
	struct ix_run_job job = {
		.kind = IX_RUN_BW, .targets = &r->hosts->v[1], .ntargets = 1, .bw = bw
	};
	struct ix_coord_job j = { .peer = 0, .run = ix_runner_request(&job) };
	struct ix_run_figures f;

	ix_coord_dispatch(co, &j, 1, bw->warmup_s + bw->duration_s + JOB_EXTRA_S);
	json_decref(j.run);
	if (!j.report) {
		snprintf(why, len, "%s", j.error);
		return NULL;
	}
	if (ix_runner_parse_report(j.report, &f) < 0 || !f.ok) {
		snprintf(why, len, "%s", f.error[0] ? f.error : "malformed report");
		json_decref(j.report);
		return NULL;
	}
	return j.report;
}

/* The streams of a REPORT, each from its asked source port; -1 with err
 * when the agent did not send from them (an older one ignores the ask). */
static int streams_of(const struct ix_ecmp_result *r, json_t *rep, uint16_t first,
		      struct ix_run_stream *st, uint32_t want, struct ix_err *err)
{
	uint32_t n;

	if (ix_runner_parse_streams(rep, st, IX_ECMP_MAX_FLOWS, &n, err) < 0)
		return -1;
	if (n == 0)
		return ix_fail(err, IX_EXIT_FAIL,
			       "the agent at %s reports no stream ports: an ixperf older than this "
			       "one, which cannot send from fixed source ports; update it",
			       r->hosts->v[0].name);
	if (n != want)
		return ix_fail(err, IX_EXIT_FAIL, "the agent at %s reported %u streams, not %u",
			       r->hosts->v[0].name, n, want);
	for (uint32_t i = 0; i < n; i++)
		if (st[i].sport != first + i)
			return ix_fail(err, IX_EXIT_FAIL,
				       "the agent at %s sent stream %u from port %u, not %u: it "
				       "does not bind the asked source ports (an older ixperf?)",
				       r->hosts->v[0].name, i, st[i].sport, first + i);
	return 0;
}

static double bps_of(const struct ix_run_stream *s)
{
	return s->seconds > 0 ? (double)s->bytes * 8 / s->seconds : 0;
}

/* Flow i alone, between two reads of the switches. */
static int alone(struct ix_coord *co, struct ix_ecmp_result *r, uint32_t i, struct reads *b,
		 struct reads *a, struct ix_err *err)
{
	struct ix_ecmp_flow *f = &r->flows[i];
	struct ix_bw_params bw = r->params.bw;
	struct ix_run_stream st;
	json_t *rep;

	bw.streams = 1;
	bw.src_port = (uint16_t)(r->params.bw.src_port + i);
	bw.duration_s = r->params.alone_s;
	bw.warmup_s = 0; /* the counters see every byte: so do the figures */
	bw.interval_s = 0;
	read_switches(co, r, b);
	rep = run_bw(co, r, &bw, f->alone_error, sizeof(f->alone_error));
	read_switches(co, r, a);
	if (!rep)
		return 0;
	if (streams_of(r, rep, bw.src_port, &st, 1, err) < 0) {
		json_decref(rep);
		return -1;
	}
	json_decref(rep);
	f->alone_ok = true;
	f->alone_bytes = st.bytes;
	f->alone_bps = bps_of(&st);
	f->alone_dport = st.dport;
	for (uint32_t s = 0; s < r->nswitches; s++)
		if (b->ok[s] && a->ok[s])
			ix_ecmp_hop_from(&f->hop[s], b->v[s], b->n[s], a->v[s], a->n[s]);
	return 0;
}

/* Every flow at once, between two reads of the switches. */
static int together(struct ix_coord *co, struct ix_ecmp_result *r, struct reads *b, struct reads *a,
		    struct ix_err *err)
{
	struct ix_run_stream st[IX_ECMP_MAX_FLOWS];
	struct ix_run_figures f;
	json_t *rep;

	read_switches(co, r, b);
	rep = run_bw(co, r, &r->params.bw, r->together_error, sizeof(r->together_error));
	read_switches(co, r, a);
	if (!rep)
		return 0;
	if (streams_of(r, rep, r->params.bw.src_port, st, r->nflows, err) < 0) {
		json_decref(rep);
		return -1;
	}
	ix_runner_parse_report(rep, &f);
	json_decref(rep);
	r->together_ok = true;
	r->pair_bps = f.bw_bps;
	r->pair_bytes = f.bytes;
	for (uint32_t i = 0; i < r->nflows; i++) {
		struct ix_ecmp_flow *fl = &r->flows[i];

		fl->ok = true;
		fl->sport = st[i].sport;
		fl->dport = st[i].dport;
		fl->bytes = st[i].bytes;
		fl->seconds = st[i].seconds;
		fl->bps = bps_of(&st[i]);
		/* UDP towards an agent that chose its own ports: not the
		 * 5-tuple mapped alone. */
		for (uint32_t s = 0;
		     fl->alone_ok && fl->dport != fl->alone_dport && s < r->nswitches; s++) {
			struct ix_ecmp_hop *h = &fl->hop[s];

			if (h->uplink[0]) {
				for (uint32_t u = 0; u < r->sw[s].nup; u++)
					if (strcmp(r->sw[s].up[u].name, h->uplink) == 0)
						r->sw[s].up[u].flows--;
				r->sw[s].mapped--;
			}
			h->uplink[0] = 0;
			snprintf(
				h->why, sizeof(h->why),
				"it went to port %u alone and %u at once (the agent at %.64s chose "
				"its ports): not the same 5-tuple",
				fl->alone_dport, fl->dport, r->hosts->v[1].name);
		}
	}
	return 0;
}

int ix_ecmp_run(struct ix_coord *co, const struct ix_ecmp_params *p,
		const struct ix_hostlist *hosts, struct ix_ecmp_result *r, struct ix_err *err)
{
	struct reads b = { 0 }, a = { 0 };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->params = *p;
	r->hosts = hosts;
	r->nflows = p->bw.streams;
	r->nswitches = (uint32_t)hosts->n - 2;
	if (r->nflows > IX_ECMP_MAX_FLOWS || r->nswitches > IX_ECMP_MAX_SWITCHES)
		return ix_fail(err, IX_EXIT_USAGE, "too many flows or switches");
	for (uint32_t i = 0; i < r->nflows; i++)
		r->flows[i].sport = (uint16_t)(p->bw.src_port + i);
	for (uint32_t s = 0; s < r->nswitches; s++) {
		r->sw[s].host = s + 2;
		r->sw[s].ok = ix_coord_ready(co, s + 2);
		if (!r->sw[s].ok)
			snprintf(r->sw[s].error, sizeof(r->sw[s].error),
				 "its agent could not be reached");
	}
	for (uint32_t h = 0; h < 2; h++)
		if (!ix_coord_ready(co, h))
			return ix_fail(err, IX_EXIT_FAIL, "the agent at %s could not be reached",
				       hosts->v[h].name);
	b.v = calloc(IX_ECMP_MAX_SWITCHES, sizeof(*b.v));
	a.v = calloc(IX_ECMP_MAX_SWITCHES, sizeof(*a.v));
	if (!b.v || !a.v) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto out;
	}
	if (p->rdma) {
		if (r->nswitches)
			read_switches(co, r, &b);
		if (ix_ecmp_rdma_run(co, r, b.v, b.n, b.ok, err) < 0)
			goto out;
	} else if (r->nswitches) {
		/* The uplinks named must be there before any flow runs. */
		read_switches(co, r, &b);
		for (uint32_t s = 0; s < r->nswitches; s++)
			for (uint32_t u = 0; b.ok[s] && r->sw[s].ok && u < p->nuplinks; u++)
				if (!ix_ifstats_find(b.v[s], b.n[s], p->uplinks[u])) {
					r->sw[s].ok = false;
					snprintf(r->sw[s].error, sizeof(r->sw[s].error),
						 "it has no interface '%s' (--uplinks)",
						 p->uplinks[u]);
				}
		/* With no switch left to read, running the flows alone maps
		 * nothing. */
		bool readable = false;

		for (uint32_t s = 0; s < r->nswitches; s++)
			readable |= r->sw[s].ok;
		r->alone_done = readable;
		for (uint32_t i = 0; readable && i < r->nflows; i++) {
			if (alone(co, r, i, &b, &a, err) < 0)
				goto out;
			r->alone_done &= r->flows[i].alone_ok;
		}
		for (uint32_t s = 0; s < r->nswitches; s++)
			if (r->sw[s].ok)
				ix_ecmp_map_switch(r, s, a.v[s], a.n[s]);
	}
	if (!p->rdma && together(co, r, &b, &a, err) < 0)
		goto out;
	for (uint32_t s = 0; !p->rdma && s < r->nswitches; s++)
		if (r->sw[s].ok)
			ix_ecmp_together_switch(r, s, b.ok[s] ? b.v[s] : NULL, b.n[s],
						a.ok[s] ? a.v[s] : NULL, a.n[s]);
	ix_ecmp_judge(r);
	bool switches = true;

	for (uint32_t s = 0; s < r->nswitches; s++)
		switches &= r->sw[s].ok;
	r->complete = r->together_ok && switches && (r->nswitches == 0 || r->alone_done);
	if (!r->complete)
		snprintf(r->error, sizeof(r->error), "%s",
			 !r->together_ok ? "the flows at once failed"
			 : !switches     ? "a switch's counters could not be read"
					 : "a flow failed alone");
	rc = 0;
out:
	free(b.v);
	free(a.v);
	return rc;
}
