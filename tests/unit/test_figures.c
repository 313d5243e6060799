/* Unit tests for report/figures.c: figures of run and single-command
 * documents (fixtures in tests/data), validation, compare verdicts and
 * tolerance edges, CSV quoting, terminal-safe text. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/data.h"

#include "report/figures.h"

static json_t *load(const char *name)
{
	struct ix_err err = { 0 };
	json_t *doc = ix_doc_load(ix_test_data(name), &err);

	cr_assert_not_null(doc, "%s: %s", name, err.msg);
	return doc;
}

static struct ix_figure *figures(const char *name, size_t *n)
{
	struct ix_err err = { 0 };
	struct ix_figure *v = NULL;
	json_t *doc = load(name);

	cr_assert_eq(ix_figures_extract(doc, &v, n, &err), 0, "%s: %s", name, err.msg);
	json_decref(doc);
	return v;
}

static struct ix_figure *figures_of(const char *text, size_t *n)
{
	struct ix_err err = { 0 };
	struct ix_figure *v = NULL;
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr);

	cr_assert_not_null(doc, "test document: %s", jerr.text);
	cr_assert_eq(ix_figures_extract(doc, &v, n, &err), 0, "%s", err.msg);
	json_decref(doc);
	return v;
}

static const struct ix_figure *get(const struct ix_figure *v, size_t n, const char *key)
{
	const struct ix_figure *f = ix_figures_find(v, n, key);

	cr_assert_not_null(f, "no figure '%s'", key);
	return f;
}

static void expect(const struct ix_figure *v, size_t n, const char *key, double value)
{
	const struct ix_figure *f = get(v, n, key);

	cr_assert(f->valid, "%s has no value", key);
	cr_assert_float_eq(f->value, value, fabs(value) * 1e-12 + 1e-12, "%s = %.17g, expected %g",
			   key, f->value, value);
}

#define ENVELOPE(cmd)                                                                         \
	"{\"schema_version\":1,\"tool\":{\"name\":\"ixperf\",\"version\":\"0\"},\"command\":" \
	"\"" cmd "\",\"time\":\"2026-01-01T00:00:00Z\",\"results\":"

/* ---- extraction --------------------------------------------------------- */

Test(figures, run_document)
{
	size_t n;
	struct ix_figure *v = figures("compare-base.json", &n);
	const struct ix_figure *f;

	/* 3 tcp-bw, 5 tcp-lat, 3 udp-bw, 5 bw-sweep, 6 mesh, 7 incast, 3 old-check */
	cr_expect_eq(n, 32, "%zu figures", n);
	f = get(v, n, "tcp-bw/headline");
	cr_expect(f->headline);
	cr_expect_str_eq(f->name, "goodput");
	cr_expect_str_eq(f->check, "tcp-bw");
	cr_expect_str_eq(f->unit, "bit/s");
	cr_expect_eq(f->better, IX_HIGHER_BETTER);
	expect(v, n, "tcp-bw/headline", 10e9);
	expect(v, n, "tcp-bw/goodput", 10e9);
	expect(v, n, "tcp-bw/retransmits", 5);
	f = get(v, n, "tcp-bw/retransmits");
	cr_expect(f->absolute && f->allowance == 10 && f->better == IX_LOWER_BETTER);
	f = get(v, n, "tcp-lat/headline");
	cr_expect_eq(f->better, IX_LOWER_BETTER);
	cr_expect_str_eq(f->unit, "ns");
	expect(v, n, "tcp-lat/p50", 20000);
	expect(v, n, "tcp-lat/p99", 50000);
	expect(v, n, "tcp-lat/p99.9", 80000);
	expect(v, n, "tcp-lat/max", 100000);
	cr_expect_eq(get(v, n, "tcp-lat/p99")->better, IX_LOWER_BETTER);
	expect(v, n, "udp-bw/goodput", 1e9);
	expect(v, n, "udp-bw/loss_percent", 0);
	cr_expect_str_eq(get(v, n, "udp-bw/loss_percent")->unit, "%");
	cr_expect_null(ix_figures_find(v, n, "udp-bw/retransmits"), "UDP has no retransmits");
	expect(v, n, "bw-sweep/goodput@1024B", 1e9);
	expect(v, n, "bw-sweep/goodput@4096B", 4e9);
	expect(v, n, "bw-sweep/retransmits@4096B", 0);
	cr_expect_null(ix_figures_find(v, n, "bw-sweep/goodput"), "a sweep keys by size");
	expect(v, n, "mesh/median_bw", 20e9);
	expect(v, n, "mesh/min_lat", 7000);
	expect(v, n, "mesh/bad_pairs", 0);
	expect(v, n, "mesh/suspects", 0);
	expect(v, n, "mesh/failed_pairs", 0);
	f = get(v, n, "mesh/bad_pairs");
	cr_expect(f->absolute && f->allowance == 0 && f->better == IX_LOWER_BETTER);
	cr_expect_str_eq(get(v, n, "mesh/headline")->name, "median pair bandwidth");
	expect(v, n, "incast/goodput@N=1", 10e9);
	expect(v, n, "incast/goodput@N=2", 18e9);
	expect(v, n, "incast/stalled_rounds@N=2", 0);
	expect(v, n, "incast/jain@N=2", 0.99);
	cr_expect_eq(get(v, n, "incast/jain@N=2")->better, IX_HIGHER_BETTER);
	expect(v, n, "old-check/goodput", 5e9);
	free(v);
}

