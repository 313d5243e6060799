/* Traffic patterns over agents: every test of a stage started together
 * through one dispatch, each host's tests on a connection of its own. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/patrun.h"
#include "probes/cluster/runner.h"
#include "probes/core/clock.h"

#define JOB_EXTRA_S 20.0 /* connect, set-up and report, beyond the test itself */

uint32_t ix_pattern_lanes(enum ix_pattern p, uint32_t n, bool both_directions)
{
	if (n < 2)
		return 1;
	switch (p) {
	case IX_PATTERN_ALL_TO_ALL:
		return n - 1 < IX_PATTERN_FANOUT ? n - 1 : IX_PATTERN_FANOUT;
	case IX_PATTERN_RING:
		return both_directions && n > 2 ? 2 : 1;
	default:
		return 1;
	}
}

int ix_pattern_run_open(const struct ix_hostlist *hosts, const struct ix_token *token,
			double timeout_s, enum ix_pattern p, const struct ix_mesh_params *mp,
			uint32_t rounds, uint64_t seed, struct ix_pattern_result *r,
			struct ix_err *err)
{
	uint32_t n = (uint32_t)hosts->n, lanes = ix_pattern_lanes(p, n, mp->both_directions);
	struct ix_hostlist wide = { calloc((size_t)n * lanes + 1, sizeof(struct ix_host)), 0, 0 };
	struct ix_coord co;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!wide.v)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (uint32_t k = 0; k < lanes; k++)
		memcpy(wide.v + (size_t)k * n, hosts->v, n * sizeof(*wide.v));
	wide.n = wide.cap = (size_t)n * lanes;
	ix_coord_open(&co, &wide, token, timeout_s, err);
	rc = ix_pattern_run(&co, p, mp, rounds, seed, NULL, hosts, r, err);
	ix_coord_close(&co);
	ix_hostlist_free(&wide);
	return rc;
}

void ix_pattern_estimate_mesh(enum ix_pattern pat, const struct ix_mesh_params *p, unsigned tests,
			      uint32_t n, uint32_t rounds, struct ix_pattern_plan *pl,
			      struct ix_pattern_estimate *e)
{
	double s = p->bw.warmup_s + p->bw.duration_s;
	uint32_t kinds = 1;

	*pl = (struct ix_pattern_plan){
		.pattern = pat, .n = n, .both_directions = p->both_directions, .rounds = rounds
	};
	if (pat == IX_PATTERN_ALL_PAIRS) {
		s = tests & IX_MESH_BW ? s : 0;
		kinds = (tests & IX_MESH_BW ? 1 : 0) + (tests & IX_MESH_LAT ? 1 : 0);
		if (tests & IX_MESH_LAT) /* a round trip: some tens of microseconds */
			s += p->lat.warmup_s +
			     (p->lat.iters ? (double)p->lat.iters * 20e-6 : p->lat.duration_s);
	}
	ix_pattern_estimate(pl, s, kinds, p->concurrency, IX_PATTERN_ROUND_OVERHEAD_S, e);
}

void ix_pattern_result_free(struct ix_pattern_result *r)
{
	free(r->order);
	free(r->tests);
	free(r->host);
	memset(r, 0, sizeof(*r));
}

/* The counters and links both ends of a test reported. */
static void keep_ends(struct ix_pattern_result *r, uint32_t a, uint32_t b, json_t *report)
{
	struct ix_ctr_set at[2];
	struct ix_link_limit link[2];
	uint32_t end[2] = { a, b };

	if (ix_runner_parse_counters(report, &at[0], &at[1], NULL) == 0) {
		r->counters_any |= at[0].valid && at[1].valid;
		for (int k = 0; k < 2; k++) {
			struct ix_ctr_sum s;

			if (!at[k].valid)
				continue;
			ix_ctr_summarize(&at[k], &s);
			ix_ctr_sum_add(&r->host[end[k]].counters, &s);
			r->host[end[k]].counters_read = true;
		}
		ix_ctr_set_free(&at[0]);
		ix_ctr_set_free(&at[1]);
	}
	if (ix_runner_parse_links(report, &link[0], &link[1], NULL) == 0)
		for (int k = 0; k < 2; k++)
			if (link[k].iface[0])
				r->host[end[k]].link = link[k];
}

static void host_failed(struct ix_pattern_result *r, uint32_t h, const char *why)
{
	if (!r->host[h].error[0])
		snprintf(r->host[h].error, sizeof(r->host[h].error), "%s", why);
}

