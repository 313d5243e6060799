/* The chat message of ixperf post, and the check that a document is an
 * ixperf result (the Prometheus exposition is prom.c). Builders only: no
 * I/O. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fmt/units.h"
#include "report/doc/verdict.h"
#include "report/post/jdoc.h"
#include "report/post/post.h"

int ix_post_check_doc(json_t *doc, struct ix_err *err)
{
	const char *tool = jstr(json_object_get(doc, "tool"), "name");
	json_t *v = json_object_get(doc, "schema_version");

	if (!json_is_object(doc) || !tool || strcmp(tool, "ixperf") != 0 || !jstr(doc, "command") ||
	    !json_is_array(json_object_get(doc, "results")))
		return ix_fail(err, IX_EXIT_FAIL,
			       "not an ixperf result document (no tool.name \"ixperf\", command "
			       "and results)");
	if (!json_is_integer(v) || json_integer_value(v) < 1)
		return ix_fail(err, IX_EXIT_FAIL,
			       "not an ixperf result document: no schema_version");
	if (json_integer_value(v) > 1)
		return ix_fail(err, IX_EXIT_FAIL,
			       "schema_version %lld is newer than this ixperf reads (1)",
			       (long long)json_integer_value(v));
	return 0;
}

/* ---- chat: Slack / Mattermost incoming webhook ------------------------------- */

/* Text from the document: no control characters (a name cannot forge
 * lines), Slack's &<> escaped (no <!channel> from a hostile name), and in
 * `code` no backticks (Mattermost does not expand mentions in code). */
static void chat_text(FILE *f, const char *s, bool code)
{
	if (code)
		fputc('`', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c < 0x20 || c == 0x7f || (code && c == '`'))
			fputc(c == '`' ? '\'' : ' ', f);
		else
			fputc(c, f);
	}
	if (code)
		fputc('`', f);
}

static void chat_figure(char *buf, size_t len, json_t *value, const char *unit)
{
	double v;

	if (!jnum(value, NULL, &v))
		snprintf(buf, len, "n/a");
	else if (unit && strcmp(unit, "bit/s") == 0)
		ix_fmt_rate(v, NULL, buf, len);
	else if (unit && strcmp(unit, "ns") == 0)
		ix_fmt_ns(v, buf, len);
	else
		snprintf(buf, len, "%g %s", v, unit ? unit : "");
}

static void chat_check(FILE *f, json_t *c)
{
	json_t *h = json_object_get(c, "headline"), *x;
	const char *verdict = jstr(c, "verdict");
	char fig[64];
	size_t i;

	fprintf(f, "\n• %s ", verdict ? verdict : "?");
	chat_text(f, jstr(c, "name"), true);
	if (json_is_object(h)) {
		chat_figure(fig, sizeof(fig), json_object_get(h, "value"), jstr(h, "unit"));
		fputs(" ", f);
		chat_text(f, jstr(h, "name"), false);
		fprintf(f, ": %s", fig);
	}
	json_array_foreach(json_object_get(c, "expectations"), i, x)
	{
		if (json_is_true(json_object_get(x, "pass")))
			continue;
		chat_figure(fig, sizeof(fig), json_object_get(x, "measured"), jstr(x, "unit"));
		fputs(" (failed ", f);
		chat_text(f, jstr(x, "key"), false);
		fputs(" ", f);
		chat_text(f, jstr(x, "text"), false);
		fprintf(f, ": measured %s)", fig);
	}
	if (jstr(c, "error")) {
		fputs(" error: ", f);
		chat_text(f, jstr(c, "error"), false);
	}
}

/* "FIG against REF (N%)": a figure and what it was judged against. */
static void chat_against(FILE *f, json_t *fig, json_t *ref, const char *unit, const char *what)
{
	char a[64], b[64];
	double x, y;

	chat_figure(a, sizeof(a), fig, unit);
	chat_figure(b, sizeof(b), ref, unit);
	fprintf(f, " %s against %s %s", a, what, b);
	if (jnum(fig, NULL, &x) && jnum(ref, NULL, &y) && y > 0)
		fprintf(f, " (%.0f%%)", 100.0 * x / y);
}

/* mesh --pattern: its hosts, how many are bad and the worst of them (the
 * lowest share of its reference; the lowest host when none is bad), what
 * was not measured, and the pattern's own verdict. */
