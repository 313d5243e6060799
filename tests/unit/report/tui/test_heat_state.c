/* Unit tests for report/tui/heat_state.c: a mesh document read back into the
 * heatmap, and damaged documents refused with a reason. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "report/tui/heat_state.h"

static struct ix_host hostv[3] = { { "n1", 5301, 0, "" },
				   { "n2", 5301, 0, "" },
				   { "n3", 5301, 0, "" } };
static struct ix_hostlist hosts = { hostv, 3, 3 };

static json_t *mesh_doc(bool done)
{
	struct ix_cell cells[9] = { 0 };
	struct ix_mesh_node nodes[3] = { 0 };
	uint32_t sus[1] = { 2 };
	struct ix_mesh_result r = { 0 };
	json_t *doc;

	r.params.tests = IX_MESH_BW;
	r.params.both_directions = true;
	r.params.bw.path = "tcp";
	r.params.lat.path = "tcp";
	r.params.rules = (struct ix_mesh_rules){ 0.5, 3.0, 50, 0, 0 };
	r.hosts = &hosts;
	r.n = 3;
	r.nodes = nodes;
	for (int i = 0; i < 9; i++)
		cells[i].state = i % 4 == 0 ? IX_CELL_NONE : IX_CELL_PENDING;
	cells[1] = (struct ix_cell){ 9e9f, 0, 0, IX_CELL_OK, 0, 0, 0, 0, 0 };
	cells[2] = (struct ix_cell){ 1e9f, 0, 0, IX_CELL_OK, 1, 1, 0, 0, 0 };
	cells[5] = (struct ix_cell){ .state = IX_CELL_FAILED };
	cr_assert_eq(ix_cells_load(&r.cells, cells, 3, IX_CELLS_FULL), 0);
	r.findings = (struct ix_mesh_findings){
		.bad_pairs = 1, .median_bw_bps = 5e9, .suspects = sus, .nsuspects = 1
	};
	nodes[2].suspect = true;
	r.rounds = 3;
	r.complete = false;
	doc = json_pack("{s:s,s:[o]}", "command", "mesh", "results", ix_json_mesh(&r));
	ix_cells_free(&r.cells);
	json_object_set_new(doc, "progress",
			    json_pack("{s:i,s:i,s:f,s:b}", "batches", 2, "total", 6, "elapsed_s",
				      4.5, "done", done));
	return doc;
}

Test(heat_state, round_trip)
{
	struct ix_heat_src s = { 0 };
	struct ix_err err = { 0 };
	json_t *doc = mesh_doc(true);

	cr_assert_eq(ix_heat_src_load(&s, doc, &err), 0, "%s", err.msg);
	cr_assert_eq(s.n, 3);
	cr_assert_str_eq(s.names[1], "n2:5301");
	cr_assert_eq(ix_cells_get(&s.cells, 0, 1).state, IX_CELL_OK);
	cr_assert_float_eq(ix_cells_get(&s.cells, 0, 1).bw_bps, 9e9f, 1);
	cr_assert_eq(ix_cells_get(&s.cells, 1, 2).state, IX_CELL_FAILED);
	cr_assert_eq(ix_cells_get(&s.cells, 1, 0).state, IX_CELL_PENDING);
	cr_assert(ix_cells_get(&s.cells, 0, 2).bad, "the run's bad pair is kept");
	cr_assert_eq(s.bad_pairs, 1);
	cr_assert(s.suspect[2]);
	cr_assert(s.both);
	cr_assert_eq(s.tests, IX_MESH_BW);
	cr_assert_float_eq(s.rules.bw_fraction, 0.5, 1e-9);
	cr_assert_float_eq(s.rules.lat_factor, 3.0, 1e-9);
	cr_assert(s.done);
	cr_assert_eq(s.batches, 2);
	cr_assert_eq(s.total, 6);
	cr_assert_float_eq(s.elapsed_s, 4.5, 1e-9);
	ix_heat_src_free(&s);
	json_decref(doc);
}

/* A state file's pair measured at 0 and pair with no round trip back are
 * read as measured, not as pending or empty. */
Test(heat_state, a_dead_pair_reads_back_as_measured)
{
	struct ix_heat_src s = { 0 };
	struct ix_err err = { 0 };
	json_t *doc = mesh_doc(true);
	json_t *mesh = json_array_get(json_object_get(doc, "results"), 0);
	json_t *bw = json_object_get(json_object_get(mesh, "matrix"), "bw_bps");

	json_array_set_new(json_array_get(bw, 0), 1, json_real(0));
	json_array_append_new(json_object_get(json_object_get(mesh, "params"), "tests"),
			      json_string("lat"));
	cr_assert_eq(ix_heat_src_load(&s, doc, &err), 0, "%s", err.msg);
	cr_assert(ix_cells_get(&s.cells, 0, 1).bw_zero, "0 is a figure, not 'not measured'");
	cr_assert(ix_cells_get(&s.cells, 0, 1).lat_lost,
		  "an ok pair of a latency mesh without a latency");
	cr_assert_not(ix_cells_get(&s.cells, 1, 2).lat_lost, "a failed pair is failed, not lost");
	cr_assert_not(ix_cells_get(&s.cells, 0, 0).lat_lost, "the diagonal");
	ix_heat_src_free(&s);
	json_decref(doc);
}

