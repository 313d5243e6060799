/* A traffic pattern's result read back (read.h): its tests and each host's
 * link and counters, judged again as the run judged them. */
#include "config.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "probes/core/link.h"
#include "report/json/members.h"
#include "report/json/read.h"

static int read_params(json_t *res, struct ix_pattern_saved *s, struct ix_err *err)
{
	struct ix_mesh_params *p = &s->r.params;
	const char *name;
	json_t *o;
	uint64_t seed = 0;

	if (ix_member_str(res, "", "pattern", IX_MEMBER_REQUIRED, &name, err) < 0 ||
	    ix_pattern_parse(name, &s->r.pattern, err) < 0)
		return ix_fail_prefix(err, "pattern");
	if (s->r.pattern == IX_PATTERN_ALL_PAIRS)
		return ix_fail(err, IX_EXIT_FAIL, "pattern: all-pairs is a mesh result");
	if (ix_member_u32(res, "", "rounds", &s->r.rounds, err) < 0 ||
	    ix_member_count(res, "", "seed", IX_MEMBER_NULLABLE, UINT64_MAX, &seed, err) < 0 ||
	    ix_member_bool(res, "", "both_directions", &p->both_directions, err) < 0 ||
	    ix_member_bool(res, "", "counters_read", &s->r.counters_any, err) < 0 ||
	    ix_member_object(res, "", "params", &o, err) < 0 ||
	    ix_member_text(o, "params", "path", IX_MEMBER_REQUIRED, s->path, sizeof(s->path), err) <
		    0 ||
	    ix_member_num(o, "params", "duration_s", IX_MEMBER_REQUIRED, 0, 1e9, &p->bw.duration_s,
			  err) < 0 ||
	    ix_member_num(o, "params", "warmup_s", IX_MEMBER_REQUIRED, 0, 1e9, &p->bw.warmup_s,
			  err) < 0 ||
	    ix_member_num(o, "params", "bad_fraction", IX_MEMBER_REQUIRED, 0, 1,
			  &p->rules.bw_fraction, err) < 0 ||
	    ix_member_num(res, "", "wall_s", IX_MEMBER_REQUIRED, 0, 1e12, &s->r.wall_s, err) < 0 ||
	    ix_member_num(res, "", "estimate_s", IX_MEMBER_NULLABLE, 0, 1e12, &s->r.estimate_s,
			  err) < 0)
		return -1;
	s->r.seed = seed;
	p->bw.path = s->path;
	return 0;
}

static int read_tests(json_t *res, struct ix_member_hosts *hs, struct ix_pattern_saved *s,
		      struct ix_err *err)
{
	json_t *tests, *t;
	size_t i;

	/* all-to-all's n (n - 1), or a permutation's n per round */
	if (ix_member_array(res, "", "tests",
			    (size_t)s->r.n * (s->r.n + 2 * (size_t)IX_PATTERN_MAX_ROUNDS) + 8,
			    &tests, err) < 0)
		return -1;
	s->r.tests = calloc(json_array_size(tests) + 1, sizeof(*s->r.tests));
	if (!s->r.tests)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(tests, i, t)
	{
		struct ix_pattern_test *x = &s->r.tests[i];
		char at[48];

		snprintf(at, sizeof(at), "tests[%zu]", i);
		if (ix_member_u32(t, at, "round", &x->stage, err) < 0 ||
		    ix_member_host_of(hs, t, at, "from", false, &x->a, err) < 0 ||
		    ix_member_host_of(hs, t, at, "to", false, &x->b, err) < 0 ||
		    ix_member_bool(t, at, "ok", &x->ok, err) < 0 ||
		    ix_member_num(t, at, "bps", IX_MEMBER_NULLABLE, 0, DBL_MAX, &x->bps, err) < 0 ||
		    ix_member_count(t, at, "bytes", IX_MEMBER_REQUIRED, INT64_MAX, &x->bytes, err) <
			    0 ||
		    ix_member_text(t, at, "error", IX_MEMBER_NULLABLE, x->error, sizeof(x->error),
				   err) < 0)
			return -1;
		if (x->stage >= s->r.rounds)
			return ix_fail(err, IX_EXIT_FAIL, "%s.round is %u of %u rounds", at,
				       x->stage, s->r.rounds);
		s->r.ntests++;
	}
	return 0;
}

