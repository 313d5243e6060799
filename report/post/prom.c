/* The Prometheus text exposition (format 0.0.4) of a result document, for
 * the Pushgateway and node_exporter's textfile collector, and the
 * Pushgateway's grouping key. By default a mesh gives per-node and summary
 * series (a few per host); its per-pair series, n x (n - 1) of each, only
 * when asked. Builders only: no I/O. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/doc/verdict.h"
#include "report/post/jdoc.h"
#include "report/post/post.h"
#include "report/prom/prom.h"

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
	F_FABRIC,
	F_MESH_PAIRS,
	F_MESH_BAD,
	F_MESH_SUSPECTS,
	F_MESH_MEDIAN,
	F_ODD_NODES,
	F_NODE_BW,
	F_NODE_LAT,
	F_NODE_BAD,
	F_NODE_SUSPECT,
	F_NODE_FAILED,
	F_NODE_ODD,
	F_NODE_FABRIC,
	NFAM
};

/* Base units per Prometheus conventions, as promtool checks them: seconds,
 * ratios, and bandwidth in bytes per second (the documents' bit/s / 8; x 8
 * against a line rate). Statistics of a distribution carry a stat label
 * (min, p50 ... max): a quantile label is for summaries, which have a sum
 * and a count that a test's statistics do not give. */
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
	{ "ixperf_bandwidth_bytes_per_second", "gauge",
	  "Goodput from src to dst (an incast step: into dst from senders hosts), payload bytes "
	  "per second." },
	{ "ixperf_latency_seconds", "gauge",
	  "One-way latency (RTT/2) from src to dst: stat min, p50, p90, p99, p99.9, p99.99, max." },
	{ "ixperf_retransmits_total", "counter",
	  "TCP retransmitted segments during the measurement." },
	{ "ixperf_packet_loss_ratio", "gauge",
	  "UDP datagrams lost from src to dst, fraction of those sent." },
	{ "ixperf_incast_round_seconds", "gauge",
	  "Synchronised-read round time into dst from senders hosts: stat p50, p99." },
	{ "ixperf_fabric_events_total", "counter",
	  "Fabric counters that moved during the check's tests, by class, summed over every host "
	  "(pause_time: in the driver's units)." },
	{ "ixperf_mesh_pairs", "gauge",
	  "Pairs of a mesh by state: planned, measured, failed (no figure), retested, zero "
	  "(measured at 0), lost." },
	{ "ixperf_mesh_bad_pairs", "gauge", "Pairs of a mesh flagged bad (after the retest)." },
	{ "ixperf_mesh_suspect_nodes", "gauge",
	  "Hosts of a mesh named as suspects: most of their pairs are bad." },
	{ "ixperf_mesh_median_bandwidth_bytes_per_second", "gauge",
	  "Median pair bandwidth of a mesh, the reference bad pairs are judged against." },
	{ "ixperf_fleet_odd_nodes", "gauge",
	  "Hosts whose inventory differs from the majority's in some field." },
	{ "ixperf_node_bandwidth_bytes_per_second", "gauge",
	  "Median bandwidth of a host's mesh pairs, sending (direction out) or receiving (in)." },
	{ "ixperf_node_latency_seconds", "gauge",
	  "Median one-way p50 latency of a host's mesh pairs." },
	{ "ixperf_node_bad_pairs", "gauge", "Bad mesh pairs a host is in." },
	{ "ixperf_node_suspect", "gauge", "1 when the mesh names the host a suspect, else 0." },
	{ "ixperf_node_failed", "gauge",
	  "1 when the host's agent could not be reached or failed, else 0." },
	{ "ixperf_node_odd", "gauge",
	  "1 when the host's inventory differs from the majority's, else 0." },
	{ "ixperf_node_fabric_events_total", "counter",
	  "Fabric counters that moved on the host during the mesh, by class." },
};

struct expo {
	char *buf[NFAM];
	size_t len[NFAM];
	FILE *f[NFAM];
	json_t *seen; /* series already written: a duplicate would fail the whole push */
};

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
		ix_prom_write_escaped(f, kv[i + 1], false);
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
	bool pairs;                      /* a mesh's per-pair series too */
};

/* The classes of a counter summary ({class: n}), added into sum. */
static void fabric_add(json_t *summary, json_t *sum)
{
	const char *k;
	json_t *v;

	json_object_foreach(summary, k, v)
	{
		json_t *have = json_object_get(sum, k);

		if (json_is_integer(v))
			json_object_set_new(
				sum, k,
				json_integer(json_integer_value(v) + json_integer_value(have)));
	}
}

/* One series per class of sum (a node's when node is set). */
static void fabric_put(const struct where *w, json_t *sum, const char *node)
{
	const char *k;
	json_t *v;

	json_object_foreach(sum, k, v)
	{
		const char *kv[] = { "check", w->check, "node", node, "class", k, NULL };

		put(w->x, node ? F_NODE_FABRIC : F_FABRIC, (double)json_integer_value(v), kv);
	}
}

