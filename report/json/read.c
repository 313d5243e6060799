/* Mesh and incast results read back from a saved document (read.h). */
#include "config.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/core/link.h"
#include "report/json/members.h"
#include "report/json/read.h"

#define MAX_STEPS 1024 /* an incast sweep (the command takes 64) */

/* ---- mesh ------------------------------------------------------------------------- */

static const char *const matrix_names[] = { "bw_bps", "lat_p50_ns", "lat_p99_ns", "state" };

/* Every matrix n rows of n cells, before anything is allocated for them. */
static int matrix_shape(json_t *m, uint32_t n, json_t *mats[4], struct ix_err *err)
{
	for (int k = 0; k < 4; k++) {
		char at[64];
		json_t *row;
		size_t a;

		snprintf(at, sizeof(at), "matrix.%s", matrix_names[k]);
		if (ix_member_array(m, "matrix", matrix_names[k], n, &mats[k], err) < 0)
			return -1;
		if (json_array_size(mats[k]) != n)
			return ix_fail(err, IX_EXIT_FAIL, "%s has %zu rows for %u hosts", at,
				       json_array_size(mats[k]), n);
		json_array_foreach(mats[k], a, row)
		{
			if (!json_is_array(row) || json_array_size(row) != n)
				return ix_fail(err, IX_EXIT_FAIL,
					       "%s[%zu] is not a row of %u cells (%s)", at, a, n,
					       json_is_array(row) ? "wrong length"
								  : ix_member_type(row));
		}
	}
	return 0;
}

