/* Unit tests for report/doc/figures.c: figures of run and single-command
 * documents (fixtures in tests/data; an ecmp one inline), validation, values
 * with units. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/data.h"

#include "report/doc/compare.h"
#include "report/doc/figures.h"
#include "tests/unit/report/doc/figs.h"

static struct ix_figure *figures_of(const char *text, size_t *n)
{
	struct ix_err err = { 0 };
	struct ix_figure *v = NULL;
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr);

	cr_assert_not_null(doc, "test document: %s", jerr.text);
	cr_assert_eq(ix_figures_extract(doc, &v, n, &err), 0, "%s", err.msg);
	json_decref(doc);
	return v;
}

#define ENVELOPE(cmd)                                                                         \
	"{\"schema_version\":1,\"tool\":{\"name\":\"ixperf\",\"version\":\"0\"},\"command\":" \
	"\"" cmd "\",\"time\":\"2026-01-01T00:00:00Z\",\"results\":"

/* ---- extraction --------------------------------------------------------- */
Test(figures, run_document)
{
	size_t n;
	struct ix_figure *v = figures("compare-base.json", &n);
	const struct ix_figure *f;

	/* 3 tcp-bw, 5 tcp-lat, 3 udp-bw, 5 bw-sweep, 6 mesh, 7 incast, 3 old-check */
	cr_expect_eq(n, 32, "%zu figures", n);
	f = get(v, n, "tcp-bw/headline");
	cr_expect(f->headline);
	cr_expect_str_eq(f->name, "goodput");
	cr_expect_str_eq(f->check, "tcp-bw");
	cr_expect_str_eq(f->unit, "bit/s");
	cr_expect_eq(f->better, IX_HIGHER_BETTER);
	expect(v, n, "tcp-bw/headline", 10e9);
	expect(v, n, "tcp-bw/goodput", 10e9);
	expect(v, n, "tcp-bw/retransmits", 5);
	f = get(v, n, "tcp-bw/retransmits");
	cr_expect(f->absolute && f->allowance == 10 && f->better == IX_LOWER_BETTER);
	f = get(v, n, "tcp-lat/headline");
	cr_expect_eq(f->better, IX_LOWER_BETTER);
	cr_expect_str_eq(f->unit, "ns");
	expect(v, n, "tcp-lat/p50", 20000);
	expect(v, n, "tcp-lat/p99", 50000);
	expect(v, n, "tcp-lat/p99.9", 80000);
	expect(v, n, "tcp-lat/max", 100000);
	cr_expect_eq(get(v, n, "tcp-lat/p99")->better, IX_LOWER_BETTER);
	expect(v, n, "udp-bw/goodput", 1e9);
	expect(v, n, "udp-bw/loss_percent", 0);
	cr_expect_str_eq(get(v, n, "udp-bw/loss_percent")->unit, "%");
	cr_expect_null(ix_figures_find(v, n, "udp-bw/retransmits"), "UDP has no retransmits");
	expect(v, n, "bw-sweep/goodput@1024B", 1e9);
	expect(v, n, "bw-sweep/goodput@4096B", 4e9);
	expect(v, n, "bw-sweep/retransmits@4096B", 0);
	cr_expect_null(ix_figures_find(v, n, "bw-sweep/goodput"), "a sweep keys by size");
	expect(v, n, "mesh/median_bw", 20e9);
	expect(v, n, "mesh/min_lat", 7000);
	expect(v, n, "mesh/bad_pairs", 0);
	expect(v, n, "mesh/suspects", 0);
	expect(v, n, "mesh/failed_pairs", 0);
	f = get(v, n, "mesh/bad_pairs");
	cr_expect(f->absolute && f->allowance == 0 && f->better == IX_LOWER_BETTER);
	cr_expect_str_eq(get(v, n, "mesh/headline")->name, "median pair bandwidth");
	expect(v, n, "incast/goodput@N=1", 10e9);
	expect(v, n, "incast/goodput@N=2", 18e9);
	expect(v, n, "incast/stalled_rounds@N=2", 0);
	expect(v, n, "incast/jain@N=2", 0.99);
	cr_expect_eq(get(v, n, "incast/jain@N=2")->better, IX_HIGHER_BETTER);
	expect(v, n, "old-check/goodput", 5e9);
	free(v);
}

