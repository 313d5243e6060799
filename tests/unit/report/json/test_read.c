/* Unit tests for report/json/read.c: mesh and incast results written by
 * the JSON renderer, read back into their structs, and rendered as text
 * exactly as the live results are; malformed results are errors naming
 * the member. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "report/json/read.h"
#include "report/text/text.h"
#include "tests/unit/report/fixtures.h"

/* Hosts in every form ix_host_format writes. */
static struct ix_host formsv[4] = { { "10.0.0.7", 5301, 4, "node7" },
				    { "", 0, 1, "node1" },
				    { "fe80::1", 6000, 0, "" },
				    { "::1", 5301, 13, "" } };
static struct ix_hostlist forms = { formsv, 4, 4 };

static char *text_of_mesh(const struct ix_mesh_result *r, const char *const *reasons, size_t n)
{
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	ix_text_mesh_reasons(f, r, &u, reasons, n);
	fclose(f);
	return buf;
}

static char *text_of_incast(const struct ix_incast_result *r)
{
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	ix_text_incast(f, r, &u);
	fclose(f);
	return buf;
}

/* The result as `ixperf mesh -J` writes it (the lazy writer), parsed. */
static json_t *saved_mesh(const struct ix_mesh_result *r)
{
	struct ix_json_lazy lazy[2];
	json_t *res = ix_json_mesh_lazy(r, lazy), *back;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(ix_json_write(f, res, lazy, 2), 0);
	fclose(f);
	back = json_loads(buf, 0, NULL);
	cr_assert_not_null(back, "%s", buf);
	free(buf);
	json_decref(res);
	return back;
}

/* A text round trip of a value: dumped and parsed as a file would be. */
static json_t *through_text(json_t *v)
{
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_t *back = json_loads(s, 0, NULL);

	free(s);
	json_decref(v);
	cr_assert_not_null(back);
	return back;
}

/* The fixture mesh, with an agent down, a failed pair and a second bad pair. */
static void rich_mesh(struct ix_mesh_result *r, struct ix_cell *cells, struct ix_mesh_node *nodes,
		      char **errs, uint32_t *sus, struct ix_mesh_failure *fail)
{
	mesh(r, cells, nodes, errs, sus);
	errs[1] = "agent n2 stopped answering";
	cells[2 * 3 + 0] =
		(struct ix_cell){ 8e9, 25000, 31000, IX_CELL_OK, IX_BAD_LAT, 0, 0, 0, 0 };
	mesh_cells(r, cells);
	r->findings.bad_pairs = 2;
	r->findings.lat_pairs = 3;
	nodes[0] = (struct ix_mesh_node){
		.bw_out_bps = 5e9, .bw_in_bps = 8e9, .lat_p50_ns = 5000, .measured = 3, .bad = 2
	};
	nodes[2].bad = 2;
	nodes[2].measured = 2;
	/* n3's port dropped and paused during its tests */
	nodes[2].counters.v[IX_CC_DISCARD] = 426;
	nodes[2].counters.v[IX_CC_PAUSE_RX] = 12;
	nodes[2].counters.has = (1u << IX_CC_DISCARD) | (1u << IX_CC_PAUSE_RX);
	nodes[0].link = plain_link("eth0");
	nodes[2].link = slow_pcie("enp59s0f0");
	r->counters_read = 6;
	snprintf(fail->error, sizeof(fail->error), "connection refused");
	fail->a = 1;
	fail->b = 2;
	r->failures = fail;
	r->nfailures = 1;
	r->wall_s = 12.5;
	r->pairs_retested = 1;
	r->params.retest = true;
	r->params.bw.msg_size = 131072;
	r->params.bw.duration_s = 1;
	r->params.lat.msg_size = 64;
	r->params.lat.duration_s = 1;
}