static int cell_state(json_t *v, const char *at, uint8_t *out, struct ix_err *err)
{
	static const char *const names[] = { "pending", "ok", "failed", "none" };
	const char *s = json_string_value(v);

	for (uint8_t i = 0; s && i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	return ix_fail(err, IX_EXIT_FAIL, "%s is %s, not pending, ok, failed or none", at,
		       s ? "another string" : ix_member_type(v));
}

/* Cell (a, b)'s state as far as "none" or not (ix_cells_mode_for). */
static uint8_t state_at(void *arg, uint32_t a, uint32_t b)
{
	const char *x = json_string_value(json_array_get(json_array_get(arg, a), b));

	return x && strcmp(x, "none") == 0 ? IX_CELL_NONE : IX_CELL_PENDING;
}

static int read_cells(struct ix_mesh_result *r, json_t *mats[4], struct ix_err *err)
{
	for (uint32_t a = 0; a < r->n; a++)
		for (uint32_t b = 0; b < r->n; b++) {
			struct ix_cell c = { 0 };
			double v[3];
			char at[64];

			snprintf(at, sizeof(at), "matrix.state[%u][%u]", a, b);
			if (cell_state(json_array_get(json_array_get(mats[3], a), b), at, &c.state,
				       err) < 0)
				return -1;
			for (int k = 0; k < 3; k++) {
				snprintf(at, sizeof(at), "matrix.%s[%u][%u]", matrix_names[k], a,
					 b);
				if (ix_member_num(json_array_get(json_array_get(mats[k], a), b), at,
						  "", IX_MEMBER_NULLABLE, 0, FLT_MAX, &v[k],
						  err) < 0)
					return -1;
			}
			if (c.state ==
			    IX_CELL_OK) { /* figures are written for measured cells only */
				c.bw_bps = (float)v[0];
				c.lat_p50_ns = (float)v[1];
				c.lat_p99_ns = (float)v[2];
				/* 0, not null: the test ran and moved nothing */
				c.bw_zero = v[0] == 0 && json_is_number(json_array_get(
								 json_array_get(mats[0], a), b));
			}
			ix_cells_set(&r->cells, a, b, &c);
		}
	return 0;
}

static int read_mesh_params(json_t *res, struct ix_mesh_saved *s, struct ix_err *err)
{
	struct ix_mesh_params *p = &s->r.params;
	json_t *o, *tests, *t, *bw, *lat, *rules;
	size_t i;

	if (ix_member_object(res, "", "params", &o, err) < 0 ||
	    ix_member_array(o, "params", "tests", 2, &tests, err) < 0)
		return -1;
	json_array_foreach(tests, i, t)
	{
		const char *name = json_string_value(t);

		if (name && strcmp(name, "bw") == 0)
			p->tests |= IX_MESH_BW;
		else if (name && strcmp(name, "lat") == 0)
			p->tests |= IX_MESH_LAT;
		else
			return ix_fail(err, IX_EXIT_FAIL, "params.tests[%zu] is not bw or lat", i);
	}
	if (ix_member_bool(o, "params", "both_directions", &p->both_directions, err) < 0 ||
	    ix_member_bool(o, "params", "retest", &p->retest, err) < 0 ||
	    ix_member_u32(o, "params", "concurrency", &p->concurrency, err) < 0 ||
	    ix_member_object(o, "params", "bw", &bw, err) < 0 ||
	    ix_member_object(o, "params", "lat", &lat, err) < 0 ||
	    ix_member_object(o, "params", "rules", &rules, err) < 0)
		return -1;
	if (ix_member_text(bw, "params.bw", "path", IX_MEMBER_REQUIRED, s->bw_path,
			   sizeof(s->bw_path), err) < 0 ||
	    ix_member_count(bw, "params.bw", "msg_size", IX_MEMBER_REQUIRED, INT64_MAX,
			    &p->bw.msg_size, err) < 0 ||
	    ix_member_num(bw, "params.bw", "duration_s", IX_MEMBER_REQUIRED, 0, 1e9,
			  &p->bw.duration_s, err) < 0 ||
	    ix_member_num(bw, "params.bw", "warmup_s", IX_MEMBER_REQUIRED, 0, 1e9, &p->bw.warmup_s,
			  err) < 0)
		return -1;
	if (ix_member_text(lat, "params.lat", "path", IX_MEMBER_REQUIRED, s->lat_path,
			   sizeof(s->lat_path), err) < 0 ||
	    ix_member_count(lat, "params.lat", "msg_size", IX_MEMBER_REQUIRED, INT64_MAX,
			    &p->lat.msg_size, err) < 0 ||
	    ix_member_count(lat, "params.lat", "iters", IX_MEMBER_REQUIRED, INT64_MAX,
			    &p->lat.iters, err) < 0 ||
	    ix_member_num(lat, "params.lat", "duration_s", IX_MEMBER_REQUIRED, 0, 1e9,
			  &p->lat.duration_s, err) < 0)
		return -1;
	/* Rules absent (older documents) are 0: the defaults. */
	if (ix_member_num(rules, "params.rules", "bw_fraction", IX_MEMBER_NULLABLE, 0, 1,
			  &p->rules.bw_fraction, err) < 0 ||
	    ix_member_num(rules, "params.rules", "lat_factor", IX_MEMBER_NULLABLE, 0, 1e6,
			  &p->rules.lat_factor, err) < 0 ||
	    ix_member_num(rules, "params.rules", "lat_percentile", IX_MEMBER_NULLABLE, 0, 100,
			  &p->rules.lat_percentile, err) < 0 ||
	    ix_member_num(rules, "params.rules", "min_bw_bps", IX_MEMBER_NULLABLE, 0, DBL_MAX,
			  &p->rules.min_bw_bps, err) < 0 ||
	    ix_member_num(rules, "params.rules", "max_lat_ns", IX_MEMBER_NULLABLE, 0, DBL_MAX,
			  &p->rules.max_lat_ns, err) < 0)
		return -1;
	p->bw.path = s->bw_path;
	p->lat.path = s->lat_path;
	if (ix_member_object(res, "", "pairs", &o, err) < 0 ||
	    ix_member_count(o, "pairs", "planned", IX_MEMBER_REQUIRED, INT64_MAX,
			    &s->r.pairs_planned, err) < 0 ||
	    ix_member_count(o, "pairs", "measured", IX_MEMBER_REQUIRED, INT64_MAX,
			    &s->r.pairs_measured, err) < 0 ||
	    ix_member_count(o, "pairs", "failed", IX_MEMBER_REQUIRED, INT64_MAX, &s->r.pairs_failed,
			    err) < 0 ||
	    ix_member_count(o, "pairs", "retested", IX_MEMBER_REQUIRED, INT64_MAX,
			    &s->r.pairs_retested, err) < 0)
		return -1;
	return ix_member_u32(res, "", "rounds", &s->r.rounds, err) < 0 ||
			       ix_member_num(res, "", "wall_s", IX_MEMBER_REQUIRED, 0, 1e12,
					     &s->r.wall_s, err) < 0 ||
			       ix_member_bool(res, "", "complete", &s->r.complete, err) < 0
		       ? -1
		       : 0;
}

/* A per-class summary of fabric counters (optional member). */
static int counter_sum(json_t *o, const char *at, const char *key, struct ix_ctr_sum *sum,
		       struct ix_err *err)
{
	json_t *v = json_object_get(o, key);

	memset(sum, 0, sizeof(*sum));
	if (!v)
		return 0;
	if (ix_ctr_sum_parse(v, sum) < 0)
		return ix_fail(err, IX_EXIT_FAIL,
			       "%s.%s is not an object of non-negative counts per class", at, key);
	return 0;
}

/* A link (optional member; absent in documents from before ceilings). */
static int read_link(json_t *o, const char *at, const char *key, struct ix_link_limit *l,
		     struct ix_err *err)
{
	if (ix_link_parse(json_object_get(o, key), l, err) < 0)
		return ix_fail_prefix(err, "%s%s%s", at, at[0] ? "." : "", key);
	return 0;
}

static int read_nodes(json_t *res, json_t *hosts, struct ix_mesh_saved *s, struct ix_err *err)
{
	json_t *nodes, *nd;
	size_t i;

	if (ix_member_per_host(res, "nodes", s->r.n, &nodes, err) < 0)
		return -1;
	json_array_foreach(nodes, i, nd)
	{
		struct ix_mesh_node *n = &s->r.nodes[i];
		const char *e, *host;
		char at[32];

		snprintf(at, sizeof(at), "nodes[%zu]", i);
		if (!json_is_object(nd))
			return ix_member_bad_type(err, at, "", "an object", nd);
		if (ix_member_str(nd, at, "host", IX_MEMBER_REQUIRED, &host, err) < 0)
			return -1;
		if (strcmp(host, json_string_value(json_array_get(hosts, i))) != 0)
			return ix_fail(err, IX_EXIT_FAIL, "%s.host is not hosts[%zu]", at, i);
		if (ix_member_str(nd, at, "error", IX_MEMBER_NULLABLE, &e, err) < 0 ||
		    ix_member_num(nd, at, "bw_out_bps", IX_MEMBER_NULLABLE, 0, DBL_MAX,
				  &n->bw_out_bps, err) < 0 ||
		    ix_member_num(nd, at, "bw_in_bps", IX_MEMBER_NULLABLE, 0, DBL_MAX,
				  &n->bw_in_bps, err) < 0 ||
		    ix_member_num(nd, at, "lat_p50_ns", IX_MEMBER_NULLABLE, 0, DBL_MAX,
				  &n->lat_p50_ns, err) < 0 ||
		    ix_member_u32(nd, at, "measured", &n->measured, err) < 0 ||
		    ix_member_u32(nd, at, "bad", &n->bad, err) < 0 ||
		    ix_member_bool(nd, at, "suspect", &n->suspect, err) < 0)
			return -1;
		n->have_bw_out = json_is_number(json_object_get(nd, "bw_out_bps"));
		n->have_bw_in = json_is_number(json_object_get(nd, "bw_in_bps"));
		if (e && !(s->r.node_error[i] = ix_member_strdup(e)))
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		if (counter_sum(nd, at, "counters", &n->counters, err) < 0 ||
		    read_link(nd, at, "link", &n->link, err) < 0)
			return -1;
	}
	return 0;
}

/* The fabric counters the mesh read: how many tests (absent in documents
 * from before counters). */
static int read_mesh_counters(json_t *res, struct ix_mesh_saved *s, struct ix_err *err)
{
	json_t *c = json_object_get(res, "counters");

	if (!c)
		return 0;
	if (!json_is_object(c))
		return ix_member_bad_type(err, "counters", "", "an object", c);
	if (ix_member_count(c, "counters", "tests_read", IX_MEMBER_REQUIRED, INT64_MAX,
			    &s->r.counters_read, err) < 0 ||
	    ix_member_bool(c, "counters", "truncated", &s->r.counters_truncated, err) < 0)
		return -1;
	return 0;
}

/* Which rule a bad cell broke, from the figures: the document keeps the
 * sentence, not the mask. */
static uint8_t bad_mask(const struct ix_cell *c, const struct ix_mesh_findings *f)
{
	uint8_t m = 0;

	if (c->bw_zero || (c->bw_bps > 0 && (c->bw_bps < f->bw_fraction * f->median_bw_bps ||
					     c->bw_bps < f->min_bw_bps)))
		m |= IX_BAD_BW;
	if (c->lat_lost ||
	    (c->lat_p50_ns > 0 && f->max_lat_ns > 0 && c->lat_p50_ns > f->max_lat_ns))
		m |= IX_BAD_LAT;
	if (c->lat_p50_ns > 0 && f->lat_baseline_ns > 0 &&
	    c->lat_p50_ns > f->lat_factor * f->lat_baseline_ns)
		m |= IX_BAD_LAT;
	if (!m) /* on the limit after rounding: the figure the mesh has */
		m = c->bw_bps > 0 ? IX_BAD_BW : IX_BAD_LAT;
	return m;
}

struct saved_reason {
	size_t cell;
	const char *reason; /* the document's; NULL: none */
};

static int by_cell(const void *a, const void *b)
{
	const struct saved_reason *x = a, *y = b;

	return (x->cell > y->cell) - (x->cell < y->cell);
}

static int read_bad_pairs(json_t *res, struct ix_member_hosts *hs, struct ix_mesh_saved *s,
			  struct ix_err *err)
{
	struct ix_mesh_result *r = &s->r;
	struct saved_reason *v;
	json_t *bad, *bp;
	size_t i, n;

	if (ix_member_array(res, "", "bad_pairs", (size_t)r->n * (r->n - 1), &bad, err) < 0)
		return -1;
	n = json_array_size(bad);
	v = calloc(n ? n : 1, sizeof(*v));
	s->reasons = calloc(n ? n : 1, sizeof(*s->reasons));
	if (!v || !s->reasons) {
		free(v);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	r->findings.bad_pairs = n; /* the entries of reasons, for freeing */
	json_array_foreach(bad, i, bp)
	{
		uint32_t a, b;
		struct ix_cell c;
		bool retested = false;
		char at[32];

		snprintf(at, sizeof(at), "bad_pairs[%zu]", i);
		if (!json_is_object(bp)) {
			free(v);
			return ix_member_bad_type(err, at, "", "an object", bp);
		}
		if (ix_member_host_of(hs, bp, at, "from", false, &a, err) < 0 ||
		    ix_member_host_of(hs, bp, at, "to", false, &b, err) < 0 ||
		    ix_member_bool(bp, at, "retested", &retested, err) < 0 ||
		    ix_member_str(bp, at, "reason", IX_MEMBER_NULLABLE, &v[i].reason, err) < 0) {
			free(v);
			return -1;
		}
		c = ix_cells_get(&r->cells, a, b);
		if (c.state != IX_CELL_OK || a == b || c.bad) {
			free(v);
			return ix_fail(err, IX_EXIT_FAIL, "%s: %s", at,
				       a == b  ? "a host paired with itself"
				       : c.bad ? "the pair is listed twice"
					       : "the pair was not measured (its state is not ok)");
		}
		c.bad = bad_mask(&c, &r->findings);
		c.retested = retested;
		ix_cells_set(&r->cells, a, b, &c);
		v[i].cell = (size_t)a * r->n + b;
	}
	qsort(v, n, sizeof(*v), by_cell);
	for (i = 0; i < n; i++)
		if (v[i].reason && !(s->reasons[i] = ix_member_strdup(v[i].reason))) {
			free(v);
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		}
	free(v);
	return 0;
}

static int read_suspects_failures(json_t *res, struct ix_member_hosts *hs, struct ix_mesh_saved *s,
				  struct ix_err *err)
{
	struct ix_mesh_result *r = &s->r;
	json_t *sus, *fails, *x;
	bool *seen;
	size_t i;

	if (ix_member_array(res, "", "suspects", r->n, &sus, err) < 0 ||
	    ix_member_array(res, "", "failures", IX_MESH_MAX_FAILURES, &fails, err) < 0)
		return -1;
	r->findings.suspects = calloc(json_array_size(sus) + 1, sizeof(*r->findings.suspects));
	r->failures = calloc(json_array_size(fails) + 1, sizeof(*r->failures));
	seen = calloc(r->n, sizeof(*seen));
	if (!r->findings.suspects || !r->failures || !seen) {
		free(seen);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	json_array_foreach(sus, i, x)
	{
		uint32_t k;
		char at[32];

		snprintf(at, sizeof(at), "suspects[%zu]", i);
		if (ix_member_host_of(hs, x, at, "", false, &k, err) < 0 ||
		    (seen[k] && ix_fail(err, IX_EXIT_FAIL, "%s: a host listed twice", at) < 0)) {
			free(seen);
			return -1;
		}
		seen[k] = true;
		r->findings.suspects[i] = k;
		r->findings.nsuspects = i + 1;
	}
	free(seen);
	json_array_foreach(fails, i, x)
	{
		struct ix_mesh_failure *fl = &r->failures[i];
		char at[32];

		snprintf(at, sizeof(at), "failures[%zu]", i);
		if (!json_is_object(x))
			return ix_member_bad_type(err, at, "", "an object", x);
		if (ix_member_host_of(hs, x, at, "from", false, &fl->a, err) < 0 ||
		    ix_member_host_of(hs, x, at, "to", false, &fl->b, err) < 0 ||
		    ix_member_text(x, at, "error", IX_MEMBER_REQUIRED, fl->error, sizeof(fl->error),
				   err) < 0)
			return -1;
		r->nfailures = (uint32_t)i + 1;
	}
	return 0;
}

/* The findings the renderer shows: the document's figures and rules, and
 * the count of pairs the latency baseline is taken over (not written: the
 * measured pairs with a latency). */
static int read_findings(json_t *res, struct ix_mesh_saved *s, struct ix_err *err)
{
	struct ix_mesh_result *r = &s->r;
	struct ix_mesh_findings *f = &r->findings;
	const struct ix_mesh_rules *rules = &r->params.rules;

	if (ix_member_num(res, "", "median_bw_bps", IX_MEMBER_NULLABLE, 0, DBL_MAX,
			  &f->median_bw_bps, err) < 0 ||
	    ix_member_num(res, "", "min_lat_ns", IX_MEMBER_NULLABLE, 0, DBL_MAX, &f->min_lat_ns,
			  err) < 0 ||
	    ix_member_num(res, "", "lat_baseline_ns", IX_MEMBER_NULLABLE, 0, DBL_MAX,
			  &f->lat_baseline_ns, err) < 0)
		return -1;
	f->bw_fraction = rules->bw_fraction > 0 ? rules->bw_fraction : 0.7;
	f->lat_factor = rules->lat_factor > 0 ? rules->lat_factor : 2.0;
	f->lat_percentile = rules->lat_percentile > 0 ? rules->lat_percentile : 50;
	f->min_bw_bps = rules->min_bw_bps;
	f->max_lat_ns = rules->max_lat_ns;
	for (uint32_t a = 0; a < r->n; a++)
		for (uint32_t b = 0; b < r->n; b++) {
			struct ix_cell c = ix_cells_get(&r->cells, a, b);

			if (a == b || c.state != IX_CELL_OK)
				continue;
			/* A measured pair without a latency, when latency was
			 * asked: its test ran and no round trip came back. */
			c.lat_lost = (r->params.tests & IX_MESH_LAT) && !(c.lat_p50_ns > 0);
			ix_cells_set(&r->cells, a, b, &c);
			f->lat_pairs += c.lat_p50_ns > 0;
			f->zero_pairs += c.bw_zero;
			f->lost_pairs += c.lat_lost;
		}
	return 0;
}

static int read_mesh(json_t *res, struct ix_mesh_saved *s, struct ix_member_hosts *hs,
		     struct ix_err *err)
{
	struct ix_mesh_result *r = &s->r;
	json_t *hosts, *m, *mats[4], *h;
	size_t i;

	if (!json_is_object(res))
		return ix_member_bad_type(err, "the mesh", "", "an object", res);
	if (ix_member_array(res, "", "hosts", IX_HOSTLIST_MAX, &hosts, err) < 0)
		return -1;
	if (json_array_size(hosts) < 2)
		return ix_fail(err, IX_EXIT_FAIL, "hosts has %zu entries; a mesh has 2 at least",
			       json_array_size(hosts));
	json_array_foreach(hosts, i, h)
	{
		char at[32];
		const char *name;

		snprintf(at, sizeof(at), "hosts[%zu]", i);
		if (ix_member_str(h, at, "", IX_MEMBER_REQUIRED, &name, err) < 0)
			return -1;
		if (json_object_get(hs->index, name))
			return ix_fail(err, IX_EXIT_FAIL, "%s: a host listed twice", at);
		if (ix_member_host_add(hs, name, at, err) < 0)
			return -1;
	}
	r->n = (uint32_t)json_array_size(hosts);
	if (ix_member_object(res, "", "matrix", &m, err) < 0 ||
	    matrix_shape(m, r->n, mats, err) < 0)
		return -1;
	r->nodes = calloc(r->n, sizeof(*r->nodes));
	r->node_error = calloc(r->n, sizeof(*r->node_error));
	if (ix_cells_init(&r->cells, r->n,
			  ix_cells_mode_for(r->n, IX_CELLS_PAIR, state_at, mats[3])) < 0 ||
	    !r->nodes || !r->node_error)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory (a mesh of %u hosts)", r->n);
	if (read_cells(r, mats, err) < 0 || read_mesh_params(res, s, err) < 0 ||
	    read_findings(res, s, err) < 0 || read_nodes(res, hosts, s, err) < 0 ||
	    read_bad_pairs(res, hs, s, err) < 0 || read_suspects_failures(res, hs, s, err) < 0 ||
	    read_mesh_counters(res, s, err) < 0)
		return -1;
	return 0;
}

int ix_json_read_mesh(json_t *res, struct ix_mesh_saved *out, struct ix_err *err)
{
	struct ix_member_hosts hs = { &out->hosts, json_object() };
	int rc;

	memset(out, 0, sizeof(*out));
	out->r.hosts = &out->hosts;
	rc = hs.index ? read_mesh(res, out, &hs, err) : ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (rc == 0)
		rc = ix_json_read_wire(json_object_get(res, "wire"), &out->r.wire, err);
	json_decref(hs.index);
	if (rc < 0)
		ix_mesh_saved_free(out);
	return rc;
}

void ix_mesh_saved_free(struct ix_mesh_saved *s)
{
	for (size_t i = 0; s->reasons && i < s->r.findings.bad_pairs; i++)
		free(s->reasons[i]);
	free(s->reasons);
	ix_mesh_result_free(&s->r);
	ix_hostlist_free(&s->hosts);
	memset(s, 0, sizeof(*s));
	s->r.hosts = &s->hosts;
}

/* ---- incast ----------------------------------------------------------------------- */

static int read_incast_params(json_t *res, struct ix_incast_saved *s, struct ix_err *err)
{
	struct ix_incast_params *p = &s->r.params;
	const char *mode;
	json_t *o;
	uint64_t rate;

	if (ix_member_str(res, "", "mode", IX_MEMBER_REQUIRED, &mode, err) < 0)
		return -1;
	if (strcmp(mode, "stream") == 0)
		p->mode = IX_INCAST_STREAM;
	else if (strcmp(mode, "read") == 0)
		p->mode = IX_INCAST_READ;
	else
		return ix_fail(err, IX_EXIT_FAIL, "mode is neither stream nor read");
	if (ix_member_object(res, "", "params", &o, err) < 0 ||
	    ix_member_text(o, "params", "path", IX_MEMBER_REQUIRED, s->path, sizeof(s->path), err) <
		    0 ||
	    ix_member_count(o, "params", "msg_size", IX_MEMBER_REQUIRED, INT64_MAX, &p->bw.msg_size,
			    err) < 0 ||
	    ix_member_num(o, "params", "duration_s", IX_MEMBER_REQUIRED, 0, 1e9, &p->bw.duration_s,
			  err) < 0 ||
	    ix_member_num(o, "params", "warmup_s", IX_MEMBER_REQUIRED, 0, 1e9, &p->bw.warmup_s,
			  err) < 0 ||
	    ix_member_count(o, "params", "rate_bps", IX_MEMBER_NULLABLE, INT64_MAX, &rate, err) <
		    0 ||
	    ix_member_count(o, "params", "sru", IX_MEMBER_REQUIRED, INT64_MAX, &p->read.sru, err) <
		    0 ||
	    ix_member_u32(o, "params", "rounds", &p->read.rounds, err) < 0 ||
	    ix_member_u32(o, "params", "warmup_rounds", &p->read.warmup_rounds, err) < 0 ||
	    ix_member_num(o, "params", "round_timeout_s", IX_MEMBER_REQUIRED, 0, 1e9,
			  &p->read.timeout_s, err) < 0)
		return -1;
	p->bw.rate_bps = rate;
	p->bw.path = s->path;
	p->read.path = s->path;
	p->receiver = 0;
	return ix_member_bool(res, "", "complete", &s->r.complete, err) < 0 ||
			       ix_member_text(res, "", "diagnosis", IX_MEMBER_REQUIRED,
					      s->r.diagnosis, sizeof(s->r.diagnosis), err) < 0 ||
			       read_link(res, "", "receiver_link", &s->r.receiver_link, err) < 0 ||
			       ix_json_read_wire(json_object_get(res, "wire"), &s->r.wire, err) < 0
		       ? -1
		       : 0;
}

static int read_flows(json_t *st, const char *where, struct ix_member_hosts *hs,
		      struct ix_incast_step *step, struct ix_err *err)
{
	json_t *flows, *fl;
	size_t i;

	if (ix_member_num(st, where, "jain", IX_MEMBER_REQUIRED, 0, 1e6, &step->jain, err) < 0 ||
	    ix_member_array(st, where, "flows", IX_HOSTLIST_MAX, &flows, err) < 0)
		return -1;
	step->flows = calloc(json_array_size(flows) + 1, sizeof(*step->flows));
	if (!step->flows)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(flows, i, fl)
	{
		struct ix_incast_flow *f = &step->flows[i];
		json_t *loss;
		char at[64];

		snprintf(at, sizeof(at), "%s.flows[%zu]", where, i);
		if (!json_is_object(fl))
			return ix_member_bad_type(err, at, "", "an object", fl);
		loss = json_object_get(fl, "loss_percent");
		f->loss_percent.valid = loss && !json_is_null(loss);
		if (ix_member_host_of(hs, fl, at, "host", true, &f->host, err) < 0 ||
		    ix_member_bool(fl, at, "ok", &f->ok, err) < 0 ||
		    ix_member_num(fl, at, "bps", IX_MEMBER_REQUIRED, 0, DBL_MAX, &f->bps, err) <
			    0 ||
		    ix_member_opt_u64(fl, at, "retransmits", &f->retransmits, err) < 0 ||
		    ix_member_num(fl, at, "loss_percent", IX_MEMBER_NULLABLE, 0, 100,
				  &f->loss_percent.v, err) < 0 ||
		    ix_member_text(fl, at, "error", IX_MEMBER_NULLABLE, f->error, sizeof(f->error),
				   err) < 0)
			return -1;
		step->nflows = (uint32_t)i + 1;
	}
	return 0;
}

static int read_round_figures(json_t *st, const char *where, struct ix_read_figures *rf,
			      struct ix_err *err)
{
	json_t *o, *rt;
	char at[64];

	snprintf(at, sizeof(at), "%s.read", where);
	if (ix_member_object(st, where, "read", &o, err) < 0 ||
	    ix_member_count(o, at, "rounds", IX_MEMBER_REQUIRED, INT64_MAX, &rf->rounds, err) < 0 ||
	    ix_member_count(o, at, "bytes", IX_MEMBER_REQUIRED, INT64_MAX, &rf->bytes, err) < 0 ||
	    ix_member_num(o, at, "seconds", IX_MEMBER_REQUIRED, 0, 1e12, &rf->seconds, err) < 0 ||
	    ix_member_num(o, at, "goodput_bps", IX_MEMBER_REQUIRED, 0, DBL_MAX, &rf->goodput_bps,
			  err) < 0 ||
	    ix_member_count(o, at, "rto_rounds", IX_MEMBER_REQUIRED, INT64_MAX, &rf->rto_rounds,
			    err) < 0 ||
	    ix_member_count(o, at, "slow_rounds", IX_MEMBER_REQUIRED, INT64_MAX, &rf->slow_rounds,
			    err) < 0 ||
	    ix_member_count(o, at, "stalled_rounds", IX_MEMBER_REQUIRED, INT64_MAX,
			    &rf->stalled_rounds, err) < 0 ||
	    ix_member_opt_u64(o, at, "retransmits", &rf->retransmits, err) < 0)
		return -1;
	rt = json_object_get(o, "round_ns");
	if (!rt || json_is_null(rt))
		return 0;
	snprintf(at, sizeof(at), "%s.read.round_ns", where);
	if (!json_is_object(rt))
		return ix_member_bad_type(err, at, "", "an object or null", rt);
	if (ix_member_count(rt, at, "min", IX_MEMBER_REQUIRED, INT64_MAX, &rf->round.min, err) <
		    0 ||
	    ix_member_count(rt, at, "p50", IX_MEMBER_REQUIRED, INT64_MAX, &rf->round.p50, err) <
		    0 ||
	    ix_member_count(rt, at, "p99", IX_MEMBER_REQUIRED, INT64_MAX, &rf->round.p99, err) <
		    0 ||
	    ix_member_count(rt, at, "max", IX_MEMBER_REQUIRED, INT64_MAX, &rf->round.max, err) <
		    0 ||
	    ix_member_num(rt, at, "mean", IX_MEMBER_REQUIRED, 0, DBL_MAX, &rf->round.mean, err) < 0)
		return -1;
	rf->round.valid = true;
	return 0;
}

static int read_steps(json_t *res, struct ix_member_hosts *hs, struct ix_incast_saved *s,
		      struct ix_err *err)
{
	struct ix_incast_result *r = &s->r;
	json_t *steps, *st;
	size_t i;

	if (ix_member_array(res, "", "steps", MAX_STEPS, &steps, err) < 0)
		return -1;
	r->steps = calloc(json_array_size(steps) + 1, sizeof(*r->steps));
	if (!r->steps)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(steps, i, st)
	{
		struct ix_incast_step *step = &r->steps[i];
		char at[32];

		r->nsteps = (uint32_t)i + 1; /* this one's flows are freed with it */
		snprintf(at, sizeof(at), "steps[%zu]", i);
		if (!json_is_object(st))
			return ix_member_bad_type(err, at, "", "an object", st);
		if (ix_member_u32(st, at, "senders", &step->point.senders, err) < 0 ||
		    ix_member_bool(st, at, "ok", &step->ok, err) < 0 ||
		    ix_member_text(st, at, "error", IX_MEMBER_NULLABLE, step->error,
				   sizeof(step->error), err) < 0 ||
		    ix_member_num(st, at, "goodput_bps", IX_MEMBER_REQUIRED, 0, DBL_MAX,
				  &step->point.goodput_bps, err) < 0 ||
		    ix_member_count(st, at, "retransmits", IX_MEMBER_REQUIRED, INT64_MAX,
				    &step->point.retransmits, err) < 0 ||
		    ix_member_count(st, at, "rounds", IX_MEMBER_REQUIRED, INT64_MAX,
				    &step->point.rounds, err) < 0 ||
		    ix_member_count(st, at, "stalled_rounds", IX_MEMBER_REQUIRED, INT64_MAX,
				    &step->point.stalled_rounds, err) < 0)
			return -1;
		if (json_object_get(st, "counters")) {
			json_t *c = json_object_get(st, "counters");
			char cat[48];

			snprintf(cat, sizeof(cat), "%s.counters", at);
			if (counter_sum(c, cat, "senders", &step->point.at_senders, err) < 0 ||
			    counter_sum(c, cat, "receiver", &step->point.at_receiver, err) < 0)
				return -1;
			step->point.counters = true;
		}
		if (r->params.mode == IX_INCAST_STREAM
			    ? read_flows(st, at, hs, step, err) < 0
			    : read_round_figures(st, at, &step->read, err) < 0)
			return -1;
		step->read.senders = step->point.senders;
	}
	return 0;
}

/* The thresholds and what missed them (absent or null: none given). */
static int read_thresholds(json_t *res, struct ix_incast_result *r, struct ix_err *err)
{
	struct ix_incast_limits *l = &r->params.limits;
	json_t *t = json_object_get(res, "thresholds"), *failed, *x;
	double stalled = -1;
	size_t i;

	if (!t || json_is_null(t))
		return 0;
	if (!json_is_object(t))
		return ix_member_bad_type(err, "thresholds", "", "an object", t);
	if (ix_member_num(t, "thresholds", "min_goodput_bps", IX_MEMBER_NULLABLE, 0, DBL_MAX,
			  &l->min_goodput_bps, err) < 0 ||
	    ix_member_num(t, "thresholds", "min_jain", IX_MEMBER_NULLABLE, 0, 1, &l->min_jain,
			  err) < 0 ||
	    ix_member_array(t, "thresholds", "failed", IX_INCAST_MAX_FAILED, &failed, err) < 0)
		return -1;
	if (json_is_integer(json_object_get(t, "max_stalled")))
		stalled = (double)json_integer_value(json_object_get(t, "max_stalled"));
	l->have_max_stalled = stalled >= 0;
	l->max_stalled = stalled >= 0 ? (uint64_t)stalled : 0;
	r->judged = true;
	json_array_foreach(failed, i, x)
	{
		char at[48];

		snprintf(at, sizeof(at), "thresholds.failed[%zu]", i);
		if (ix_member_text(x, at, "", IX_MEMBER_REQUIRED, r->failed[i],
				   sizeof(r->failed[i]), err) < 0)
			return -1;
		r->nfailed = (uint32_t)i + 1;
	}
	return 0;
}

int ix_json_read_incast(json_t *res, struct ix_incast_saved *out, struct ix_err *err)
{
	struct ix_member_hosts hs = { &out->hosts, json_object() };
	uint32_t receiver;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->r.hosts = &out->hosts;
	if (!hs.index)
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
	else if (!json_is_object(res))
		rc = ix_member_bad_type(err, "the incast", "", "an object", res);
	else if (ix_member_host_of(&hs, res, "", "receiver", true, &receiver, err) == 0 &&
		 read_incast_params(res, out, err) == 0 && read_steps(res, &hs, out, err) == 0 &&
		 read_thresholds(res, &out->r, err) == 0)
		rc = 0;
	json_decref(hs.index);
	if (rc < 0)
		ix_incast_saved_free(out);
	return rc;
}

void ix_incast_saved_free(struct ix_incast_saved *s)
{
	ix_incast_result_free(&s->r);
	ix_hostlist_free(&s->hosts);
	memset(s, 0, sizeof(*s));
	s->r.hosts = &s->hosts;
}
