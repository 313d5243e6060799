/* The payload formats of ixperf post: the chat message and the Prometheus
 * exposition (and its Pushgateway grouping key). Builders only: no I/O. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/fmt/units.h"
#include "report/doc/verdict.h"
#include "report/post/post.h"

/* ---- documents ------------------------------------------------------------ */

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool jnum(json_t *o, const char *key, double *v)
{
	json_t *n = key ? json_object_get(o, key) : o;

	if (!json_is_number(n))
		return false;
	*v = json_number_value(n);
	return true;
}

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

/* The run object of an `ixperf run` document, else NULL. */
static json_t *doc_run(json_t *doc)
{
	json_t *r = json_array_get(json_object_get(doc, "results"), 0);
	const char *kind = jstr(r, "kind");

	return kind && strcmp(kind, "run") == 0 ? r : NULL;
}

/* Shortest decimal that reads back as v. */
static void fmt_value(char *buf, size_t len, double v)
{
	if (isnan(v)) {
		snprintf(buf, len, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
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
		fprintf(f, " %zu hosts, median pair %s, min p50 %s, %zu bad pair(s)",
			json_array_size(json_object_get(r, "hosts")), a, b,
			json_array_size(json_object_get(r, "bad_pairs")));
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

/* ---- Pushgateway: Prometheus text exposition format 0.0.4 ------------------ */

enum fam {
	F_INFO,
	F_PASS,
	F_VERDICT,
	F_COMPLETE,
	F_DURATION,
	F_TIME,
	F_CHECK,
	F_BW,
	F_LAT,
	F_RETX,
	F_LOSS,
	F_ROUND,
	NFAM
};

/* Base units per Prometheus conventions (seconds, ratios), except bandwidth
 * in bits per second: link speeds, the document and every network tool
 * speak bit/s, and comparing against line rate should not need a *8. The
 * unit is in the name, so nothing is ambiguous. */
static const struct {
	const char *name, *type, *help;
} fams[NFAM] = {
	{ "ixperf_run_info", "gauge",
	  "Always 1; labels name the run (plan or command) and ixperf version." },
	{ "ixperf_run_pass", "gauge", "1 when the run's verdict is PASS, else 0." },
	{ "ixperf_run_verdict", "gauge",
	  "1 for the run's verdict (PASS, FAIL, ERROR or INFO), 0 for the others." },
	{ "ixperf_run_complete", "gauge", "1 when the run or command finished without an error." },
	{ "ixperf_run_duration_seconds", "gauge", "Wall time of the run." },
	{ "ixperf_run_timestamp_seconds", "gauge", "When the run finished, Unix time." },
	{ "ixperf_check_pass", "gauge",
	  "1 when the check's verdict is PASS, else 0 (none for a check that expects nothing or "
	  "was skipped)." },
	{ "ixperf_bandwidth_bits_per_second", "gauge",
	  "Goodput from src to dst (an incast step: into dst from senders hosts), payload bits per "
	  "second." },
	{ "ixperf_latency_seconds", "gauge",
	  "One-way latency (RTT/2) from src to dst at the quantile (0 = min, 1 = max)." },
	{ "ixperf_retransmits_total", "counter",
	  "TCP retransmitted segments during the measurement." },
	{ "ixperf_packet_loss_ratio", "gauge",
	  "UDP datagrams lost from src to dst, fraction of those sent." },
	{ "ixperf_incast_round_seconds", "gauge",
	  "Synchronised-read round time into dst from senders hosts at the quantile." },
};

struct expo {
	char *buf[NFAM];
	size_t len[NFAM];
	FILE *f[NFAM];
	json_t *seen; /* series already written: a duplicate would fail the whole push */
};

static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* One sample; kv: label name, value, ... NULL. Empty values are left out
 * (Prometheus treats an empty label as an absent one). */
static void put(struct expo *x, enum fam fam, double v, const char *const *kv)
{
	char *line = NULL, val[40];
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	bool first = true;

	if (!f)
		return;
	fputs(fams[fam].name, f);
	for (size_t i = 0; kv && kv[i]; i += 2) {
		if (!kv[i + 1] || !kv[i + 1][0])
			continue;
		fprintf(f, "%c%s=\"", first ? '{' : ',', kv[i]);
		label_value(f, kv[i + 1]);
		fputc('"', f);
		first = false;
	}
	if (!first)
		fputc('}', f);
	if (fclose(f) == 0 && line && !json_object_get(x->seen, line)) {
		json_object_set_new(x->seen, line, json_true());
		fmt_value(val, sizeof(val), v);
		fprintf(x->f[fam], "%s %s\n", line, val);
	}
	free(line);
}

struct where {
	struct expo *x;
	const char *check, *host, *peer; /* check label, this host, the plan's first host */
};

static void expo_bw(const struct where *w, json_t *r)
{
	json_t *p = json_object_get(r, "params"), *s = json_object_get(r, "summary");
	const char *server = w->peer ? w->peer : jstr(r, "server");
	char size[32];
	double v;

	snprintf(size, sizeof(size), "%lld",
		 (long long)json_integer_value(json_object_get(p, "msg_size")));
	for (int d = 0; d < 2; d++) {
		json_t *dir = json_object_get(s, d ? "reverse" : "forward");
		const char *kv[] = { "check", w->check,
				     "path",  jstr(p, "path"),
				     "src",   d ? server : w->host,
				     "dst",   d ? w->host : server,
				     "size",  size,
				     NULL };
		if (jnum(dir, "bits_per_second", &v))
			put(w->x, F_BW, v, kv);
		if (jnum(dir, "retransmits", &v))
			put(w->x, F_RETX, v, kv);
		if (jnum(dir, "loss_percent", &v))
			put(w->x, F_LOSS, v / 100.0, kv);
	}
}

static const struct {
	const char *key, *q;
} lat_q[] = { { "min_ns", "0" },    { "p50_ns", "0.5" },     { "p90_ns", "0.9" },
	      { "p99_ns", "0.99" }, { "p99_9_ns", "0.999" }, { "p99_99_ns", "0.9999" },
	      { "max_ns", "1" } };

static void expo_lat(const struct where *w, json_t *r)
{
	json_t *p = json_object_get(r, "params"), *st = json_object_get(r, "stats");
	const char *server = w->peer ? w->peer : jstr(r, "server");
	char size[32];
	double v;

	snprintf(size, sizeof(size), "%lld",
		 (long long)json_integer_value(json_object_get(p, "msg_size")));
	for (size_t i = 0; i < sizeof(lat_q) / sizeof(lat_q[0]); i++) {
		const char *kv[] = { "check",    w->check,   "path", jstr(p, "path"), "src",
				     w->host,    "dst",      server, "size",          size,
				     "quantile", lat_q[i].q, NULL };
		if (jnum(st, lat_q[i].key, &v))
			put(w->x, F_LAT, v / 1e9, kv);
	}
}

static void expo_mesh(const struct where *w, json_t *r)
{
	json_t *hosts = json_object_get(r, "hosts"), *m = json_object_get(r, "matrix");
	json_t *pb = json_object_get(json_object_get(r, "params"), "bw");
	json_t *pl = json_object_get(json_object_get(r, "params"), "lat");
	static const char *const cells[] = { "bw_bps", "lat_p50_ns", "lat_p99_ns" };
	static const char *const quant[] = { NULL, "0.5", "0.99" };
	char bsize[32], lsize[32];
	double v;

	snprintf(bsize, sizeof(bsize), "%lld",
		 (long long)json_integer_value(json_object_get(pb, "msg_size")));
	snprintf(lsize, sizeof(lsize), "%lld",
		 (long long)json_integer_value(json_object_get(pl, "msg_size")));
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < json_array_size(hosts); i++)
			for (size_t j = 0; j < json_array_size(hosts); j++) {
				json_t *row = json_array_get(json_object_get(m, cells[k]), i);
				const char *kv[] = {
					"check",    w->check,
					"path",     jstr(k ? pl : pb, "path"),
					"src",      json_string_value(json_array_get(hosts, i)),
					"dst",      json_string_value(json_array_get(hosts, j)),
					"size",     k ? lsize : bsize,
					"quantile", quant[k],
					NULL
				};
				if (jnum(json_array_get(row, j), NULL, &v))
					put(w->x, k ? F_LAT : F_BW, k ? v / 1e9 : v, kv);
			}
}

static void expo_incast(const struct where *w, json_t *r)
{
	json_t *p = json_object_get(r, "params"), *step;
	char size[32], senders[32];
	size_t i;
	double v;

	snprintf(size, sizeof(size), "%lld",
		 (long long)json_integer_value(json_object_get(p, "msg_size")));
	json_array_foreach(json_object_get(r, "steps"), i, step)
	{
		json_t *rn = json_object_get(json_object_get(step, "read"), "round_ns");
		const char *kv[] = { "check",    w->check,
				     "path",     jstr(p, "path"),
				     "dst",      jstr(r, "receiver"),
				     "size",     size,
				     "senders",  senders,
				     "quantile", NULL,
				     NULL };

		snprintf(senders, sizeof(senders), "%lld",
			 (long long)json_integer_value(json_object_get(step, "senders")));
		if (jnum(step, "goodput_bps", &v))
			put(w->x, F_BW, v, kv);
		if (jnum(step, "retransmits", &v))
			put(w->x, F_RETX, v, kv);
		for (int q = 0; q < 2; q++) {
			kv[11] = q ? "0.99" : "0.5";
			if (jnum(rn, q ? "p99" : "p50", &v))
				put(w->x, F_ROUND, v / 1e9, kv);
		}
	}
}

static void expo_results(const struct where *w, json_t *results)
{
	json_t *r;
	size_t i;

	json_array_foreach(results, i, r)
	{
		const char *kind = jstr(r, "kind");
		if (!kind)
			continue;
		if (strcmp(kind, "bw") == 0)
			expo_bw(w, r);
		else if (strcmp(kind, "lat") == 0)
			expo_lat(w, r);
		else if (strcmp(kind, "mesh") == 0)
			expo_mesh(w, r);
		else if (strcmp(kind, "incast") == 0)
			expo_incast(w, r);
	}
}

static bool iso_time(const char *s, double *t)
{
	struct tm tm = { 0 };
	double sec;

	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%lf", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
			 &tm.tm_min, &sec) != 6)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*t = (double)timegm(&tm) + sec;
	return true;
}