static int read_nodes(json_t *res, struct ix_pattern_saved *s, struct ix_err *err)
{
	json_t *nodes, *nd, *v;
	size_t i;

	if (ix_member_per_host(res, "nodes", s->r.n, &nodes, err) < 0)
		return -1;
	json_array_foreach(nodes, i, nd)
	{
		struct ix_pattern_host *h = &s->r.host[i];
		char at[48];

		snprintf(at, sizeof(at), "nodes[%zu]", i);
		if (ix_member_bool(nd, at, "sat_out", &h->sat_out, err) < 0 ||
		    ix_member_text(nd, at, "error", IX_MEMBER_NULLABLE, h->error, sizeof(h->error),
				   err) < 0)
			return -1;
		if (ix_link_parse(json_object_get(nd, "link"), &h->link, err) < 0)
			return ix_fail_prefix(err, "%s.link", at);
		v = json_object_get(nd, "counters");
		h->counters_read = v && !json_is_null(v);
		if (h->counters_read && ix_ctr_sum_parse(v, &h->counters) < 0)
			return ix_fail(err, IX_EXIT_FAIL, "%s.counters is not a count per class",
				       at);
	}
	return 0;
}

static int read_halves(json_t *res, struct ix_pattern_saved *s, struct ix_err *err)
{
	json_t *o, *order, *v;
	size_t i;

	for (uint32_t k = 0; k < s->r.n; k++)
		s->r.order[k] = k;
	if (s->r.pattern != IX_PATTERN_BISECTION)
		return 0;
	if (ix_member_object(res, "", "halves", &o, err) < 0 ||
	    ix_member_text(o, "halves", "split", IX_MEMBER_REQUIRED, s->r.split, sizeof(s->r.split),
			   err) < 0 ||
	    ix_member_array(o, "halves", "order", s->r.n, &order, err) < 0)
		return -1;
	if (json_array_size(order) != s->r.n)
		return ix_fail(err, IX_EXIT_FAIL, "halves.order has %zu entries for %u hosts",
			       json_array_size(order), s->r.n);
	json_array_foreach(order, i, v)
	{
		json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;

		if (x < 0 || x >= (json_int_t)s->r.n)
			return ix_fail(err, IX_EXIT_FAIL, "halves.order[%zu] is not a host index",
				       i);
		s->r.order[i] = (uint32_t)x;
	}
	return 0;
}

int ix_json_read_pattern(json_t *res, struct ix_pattern_saved *out, struct ix_err *err)
{
	struct ix_member_hosts hs = { &out->hosts, json_object() };
	json_t *hosts, *h;
	size_t i;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->r.hosts = &out->hosts;
	if (!hs.index) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto out;
	}
	if (ix_member_array(res, "", "hosts", IX_HOSTLIST_MAX, &hosts, err) < 0)
		goto out;
	json_array_foreach(hosts, i, h)
	{
		char at[32];

		snprintf(at, sizeof(at), "hosts[%zu]", i);
		if (!json_is_string(h)) {
			ix_member_bad_type(err, "", at, "a string", h);
			goto out;
		}
		if (ix_member_host_add(&hs, json_string_value(h), at, err) < 0)
			goto out;
	}
	out->r.n = (uint32_t)out->hosts.n;
	out->r.host = calloc(out->r.n + 1, sizeof(*out->r.host));
	out->r.order = calloc(out->r.n + 1, sizeof(*out->r.order));
	if (!out->r.host || !out->r.order) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto out;
	}
	if (read_params(res, out, err) < 0 || read_tests(res, &hs, out, err) < 0 ||
	    read_nodes(res, out, err) < 0 || read_halves(res, out, err) < 0)
		goto out;
	if (ix_pattern_judge(&out->r) < 0) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto out;
	}
	rc = 0;
out:
	json_decref(hs.index);
	if (rc < 0)
		ix_pattern_saved_free(out);
	return rc;
}

void ix_pattern_saved_free(struct ix_pattern_saved *s)
{
	ix_pattern_result_free(&s->r);
	ix_hostlist_free(&s->hosts);
	s->path[0] = '\0';
	s->r.hosts = &s->hosts;
}
