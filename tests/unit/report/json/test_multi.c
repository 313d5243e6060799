/* Unit tests for report/json/multi.c: mesh and incast results as JSON,
 * from hand-built structs (tests/unit/report/fixtures.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "tests/unit/report/fixtures.h"

Test(mesh, json_fields)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	json_t *j, *m;

	mesh(&r, cells, nodes, errs, sus);
	j = ix_json_mesh(&r);
	cr_assert_not_null(j);
	cr_assert_str_eq(json_string_value(json_object_get(j, "kind")), "mesh");
	cr_assert(json_is_false(json_object_get(j, "complete")));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "hosts"), 2)),
			 "n3:6000");
	m = json_object_get(j, "matrix");
	cr_assert_float_eq(json_number_value(json_array_get(
				   json_array_get(json_object_get(m, "bw_bps"), 0), 1)),
			   (double)(float)9e9, 1); /* cells hold floats */
	cr_assert(json_is_null(json_array_get(json_array_get(json_object_get(m, "bw_bps"), 1), 2)),
		  "a failed cell has no figure");
	cr_assert_str_eq(json_string_value(
				 json_array_get(json_array_get(json_object_get(m, "state"), 1), 2)),
			 "failed");
	cr_assert_eq(json_array_size(json_object_get(j, "bad_pairs")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(j, "bad_pairs"), 0), "reason")),
			 "bandwidth 1.00 Gbit/s < 0.7 x median 5.00 Gbit/s (20%)");
	cr_assert_float_eq(json_number_value(json_object_get(j, "lat_baseline_ns")), 5000, 1e-9);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "suspects"), 0)),
			 "n3:6000");
	cr_assert(json_is_true(
		json_object_get(json_array_get(json_object_get(j, "nodes"), 2), "suspect")));
	json_decref(j);
}

/* The bad pair n1 -> n3: n3's port dropped during its bandwidth test, n1
 * saw pause frames; the latency test moved nothing. */
Test(mesh, bad_pair_cites_the_counters_that_moved)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_ctr_set a, b, none_a, none_b;
	json_t *j, *bp, *k;

	mesh(&r, cells, nodes, errs, sus);
	ix_ctr_set_init(&a);
	ix_ctr_set_init(&b);
	ix_ctr_set_init(&none_a);
	ix_ctr_set_init(&none_b);
	snprintf(a.iface, sizeof(a.iface), "eth0");
	snprintf(b.iface, sizeof(b.iface), "ens1f0np0");
	snprintf(b.rdma, sizeof(b.rdma), "mlx5_0/1");
	cr_assert_eq(ix_ctr_set_add(&a, IX_SRC_ETHTOOL, "rx_prio3_pause", 12), 0);
	cr_assert_eq(ix_ctr_set_add(&b, IX_SRC_ETHTOOL, "rx_discards_phy", 2048), 0);
	cr_assert_eq(ix_mesh_keep_counters(&r, 0, 2, IX_MESH_BW, &a, &b), 0);
	cr_assert_null(a.v, "the sets were taken");
	/* Nothing moved in the latency test: nothing kept. */
	none_a.valid = none_b.valid = true;
	cr_assert_eq(ix_mesh_keep_counters(&r, 0, 2, IX_MESH_LAT, &none_a, &none_b), 0);
	cr_assert_eq(r.ncounters, 1);
	cr_assert_null(ix_mesh_counters_of(&r, 0, 2, IX_MESH_LAT));
	r.counters_read = 2;
	j = ix_json_mesh(&r);
	bp = json_array_get(json_object_get(j, "bad_pairs"), 0);
	cr_assert_str_eq(
		json_string_value(json_object_get(bp, "reason")),
		"bandwidth 1.00 Gbit/s < 0.7 x median 5.00 Gbit/s (20%); at n1:5301: eth0: "
		"12 pause frames received (ethtool rx_prio3_pause 12); at n3:6000: "
		"ens1f0np0 (mlx5_0/1): 2048 drops (ethtool rx_discards_phy 2048)");
	k = json_object_get(json_object_get(bp, "counters"), "bw");
	cr_assert_eq(json_integer_value(
			     json_object_get(json_object_get(json_object_get(k, "to"), "moved"),
					     "ethtool:rx_discards_phy")),
		     2048);
	cr_assert_null(json_object_get(json_object_get(bp, "counters"), "lat"));
	cr_assert_eq(
		json_integer_value(json_object_get(json_object_get(j, "counters"), "tests_moved")),
		1);
	json_decref(j);

	/* A retest that moved nothing replaces the first run's counters. */
	cr_assert_eq(ix_mesh_keep_counters(&r, 0, 2, IX_MESH_BW, &none_a, &none_b), 0);
	j = ix_json_mesh(&r);
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(j, "bad_pairs"), 0), "reason")),
			 "bandwidth 1.00 Gbit/s < 0.7 x median 5.00 Gbit/s (20%); no fabric "
			 "counter moved at either host");
	json_decref(j);
	for (uint32_t i = 0; i < r.ncounters; i++) {
		ix_ctr_set_free(&r.counters[i].at_a);
		ix_ctr_set_free(&r.counters[i].at_b);
	}
	free(r.counters);
}