Test(heat_state, running_mesh_is_analysed_here)
{
	struct ix_heat_src s = { 0 };
	struct ix_err err = { 0 };
	json_t *doc = mesh_doc(false);

	cr_assert_eq(ix_heat_src_load(&s, doc, &err), 0, "%s", err.msg);
	cr_assert_not(s.done);
	/* 1 Gbit/s against a median of 5 Gbit/s with bw_fraction 0.5. */
	cr_assert(ix_cells_get(&s.cells, 0, 2).bad);
	cr_assert_not(ix_cells_get(&s.cells, 0, 1).bad);
	ix_heat_src_free(&s);
	json_decref(doc);
}

Test(heat_state, damaged_documents_are_refused)
{
	struct ix_heat_src s = { 0 };
	struct ix_err err = { 0 };
	json_t *doc = mesh_doc(false), *m, *row;

	m = json_object_get(json_array_get(json_object_get(doc, "results"), 0), "matrix");
	row = json_array_get(json_object_get(m, "bw_bps"), 1);
	json_array_remove(row, 0);
	cr_assert_eq(ix_heat_src_load(&s, doc, &err), -1);
	cr_assert(strstr(err.msg, "bw_bps row 1"), "%s", err.msg);
	json_object_del(m, "state");
	cr_assert_eq(ix_heat_src_load(&s, doc, &err), -1);
	cr_assert(strstr(err.msg, "matrix.state"), "%s", err.msg);
	json_decref(doc);
	doc = json_pack("{s:[{s:s}]}", "results", "kind", "bw");
	cr_assert_eq(ix_heat_src_load(&s, doc, &err), -1);
	cr_assert(strstr(err.msg, "not a mesh document"), "%s", err.msg);
	json_decref(doc);
	ix_heat_src_free(&s);
}

/* A gpu document's GPU x GPU matrices, shaped as 'ixperf gpu -J' writes
 * them: a mesh of GPUs, bandwidth in bytes/s shown as bit/s. */
static json_t *gpu_doc(void)
{
	return json_pack(
		"{s:[{s:s,s:[{s:s,s:s,s:s,s:[s,s,s],s:[s,s,s],s:{s:[[n,f,f],[f,n,f],[f,f,n]],"
		"s:[[s,s,s],[s,s,s],[s,s,s]]}},"
		"{s:s,s:s,s:s,s:[s,s],s:[s,s]},"
		"{s:s,s:s,s:s,s:[s,s,s],s:[s,s,s],s:{s:[[f,f,f],[f,f,f],[f,f,f]],"
		"s:[[s,s,s],[s,s,s],[s,s,s]]}}]}]}",
		"results", "kind", "gpu", "tests", "name", "device_to_device_memcpy_read_ce",
		"status", "ok", "unit", "bytes_per_second", "rows", "GPU0", "GPU1", "GPU2",
		"columns", "GPU0", "GPU1", "GPU2", "matrix", "value", 300e9, 300e9, 300e9, 20e9,
		300e9, 300e9, "state", "none", "ok", "ok", "ok", "none", "ok", "ok", "ok", "none",
		"name", "host_to_device_memcpy_ce", "status", "ok", "unit", "bytes_per_second",
		"rows", "host", "x", "columns", "GPU0", "GPU1", "name",
		"device_to_device_latency_sm", "status", "ok", "unit", "ns", "rows", "GPU0", "GPU1",
		"GPU2", "columns", "GPU0", "GPU1", "GPU2", "matrix", "value", 600.0, 900.0, 900.0,
		900.0, 600.0, 900.0, 900.0, 900.0, 600.0, "state", "ok", "ok", "ok", "ok", "ok",
		"ok", "ok", "ok", "ok");
}