static void chat_pattern(FILE *f, json_t *r)
{
	json_t *nodes = json_object_get(r, "nodes"), *nd, *worst = NULL;
	double bad = 0, failed = 0, low = 0, v;
	size_t i, unjudged = 0;

	json_array_foreach(nodes, i, nd)
	{
		if (!jnum(nd, "percent", &v)) {
			unjudged++;
			continue;
		}
		if (!worst || v < low) {
			worst = nd;
			low = v;
		}
	}
	jnum(r, "bad_hosts", &bad);
	fputs(" ", f);
	chat_text(f, jstr(r, "pattern"), false);
	fprintf(f, " over %zu hosts, %.0f bad host(s)",
		json_array_size(json_object_get(r, "hosts")), bad);
	if (worst) {
		const char *against = jstr(worst, "against");

		fprintf(f, ", %s ", bad > 0 ? "worst" : "lowest");
		chat_text(f, jstr(worst, "host"), true);
		chat_against(f, json_object_get(worst, "figure_bps"),
			     json_object_get(worst, "against_bps"), "bit/s",
			     against && strcmp(against, "line_rate") == 0 ? "its line rate"
									  : "the median");
	}
	if (jnum(r, "tests_failed", &failed) && failed > 0)
		fprintf(f, "; INCOMPLETE: %.0f of %zu test(s) failed", failed,
			json_array_size(json_object_get(r, "tests")));
	if (unjudged)
		fprintf(f, "%s %zu host(s) not judged",
			failed > 0 ? "," : "; INCOMPLETE:", unjudged);
	if (jstr(r, "verdict")) {
		fputs("; ", f);
		chat_text(f, jstr(r, "verdict"), false);
	}
}

/* The worst of the bad rails: the lowest share of the reference, else
 * (bad by latency) the first. */
static json_t *worst_rail(json_t *rails)
{
	json_t *x, *worst = NULL;
	double low = 0, m, v;
	size_t i;

	json_array_foreach(rails, i, x)
	{
		if (!json_is_true(json_object_get(x, "bad")))
			continue;
		v = jnum(x, "median_bw_bps", &m) ? m : 1e300;
		if (!worst || v < low) {
			worst = x;
			low = v;
		}
	}
	return worst;
}

/* mesh --rails: the rails, how many are bad and the worst against the
 * rails' reference, the bad pairs over every rail's mesh and the worst
 * of them, and what was not measured. */
static void chat_rails(FILE *f, json_t *results)
{
	json_t *rs = json_array_get(results, json_array_size(results) - 1), *r, *p, *wp = NULL;
	json_t *worst = worst_rail(json_object_get(rs, "rails"));
	double planned = 0, measured = 0, v, low = 0;
	size_t i, j, nbad = 0;

	json_array_foreach(results, i, r)
	{
		if (!jstr(r, "kind") || strcmp(jstr(r, "kind"), "mesh") != 0)
			continue;
		planned += jnum(json_object_get(r, "pairs"), "planned", &v) ? v : 0;
		measured += jnum(json_object_get(r, "pairs"), "measured", &v) ? v : 0;
		json_array_foreach(json_object_get(r, "bad_pairs"), j, p)
		{
			nbad++;
			v = jnum(p, "bw_bps", &v) ? v : 1e300;
			if (!wp || v < low) {
				wp = p;
				low = v;
			}
		}
	}
	fprintf(f, " rails over %zu hosts, %zu rail(s), %zu bad rail(s)",
		json_array_size(json_object_get(rs, "nodes")),
		json_array_size(json_object_get(rs, "rails")),
		json_array_size(json_object_get(rs, "bad_rails")));
	if (worst) {
		fputs(", worst ", f);
		chat_text(f, jstr(worst, "name"), true);
		if (json_is_number(json_object_get(worst, "median_bw_bps"))) {
			fputs(" median", f);
			chat_against(f, json_object_get(worst, "median_bw_bps"),
				     json_object_get(rs, "ref_bw_bps"), "bit/s", "the rails'");
		} else {
			fputs(": ", f);
			chat_text(f, jstr(worst, "reason"), false);
		}
	}
	fprintf(f, "; %zu bad pair(s)", nbad);
	if (wp) {
		fputs(", worst ", f);
		chat_text(f, jstr(wp, "from"), true);
		fputs(" -> ", f);
		chat_text(f, jstr(wp, "to"), true);
		fputs(": ", f);
		chat_text(f, jstr(wp, "reason"), false);
	}
	if (measured < planned)
		fprintf(f, "; INCOMPLETE: %.0f pair(s) not measured", planned - measured);
}

/* A rails document: its rails' meshes, then the rails side by side. */
static bool is_rails(json_t *results)
{
	const char *k = jstr(json_array_get(results, json_array_size(results) - 1), "kind");

	return k && strcmp(k, "rails") == 0;
}