/* n3's NIC trained Gen1 x1: its pairs sit at 2 Gbit/s, and the verdict
 * names that link; n1's veth-like link has no PCIe figure. */
Test(mesh, a_host_at_its_pcie_ceiling_is_named)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	json_t *j, *n0, *n2, *bp;

	mesh(&r, cells, nodes, errs, sus);
	cells[0 * 3 + 2].bw_bps = 1.9e9;
	mesh_cells(&r, cells);
	nodes[0].bw_out_bps = 9e9;
	nodes[2].bw_in_bps = 1.9e9;
	nodes[0].link = plain_link("eth0");
	nodes[2].link = slow_pcie("enp59s0f0");
	j = ix_json_mesh(&r);
	n0 = json_array_get(json_object_get(j, "nodes"), 0);
	n2 = json_array_get(json_object_get(j, "nodes"), 2);
	cr_assert_float_eq(json_number_value(json_object_get(n0, "percent_of_ceiling")), 90, 1e-6);
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(n0, "link"), "bottleneck")),
		"link");
	cr_assert_float_eq(json_number_value(json_object_get(n2, "percent_of_ceiling")), 95, 1e-4);
	cr_assert(json_is_true(json_object_get(json_object_get(json_object_get(n2, "link"), "pcie"),
					       "downtrained")));
	cr_assert(json_is_null(
		json_object_get(json_array_get(json_object_get(j, "nodes"), 1), "link")));
	cr_assert_eq(json_array_size(json_object_get(j, "bottlenecks")), 1);
	cr_assert_str_eq(
		json_string_value(json_array_get(json_object_get(j, "bottlenecks"), 0)),
		"n3:6000: 1.90 Gbit/s is 95% of its NIC's PCIe Gen1 x1 link (2.00 Gbit/s), "
		"trained below its Gen3 x4 capability");
	bp = json_array_get(json_object_get(j, "bad_pairs"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(bp, "reason")),
			 "bandwidth 1.90 Gbit/s < 0.7 x median 5.00 Gbit/s (38%); at n3:6000: "
			 "1.90 Gbit/s is 95% of its NIC's PCIe Gen1 x1 link (2.00 Gbit/s), trained "
			 "below its Gen3 x4 capability");
	/* The pair's ceiling is the lower of its hosts': n3's 2 Gbit/s. */
	cr_assert_float_eq(json_number_value(json_object_get(bp, "percent_of_ceiling")), 95, 1e-4);
	json_decref(j);

	/* Half its ceiling does not sit at it: no verdict, the share stays. */
	cells[0 * 3 + 2].bw_bps = 1e9;
	mesh_cells(&r, cells);
	nodes[2].bw_in_bps = 1e9;
	j = ix_json_mesh(&r);
	cr_assert_eq(json_array_size(json_object_get(j, "bottlenecks")), 0);
	bp = json_array_get(json_object_get(j, "bad_pairs"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(bp, "reason")),
			 "bandwidth 1.00 Gbit/s < 0.7 x median 5.00 Gbit/s (20%)");
	cr_assert_float_eq(json_number_value(json_object_get(bp, "percent_of_ceiling")), 50, 1e-4);
	json_decref(j);
}

Test(mesh, lazy_document_reads_back_as_the_whole_one)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_json_lazy lazy[2];
	json_t *whole, *lz, *a, *b;
	char *text, *buf = NULL;
	size_t len = 0;
	FILE *f;

	mesh(&r, cells, nodes, errs, sus);
	whole = ix_json_mesh(&r);
	lz = ix_json_mesh_lazy(&r, lazy);
	f = open_memstream(&buf, &len);
	cr_assert_eq(ix_json_write(f, lz, lazy, 2), 0);
	fclose(f);
	/* Both as text with the same precision, read back: equal. */
	text = json_dumps(whole, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	a = json_loads(text, 0, NULL);
	b = json_loads(buf, 0, NULL);
	cr_assert_not_null(b, "the lazy document is JSON: %s", buf);
	cr_assert_eq(json_array_size(json_object_get(b, "bad_pairs")), 1);
	cr_assert(json_equal(a, b), "lazy:\n%s\nwhole:\n%s", buf, text);
	free(text);
	free(buf);
	json_decref(a);
	json_decref(b);
	json_decref(lz);
	json_decref(whole);
}

Test(incast, json_of_a_stream_sweep)
{
	struct ix_incast_result r;
	json_t *j, *s;

	incast(&r);
	j = ix_json_incast(&r);
	cr_assert_str_eq(json_string_value(json_object_get(j, "mode")), "stream");
	cr_assert_str_eq(json_string_value(json_object_get(j, "receiver")), "n1:5301");
	s = json_array_get(json_object_get(j, "steps"), 0);
	cr_assert_float_eq(json_number_value(json_object_get(s, "jain")), 0.8, 1e-9);
	cr_assert_eq(json_array_size(json_object_get(s, "flows")), 2);
	cr_assert_null(json_object_get(s, "read"), "no read figures in stream mode");
	json_decref(j);
}