Test(figures, single_command_documents)
{
	size_t n;
	struct ix_figure *v = figures("bw.json", &n);

	cr_expect_eq(n, 2);
	expect(v, n, "bw/goodput", 2.832092625e10);
	expect(v, n, "bw/retransmits", 2);
	cr_expect_str_eq(v[0].check, "bw");
	cr_expect_str_eq(v[0].name, "goodput");
	cr_expect(!v[0].headline);
	free(v);

	v = figures("mesh.json", &n);
	/* 5 aggregates, then 3 figures per node (4) and 2 per measured pair (6) */
	cr_expect_eq(n, 5 + 4 * 3 + 6 * 2);
	expect(v, n, "mesh/median_bw", 2.38319575e10);
	expect(v, n, "mesh/min_lat", 6805);
	expect(v, n, "mesh/bad_pairs", 0);
	expect(v, n, "mesh/node 127.0.0.1:6202 send", 22844008450);
	expect(v, n, "mesh/node 127.0.0.1:6203 recv", 22438447100);
	expect(v, n, "mesh/node 127.0.0.1:6204 lat_p50", 6810);
	expect(v, n, "mesh/pair 127.0.0.1:6204->127.0.0.1:6203 bw", 22800093180);
	expect(v, n, "mesh/pair 127.0.0.1:6202->127.0.0.1:6203 lat_p50", 6805);
	cr_expect_null(ix_figures_find(v, n, "mesh/pair 127.0.0.1:6201->127.0.0.1:6203 bw"),
		       "a pair not measured has no figure");
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(v[i].detail, i >= 5, "%s", v[i].key);
	free(v);

	v = figures("incast.json", &n);
	cr_expect_eq(n, 9);
	expect(v, n, "incast/goodput@N=2", 4.847057534e10);
	expect(v, n, "incast/jain@N=3", 0.9054469646);
	expect(v, n, "incast/stalled_rounds@N=3", 0);
	free(v);
}

Test(figures, keys_are_stable_between_runs)
{
	size_t nb, nn;
	struct ix_figure *b = figures("compare-base.json", &nb);
	struct ix_figure *c = figures("compare-new.json", &nn);

	for (size_t i = 0; i < nb; i++)
		if (strncmp(b[i].key, "old-check/", 10) != 0)
			cr_expect_not_null(ix_figures_find(c, nn, b[i].key), "%s missing in new",
					   b[i].key);
	free(b);
	free(c);
}

Test(figures, directions_and_lat_sweep)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("bw") "[{\"kind\":\"bw\",\"params\":{\"mode\":\"bidir\",\"msg_size\":8},"
			       "\"summary\":{\"forward\":{\"bits_per_second\":5,\"retransmits\":1},"
			       "\"reverse\":null}}]}",
		&n);

	cr_expect_eq(n, 3);
	expect(v, n, "bw/goodput", 5);
	cr_expect(!get(v, n, "bw/goodput_reverse")->valid, "expected, but null");
	free(v);

	v = figures_of(ENVELOPE("lat") "[{\"kind\":\"lat\",\"params\":{\"msg_size\":64},"
				       "\"stats\":{\"p50_ns\":1,\"p99_ns\":2,\"p99_9_ns\":3,"
				       "\"max_ns\":4}},{\"kind\":\"lat\",\"params\":{\"msg_size\":"
				       "1024},\"stats\":null}]}",
		       &n);
	cr_expect_eq(n, 8);
	expect(v, n, "lat/p99@64B", 2);
	expect(v, n, "lat/p99.9@64B", 3);
	cr_expect(!get(v, n, "lat/max@1024B")->valid);
	free(v);
}

