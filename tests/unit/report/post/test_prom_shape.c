/* Unit tests for report/post/prom_shape.c: the Prometheus series of
 * mesh --pattern and mesh --rails documents (saved from real runs over
 * network namespaces, tests/data), every figure read back against the
 * document's own. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/report/post/exposition.h"

static json_t *first_result(json_t *doc)
{
	return json_array_get(json_object_get(doc, "results"), 0);
}

/* Every host's figure, reference and bad flag, and the summary, are the
 * document's (bytes per second: its bit/s / 8). */
static void pattern_reads_back(const char *file)
{
	struct ix_post_msg m;
	size_t n;
	json_t *doc = load(file), *r = first_result(doc), *nd;
	struct sample *s = parse_body(body_pairs(file, false, &m), &n);
	const char *pat = json_string_value(json_object_get(r, "pattern"));
	size_t i;

	cr_expect_eq(value(s, n, "ixperf_pattern_nodes", L("pattern", pat)),
		     json_array_size(json_object_get(r, "hosts")));
	cr_expect_eq(value(s, n, "ixperf_pattern_bad_nodes", L("pattern", pat)),
		     num(r, "bad_hosts"));
	cr_expect_eq(value(s, n, "ixperf_pattern_tests", L("state", "planned")),
		     json_array_size(json_object_get(r, "tests")));
	cr_expect_eq(value(s, n, "ixperf_pattern_tests", L("state", "failed")),
		     num(r, "tests_failed"));
	cr_expect_eq(value(s, n, "ixperf_pattern_median_bandwidth_bytes_per_second", NULL),
		     num(r, "median_bps") / 8);
	json_array_foreach(json_object_get(r, "nodes"), i, nd)
	{
		const char *h = json_string_value(json_object_get(nd, "host"));
		const char *against = json_string_value(json_object_get(nd, "against"));

		cr_expect_eq(value(s, n, "ixperf_pattern_node_bandwidth_bytes_per_second",
				   L("node", h, "pattern", pat, "check", "mesh")),
			     num(nd, "figure_bps") / 8, "%s", h);
		cr_expect_eq(value(s, n, "ixperf_pattern_node_reference_bandwidth_bytes_per_second",
				   L("node", h, "against", against)),
			     num(nd, "against_bps") / 8, "%s", h);
		cr_expect_eq(value(s, n, "ixperf_pattern_node_bad", L("node", h)),
			     json_is_true(json_object_get(nd, "bad")), "%s", h);
		cr_expect_eq(value(s, n, "ixperf_node_failed", L("node", h)), 0, "%s", h);
	}
	cr_expect_eq(count(s, n, "ixperf_bandwidth_bytes_per_second", "pattern", pat), 0,
		     "no per-pair series unless asked");
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}

Test(prom_shape, bisection_hosts_cut_and_oversubscription)
{
	struct ix_post_msg m;
	size_t n;
	json_t *doc = load("pattern-bisection.json"), *r = first_result(doc), *nd;
	struct sample *s = parse_body(body_pairs("pattern-bisection.json", false, &m), &n);
	double cap = 0, sent = 0;
	size_t i;

	pattern_reads_back("pattern-bisection.json");
	cr_expect_eq(value(s, n, "ixperf_pattern_cut_bandwidth_bytes_per_second", NULL),
		     num(json_object_get(r, "halves"), "cut_bps") / 8);
	/* the verdict's "oversubscribed about N:1", from the hosts' figures */
	json_array_foreach(json_object_get(r, "nodes"), i, nd)
	{
		cap += num(nd, "against_bps");
		sent += num(nd, "sent_bps");
	}
	cr_expect_float_eq(value(s, n, "ixperf_pattern_oversubscription_ratio", NULL), cap / sent,
			   1e-12);
	cr_expect(strstr(json_string_value(json_object_get(r, "verdict")),
			 "oversubscribed about 2:1"),
		  "the document says 2:1");
	cr_expect(cap / sent > 1.5 && cap / sent < 2.5, "%g", cap / sent);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "FAIL")), 1,
		     "bad hosts: exit 4, FAIL");
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}