Test(heat_state, gpu_matrices_are_a_mesh_of_gpus)
{
	struct ix_heat_src s = { 0 };
	struct ix_err err = { 0 };
	json_t *doc = gpu_doc();

	cr_assert_eq(ix_heat_src_load(&s, doc, &err), 0, "%s", err.msg);
	cr_assert_eq(s.n, 3);
	cr_assert_str_eq(s.names[2], "GPU2");
	cr_assert_eq(s.tests, IX_MESH_BW | IX_MESH_LAT);
	cr_assert(s.done && s.complete);
	cr_assert_eq(ix_cells_get(&s.cells, 0, 1).state, IX_CELL_OK);
	cr_assert_float_eq(ix_cells_get(&s.cells, 0, 1).bw_bps, 2.4e12, 1e7,
			   "bytes/s shown as bit/s");
	cr_assert_eq(ix_cells_get(&s.cells, 1, 1).state, IX_CELL_NONE,
		     "within one GPU is not a pair");
	cr_assert_float_eq(ix_cells_get(&s.cells, 1, 2).bw_bps, 160e9, 1e6);
	cr_assert_float_eq(ix_cells_get(&s.cells, 0, 2).lat_p50_ns, 900.0, 1e-3);
	/* The gpu command judged no pair: the slow GPU1 -> GPU2 pair is shown
	 * as measured, not flagged by the mesh's rules. */
	cr_assert_eq(s.bad_pairs, 0);
	for (size_t k = 0; k < 9; k++)
		cr_assert_not(ix_cells_get(&s.cells, (uint32_t)k / 3, (uint32_t)k % 3).bad,
			      "cell %zu flagged", k);
	for (size_t k = 0; k < 3; k++)
		cr_assert_not(s.suspect[k], "GPU%zu a suspect", k);
	{
		struct ix_heat_view v = { .levels = 8, .cur_row = 1, .cur_col = 2 };
		char buf[256];

		ix_heat_layout(&v, &s, 120, 40);
		cr_assert_not(ix_heat_block(&v, &s, 1, 2).bad);
		ix_heat_cursor_text(&v, &s, buf, sizeof(buf));
		cr_assert(strstr(buf, "GPU1 -> GPU2") && !strstr(buf, "BAD"), "%s", buf);
	}
	cr_assert(strstr(s.title, "device_to_device_memcpy_read_ce"), "%s", s.title);
	ix_heat_src_free(&s);
	/* One GPU: no GPU x GPU matrix to show. */
	json_array_remove(
		json_object_get(json_array_get(json_object_get(doc, "results"), 0), "tests"), 0);
	json_array_remove(
		json_object_get(json_array_get(json_object_get(doc, "results"), 0), "tests"), 1);
	cr_assert_eq(ix_heat_src_load(&s, doc, &err), -1);
	cr_assert(strstr(err.msg, "without a measured GPU x GPU matrix"), "%s", err.msg);
	json_decref(doc);
	ix_heat_src_free(&s);
}

/* A coll document's pair scan: the ring's links as a mesh of ranks. */
Test(heat_state, a_collective_s_pair_scan_is_a_ring_of_ranks)
{
	struct ix_heat_src s = { 0 };
	struct ix_err err = { 0 };
	json_t *doc = json_pack(
		"{s:[{s:s,s:{s:s},s:b,s:[{s:s,s:i},{s:s,s:i},{s:s,s:i},{s:s,s:i}],"
		"s:{s:s,s:i,s:[{s:i,s:i,s:f,s:b},{s:i,s:i,s:f,s:b},{s:i,s:i,s:f,s:b},"
		"{s:i,s:i,s:f,s:b}]}}]}",
		"results", "kind", "coll", "params", "op", "all_reduce", "complete", 1, "ranks",
		"node", "n0", "device", 0, "node", "n0", "device", 1, "node", "n1", "device", 0,
		"node", "n1", "device", 1, "verdict", "culprit", "rank", "rank", 2, "pairs", "a", 0,
		"b", 1, "Bps", 40e9, "slow", 0, "a", 1, "b", 2, "Bps", 4e9, "slow", 1, "a", 2, "b",
		3, "Bps", 4e9, "slow", 1, "a", 3, "b", 0, "Bps", 40e9, "slow", 0);

	cr_assert_eq(ix_heat_src_load(&s, doc, &err), 0, "%s", err.msg);
	cr_assert_eq(s.n, 4);
	cr_assert_str_eq(s.names[2], "2 n1 GPU0");
	cr_assert(s.done && s.complete);
	cr_assert_eq(ix_cells_get(&s.cells, 0, 1).state, IX_CELL_OK);
	cr_assert_eq(ix_cells_get(&s.cells, 1, 0).state, IX_CELL_OK, "each way");
	cr_assert_float_eq(ix_cells_get(&s.cells, 0, 1).bw_bps, 320e9, 1e6, "bytes/s as bit/s");
	cr_assert_eq(ix_cells_get(&s.cells, 0, 2).state, IX_CELL_NONE, "not a link of the ring");
	cr_assert(ix_cells_get(&s.cells, 1, 2).bad && ix_cells_get(&s.cells, 3, 2).bad,
		  "rank 2's two links");
	cr_assert_not(ix_cells_get(&s.cells, 0, 1).bad);
	cr_assert_eq(s.bad_pairs, 4, "two links, each way");
	cr_assert(s.suspect[2] && !s.suspect[0], "the rank the scan named");
	cr_assert(strstr(s.title, "coll all_reduce"), "%s", s.title);
	ix_heat_src_free(&s);
	json_object_set_new(
		json_object_get(json_array_get(json_object_get(doc, "results"), 0), "verdict"),
		"pairs", json_array());
	cr_assert_eq(ix_heat_src_load(&s, doc, &err), -1);
	cr_assert(strstr(err.msg, "without a pair scan"), "%s", err.msg);
	json_decref(doc);
	ix_heat_src_free(&s);
}
