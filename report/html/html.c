#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/fmt/units.h"
#include "report/html/html.h"
#include "report/json/json.h"

/* One row of the checks table: a section of a run, or one result item of a
 * single-command document. Every pointer is borrowed from the document. */
struct hcheck {
	const char *name, *probe, *path, *verdict, *error;
	json_t *hosts, *expectations, *results;
	json_t *own; /* results array made for a single-command item */
	char label[64];
	bool has_head;
	double head;
	const char *head_name, *head_unit;
};

struct hdoc {
	json_t *doc, *run;
	const char *verdict;
	struct hcheck *c;
	size_t n;
	double when; /* run time, seconds since the epoch; NAN when unknown */
};

static double parse_time(const char *s)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return NAN;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (double)timegm(&tm);
}

static enum ix_hfmt unit_fmt(const char *unit)
{
	if (unit && strcmp(unit, "bit/s") == 0)
		return IX_HF_RATE;
	if (unit && strcmp(unit, "ns") == 0)
		return IX_HF_NS;
	return IX_HF_PLAIN;
}

/* A figure in its unit: "28.3 Gbit/s", "49.3 us", "3 %". */
static void put_value(FILE *f, double v, const char *unit)
{
	enum ix_hfmt fmt = unit_fmt(unit);
	char buf[64];

	ix_html_fmt(fmt, v, buf, sizeof(buf));
	ix_html_esc(f, buf);
	if (fmt == IX_HF_PLAIN && unit && *unit && isfinite(v)) {
		fputc(' ', f);
		ix_html_esc(f, unit);
	}
}

static bool verdict_ok(const char *v)
{
	return v && (!strcmp(v, "PASS") || !strcmp(v, "FAIL") || !strcmp(v, "ERROR") ||
		     !strcmp(v, "INFO") || !strcmp(v, "SKIP"));
}

static const char *verdict_class(const char *v)
{
	if (v && !strcmp(v, "PASS"))
		return "pass";
	if (v && !strcmp(v, "FAIL"))
		return "fail";
	if (v && (!strcmp(v, "INFO") || !strcmp(v, "SKIP")))
		return "info"; /* measured only, or not run: never a pass */
	return "error";
}

