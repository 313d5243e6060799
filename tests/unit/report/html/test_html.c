/* Unit tests for report/html*.c: the self-contained HTML report of a run
 * (fixture tests/data/html-run.json) and of single-command documents,
 * escaping of hostile strings, refusal of foreign JSON, robustness against
 * missing fields, history trends and the size of a 1024-host mesh page. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/data.h"

#include "report/html/html.h"

static json_t *load_run(void)
{
	json_error_t je;
	json_t *doc = json_load_file(ix_test_data("html-run.json"), 0, &je);

	cr_assert_not_null(doc, "html-run.json: %s", je.text);
	return doc;
}

/* Render into memory; the page is returned (free it), rc in *rc. */
static char *render_rc(json_t *doc, json_t *const *hist, size_t nh, int *rc, struct ix_err *err,
		       size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	cr_assert_not_null(f);
	*rc = ix_html_render(f, doc, hist, nh, err);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

static char *render(json_t *doc, json_t *const *hist, size_t nh)
{
	struct ix_err err = { 0 };
	int rc;
	char *out = render_rc(doc, hist, nh, &rc, &err, NULL);

	cr_assert_eq(rc, 0, "render failed: %s", err.msg);
	return out;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static json_t *check_of(json_t *doc, size_t i)
{
	return json_array_get(
		json_object_get(json_array_get(json_object_get(doc, "results"), 0), "checks"), i);
}

/* Inside a tag: the last '<' before p comes after the last '>' (escaped text
 * and script data never hold a raw '<'). */
static bool in_tag(const char *html, const char *p)
{
	const char *lt = NULL, *gt = NULL;

	for (const char *q = html; q < p; q++) {
		if (*q == '<')
			lt = q;
		else if (*q == '>')
			gt = q;
	}
	return lt && (!gt || lt > gt);
}

/* Nothing in the page may fetch: no URLs, no src= attribute, url() only to
 * fragments. (A hostile name such as "<img src=x>" may appear as text.) */
static void assert_self_contained(const char *html)
{
	cr_assert_null(strstr(html, "http://"));
	cr_assert_null(strstr(html, "https://"));
	for (const char *p = strstr(html, "src="); p; p = strstr(p + 1, "src="))
		cr_assert(!in_tag(html, p), "src= inside a tag: %.60s", p - 20);
	cr_assert_null(strstr(html, "<link"));
	cr_assert_null(strstr(html, "@import"));
	cr_assert_null(strstr(html, "<img"));
	for (const char *p = strstr(html, "url("); p; p = strstr(p + 1, "url("))
		cr_assert_eq(p[4], '#', "url() that is not a fragment: %.40s", p);
}

Test(html, banner_and_table)
{
	json_t *doc = load_run();
	char *html = render(doc, NULL, 0);
	const char *table = strstr(html, "<table class=\"checks\">"), *end;

	cr_assert(!strncmp(html, "<!DOCTYPE html>", 15));
	cr_assert_not_null(
		strstr(html, "<header class=\"banner fail\"><div class=\"big\">FAIL</div>"));
	cr_assert_not_null(strstr(html, "<h1>local acceptance</h1>"));
	cr_assert_not_null(strstr(html, "host <b>vm</b>"));
	cr_assert_not_null(strstr(html, "started <b>2026-11-29T21:38:24Z</b>"));
	cr_assert_not_null(strstr(html, "duration <b>42.0 s</b>"));
	cr_assert_not_null(table);
	end = strstr(table, "</table>");
	cr_assert_not_null(end);
	cr_assert_eq(count(table, "<tr class=") - count(end, "<tr class="), 7, "one row per check");
	cr_assert_not_null(strstr(table, "<a href=\"#c0\">tcp-bw</a>"));
	cr_assert_not_null(strstr(table, "<a href=\"#c6\">incast-read</a>"));
	cr_assert_not_null(strstr(table, "<code>min_bw</code> &ge; 1.00 Gbit/s"));
	cr_assert_not_null(strstr(table, "measured 28.3 Gbit/s <span class=\"badge pass\">PASS"));
	cr_assert_not_null(strstr(table, "<code>max_p99</code> &le; 5.00 us"));
	cr_assert_not_null(strstr(table, "measured 49.3 us <span class=\"badge fail\">FAIL"));
	cr_assert_not_null(strstr(table, "<tr class=\"fail\"><td><a href=\"#c3\">tcp-lat</a>"));
	cr_assert_not_null(strstr(table, "goodput at the largest fan-in <b>51.2 Gbit/s</b>"));
	assert_self_contained(html);
	free(html);
	json_decref(doc);
}

/* A check that expected nothing is INFO, measured only: shown as such, and
 * neither a pass nor an error of the run. */
Test(html, measured_only_checks_are_info)
{
	json_t *doc = load_run(), *run = json_array_get(json_object_get(doc, "results"), 0);
	char *html;

	json_object_set_new(check_of(doc, 3), "verdict", json_string("INFO"));
	json_array_clear(json_object_get(check_of(doc, 3), "expectations"));
	json_object_set_new(run, "verdict", json_string("PASS"));
	html = render(doc, NULL, 0);
	cr_expect_not_null(strstr(html, "<tr class=\"info\"><td><a href=\"#c3\">tcp-lat</a>"));
	cr_expect_not_null(strstr(html, "<span class=\"badge info\">INFO</span>"));
	cr_expect_null(strstr(html, "badge error"), "INFO is not an error");
	cr_expect_not_null(
		strstr(html, "<header class=\"banner pass\"><div class=\"big\">PASS</div>"));
	free(html);
	/* A run of measurements only; and without a verdict, derived from its checks. */
	for (size_t i = 0; i < 7; i++)
		json_object_set_new(check_of(doc, i), "verdict", json_string("INFO"));
	json_object_set_new(run, "verdict", json_string("INFO"));
	html = render(doc, NULL, 0);
	cr_expect_not_null(
		strstr(html, "<header class=\"banner info\"><div class=\"big\">INFO</div>"));
	free(html);
	json_object_del(run, "verdict");
	json_object_set_new(check_of(doc, 3), "verdict", json_string("FAIL"));
	html = render(doc, NULL, 0);
	cr_expect_not_null(
		strstr(html, "<header class=\"banner fail\"><div class=\"big\">FAIL</div>"));
	free(html);
	json_decref(doc);
}

Test(html, charts_per_probe)
{
	json_t *doc = load_run();
	char *html = render(doc, NULL, 0);

	cr_assert_not_null(strstr(html, "Goodput per interval"));
	cr_assert_not_null(strstr(html, "Bandwidth vs message size"));
	cr_assert_not_null(strstr(html, "message size (log2 scale)"));
	cr_assert_not_null(strstr(html, "One-way latency percentiles (one-way = RTT/2)"));
	cr_assert_not_null(strstr(html, ">p99.99<"));
	cr_assert_not_null(strstr(html, "Latency histogram"));
	cr_assert_not_null(strstr(html, "<svg class=\"heatmap\""), "4 hosts: an SVG heatmap");
	cr_assert_null(strstr(html, "<canvas"), "small meshes need no script");
	cr_assert_eq(count(html, "<title>127.0.0.1:6202 &#8594; 127.0.0.1:6203: "), 2,
		     "bandwidth and latency maps have a tooltip per cell");
	cr_assert_not_null(strstr(html, "Goodput vs senders"));
	cr_assert_not_null(strstr(html, "Round time vs senders"));
	cr_assert_not_null(strstr(html, "<th>Stalled rounds</th>"));
	cr_assert_not_null(strstr(html, "<b>Diagnosis:</b> goodput holds from N=1 to N=3"));
	cr_assert_not_null(strstr(html, "Host inventory and environment"));
	cr_assert_not_null(strstr(html, "Debian GNU/Linux 12 (bookworm)"));
	cr_assert_not_null(strstr(html, "<td>eth0</td>"));
	cr_assert_not_null(strstr(html, "(the embedded default plan)"));
	cr_assert_geq(count(html, "<svg class=\"chart\""), 8);
	free(html);
	json_decref(doc);
}

static const char *evil_host = "<img src=x onerror=alert(1)>";
static const char *evil_check = "</script><script>alert('x')</script>";

Test(html, hostile_strings_escaped)
{
	json_t *doc = load_run(),
	       *mesh = json_array_get(json_object_get(check_of(doc, 4), "results"), 0);
	char *html;

	json_object_set_new(doc, "host", json_string(evil_host));
	json_object_set_new(check_of(doc, 0), "name", json_string(evil_check));
	json_object_set_new(check_of(doc, 0), "error", json_string("a \"quoted\" & <b>bold</b>"));
	json_array_set_new(json_object_get(mesh, "hosts"), 1, json_string(evil_host));
	json_array_set_new(json_object_get(doc, "command_line"), 1, json_string(evil_check));
	html = render(doc, NULL, 0);
	cr_assert_null(strstr(html, evil_host));
	cr_assert_null(strstr(html, evil_check));
	cr_assert_null(strstr(html, "<script>alert"));
	cr_assert_not_null(strstr(html, "&lt;img src=x onerror=alert(1)&gt;"));
	cr_assert_not_null(strstr(html, "&lt;/script&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/"
					"script&gt;"));
	cr_assert_not_null(strstr(html, "a &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;"));
	cr_assert_not_null(strstr(html, "<title>&lt;img src=x onerror=alert(1)&gt; &#8594; "),
			   "hostile host name escaped in heatmap tooltips");
	cr_assert_eq(count(html, "<script"), 0);
	assert_self_contained(html);
	free(html);
	json_decref(doc);
}

Test(html, escape_helpers)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ix_html_esc(f, "a&b<c>d\"e'f\x01");
	fputc('|', f);
	ix_html_esc(f, NULL);
	fputc('|', f);
	ix_html_js_str(f, "</script>\"\\'&\n\xe2\x80\xa8x");
	fclose(f);
	cr_assert_str_eq(buf,
			 "a&amp;b&lt;c&gt;d&quot;e&#39;f&#xFFFD;|-|"
			 "\"\\u003c\\u002fscript\\u003e\\\"\\\\\\u0027\\u0026\\u000a\\u2028x\"");
	free(buf);
}

Test(html, foreign_json_refused)
{
	static const char *const bad[][2] = {
		{ "{\"a\": 1}", "schema_version" },
		{ "[1, 2]", "not a JSON object" },
		{ "{\"schema_version\": 1, \"tool\": {\"name\": \"iperf3\"}, \"results\": []}",
		  "tool.name" },
		{ "{\"schema_version\": 1, \"tool\": {\"name\": \"ixperf\"}}", "results" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ix_err err = { 0 };
		json_t *doc = json_loads(bad[i][0], 0, NULL);
		int rc;
		char *out = render_rc(doc, NULL, 0, &rc, &err, NULL);

		cr_assert_eq(rc, -1, "%s accepted", bad[i][0]);
		cr_assert_not_null(strstr(err.msg, bad[i][1]), "'%s' lacks '%s'", err.msg,
				   bad[i][1]);
		cr_assert_not_null(strstr(err.msg, "not an ixperf document"));
		free(out);
		json_decref(doc);
	}
}

/* Every field missing or null: the page renders with "-" in their place. */
Test(html, missing_fields)
{
	static const char *const docs[] = {
		"{\"schema_version\":1,\"tool\":{\"name\":\"ixperf\"},\"results\":[{\"kind\":"
		"\"run\","
		"\"checks\":[{},{\"probe\":\"bw\",\"results\":[{},{\"summary\":null,\"intervals\":"
		"[{},null]}]},{\"probe\":\"lat\",\"results\":[{\"stats\":null},{\"stats\":{}},null]"
		"},"
		"{\"probe\":\"mesh\",\"results\":[{},{\"hosts\":[\"a\",null],\"matrix\":{\"bw_"
		"bps\":"
		"[[null,1],[2]]},\"bad_pairs\":[{\"from\":\"a\"}],\"suspects\":[null,\"a\"],"
		"\"nodes\":[{}]}]},{\"probe\":\"incast\",\"results\":[{},{\"mode\":\"read\","
		"\"steps\":"
		"[{},{\"read\":null}]}]},{\"probe\":\"other\",\"name\":null,\"headline\":{"
		"\"value\":"
		"null},\"expectations\":[{},{\"key\":\"min_x\",\"limit\":\"x\"}]}],\"inventory\":"
		"{\"interfaces\":[{}]}}]}",
		"{\"schema_version\":1,\"tool\":{\"name\":\"ixperf\"},\"results\":[]}",
		"{\"schema_version\":1,\"tool\":{\"name\":\"ixperf\"},\"results\":[{\"kind\":"
		"\"run\"}]}",
		"{\"schema_version\":1,\"tool\":{\"name\":\"ixperf\"},\"command\":\"bw\","
		"\"results\":"
		"[{\"kind\":\"bw\"},{\"kind\":\"mesh\",\"hosts\":[]},{\"kind\":\"incast\"},{}]}",
	};

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		json_error_t je;
		json_t *doc = json_loads(docs[i], 0, &je);
		char *html;

		cr_assert_not_null(doc, "fixture %zu: %s", i, je.text);
		html = render(doc, NULL, 0);
		cr_assert_not_null(strstr(html, "</html>"), "document %zu", i);
		cr_assert_not_null(strstr(html, "<td>-</td>"), "document %zu", i);
		free(html);
		json_decref(doc);
	}
}

/* The results of each check of the run as a single-command document. */
static json_t *single_doc(json_t *run, size_t i)
{
	json_t *c = check_of(run, i);

	return json_pack("{s:i,s:{s:s,s:s},s:s,s:s,s:s,s:b,s:n,s:O}", "schema_version", 1, "tool",
			 "name", "ixperf", "version", "0.1.0", "host", "vm", "time",
			 "2026-11-29T21:38:24Z", "command",
			 json_string_value(json_object_get(c, "probe")), "complete", 1, "error",
			 "results", json_object_get(c, "results"));
}

Test(html, single_command_documents)
{
	json_t *run = load_run();
	static const struct {
		size_t check, rows;
		const char *want;
	} cases[] = {
		{ 0, 1, "Goodput per interval" }, { 1, 17, "Bandwidth vs message size" },
		{ 3, 1, "Latency histogram" },    { 4, 1, "<svg class=\"heatmap\"" },
		{ 5, 1, "Goodput vs senders" },   { 6, 1, "Round time vs senders" },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		json_t *doc = single_doc(run, cases[k].check);
		char *html = render(doc, NULL, 0);
		const char *table = strstr(html, "<table class=\"checks\">");
		const char *end = table ? strstr(table, "</table>") : NULL;

		cr_assert_not_null(end);
		cr_assert_eq(count(table, "<tr class=") - count(end, "<tr class="), cases[k].rows,
			     "check %zu: one row per result item", cases[k].check);
		cr_assert_not_null(strstr(html, cases[k].want), "check %zu: %s", cases[k].check,
				   cases[k].want);
		cr_assert_not_null(strstr(html, "<header class=\"banner pass\">"));
		cr_assert_not_null(strstr(html, "no host inventory"));
		free(html);
		json_decref(doc);
	}
	json_decref(run);
}

static json_t *with_headline(json_t *run, const char *when, double bw, double p99)
{
	json_t *h = json_deep_copy(run);

	json_object_set_new(json_array_get(json_object_get(h, "results"), 0), "started",
			    json_string(when));
	json_object_set_new(json_object_get(check_of(h, 0), "headline"), "value", json_real(bw));
	json_object_set_new(json_object_get(check_of(h, 3), "headline"), "value", json_real(p99));
	return h;
}

Test(html, history_trends)
{
	json_t *run = load_run(), *hist[3];
	char *html;

	hist[0] = with_headline(run, "2026-11-27T03:00:00Z", 25e9, 41000);
	hist[1] = json_loads("{\"not\": \"ixperf\"}", 0, NULL);
	hist[2] = with_headline(run, "2026-11-28T03:00:00Z", 26e9, 45000);
	html = render(run, hist, 3);
	cr_assert_not_null(strstr(html, "Trends over 2 earlier runs"));
	cr_assert_not_null(strstr(html, "1 history document was skipped"));
	cr_assert_not_null(strstr(html, "aria-label=\"tcp-bw: goodput\""));
	cr_assert_not_null(strstr(html, "aria-label=\"tcp-lat: p99\""));
	cr_assert_not_null(
		strstr(html, "<title>this run: 11-29 21:38 &#8594; 28.3 Gbit/s</title>"));
	cr_assert_not_null(strstr(html, "<title>earlier runs: 11-27 03:00 &#8594; 25.0 Gbit/s"));
	cr_assert_not_null(strstr(html, "<title>earlier runs: 11-28 03:00 &#8594; 45.0 us"));
	free(html);
	for (size_t i = 0; i < 3; i++)
		json_decref(hist[i]);
	json_decref(run);
}

/* A mesh document of n hosts, one direction per pair; host 1 is hostile,
 * host n/3 is suspect and slow, some pairs failed. Values shared by reference. */
static json_t *mesh_doc(size_t n)
{
	json_t *hosts = json_array(), *bw = json_array(), *lat = json_array(), *st = json_array();
	json_t *ok = json_string("ok"), *none = json_string("none"),
	       *failed = json_string("failed");
	json_t *fast = json_real(95e9), *slow = json_real(30e9), *l5 = json_real(5000);
	json_t *bad = json_array(), *nodes = json_array(), *r;
	size_t sus = n / 3;
	char name[64];

	for (size_t i = 0; i < n; i++) {
		if (i == 1)
			snprintf(name, sizeof(name), "%s", "</script><img src=x onerror=alert(1)>");
		else
			snprintf(name, sizeof(name), "10.%zu.%zu.%zu:5301", i / 65536,
				 i / 256 % 256, i % 256);
		json_array_append_new(hosts, json_string(name));
		json_array_append_new(nodes,
				      json_pack("{s:s,s:b}", "host", name, "suspect", i == sus));
	}
	for (size_t a = 0; a < n; a++) {
		json_t *rb = json_array(), *rl = json_array(), *rs = json_array();

		for (size_t b = 0; b < n; b++) {
			bool measured = a != b && ((a + b) % 2 ? a < b : a > b);
			bool fail = measured && (a * 7 + b) % 97 == 5;
			bool slowp = measured && !fail && (a == sus || b == sus);

			json_array_append(rb, !measured || fail ? json_null()
					      : slowp           ? slow
								: fast);
			json_array_append(rl, !measured || fail ? json_null() : l5);
			json_array_append(rs, fail ? failed : measured ? ok : none);
			if (slowp)
				json_array_append_new(bad, json_pack("{s:O,s:O,s:f}", "from",
								     json_array_get(hosts, a), "to",
								     json_array_get(hosts, b),
								     "bw_bps", 30e9));
		}
		json_array_append_new(bw, rb);
		json_array_append_new(lat, rl);
		json_array_append_new(st, rs);
	}
	r = json_pack("{s:s,s:b,s:o,s:{s:{s:f,s:f}},s:f,s:f,s:{s:o,s:o,s:o},s:o,s:o,s:[O],s:[]}",
		      "kind", "mesh", "complete", 1, "hosts", hosts, "params", "rules",
		      "bw_fraction", 0.7, "lat_factor", 2.0, "median_bw_bps", 95e9, "min_lat_ns",
		      5000.0, "matrix", "bw_bps", bw, "lat_p50_ns", lat, "state", st, "nodes",
		      nodes, "bad_pairs", bad, "suspects", json_array_get(hosts, sus), "failures");
	cr_assert_not_null(r);
	json_decref(ok);
	json_decref(none);
	json_decref(failed);
	json_decref(fast);
	json_decref(slow);
	json_decref(l5);
	return json_pack("{s:i,s:{s:s,s:s},s:s,s:s,s:s,s:b,s:n,s:[o]}", "schema_version", 1, "tool",
			 "name", "ixperf", "version", "0.1.0", "host", "head", "time",
			 "2026-11-29T21:38:33Z", "command", "mesh", "complete", 1, "error",
			 "results", r);
}

Test(html, small_mesh_svg)
{
	json_t *doc = mesh_doc(12);
	char *html = render(doc, NULL, 0);

	cr_assert_not_null(strstr(html, "<header class=\"banner fail\">"), "bad pairs fail a mesh");
	cr_assert_eq(count(html, "<svg class=\"heatmap\""), 2);
	cr_assert_gt(count(html, "<rect class=\"bad\""), 0, "bad pairs outlined");
	cr_assert_not_null(strstr(html, "(suspect)</title>&#9650; 5. 10.0.0.4:5301"));
	cr_assert_not_null(strstr(html, "<tr class=\"sus\">"));
	cr_assert_not_null(strstr(html, ": failed</title>"), "failed cells distinct");
	cr_assert_not_null(strstr(html, ": not measured</title>"));
	cr_assert_null(strstr(html, "</script><img"));
	cr_assert_not_null(strstr(html, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"));
	assert_self_contained(html);
	free(html);
	json_decref(doc);
}

Test(html, mesh_1024_hosts, .timeout = 120)
{
	json_t *doc = mesh_doc(1024);
	size_t len = 0;
	struct ix_err err = { 0 };
	int rc;
	char *html = render_rc(doc, NULL, 0, &rc, &err, &len);
	const char *data;

	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_lt(len, 10u * 1000 * 1000, "1024-host report is %zu bytes", len);
	cr_assert_eq(count(html, "<canvas class=\"hm\""), 2, "large meshes draw on a canvas");
	cr_assert_lt(count(html, "<rect"), 100, "no SVG cell per pair");
	cr_assert_not_null(strstr(html, "<script>(function(){var P=["));
	data = strstr(html, "<script type=\"application/json\" id=\"mesh0\">");
	cr_assert_not_null(data);
	cr_assert_not_null(strstr(data, "\"\\u003c\\u002fscript\\u003e\\u003cimg src=x "
					"onerror=alert(1)\\u003e\""),
			   "hostile host name escaped inside the script data");
	cr_assert_null(strstr(html, "</script><img"));
	cr_assert_eq(count(html, "<script"), count(html, "</script>"), "no script breaks out");
	assert_self_contained(html);
	free(html);
	json_decref(doc);
}

/* A SKIP says why and is no error; rdma results get their table; a topo
 * check lists each finding under its expectation. */
Test(html, skip_rdma_and_topo_checks)
{
	json_t *doc = load_run(), *run = json_array_get(json_object_get(doc, "results"), 0);
	json_t *checks = json_object_get(run, "checks");
	char *html;

	json_array_append_new(checks,
			      json_pack("{s:s,s:s,s:s,s:[],s:s,s:n,s:s,s:[],s:{s:s,s:n,s:s},s:[]}",
					"name", "gpu-pcie", "probe", "gpu", "path", "gpu", "hosts",
					"verdict", "SKIP", "error", "reason",
					"requires gpu: no GPU backend available", "expectations",
					"headline", "name", "-", "value", "unit", "", "results"));
	json_array_append_new(
		checks,
		json_pack("{s:s,s:s,s:s,s:[s],s:s,s:n,s:[],s:{s:s,s:f,s:s},"
			  "s:[{s:s,s:{s:i,s:s,s:i},s:{s:f,s:f,s:f},s:i,s:{s:s,s:s},s:b}]}",
			  "name", "rdma-bw", "probe", "bw", "path", "rdma", "hosts",
			  "10.0.0.2:5301", "verdict", "INFO", "error", "expectations", "headline",
			  "name", "goodput", "value", 9.5e10, "unit", "bit/s", "results", "kind",
			  "rdma_bw", "params", "msg_size", 65536, "op", "write", "qps", 4, "rdma",
			  "bits_per_second", 9.5e10, "peak_bits_per_second", 9.7e10, "message_rate",
			  1.8e5, "path_mtu", 4096, "local", "device", "mlx5_0", "gid_reason",
			  "RoCE v2 GID 3 holds 10.0.0.1", "complete", 1));
	json_array_append_new(
		checks, json_pack("{s:s,s:s,s:s,s:[],s:s,s:n,s:[{s:s,s:s,s:s,s:f,s:f,s:s,s:b,s:i,"
				  "s:[s]}],s:{s:s,s:f,s:s},s:[]}",
				  "name", "topology", "probe", "topo", "path", "sysfs", "hosts",
				  "verdict", "FAIL", "error", "expectations", "key", "max_findings",
				  "text", "0 (default)", "figure", "findings", "limit", 0.0,
				  "measured", 1.0, "unit", "", "pass", 0, "line", 9, "findings",
				  "0000:01:00.0 trained at Gen4 x8", "headline", "name", "findings",
				  "value", 1.0, "unit", "", "results"));
	html = render(doc, NULL, 0);
	cr_expect_not_null(strstr(html, "<span class=\"badge info\">SKIP</span>"));
	cr_expect_not_null(strstr(html, "requires gpu: no GPU backend available"));
	cr_expect_not_null(strstr(html, "<th>Messages/s</th>"), "the rdma table");
	cr_expect_not_null(strstr(html, "mlx5_0"));
	cr_expect_not_null(strstr(html, "RoCE v2 GID 3 holds 10.0.0.1"));
	cr_expect_not_null(strstr(html, "0000:01:00.0 trained at Gen4 x8"), "the finding");
	assert_self_contained(html);
	free(html);
	json_decref(doc);
}