Test(figures, single_command_documents)
{
	size_t n;
	struct ix_figure *v = figures("bw.json", &n);

	cr_expect_eq(n, 2);
	expect(v, n, "bw/goodput", 2.832092625e10);
	expect(v, n, "bw/retransmits", 2);
	cr_expect_str_eq(v[0].check, "bw");
	cr_expect_str_eq(v[0].name, "goodput");
	cr_expect(!v[0].headline);
	free(v);

	v = figures("mesh.json", &n);
	cr_expect_eq(n, 5);
	expect(v, n, "mesh/median_bw", 2.38319575e10);
	expect(v, n, "mesh/min_lat", 6805);
	expect(v, n, "mesh/bad_pairs", 0);
	free(v);

	v = figures("incast.json", &n);
	cr_expect_eq(n, 9);
	expect(v, n, "incast/goodput@N=2", 4.847057534e10);
	expect(v, n, "incast/jain@N=3", 0.9054469646);
	expect(v, n, "incast/stalled_rounds@N=3", 0);
	free(v);
}

Test(figures, keys_are_stable_between_runs)
{
	size_t nb, nn;
	struct ix_figure *b = figures("compare-base.json", &nb);
	struct ix_figure *c = figures("compare-new.json", &nn);

	for (size_t i = 0; i < nb; i++)
		if (strncmp(b[i].key, "old-check/", 10) != 0)
			cr_expect_not_null(ix_figures_find(c, nn, b[i].key), "%s missing in new",
					   b[i].key);
	free(b);
	free(c);
}

Test(figures, directions_and_lat_sweep)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("bw") "[{\"kind\":\"bw\",\"params\":{\"mode\":\"bidir\",\"msg_size\":8},"
			       "\"summary\":{\"forward\":{\"bits_per_second\":5,\"retransmits\":1},"
			       "\"reverse\":null}}]}",
		&n);

	cr_expect_eq(n, 3);
	expect(v, n, "bw/goodput", 5);
	cr_expect(!get(v, n, "bw/goodput_reverse")->valid, "expected, but null");
	free(v);

	v = figures_of(ENVELOPE("lat") "[{\"kind\":\"lat\",\"params\":{\"msg_size\":64},"
				       "\"stats\":{\"p50_ns\":1,\"p99_ns\":2,\"p99_9_ns\":3,"
				       "\"max_ns\":4}},{\"kind\":\"lat\",\"params\":{\"msg_size\":"
				       "1024},\"stats\":null}]}",
		       &n);
	cr_expect_eq(n, 8);
	expect(v, n, "lat/p99@64B", 2);
	expect(v, n, "lat/p99.9@64B", 3);
	cr_expect(!get(v, n, "lat/max@1024B")->valid);
	free(v);
}

Test(figures, repeated_keys_are_made_unique)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":["
				"{\"name\":\"dup\",\"headline\":{\"name\":\"g\",\"value\":1,"
				"\"unit\":\"bit/s\"}},"
				"{\"name\":\"dup\",\"headline\":{\"name\":\"g\",\"value\":2,"
				"\"unit\":\"bit/s\"}}]}]}",
		&n);

	cr_expect_eq(n, 2);
	expect(v, n, "dup/headline", 1);
	expect(v, n, "dup/headline#2", 2);
	free(v);
}

Test(figures, long_names_are_cut_on_characters)
{
	char doc[4096], name[401] = "";
	size_t n;
	struct ix_figure *v;
	json_t *s;

	for (int i = 0; i < 100; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 3); /* 200 bytes of 'é' */
	snprintf(doc, sizeof(doc),
		 ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":[{\"name\":\"%s\",\"headline\":"
				 "{\"name\":\"%s\",\"value\":1,\"unit\":\"ns\"}}]}]}",
		 name, name);
	v = figures_of(doc, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(strlen(v[0].check), 126);
	cr_expect_eq(strlen(v[0].name), 62);
	s = json_string(v[0].key);
	cr_expect_not_null(s, "the key is valid UTF-8");
	json_decref(s);
	free(v);
}

Test(figures, errored_check_has_no_headline_value)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":[{\"name\":\"c\",\"verdict\":"
				"\"ERROR\",\"error\":\"x\",\"headline\":{\"name\":\"goodput\","
				"\"value\":null,\"unit\":\"bit/s\"},\"results\":[]}]}]}",
		&n);

	cr_assert_eq(n, 1);
	cr_expect(!v[0].valid);
	free(v);
}