/* Both ends of a bw or lat test. */
static void expo_ends_fabric(const struct where *w, json_t *r)
{
	json_t *c = json_object_get(r, "counters"), *sum = json_object();

	fabric_add(json_object_get(json_object_get(c, "local"), "summary"), sum);
	fabric_add(json_object_get(json_object_get(c, "remote"), "summary"), sum);
	fabric_put(w, sum, NULL);
	json_decref(sum);
}

/* The size label: params' msg_size in bytes. */
static void size_label(json_t *params, char *buf, size_t len)
{
	snprintf(buf, len, "%lld",
		 (long long)json_integer_value(json_object_get(params, "msg_size")));
}

static void expo_bw(const struct where *w, json_t *r)
{
	json_t *p = json_object_get(r, "params"), *s = json_object_get(r, "summary");
	const char *server = w->peer ? w->peer : jstr(r, "server");
	char size[32];
	double v;

	size_label(p, size, sizeof(size));
	for (int d = 0; d < 2; d++) {
		json_t *dir = json_object_get(s, d ? "reverse" : "forward");
		const char *kv[] = { "check", w->check,
				     "path",  jstr(p, "path"),
				     "src",   d ? server : w->host,
				     "dst",   d ? w->host : server,
				     "size",  size,
				     NULL };
		if (jnum(dir, "bits_per_second", &v))
			put(w->x, F_BW, v / 8, kv);
		if (jnum(dir, "retransmits", &v))
			put(w->x, F_RETX, v, kv);
		if (jnum(dir, "loss_percent", &v))
			put(w->x, F_LOSS, v / 100.0, kv);
	}
	expo_ends_fabric(w, r);
}

static const struct {
	const char *key, *q;
} lat_q[] = { { "min_ns", "min" }, { "p50_ns", "p50" },     { "p90_ns", "p90" },
	      { "p99_ns", "p99" }, { "p99_9_ns", "p99.9" }, { "p99_99_ns", "p99.99" },
	      { "max_ns", "max" } };

static void expo_lat(const struct where *w, json_t *r)
{
	json_t *p = json_object_get(r, "params"), *st = json_object_get(r, "stats");
	const char *server = w->peer ? w->peer : jstr(r, "server");
	char size[32];
	double v;

	size_label(p, size, sizeof(size));
	for (size_t i = 0; i < sizeof(lat_q) / sizeof(lat_q[0]); i++) {
		const char *kv[] = { "check", w->check,   "path", jstr(p, "path"), "src",
				     w->host, "dst",      server, "size",          size,
				     "stat",  lat_q[i].q, NULL };
		if (jnum(st, lat_q[i].key, &v))
			put(w->x, F_LAT, v / 1e9, kv);
	}
	expo_ends_fabric(w, r);
}

static void expo_mesh_pairs(const struct where *w, json_t *r)
{
	json_t *hosts = json_object_get(r, "hosts"), *m = json_object_get(r, "matrix");
	json_t *pb = json_object_get(json_object_get(r, "params"), "bw");
	json_t *pl = json_object_get(json_object_get(r, "params"), "lat");
	static const char *const cells[] = { "bw_bps", "lat_p50_ns", "lat_p99_ns" };
	static const char *const quant[] = { NULL, "p50", "p99" };
	char bsize[32], lsize[32];
	double v;

	size_label(pb, bsize, sizeof(bsize));
	size_label(pl, lsize, sizeof(lsize));
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < json_array_size(hosts); i++)
			for (size_t j = 0; j < json_array_size(hosts); j++) {
				json_t *row = json_array_get(json_object_get(m, cells[k]), i);
				const char *kv[] = {
					"check", w->check,
					"path",  jstr(k ? pl : pb, "path"),
					"src",   json_string_value(json_array_get(hosts, i)),
					"dst",   json_string_value(json_array_get(hosts, j)),
					"size",  k ? lsize : bsize,
					"stat",  quant[k],
					NULL
				};
				if (jnum(json_array_get(row, j), NULL, &v))
					put(w->x, k ? F_LAT : F_BW, k ? v / 1e9 : v / 8, kv);
			}
}

/* Every host's inventory against the majority's (a run's or a mesh's fleet). */
static void expo_fleet(const struct where *w, json_t *fleet)
{
	json_t *nd;
	size_t i;
	double v;

	if (!json_is_object(fleet))
		return;
	if (jnum(fleet, "odd_nodes", &v)) {
		const char *kv[] = { "check", w->check, NULL };

		put(w->x, F_ODD_NODES, v, kv);
	}
	json_array_foreach(json_object_get(fleet, "nodes"), i, nd)
	{
		const char *kv[] = { "check", w->check, "node", jstr(nd, "host"), NULL };
		json_t *odd = json_object_get(nd, "odd");

		if (json_is_boolean(odd))
			put(w->x, F_NODE_ODD, json_is_true(odd), kv);
	}
}