/* The headline and verdict of one result item of a single-command document. */
static void synth_check(struct hcheck *c, json_t *r, size_t i, size_t n, bool by_size)
{
	const char *kind = ix_html_str(r, "kind");
	json_t *steps = json_object_get(r, "steps");
	double v, w;
	char sz[32];

	c->probe = kind;
	c->path = ix_html_str(r, "params.path");
	c->error = ix_html_str(r, "error");
	c->own = json_array();
	json_array_append(c->own, r);
	c->results = c->own;
	c->hosts = json_object_get(r, "server");
	snprintf(c->label, sizeof(c->label), "%s", kind ? kind : "result");
	if (n > 1 && by_size && ix_html_num(r, "params.msg_size", &v)) {
		ix_html_fmt(IX_HF_SIZE, v, sz, sizeof(sz));
		snprintf(c->label, sizeof(c->label), "%s %s", kind ? kind : "result", sz);
	} else if (n > 1) {
		snprintf(c->label, sizeof(c->label), "%s #%zu", kind ? kind : "result", i + 1);
	}
	c->name = c->label;
	c->verdict = "PASS";
	if (json_is_false(json_object_get(r, "complete")) || c->error)
		c->verdict = "ERROR";
	c->head_unit = "bit/s";
	if (kind && !strcmp(kind, "bw")) {
		bool fw = ix_html_num(r, "summary.forward.bits_per_second", &v);
		bool rv = ix_html_num(r, "summary.reverse.bits_per_second", &w);

		c->head_name = "goodput";
		c->has_head = fw || rv;
		c->head = (fw ? v : 0) + (rv ? w : 0);
	} else if (kind && !strcmp(kind, "lat")) {
		c->head_name = "p50 (one-way)";
		c->head_unit = "ns";
		c->has_head = ix_html_num(r, "stats.p50_ns", &c->head);
	} else if (kind && !strcmp(kind, "mesh")) {
		c->path = ix_html_str(r, "params.bw.path");
		c->hosts = json_object_get(r, "hosts");
		c->head_name = "median pair bandwidth";
		c->has_head = ix_html_num(r, "median_bw_bps", &c->head);
		if (ix_html_str(r, "rail.name"))
			snprintf(c->label, sizeof(c->label), "rail %s",
				 ix_html_str(r, "rail.name"));
		if (json_is_true(json_object_get(json_object_get(r, "rail"), "bad")))
			c->verdict = "FAIL";
		if (!c->has_head && ix_html_num(r, "min_lat_ns", &c->head)) {
			c->head_name = "min pair latency";
			c->head_unit = "ns";
			c->has_head = true;
		}
		if (strcmp(c->verdict, "ERROR") &&
		    (json_array_size(json_object_get(r, "bad_pairs")) ||
		     json_array_size(json_object_get(r, "suspects"))))
			c->verdict = "FAIL";
	} else if (kind && !strcmp(kind, "rails")) {
		c->probe = "mesh"; /* drawn with the mesh's, as in a plan's check */
		snprintf(c->label, sizeof(c->label), "rails");
		if (strcmp(c->verdict, "ERROR") && json_array_size(json_object_get(r, "bad_rails")))
			c->verdict = "FAIL";
	} else if (kind && !strcmp(kind, "gpu")) {
		c->path = ix_html_str(r, "backend.name");
		c->hosts = NULL;
	} else if (kind && !strcmp(kind, "coll")) {
		const char *culprit = ix_html_str(r, "verdict.culprit");

		c->path = ix_html_str(r, "library");
		c->hosts = NULL;
		c->head_name = "average bus bandwidth";
		c->head_unit = "GB/s";
		c->has_head = ix_html_num(r, "avg_busbw_Bps", &c->head);
		c->head /= 1e9;
		if (strcmp(c->verdict, "ERROR") && ((ix_html_num(r, "wrong", &v) && v > 0) ||
						    (culprit && strcmp(culprit, "none") != 0)))
			c->verdict = "FAIL";
	} else if (kind && !strcmp(kind, "mem")) {
		json_t *cell;
		size_t k;

		c->path = NULL;
		c->hosts = NULL;
		c->head_name = "highest read bandwidth";
		c->head_unit = "GB/s";
		json_array_foreach(json_object_get(r, "cells"), k, cell)
		{
			if (ix_html_num(cell, "bandwidth_Bps.read", &v) &&
			    (!c->has_head || v / 1e9 > c->head)) {
				c->head = v / 1e9;
				c->has_head = true;
			}
		}
		if (strcmp(c->verdict, "ERROR") && json_array_size(json_object_get(r, "slow")))
			c->verdict = "FAIL";
	} else if (kind && !strcmp(kind, "ib_fabric")) {
		c->hosts = NULL;
		c->path = "infiniband";
		if (strcmp(c->verdict, "ERROR") &&
		    (json_array_size(json_object_get(r, "findings")) ||
		     json_array_size(json_object_get(json_object_get(r, "blame"), "elements"))))
			c->verdict = "FAIL";
	} else if (kind && !strcmp(kind, "pattern")) {
		c->hosts = json_object_get(r, "hosts");
		c->head_name = "median per host";
		c->has_head = ix_html_num(r, "median_bps", &c->head);
		if (strcmp(c->verdict, "ERROR") && ix_html_num(r, "bad_hosts", &v) && v > 0)
			c->verdict = "FAIL";
	} else if (kind && !strcmp(kind, "incast")) {
		c->hosts = json_object_get(r, "receiver");
		c->head_name = "goodput at the largest fan-in";
		c->has_head = ix_html_num(json_array_get(steps, json_array_size(steps) - 1),
					  "goodput_bps", &c->head);
	}
}