Test(figures, run_documents_are_recognised)
{
	json_t *run = load("compare-base.json"), *bw = load("bw.json");

	cr_expect(ix_doc_is_run(run));
	cr_expect(!ix_doc_is_run(bw));
	json_decref(run);
	json_decref(bw);
}

/* ---- validation --------------------------------------------------------- */

static void load_fails(const char *name, const char *part1, const char *part2)
{
	struct ix_err err = { 0 };
	json_t *doc = ix_doc_load(ix_test_data(name), &err);

	cr_assert_null(doc, "%s loaded", name);
	cr_expect_eq(err.code, IX_EXIT_FAIL, "%s: code %d", name, err.code);
	cr_expect_not_null(strstr(err.msg, name), "'%s' does not name the file", err.msg);
	cr_expect_not_null(strstr(err.msg, part1), "'%s' lacks '%s'", err.msg, part1);
	if (part2)
		cr_expect_not_null(strstr(err.msg, part2), "'%s' lacks '%s'", err.msg, part2);
}

Test(validate, files)
{
	load_fails("corrupt.json", "not valid JSON", "line 1, column 6");
	load_fails("truncated.json", "not valid JSON", "premature end of input");
	load_fails("foreign.json", "not an ixperf result document", "no schema_version");
	load_fails("foreign.json", "no tool.name \"ixperf\"", NULL);
	load_fails("newer-schema.json", "schema_version 2 is newer", "(1)");
	load_fails("no-such-file.json", "cannot read", "No such file");
	load_fails("history", "directory", NULL);
}

static void invalid(const char *text, const char *part)
{
	struct ix_err err = { 0 };
	struct ix_figure *v = (struct ix_figure *)1;
	size_t n = 99;
	json_t *doc = json_loads(text, 0, NULL);

	cr_assert_not_null(doc, "test document: %s", text);
	cr_expect_eq(ix_doc_validate(doc, &err), -1, "accepted: %s", text);
	cr_expect_not_null(strstr(err.msg, part), "'%s' lacks '%s'", err.msg, part);
	cr_expect_eq(ix_figures_extract(doc, &v, &n, &err), -1);
	cr_expect_null(v);
	cr_expect_eq(n, 0);
	json_decref(doc);
}

Test(validate, documents)
{
	invalid("[1, 2]", "not a JSON object");
	invalid("{\"schema_version\":1,\"results\":[]}", "no tool.name \"ixperf\"");
	invalid("{\"schema_version\":1,\"tool\":{\"name\":\"iperf3\"},\"results\":[]}",
		"not an ixperf result document: no tool.name");
	invalid("{\"schema_version\":1,\"tool\":{\"name\":\"ixperf\"}}", "no results array");
	invalid("{\"schema_version\":\"1\",\"tool\":{\"name\":\"ixperf\"},\"results\":[]}",
		"not a positive integer");
	invalid("{\"schema_version\":0,\"tool\":{\"name\":\"ixperf\"},\"results\":[]}",
		"not a positive integer");
	invalid("{\"schema_version\":7,\"tool\":{\"name\":\"ixperf\"},\"results\":[]}",
		"schema_version 7 is newer");
	invalid(ENVELOPE("bw") "[5]}", "results[0] is not an object with a kind");
	invalid(ENVELOPE("run") "[{\"kind\":\"run\"}]}", "has no checks array");
	invalid(ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":[{}]}]}", "checks[0] has no name");
	invalid(ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":[{\"name\":\"a\",\"results\":5}]}]}",
		"results is not an array");
}

Test(validate, unknown_kinds_and_odd_values_are_not_fatal)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("bw") "[{\"kind\":\"future\"},{\"kind\":\"bw\",\"summary\":\"x\"},"
			       "{\"kind\":\"incast\",\"steps\":[{\"senders\":\"two\","
			       "\"goodput_bps\":\"fast\"}]},{\"kind\":\"mesh\"}]}",
		&n);

	cr_expect_eq(n, 4, "%zu", n); /* incast: goodput, stalled; mesh: bad_pairs, suspects */
	cr_expect(!get(v, n, "bw/goodput@step0")->valid);
	cr_expect(!get(v, n, "bw/bad_pairs")->valid);
	free(v);
}

/* ---- compare ------------------------------------------------------------ */