/* A mesh's summary and a few series per host; its pairs when asked. */
static void expo_mesh(const struct where *w, json_t *r)
{
	json_t *pairs = json_object_get(r, "pairs"), *nd, *sum = json_object();
	const char *bpath = jstr(json_object_get(json_object_get(r, "params"), "bw"), "path");
	const char *lpath = jstr(json_object_get(json_object_get(r, "params"), "lat"), "path");
	static const char *const states[] = { "planned",  "measured", "failed",
					      "retested", "zero",     "lost" };
	const char *ck[] = { "check", w->check, "path", bpath, NULL };
	size_t i;
	double v;

	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		const char *kv[] = { "check", w->check, "state", states[i], NULL };

		if (jnum(pairs, states[i], &v))
			put(w->x, F_MESH_PAIRS, v, kv);
	}
	put(w->x, F_MESH_BAD, (double)json_array_size(json_object_get(r, "bad_pairs")), ck);
	put(w->x, F_MESH_SUSPECTS, (double)json_array_size(json_object_get(r, "suspects")), ck);
	if (jnum(r, "median_bw_bps", &v))
		put(w->x, F_MESH_MEDIAN, v / 8, ck);
	json_array_foreach(json_object_get(r, "nodes"), i, nd)
	{
		const char *node = jstr(nd, "host");
		const char *kn[] = { "check", w->check, "node", node, NULL };
		const char *ko[] = { "check", w->check,    "path", bpath, "node",
				     node,    "direction", "out",  NULL };
		const char *ki[] = { "check", w->check,    "path", bpath, "node",
				     node,    "direction", "in",   NULL };
		const char *kl[] = { "check", w->check, "path", lpath, "node",
				     node,    "stat",   "p50",  NULL };

		if (jnum(nd, "bw_out_bps", &v))
			put(w->x, F_NODE_BW, v / 8, ko);
		if (jnum(nd, "bw_in_bps", &v))
			put(w->x, F_NODE_BW, v / 8, ki);
		if (jnum(nd, "lat_p50_ns", &v))
			put(w->x, F_NODE_LAT, v / 1e9, kl);
		if (jnum(nd, "bad", &v))
			put(w->x, F_NODE_BAD, v, kn);
		put(w->x, F_NODE_SUSPECT, json_is_true(json_object_get(nd, "suspect")), kn);
		put(w->x, F_NODE_FAILED, jstr(nd, "error") != NULL, kn);
		if (json_is_object(json_object_get(nd, "counters"))) {
			fabric_put(w, json_object_get(nd, "counters"), node);
			fabric_add(json_object_get(nd, "counters"), sum);
		}
	}
	fabric_put(w, sum, NULL);
	json_decref(sum);
	expo_fleet(w, json_object_get(r, "fleet"));
	if (w->pairs)
		expo_mesh_pairs(w, r);
}

static void expo_incast(const struct where *w, json_t *r)
{
	json_t *p = json_object_get(r, "params"), *step, *sum = json_object();
	char size[32], senders[32];
	size_t i;
	double v;

	size_label(p, size, sizeof(size));
	json_array_foreach(json_object_get(r, "steps"), i, step)
	{
		json_t *rn = json_object_get(json_object_get(step, "read"), "round_ns");
		const char *kv[] = {
			"check", w->check, "path",    jstr(p, "path"), "dst",  jstr(r, "receiver"),
			"size",  size,     "senders", senders,         "stat", NULL,
			NULL
		};

		snprintf(senders, sizeof(senders), "%lld",
			 (long long)json_integer_value(json_object_get(step, "senders")));
		if (jnum(step, "goodput_bps", &v))
			put(w->x, F_BW, v / 8, kv);
		if (jnum(step, "retransmits", &v))
			put(w->x, F_RETX, v, kv);
		fabric_add(json_object_get(json_object_get(step, "counters"), "senders"), sum);
		fabric_add(json_object_get(json_object_get(step, "counters"), "receiver"), sum);
		for (int q = 0; q < 2; q++) {
			kv[11] = q ? "p99" : "p50";
			if (jnum(rn, q ? "p99" : "p50", &v))
				put(w->x, F_ROUND, v / 1e9, kv);
		}
	}
	fabric_put(w, sum, NULL);
	json_decref(sum);
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

static void expo_doc(struct expo *x, json_t *doc, bool pairs)
{
	json_t *run = doc_run(doc), *c;
	const char *host = jstr(doc, "host"), *verdict = ix_doc_verdict(doc);
	const char *info[] = { "run",     run ? jstr(run, "name") : jstr(doc, "command"),
			       "plan",    jstr(run, "plan_file"),
			       "version", jstr(json_object_get(doc, "tool"), "version"),
			       NULL };
	static const char *const verdicts[] = { "PASS", "FAIL", "ERROR", "INFO" };
	struct where w = { x, jstr(doc, "command"), host, NULL, pairs };
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
	w.check = NULL; /* the inventory is the run's, not a check's */
	expo_fleet(&w, json_object_get(run, "fleet"));
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

int ix_post_prom_body(json_t *doc, bool pairs, char **body, size_t *len, struct ix_err *err)
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
		expo_doc(&x, doc, pairs);
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
