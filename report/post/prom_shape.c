/* The Prometheus series of mesh --pattern and mesh --rails documents: a
 * pattern's figure per host against its reference and its summary (bad
 * hosts, for a bisection what crossed the cut), the rails side by side
 * and each host's all-rail throughput. A rail's own mesh is a mesh result
 * (prom.c) with a rail label. Builders only: no I/O. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/post/jdoc.h"
#include "report/post/prom_shape.h"

/* The hosts' line rates summed over what they sent across the cut; false
 * unless every judged host is held to its line rate. */
static bool oversubscription(json_t *nodes, double *ratio)
{
	double cap = 0, sent = 0, a, s;
	json_t *nd;
	size_t i;

	json_array_foreach(nodes, i, nd)
	{
		if (!json_is_string(json_object_get(nd, "against")))
			continue; /* not judged */
		if (strcmp(jstr(nd, "against"), "line_rate") != 0 || !jnum(nd, "against_bps", &a) ||
		    !jnum(nd, "sent_bps", &s))
			return false;
		cap += a;
		sent += s;
	}
	if (cap <= 0 || sent <= 0)
		return false;
	*ratio = cap / sent;
	return true;
}

/* --post-pairs: every test's figure, src to dst in its round. */
static void pattern_tests(const struct ix_expo_where *w, json_t *r, const char *pat,
			  const char *path, const char *size)
{
	json_t *t;
	size_t i;
	double v;

	json_array_foreach(json_object_get(r, "tests"), i, t)
	{
		char round[32];
		const char *kv[] = { "check", w->check, "pattern",       pat,   "path",
				     path,    "src",    jstr(t, "from"), "dst", jstr(t, "to"),
				     "size",  size,     "round",         round, NULL };

		snprintf(round, sizeof(round), "%lld",
			 (long long)json_integer_value(json_object_get(t, "round")));
		if (jnum(t, "bps", &v))
			ix_expo_put(w->x, F_BW, v / 8, kv);
	}
}

void ix_expo_pattern(const struct ix_expo_where *w, json_t *r)
{
	json_t *p = json_object_get(r, "params"), *nodes = json_object_get(r, "nodes"), *nd;
	const char *pat = jstr(r, "pattern"), *path = jstr(p, "path");
	const char *ck[] = { "check", w->check, "pattern", pat, "path", path, NULL };
	char size[32];
	size_t i;
	double v;

	snprintf(size, sizeof(size), "%lld",
		 (long long)json_integer_value(json_object_get(p, "msg_size")));
	ix_expo_put(w->x, F_PAT_NODES, (double)json_array_size(json_object_get(r, "hosts")), ck);
	if (jnum(r, "bad_hosts", &v))
		ix_expo_put(w->x, F_PAT_BAD, v, ck);
	for (int k = 0; k < 2; k++) {
		const char *kv[] = { "check", w->check, "pattern",
				     pat,     "state",  k ? "failed" : "planned",
				     NULL };

		if (k ? jnum(r, "tests_failed", &v)
		      : (v = (double)json_array_size(json_object_get(r, "tests")), true))
			ix_expo_put(w->x, F_PAT_TESTS, v, kv);
	}
	if (jnum(r, "median_bps", &v))
		ix_expo_put(w->x, F_PAT_MEDIAN, v / 8, ck);
	if (jnum(json_object_get(r, "halves"), "cut_bps", &v)) {
		ix_expo_put(w->x, F_PAT_CUT, v / 8, ck);
		if (oversubscription(nodes, &v))
			ix_expo_put(w->x, F_PAT_OVERSUB, v, ck);
	}
	json_array_foreach(nodes, i, nd)
	{
		const char *kn[] = { "check", w->check, "pattern",        pat, "path",
				     path,    "node",   jstr(nd, "host"), NULL };
		const char *kr[] = {
			"check",          w->check,  "pattern",           pat, "path", path, "node",
			jstr(nd, "host"), "against", jstr(nd, "against"), NULL
		};

		if (jnum(nd, "figure_bps", &v))
			ix_expo_put(w->x, F_PAT_NODE_BW, v / 8, kn);
		if (jnum(nd, "against_bps", &v))
			ix_expo_put(w->x, F_PAT_NODE_REF, v / 8, kr);
		ix_expo_put(w->x, F_PAT_NODE_BAD, json_is_true(json_object_get(nd, "bad")), kn);
		ix_expo_put(w->x, F_NODE_FAILED, jstr(nd, "error") != NULL, kn);
	}
	if (w->pairs)
		pattern_tests(w, r, pat, path, size);
}

static void rail_series(const struct ix_expo_where *w, json_t *rail)
{
	static const char *const states[][2] = { { "measured", "pairs_measured" },
						 { "failed", "pairs_failed" },
						 { "bad", "bad_pairs" } };
	const char *kv[] = { "check", w->check, "rail", jstr(rail, "name"), NULL };
	const char *kl[] = { "check", w->check, "rail", jstr(rail, "name"), "stat", "p50", NULL };
	double v;

	ix_expo_put(w->x, F_RAIL_BAD, json_is_true(json_object_get(rail, "bad")), kv);
	if (jnum(rail, "median_bw_bps", &v))
		ix_expo_put(w->x, F_RAIL_BW, v / 8, kv);
	if (jnum(rail, "lat_p50_ns", &v))
		ix_expo_put(w->x, F_RAIL_LAT, v / 1e9, kl);
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		const char *ks[] = { "check", w->check,     "rail", jstr(rail, "name"),
				     "state", states[i][0], NULL };

		if (jnum(rail, states[i][1], &v))
			ix_expo_put(w->x, F_RAIL_PAIRS, v, ks);
	}
}

void ix_expo_rails(const struct ix_expo_where *w, json_t *r)
{
	json_t *rails = json_object_get(r, "rails"), *x;
	const char *ck[] = { "check", w->check, NULL };
	const char *kl[] = { "check", w->check, "stat", "p50", NULL };
	size_t i;
	double v;

	ix_expo_put(w->x, F_RAILS, (double)json_array_size(rails), ck);
	ix_expo_put(w->x, F_RAILS_BAD, (double)json_array_size(json_object_get(r, "bad_rails")),
		    ck);
	if (jnum(r, "ref_bw_bps", &v))
		ix_expo_put(w->x, F_RAILS_REF_BW, v / 8, ck);
	if (jnum(r, "ref_lat_ns", &v))
		ix_expo_put(w->x, F_RAILS_REF_LAT, v / 1e9, kl);
	json_array_foreach(rails, i, x)
	{
		rail_series(w, x);
	}
	json_array_foreach(json_object_get(r, "nodes"), i, x)
	{
		const char *kn[] = { "check", w->check, "node", jstr(x, "host"), NULL };
		const char *ko[] = { "check",     w->check, "node", jstr(x, "host"),
				     "direction", "out",    NULL };
		const char *ki[] = { "check",     w->check, "node", jstr(x, "host"),
				     "direction", "in",     NULL };

		/* a host on no rail has no throughput: 0 would read as measured */
		if (!jnum(x, "rails", &v) || v <= 0) {
			ix_expo_put(w->x, F_RAILS_NODE_RAILS, 0, kn);
			continue;
		}
		ix_expo_put(w->x, F_RAILS_NODE_RAILS, v, kn);
		if (jnum(x, "bw_out_bps", &v))
			ix_expo_put(w->x, F_RAILS_NODE_BW, v / 8, ko);
		if (jnum(x, "bw_in_bps", &v))
			ix_expo_put(w->x, F_RAILS_NODE_BW, v / 8, ki);
	}
}
