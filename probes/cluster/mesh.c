/* All-pairs meshes: schedule, dispatch through the coordinator, analyse,
 * retest the bad pairs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/mesh.h"
#include "probes/cluster/runner.h"
#include "probes/cluster/schedule.h"
#include "probes/core/clock.h"

#define JOB_EXTRA_S 20.0 /* connect, set-up and report, beyond the test itself */

void ix_mesh_result_free(struct ix_mesh_result *r)
{
	for (uint32_t i = 0; r->node_error && i < r->n; i++)
		free(r->node_error[i]);
	free(r->node_error);
	ix_cells_free(&r->cells);
	free(r->findings.suspects);
	free(r->failures);
	free(r->nodes);
	free(r->links);
	free(r->buffers);
	for (uint32_t i = 0; i < r->ncounters; i++) {
		ix_ctr_set_free(&r->counters[i].at_a);
		ix_ctr_set_free(&r->counters[i].at_b);
	}
	free(r->counters);
	memset(r, 0, sizeof(*r));
}

const struct ix_mesh_counters *ix_mesh_counters_of(const struct ix_mesh_result *r, uint32_t a,
						   uint32_t b, unsigned test)
{
	for (uint32_t i = 0; i < r->ncounters; i++)
		if (r->counters[i].a == a && r->counters[i].b == b && r->counters[i].test == test)
			return &r->counters[i];
	return NULL;
}

const struct ix_link_limit *ix_mesh_pair_link(const struct ix_mesh_result *r, uint32_t a,
					      uint32_t b, uint32_t *host)
{
	const struct ix_link_limit *l;

	if (!r->nodes)
		return NULL;
	l = ix_link_lower(&r->nodes[a].link, &r->nodes[b].link);
	if (host)
		*host = l == &r->nodes[b].link ? b : a;
	return l;
}

double ix_mesh_node_share(const struct ix_mesh_node *nd)
{
	double best = nd->bw_out_bps > nd->bw_in_bps ? nd->bw_out_bps : nd->bw_in_bps;
	double ceil = ix_link_ceiling(&nd->link);

	return ceil > 0 && best > 0 ? 100.0 * best / ceil : -1;
}

bool ix_mesh_node_bottleneck(const struct ix_mesh_result *r, uint32_t i, char *buf, size_t len)
{
	const struct ix_mesh_node *nd;
	char name[IX_HOST_NAME_MAX + 64], why[256];

	if (!buf || !len)
		return false;
	buf[0] = '\0';
	if (!r->nodes || i >= r->n)
		return false;
	nd = &r->nodes[i];
	if (!ix_link_verdict(&nd->link,
			     nd->bw_out_bps > nd->bw_in_bps ? nd->bw_out_bps : nd->bw_in_bps, why,
			     sizeof(why)))
		return false;
	ix_host_format(&r->hosts->v[i], name, sizeof(name));
	snprintf(buf, len, "%s: %s", name, why);
	return true;
}

/* "; at HOST: 118 Gbit/s is 94% of its NIC's PCIe ..." when a pair's
 * bandwidth sits at the PCIe ceiling of one of its hosts. */
static void ceiling_clause(const struct ix_mesh_result *r, uint32_t a, uint32_t b, char *buf,
			   size_t len)
{
	struct ix_cell c = ix_cells_get(&r->cells, a, b);
	char name[IX_HOST_NAME_MAX + 64], why[256];
	uint32_t host = a;
	const struct ix_link_limit *l = ix_mesh_pair_link(r, a, b, &host);
	size_t off = strlen(buf);

	if (!(c.bad & IX_BAD_BW) || !ix_link_verdict(l, c.bw_bps, why, sizeof(why)) ||
	    off + 4 >= len)
		return;
	ix_host_format(&r->hosts->v[host], name, sizeof(name));
	snprintf(buf + off, len - off, "; at %s: %s", name, why);
}

