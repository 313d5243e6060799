/* Unit tests for report/doc/compare.c: compare verdicts and tolerance
 * edges, the fixtures compared, CSV quoting. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/data.h"

#include "report/doc/compare.h"
#include "tests/unit/report/doc/figs.h"

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

/* A mesh check's nodes and pairs against a golden baseline (a run holding
 * the same check): the regressed ones named with their change. */
Test(compare, nodes_and_pairs_against_a_baseline)
{
	json_t *doc = load("mesh.json");
	json_t *mesh = json_array_get(json_object_get(doc, "results"), 0);
	json_t *baseline = json_pack(
		"{s:i,s:{s:s,s:s},s:s,s:s,s:[],s:s,s:b,s:n,s:[{s:s,s:[{s:s,s:[O]}]}]}",
		"schema_version", 1, "tool", "name", "ixperf", "version", "0.1.0", "host", "h",
		"time", "2026-12-01T10:00:00Z", "command_line", "command", "run", "complete", 1,
		"error", "results", "kind", "run", "checks", "name", "mesh", "results", mesh);
	json_t *now = json_deep_copy(mesh), *results = json_pack("[o]", now), *list = json_array();
	json_t *node = json_array_get(json_object_get(now, "nodes"), 1);
	json_t *row = json_array_get(json_object_get(json_object_get(now, "matrix"), "bw_bps"), 1);
	struct ix_err err = { 0 };
	double worst = -1;

	cr_assert_not_null(baseline);
	/* 6202 sends 20% slower, its pair towards 6203 15% slower: above 10% */
	json_object_set_new(node, "bw_out_bps", json_real(22844008450 * 0.8));
	json_array_set_new(row, 2, json_real(22076801020 * 0.85));
	cr_assert_eq(ix_detail_regressions(baseline, "mesh", results, 0.10, 50, &worst, list, &err),
		     4 * 3 + 6 * 2, "%s", err.msg);
	cr_expect_float_eq(worst, 0.2, 1e-9);
	cr_assert_eq(json_array_size(list), 2);
	cr_expect_str_eq(json_string_value(json_array_get(list, 0)),
			 "node 127.0.0.1:6202 send -20.0% (22.8 Gbit/s -> 18.3 Gbit/s)");
	cr_expect_str_eq(json_string_value(json_array_get(list, 1)),
			 "pair 127.0.0.1:6202->127.0.0.1:6203 bw -15.0% (22.1 Gbit/s -> 18.8 "
			 "Gbit/s)");
	/* at most one named, the rest counted */
	json_array_clear(list);
	ix_detail_regressions(baseline, "mesh", results, 0.10, 1, &worst, list, &err);
	cr_expect_str_eq(json_string_value(json_array_get(list, 1)), "and 1 more");
	/* another check's name: nothing in common */
	cr_expect_eq(ix_detail_regressions(baseline, "other", results, 0.1, 50, &worst, list, &err),
		     0);
	json_decref(list);
	json_decref(results);
	json_decref(baseline);
	json_decref(doc);
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
	/* What a spreadsheet would run as a formula is quoted behind a '. */
	csv_is("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"");
	csv_is("+cmd|' /C calc'!A0", "\"'+cmd|' /C calc'!A0\"");
	csv_is("-2+3", "\"'-2+3\"");
	csv_is("@SUM(A1)", "\"'@SUM(A1)\"");
	csv_is("\t=1", "\"'\t=1\"");
	csv_is("\r=1", "\"'\r=1\"");
	csv_is("-", "\"'-\"");
	/* Plain numbers stay numbers. */
	csv_is("-3.5", "-3.5");
	csv_is("+12", "+12");
	csv_is("-1e-06", "-1e-06");
	csv_is("-.5", "-.5");
	csv_is("a=1", "a=1");
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