static struct ix_figure mk(const char *key, double v, bool valid, enum ix_better b, bool abs,
			   double allowance)
{
	struct ix_figure f = { .value = v,
			       .valid = valid,
			       .better = b,
			       .unit = "",
			       .absolute = abs,
			       .allowance = allowance };

	snprintf(f.key, sizeof(f.key), "%s", key);
	return f;
}

static enum ix_verdict verdict(struct ix_figure b, struct ix_figure c, double tol)
{
	struct ix_err err = { 0 };
	struct ix_cmp_row *rows;
	struct ix_cmp_counts k;
	enum ix_verdict v;
	size_t n;

	cr_assert_eq(ix_figures_compare(&b, 1, &c, 1, tol, &rows, &n, &k, &err), 0);
	cr_assert_eq(n, 1);
	v = rows[0].verdict;
	free(rows);
	return v;
}

static enum ix_verdict ratio(double b, double c, enum ix_better better, double tol)
{
	return verdict(mk("k", b, true, better, false, 0), mk("k", c, true, better, false, 0), tol);
}

static enum ix_verdict counted(double b, double c, double allowance, double tol)
{
	return verdict(mk("k", b, true, IX_LOWER_BETTER, true, allowance),
		       mk("k", c, true, IX_LOWER_BETTER, true, allowance), tol);
}

Test(compare, tolerance_edges)
{
	cr_expect_eq(ratio(100, 90, IX_HIGHER_BETTER, 0.1), IX_CMP_SAME);
	cr_expect_eq(ratio(100, 89.9, IX_HIGHER_BETTER, 0.1), IX_CMP_REGRESSION);
	cr_expect_eq(ratio(100, 110, IX_HIGHER_BETTER, 0.1), IX_CMP_SAME);
	cr_expect_eq(ratio(100, 110.1, IX_HIGHER_BETTER, 0.1), IX_CMP_IMPROVED);
	cr_expect_eq(ratio(100, 110, IX_LOWER_BETTER, 0.1), IX_CMP_SAME);
	cr_expect_eq(ratio(100, 110.1, IX_LOWER_BETTER, 0.1), IX_CMP_REGRESSION);
	cr_expect_eq(ratio(100, 89.9, IX_LOWER_BETTER, 0.1), IX_CMP_IMPROVED);
	cr_expect_eq(ratio(4e9, 3.6e9, IX_HIGHER_BETTER, 0.1), IX_CMP_SAME);
	cr_expect_eq(ratio(100, 100, IX_HIGHER_BETTER, 0), IX_CMP_SAME);
	cr_expect_eq(ratio(100, 99.99, IX_HIGHER_BETTER, 0), IX_CMP_REGRESSION);
	cr_expect_eq(ratio(100, 40, IX_HIGHER_BETTER, 0.5), IX_CMP_REGRESSION);
	cr_expect_eq(ratio(100, 60, IX_HIGHER_BETTER, 0.5), IX_CMP_SAME);
	/* a base of 0: any change in the bad direction */
	cr_expect_eq(ratio(0, 5, IX_HIGHER_BETTER, 0.1), IX_CMP_IMPROVED);
	cr_expect_eq(ratio(0, 5, IX_LOWER_BETTER, 0.1), IX_CMP_REGRESSION);
	cr_expect_eq(ratio(0, 0, IX_LOWER_BETTER, 0.1), IX_CMP_SAME);
}

Test(compare, counts_are_absolute)
{
	cr_expect_eq(counted(0, 1, 0, 0.1), IX_CMP_REGRESSION);
	cr_expect_eq(counted(10, 11, 0, 0.5), IX_CMP_REGRESSION, "no tolerance on strict counts");
	cr_expect_eq(counted(1, 0, 0, 0.1), IX_CMP_IMPROVED);
	cr_expect_eq(counted(3, 3, 0, 0.1), IX_CMP_SAME);
	cr_expect_eq(counted(5, 15, 10, 0.1), IX_CMP_SAME);
	cr_expect_eq(counted(5, 16, 10, 0.1), IX_CMP_REGRESSION);
	cr_expect_eq(counted(200, 220, 10, 0.1), IX_CMP_SAME, "allowance 10%% of 200");
	cr_expect_eq(counted(200, 225, 10, 0.1), IX_CMP_REGRESSION);
	cr_expect_eq(counted(200, 170, 10, 0.1), IX_CMP_IMPROVED);
	cr_expect_eq(counted(0, 0.1, 0.1, 0.1), IX_CMP_SAME, "loss within 0.1 points");
	cr_expect_eq(counted(0, 0.11, 0.1, 0.1), IX_CMP_REGRESSION);
}