/* "at HOST: what moved" for one end; false when nothing moved there. */
static bool end_clause(const struct ix_mesh_result *r, uint32_t host, const struct ix_ctr_set *s,
		       char *buf, size_t len)
{
	char name[IX_HOST_NAME_MAX + 64];
	size_t off;

	ix_host_format(&r->hosts->v[host], name, sizeof(name));
	off = (size_t)snprintf(buf, len, "at %s: ", name);
	if (off >= len || ix_ctr_sentence(s, buf + off, len - off) == 0)
		return false;
	return true;
}

void ix_mesh_pair_reason(const struct ix_mesh_result *r, uint32_t a, uint32_t b, char *buf,
			 size_t len)
{
	struct ix_cell c = ix_cells_get(&r->cells, a, b);
	static const unsigned tests[] = { IX_MESH_BW, IX_MESH_LAT };
	size_t off;
	bool any = false;

	ix_mesh_reason(&c, &r->findings, buf, len);
	ceiling_clause(r, a, b, buf, len);
	off = strlen(buf);
	for (size_t t = 0; t < 2; t++) {
		const struct ix_mesh_counters *k;
		char clause[1024];

		if (!(c.bad & (tests[t] == IX_MESH_BW ? IX_BAD_BW : IX_BAD_LAT)))
			continue;
		k = ix_mesh_counters_of(r, a, b, tests[t]);
		if (!k)
			continue;
		for (int end = 0; end < 2; end++) {
			if (!end_clause(r, end ? b : a, end ? &k->at_b : &k->at_a, clause,
					sizeof(clause)) ||
			    off + 3 >= len)
				continue;
			off += (size_t)snprintf(buf + off, len - off, "; %s", clause);
			off = off < len ? off : len - 1;
			any = true;
		}
	}
	if (!any && r->counters_read > 0 && off + 3 < len)
		snprintf(buf + off, len - off, "; no fabric counter moved at either host");
}

int ix_mesh_keep_counters(struct ix_mesh_result *r, uint32_t a, uint32_t b, unsigned test,
			  struct ix_ctr_set *at_a, struct ix_ctr_set *at_b)
{
	struct ix_mesh_counters *k = (struct ix_mesh_counters *)ix_mesh_counters_of(r, a, b, test);

	if (k) { /* a retest: the new run replaces the old */
		ix_ctr_set_free(&k->at_a);
		ix_ctr_set_free(&k->at_b);
	} else if (at_a->n == 0 && at_b->n == 0) {
		return 0;
	} else if (r->ncounters == IX_MESH_MAX_COUNTERS) {
		r->counters_truncated = true;
		return 0;
	} else {
		if (r->ncounters == r->cap_counters) {
			uint32_t cap = r->cap_counters ? 2 * r->cap_counters : 16;
			struct ix_mesh_counters *v = realloc(r->counters, cap * sizeof(*v));

			if (!v)
				return -1;
			r->counters = v;
			r->cap_counters = cap;
		}
		k = &r->counters[r->ncounters++];
	}
	*k = (struct ix_mesh_counters){
		.a = a, .b = b, .test = test, .at_a = *at_a, .at_b = *at_b
	};
	ix_ctr_set_init(at_a);
	ix_ctr_set_init(at_b);
	return 0;
}

static struct ix_cell cell(const struct ix_mesh_result *r, uint32_t a, uint32_t b)
{
	return ix_cells_get(&r->cells, a, b);
}

static void set_state(struct ix_mesh_result *r, uint32_t a, uint32_t b, uint8_t state)
{
	struct ix_cell c = cell(r, a, b);

	c.state = state;
	ix_cells_set(&r->cells, a, b, &c);
}

