/* The Prometheus text exposition (format 0.0.4) of a result document, for
 * the Pushgateway and node_exporter's textfile collector, and the
 * Pushgateway's grouping key. By default a mesh gives per-node and summary
 * series (a few per host); its per-pair series, n x (n - 1) of each, only
 * when asked. Builders only: no I/O. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/doc/verdict.h"
#include "report/post/jdoc.h"
#include "report/post/expo.h"
#include "report/post/post.h"
#include "report/post/prom_shape.h"

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
static void fabric_put(const struct ix_expo_where *w, json_t *sum, const char *node)
{
	const char *k;
	json_t *v;

	json_object_foreach(sum, k, v)
	{
		const char *kv[] = { "check", w->check, "node", node, "class", k, NULL };

		ix_expo_put(w->x, node ? F_NODE_FABRIC : F_FABRIC, (double)json_integer_value(v),
			    kv);
	}
}

/* Both ends of a bw or lat test. */
static void expo_ends_fabric(const struct ix_expo_where *w, json_t *r)
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

static void expo_bw(const struct ix_expo_where *w, json_t *r)
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
			ix_expo_put(w->x, F_BW, v / 8, kv);
		if (jnum(dir, "retransmits", &v))
			ix_expo_put(w->x, F_RETX, v, kv);
		if (jnum(dir, "loss_percent", &v))
			ix_expo_put(w->x, F_LOSS, v / 100.0, kv);
	}
	expo_ends_fabric(w, r);
}

static const struct {
	const char *key, *q;
} lat_q[] = { { "min_ns", "min" }, { "p50_ns", "p50" },     { "p90_ns", "p90" },
	      { "p99_ns", "p99" }, { "p99_9_ns", "p99.9" }, { "p99_99_ns", "p99.99" },
	      { "max_ns", "max" } };

static void expo_lat(const struct ix_expo_where *w, json_t *r)
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
			ix_expo_put(w->x, F_LAT, v / 1e9, kv);
	}
	expo_ends_fabric(w, r);
}

static void expo_mesh_pairs(const struct ix_expo_where *w, json_t *r)
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
					ix_expo_put(w->x, k ? F_LAT : F_BW, k ? v / 1e9 : v / 8,
						    kv);
			}
}

/* Every host's inventory against the majority's (a run's or a mesh's fleet). */
static void expo_fleet(const struct ix_expo_where *w, json_t *fleet)
{
	json_t *nd;
	size_t i;
	double v;

	if (!json_is_object(fleet))
		return;
	if (jnum(fleet, "odd_nodes", &v)) {
		const char *kv[] = { "check", w->check, NULL };

		ix_expo_put(w->x, F_ODD_NODES, v, kv);
	}
	json_array_foreach(json_object_get(fleet, "nodes"), i, nd)
	{
		const char *kv[] = { "check", w->check, "node", jstr(nd, "host"), NULL };
		json_t *odd = json_object_get(nd, "odd");

		if (json_is_boolean(odd))
			ix_expo_put(w->x, F_NODE_ODD, json_is_true(odd), kv);
	}
}

/* A mesh's summary and a few series per host; its pairs when asked. */
static void expo_mesh(const struct ix_expo_where *w, json_t *r)
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
			ix_expo_put(w->x, F_MESH_PAIRS, v, kv);
	}
	ix_expo_put(w->x, F_MESH_BAD, (double)json_array_size(json_object_get(r, "bad_pairs")), ck);
	ix_expo_put(w->x, F_MESH_SUSPECTS, (double)json_array_size(json_object_get(r, "suspects")),
		    ck);
	if (jnum(r, "median_bw_bps", &v))
		ix_expo_put(w->x, F_MESH_MEDIAN, v / 8, ck);
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
			ix_expo_put(w->x, F_NODE_BW, v / 8, ko);
		if (jnum(nd, "bw_in_bps", &v))
			ix_expo_put(w->x, F_NODE_BW, v / 8, ki);
		if (jnum(nd, "lat_p50_ns", &v))
			ix_expo_put(w->x, F_NODE_LAT, v / 1e9, kl);
		if (jnum(nd, "bad", &v))
			ix_expo_put(w->x, F_NODE_BAD, v, kn);
		ix_expo_put(w->x, F_NODE_SUSPECT, json_is_true(json_object_get(nd, "suspect")), kn);
		ix_expo_put(w->x, F_NODE_FAILED, jstr(nd, "error") != NULL, kn);
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