Test(compare, missing_values)
{
	struct ix_figure v = mk("k", 5, true, IX_HIGHER_BETTER, false, 0);
	struct ix_figure null = mk("k", 0, false, IX_HIGHER_BETTER, false, 0);

	cr_expect_eq(verdict(v, null, 0.1), IX_CMP_REGRESSION, "a value lost");
	cr_expect_eq(verdict(null, v, 0.1), IX_CMP_NO_VALUE);
	cr_expect_eq(verdict(null, null, 0.1), IX_CMP_NO_VALUE);
}

Test(compare, missing_keys_and_order)
{
	struct ix_figure b[] = { mk("a", 1, true, IX_HIGHER_BETTER, false, 0),
				 mk("b", 1, true, IX_HIGHER_BETTER, false, 0),
				 mk("c", 1, true, IX_HIGHER_BETTER, false, 0) };
	struct ix_figure c[] = { mk("d", 1, true, IX_HIGHER_BETTER, false, 0),
				 mk("c", 2, true, IX_HIGHER_BETTER, false, 0),
				 mk("a", 1, true, IX_HIGHER_BETTER, false, 0) };
	struct ix_err err = { 0 };
	struct ix_cmp_row *rows;
	struct ix_cmp_counts k;
	size_t n;

	cr_assert_eq(ix_figures_compare(b, 3, c, 3, 0.1, &rows, &n, &k, &err), 0);
	cr_assert_eq(n, 4);
	cr_expect_eq(rows[0].verdict, IX_CMP_SAME);
	cr_expect_eq(rows[1].verdict, IX_CMP_ONLY_BASE);
	cr_expect_null(rows[1].cur);
	cr_expect_eq(rows[2].verdict, IX_CMP_IMPROVED);
	cr_expect(rows[2].change_valid);
	cr_expect_float_eq(rows[2].change, 1.0, 1e-12);
	cr_expect_eq(rows[3].verdict, IX_CMP_ONLY_NEW);
	cr_expect_str_eq(rows[3].cur->key, "d");
	cr_expect_null(rows[3].base);
	cr_expect(k.same == 1 && k.only_base == 1 && k.improved == 1 && k.only_new == 1);
	free(rows);

	cr_assert_eq(ix_figures_compare(NULL, 0, NULL, 0, 0.1, &rows, &n, &k, &err), 0);
	cr_expect_eq(n, 0);
	free(rows);
}

static enum ix_verdict row_of(const struct ix_cmp_row *rows, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		const struct ix_figure *f = rows[i].base ? rows[i].base : rows[i].cur;

		if (strcmp(f->key, key) == 0)
			return rows[i].verdict;
	}
	cr_assert_fail("no row '%s'", key);
	return IX_CMP_SAME;
}

Test(compare, fixtures)
{
	size_t nb, nn, n;
	struct ix_figure *b = figures("compare-base.json", &nb);
	struct ix_figure *c = figures("compare-new.json", &nn);
	struct ix_err err = { 0 };
	struct ix_cmp_row *rows;
	struct ix_cmp_counts k;

	cr_assert_eq(ix_figures_compare(b, nb, c, nn, 0.10, &rows, &n, &k, &err), 0);
	cr_expect_eq(n, 37);
	cr_expect_eq(k.regressions, 5);
	cr_expect_eq(k.improved, 4);
	cr_expect_eq(k.same, 20);
	cr_expect_eq(k.only_base, 3);
	cr_expect_eq(k.only_new, 5);
	cr_expect_eq(k.no_value, 0);
	cr_expect_eq(row_of(rows, n, "tcp-bw/headline"), IX_CMP_REGRESSION);
	cr_expect_eq(row_of(rows, n, "tcp-bw/goodput"), IX_CMP_REGRESSION);
	cr_expect_eq(row_of(rows, n, "tcp-bw/retransmits"), IX_CMP_SAME);
	cr_expect_eq(row_of(rows, n, "tcp-lat/p99"), IX_CMP_IMPROVED);
	cr_expect_eq(row_of(rows, n, "tcp-lat/p99.9"), IX_CMP_SAME);
	cr_expect_eq(row_of(rows, n, "tcp-lat/max"), IX_CMP_REGRESSION);
	cr_expect_eq(row_of(rows, n, "udp-bw/loss_percent"), IX_CMP_SAME);
	cr_expect_eq(row_of(rows, n, "bw-sweep/goodput@4096B"), IX_CMP_SAME);
	cr_expect_eq(row_of(rows, n, "bw-sweep/goodput@1024B"), IX_CMP_IMPROVED);
	cr_expect_eq(row_of(rows, n, "bw-sweep/goodput@16384B"), IX_CMP_ONLY_NEW);
	cr_expect_eq(row_of(rows, n, "mesh/bad_pairs"), IX_CMP_REGRESSION);
	cr_expect_eq(row_of(rows, n, "incast/stalled_rounds@N=2"), IX_CMP_REGRESSION);
	cr_expect_eq(row_of(rows, n, "old-check/goodput"), IX_CMP_ONLY_BASE);
	cr_expect_eq(row_of(rows, n, "new-check/goodput"), IX_CMP_ONLY_NEW);

	/* with a 50% tolerance, only the counts still regress */
	free(rows);
	cr_assert_eq(ix_figures_compare(b, nb, c, nn, 0.5, &rows, &n, &k, &err), 0);
	cr_expect_eq(k.regressions, 2);
	free(rows);
	free(b);
	free(c);
}

