/* ixperf report RESULT.json...: re-render saved results, no cluster needed. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "report/doc/figures.h"

#include "report/doc/compare.h"
#include "report/fmt/safe.h"
#include "report/html/html.h"
#include "report/json/read.h"
#include "report/text/text.h"

#define TREND_MAX      8  /* earlier values on a text trend line */
#define NAME_MAX_WIDTH 40 /* check names in the text summary */

struct report_opts {
	const char *output;
	const char *format;
	const char *history;
	const char *units;
	bool help;
};

static const struct ix_option report_options[] = {
	{ 'o', "output", IX_OPT_STRING, offsetof(struct report_opts, output), "FILE",
	  "write to FILE atomically instead of stdout (its .html .json .csv .txt picks the format)",
	  0, 0 },
	{ 'f', "format", IX_OPT_STRING, offsetof(struct report_opts, format), "FORMAT",
	  "text (default), html, json or csv", 0, 0 },
	{ 0, "history", IX_OPT_STRING, offsetof(struct report_opts, history), "DIR",
	  "earlier run results (*.json in DIR) for trends (html and text)", 0, 0 },
	{ 0, "units", IX_OPT_STRING, offsetof(struct report_opts, units), "UNIT",
	  "rates of a mesh or incast in text: bits (default), bytes, or bit Kbit Mbit Gbit ... GiB "
	  "TiB",
	  0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct report_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_report_spec = {
	.name = "report",
	.usage = "[OPTIONS] RESULT.json...",
	.summary = "Render saved results again: text, HTML, JSON or CSV",
	.opts = report_options,
	.nopts = IX_OPTS_END(report_options),
	.epilog =
		"Reads documents saved by 'ixperf run', bw, lat, mesh, incast, mem or gpu with "
		"--json.\n"
		"text: a mesh, incast or mem (alone or in a check of a run) as the command printed "
		"it.\n"
		"json: one input is written back validated; several become a JSON array.\n"
		"csv: one row per figure: file,key,check,name,value,unit.\n"
		"html: one input only.\n"
		"Examples:\n"
		"  ixperf report nightly.json\n"
		"  ixperf report --history results/ -o nightly.html results/latest.json\n"
		"  ixperf report --format csv results/*.json > figures.csv\n",
};

enum format { FMT_TEXT, FMT_HTML, FMT_JSON, FMT_CSV };

static const char *const format_names[] = { "text", "html", "json", "csv" };

/* A mesh, incast, pattern or mem result read back, for its text. */
struct multi {
	const char *check; /* the run check holding it; NULL: the document's own result */
	bool mesh, pattern, mem;
	struct ix_mesh_saved m;
	struct ix_pattern_saved p;
	struct ix_incast_saved c;
	struct ix_mem_result mm;
	char error[IX_ERR_MAX]; /* in a check: why it could not be read back ("" if it was) */
	json_t *res;            /* the result itself (borrowed from the document) */
};

struct input {
	char *path; /* owned */
	json_t *doc;
	struct ix_figure *figs;
	size_t n;
	const char *time;    /* the document's, "" when absent */
	struct multi *multi; /* text only: its mesh and incast results */
	size_t nmulti;
	struct ix_rails_saved *rails; /* text only: a rail mesh's rails (multi: its meshes) */
	json_t *rails_res;            /* that result (borrowed from the document) */
};

static void clear_input(struct input *in)
{
	free(in->path);
	json_decref(in->doc);
	free(in->figs);
	for (size_t i = 0; i < in->nmulti; i++) {
		ix_mesh_saved_free(&in->multi[i].m);
		ix_incast_saved_free(&in->multi[i].c);
		ix_pattern_saved_free(&in->multi[i].p);
		ix_mem_result_free(&in->multi[i].mm);
	}
	free(in->multi);
	if (in->rails)
		ix_rails_saved_free(in->rails);
	free(in->rails);
	memset(in, 0, sizeof(*in));
}

static void free_inputs(struct input *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		clear_input(&v[i]);
	free(v);
}

static int load_input(struct input *in, const char *path, struct ix_err *err)
{
	memset(in, 0, sizeof(*in));
	in->path = strdup(path);
	if (!in->path)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	in->doc = ix_doc_load(path, err);
	if (!in->doc)
		return -1;
	if (ix_figures_extract(in->doc, &in->figs, &in->n, err) < 0)
		return ix_fail_prefix(err, "%s", path);
	in->time = json_string_value(json_object_get(in->doc, "time"));
	if (!in->time)
		in->time = "";
	return 0;
}

static const char *str_or(json_t *o, const char *key, const char *dflt);

/* Read res back when it is a mesh, incast, pattern or mem; 0 when it is none. A
 * check's result that does not read back keeps the reason, for the text:
 * the run's own summary stands without it. */
static int add_multi(struct input *in, json_t *res, const char *check, struct ix_err *err)
{
	const char *kind = json_string_value(json_object_get(res, "kind"));
	struct multi *m;

	if (!kind || (strcmp(kind, "mesh") != 0 && strcmp(kind, "incast") != 0 &&
		      strcmp(kind, "pattern") != 0 && strcmp(kind, "mem") != 0))
		return 0;
	m = &in->multi[in->nmulti];
	memset(m, 0, sizeof(*m));
	m->check = check;
	m->mesh = strcmp(kind, "mesh") == 0;
	m->pattern = strcmp(kind, "pattern") == 0;
	m->mem = strcmp(kind, "mem") == 0;
	m->res = res;
	if (m->mem       ? ix_json_read_mem(res, &m->mm, err) < 0
	    : m->pattern ? ix_json_read_pattern(res, &m->p, err) < 0
	    : m->mesh    ? ix_json_read_mesh(res, &m->m, err) < 0
			 : ix_json_read_incast(res, &m->c, err) < 0) {
		if (!check)
			return -1;
		ix_text_safe(err->msg, m->error, sizeof(m->error));
	}
	in->nmulti++;
	return 0;
}

/* A rail mesh's document: each rail's mesh, then the rails side by side
 * (the last result); other documents of several results have none. */
static int load_rails(struct input *in, json_t *results, struct ix_err *err)
{
	json_t *last = json_array_get(results, json_array_size(results) - 1), *res;
	size_t i;

	if (strcmp(str_or(last, "kind", ""), "rails") != 0)
		return 0;
	in->rails = calloc(1, sizeof(*in->rails));
	in->multi = calloc(json_array_size(results), sizeof(*in->multi));
	if (!in->rails || !in->multi)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (ix_json_read_rails(last, in->rails, err) < 0) {
		free(in->rails);
		in->rails = NULL;
		return ix_fail_prefix(err, "%s: results[%zu]", in->path,
				      json_array_size(results) - 1);
	}
	in->rails_res = last;
	json_array_foreach(results, i, res)
	{
		if (res != last && add_multi(in, res, NULL, err) < 0)
			return ix_fail_prefix(err, "%s: results[%zu]", in->path, i);
	}
	return 0;
}

/* The mesh and incast results of a document, read back into their
 * structs for the text renderer: a mesh or incast document's result (an
 * error naming the member when it does not read back), the results of a
 * run's checks (a note in the text when one does not). */
static int load_multi(struct input *in, struct ix_err *err)
{
	json_t *results = json_object_get(in->doc, "results"), *c, *res;
	json_t *checks = json_object_get(json_array_get(results, 0), "checks");
	size_t i, k, n = 0;

	if (!ix_doc_is_run(in->doc) && json_array_size(results) > 1)
		return load_rails(in, results, err);
	if (!ix_doc_is_run(in->doc)) {
		if (json_array_size(results) != 1)
			return 0;
		in->multi = calloc(1, sizeof(*in->multi));
		if (!in->multi)
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		if (add_multi(in, json_array_get(results, 0), NULL, err) < 0)
			return ix_fail_prefix(err, "%s: results[0]", in->path);
		/* "stopped" is the document's word, not the result's */
		if (in->nmulti && in->multi[0].mesh && !in->multi[0].m.r.complete &&
		    strncmp(str_or(in->doc, "error", ""), "stopped", 7) == 0)
			in->multi[0].m.r.stopped = true;
		return 0;
	}
	json_array_foreach(checks, i, c) n += json_array_size(json_object_get(c, "results"));
	in->multi = calloc(n + 1, sizeof(*in->multi));
	if (!in->multi)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(checks, i, c)
	{
		json_array_foreach(json_object_get(c, "results"), k, res)
		{
			struct ix_err e = { 0 };

			add_multi(in, res, str_or(c, "name", "?"), &e);
		}
	}
	return 0;
}

static bool has_suffix(const char *s, const char *sfx)
{
	size_t n = strlen(s), k = strlen(sfx);

	return n > k && strcmp(s + n - k, sfx) == 0;
}

static int pick_format(const struct report_opts *o, enum format *fmt, struct ix_err *err)
{
	static const char *const sfx[][2] = { { ".html", "html" },
					      { ".htm", "html" },
					      { ".json", "json" },
					      { ".csv", "csv" },
					      { ".txt", "text" } };
	const char *name = o->format;

	for (size_t i = 0; !name && o->output && i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (has_suffix(o->output, sfx[i][0]))
			name = sfx[i][1];
	*fmt = FMT_TEXT;
	if (!name)
		return 0;
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
		if (strcmp(name, format_names[i]) == 0) {
			*fmt = (enum format)i;
			return 0;
		}
	}
	return ix_fail(err, IX_EXIT_USAGE,
		       "invalid value for -f/--format: '%s' (text, html, json or csv)", name);
}

static int by_time(const void *a, const void *b)
{
	const struct input *x = a, *y = b;
	int c = strcmp(x->time, y->time);

	return c ? c : strcmp(x->path, y->path);
}

/* Every run document in dir, oldest first. Unreadable files are skipped
 * with a warning, documents of single commands silently. */
static int load_history(const char *dir, struct input **out, size_t *n, struct ix_err *err)
{
	struct input *v = NULL;
	size_t cap = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	*out = NULL;
	*n = 0;
	if (!d)
		return ix_fail(err, IX_EXIT_FAIL, "cannot read --history %s: %s", dir,
			       strerror(errno));
	while ((de = readdir(d))) {
		struct ix_err e = { 0 };
		struct input in;
		struct stat st;
		char *path;
		size_t len;

		if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".json"))
			continue;
		len = strlen(dir) + strlen(de->d_name) + 2;
		path = malloc(len);
		if (!path)
			break;
		snprintf(path, len, "%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (load_input(&in, path, &e) < 0) {
			char msg[IX_ERR_MAX];

			ix_text_safe(e.msg, msg, sizeof(msg));
			fprintf(stderr, "ixperf report: warning: skipping history file %s\n", msg);
			clear_input(&in);
			free(path);
			continue;
		}
		free(path);
		if (!ix_doc_is_run(in.doc)) {
			clear_input(&in);
			continue;
		}
		if (*n == cap) {
			struct input *v2 = realloc(v, (cap ? 2 * cap : 16) * sizeof(*v2));

			if (!v2) {
				clear_input(&in);
				break;
			}
			v = v2;
			cap = cap ? 2 * cap : 16;
		}
		v[(*n)++] = in;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), by_time);
	*out = v;
	return 0;
}