Test(figures, repeated_keys_are_made_unique)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":["
				"{\"name\":\"dup\",\"headline\":{\"name\":\"g\",\"value\":1,"
				"\"unit\":\"bit/s\"}},"
				"{\"name\":\"dup\",\"headline\":{\"name\":\"g\",\"value\":2,"
				"\"unit\":\"bit/s\"}}]}]}",
		&n);

	cr_expect_eq(n, 2);
	expect(v, n, "dup/headline", 1);
	expect(v, n, "dup/headline#2", 2);
	free(v);
}

Test(figures, long_names_are_cut_on_characters)
{
	char doc[4096], name[401] = "";
	size_t n;
	struct ix_figure *v;
	json_t *s;

	for (int i = 0; i < 100; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 3); /* 200 bytes of 'é' */
	snprintf(doc, sizeof(doc),
		 ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":[{\"name\":\"%s\",\"headline\":"
				 "{\"name\":\"%s\",\"value\":1,\"unit\":\"ns\"}}]}]}",
		 name, name);
	v = figures_of(doc, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(strlen(v[0].check), 126);
	cr_expect_eq(strlen(v[0].name), 190);
	s = json_string(v[0].key);
	cr_expect_not_null(s, "the key is valid UTF-8");
	json_decref(s);
	free(v);
}

Test(figures, errored_check_has_no_headline_value)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":[{\"name\":\"c\",\"verdict\":"
				"\"ERROR\",\"error\":\"x\",\"headline\":{\"name\":\"goodput\","
				"\"value\":null,\"unit\":\"bit/s\"},\"results\":[]}]}]}",
		&n);

	cr_assert_eq(n, 1);
	cr_expect(!v[0].valid);
	free(v);
}

Test(figures, run_documents_are_recognised)
{
	json_t *run = load("compare-base.json"), *bw = load("bw.json");

	cr_expect(ix_doc_is_run(run));
	cr_expect(!ix_doc_is_run(bw));
	json_decref(run);
	json_decref(bw);
}

/* ---- validation --------------------------------------------------------- */

static void load_fails(const char *name, const char *part1, const char *part2)
{
	struct ix_err err = { 0 };
	json_t *doc = ix_doc_load(ix_test_data(name), &err);

	cr_assert_null(doc, "%s loaded", name);
	cr_expect_eq(err.code, IX_EXIT_FAIL, "%s: code %d", name, err.code);
	cr_expect_not_null(strstr(err.msg, name), "'%s' does not name the file", err.msg);
	cr_expect_not_null(strstr(err.msg, part1), "'%s' lacks '%s'", err.msg, part1);
	if (part2)
		cr_expect_not_null(strstr(err.msg, part2), "'%s' lacks '%s'", err.msg, part2);
}

Test(validate, files)
{
	load_fails("corrupt.json", "not valid JSON", "line 1, column 6");
	load_fails("truncated.json", "not valid JSON", "premature end of input");
	load_fails("foreign.json", "not an ixperf result document", "no schema_version");
	load_fails("foreign.json", "no tool.name \"ixperf\"", NULL);
	load_fails("newer-schema.json", "schema_version 2 is newer", "(1)");
	load_fails("no-such-file.json", "cannot read", "No such file");
	load_fails("history", "directory", NULL);
}

static void invalid(const char *text, const char *part)
{
	struct ix_err err = { 0 };
	struct ix_figure *v = (struct ix_figure *)1;
	size_t n = 99;
	json_t *doc = json_loads(text, 0, NULL);

	cr_assert_not_null(doc, "test document: %s", text);
	cr_expect_eq(ix_doc_validate(doc, &err), -1, "accepted: %s", text);
	cr_expect_not_null(strstr(err.msg, part), "'%s' lacks '%s'", err.msg, part);
	cr_expect_eq(ix_figures_extract(doc, &v, &n, &err), -1);
	cr_expect_null(v);
	cr_expect_eq(n, 0);
	json_decref(doc);
}