static void run_check(struct hcheck *c, json_t *o)
{
	c->name = ix_html_str(o, "name");
	c->probe = ix_html_str(o, "probe");
	c->path = ix_html_str(o, "path");
	c->verdict = ix_html_str(o, "verdict");
	c->error = ix_html_str(o, "error");
	if (!c->error) /* a SKIP: why it did not run */
		c->error = ix_html_str(o, "reason");
	c->hosts = json_object_get(o, "hosts");
	c->expectations = json_object_get(o, "expectations");
	c->results = json_object_get(o, "results");
	c->head_name = ix_html_str(o, "headline.name");
	c->head_unit = ix_html_str(o, "headline.unit");
	c->has_head = ix_html_num(o, "headline.value", &c->head);
}

static void doc_free(struct hdoc *d)
{
	for (size_t i = 0; d->c && i < d->n; i++)
		json_decref(d->c[i].own);
	free(d->c);
	d->c = NULL;
	d->n = 0;
}

static const char *derive_verdict(const struct hdoc *d)
{
	const char *v = "PASS";

	if (json_is_false(json_object_get(d->doc, "complete")) ||
	    json_is_string(json_object_get(d->doc, "error")))
		v = "ERROR";
	for (size_t i = 0; i < d->n; i++) {
		const char *cv = d->c[i].verdict;

		if (!verdict_ok(cv) || !strcmp(cv, "ERROR"))
			v = "ERROR";
		else if (!strcmp(cv, "FAIL") && strcmp(v, "ERROR"))
			v = "FAIL";
	}
	return v;
}

static bool sizes_differ(json_t *results)
{
	double first = 0, v;

	for (size_t i = 0; i < json_array_size(results); i++) {
		if (!ix_html_num(json_array_get(results, i), "params.msg_size", &v))
			continue;
		if (i > 0 && v != first)
			return true;
		first = v;
	}
	return false;
}

static int doc_load(json_t *doc, struct hdoc *d, struct ix_err *err)
{
	const char *tool = ix_html_str(doc, "tool.name");
	json_t *res = json_object_get(doc, "results"), *checks;
	size_t n;
	bool differ;

	memset(d, 0, sizeof(*d));
	d->doc = doc;
	if (!json_is_object(doc))
		return ix_fail(err, IX_EXIT_USAGE, "not an ixperf document: not a JSON object");
	if (!json_is_integer(json_object_get(doc, "schema_version")))
		return ix_fail(err, IX_EXIT_USAGE, "not an ixperf document: no \"schema_version\"");
	if (!tool || strcmp(tool, "ixperf"))
		return ix_fail(err, IX_EXIT_USAGE,
			       "not an ixperf document: \"tool.name\" is not \"ixperf\"");
	if (!json_is_array(res))
		return ix_fail(err, IX_EXIT_USAGE, "not an ixperf document: no \"results\" array");
	if (json_is_string(json_object_get(json_array_get(res, 0), "kind")) &&
	    !strcmp(ix_html_str(json_array_get(res, 0), "kind"), "run"))
		d->run = json_array_get(res, 0);
	checks = d->run ? json_object_get(d->run, "checks") : res;
	n = json_array_size(checks);
	differ = !d->run && sizes_differ(res);
	d->c = calloc(n ? n : 1, sizeof(*d->c));
	if (!d->c)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	d->n = n;
	for (size_t i = 0; i < n; i++) {
		if (d->run)
			run_check(&d->c[i], json_array_get(checks, i));
		else
			synth_check(&d->c[i], json_array_get(checks, i), i, n, differ);
	}
	d->verdict = d->run ? ix_html_str(d->run, "verdict") : NULL;
	if (!verdict_ok(d->verdict))
		d->verdict = derive_verdict(d);
	d->when = parse_time(d->run ? ix_html_str(d->run, "started") : NULL);
	if (isnan(d->when))
		d->when = parse_time(ix_html_str(doc, "time"));
	return 0;
}

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
	"margin:0;color:#1b1b1b;background:#fff}main{max-width:1180px;margin:0 auto;"
	"padding:0 16px 32px}h2{margin:28px 0 6px;border-bottom:1px solid #ccc}"
	"h3{margin:16px 0 4px;font-size:15px}"
	".banner{display:flex;gap:20px;align-items:center;padding:14px 22px;color:#fff}"
	".banner h1{margin:0;font-size:22px}.banner p{margin:2px 0}"
	".big{font-size:30px;font-weight:700;border:3px solid #fff;padding:4px 14px}"
	".banner.pass{background:#1a7f37}.banner.fail{background:#c62828}"
	".banner.error{background:#b26a00}.banner.info{background:#455a64}"
	"table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #ccc;"
	"padding:3px 7px;text-align:left;vertical-align:top}th{background:#f0f0f0}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"ul.ex{margin:0;padding-left:16px}code{font-size:12px}"
	".badge{display:inline-block;padding:0 6px;border:1px solid;font-weight:700;"
	"font-size:12px}.badge.pass{color:#1a7f37}.badge.fail{color:#c62828;border-width:2px}"
	".badge.error{color:#b26a00;border-style:dashed;border-width:2px}"
	".badge.info{color:#455a64;border-style:dotted}"
	".errbox{border-left:4px solid #b26a00;background:#fff6e5;padding:4px 10px;"
	"white-space:pre-wrap}.diag{border-left:4px solid #555;background:#f4f4f4;"
	"padding:4px 10px}dl.facts{display:grid;grid-template-columns:max-content auto;"
	"gap:1px 12px;margin:6px 0}dl.facts dt{color:#555}dl.facts dd{margin:0}"
	"svg.chart{width:100%;max-width:680px;height:auto;display:block;margin:6px 0}"
	"svg text{font:11px system-ui,sans-serif;fill:#222}.muted{color:#666}"
	".heatmap{overflow:auto}canvas.hm{image-rendering:pixelated;border:1px solid #999}"
	".hmtip{min-height:1.4em;font-family:monospace}tr.sus td{background:#fde8d7}"
	"tr.warn td,td.warn{background:#fff3cd}tr.fail td{background:#fde0dc}"
	"@media print{.banner{-webkit-print-color-adjust:exact;print-color-adjust:exact}}";

