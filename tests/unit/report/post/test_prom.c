/* Unit tests for report/post/prom.c: the Prometheus exposition of run,
 * mesh and single-command documents, checked by a parser of the format:
 * every figure reads back as the document has it, per-host series by
 * default and per-pair ones only when asked. */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/report/post/exposition.h"

static json_t *node_of(json_t *check, size_t i)
{
	return json_array_get(
		json_object_get(json_array_get(json_object_get(check, "results"), 0), "nodes"), i);
}

static json_t *check_of(json_t *doc, size_t i)
{
	return json_array_get(
		json_object_get(json_array_get(json_object_get(doc, "results"), 0), "checks"), i);
}

Test(prom, run_exposition_is_valid_and_carries_the_figures)
{
	struct ix_post_msg m;
	json_t *doc = load("post-run.json");
	char *body = body_of("post-run.json", IX_POST_PUSHGATEWAY, &m);
	json_t *bw = json_array_get(json_object_get(check_of(doc, 0), "results"), 0);
	json_t *lat = json_array_get(json_object_get(check_of(doc, 3), "results"), 0);
	json_t *fwd = json_object_get(json_object_get(bw, "summary"), "forward");
	json_t *st = json_object_get(lat, "stats");
	size_t n;
	struct sample *s;

	cr_expect_str_eq(m.method, "PUT");
	cr_expect_str_eq(m.content_type, "text/plain; version=0.0.4; charset=utf-8");
	cr_expect_str_eq(m.url, "http://127.0.0.1:9091/metrics/job/ixperf/instance/vm");
	s = parse_body(body, &n);
	cr_assert_gt(n, 50);
	cr_expect_eq(value(s, n, "ixperf_bandwidth_bytes_per_second",
			   L("check", "tcp-bw", "src", "vm", "dst", "127.0.0.1", "size", "131072",
			     "path", "tcp")),
		     num(fwd, "bits_per_second") / 8);
	cr_expect_eq(value(s, n, "ixperf_retransmits_total", L("check", "tcp-bw")),
		     num(fwd, "retransmits"));
	cr_expect_eq(value(s, n, "ixperf_latency_seconds", L("check", "tcp-lat", "stat", "p99")),
		     num(st, "p99_ns") / 1e9);
	cr_expect_eq(value(s, n, "ixperf_latency_seconds", L("check", "tcp-lat", "stat", "p50")),
		     num(st, "p50_ns") / 1e9);
	cr_expect_eq(value(s, n, "ixperf_run_pass", NULL), 0);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "FAIL")), 1);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "PASS")), 0);
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "tcp-lat")), 0);
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "tcp-bw")), 1);
	cr_expect_eq(value(s, n, "ixperf_run_duration_seconds", NULL), 42);
	cr_expect_eq(value(s, n, "ixperf_run_timestamp_seconds", NULL), 1795988304);
	cr_expect_eq(value(s, n, "ixperf_packet_loss_ratio", L("check", "udp-bw")), 0);
	/* Mesh: per host and summary series, no pair unless asked; incast: one per step. */
	cr_expect_eq(value(s, n, "ixperf_node_bandwidth_bytes_per_second",
			   L("check", "mesh", "node", "127.0.0.1:6203", "direction", "out")),
		     num(node_of(check_of(doc, 4), 2), "bw_out_bps") / 8);
	cr_expect_eq(value(s, n, "ixperf_mesh_bad_pairs", L("check", "mesh")), 0);
	cr_expect_eq(value(s, n, "ixperf_mesh_pairs", L("check", "mesh", "state", "measured")), 6);
	cr_expect_eq(count(s, n, "ixperf_bandwidth_bytes_per_second", "check", "mesh"), 0);
	cr_expect_eq(value(s, n, "ixperf_bandwidth_bytes_per_second",
			   L("check", "incast", "senders", "3")),
		     51168460740.0 / 8);
	cr_expect_eq(value(s, n, "ixperf_incast_round_seconds",
			   L("check", "incast-read", "senders", "3", "stat", "p99")),
		     81531 / 1e9);
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}

Test(prom, hostile_names_are_escaped_and_never_duplicate_a_series)
{
	struct ix_post_msg m;
	char *body = body_of("post-hostile.json", IX_POST_PUSHGATEWAY, &m);
	size_t n;
	struct sample *s;

	cr_expect(strstr(body, "check=\"evil \\\"quoted\\\" \\\\ back\\nslash\"") != NULL);
	/* The host has a '/': base64 in the grouping key, as the Pushgateway asks. */
	cr_expect_str_eq(m.url, "http://127.0.0.1:9091/metrics/job/ixperf/instance@base64/"
				"cmFjazEvbm9kZSA3");
	s = parse_body(body, &n); /* fails on a duplicate series (two checks share a name) */
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "evil \"quoted\" \\ back\nslash")),
		     1);
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "<!channel> @here `tick`")), 0);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "ERROR")), 1);
	free(s);
	ix_post_msg_free(&m);
}

