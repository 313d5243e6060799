/* ixperf compare BASE NEW: the figures of two saved results side by side. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "report/doc/compare.h"
#include "report/doc/figures.h"
#include "report/fmt/safe.h"
#include "report/json/json.h"

#define LABEL_MAX_WIDTH 60

struct compare_opts {
	const char *tolerance;
	bool json;
	const char *output;
	bool help;
};

static const struct ix_option compare_options[] = {
	{ 0, "tolerance", IX_OPT_STRING, offsetof(struct compare_opts, tolerance), "TOL",
	  "change allowed before a figure counts as a regression: 10% (default) or 0.1", 0, 0 },
	{ 'J', "json", IX_OPT_FLAG, offsetof(struct compare_opts, json), NULL,
	  "one JSON document on stdout (diagnostics on stderr)", 0, 0 },
	{ 'o', "output", IX_OPT_STRING, offsetof(struct compare_opts, output), "FILE",
	  "write the report to FILE atomically instead of stdout", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct compare_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_compare_spec = {
	.name = "compare",
	.usage = "[OPTIONS] BASE.json NEW.json",
	.summary = "Compare two saved results figure by figure and flag regressions",
	.opts = compare_options,
	.nopts = IX_OPTS_END(compare_options),
	.epilog =
		"Figures are matched by key (CHECK/FIGURE). Rates and latencies regress when\n"
		"they are worse than --tolerance in their bad direction; counts (mesh bad pairs,\n"
		"suspects, failed pairs, incast stalled rounds) regress on any growth, TCP\n"
		"retransmits and UDP loss beyond an allowance (see ixperf-compare(1)).\n"
		"Exit status: 0 no regression, 4 at least one, 1 unreadable input, 2 usage.\n"
		"Examples:\n"
		"  ixperf compare last-week.json today.json\n"
		"  ixperf compare --tolerance 5% --json -o diff.json base.json new.json\n",
};

struct side {
	const char *path;
	json_t *doc;
	struct ix_figure *figs;
	size_t n;
};

static int load_side(struct side *s, const char *path, struct ix_err *err)
{
	s->path = path;
	s->doc = ix_doc_load(path, err);
	if (!s->doc)
		return -1;
	if (ix_figures_extract(s->doc, &s->figs, &s->n, err) < 0)
		return ix_fail_prefix(err, "%s", path);
	return 0;
}

static void free_side(struct side *s)
{
	json_decref(s->doc);
	free(s->figs);
}

static const char *str_or(json_t *doc, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(doc, key));

	return s ? s : dflt;
}

static json_t *run_item(json_t *doc)
{
	return ix_doc_is_run(doc) ? json_array_get(json_object_get(doc, "results"), 0) : NULL;
}

static void describe(FILE *f, const char *label, const struct side *s)
{
	json_t *run = run_item(s->doc);
	char path[512], name[256];

	ix_text_safe(s->path, path, sizeof(path));
	fprintf(f, "%s %s: ", label, path);
	if (run) {
		ix_text_safe(str_or(run, "name", "?"), name, sizeof(name));
		fprintf(f, "run \"%s\" %s", name, str_or(run, "verdict", "?"));
	} else {
		ix_text_safe(str_or(s->doc, "command", "?"), name, sizeof(name));
		fprintf(f, "%s", name);
	}
	ix_text_safe(str_or(s->doc, "host", "?"), name, sizeof(name));
	fprintf(f, ", %s on %s\n", str_or(s->doc, "time", "?"), name);
}

struct cells {
	char label[400];
	char base[32], cur[32], change[32];
};

static void fill_cells(const struct ix_cmp_row *r, struct cells *c)
{
	const struct ix_figure *f = r->base ? r->base : r->cur;
	char key[300];

	ix_text_safe(f->key, key, sizeof(key));
	if (f->headline) {
		char name[80];

		ix_text_safe(f->name, name, sizeof(name));
		snprintf(c->label, sizeof(c->label), "%s (%s)", key, name);
	} else {
		snprintf(c->label, sizeof(c->label), "%s", key);
	}
	if (r->base)
		ix_figure_fmt(r->base, c->base, sizeof(c->base));
	else
		snprintf(c->base, sizeof(c->base), "-");
	if (r->cur)
		ix_figure_fmt(r->cur, c->cur, sizeof(c->cur));
	else
		snprintf(c->cur, sizeof(c->cur), "-");
	if (!r->base || !r->cur || !r->base->valid || !r->cur->valid)
		snprintf(c->change, sizeof(c->change), "-");
	else if (f->absolute)
		snprintf(c->change, sizeof(c->change), "%+.4g%s", r->delta,
			 strcmp(f->unit, "%") == 0 ? " pts" : "");
	else if (r->change_valid)
		snprintf(c->change, sizeof(c->change), "%+.1f%%", 100.0 * r->change);
	else
		snprintf(c->change, sizeof(c->change), "n/a");
}

static int width(int have, const char *s, int cap)
{
	int w = (int)strlen(s);

	if (w > cap)
		w = cap;
	return w > have ? w : have;
}

static bool is_detail(const struct ix_cmp_row *r)
{
	return (r->base ? r->base : r->cur)->detail;
}

/* A mesh's nodes and pairs: the ones that regressed, each with its
 * change, and how many were compared. */