static void expo_doc(struct expo *x, json_t *doc)
{
	json_t *run = doc_run(doc), *c;
	const char *host = jstr(doc, "host"), *verdict = ix_doc_verdict(doc);
	const char *info[] = { "run",     run ? jstr(run, "name") : jstr(doc, "command"),
			       "plan",    jstr(run, "plan_file"),
			       "version", jstr(json_object_get(doc, "tool"), "version"),
			       NULL };
	static const char *const verdicts[] = { "PASS", "FAIL", "ERROR", "INFO" };
	struct where w = { x, jstr(doc, "command"), host, NULL };
	size_t i;
	double v;

	put(x, F_INFO, 1, info);
	put(x, F_COMPLETE, json_is_true(json_object_get(doc, "complete")) && !jstr(doc, "error"),
	    NULL);
	if (iso_time(run && jstr(run, "finished") ? jstr(run, "finished") : jstr(doc, "time"), &v))
		put(x, F_TIME, v, NULL);
	/* A command's document has the verdict of its exit status too. */
	put(x, F_PASS, verdict && strcmp(verdict, "PASS") == 0, NULL);
	for (i = 0; i < 4; i++) {
		const char *kv[] = { "verdict", verdicts[i], NULL };
		put(x, F_VERDICT, verdict && strcmp(verdict, verdicts[i]) == 0, kv);
	}
	if (!run) {
		expo_results(&w, json_object_get(doc, "results"));
		return;
	}
	if (jnum(run, "duration_s", &v))
		put(x, F_DURATION, v, NULL);
	json_array_foreach(json_object_get(run, "checks"), i, c)
	{
		const char *kv[] = { "check", jstr(c, "name"), "probe", jstr(c, "probe"), NULL };
		const char *cv = jstr(c, "verdict");

		/* Measured only, or not run (SKIP): neither a pass nor a failure. */
		if (!cv || (strcmp(cv, "INFO") != 0 && strcmp(cv, "SKIP") != 0))
			put(x, F_CHECK, cv && strcmp(cv, "PASS") == 0, kv);
		w.check = jstr(c, "name");
		w.peer = json_string_value(json_array_get(json_object_get(c, "hosts"), 0));
		expo_results(&w, json_object_get(c, "results"));
	}
}