Test(compare, row_json)
{
	struct ix_figure b = mk("c/g", 10, true, IX_HIGHER_BETTER, false, 0);
	struct ix_figure c = mk("c/g", 8, true, IX_HIGHER_BETTER, false, 0);
	struct ix_err err = { 0 };
	struct ix_cmp_row *rows;
	struct ix_cmp_counts k;
	json_t *j;
	size_t n;

	cr_assert_eq(ix_figures_compare(&b, 1, &c, 1, 0.1, &rows, &n, &k, &err), 0);
	j = ix_cmp_row_json(&rows[0]);
	cr_assert_not_null(j);
	cr_expect_str_eq(json_string_value(json_object_get(j, "key")), "c/g");
	cr_expect_str_eq(json_string_value(json_object_get(j, "verdict")), "regression");
	cr_expect_float_eq(json_number_value(json_object_get(j, "change")), -0.2, 1e-12);
	cr_expect_float_eq(json_number_value(json_object_get(j, "delta")), -2, 1e-12);
	cr_expect_float_eq(json_number_value(json_object_get(j, "new")), 8, 1e-12);
	json_decref(j);
	free(rows);

	cr_assert_eq(ix_figures_compare(&b, 1, NULL, 0, 0.1, &rows, &n, &k, &err), 0);
	j = ix_cmp_row_json(&rows[0]);
	cr_expect(json_is_null(json_object_get(j, "new")));
	cr_expect(json_is_null(json_object_get(j, "change")));
	cr_expect_str_eq(json_string_value(json_object_get(j, "verdict")), "only_base");
	json_decref(j);
	free(rows);
	b = mk("c/g", 1e-320, true, IX_HIGHER_BETTER, false, 0);
	c = mk("c/g", 1e308, true, IX_HIGHER_BETTER, false, 0);
	cr_assert_eq(ix_figures_compare(&b, 1, &c, 1, 0.1, &rows, &n, &k, &err), 0);
	j = ix_cmp_row_json(&rows[0]);
	cr_assert_not_null(j, "an infinite change");
	cr_expect(json_is_null(json_object_get(j, "change")));
	cr_expect_str_eq(json_string_value(json_object_get(j, "verdict")), "improved");
	json_decref(j);
	free(rows);
	cr_expect_str_eq(ix_verdict_text(IX_CMP_REGRESSION), "REGRESSION");
	cr_expect_str_eq(ix_verdict_text(IX_CMP_ONLY_NEW), "only in new");
}

/* ---- tolerance ---------------------------------------------------------- */

static double tol_ok(const char *s)
{
	struct ix_err err = { 0 };
	double d = -1;

	cr_assert_eq(ix_parse_tolerance(s, &d, &err), 0, "'%s' refused: %s", s, err.msg);
	return d;
}

static void tol_bad(const char *s)
{
	struct ix_err err = { 0 };
	double d = 12345;

	cr_expect_eq(ix_parse_tolerance(s, &d, &err), -1, "'%s' accepted as %g", s, d);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
	cr_expect_eq(d, 12345, "'%s': output written on failure", s);
}

Test(tolerance, parse)
{
	cr_expect_float_eq(tol_ok("10%"), 0.10, 1e-15);
	cr_expect_float_eq(tol_ok("2.5%"), 0.025, 1e-15);
	cr_expect_float_eq(tol_ok("0.1"), 0.1, 1e-15);
	cr_expect_float_eq(tol_ok(".5"), 0.5, 1e-15);
	cr_expect_float_eq(tol_ok("1"), 1, 1e-15);
	cr_expect_float_eq(tol_ok("0"), 0, 1e-15);
	cr_expect_float_eq(tol_ok("0%"), 0, 1e-15);
	cr_expect_float_eq(tol_ok("150%"), 1.5, 1e-15);
	tol_bad("-5%");
	tol_bad("-0.1");
	tol_bad("+10%");
	tol_bad("abc");
	tol_bad("");
	tol_bad("%");
	tol_bad(".");
	tol_bad("10");
	tol_bad("1e-1");
	tol_bad("10%%");
	tol_bad("10 %");
	tol_bad(" 10%");
	tol_bad("nan");
	tol_bad("inf");
	tol_bad("0x1");
	tol_bad("1.2.3");
}