static void detail_text(FILE *f, const struct ix_cmp_row *rows, size_t nrows, const struct cells *c,
			int wl, int wb, int wn, int wc)
{
	size_t both = 0, bad = 0, one = 0;

	for (size_t i = 0; i < nrows; i++) {
		if (!is_detail(&rows[i]))
			continue;
		both += rows[i].base && rows[i].cur;
		one += !rows[i].base || !rows[i].cur;
		bad += rows[i].verdict == IX_CMP_REGRESSION;
	}
	if (!both && !one)
		return;
	fprintf(f, "\nMesh nodes and pairs: %zu compared, %zu regressed%s", both, bad,
		bad ? ":\n" : "\n");
	for (size_t i = 0; i < nrows; i++)
		if (is_detail(&rows[i]) && rows[i].verdict == IX_CMP_REGRESSION)
			fprintf(f, "%-*s  %*s  %*s  %*s  %s\n", wl, c[i].label, wb, c[i].base, wn,
				c[i].cur, wc, c[i].change, ix_verdict_text(rows[i].verdict));
	if (one)
		fprintf(f,
			"%zu node or pair figure%s in one document only (other hosts, or other "
			"ports)\n",
			one, one == 1 ? "" : "s");
}

static int render_text(FILE *f, const struct side *b, const struct side *n, double tol,
		       const struct ix_cmp_row *rows, size_t nrows, const struct ix_cmp_counts *k)
{
	struct cells *c = calloc(nrows + 1, sizeof(*c));
	int wl = 6, wb = 4, wn = 3, wc = 6;

	if (!c)
		return -1;
	describe(f, "base", b);
	describe(f, "new ", n);
	fprintf(f, "tolerance %g%%\n\n", 100.0 * tol);
	for (size_t i = 0; i < nrows; i++) {
		fill_cells(&rows[i], &c[i]);
		if (is_detail(&rows[i]) && rows[i].verdict != IX_CMP_REGRESSION)
			continue;
		wl = width(wl, c[i].label, LABEL_MAX_WIDTH);
		wb = width(wb, c[i].base, 31);
		wn = width(wn, c[i].cur, 31);
		wc = width(wc, c[i].change, 31);
	}
	if (nrows)
		fprintf(f, "%-*s  %*s  %*s  %*s  %s\n", wl, "FIGURE", wb, "BASE", wn, "NEW", wc,
			"CHANGE", "VERDICT");
	for (size_t i = 0; i < nrows; i++)
		if (!is_detail(&rows[i]))
			fprintf(f, "%-*s  %*s  %*s  %*s  %s\n", wl, c[i].label, wb, c[i].base, wn,
				c[i].cur, wc, c[i].change, ix_verdict_text(rows[i].verdict));
	detail_text(f, rows, nrows, c, wl, wb, wn, wc);
	free(c);
	fprintf(f,
		"%s%s%zu regression%s, %zu improved, %zu unchanged, %zu only in base, %zu only "
		"in new, %zu without a value\n",
		nrows ? "\n" : "", k->regressions ? "REGRESSION: " : "", k->regressions,
		k->regressions == 1 ? "" : "s", k->improved, k->same, k->only_base, k->only_new,
		k->no_value);
	return 0;
}

static json_t *or_null(json_t *v)
{
	return v ? v : json_null();
}