Test(mesh, reads_back_as_it_was_written)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_mesh_failure fail;
	struct ix_mesh_saved s;
	struct ix_err err = { 0 };
	json_t *doc;

	rich_mesh(&r, cells, nodes, errs, sus, &fail);
	doc = saved_mesh(&r);
	cr_assert_eq(ix_json_read_mesh(doc, &s, &err), 0, "%s", err.msg);
	cr_assert_eq(s.r.n, 3);
	for (uint32_t i = 0; i < 3; i++) {
		char a[300], b[300];

		ix_host_format(&hosts.v[i], a, sizeof(a));
		ix_host_format(&s.r.hosts->v[i], b, sizeof(b));
		cr_assert_str_eq(a, b);
	}
	for (int i = 0; i < 9; i++) {
		struct ix_cell c = ix_cells_get(&s.r.cells, (uint32_t)i / 3, (uint32_t)i % 3);

		cr_assert_eq(c.state, cells[i].state, "cell %d", i);
		cr_assert_eq(c.bad, cells[i].bad, "cell %d", i);
		cr_assert_eq(c.retested, cells[i].retested, "cell %d", i);
		if (cells[i].state != IX_CELL_OK)
			continue;
		cr_assert_eq(c.bw_bps, cells[i].bw_bps, "cell %d", i);
		cr_assert_eq(c.lat_p50_ns, cells[i].lat_p50_ns, "cell %d", i);
		cr_assert_eq(c.lat_p99_ns, cells[i].lat_p99_ns, "cell %d", i);
	}
	for (int i = 0; i < 3; i++) {
		cr_assert_float_eq(s.r.nodes[i].bw_out_bps, nodes[i].bw_out_bps, 1);
		cr_assert_float_eq(s.r.nodes[i].bw_in_bps, nodes[i].bw_in_bps, 1);
		cr_assert_float_eq(s.r.nodes[i].lat_p50_ns, nodes[i].lat_p50_ns, 1e-6);
		cr_assert_eq(s.r.nodes[i].measured, nodes[i].measured);
		cr_assert_eq(s.r.nodes[i].bad, nodes[i].bad);
		cr_assert_eq(s.r.nodes[i].suspect, nodes[i].suspect);
		cr_assert_eq(!s.r.node_error[i], !errs[i]);
	}
	cr_assert_str_eq(s.r.node_error[1], errs[1]);
	cr_assert_eq(s.r.findings.bad_pairs, 2);
	cr_assert_eq(s.r.findings.lat_pairs, 3, "the pairs with a latency, counted again");
	cr_assert_float_eq(s.r.findings.median_bw_bps, 5e9, 1);
	cr_assert_float_eq(s.r.findings.lat_baseline_ns, 5000, 1e-6);
	cr_assert_float_eq(s.r.findings.bw_fraction, 0.7, 1e-12);
	cr_assert_float_eq(s.r.findings.lat_factor, 2.0, 1e-12);
	cr_assert_float_eq(s.r.findings.lat_percentile, 50, 1e-12);
	cr_assert_eq(s.r.findings.nsuspects, 1);
	cr_assert_eq(s.r.findings.suspects[0], 2);
	cr_assert_eq(s.r.nfailures, 1);
	cr_assert_eq(s.r.failures[0].a, 1);
	cr_assert_eq(s.r.failures[0].b, 2);
	cr_assert_str_eq(s.r.failures[0].error, "connection refused");
	cr_assert_eq(s.r.params.tests, IX_MESH_BW | IX_MESH_LAT);
	cr_assert(s.r.params.retest);
	cr_assert_str_eq(s.r.params.bw.path, "tcp");
	cr_assert_eq(s.r.params.bw.msg_size, 131072);
	cr_assert_eq(s.r.rounds, r.rounds);
	cr_assert_eq(s.r.pairs_planned, r.pairs_planned);
	cr_assert_eq(s.r.pairs_measured, r.pairs_measured);
	cr_assert_eq(s.r.pairs_failed, r.pairs_failed);
	cr_assert_eq(s.r.pairs_retested, r.pairs_retested);
	cr_assert_float_eq(s.r.wall_s, 12.5, 1e-9);
	cr_assert_eq(s.r.complete, r.complete);
	/* The reasons are the document's, in row-major order. */
	cr_assert_str_eq(s.reasons[0], "bandwidth 1.00 Gbit/s < 0.7 x median 5.00 Gbit/s (20%); no "
				       "fabric counter moved at either host");
	cr_assert_not_null(strstr(s.reasons[1], "latency p50 25.0 us > 2 x baseline 5.0 us"), "%s",
			   s.reasons[1]);
	ix_mesh_saved_free(&s);
	json_decref(doc);
}