/* ---- CSV and text ------------------------------------------------------- */

static char *csv_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ix_csv_field(f, s);
	fclose(f);
	return buf;
}

static void csv_is(const char *in, const char *want)
{
	char *got = csv_of(in);

	cr_expect_str_eq(got, want, "'%s' quoted as '%s'", in, got);
	free(got);
}

Test(csv, quoting)
{
	csv_is("plain", "plain");
	csv_is("", "");
	csv_is("a,b", "\"a,b\"");
	csv_is("say \"hi\"", "\"say \"\"hi\"\"\"");
	csv_is("two\nlines", "\"two\nlines\"");
	csv_is("cr\r", "\"cr\r\"");
	csv_is("tab\tand space", "tab\tand space");
}

/* A small RFC 4180 reader: the fields of each record. */
static size_t csv_records(const char *s, char fields[][8][512], size_t max)
{
	size_t r = 0, fi = 0, o = 0;
	bool quoted = false;

	memset(fields, 0, max * sizeof(fields[0]));
	for (; *s && r < max; s++) {
		if (quoted) {
			if (*s == '"' && s[1] == '"')
				fields[r][fi][o++] = *s++;
			else if (*s == '"')
				quoted = false;
			else if (o < 511)
				fields[r][fi][o++] = *s;
		} else if (*s == '"') {
			quoted = true;
		} else if (*s == ',') {
			fi++;
			o = 0;
		} else if (*s == '\r' && s[1] == '\n') {
			s++;
			r++;
			fi = 0;
			o = 0;
		} else if (o < 511 && fi < 8) {
			fields[r][fi][o++] = *s;
		}
	}
	return r;
}

Test(csv, hostile_names_stay_one_field)
{
	static char rec[8][8][512];
	size_t n, nr;
	struct ix_figure *v = figures("hostile.json", &n);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ix_csv_header(f);
	ix_csv_rows(f, "dir,with \"quotes\"/x.json", v, n);
	fclose(f);
	nr = csv_records(buf, rec, 8);
	cr_assert_eq(nr, n + 1, "%zu records for %zu figures:\n%s", nr, n, buf);
	cr_expect_str_eq(rec[0][0], "file");
	cr_expect_str_eq(rec[0][5], "unit");
	for (size_t i = 0; i < n; i++) {
		cr_expect_str_eq(rec[i + 1][0], "dir,with \"quotes\"/x.json");
		cr_expect_str_eq(rec[i + 1][1], v[i].key);
		cr_expect_str_eq(rec[i + 1][2], v[i].check);
		cr_expect_not_null(strstr(rec[i + 1][2], "evil,\"name\"\nwith"));
		cr_expect_str_eq(rec[i + 1][3], v[i].name);
		cr_expect_str_eq(rec[i + 1][5], v[i].unit);
		cr_expect_eq(rec[i + 1][6][0], '\0', "a seventh field");
	}
	cr_expect_str_eq(rec[1][4], "1000000000");
	free(buf);
	free(v);
}

Test(text, safe_for_terminals)
{
	char buf[64];

	ix_text_safe("\x1b[31mred\x1b[0m", buf, sizeof(buf));
	cr_expect_str_eq(buf, "?[31mred?[0m");
	ix_text_safe("a\nb\tc\x7f", buf, sizeof(buf));
	cr_expect_str_eq(buf, "a?b?c?");
	ix_text_safe("C1 \xc2\x9b"
		     "2J",
		     buf, sizeof(buf));
	cr_expect_str_eq(buf, "C1 ?2J");
	ix_text_safe("caf\xc3\xa9", buf, sizeof(buf));
	cr_expect_str_eq(buf, "caf\xc3\xa9");
	ix_text_safe("abcd\xc3\xa9", buf, 6); /* room for 5 bytes: not half an é */
	cr_expect_str_eq(buf, "abcd");
	ix_text_safe("ab\xe2\x82\xac", buf, 6); /* the euro sign fits */
	cr_expect_str_eq(buf, "ab\xe2\x82\xac");
}

Test(text, values)
{
	struct ix_figure f = mk("k", 0, false, IX_HIGHER_BETTER, false, 0);
	char buf[48];

	ix_value_fmt(2.832092625e10, "bit/s", buf, sizeof(buf));
	cr_expect_str_eq(buf, "28.3 Gbit/s");
	ix_value_fmt(49288, "ns", buf, sizeof(buf));
	cr_expect_str_eq(buf, "49.3 us");
	ix_value_fmt(0.05, "%", buf, sizeof(buf));
	cr_expect_str_eq(buf, "0.05%");
	ix_value_fmt(3, "", buf, sizeof(buf));
	cr_expect_str_eq(buf, "3");
	ix_value_fmt(0.9961976134, "", buf, sizeof(buf));
	cr_expect_str_eq(buf, "0.9962");
	ix_figure_fmt(&f, buf, sizeof(buf));
	cr_expect_str_eq(buf, "-");
}