Test(prom_shape, ring_passes_and_has_no_cut)
{
	struct ix_post_msg m;
	size_t n;
	struct sample *s = parse_body(body_pairs("pattern-ring.json", false, &m), &n);

	pattern_reads_back("pattern-ring.json");
	cr_expect_eq(
		count(s, n, "ixperf_pattern_cut_bandwidth_bytes_per_second", "pattern", "ring"), 0);
	cr_expect_eq(count(s, n, "ixperf_pattern_oversubscription_ratio", "pattern", "ring"), 0);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "PASS")), 1);
	free(s);
	ix_post_msg_free(&m);
}

Test(prom_shape, pattern_tests_per_pair_only_when_asked)
{
	struct ix_post_msg m;
	size_t n;
	json_t *doc = load("pattern-bisection.json"), *r = first_result(doc), *t;
	struct sample *s = parse_body(body_pairs("pattern-bisection.json", true, &m), &n);
	size_t i;

	cr_expect_eq(count(s, n, "ixperf_bandwidth_bytes_per_second", "pattern", "bisection"),
		     json_array_size(json_object_get(r, "tests")));
	json_array_foreach(json_object_get(r, "tests"), i, t)
	{
		char round[16];

		snprintf(round, sizeof(round), "%d", (int)num(t, "round"));
		cr_expect_eq(value(s, n, "ixperf_bandwidth_bytes_per_second",
				   L("src", json_string_value(json_object_get(t, "from")), "dst",
				     json_string_value(json_object_get(t, "to")), "round", round)),
			     num(t, "bps") / 8);
	}
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}

/* The rails side by side, each rail's mesh told apart by a rail label,
 * and the verdict of the exit status: a bad rail is a FAIL even where no
 * pair is bad. */
Test(prom_shape, rails_per_rail_and_per_host)
{
	struct ix_post_msg m;
	size_t n;
	json_t *doc = load("rails.json"), *res = json_object_get(doc, "results");
	json_t *r = json_array_get(res, json_array_size(res) - 1), *x;
	struct sample *s = parse_body(body_pairs("rails.json", false, &m), &n);
	size_t i;

	cr_expect_eq(value(s, n, "ixperf_rails_found", NULL),
		     json_array_size(json_object_get(r, "rails")));
	cr_expect_eq(value(s, n, "ixperf_rails_bad", NULL),
		     json_array_size(json_object_get(r, "bad_rails")));
	cr_expect_eq(value(s, n, "ixperf_rails_reference_bandwidth_bytes_per_second", NULL),
		     num(r, "ref_bw_bps") / 8);
	json_array_foreach(json_object_get(r, "rails"), i, x)
	{
		const char *rail = json_string_value(json_object_get(x, "name"));
		json_t *mesh = json_array_get(res, i);

		cr_expect_eq(value(s, n, "ixperf_rail_bad", L("rail", rail)),
			     json_is_true(json_object_get(x, "bad")), "%s", rail);
		cr_expect_eq(value(s, n, "ixperf_rail_median_bandwidth_bytes_per_second",
				   L("rail", rail)),
			     num(x, "median_bw_bps") / 8, "%s", rail);
		cr_expect_eq(value(s, n, "ixperf_rail_pairs", L("rail", rail, "state", "measured")),
			     num(x, "pairs_measured"));
		/* the rail's own mesh, under its rail label */
		cr_expect_eq(value(s, n, "ixperf_mesh_median_bandwidth_bytes_per_second",
				   L("rail", rail)),
			     num(mesh, "median_bw_bps") / 8, "%s", rail);
		cr_expect_eq(value(s, n, "ixperf_mesh_bad_pairs", L("rail", rail)),
			     json_array_size(json_object_get(mesh, "bad_pairs")));
	}
	json_array_foreach(json_object_get(r, "nodes"), i, x)
	{
		const char *h = json_string_value(json_object_get(x, "host"));

		cr_expect_eq(value(s, n, "ixperf_rails_node_bandwidth_bytes_per_second",
				   L("node", h, "direction", "out")),
			     num(x, "bw_out_bps") / 8, "%s", h);
		cr_expect_eq(value(s, n, "ixperf_rails_node_bandwidth_bytes_per_second",
				   L("node", h, "direction", "in")),
			     num(x, "bw_in_bps") / 8, "%s", h);
		cr_expect_eq(value(s, n, "ixperf_rails_node_rails", L("node", h)), num(x, "rails"));
	}
	cr_expect(json_array_size(json_object_get(r, "bad_rails")) > 0);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "FAIL")), 1);
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}