Test(prom, single_command_document)
{
	struct ix_post_msg m;
	char *body = body_of("post-bw.json", IX_POST_PUSHGATEWAY, &m);
	size_t n;
	struct sample *s = parse_body(body, &n);

	cr_expect_eq(value(s, n, "ixperf_bandwidth_bytes_per_second",
			   L("check", "bw", "src", "vm", "dst", "vm")),
		     2.832092625e10 / 8);
	cr_expect_eq(value(s, n, "ixperf_run_complete", NULL), 1);
	/* A command that only measured: INFO, as its exit status 0 says. */
	cr_expect_eq(value(s, n, "ixperf_run_pass", NULL), 0);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "INFO")), 1);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "PASS")), 0);
	free(s);
	ix_post_msg_free(&m);
}

/* A mesh with bad pairs, which 'ixperf mesh' exits 4 on, is a FAIL in
 * every format. */
Test(prom, a_mesh_with_bad_pairs_fails)
{
	struct ix_post_msg m;
	char *body = body_of("mesh-bad.json", IX_POST_PUSHGATEWAY, &m);
	size_t n;
	struct sample *s = parse_body(body, &n);

	cr_expect_eq(value(s, n, "ixperf_run_complete", NULL), 1);
	cr_expect_eq(value(s, n, "ixperf_run_pass", NULL), 0);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "FAIL")), 1);
	free(s);
	ix_post_msg_free(&m);
}

Test(prom, grouping_key_escaping)
{
	char *u = ix_post_grouping_url("http://pgw:9091/", "fabric tests", "");

	cr_expect_str_eq(u, "http://pgw:9091/metrics/job/fabric%20tests/instance@base64/=");
	free(u);
	u = ix_post_grouping_url("http://pgw:9091", "a/b", "node1");
	cr_expect_str_eq(u, "http://pgw:9091/metrics/job@base64/YS9i/instance/node1");
	free(u);
	/* "." and ".." would be path steps, percent-encoded or not. */
	u = ix_post_grouping_url("http://pgw:9091", "..", ".");
	cr_expect_str_eq(u, "http://pgw:9091/metrics/job@base64/Li4=/instance@base64/Lg==");
	free(u);
	u = ix_post_grouping_url("http://pgw:9091", "...", ".a");
	cr_expect_str_eq(u, "http://pgw:9091/metrics/job/.../instance/.a");
	free(u);
	u = ix_post_grouping_url("http://pgw:9091/metrics/job/mine/rack/r1", "x", "y");
	cr_expect_str_eq(u, "http://pgw:9091/metrics/job/mine/rack/r1");
	free(u);
}

/* A check skipped for want of a device is neither a pass nor a failure:
 * no ixperf_check_pass series, as for a check that expects nothing. */
Test(prom, skipped_check_has_no_pass_series)
{
	struct ix_post_opts o = { .url = "http://127.0.0.1:9091", .format = IX_POST_PUSHGATEWAY };
	struct ix_err err = { 0 };
	struct ix_post_msg m;
	json_t *doc = load("post-run.json");
	size_t n;
	struct sample *s;

	json_object_set_new(check_of(doc, 0), "verdict", json_string("SKIP"));
	cr_assert_eq(ix_post_payload(&o, doc, NULL, 0, &m, &err), 0, "%s", err.msg);
	s = parse_body(m.body, &n);
	for (size_t i = 0; i < n; i++)
		cr_expect(strcmp(s[i].name, "ixperf_check_pass") != 0 ||
				  strcmp(label(&s[i], "check"), "tcp-bw") != 0,
			  "a pass series for the skipped check");
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "tcp-lat")), 0);
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}