/* A node is down: every pair it has not measured yet fails with it. */
static void node_down(struct ix_mesh_result *r, uint32_t node, const char *why)
{
	if (!r->node_error[node])
		r->node_error[node] = strdup(why);
	for (uint32_t i = 0; i < r->n; i++) {
		if (cell(r, node, i).state == IX_CELL_PENDING)
			set_state(r, node, i, IX_CELL_FAILED);
		if (cell(r, i, node).state == IX_CELL_PENDING)
			set_state(r, i, node, IX_CELL_FAILED);
	}
}

/* A pair failed while both agents work: keep the reason (bounded). */
static void pair_failed(struct ix_mesh_result *r, uint32_t a, uint32_t b, const char *why)
{
	struct ix_mesh_failure *f;

	if (r->nfailures >= IX_MESH_MAX_FAILURES)
		return;
	f = &r->failures[r->nfailures++];
	f->a = a;
	f->b = b;
	snprintf(f->error, sizeof(f->error), "%.255s", why);
}

/* Agents whose control connection broke while idle are down too. */
static void sync_nodes(struct ix_coord *co, struct ix_mesh_result *r)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (!ix_coord_ready(co, i) && co->peers[i].error[0])
			node_down(r, i, co->peers[i].error);
}

static double job_timeout(const struct ix_mesh_params *p, unsigned test)
{
	if (test == IX_MESH_BW)
		return p->bw.warmup_s + (p->bw.duration_s > 0 ? p->bw.duration_s : 60) +
		       JOB_EXTRA_S;
	return p->lat.warmup_s + (p->lat.duration_s > 0 ? p->lat.duration_s : 60) + JOB_EXTRA_S;
}

/* What moved at both ends of a measured pair (a malformed report's
 * counters are left out: the figures stand). */
static void keep_counters(struct ix_mesh_result *r, uint32_t a, uint32_t b, unsigned test,
			  json_t *report)
{
	struct ix_ctr_set at_a, at_b;
	struct ix_err err = { 0 };

	if (ix_runner_parse_counters(report, &at_a, &at_b, &err) < 0)
		return;
	if (at_a.valid && at_b.valid)
		r->counters_read++;
	ix_mesh_keep_counters(r, a, b, test, &at_a, &at_b);
	ix_ctr_set_free(&at_a);
	ix_ctr_set_free(&at_b);
}

/* The links both hosts' tests left by, as the report says (a malformed
 * one is left out; the newest known one stays). */
static void keep_links(struct ix_mesh_result *r, uint32_t a, uint32_t b, json_t *report)
{
	struct ix_link_limit at_a, at_b;

	if (!r->links || ix_runner_parse_links(report, &at_a, &at_b, NULL) < 0)
		return;
	if (at_a.iface[0])
		r->links[a] = at_a;
	if (at_b.iface[0])
		r->links[b] = at_b;
	if (r->buffers) {
		char local[160], remote[160];

		ix_runner_parse_buffers(report, local, remote, sizeof(local));
		/* the initiator's: where --gpu put them */
		if (local[0])
			snprintf(r->buffers[a], sizeof(r->buffers[a]), "%s", local);
	}
}