Test(mesh, saved_text_is_the_live_text)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_mesh_failure fail;
	struct ix_mesh_saved s;
	struct ix_err err = { 0 };
	json_t *doc;
	char *live, *saved;

	rich_mesh(&r, cells, nodes, errs, sus, &fail);
	live = text_of_mesh(&r, NULL, 0);
	doc = saved_mesh(&r);
	cr_assert_eq(ix_json_read_mesh(doc, &s, &err), 0, "%s", err.msg);
	saved = text_of_mesh(&s.r, (const char *const *)s.reasons, s.r.findings.bad_pairs);
	cr_assert_str_eq(saved, live);
	cr_assert_not_null(strstr(saved, "n1:5301 -> n3:6000  bandwidth 1.00 Gbit/s"), "%s", saved);
	cr_assert_not_null(strstr(saved, "SUSPECT: n3:6000"), "%s", saved);
	cr_assert_not_null(strstr(saved, "FAILED: n2:5301 -> n3:6000: connection refused"), "%s",
			   saved);
	cr_assert_not_null(strstr(saved, "2.00 Gbit/s PCIe!      - SUSPECT"), "%s", saved);
	cr_assert_not_null(strstr(saved, "Fabric counters that moved, per host over its tests:\n"
					 "  n3:6000: 426 drops, 12 pause frames received\n"),
			   "%s", saved);
	free(live);
	free(saved);
	ix_mesh_saved_free(&s);
	json_decref(doc);
}

/* A pair measured at 0 and a pair with no round trip back: written as 0
 * and null, counted, bad, shown as such, and read back as they were. */
Test(mesh, a_dead_pair_is_measured_at_zero_everywhere)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_mesh_saved s;
	struct ix_err err = { 0 };
	json_t *doc, *m;
	char *live, *saved;

	mesh(&r, cells, nodes, errs, sus);
	cells[0 * 3 + 1].bw_bps = 0;
	cells[0 * 3 + 1].bw_zero = 1;
	cells[0 * 3 + 2].lat_p50_ns = cells[0 * 3 + 2].lat_p99_ns = 0;
	cells[0 * 3 + 2].lat_lost = 1;
	r.params.rules.min_bw_bps = 2e9;
	mesh_cells(&r, cells);
	cr_assert_eq(ix_mesh_analyze(&r.cells, &r.params.rules, &r.findings), 0);
	nodes[0].bw_out_bps = 0;
	nodes[0].have_bw_out = true;
	live = text_of_mesh(&r, NULL, 0);
	doc = saved_mesh(&r);
	m = json_object_get(doc, "matrix");
	cr_assert(
		json_is_number(json_array_get(json_array_get(json_object_get(m, "bw_bps"), 0), 1)));
	cr_assert_eq(json_number_value(
			     json_array_get(json_array_get(json_object_get(m, "bw_bps"), 0), 1)),
		     0);
	cr_assert(json_is_null(
		json_array_get(json_array_get(json_object_get(m, "lat_p50_ns"), 0), 2)));
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "pairs"), "zero")), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "pairs"), "lost")), 1);
	cr_assert_eq(
		json_number_value(json_object_get(
			json_object_get(json_object_get(doc, "params"), "rules"), "min_bw_bps")),
		2e9);
	cr_assert(json_is_number(json_object_get(json_array_get(json_object_get(doc, "nodes"), 0),
						 "bw_out_bps")),
		  "a node whose pairs moved nothing sends at 0, not null");
	cr_assert_eq(ix_json_read_mesh(doc, &s, &err), 0, "%s", err.msg);
	cr_assert(ix_cells_get(&s.r.cells, 0, 1).bw_zero);
	cr_assert(ix_cells_get(&s.r.cells, 0, 2).lat_lost);
	cr_assert_eq(ix_cells_get(&s.r.cells, 0, 1).bad, IX_BAD_BW);
	cr_assert_eq(ix_cells_get(&s.r.cells, 0, 2).bad & IX_BAD_LAT, IX_BAD_LAT);
	cr_assert_eq(s.r.findings.zero_pairs, 1);
	cr_assert_eq(s.r.findings.lost_pairs, 1);
	saved = text_of_mesh(&s.r, (const char *const *)s.reasons, s.r.findings.bad_pairs);
	cr_assert_str_eq(saved, live);
	cr_assert_not_null(strstr(saved, "\n0             .      0.00*"), "%s", saved);
	cr_assert_not_null(strstr(saved, "lost*"), "%s", saved);
	cr_assert_not_null(strstr(saved, "n1:5301 -> n2:5301  the bandwidth test ran and moved "
					 "nothing (0 bit/s)"),
			   "%s", saved);
	cr_assert_not_null(strstr(saved, "1 pair(s) measured at 0"), "%s", saved);
	cr_assert_not_null(strstr(saved, "Absolute limits: bad below 2.00 Gbit/s."), "%s", saved);
	free(r.findings.suspects);
	free(live);
	free(saved);
	ix_mesh_saved_free(&s);
	json_decref(doc);
}