static void put_hosts(FILE *f, json_t *hosts)
{
	size_t n = json_array_size(hosts);

	if (json_is_string(hosts)) {
		ix_html_esc(f, json_string_value(hosts));
		return;
	}
	if (!n)
		fputc('-', f);
	for (size_t i = 0; i < n && i < 3; i++) {
		if (i)
			fputs(", ", f);
		ix_html_esc(f, json_string_value(json_array_get(hosts, i)));
	}
	if (n > 3)
		fprintf(f, " <span class=\"muted\">+%zu more</span>", n - 3);
}

static void put_badge(FILE *f, const char *v)
{
	fprintf(f, "<span class=\"badge %s\">", verdict_class(v));
	ix_html_esc(f, v);
	fputs("</span>", f);
}

static void banner(FILE *f, const struct hdoc *d)
{
	const char *name = d->run ? ix_html_str(d->run, "name") : NULL;
	const char *cmd = ix_html_str(d->doc, "command");
	const char *when = d->run ? ix_html_str(d->run, "started") : NULL;
	const char *err = ix_html_str(d->doc, "error");
	double dur;

	fprintf(f, "<header class=\"banner %s\"><div class=\"big\">", verdict_class(d->verdict));
	ix_html_esc(f, d->verdict);
	fputs("</div><div><h1>", f);
	if (name) {
		ix_html_esc(f, name);
	} else {
		fputs("ixperf ", f);
		ix_html_esc(f, cmd);
	}
	fputs("</h1><p>host <b>", f);
	ix_html_esc(f, ix_html_str(d->doc, "host"));
	fputs("</b> &middot; started <b>", f);
	ix_html_esc(f, when ? when : ix_html_str(d->doc, "time"));
	fputs("</b> &middot; duration <b>", f);
	if (d->run && ix_html_num(d->run, "duration_s", &dur))
		fprintf(f, "%.1f s", dur);
	else
		fputc('-', f);
	fprintf(f, "</b> &middot; %zu check%s</p>", d->n, d->n == 1 ? "" : "s");
	if (err) {
		fputs("<p>error: ", f);
		ix_html_esc(f, err);
		fputs("</p>", f);
	}
	fputs("</div></header>\n", f);
}