Test(text, lossy_json_strings)
{
	json_t *s = ix_json_string_lossy("r\xff"
					 "sult.json");

	cr_assert_not_null(s);
	cr_expect_str_eq(json_string_value(s), "r?sult.json");
	json_decref(s);
	s = ix_json_string_lossy("caf\xc3\xa9");
	cr_expect_str_eq(json_string_value(s), "caf\xc3\xa9");
	json_decref(s);
}

Test(figures, wire_counts_and_topology_links)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("wire") "[{\"kind\":\"wire\",\"file\":\"a.pcap\",\"complete\":true,"
				 "\"error\":null,\"wire\":{\"tcp_retransmissions\":7,"
				 "\"tcp_dup_acks\":3,\"tcp_out_of_order\":1,\"tcp_zero_window\":0,"
				 "\"ecn_ce\":28,\"roce_cnp\":28,\"dropped\":0}}]}",
		&n);

	cr_expect_eq(n, 7);
	expect(v, n, "wire/wire_retransmissions", 7);
	expect(v, n, "wire/wire_cnp", 28);
	cr_expect(get(v, n, "wire/wire_dup_acks")->absolute);
	cr_expect_float_eq(get(v, n, "wire/wire_retransmissions")->allowance, 10.0, 1e-9);
	free(v);

	v = figures_of(
		ENVELOPE("topo") "[{\"kind\":\"topo\",\"findings\":[{\"kind\":\"aer\"}],"
				 "\"pci\":[{\"bdf\":\"0000:1b:00.0\",\"type\":\"gpu\","
				 "\"link\":{\"bps\":5.0412e11}},{\"bdf\":\"0000:00:01.0\","
				 "\"type\":\"root_port\",\"link\":{\"bps\":5.0412e11}},"
				 "{\"bdf\":\"0000:1c:00.0\",\"type\":\"ib\",\"link\":null}]}]}",
		&n);
	cr_expect_eq(n, 3, "findings and the GPU's and NIC's links, not the root port's");
	expect(v, n, "topo/findings", 1);
	expect(v, n, "topo/link@0000:1b:00.0", 5.0412e11);
	cr_expect_eq(get(v, n, "topo/link@0000:1b:00.0")->better, IX_HIGHER_BETTER);
	cr_expect(!get(v, n, "topo/link@0000:1c:00.0")->valid);
	free(v);
}

/* GPU documents: a figure per measured cell of each test that ran, and a bandwidth sum. */
Test(figures, gpu_cells_and_compare)
{
	struct ix_err err = { 0 };
	struct ix_cmp_row *rows;
	struct ix_cmp_counts k;
	size_t nb, nn, nr;
	struct ix_figure *b = figures("gpu-base.json", &nb), *c = figures("gpu-new.json", &nn);

	cr_expect_eq(nb, 12, "2 bandwidth tests of 2 cells and a sum, 6 latencies, 0 skipped");
	cr_expect_eq(nn, 8, "a failed test has no figure, not even from a cell it measured");
	expect(b, nb, "gpu/host_to_device_memcpy_ce@host->GPU1", 50e9);
	expect(b, nb, "gpu/device_to_device_memcpy_read_ce@sum", 600e9);
	cr_expect_null(ix_figures_find(b, nb, "gpu/device_to_device_memcpy_read_ce@GPU0->GPU0"));
	cr_expect(get(b, nb, "gpu/device_to_device_memcpy_read_ce@GPU1->GPU0")->better ==
			  IX_HIGHER_BETTER &&
		  !strcmp(get(b, nb, "gpu/host_to_device_memcpy_ce@sum")->unit, "B/s"));
	cr_expect(get(b, nb, "gpu/host_device_latency_sm@host->GPU0")->better == IX_LOWER_BETTER &&
		  !strcmp(get(b, nb, "gpu/host_device_latency_sm@host->GPU0")->unit, "ns"));
	cr_assert_eq(ix_figures_compare(b, nb, c, nn, 0.1, &rows, &nr, &k, &err), 0);
	cr_expect(k.regressions == 2 && k.improved == 1 && k.same == 5 && k.only_base == 4);
	cr_expect_eq(row_of(rows, nr, "gpu/host_device_latency_sm@host->GPU1"), IX_CMP_REGRESSION);
	cr_expect_eq(row_of(rows, nr, "gpu/device_to_device_latency_sm@GPU0->GPU0"),
		     IX_CMP_ONLY_BASE);
	free(rows);
	free(b);
	free(c);
}