Test(validate, documents)
{
	invalid("[1, 2]", "not a JSON object");
	invalid("{\"schema_version\":1,\"results\":[]}", "no tool.name \"ixperf\"");
	invalid("{\"schema_version\":1,\"tool\":{\"name\":\"iperf3\"},\"results\":[]}",
		"not an ixperf result document: no tool.name");
	invalid("{\"schema_version\":1,\"tool\":{\"name\":\"ixperf\"}}", "no results array");
	invalid("{\"schema_version\":\"1\",\"tool\":{\"name\":\"ixperf\"},\"results\":[]}",
		"not a positive integer");
	invalid("{\"schema_version\":0,\"tool\":{\"name\":\"ixperf\"},\"results\":[]}",
		"not a positive integer");
	invalid("{\"schema_version\":7,\"tool\":{\"name\":\"ixperf\"},\"results\":[]}",
		"schema_version 7 is newer");
	invalid(ENVELOPE("bw") "[5]}", "results[0] is not an object with a kind");
	invalid(ENVELOPE("run") "[{\"kind\":\"run\"}]}", "has no checks array");
	invalid(ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":[{}]}]}", "checks[0] has no name");
	invalid(ENVELOPE("run") "[{\"kind\":\"run\",\"checks\":[{\"name\":\"a\",\"results\":5}]}]}",
		"results is not an array");
}

Test(validate, unknown_kinds_and_odd_values_are_not_fatal)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("bw") "[{\"kind\":\"future\"},{\"kind\":\"bw\",\"summary\":\"x\"},"
			       "{\"kind\":\"incast\",\"steps\":[{\"senders\":\"two\","
			       "\"goodput_bps\":\"fast\"}]},{\"kind\":\"mesh\"}]}",
		&n);

	cr_expect_eq(n, 4, "%zu", n); /* incast: goodput, stalled; mesh: bad_pairs, suspects */
	cr_expect(!get(v, n, "bw/goodput@step0")->valid);
	cr_expect(!get(v, n, "bw/bad_pairs")->valid);
	free(v);
}

Test(text, values)
{
	struct ix_figure f = { .key = "k", .valid = false, .better = IX_HIGHER_BETTER, .unit = "" };
	char buf[48];

	ix_value_fmt(2.832092625e10, "bit/s", buf, sizeof(buf));
	cr_expect_str_eq(buf, "28.3 Gbit/s");
	ix_value_fmt(49288, "ns", buf, sizeof(buf));
	cr_expect_str_eq(buf, "49.3 us");
	ix_value_fmt(0.05, "%", buf, sizeof(buf));
	cr_expect_str_eq(buf, "0.05%");
	ix_value_fmt(3, "", buf, sizeof(buf));
	cr_expect_str_eq(buf, "3");
	ix_value_fmt(0.9961976134, "", buf, sizeof(buf));
	cr_expect_str_eq(buf, "0.9962");
	ix_figure_fmt(&f, buf, sizeof(buf));
	cr_expect_str_eq(buf, "-");
}
Test(figures, wire_counts_and_topology_links)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("wire") "[{\"kind\":\"wire\",\"file\":\"a.pcap\",\"complete\":true,"
				 "\"error\":null,\"wire\":{\"tcp_retransmissions\":7,"
				 "\"tcp_dup_acks\":3,\"tcp_out_of_order\":1,\"tcp_zero_window\":0,"
				 "\"ecn_ce\":28,\"roce_cnp\":28,\"dropped\":0}}]}",
		&n);

	cr_expect_eq(n, 7);
	expect(v, n, "wire/wire_retransmissions", 7);
	expect(v, n, "wire/wire_cnp", 28);
	cr_expect(get(v, n, "wire/wire_dup_acks")->absolute);
	cr_expect_float_eq(get(v, n, "wire/wire_retransmissions")->allowance, 10.0, 1e-9);
	free(v);

	/* With an RDMA analysis: its totals, and the NAKs of every code. */
	v = figures_of(
		ENVELOPE("wire") "[{\"kind\":\"wire\",\"file\":\"a.pcap\",\"complete\":true,"
				 "\"error\":null,\"wire\":{\"tcp_retransmissions\":0,"
				 "\"tcp_dup_acks\":0,\"tcp_out_of_order\":0,\"tcp_zero_window\":0,"
				 "\"ecn_ce\":0,\"roce_cnp\":4,\"dropped\":0,\"rdma\":{\"total\":{"
				 "\"retransmitted\":6,\"out_of_sequence\":1,\"retries\":3,"
				 "\"rnr_naks\":1,\"cnp\":4,\"fecn\":0,\"becn\":2,\"naks\":{"
				 "\"psn_sequence\":1,\"remote_access\":2}}}}}]}",
		&n);
	cr_expect_eq(n, 7 + 8);
	expect(v, n, "wire/wire_rdma_retransmitted", 6);
	expect(v, n, "wire/wire_rdma_becn", 2);
	expect(v, n, "wire/wire_rdma_naks", 3);
	free(v);

	v = figures_of(
		ENVELOPE("topo") "[{\"kind\":\"topo\",\"findings\":[{\"kind\":\"aer\"}],"
				 "\"pci\":[{\"bdf\":\"0000:1b:00.0\",\"type\":\"gpu\","
				 "\"link\":{\"bps\":5.0412e11}},{\"bdf\":\"0000:00:01.0\","
				 "\"type\":\"root_port\",\"link\":{\"bps\":5.0412e11}},"
				 "{\"bdf\":\"0000:1c:00.0\",\"type\":\"ib\",\"link\":null}]}]}",
		&n);
	cr_expect_eq(n, 3, "findings and the GPU's and NIC's links, not the root port's");
	expect(v, n, "topo/findings", 1);
	expect(v, n, "topo/link@0000:1b:00.0", 5.0412e11);
	cr_expect_eq(get(v, n, "topo/link@0000:1b:00.0")->better, IX_HIGHER_BETTER);
	cr_expect(!get(v, n, "topo/link@0000:1c:00.0")->valid);
	free(v);
}