Test(mesh, saved_reasons_are_shown_as_written)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_mesh_saved s;
	struct ix_err err = { 0 };
	json_t *doc, *bp;
	char *text;

	mesh(&r, cells, nodes, errs, sus);
	doc = saved_mesh(&r);
	bp = json_array_get(json_object_get(doc, "bad_pairs"), 0);
	json_object_set_new(bp, "reason", json_string("slower than \x1b[31mthe others"));
	cr_assert_eq(ix_json_read_mesh(doc, &s, &err), 0, "%s", err.msg);
	text = text_of_mesh(&s.r, (const char *const *)s.reasons, s.r.findings.bad_pairs);
	cr_assert_not_null(strstr(text, "n1:5301 -> n3:6000  slower than ?[31mthe others"),
			   "the saved words, safe for a terminal: %s", text);
	free(text);
	ix_mesh_saved_free(&s);
	/* An older document without reasons: worked out again. */
	json_object_del(bp, "reason");
	cr_assert_eq(ix_json_read_mesh(doc, &s, &err), 0, "%s", err.msg);
	cr_assert_null(s.reasons[0]);
	text = text_of_mesh(&s.r, (const char *const *)s.reasons, s.r.findings.bad_pairs);
	cr_assert_not_null(strstr(text, "bandwidth 1.00 Gbit/s < 0.7 x median 5.00 Gbit/s (20%)"),
			   "%s", text);
	free(text);
	ix_mesh_saved_free(&s);
	json_decref(doc);
}

Test(mesh, hosts_of_every_form_read_back)
{
	struct ix_mesh_result r;
	struct ix_cell cells[16] = { { 0 } };
	struct ix_mesh_node nodes[4] = { { 0 } };
	char *errs[4] = { NULL, NULL, NULL, NULL };
	struct ix_mesh_saved s;
	struct ix_err err = { 0 };
	json_t *doc;
	char *live, *saved;

	memset(&r, 0, sizeof(r));
	r.params.tests = IX_MESH_LAT;
	r.params.bw.path = r.params.lat.path = "tcp";
	r.hosts = &forms;
	r.n = 4;
	r.nodes = nodes;
	r.node_error = errs;
	r.rounds = 3;
	r.pairs_planned = 6;
	r.pairs_measured = 1;
	r.complete = false;
	for (int i = 0; i < 16; i++)
		cells[i].state = i % 5 == 0 ? IX_CELL_NONE : IX_CELL_PENDING;
	cells[1] = (struct ix_cell){ 0, 7000, 9000, IX_CELL_OK, 0, 0, 0, 0, 0 };
	cr_assert_eq(ix_cells_load(&r.cells, cells, 4, IX_CELLS_FULL), 0);
	doc = saved_mesh(&r);
	cr_assert_eq(ix_json_read_mesh(doc, &s, &err), 0, "%s", err.msg);
	for (uint32_t i = 0; i < 4; i++) {
		char a[600], b[600];

		ix_host_format(&forms.v[i], a, sizeof(a));
		ix_host_format(&s.hosts.v[i], b, sizeof(b));
		cr_assert_str_eq(b, a);
	}
	live = text_of_mesh(&r, NULL, 0);
	saved = text_of_mesh(&s.r, (const char *const *)s.reasons, s.r.findings.bad_pairs);
	cr_assert_str_eq(saved, live);
	cr_assert_not_null(strstr(saved, "r3@node7(10.0.0.7):5301"), "%s", saved);
	cr_assert_not_null(strstr(saved, "r12@[::1]:5301"), "%s", saved);
	free(live);
	free(saved);
	ix_mesh_saved_free(&s);
	json_decref(doc);
}