/* One stage: every test at once; lane k of host a is peer k * n + a. */
static void run_stage(struct ix_coord *co, struct ix_pattern_result *r, uint32_t stage,
		      const struct ix_pair *pairs, uint32_t np, struct ix_coord_job *jobs,
		      uint32_t *lane)
{
	const struct ix_mesh_params *p = &r->params;
	struct ix_pattern_test *t = r->tests + r->ntests;
	uint32_t nj = 0;

	memset(lane, 0, r->n * sizeof(*lane));
	for (uint32_t i = 0; i < np; i++) {
		uint32_t a = pairs[i].a, b = pairs[i].b;
		struct ix_run_job job = { .kind = IX_RUN_BW,
					  .targets = &r->hosts->v[b],
					  .ntargets = 1,
					  .bw = &p->bw,
					  .rdma = &p->rdma,
					  .gpu = p->gpu[0] ? p->gpu : NULL,
					  .source =
						  p->from_host_addr ? r->hosts->v[a].name : NULL };

		t[i] = (struct ix_pattern_test){ .stage = stage, .a = a, .b = b };
		if (r->host[a].error[0] || r->host[b].error[0]) {
			snprintf(t[i].error, sizeof(t[i].error), "%s",
				 r->host[a].error[0] ? r->host[a].error : r->host[b].error);
			continue;
		}
		jobs[nj].peer = lane[a]++ * r->n + a;
		jobs[nj].run = ix_runner_request(&job);
		jobs[nj].report = NULL;
		nj++;
	}
	ix_coord_dispatch(co, jobs, nj,
			  p->bw.warmup_s + (p->bw.duration_s > 0 ? p->bw.duration_s : 60) +
				  JOB_EXTRA_S);
	for (uint32_t i = 0, j = 0; i < np; i++) {
		struct ix_run_figures f;

		if (t[i].error[0])
			continue; /* never sent */
		if (!jobs[j].report) {
			snprintf(t[i].error, sizeof(t[i].error), "%s", jobs[j].error);
			host_failed(r, t[i].a, jobs[j].error);
		} else if (ix_runner_parse_report(jobs[j].report, &f) < 0 || !f.ok) {
			snprintf(t[i].error, sizeof(t[i].error), "%s",
				 f.error[0] ? f.error : "bad report");
		} else {
			t[i].ok = true;
			t[i].bps = f.bw_bps > 0 ? f.bw_bps : 0;
			t[i].bytes = f.bytes;
			keep_ends(r, t[i].a, t[i].b, jobs[j].report);
		}
		json_decref(jobs[j].run);
		json_decref(jobs[j].report);
		j++;
	}
	for (uint32_t h = 0; h < co->n; h++)
		if (!ix_coord_ready(co, h) && co->peers[h].error[0])
			host_failed(r, h % r->n, co->peers[h].error);
	r->ntests += np;
}

#define DISCOVER_S 0.05 /* the ring that finds each host's switch before a bisection */

/* Bisection without an order given: a short ring first (every host sends
 * once and receives once, so each one's link comes back with its switch),
 * then whole switches on each side where the agents know them. What the
 * ring measured is not kept. */
static void discover(struct ix_coord *co, struct ix_pattern_result *r, struct ix_pair *pairs,
		     struct ix_coord_job *jobs, uint32_t *lane)
{
	struct ix_bw_params keep = r->params.bw;
	uint32_t n = r->n;

	for (uint32_t i = 0; i < n; i++)
		pairs[i] = (struct ix_pair){ i, (i + 1) % n };
	r->params.bw.duration_s = DISCOVER_S;
	r->params.bw.warmup_s = 0;
	run_stage(co, r, 0, pairs, n, jobs, lane);
	r->params.bw = keep;
	r->ntests = 0;
	r->counters_any = false;
	for (uint32_t i = 0; i < n; i++) {
		r->host[i].counters_read = false;
		memset(&r->host[i].counters, 0, sizeof(r->host[i].counters));
	}
	ix_pattern_split(r->host, n, r->order, r->split, sizeof(r->split));
}

int ix_pattern_run(struct ix_coord *co, enum ix_pattern p, const struct ix_mesh_params *mp,
		   uint32_t rounds, uint64_t seed, const uint32_t *order,
		   const struct ix_hostlist *hosts, struct ix_pattern_result *r, struct ix_err *err)
{
	struct ix_pattern_plan pl = { .pattern = p,
				      .n = (uint32_t)hosts->n,
				      .both_directions = mp->both_directions,
				      .rounds = rounds,
				      .seed = seed };
	uint32_t stages, max, n = (uint32_t)hosts->n;
	struct ix_pair *pairs = NULL;
	struct ix_coord_job *jobs = NULL;
	uint32_t *lane = NULL;
	int64_t t0 = ix_now_ns();
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->pattern = p;
	r->params = *mp;
	r->hosts = hosts;
	r->n = n;
	r->seed = seed;
	r->order = calloc(n ? n : 1, sizeof(*r->order));
	r->host = calloc(n ? n : 1, sizeof(*r->host));
	for (uint32_t i = 0; r->order && i < n; i++)
		r->order[i] = order ? order[i] : i;
	pl.order = r->order;
	stages = ix_pattern_stages(&pl);
	max = ix_pattern_stage_max(&pl);
	r->rounds = stages;
	pairs = calloc((size_t)max + n + 1, sizeof(*pairs));
	jobs = calloc((size_t)max + n + 1, sizeof(*jobs));
	lane = calloc(n ? n : 1, sizeof(*lane));
	r->tests = calloc((size_t)stages * max + n + 1, sizeof(*r->tests));
	if (!r->order || !r->host || !pairs || !jobs || !lane || !r->tests) {
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory for a %u-host %s", n,
			     ix_pattern_name(p));
		goto out;
	}
	for (uint32_t h = 0; h < co->n; h++)
		if (!ix_coord_ready(co, h) && co->peers[h].error[0])
			host_failed(r, h % n, co->peers[h].error);
	if (p == IX_PATTERN_BISECTION)
		snprintf(r->split, sizeof(r->split), "%s",
			 order ? "the order given"
			       : "the host list's order: its first half against its second");
	if (p == IX_PATTERN_BISECTION && !order && n >= 4)
		discover(co, r, pairs, jobs, lane);
	if (p == IX_PATTERN_BISECTION && n % 2)
		r->host[r->order[n - 1]].sat_out = true;
	for (uint32_t s = 0; s < stages; s++) {
		uint32_t np = ix_pattern_stage(&pl, s, pairs);

		run_stage(co, r, s, pairs, np, jobs, lane);
	}
	if (ix_pattern_judge(r) < 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
out:
	r->wall_s = (double)(ix_now_ns() - t0) / 1e9;
	free(pairs);
	free(jobs);
	free(lane);
	return rc;
}