/* The history entries earlier than in: [0, *count). */
static size_t earlier(const struct input *in, const struct input *hist, size_t nh)
{
	size_t k = 0;

	while (k < nh && (!in->time[0] || strcmp(hist[k].time, in->time) < 0))
		k++;
	return k;
}

static const char *str_or(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

static const char *unit_static(json_t *u)
{
	const char *s = json_string_value(u);

	if (s && strcmp(s, "bit/s") == 0)
		return "bit/s";
	if (s && strcmp(s, "ns") == 0)
		return "ns";
	if (s && strcmp(s, "%") == 0)
		return "%";
	return "";
}

static void fmt_json_value(json_t *v, json_t *unit, char *buf, size_t len)
{
	if (json_is_number(v))
		ix_value_fmt(json_number_value(v), unit_static(unit), buf, len);
	else
		snprintf(buf, len, "-");
}

static void text_check(FILE *f, json_t *c, int w)
{
	json_t *h = json_object_get(c, "headline"), *e;
	char name[256], hname[128], val[48], text[256];
	size_t i;

	ix_text_safe(str_or(c, "name", "?"), name, sizeof(name));
	ix_text_safe(str_or(h, "name", "headline"), hname, sizeof(hname));
	fmt_json_value(json_object_get(h, "value"), json_object_get(h, "unit"), val, sizeof(val));
	ix_text_safe(str_or(c, "verdict", "?"), text, sizeof(text));
	if (json_is_object(h))
		fprintf(f, "  %-5s  %-*s  %s %s\n", text, w, name, hname, val);
	else
		fprintf(f, "  %-5s  %s\n", text, name);
	if (json_is_string(json_object_get(c, "reason"))) { /* a SKIP */
		ix_text_safe(str_or(c, "reason", ""), text, sizeof(text));
		fprintf(f, "         not run: %s\n", text);
	}
	if (json_is_string(json_object_get(c, "error"))) {
		ix_text_safe(str_or(c, "error", ""), text, sizeof(text));
		fprintf(f, "         error: %s\n", text);
	}
	json_array_foreach(json_object_get(c, "expectations"), i, e)
	{
		char key[64];

		ix_text_safe(str_or(e, "key", "?"), key, sizeof(key));
		ix_text_safe(str_or(e, "text", "?"), text, sizeof(text));
		fmt_json_value(json_object_get(e, "measured"), json_object_get(e, "unit"), val,
			       sizeof(val));
		fprintf(f, "         %s %s: measured %s, %s\n", key, text, val,
			json_is_true(json_object_get(e, "pass")) ? "pass" : "FAIL");
	}
}

/* A saved result's "fleet" as its command printed it; a note when it
 * does not read back, nothing when there is none. */
static void text_fleet(FILE *f, json_t *res)
{
	json_t *fl = json_object_get(res, "fleet");
	struct ix_fleet_result r;
	struct ix_err err = { 0 };
	char why[IX_ERR_MAX];

	if (!json_is_object(fl))
		return;
	if (ix_json_read_fleet(fl, &r, &err) < 0) {
		ix_text_safe(err.msg, why, sizeof(why));
		fprintf(f, "  every node's inventory cannot be shown: %s\n", why);
		return;
	}
	ix_text_fleet(f, &r);
	ix_fleet_free(&r);
}

static void text_run(FILE *f, const struct input *in)
{
	json_t *run = json_array_get(json_object_get(in->doc, "results"), 0), *c;
	json_t *checks = json_object_get(run, "checks");
	char name[256], plan[512], host[256];
	size_t i, counts[5] = { 0 };
	int w = 4;

	ix_text_safe(str_or(run, "name", "?"), name, sizeof(name));
	ix_text_safe(str_or(run, "plan_file", "the default plan"), plan, sizeof(plan));
	ix_text_safe(str_or(in->doc, "host", "?"), host, sizeof(host));
	fprintf(f, "ixperf run \"%s\": %s\n", name, str_or(run, "verdict", "?"));
	fprintf(f, "  plan %s, started %s on %s, %.1f s\n", plan, str_or(run, "started", in->time),
		host, json_number_value(json_object_get(run, "duration_s")));
	if (json_is_string(json_object_get(in->doc, "error"))) {
		ix_text_safe(str_or(in->doc, "error", ""), name, sizeof(name));
		fprintf(f, "  incomplete: %s\n", name);
	}
	json_array_foreach(checks, i, c)
	{
		const char *v = str_or(c, "verdict", "");
		int len = (int)strlen(str_or(c, "name", "?"));

		w = len > w ? (len < NAME_MAX_WIDTH ? len : NAME_MAX_WIDTH) : w;
		counts[strcmp(v, "PASS") == 0   ? 0
		       : strcmp(v, "FAIL") == 0 ? 1
		       : strcmp(v, "INFO") == 0 ? 3
		       : strcmp(v, "SKIP") == 0 ? 4
						: 2]++;
	}
	fprintf(f, "  %zu check%s: %zu passed, %zu failed, %zu errored", json_array_size(checks),
		json_array_size(checks) == 1 ? "" : "s", counts[0], counts[1], counts[2]);
	if (counts[3])
		fprintf(f, ", %zu measured only (nothing expected)", counts[3]);
	if (counts[4])
		fprintf(f, ", %zu skipped (this machine lacks what they require)", counts[4]);
	fputs("\n\n", f);
	json_array_foreach(checks, i, c) text_check(f, c, w);
	text_fleet(f, run);
}

static void text_single(FILE *f, const struct input *in)
{
	char cmd[64], host[256], name[80], val[48];
	int w = 4;

	ix_text_safe(str_or(in->doc, "command", "?"), cmd, sizeof(cmd));
	ix_text_safe(str_or(in->doc, "host", "?"), host, sizeof(host));
	fprintf(f, "ixperf %s: %s on %s\n", cmd, in->time, host);
	if (json_is_string(json_object_get(in->doc, "error"))) {
		char e[256];

		ix_text_safe(str_or(in->doc, "error", ""), e, sizeof(e));
		fprintf(f, "  incomplete: %s\n", e);
	}
	/* A result that judges itself in a sentence (ecmp) says it. */
	json_t *res = json_array_get(json_object_get(in->doc, "results"), 0);
	if (json_is_string(json_object_get(res, "verdict"))) {
		char v[1024];

		ix_text_safe(str_or(res, "verdict", ""), v, sizeof(v));
		fprintf(f, "  verdict: %s\n", v);
	}
	for (size_t i = 0; i < in->n; i++)
		if (!in->figs[i].detail)
			w = (int)strlen(in->figs[i].name) > w ? (int)strlen(in->figs[i].name) : w;
	for (size_t i = 0; i < in->n; i++) {
		if (in->figs[i].detail) /* a mesh's nodes and pairs: its own report has them */
			continue;
		ix_text_safe(in->figs[i].name, name, sizeof(name));
		ix_figure_fmt(&in->figs[i], val, sizeof(val));
		fprintf(f, "  %-*s  %s\n", w, name, val);
	}
	if (!in->n)
		fprintf(f, "  (no figures)\n");
}

static bool in_history(const struct ix_figure *fig, const struct input *hist, size_t nh)
{
	for (size_t j = 0; j < nh; j++)
		if (ix_figures_find(hist[j].figs, hist[j].n, fig->key))
			return true;
	return false;
}

/* One line per headline that an earlier run has too: its values, oldest
 * first (the last TREND_MAX), then this run's. */
static void text_trend(FILE *f, const struct input *in, const struct input *hist, size_t nh)
{
	size_t k = earlier(in, hist, nh), first = k > TREND_MAX ? k - TREND_MAX : 0, lines = 0;
	int wc = 4, wn = 4;

	if (!k) {
		fprintf(f, "\nTrend: no earlier run in the history\n");
		return;
	}
	fprintf(f, "\nTrend: %zu earlier run%s, oldest first%s, then this one:\n", k,
		k == 1 ? "" : "s", first ? " (the last 8)" : "");
	for (size_t i = 0; i < in->n; i++) {
		if (!in->figs[i].headline || !in_history(&in->figs[i], hist + first, k - first))
			continue;
		wc = (int)strlen(in->figs[i].check) > wc ? (int)strlen(in->figs[i].check) : wc;
		wn = (int)strlen(in->figs[i].name) > wn ? (int)strlen(in->figs[i].name) : wn;
	}
	wc = wc < NAME_MAX_WIDTH ? wc : NAME_MAX_WIDTH;
	for (size_t i = 0; i < in->n; i++) {
		const struct ix_figure *fig = &in->figs[i], *h[TREND_MAX];
		char check[256], name[80], val[48];
		size_t found = 0;

		if (!fig->headline)
			continue;
		for (size_t j = first; j < k; j++) {
			h[j - first] = ix_figures_find(hist[j].figs, hist[j].n, fig->key);
			found += h[j - first] != NULL;
		}
		if (!found)
			continue; /* a check the earlier runs did not have */
		ix_text_safe(fig->check, check, sizeof(check));
		ix_text_safe(fig->name, name, sizeof(name));
		fprintf(f, "  %-*s  %-*s", wc, check, wn, name);
		for (size_t j = first; j < k; j++) {
			if (h[j - first])
				ix_figure_fmt(h[j - first], val, sizeof(val));
			else
				snprintf(val, sizeof(val), "-");
			fprintf(f, "  %12s", val);
		}
		ix_figure_fmt(fig, val, sizeof(val));
		fprintf(f, "  -> %s\n", val);
		lines++;
	}
	if (!lines)
		fprintf(f, "  (no check of this run is in the earlier ones)\n");
}

/* A mesh, incast, pattern or mem as its command printed it. */
static void text_multi(FILE *f, const struct multi *m, const struct ix_unit_choice *u)
{
	if (m->error[0])
		fprintf(f, "  the %s result cannot be shown: %s\n",
			m->mem       ? "mem"
			: m->pattern ? "pattern"
			: m->mesh    ? "mesh"
				     : "incast",
			m->error);
	else if (m->mem)
		ix_text_mem(f, &m->mm);
	else if (m->pattern)
		ix_text_pattern(f, &m->p.r, u);
	else if (m->mesh)
		ix_text_mesh_reasons(f, &m->m.r, u, (const char *const *)m->m.reasons,
				     m->m.r.findings.bad_pairs);
	else
		ix_text_incast(f, &m->c.r, u);
	if (!m->error[0])
		text_fleet(f, m->res);
}

static void render_text(FILE *f, const struct input *in, size_t n, const struct input *hist,
			size_t nh, bool trend, const struct ix_unit_choice *u)
{
	for (size_t i = 0; i < n; i++) {
		if (n > 1) {
			char path[512];

			ix_text_safe(in[i].path, path, sizeof(path));
			fprintf(f, "%s==> %s <==\n", i ? "\n" : "", path);
		}
		if (ix_doc_is_run(in[i].doc)) {
			text_run(f, &in[i]);
			for (size_t k = 0; k < in[i].nmulti; k++) {
				char name[256];

				ix_text_safe(in[i].multi[k].check, name, sizeof(name));
				fprintf(f, "\nCheck %s:\n", name);
				text_multi(f, &in[i].multi[k], u);
			}
			if (trend)
				text_trend(f, &in[i], hist, nh);
		} else if (in[i].rails) {
			const struct ix_rails_result *r = &in[i].rails->r;

			ix_text_rails_head(f, r);
			for (size_t k = 0; k < in[i].nmulti && k < r->rails->n; k++) {
				ix_text_rail_title(f, r, (uint32_t)k);
				text_multi(f, &in[i].multi[k], u);
			}
			ix_text_rails_summary(f, r, u);
			text_fleet(f, in[i].rails_res);
		} else if (in[i].nmulti) {
			text_multi(f, &in[i].multi[0], u);
		} else {
			text_single(f, &in[i]);
		}
	}
}

static int render_html(FILE *f, const struct input *in, const struct input *hist, size_t nh,
		       struct ix_err *err)
{
	size_t k = earlier(in, hist, nh);
	json_t **docs = calloc(k + 1, sizeof(*docs));
	int rc;

	if (!docs)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (size_t i = 0; i < k; i++)
		docs[i] = hist[i].doc;
	rc = ix_html_render(f, in->doc, docs, k, err);
	free(docs);
	return rc;
}

int ix_report_html(FILE *f, json_t *doc, const char *history_dir, struct ix_err *err)
{
	struct input in = { .path = (char *)"(this run)", .doc = doc };
	struct input *hist = NULL;
	size_t nh = 0;
	int rc;

	in.time = json_string_value(json_object_get(doc, "time"));
	if (!in.time)
		in.time = "";
	if (history_dir && load_history(history_dir, &hist, &nh, err) < 0)
		nh = 0; /* no history yet: the report has no trends */
	rc = render_html(f, &in, hist, nh, err);
	free_inputs(hist, nh);
	return rc;
}

static int render(struct ix_sink *sink, enum format fmt, const struct input *in, size_t n,
		  const struct input *hist, size_t nh, bool trend, const struct ix_unit_choice *u,
		  struct ix_err *err)
{
	json_t *all;

	switch (fmt) {
	case FMT_TEXT:
		render_text(sink->f, in, n, hist, nh, trend, u);
		return 0;
	case FMT_HTML:
		return render_html(sink->f, in, hist, nh, err);
	case FMT_JSON:
		if (n == 1) {
			ix_sink_put_json(sink, json_incref(in[0].doc));
			return 0;
		}
		all = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append(all, in[i].doc);
		ix_sink_put_json(sink, all);
		return 0;
	case FMT_CSV:
		ix_csv_header(sink->f);
		for (size_t i = 0; i < n; i++)
			ix_csv_rows(sink->f, in[i].path, in[i].figs, in[i].n);
		return 0;
	}
	return 0;
}

static int check_args(const struct report_opts *o, enum format fmt, int nin, struct ix_err *err)
{
	if (nin < 1)
		return ix_fail(err, IX_EXIT_USAGE,
			       "missing RESULT.json (a result saved with --json or -o)");
	if (fmt == FMT_HTML && nin > 1)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--format html renders one result; %d given (use --history for "
			       "earlier runs)",
			       nin);
	if (o->history && (fmt == FMT_JSON || fmt == FMT_CSV))
		return ix_fail(err, IX_EXIT_USAGE, "--history applies to html and text, not %s",
			       format_names[fmt]);
	return 0;
}

int cmd_report(int argc, char **argv, const struct ix_env *env)
{
	struct report_opts o = { 0 };
	struct ix_unit_choice units;
	struct input *in = NULL, *hist = NULL;
	struct ix_err err = { 0 };
	struct ix_sink sink;
	enum format fmt;
	size_t n = 0, nh = 0;
	bool help;
	int pos, rc = IX_EXIT_OK;

	(void)env;
	if (ix_opts_parse(&ix_report_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("report", &err);
	if (help) {
		ix_opts_help(&ix_report_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pick_format(&o, &fmt, &err) < 0 || check_args(&o, fmt, argc - pos, &err) < 0 ||
	    ix_parse_units(o.units ? o.units : "bits", &units, &err) < 0)
		return ix_report_error("report", &err);
	in = calloc((size_t)(argc - pos), sizeof(*in));
	if (!in)
		return IX_EXIT_FAIL;
	/* Fail fast: every input must read before anything is written. */
	for (int i = pos; i < argc; i++, n++) {
		if (load_input(&in[n], argv[i], &err) < 0 ||
		    (fmt == FMT_TEXT && load_multi(&in[n], &err) < 0)) {
			n++;
			goto fail;
		}
	}
	if (o.history && load_history(o.history, &hist, &nh, &err) < 0)
		goto fail;
	if (ix_sink_open(&sink, o.output, &err) < 0)
		goto fail;
	if (render(&sink, fmt, in, n, hist, nh, o.history != NULL, &units, &err) < 0) {
		if (sink.path) {
			fclose(sink.f);
			free(sink.buf);
		}
		goto fail;
	}
	if (ix_sink_commit(&sink, &err) < 0)
		goto fail;
	goto out;
fail:
	rc = ix_report_error("report", &err);
out:
	free_inputs(in, n);
	free_inputs(hist, nh);
	return rc;
}