Test(mesh, an_older_document_reads)
{
	json_error_t jerr;
	json_t *doc = json_load_file(ix_test_data("mesh.json"), 0, &jerr);
	struct ix_mesh_saved s;
	struct ix_err err = { 0 };

	cr_assert_not_null(doc, "%s", jerr.text);
	cr_assert_eq(
		ix_json_read_mesh(json_array_get(json_object_get(doc, "results"), 0), &s, &err), 0,
		"%s", err.msg);
	cr_assert_eq(s.r.n, 4);
	cr_assert_eq(s.r.pairs_measured, 6);
	cr_assert_float_eq(s.r.findings.lat_percentile, 50, 1e-12, "absent: the median");
	ix_mesh_saved_free(&s);
	json_decref(doc);
}

/* ---- malformed meshes ------------------------------------------------------------ */

static void set_path(json_t *doc, const char *a, const char *b, json_t *v)
{
	json_t *o = b ? json_object_get(doc, a) : doc;

	json_object_set_new(o, b ? b : a, v);
}

static void expect_mesh_error(void (*spoil)(json_t *), const char *want)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_mesh_failure fail;
	struct ix_mesh_saved s;
	struct ix_err err = { 0 };
	json_t *doc;

	rich_mesh(&r, cells, nodes, errs, sus, &fail);
	doc = saved_mesh(&r);
	spoil(doc);
	cr_assert_eq(ix_json_read_mesh(doc, &s, &err), -1, "read despite: %s", want);
	cr_assert_not_null(strstr(err.msg, want), "'%s' lacks '%s'", err.msg, want);
	cr_assert_null(s.r.cells.v, "nothing kept on failure");
	ix_mesh_saved_free(&s);
	json_decref(doc);
}

static json_t *cell_of(json_t *doc, const char *m, size_t a, size_t b)
{
	return json_array_get(json_array_get(json_object_get(json_object_get(doc, "matrix"), m), a),
			      b);
}