static void expo_incast(const struct ix_expo_where *w, json_t *r)
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
			ix_expo_put(w->x, F_BW, v / 8, kv);
		if (jnum(step, "retransmits", &v))
			ix_expo_put(w->x, F_RETX, v, kv);
		fabric_add(json_object_get(json_object_get(step, "counters"), "senders"), sum);
		fabric_add(json_object_get(json_object_get(step, "counters"), "receiver"), sum);
		for (int q = 0; q < 2; q++) {
			kv[11] = q ? "p99" : "p50";
			if (jnum(rn, q ? "p99" : "p50", &v))
				ix_expo_put(w->x, F_ROUND, v / 1e9, kv);
		}
	}
	fabric_put(w, sum, NULL);
	json_decref(sum);
}

static void expo_results(const struct ix_expo_where *w, json_t *results)
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
		else if (strcmp(kind, "mesh") == 0) {
			/* a rail's mesh: the same hosts on each rail, told apart */
			w->x->rail = jstr(json_object_get(r, "rail"), "name");
			expo_mesh(w, r);
			w->x->rail = NULL;
		} else if (strcmp(kind, "incast") == 0)
			expo_incast(w, r);
		else if (strcmp(kind, "pattern") == 0 || strcmp(kind, "rails") == 0) {
			if (kind[0] == 'p')
				ix_expo_pattern(w, r);
			else
				ix_expo_rails(w, r);
			expo_fleet(w, json_object_get(r, "fleet"));
		}
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

static void expo_doc(struct ix_expo *x, json_t *doc, bool pairs)
{
	json_t *run = doc_run(doc), *c;
	const char *host = jstr(doc, "host"), *verdict = ix_doc_verdict(doc);
	const char *info[] = { "run",     run ? jstr(run, "name") : jstr(doc, "command"),
			       "plan",    jstr(run, "plan_file"),
			       "version", jstr(json_object_get(doc, "tool"), "version"),
			       NULL };
	static const char *const verdicts[] = { "PASS", "FAIL", "ERROR", "INFO" };
	struct ix_expo_where w = { x, jstr(doc, "command"), host, NULL, pairs };
	size_t i;
	double v;

	ix_expo_put(x, F_INFO, 1, info);
	ix_expo_put(x, F_COMPLETE,
		    json_is_true(json_object_get(doc, "complete")) && !jstr(doc, "error"), NULL);
	if (iso_time(run && jstr(run, "finished") ? jstr(run, "finished") : jstr(doc, "time"), &v))
		ix_expo_put(x, F_TIME, v, NULL);
	/* A command's document has the verdict of its exit status too. */
	ix_expo_put(x, F_PASS, verdict && strcmp(verdict, "PASS") == 0, NULL);
	for (i = 0; i < 4; i++) {
		const char *kv[] = { "verdict", verdicts[i], NULL };
		ix_expo_put(x, F_VERDICT, verdict && strcmp(verdict, verdicts[i]) == 0, kv);
	}
	if (!run) {
		expo_results(&w, json_object_get(doc, "results"));
		return;
	}
	if (jnum(run, "duration_s", &v))
		ix_expo_put(x, F_DURATION, v, NULL);
	w.check = NULL; /* the inventory is the run's, not a check's */
	expo_fleet(&w, json_object_get(run, "fleet"));
	json_array_foreach(json_object_get(run, "checks"), i, c)
	{
		const char *kv[] = { "check", jstr(c, "name"), "probe", jstr(c, "probe"), NULL };
		const char *cv = jstr(c, "verdict");

		/* Measured only, or not run (SKIP): neither a pass nor a failure. */
		if (!cv || (strcmp(cv, "INFO") != 0 && strcmp(cv, "SKIP") != 0))
			ix_expo_put(x, F_CHECK, cv && strcmp(cv, "PASS") == 0, kv);
		w.check = jstr(c, "name");
		w.peer = json_string_value(json_array_get(json_object_get(c, "hosts"), 0));
		expo_results(&w, json_object_get(c, "results"));
	}
}

int ix_post_prom_body(json_t *doc, bool pairs, char **body, size_t *len, struct ix_err *err)
{
	struct ix_expo x;
	bool ok = ix_expo_open(&x) == 0;

	if (ok)
		expo_doc(&x, doc, pairs);
	if (ix_expo_close(&x, body, len, err) < 0)
		return -1;
	if (!ok) {
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