/* Run one test over a batch of disjoint pairs (a initiates towards b). */
static void run_batch(struct ix_coord *co, struct ix_mesh_result *r, const struct ix_pair *pairs,
		      uint32_t n, unsigned test, struct ix_coord_job *jobs)
{
	const struct ix_mesh_params *p = &r->params;
	uint32_t nj = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct ix_run_job job = { .kind = test == IX_MESH_BW ? IX_RUN_BW : IX_RUN_LAT,
					  .targets = &r->hosts->v[pairs[i].b],
					  .ntargets = 1,
					  .bw = &p->bw,
					  .lat = &p->lat,
					  .rdma = &p->rdma,
					  .gpu = p->gpu[0] ? p->gpu : NULL,
					  .source = p->from_host_addr ? r->hosts->v[pairs[i].a].name
								      : NULL };
		if (r->node_error[pairs[i].a] || r->node_error[pairs[i].b]) {
			set_state(r, pairs[i].a, pairs[i].b, IX_CELL_FAILED);
			continue;
		}
		jobs[nj].peer = pairs[i].a;
		jobs[nj].run = ix_runner_request(&job);
		nj++;
	}
	ix_coord_dispatch(co, jobs, nj, job_timeout(p, test));
	for (uint32_t i = 0, j = 0; i < n && j < nj; i++) {
		uint32_t a = pairs[i].a, b = pairs[i].b;
		struct ix_cell c = cell(r, a, b);
		struct ix_run_figures f;

		if (jobs[j].peer != a)
			continue; /* skipped above */
		/* One test per pair: the way it runs takes the pair's slot (the
		 * other way of a pending pair reads as none). */
		if (c.state == IX_CELL_NONE)
			c.state = IX_CELL_PENDING;
		if (!jobs[j].report) {
			node_down(r, a, jobs[j].error);
		} else if (ix_runner_parse_report(jobs[j].report, &f) < 0 || !f.ok) {
			set_state(r, a, b, IX_CELL_FAILED);
			pair_failed(r, a, b, f.error[0] ? f.error : "bad report");
		} else {
			/* A test that ran to its end and moved nothing is
			 * measured: at 0, or with no round trip back. */
			if (test == IX_MESH_BW) {
				c.bw_bps = f.bw_bps > 0 ? (float)f.bw_bps : 0;
				c.bw_zero = !(f.bw_bps > 0);
			} else {
				c.lat_p50_ns = f.lat.valid ? (float)f.lat.p50 : 0;
				c.lat_p99_ns = f.lat.valid ? (float)f.lat.p99 : 0;
				c.lat_lost = !f.lat.valid;
			}
			keep_counters(r, a, b, test, jobs[j].report);
			keep_links(r, a, b, jobs[j].report);
			/* OK once the last of the asked tests measured the pair */
			if (c.state == IX_CELL_PENDING &&
			    (test == IX_MESH_BW || !(p->tests & IX_MESH_BW)))
				c.state = IX_CELL_OK;
			ix_cells_set(&r->cells, a, b, &c);
		}
		json_decref(jobs[j].run);
		json_decref(jobs[j].report);
		j++;
	}
	sync_nodes(co, r);
}

/* Both tests of the mesh over one batch. */
static void measure(struct ix_coord *co, struct ix_mesh_result *r, const struct ix_pair *pairs,
		    uint32_t n, struct ix_coord_job *jobs)
{
	if (r->params.tests & IX_MESH_LAT)
		run_batch(co, r, pairs, n, IX_MESH_LAT, jobs);
	if (r->params.tests & IX_MESH_BW)
		run_batch(co, r, pairs, n, IX_MESH_BW, jobs);
}

/* Bad pairs again, in batches where no host appears twice. */
static void retest(struct ix_coord *co, struct ix_mesh_result *r, struct ix_pair *pairs,
		   struct ix_coord_job *jobs, uint8_t *used)
{
	bool more = true;

	while (more) {
		uint32_t n = 0;

		more = false;
		memset(used, 0, r->n);
		for (uint32_t a = 0; a < r->n; a++) {
			for (uint32_t b = 0; b < r->n; b++) {
				struct ix_cell c = cell(r, a, b);
				if (!c.bad || c.retested || c.state != IX_CELL_OK)
					continue;
				if (used[a] || used[b]) {
					more = true;
					continue;
				}
				used[a] = used[b] = 1;
				c.retested = 1;
				c.state = IX_CELL_PENDING;
				ix_cells_set(&r->cells, a, b, &c);
				pairs[n++] = (struct ix_pair){ a, b };
			}
		}
		if (n)
			measure(co, r, pairs, n, jobs);
		r->pairs_retested += n;
	}
}

/* Unordered pairs: one cell each, measured or failed; the other direction
 * is "none". A pair that never ran (a node died first) fails as a -> b. */