Test(figures, ecmp_document)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE("ecmp") "[{\"kind\":\"ecmp\",\"pair\":{\"ok\":true,\"bps\":3.8e8,"
				 "\"bytes\":1},\"spread\":{\"flows\":2,\"min_bps\":1e8,"
				 "\"median_bps\":1.9e8,\"max_bps\":2.8e8,\"mean_bps\":1.9e8,"
				 "\"sum_bps\":3.8e8,\"cv\":0.47,\"jain\":0.82},\"flows\":[{},{}],"
				 "\"switches\":[{\"mapped\":1}]}]}",
		&n);

	static const struct {
		const char *key;
		double v;
	} want[] = { { "ecmp/pair_bw", 3.8e8 },
		     { "ecmp/min_flow_bw", 1e8 },
		     { "ecmp/median_flow_bw", 1.9e8 },
		     { "ecmp/jain", 0.82 },
		     { "ecmp/unmapped_flows@switch0", 1 } };

	cr_expect_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		expect(v, n, want[i].key, want[i].v);
	free(v);
}

/* A traffic pattern: its median host, bad hosts, each host's figure. */
Test(figures, pattern_document)
{
	size_t n;
	struct ix_figure *v = figures_of(
		ENVELOPE(
			"mesh") "[{\"kind\":\"pattern\",\"pattern\":\"ring\",\"median_bps\":9e7,"
				"\"bad_hosts\":1,\"nodes\":[{\"host\":\"h1:1\",\"figure_bps\":9e7},"
				"{\"host\":\"h2:1\",\"figure_bps\":null}]}]}",
		&n);

	cr_expect_eq(n, 3);
	expect(v, n, "mesh/median_host_bw", 9e7);
	expect(v, n, "mesh/bad_hosts", 1);
	expect(v, n, "mesh/host h1:1 bw", 9e7);
	cr_expect_null(ix_figures_find(v, n, "mesh/host h2:1 bw"), "not measured: no figure");
	free(v);
}