static void expectation(FILE *f, json_t *e)
{
	const char *key = ix_html_str(e, "key"), *unit = ix_html_str(e, "unit");
	json_t *pass = json_object_get(e, "pass");
	double v;

	fprintf(f, "<li><code>");
	ix_html_esc(f, key);
	fputs("</code> ", f);
	fputs(key && !strncmp(key, "min", 3)   ? "&ge; "
	      : key && !strncmp(key, "max", 3) ? "&le; "
					       : "limit ",
	      f);
	if (ix_html_num(e, "limit", &v))
		put_value(f, v, unit);
	else
		fputc('-', f);
	if (ix_html_str(e, "text")) {
		fputs(" <span class=\"muted\">(", f);
		ix_html_esc(f, ix_html_str(e, "text"));
		fputs(")</span>", f);
	}
	fputs(": measured ", f);
	if (ix_html_num(e, "measured", &v))
		put_value(f, v, unit);
	else
		fputc('-', f);
	fputc(' ', f);
	put_badge(f, json_is_true(pass) ? "PASS" : json_is_false(pass) ? "FAIL" : "ERROR");
	for (size_t i = 0; i < json_array_size(json_object_get(e, "findings")); i++) {
		fputs("<br><span class=\"muted\">", f);
		ix_html_esc(f,
			    json_string_value(json_array_get(json_object_get(e, "findings"), i)));
		fputs("</span>", f);
	}
	fputs("</li>", f);
}

static void checks_table(FILE *f, const struct hdoc *d)
{
	fputs("<h2 id=\"checks\">Checks</h2>\n<table class=\"checks\"><thead><tr><th>Check</th>"
	      "<th>Probe</th><th>Path</th><th>Hosts</th><th>Headline</th><th>Expectations</th>"
	      "<th>Verdict</th><th>Error</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < d->n; i++) {
		const struct hcheck *c = &d->c[i];
		size_t ne = json_array_size(c->expectations);

		fprintf(f, "<tr class=\"%s\"><td><a href=\"#c%zu\">", verdict_class(c->verdict), i);
		ix_html_esc(f, c->name);
		fputs("</a></td><td>", f);
		ix_html_esc(f, c->probe);
		fputs("</td><td>", f);
		ix_html_esc(f, c->path);
		fputs("</td><td>", f);
		put_hosts(f, c->hosts);
		fputs("</td><td>", f);
		if (c->head_name) {
			ix_html_esc(f, c->head_name);
			fputc(' ', f);
		}
		fputs("<b>", f);
		if (c->has_head)
			put_value(f, c->head, c->head_unit);
		else
			fputc('-', f);
		fputs("</b></td><td>", f);
		if (ne)
			fputs("<ul class=\"ex\">", f);
		for (size_t k = 0; k < ne; k++)
			expectation(f, json_array_get(c->expectations, k));
		fputs(ne ? "</ul>" : "-", f);
		fputs("</td><td>", f);
		put_badge(f, c->verdict);
		fputs("</td><td>", f);
		ix_html_esc(f, c->error);
		fputs("</td></tr>\n", f);
	}
	if (!d->n)
		fputs("<tr><td colspan=\"8\">no checks in this document</td></tr>\n", f);
	fputs("</tbody></table>\n", f);
}