static void one_cell_per_pair(struct ix_mesh_result *r)
{
	for (uint32_t a = 0; a < r->n; a++)
		for (uint32_t b = a + 1; b < r->n; b++) {
			uint8_t x = cell(r, a, b).state, y = cell(r, b, a).state;

			if (y == IX_CELL_OK) {
				set_state(r, a, b, IX_CELL_NONE);
			} else if (x == IX_CELL_OK) {
				set_state(r, b, a, IX_CELL_NONE);
			} else if (x == IX_CELL_FAILED || y == IX_CELL_FAILED) {
				set_state(r, a, b, IX_CELL_FAILED);
				set_state(r, b, a, IX_CELL_NONE);
			} else if (x == IX_CELL_PENDING) { /* a stopped run never got to it */
				set_state(r, b, a, IX_CELL_NONE);
			}
		}
}

/* Per-node medians and counts, from the matrix. */
static int summarize_nodes(struct ix_mesh_result *r)
{
	double *v = calloc(2 * (size_t)r->n + 1, sizeof(*v));
	uint32_t n = r->n;

	r->nodes = calloc(n ? n : 1, sizeof(*r->nodes));
	if (!v || !r->nodes) {
		free(v);
		return -1;
	}
	for (uint32_t x = 0; x < n; x++) {
		struct ix_mesh_node *nd = &r->nodes[x];
		size_t no = 0, ni = 0, nl = 0;
		double *out = v, *in = v + n;

		for (uint32_t y = 0; y < n; y++) {
			struct ix_cell o = cell(r, x, y), i = cell(r, y, x);
			if (o.state == IX_CELL_OK && ix_cell_has_bw(&o))
				out[no++] = o.bw_bps;
			if (i.state == IX_CELL_OK && ix_cell_has_bw(&i))
				in[ni++] = i.bw_bps;
			nd->measured += (o.state == IX_CELL_OK) + (i.state == IX_CELL_OK);
			nd->bad += (o.bad != 0) + (i.bad != 0);
		}
		nd->bw_out_bps = ix_median(out, no);
		nd->bw_in_bps = ix_median(in, ni);
		nd->have_bw_out = no > 0;
		nd->have_bw_in = ni > 0;
		for (uint32_t y = 0; y < n; y++) {
			struct ix_cell o = cell(r, x, y), i = cell(r, y, x);
			if (o.state == IX_CELL_OK && o.lat_p50_ns > 0)
				v[nl++] = o.lat_p50_ns;
			if (i.state == IX_CELL_OK && i.lat_p50_ns > 0)
				v[nl++] = i.lat_p50_ns;
		}
		nd->lat_p50_ns = ix_median(v, nl);
		if (r->links)
			nd->link = r->links[x];
		if (r->buffers)
			snprintf(nd->buffer, sizeof(nd->buffer), "%s", r->buffers[x]);
	}
	for (uint32_t i = 0; i < r->ncounters; i++) {
		struct ix_ctr_sum s;

		ix_ctr_summarize(&r->counters[i].at_a, &s);
		ix_ctr_sum_add(&r->nodes[r->counters[i].a].counters, &s);
		ix_ctr_summarize(&r->counters[i].at_b, &s);
		ix_ctr_sum_add(&r->nodes[r->counters[i].b].counters, &s);
	}
	for (size_t i = 0; i < r->findings.nsuspects; i++)
		r->nodes[r->findings.suspects[i]].suspect = true;
	free(v);
	return 0;
}

/* The counts so far: what a live view or a state file shows between
 * batches, and the result's own at the end. */
static void tally(struct ix_mesh_result *r, int64_t t0)
{
	uint64_t count[4] = { 0 };

	if (r->cells.v)
		ix_cells_count(&r->cells, count);
	r->pairs_measured = count[IX_CELL_OK];
	r->pairs_failed = count[IX_CELL_FAILED];
	r->wall_s = (double)(ix_now_ns() - t0) / 1e9;
}