/* A single command: one line from its last result. */
static void chat_result(FILE *f, json_t *r)
{
	const char *kind = jstr(r, "kind");
	json_t *st = json_object_get(r, "stats"), *steps = json_object_get(r, "steps"), *last;
	char a[64], b[64];
	double v;

	if (!kind)
		return;
	if (strcmp(kind, "bw") == 0) {
		json_t *s = json_object_get(r, "summary");
		for (int d = 0; d < 2; d++) {
			json_t *dir = json_object_get(s, d ? "reverse" : "forward");
			if (jnum(dir, "bits_per_second", &v)) {
				ix_fmt_rate(v, NULL, a, sizeof(a));
				fprintf(f, "%s %s", d ? " reverse" : " goodput", a);
			}
		}
	} else if (strcmp(kind, "lat") == 0) {
		chat_figure(a, sizeof(a), json_object_get(st, "p50_ns"), "ns");
		chat_figure(b, sizeof(b), json_object_get(st, "p99_ns"), "ns");
		fprintf(f, " latency p50 %s, p99 %s", a, b);
	} else if (strcmp(kind, "mesh") == 0) {
		chat_figure(a, sizeof(a), json_object_get(r, "median_bw_bps"), "bit/s");
		chat_figure(b, sizeof(b), json_object_get(r, "min_lat_ns"), "ns");
		json_t *pairs = json_object_get(r, "pairs");
		double planned = 0, measured = 0;

		fprintf(f, " %zu hosts, median pair %s, min p50 %s, %zu bad pair(s)",
			json_array_size(json_object_get(r, "hosts")), a, b,
			json_array_size(json_object_get(r, "bad_pairs")));
		/* what the text report says of a mesh that did not measure everything */
		if (jnum(pairs, "planned", &planned) && jnum(pairs, "measured", &measured) &&
		    measured < planned)
			fprintf(f, "; INCOMPLETE: %.0f pair(s) not measured", planned - measured);
		if (json_array_size(json_object_get(r, "failures")))
			fprintf(f, ", %zu failed", json_array_size(json_object_get(r, "failures")));
	} else if (strcmp(kind, "pattern") == 0) {
		chat_pattern(f, r);
	} else if (strcmp(kind, "incast") == 0 &&
		   (last = json_array_get(steps, json_array_size(steps) - 1))) {
		chat_figure(a, sizeof(a), json_object_get(last, "goodput_bps"), "bit/s");
		fprintf(f, " goodput %s at %lld senders; ", a,
			(long long)json_integer_value(json_object_get(last, "senders")));
		chat_text(f, jstr(r, "diagnosis"), false);
	}
}

/* Several results (a size sweep): how many, and the best. */
static void chat_sweep(FILE *f, json_t *results)
{
	json_t *r, *best = NULL;
	double v, top = -1;
	char a[64];
	size_t i;

	json_array_foreach(results, i, r)
	{
		json_t *fwd = json_object_get(json_object_get(r, "summary"), "forward");
		if (jnum(fwd, "bits_per_second", &v) && v > top) {
			top = v;
			best = r;
		}
	}
	fprintf(f, ": %zu results", json_array_size(results));
	if (!best)
		return;
	ix_fmt_rate(top, NULL, a, sizeof(a));
	fprintf(f, ", peak goodput %s at %lld-byte messages", a,
		(long long)json_integer_value(
			json_object_get(json_object_get(best, "params"), "msg_size")));
}

int ix_post_chat_body(json_t *doc, char **body, size_t *len, struct ix_err *err)
{
	json_t *run = doc_run(doc), *c, *results = json_object_get(doc, "results"), *msg;
	char *text = NULL;
	size_t tlen = 0, i;
	FILE *f = open_memstream(&text, &tlen);
	double dur;

	if (!f)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (run) {
		const char *verdict = jstr(run, "verdict");
		fprintf(f, "*%s* ixperf run ", verdict ? verdict : "?");
		chat_text(f, jstr(run, "name"), true);
	} else {
		const char *verdict = ix_doc_verdict(doc);

		/* the command's exit status in a word: measured only is OK */
		fprintf(f, "*%s* ixperf ", strcmp(verdict, "INFO") ? verdict : "OK");
		chat_text(f, jstr(doc, "command"), false);
	}
	fputs(" on ", f);
	chat_text(f, jstr(doc, "host"), true);
	fputs(" at ", f);
	chat_text(f, jstr(doc, "time"), false);
	if (run && jnum(run, "duration_s", &dur))
		fprintf(f, " (%.0f s)", dur);
	if (run) {
		json_array_foreach(json_object_get(run, "checks"), i, c)
		{
			chat_check(f, c);
		}
	} else if (is_rails(results)) {
		fputs(":", f);
		chat_rails(f, results);
	} else if (json_array_size(results) > 1) {
		chat_sweep(f, results);
	} else {
		fputs(":", f);
		chat_result(f, json_array_get(results, 0));
	}
	if (jstr(doc, "error")) {
		fputs("\nerror: ", f);
		chat_text(f, jstr(doc, "error"), false);
	}
	if (fclose(f) != 0 || !text) {
		free(text);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	msg = json_pack("{s:s%}", "text", text, tlen);
	free(text);
	*body = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
	json_decref(msg);
	if (!*body)
		return ix_fail(err, IX_EXIT_FAIL, "cannot encode the chat message");
	*len = strlen(*body);
	return 0;
}