/* A mesh's pairs only when asked: one series per measured pair and test. */
Test(prom, mesh_pairs_only_when_asked)
{
	struct ix_post_msg m;
	json_t *doc = load("post-run.json");
	char *body = body_pairs("post-run.json", true, &m);
	size_t n;
	struct sample *s = parse_body(body, &n);

	cr_expect_eq(count(s, n, "ixperf_bandwidth_bytes_per_second", "check", "mesh"), 6);
	cr_expect_eq(value(s, n, "ixperf_bandwidth_bytes_per_second",
			   L("check", "mesh", "src", "127.0.0.1:6203", "dst", "127.0.0.1:6201")),
		     27382235140.0 / 8);
	cr_expect_eq(value(s, n, "ixperf_latency_seconds",
			   L("check", "mesh", "src", "127.0.0.1:6201", "dst", "127.0.0.1:6202",
			     "stat", "p99")),
		     9844.0 / 1e9);
	/* the per-host series are there too */
	cr_expect_eq(count(s, n, "ixperf_node_suspect", "check", "mesh"), 4);
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}

/* Bad pairs, suspects and every host's counters of a mesh that failed. */
Test(prom, mesh_bad_pairs_suspects_and_counters)
{
	struct ix_post_msg m;
	json_t *doc = load("mesh-bad.json");
	json_t *r = json_array_get(json_object_get(doc, "results"), 0);
	json_t *nodes = json_object_get(r, "nodes");
	json_t *ctr = json_pack("{s:i,s:i}", "discards", 40, "pause_rx", 7);
	struct ix_post_opts o = { .url = "http://127.0.0.1:9091", .format = IX_POST_PUSHGATEWAY };
	struct ix_err err = { 0 };
	size_t n;
	struct sample *s;

	json_object_set(json_array_get(nodes, 3), "counters", ctr);
	json_object_set_new(json_array_get(nodes, 1), "counters",
			    json_pack("{s:i}", "discards", 2));
	json_decref(ctr);
	cr_assert_eq(ix_post_payload(&o, doc, NULL, 0, &m, &err), 0, "%s", err.msg);
	/* counts of events are counters, the rest gauges */
	cr_expect(strstr(m.body, "# TYPE ixperf_fabric_events_total counter\n") != NULL);
	cr_expect(strstr(m.body, "# TYPE ixperf_mesh_bad_pairs gauge\n") != NULL);
	cr_expect(strstr(m.body, "# TYPE ixperf_run_verdict gauge\n") != NULL);
	s = parse_body(m.body, &n); /* splits the body */
	cr_expect_eq(value(s, n, "ixperf_mesh_bad_pairs", L("check", "mesh")),
		     (double)json_array_size(json_object_get(r, "bad_pairs")));
	cr_expect_eq(value(s, n, "ixperf_mesh_suspect_nodes", L("check", "mesh")), 1);
	cr_expect_eq(value(s, n, "ixperf_node_suspect", L("node", "127.0.0.1:6204")), 1);
	cr_expect_eq(value(s, n, "ixperf_node_suspect", L("node", "127.0.0.1:6201")), 0);
	cr_expect_eq(value(s, n, "ixperf_node_bad_pairs", L("node", "127.0.0.1:6204")), 3);
	cr_expect_eq(value(s, n, "ixperf_node_fabric_events_total",
			   L("node", "127.0.0.1:6204", "class", "discards")),
		     40);
	/* the summary adds the hosts up */
	cr_expect_eq(value(s, n, "ixperf_fabric_events_total", L("class", "discards")), 42);
	cr_expect_eq(value(s, n, "ixperf_fabric_events_total", L("class", "pause_rx")), 7);
	cr_expect_eq(count(s, n, "ixperf_bandwidth_bytes_per_second", "check", "mesh"), 0);
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}

/* A run's inventory: the odd hosts, counted and named. */
Test(prom, fleet_odd_nodes)
{
	struct ix_post_msg m;
	json_t *doc = load("post-run.json");
	json_t *run = json_array_get(json_object_get(doc, "results"), 0);
	struct ix_post_opts o = { .url = "http://127.0.0.1:9091", .format = IX_POST_PUSHGATEWAY };
	struct ix_err err = { 0 };
	size_t n;
	struct sample *s;

	json_object_set_new(run, "fleet",
			    json_pack("{s:i,s:[{s:s,s:b},{s:s,s:b}]}", "odd_nodes", 1, "nodes",
				      "host", "a", "odd", 0, "host", "b", "odd", 1));
	cr_assert_eq(ix_post_payload(&o, doc, NULL, 0, &m, &err), 0, "%s", err.msg);
	s = parse_body(m.body, &n);
	cr_expect_eq(value(s, n, "ixperf_fleet_odd_nodes", NULL), 1);
	cr_expect_eq(value(s, n, "ixperf_node_odd", L("node", "b")), 1);
	cr_expect_eq(value(s, n, "ixperf_node_odd", L("node", "a")), 0);
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}