/* Per-check section with the charts of its probe; true when a canvas heatmap was drawn. */
static bool check_section(FILE *f, const struct hcheck *c, size_t i, int *mesh_id)
{
	const char *p = c->probe ? c->probe : "";
	size_t n = json_array_size(c->results);
	bool canvas = false, dup = false;

	fprintf(f, "<section class=\"check\" id=\"c%zu\"><h2>", i);
	ix_html_esc(f, c->name);
	fputc(' ', f);
	put_badge(f, c->verdict);
	fputs("</h2><p class=\"muted\">probe ", f);
	ix_html_esc(f, c->probe);
	fputs(" &middot; path ", f);
	ix_html_esc(f, c->path);
	fputs(" &middot; hosts ", f);
	put_hosts(f, c->hosts);
	fputs("</p>\n", f);
	for (size_t k = 0; c->error && k < n; k++) { /* shown with the result already */
		const char *e = ix_html_str(json_array_get(c->results, k), "error");

		if (e && !strcmp(e, c->error))
			dup = true;
	}
	if (c->error && !dup) {
		fputs("<p class=\"errbox\">", f);
		ix_html_esc(f, c->error);
		fputs("</p>\n", f);
	}
	if (!strcmp(p, "bw") && n && !ix_html_rdma(f, c->results)) {
		ix_html_bw(f, c->results);
	} else if (strcmp(p, "bw") != 0) {
		for (size_t k = 0; k < n; k++) {
			json_t *r = json_array_get(c->results, k);

			if (!strcmp(p, "lat"))
				ix_html_lat(f, r);
			else if (ix_html_str(r, "kind") && !strcmp(ix_html_str(r, "kind"), "rails"))
				ix_html_rails(f, r); /* a rail mesh's rails side by side */
			else if (ix_html_str(r, "kind") &&
				 !strcmp(ix_html_str(r, "kind"), "pattern"))
				ix_html_pattern(f, r); /* a plan's mesh check with a pattern */
			else if (!strcmp(p, "mesh"))
				canvas |= ix_html_mesh(f, r, (*mesh_id)++);
			else if (!strcmp(p, "incast"))
				ix_html_incast(f, r);
			else if (!strcmp(p, "gpu"))
				ix_html_gpu(f, r);
			else if (!strcmp(p, "coll"))
				ix_html_coll(f, r);
			else if (!strcmp(p, "mem"))
				ix_html_mem(f, r);
			else if (!strcmp(p, "topo")) {
				ix_html_topo_tree(f, r);
				ix_html_memory(f, r);
			} else if (!strcmp(p, "ib_fabric"))
				ix_html_ibfab(f, r);
		}
	}
	for (size_t k = 0; k < n; k++) { /* what a capture saw, with the result it went with */
		ix_html_wire(f, json_object_get(json_array_get(c->results, k), "wire"));
		ix_html_fleet(f, json_object_get(json_array_get(c->results, k), "fleet"));
	}
	if (!n)
		fputs("<p class=\"muted\">no results</p>\n", f);
	fputs("</section>\n", f);
	return canvas;
}

/* Trend of each check's headline across the history runs, the current run last. */
static void trends(FILE *f, const struct hdoc *d, json_t *const *history, size_t nh)
{
	struct hdoc *h = calloc(nh ? nh : 1, sizeof(*h));
	double *x = calloc(nh + 1, sizeof(*x)), *y = calloc(nh + 1, sizeof(*y));
	size_t bad = 0, drawn = 0;
	bool timed = isfinite(d->when);

	if (!h || !x || !y)
		goto out;
	for (size_t k = 0; k < nh; k++) {
		if (doc_load(history[k], &h[k], NULL) < 0) {
			doc_free(&h[k]);
			h[k].doc = NULL;
			bad++;
		} else if (!isfinite(h[k].when)) {
			timed = false;
		}
	}
	fprintf(f, "<h2 id=\"trends\">Trends over %zu earlier run%s</h2>\n", nh - bad,
		nh - bad == 1 ? "" : "s");
	if (bad)
		fprintf(f,
			"<p class=\"muted\">%zu history document%s skipped: not ixperf "
			"documents.</p>\n",
			bad, bad == 1 ? " was" : "s were");
	for (size_t i = 0; i < d->n; i++) {
		const struct hcheck *c = &d->c[i];
		struct ix_hseries s[2];
		struct ix_hchart ch = { 0 };
		size_t m = 0;
		char title[160];

		if (!c->name)
			continue;
		for (size_t k = 0; k < nh; k++) {
			for (size_t j = 0; h[k].doc && j < h[k].n; j++) {
				const struct hcheck *o = &h[k].c[j];

				if (!o->name || strcmp(o->name, c->name) || !o->has_head ||
				    (o->head_unit && c->head_unit &&
				     strcmp(o->head_unit, c->head_unit)))
					continue;
				x[m] = timed ? h[k].when : (double)k + 1;
				y[m] = o->head;
				for (size_t j2 = m++; j2 > 0 && x[j2 - 1] > x[j2]; j2--) {
					double tx = x[j2], ty = y[j2]; /* oldest first */

					x[j2] = x[j2 - 1], y[j2] = y[j2 - 1];
					x[j2 - 1] = tx, y[j2 - 1] = ty;
				}
				break;
			}
		}
		if (!m)
			continue;
		x[m] = timed ? d->when : (double)nh + 1;
		y[m] = c->has_head ? c->head : NAN;
		s[0] = (struct ix_hseries){ "earlier runs", x, y, m + 1 };
		s[1] = (struct ix_hseries){ "this run", x + m, y + m, 1 };
		snprintf(title, sizeof(title), "%s: %s", c->name, c->head_name ? c->head_name : "");
		ch.title = title;
		ch.xlabel = timed ? "run time (UTC)" : "run";
		ch.ylabel = c->head_name ? c->head_name : c->head_unit;
		ch.xf = timed ? IX_HF_TIME : IX_HF_PLAIN;
		ch.xint = !timed;
		ch.yf = unit_fmt(c->head_unit);
		ix_html_chart(f, &ch, s, 2);
		drawn++;
	}
	if (!drawn)
		fputs("<p class=\"muted\">no check of this run appears in the earlier runs</p>\n",
		      f);
out:
	for (size_t k = 0; h && k < nh; k++)
		doc_free(&h[k]);
	free(h);
	free(x);
	free(y);
}