static void short_row(json_t *doc)
{
	json_array_remove(
		json_array_get(json_object_get(json_object_get(doc, "matrix"), "bw_bps"), 1), 0);
}
static void few_rows(json_t *doc)
{
	json_array_remove(json_object_get(json_object_get(doc, "matrix"), "lat_p99_ns"), 0);
}
static void row_not_array(json_t *doc)
{
	json_array_set_new(json_object_get(json_object_get(doc, "matrix"), "state"), 2,
			   json_string("ok"));
}
static void bad_state(json_t *doc)
{
	json_array_set_new(
		json_array_get(json_object_get(json_object_get(doc, "matrix"), "state"), 0), 1,
		json_string("great"));
}
static void cell_string(json_t *doc)
{
	json_array_set_new(
		json_array_get(json_object_get(json_object_get(doc, "matrix"), "lat_p50_ns"), 0), 1,
		json_string("5000"));
}
static void cell_negative(json_t *doc)
{
	json_real_set(cell_of(doc, "bw_bps", 0, 1), -1);
}
static void cell_huge(json_t *doc)
{
	json_real_set(cell_of(doc, "bw_bps", 0, 1), 1e300);
}
static void hosts_not_array(json_t *doc)
{
	set_path(doc, "hosts", NULL, json_string("n1:5301,n2:5301"));
}
static void host_no_port(json_t *doc)
{
	json_array_set_new(json_object_get(doc, "hosts"), 1, json_string("n2"));
}
static void host_twice(json_t *doc)
{
	json_array_set_new(json_object_get(doc, "hosts"), 1, json_string("n1:5301"));
}
static void one_host(json_t *doc)
{
	json_array_remove(json_object_get(doc, "hosts"), 1);
	json_array_remove(json_object_get(doc, "hosts"), 1);
}
static void host_number(json_t *doc)
{
	json_array_set_new(json_object_get(doc, "hosts"), 0, json_integer(7));
}
static void nodes_short(json_t *doc)
{
	json_array_remove(json_object_get(doc, "nodes"), 2);
}
static void node_other_host(json_t *doc)
{
	json_object_set_new(json_array_get(json_object_get(doc, "nodes"), 0), "host",
			    json_string("n2:5301"));
}
static void node_bad_negative(json_t *doc)
{
	json_object_set_new(json_array_get(json_object_get(doc, "nodes"), 2), "bad",
			    json_integer(-3));
}
static void pair_unknown_host(json_t *doc)
{
	json_object_set_new(json_array_get(json_object_get(doc, "bad_pairs"), 0), "to",
			    json_string("n9:5301"));
}
static void pair_twice(json_t *doc)
{
	json_t *bad = json_object_get(doc, "bad_pairs");

	json_array_append_new(bad, json_deep_copy(json_array_get(bad, 0)));
}
static void pair_not_measured(json_t *doc)
{
	json_object_set_new(json_array_get(json_object_get(doc, "bad_pairs"), 0), "to",
			    json_string("n1:5301"));
	json_object_set_new(json_array_get(json_object_get(doc, "bad_pairs"), 0), "from",
			    json_string("n2:5301"));
}
static void pair_reason_number(json_t *doc)
{
	json_object_set_new(json_array_get(json_object_get(doc, "bad_pairs"), 0), "reason",
			    json_integer(1));
}
static void suspect_twice(json_t *doc)
{
	json_array_append_new(json_object_get(doc, "suspects"), json_string("n3:6000"));
}
static void failure_no_error(json_t *doc)
{
	json_object_del(json_array_get(json_object_get(doc, "failures"), 0), "error");
}
static void tests_unknown(json_t *doc)
{
	json_array_set_new(json_object_get(json_object_get(doc, "params"), "tests"), 0,
			   json_string("gpu"));
}
static void wall_huge(json_t *doc)
{
	set_path(doc, "wall_s", NULL, json_real(1e300));
}
static void rounds_missing(json_t *doc)
{
	json_object_del(doc, "rounds");
}
static void pairs_string(json_t *doc)
{
	set_path(doc, "pairs", "planned", json_string("3"));
}
static void complete_number(json_t *doc)
{
	set_path(doc, "complete", NULL, json_integer(1));
}
static void no_matrix(json_t *doc)
{
	json_object_del(doc, "matrix");
}