int ix_mesh_run(struct ix_coord *co, const struct ix_mesh_params *p,
		const struct ix_hostlist *hosts, struct ix_mesh_result *r,
		const struct ix_mesh_hooks *hooks, struct ix_err *err)
{
	uint32_t n = (uint32_t)hosts->n, half = n / 2 ? n / 2 : 1;
	uint32_t cap = p->concurrency && p->concurrency < half ? p->concurrency : half;
	struct ix_pair *pairs = calloc(half, sizeof(*pairs));
	struct ix_coord_job *jobs = calloc(half, sizeof(*jobs));
	uint8_t *used = calloc(n ? n : 1, 1);
	/* One slot per pair when each pair is measured one way. */
	enum ix_cells_mode mode = p->both_directions ? IX_CELLS_FULL : IX_CELLS_PAIR;
	int64_t t0 = ix_now_ns();
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->params = *p;
	r->hosts = hosts;
	r->n = n;
	r->rounds = ix_schedule_rounds(n);
	r->pairs_planned = (uint64_t)n * (n - (n > 0)) / (p->both_directions ? 1 : 2);
	if (ix_cells_init(&r->cells, n, mode) < 0) {
		rc = ix_fail(err, IX_EXIT_FAIL,
			     "out of memory for a %u-host mesh (%zu MB of cells)", n,
			     ix_cells_bytes(n, mode) / 1000000);
		goto out;
	}
	r->node_error = calloc(n ? n : 1, sizeof(*r->node_error));
	r->failures = calloc(IX_MESH_MAX_FAILURES, sizeof(*r->failures));
	r->links = calloc(n ? n : 1, sizeof(*r->links));
	r->buffers = calloc(n ? n : 1, sizeof(*r->buffers));
	if (!pairs || !jobs || !used || !r->node_error || !r->failures || !r->links ||
	    !r->buffers) {
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory for a %u-host mesh", n);
		goto out;
	}
	sync_nodes(co, r);
	if (hooks && hooks->on_start) {
		tally(r, t0);
		hooks->on_start(hooks->arg, r);
	}
	for (uint32_t round = 0; round < r->rounds; round++) {
		uint32_t np = ix_schedule_round(n, round, pairs);

		for (int dir = 0; dir < (p->both_directions ? 2 : 1); dir++) {
			for (uint32_t off = 0; off < np; off += cap) {
				uint32_t k = np - off < cap ? np - off : cap;
				if (dir)
					for (uint32_t i = off; i < off + k; i++)
						pairs[i] =
							(struct ix_pair){ pairs[i].b, pairs[i].a };
				measure(co, r, pairs + off, k, jobs);
				if (dir)
					for (uint32_t i = off; i < off + k; i++)
						pairs[i] =
							(struct ix_pair){ pairs[i].b, pairs[i].a };
			}
			if (hooks && hooks->on_progress) {
				tally(r, t0);
				hooks->on_progress(hooks->arg, r, round);
			}
			if (hooks && hooks->stop && hooks->stop(hooks->arg)) {
				r->stopped = true;
				goto measured;
			}
		}
	}
measured:
	if (!p->both_directions)
		one_cell_per_pair(r);
	if (ix_mesh_analyze(&r->cells, &p->rules, &r->findings) < 0) {
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto out;
	}
	if (p->retest && r->findings.bad_pairs && !r->stopped) {
		retest(co, r, pairs, jobs, used);
		free(r->findings.suspects);
		if (ix_mesh_analyze(&r->cells, &p->rules, &r->findings) < 0)
			rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	if (rc == 0 && summarize_nodes(r) < 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
out:
	tally(r, t0);
	r->complete = rc == 0 && r->pairs_measured == r->pairs_planned;
	free(pairs);
	free(jobs);
	free(used);
	return rc;
}