static void kv(FILE *f, const char *k, const char *v)
{
	fprintf(f, "<tr><th>%s</th><td>", k);
	ix_html_esc(f, v);
	fputs("</td></tr>\n", f);
}

static void kv_num(FILE *f, const char *k, json_t *o, const char *path, enum ix_hfmt fmt)
{
	fprintf(f, "<tr><th>%s</th><td>", k);
	ix_html_numf(f, o, path, fmt);
	fputs("</td></tr>\n", f);
}

static void environment(FILE *f, const struct hdoc *d)
{
	json_t *inv = d->run ? json_object_get(d->run, "inventory") : NULL;
	json_t *ifs = json_object_get(inv, "interfaces"), *argv;
	char buf[64];
	double mem;

	fputs("<h2 id=\"env\">Host inventory and environment</h2>\n", f);
	if (json_is_object(inv)) {
		fputs("<table class=\"kv\">\n", f);
		kv(f, "Host name", ix_html_str(inv, "hostname"));
		kv(f, "Kernel", ix_html_str(inv, "kernel"));
		kv(f, "OS", ix_html_str(inv, "os"));
		kv_num(f, "CPUs", inv, "cpus", IX_HF_PLAIN);
		kv(f, "CPU model", ix_html_str(inv, "cpu_model"));
		fputs("<tr><th>Memory</th><td>", f);
		if (ix_html_num(inv, "memory_bytes", &mem)) {
			ix_fmt_bytes(mem, NULL, buf, sizeof(buf));
			ix_html_esc(f, buf);
		} else {
			fputc('-', f);
		}
		fputs("</td></tr>\n</table>\n<h3>Interfaces</h3>\n<table><thead><tr><th>Name</th>"
		      "<th>MTU</th><th>Speed</th><th>State</th></tr></thead><tbody>\n",
		      f);
		for (size_t i = 0; i < json_array_size(ifs); i++) {
			json_t *e = json_array_get(ifs, i);

			fputs("<tr><td>", f);
			ix_html_esc(f, ix_html_str(e, "name"));
			fputs("</td><td class=\"n\">", f);
			ix_html_numf(f, e, "mtu", IX_HF_PLAIN);
			fputs("</td><td class=\"n\">", f);
			ix_html_numf(f, e, "speed_bps", IX_HF_RATE);
			fputs("</td><td>", f);
			ix_html_esc(f, ix_html_str(e, "state"));
			fputs("</td></tr>\n", f);
		}
		if (!json_array_size(ifs))
			fputs("<tr><td colspan=\"4\">-</td></tr>\n", f);
		fputs("</tbody></table>\n", f);
	} else {
		fputs("<p class=\"muted\">no host inventory in this document (only <code>ixperf "
		      "run</code> records one)</p>\n",
		      f);
	}
	fputs("<h3>Environment</h3>\n<table class=\"kv\">\n", f);
	kv(f, "ixperf version", ix_html_str(d->doc, "tool.version"));
	kv_num(f, "Schema version", d->doc, "schema_version", IX_HF_PLAIN);
	kv(f, "Command", ix_html_str(d->doc, "command"));
	fputs("<tr><th>Command line</th><td><code>", f);
	argv = json_object_get(d->doc, "command_line");
	for (size_t i = 0; i < json_array_size(argv); i++) {
		if (i)
			fputc(' ', f);
		ix_html_esc(f, json_string_value(json_array_get(argv, i)));
	}
	fputs(json_array_size(argv) ? "</code></td></tr>\n" : "-</code></td></tr>\n", f);
	if (d->run)
		kv(f, "Plan file",
		   json_is_string(json_object_get(d->run, "plan_file"))
			   ? ix_html_str(d->run, "plan_file")
			   : "(the embedded default plan)");
	kv(f, "Document host", ix_html_str(d->doc, "host"));
	kv(f, "Document time", ix_html_str(d->doc, "time"));
	if (d->run)
		kv(f, "Finished", ix_html_str(d->run, "finished"));
	kv(f, "Complete",
	   json_is_true(json_object_get(d->doc, "complete"))    ? "yes"
	   : json_is_false(json_object_get(d->doc, "complete")) ? "no"
								: NULL);
	fputs("</table>\n", f);
}