Test(mesh, malformed_results_name_the_member)
{
	static const struct {
		void (*spoil)(json_t *);
		const char *want;
	} cases[] = {
		{ short_row, "matrix.bw_bps[1] is not a row of 3 cells" },
		{ few_rows, "matrix.lat_p99_ns has 2 rows for 3 hosts" },
		{ row_not_array, "matrix.state[2] is not a row of 3 cells (a string)" },
		{ bad_state,
		  "matrix.state[0][1] is another string, not pending, ok, failed or none" },
		{ cell_string, "matrix.lat_p50_ns[0][1] is a string, not a number or null" },
		{ cell_negative, "matrix.bw_bps[0][1] is -1, out of range" },
		{ cell_huge, "matrix.bw_bps[0][1] is 1e+300, out of range" },
		{ hosts_not_array, "hosts is a string, not an array" },
		{ host_no_port, "hosts[1]: 'n2' is not a host:port" },
		{ host_twice, "hosts[1]: a host listed twice" },
		{ one_host, "hosts has 1 entries; a mesh has 2 at least" },
		{ host_number, "hosts[0] is a number, not a string" },
		{ nodes_short, "nodes has 2 entries for 3 hosts" },
		{ node_other_host, "nodes[0].host is not hosts[0]" },
		{ node_bad_negative, "nodes[2].bad is -3, out of range 0 to" },
		{ pair_unknown_host, "bad_pairs[0].to: 'n9:5301' is not one of the hosts" },
		{ pair_twice, "bad_pairs[2]: the pair is listed twice" },
		{ pair_not_measured, "bad_pairs[0]: the pair was not measured" },
		{ pair_reason_number, "bad_pairs[0].reason is a number, not a string or null" },
		{ suspect_twice, "suspects[1]: a host listed twice" },
		{ failure_no_error, "failures[0].error is missing, not a string" },
		{ tests_unknown, "params.tests[0] is not bw or lat" },
		{ wall_huge, "wall_s is 1e+300, out of range" },
		{ rounds_missing, "rounds is missing, not a whole number" },
		{ pairs_string, "pairs.planned is a string, not a whole number" },
		{ complete_number, "complete is a number, not true or false" },
		{ no_matrix, "matrix is missing, not an object" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_mesh_error(cases[i].spoil, cases[i].want);
}

Test(mesh, not_an_object)
{
	struct ix_mesh_saved s;
	struct ix_err err = { 0 };
	json_t *v = json_array();

	cr_assert_eq(ix_json_read_mesh(v, &s, &err), -1);
	cr_assert_not_null(strstr(err.msg, "the mesh is an array, not an object"), "%s", err.msg);
	ix_mesh_saved_free(&s);
	cr_assert_eq(ix_json_read_mesh(NULL, &s, &err), -1);
	ix_mesh_saved_free(&s);
	json_decref(v);
}

/* ---- incast ---------------------------------------------------------------------- */

Test(incast, stream_sweep_reads_back_with_its_text)
{
	struct ix_incast_result r;
	struct ix_incast_saved s;
	struct ix_err err = { 0 };
	json_t *doc;
	char *live, *saved;

	incast(&r);
	r.params.bw.duration_s = 2;
	r.receiver_link = slow_pcie("enp59s0f0");
	live = text_of_incast(&r);
	doc = through_text(ix_json_incast(&r));
	cr_assert_eq(ix_json_read_incast(doc, &s, &err), 0, "%s", err.msg);
	cr_assert_eq(s.r.nsteps, 1);
	cr_assert_eq(s.r.steps[0].nflows, 2);
	cr_assert_eq(s.r.steps[0].flows[1].retransmits.v, 9);
	cr_assert(!s.r.steps[0].flows[1].loss_percent.valid);
	cr_assert_float_eq(s.r.steps[0].jain, 0.8, 1e-9);
	cr_assert_eq(s.hosts.n, 3, "the receiver and two senders");
	cr_assert_str_eq(s.r.receiver_link.pcie.bdf, "0000:3b:00.0");
	saved = text_of_incast(&s.r);
	cr_assert_str_eq(saved, live);
	cr_assert_not_null(strstr(saved, "Receiver's ceiling: 2.00 Gbit/s"), "%s", saved);
	free(live);
	free(saved);
	ix_incast_saved_free(&s);
	json_decref(doc);
}

Test(incast, read_sweep_with_a_capture_reads_back_with_its_text)
{
	struct ix_incast_step steps[2];
	struct ix_incast_result r;
	struct ix_incast_saved s;
	struct ix_err err = { 0 };
	json_t *doc;
	char *live, *saved;

	memset(steps, 0, sizeof(steps));
	memset(&r, 0, sizeof(r));
	r.hosts = &hosts;
	r.params.mode = IX_INCAST_READ;
	r.params.bw.path = r.params.read.path = "tcp";
	r.params.read.sru = 32768;
	r.params.read.rounds = 30;
	r.steps = steps;
	r.nsteps = 2;
	steps[0].ok = true;
	steps[0].point =
		(struct ix_incast_point){ .senders = 1, .goodput_bps = 16e9, .rounds = 30 };
	/* the hosts read their counters: the receiver's NIC dropped */
	steps[0].point.counters = true;
	steps[0].point.at_receiver.v[IX_CC_DISCARD] = 7;
	steps[0].point.at_receiver.has = 1u << IX_CC_DISCARD;
	steps[0].read.rounds = 30;
	steps[0].read.round = (struct ix_lat_stats){ .valid = true,
						     .min = 15984,
						     .p50 = 16224,
						     .p99 = 17436,
						     .max = 17436,
						     .mean = 16435.7 };
	steps[0].read.retransmits = ix_u64(0);
	snprintf(steps[1].error, sizeof(steps[1].error), "sender n3:6000 timed out");
	steps[1].point = (struct ix_incast_point){ .senders = 2 };
	snprintf(r.diagnosis, sizeof(r.diagnosis), "no goodput at N=2");
	r.wire.present = true;
	snprintf(r.wire.iface, sizeof(r.wire.iface), "eth0");
	r.wire.packets = 1000;
	r.wire.tcp_packets = 900;
	r.wire.tcp_retransmissions = 9;
	r.wire.roce_packets = 50;
	r.wire.nqps = 1;
	r.wire.qps[0] = (struct ix_wire_qp){ 0x11, 50, 2 };
	live = text_of_incast(&r);
	doc = through_text(ix_json_incast(&r));
	cr_assert_eq(ix_json_read_incast(doc, &s, &err), 0, "%s", err.msg);
	saved = text_of_incast(&s.r);
	cr_assert_str_eq(saved, live);
	cr_assert_not_null(strstr(saved, "FAILED: sender n3:6000 timed out"), "%s", saved);
	cr_assert_not_null(strstr(saved, "Wire (eth0)"), "%s", saved);
	cr_assert(s.r.steps[0].point.counters);
	cr_assert_eq(s.r.steps[0].point.at_receiver.v[IX_CC_DISCARD], 7);
	cr_assert_not(s.r.steps[1].point.counters);
	free(live);
	free(saved);
	ix_incast_saved_free(&s);
	json_decref(doc);
}

static void expect_incast_error(const char *key, json_t *v, const char *want)
{
	struct ix_incast_result r;
	struct ix_incast_saved s;
	struct ix_err err = { 0 };
	json_t *doc;

	incast(&r);
	doc = through_text(ix_json_incast(&r));
	if (strcmp(key, "flow.host") == 0)
		json_object_set_new(
			json_array_get(
				json_object_get(json_array_get(json_object_get(doc, "steps"), 0),
						"flows"),
				0),
			"host", v);
	else if (strcmp(key, "step") == 0)
		json_array_set_new(json_object_get(doc, "steps"), 0, v);
	else if (v)
		json_object_set_new(doc, key, v);
	else
		json_object_del(doc, key);
	cr_assert_eq(ix_json_read_incast(doc, &s, &err), -1, "read despite: %s", want);
	cr_assert_not_null(strstr(err.msg, want), "'%s' lacks '%s'", err.msg, want);
	ix_incast_saved_free(&s);
	json_decref(doc);
}

Test(incast, malformed_results_name_the_member)
{
	expect_incast_error("mode", json_string("burst"), "mode is neither stream nor read");
	expect_incast_error("receiver", NULL, "receiver is missing, not a string");
	expect_incast_error("steps", json_object(), "steps is an object, not an array");
	expect_incast_error("step", json_integer(3), "steps[0] is a number, not an object");
	expect_incast_error("flow.host", json_string("[::1"),
			    "steps[0].flows[0].host: '[::1' is not a host:port");
	expect_incast_error("diagnosis", json_null(), "diagnosis is null, not a string");
	expect_incast_error("wire", json_string("eth0"), "wire is a string, not an object or null");
}