static json_t *side_json(const struct side *s)
{
	json_t *run = run_item(s->doc);

	return json_pack("{s:o,s:O,s:O,s:O,s:O}", "file", ix_json_string_lossy(s->path), "command",
			 or_null(json_object_get(s->doc, "command")), "time",
			 or_null(json_object_get(s->doc, "time")), "host",
			 or_null(json_object_get(s->doc, "host")), "verdict",
			 or_null(json_object_get(run, "verdict")));
}

static json_t *render_json(const struct side *b, const struct side *n, double tol,
			   const struct ix_cmp_row *rows, size_t nrows,
			   const struct ix_cmp_counts *k)
{
	json_t *figs = json_array(), *item;

	for (size_t i = 0; i < nrows; i++)
		json_array_append_new(figs, ix_cmp_row_json(&rows[i]));
	item = json_pack("{s:s,s:o,s:o,s:f,s:o,s:I,s:I,s:I,s:I,s:I,s:I}", "kind", "compare", "base",
			 side_json(b), "new", side_json(n), "tolerance", tol, "figures", figs,
			 "regressions", (json_int_t)k->regressions, "improved",
			 (json_int_t)k->improved, "same", (json_int_t)k->same, "only_base",
			 (json_int_t)k->only_base, "only_new", (json_int_t)k->only_new, "no_value",
			 (json_int_t)k->no_value);
	return json_pack("[o]", item);
}

static int check_args(int argc, char **argv, int pos, struct ix_err *err)
{
	if (pos >= argc)
		return ix_fail(err, IX_EXIT_USAGE,
			       "missing BASE.json and NEW.json (results saved with --json or -o)");
	if (pos + 1 >= argc)
		return ix_fail(err, IX_EXIT_USAGE,
			       "missing NEW.json, the result to compare with '%s'", argv[pos]);
	if (pos + 2 < argc)
		return ix_fail(err, IX_EXIT_USAGE, "two files only; unexpected '%s'",
			       argv[pos + 2]);
	return 0;
}

int cmd_compare(int argc, char **argv, const struct ix_env *env)
{
	struct compare_opts o = { 0 };
	struct side b = { 0 }, n = { 0 };
	struct ix_err err = { 0 };
	struct ix_cmp_row *rows = NULL;
	struct ix_cmp_counts k;
	struct ix_sink sink;
	double tol = 0.10;
	size_t nrows = 0;
	bool help;
	int pos, rc;

	if (ix_opts_parse(&ix_compare_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("compare", &err);
	if (help) {
		ix_opts_help(&ix_compare_spec, stdout);
		return IX_EXIT_OK;
	}
	if (check_args(argc, argv, pos, &err) < 0)
		return ix_report_error("compare", &err);
	if (o.tolerance && ix_parse_tolerance(o.tolerance, &tol, &err) < 0) {
		ix_fail_prefix(&err, "invalid value for --tolerance");
		return ix_report_error("compare", &err);
	}
	if (load_side(&b, argv[pos], &err) < 0 || load_side(&n, argv[pos + 1], &err) < 0 ||
	    ix_figures_compare(b.figs, b.n, n.figs, n.n, tol, &rows, &nrows, &k, &err) < 0 ||
	    ix_sink_open(&sink, o.output, &err) < 0) {
		rc = ix_report_error("compare", &err);
		goto out;
	}
	if (strcmp(str_or(b.doc, "command", ""), str_or(n.doc, "command", "")) != 0) {
		char cb[64], cn[64];

		ix_text_safe(str_or(b.doc, "command", "?"), cb, sizeof(cb));
		ix_text_safe(str_or(n.doc, "command", "?"), cn, sizeof(cn));
		fprintf(stderr, "ixperf compare: note: comparing a '%s' result with a '%s' one\n",
			cb, cn);
	}
	if (o.json) {
		ix_sink_put_json(&sink,
				 ix_json_document("compare", env->argc, env->argv,
						  render_json(&b, &n, tol, rows, nrows, &k), NULL));
	} else if (render_text(sink.f, &b, &n, tol, rows, nrows, &k) < 0) {
		ix_fail(&err, IX_EXIT_FAIL, "out of memory");
		if (sink.path) {
			fclose(sink.f);
			free(sink.buf);
		}
		rc = ix_report_error("compare", &err);
		goto out;
	}
	if (ix_sink_commit(&sink, &err) < 0)
		rc = ix_report_error("compare", &err);
	else
		rc = k.regressions ? IX_EXIT_THRESHOLD : IX_EXIT_OK;
out:
	free(rows);
	free_side(&b);
	free_side(&n);
	return rc;
}