int ix_html_render(FILE *f, json_t *doc, json_t *const *history, size_t nhistory,
		   struct ix_err *err)
{
	struct hdoc d;
	bool canvas = false;
	int mesh_id = 0;

	if (doc_load(doc, &d, err) < 0) {
		doc_free(&d);
		return -1;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>ixperf ",
	      f);
	ix_html_esc(f, d.run ? ix_html_str(d.run, "name") : ix_html_str(doc, "command"));
	fputs(": ", f);
	ix_html_esc(f, d.verdict);
	fprintf(f, "</title>\n<style>%s</style>\n</head><body>\n", css);
	banner(f, &d);
	fputs("<main>\n", f);
	if (json_integer_value(json_object_get(doc, "schema_version")) > IX_JSON_SCHEMA_VERSION)
		fprintf(f,
			"<p class=\"errbox\">This document has schema version %lld; this "
			"renderer knows version %d, so newer fields are not shown.</p>\n",
			(long long)json_integer_value(json_object_get(doc, "schema_version")),
			IX_JSON_SCHEMA_VERSION);
	checks_table(f, &d);
	if (!d.run && d.n > 1 && !strcmp(d.c[0].probe ? d.c[0].probe : "", "bw")) {
		json_t *res = json_object_get(doc, "results");

		if (sizes_differ(res)) {
			fputs("<section><h2>Bandwidth vs message size</h2>\n", f);
			ix_html_bw_sweep(f, res);
			fputs("</section>\n", f);
		}
	}
	for (size_t i = 0; i < d.n; i++)
		canvas |= check_section(f, &d.c[i], i, &mesh_id);
	if (nhistory && history)
		trends(f, &d, history, nhistory);
	if (d.run) {
		ix_html_topo(f, d.run);
		ix_html_fleet(f, json_object_get(d.run, "fleet"));
	}
	environment(f, &d);
	fputs("<p class=\"muted\">Rendered by ixperf " PACKAGE_VERSION " from a result document; "
	      "this page is self-contained and fetches nothing.</p>\n</main>\n",
	      f);
	if (canvas)
		ix_html_mesh_script(f);
	fputs("</body></html>\n", f);
	doc_free(&d);
	if (fflush(f) != 0 || ferror(f))
		return ix_fail(err, IX_EXIT_FAIL, "cannot write the HTML report");
	return 0;
}