int ix_post_prom_body(json_t *doc, char **body, size_t *len, struct ix_err *err)
{
	struct expo x = { .seen = json_object() };
	FILE *out = open_memstream(body, len);
	int rc = 0;

	for (int i = 0; i < NFAM; i++)
		x.f[i] = open_memstream(&x.buf[i], &x.len[i]);
	for (int i = 0; i < NFAM; i++)
		if (!x.f[i])
			rc = -1;
	if (!rc && out && x.seen)
		expo_doc(&x, doc);
	/* A family's samples stay together, after its HELP and TYPE. */
	for (int i = 0; i < NFAM; i++) {
		if (x.f[i] && fclose(x.f[i]) != 0)
			rc = -1;
		if (out && x.len[i])
			fprintf(out, "# HELP %s %s\n# TYPE %s %s\n%s", fams[i].name, fams[i].help,
				fams[i].name, fams[i].type, x.buf[i]);
		free(x.buf[i]);
	}
	json_decref(x.seen);
	if (!out || fclose(out) != 0 || rc < 0) {
		if (out)
			free(*body);
		*body = NULL;
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	return 0;
}

/* A grouping-key path segment pair: "/name/value", percent-encoded, or
 * "/name@base64/..." (RFC 4648 URL alphabet) where the value holds a '/', is
 * empty, or is "." or ".." (a path segment that URL handling removes or
 * resolves, however encoded), as the Pushgateway asks. */
static void grouping_label(FILE *f, const char *name, const char *v)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t n = strlen(v);

	if (n == 0 || strchr(v, '/') || strcmp(v, ".") == 0 || strcmp(v, "..") == 0) {
		fprintf(f, "/%s@base64/", name);
		if (n == 0)
			fputc('=', f);
		for (size_t i = 0; i < n; i += 3) {
			unsigned b = (unsigned char)v[i] << 16;
			b |= i + 1 < n ? (unsigned char)v[i + 1] << 8 : 0;
			b |= i + 2 < n ? (unsigned char)v[i + 2] : 0;
			fputc(b64[(b >> 18) & 63], f);
			fputc(b64[(b >> 12) & 63], f);
			fputc(i + 1 < n ? b64[(b >> 6) & 63] : '=', f);
			fputc(i + 2 < n ? b64[b & 63] : '=', f);
		}
		return;
	}
	fprintf(f, "/%s/", name);
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    strchr("-._~", c))
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
}

char *ix_post_grouping_url(const char *url, const char *job, const char *instance)
{
	size_t n = strlen(url), len = 0;
	char *s = NULL;
	FILE *f;

	if (strstr(url, "/metrics/job"))
		return strdup(url); /* a grouping key chosen by the caller */
	f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	while (n > 0 && url[n - 1] == '/')
		n--;
	fprintf(f, "%.*s/metrics", (int)n, url);
	grouping_label(f, "job", job);
	grouping_label(f, "instance", instance ? instance : "");
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}
