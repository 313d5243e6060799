/* Unit tests for report/doc/verdict.c: the figures plans judge, read from the
 * result objects. */
#include "config.h"

#include <criterion/criterion.h>

#include "report/doc/verdict.h"

static json_t *parse(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	cr_assert_not_null(j, "%s", je.text);
	return j;
}

Test(bw, worst_size_counts)
{
	json_t *r = parse("[{\"summary\":{\"forward\":{\"bits_per_second\":5e9,\"retransmits\":3,"
			  "\"loss_percent\":null},\"reverse\":null}},"
			  "{\"summary\":{\"forward\":{\"bits_per_second\":9e9,\"retransmits\":7,"
			  "\"loss_percent\":null},\"reverse\":null}}]");
	struct ix_headline h;
	double v;

	cr_assert(ix_figure_of("bw", r, "bits_per_second", &v));
	cr_assert_float_eq(v, 5e9, 1, "the lowest bandwidth over the sizes");
	cr_assert(ix_figure_of("bw", r, "retransmits", &v));
	cr_assert_float_eq(v, 7, 1e-9, "the highest count");
	cr_assert(!ix_figure_of("bw", r, "loss_percent", &v), "null is not measured");
	ix_headline_of("bw", r, &h);
	cr_assert(h.valid && h.higher_better);
	cr_assert_float_eq(h.value, 9e9, 1, "headline: the last (largest) size");
	json_decref(r);
}

Test(bw, bidir_adds_both_directions)
{
	json_t *r = parse("[{\"summary\":{\"forward\":{\"bits_per_second\":4e9},"
			  "\"reverse\":{\"bits_per_second\":3e9}}}]");
	double v;

	cr_assert(ix_figure_of("bw", r, "bits_per_second", &v));
	cr_assert_float_eq(v, 7e9, 1);
	json_decref(r);
}

Test(lat, highest_percentile_over_sizes)
{
	json_t *r = parse("[{\"stats\":{\"p50_ns\":5000,\"p99_ns\":9000}},"
			  "{\"stats\":{\"p50_ns\":7000,\"p99_ns\":20000}},{\"stats\":null}]");
	struct ix_headline h;
	double v;

	cr_assert(ix_figure_of("lat", r, "p99_ns", &v));
	cr_assert_float_eq(v, 20000, 1e-9);
	ix_headline_of("lat", r, &h);
	cr_assert(h.valid && !h.higher_better);
	cr_assert_float_eq(h.value, 9000, 1e-9, "headline: p99 of the first size");
	json_decref(r);
}

Test(mesh, counts_and_slowest_pair)
{
	json_t *r = parse("[{\"median_bw_bps\":8e9,\"bad_pairs\":[{},{}],\"suspects\":[\"x\"],"
			  "\"matrix\":{\"lat_p50_ns\":[[null,4000],[9000,null]]}}]");
	double v;

	cr_assert(ix_figure_of("mesh", r, "bad_pairs", &v) && v == 2);
	cr_assert(ix_figure_of("mesh", r, "suspects", &v) && v == 1);
	cr_assert(ix_figure_of("mesh", r, "p50_ns", &v) && v == 9000);
	cr_assert(ix_figure_of("mesh", r, "bits_per_second", &v) && v == 8e9);
	json_decref(r);
}

/* A rail mesh: every rail's mesh counts (the slowest median, the bad
 * pairs of all), and the rails result says which rails are bad. */
Test(mesh, over_every_rail)
{
	json_t *r = parse("[{\"kind\":\"mesh\",\"median_bw_bps\":8e9,\"bad_pairs\":[{}],"
			  "\"matrix\":{\"bw_bps\":[[null,9e9],[7e9,null]]}},"
			  "{\"kind\":\"mesh\",\"median_bw_bps\":2e9,\"bad_pairs\":[{},{}],"
			  "\"matrix\":{\"bw_bps\":[[null,2e9],[1e9,null]]}},"
			  "{\"kind\":\"rails\",\"bad_rails\":[\"10.2.0.0/24\"]}]");
	json_t *one = parse("[{\"kind\":\"mesh\",\"bad_pairs\":[]}]");
	double v;

	cr_assert(ix_figure_of("mesh", r, "bits_per_second", &v) && v == 2e9, "the slowest rail");
	cr_assert(ix_figure_of("mesh", r, "bad_pairs", &v) && v == 3, "summed");
	cr_assert(ix_figure_of("mesh", r, "min_pair_bps", &v) && v == 1e9);
	cr_assert(ix_figure_of("mesh", r, "bad_rails", &v) && v == 1);
	cr_assert_not(ix_figure_of("mesh", one, "bad_rails", &v), "no rails: no such figure");
	json_decref(r);
	json_decref(one);
}

/* The slowest pair, one measured at 0 included (null: not measured). */
Test(mesh, the_slowest_pair_counts_a_zero)
{
	json_t *r = parse(
		"[{\"matrix\":{\"bw_bps\":[[null,9e9,8e9],[null,null,0],[null,null,null]]}}]");
	json_t *none = parse("[{\"matrix\":{\"bw_bps\":[[null,null],[null,null]]}}]");
	double v = -1;

	cr_assert(ix_figure_of("mesh", r, "min_pair_bps", &v));
	cr_assert_eq(v, 0);
	cr_assert_not(ix_figure_of("mesh", none, "min_pair_bps", &v), "nothing measured");
	json_decref(r);
	json_decref(none);
}

/* A traffic pattern (mesh --pattern): its bad hosts and its median host. */
Test(mesh, a_pattern_s_hosts)
{
	json_t *r = parse("[{\"kind\":\"pattern\",\"median_bps\":9e7,\"bad_hosts\":4}]");
	double v;

	cr_assert(ix_figure_of("mesh", r, "bad_hosts", &v) && v == 4);
	cr_assert(ix_figure_of("mesh", r, "bits_per_second", &v) && v == 9e7);
	cr_assert_not(ix_figure_of("mesh", r, "bad_pairs", &v), "a pattern has no pairs' count");
	json_decref(r);
}

/* A document's verdict is its command's exit status in a word. */
Test(doc, verdict_of_every_kind)
{
	static const struct {
		const char *doc, *verdict;
	} cases[] = {
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"run\",\"verdict\":"
		  "\"FAIL\"}]}",
		  "FAIL" },
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"bw\"}]}", "INFO" },
		{ "{\"complete\":false,\"error\":\"refused\",\"results\":[]}", "ERROR" },
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"mesh\",\"bad_pairs\":"
		  "[{}]}]}",
		  "FAIL" },
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"mesh\",\"bad_pairs\":"
		  "[]}]}",
		  "PASS" },
		{ "{\"complete\":false,\"error\":\"some pairs were not measured\",\"results\":[{"
		  "\"kind\":\"mesh\",\"bad_pairs\":[{}]}]}",
		  "ERROR" },
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"incast\","
		  "\"thresholds\":"
		  "{\"failed\":[\"N=4: goodput 1 < 2\"]}}]}",
		  "FAIL" },
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"incast\","
		  "\"thresholds\":"
		  "{\"failed\":[]}}]}",
		  "PASS" },
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"incast\","
		  "\"thresholds\":"
		  "null}]}",
		  "INFO" },
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"pattern\","
		  "\"bad_hosts\":2}]}",
		  "FAIL" },
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"pattern\","
		  "\"bad_hosts\":0}]}",
		  "PASS" },
		/* mesh --rails exits 4 on a bad rail even when no pair is bad */
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"mesh\","
		  "\"bad_pairs\":[]},{\"kind\":\"rails\",\"bad_rails\":[\"eth1\"]}]}",
		  "FAIL" },
		{ "{\"complete\":true,\"error\":null,\"results\":[{\"kind\":\"mesh\","
		  "\"bad_pairs\":[]},{\"kind\":\"rails\",\"bad_rails\":[]}]}",
		  "PASS" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *d = json_loads(cases[i].doc, 0, NULL);

		cr_assert_not_null(d, "case %zu", i);
		cr_expect_str_eq(ix_doc_verdict(d), cases[i].verdict, "case %zu", i);
		json_decref(d);
	}
}

Test(incast, largest_fan_in_and_worst_step)
{
	json_t *r = parse("[{\"steps\":[{\"goodput_bps\":9e9,\"stalled_rounds\":0,\"jain\":0.99},"
			  "{\"goodput_bps\":2e9,\"stalled_rounds\":12,\"jain\":0.7}]}]");
	double v;

	cr_assert(ix_figure_of("incast", r, "bits_per_second", &v) && v == 2e9);
	cr_assert(ix_figure_of("incast", r, "stalled_rounds", &v) && v == 12);
	cr_assert(ix_figure_of("incast", r, "jain", &v) && v == 0.7);
	json_decref(r);
}

Test(baseline, headline_by_check_name)
{
	json_t *doc = parse("{\"results\":[{\"kind\":\"run\",\"checks\":["
			    "{\"name\":\"a\",\"headline\":{\"value\":5}},"
			    "{\"name\":\"b\",\"headline\":{\"value\":null}}]}]}");
	double v;

	cr_assert(ix_baseline_headline(doc, "a", &v) && v == 5);
	cr_assert(!ix_baseline_headline(doc, "b", &v), "not measured then");
	cr_assert(!ix_baseline_headline(doc, "c", &v), "absent");
	json_decref(doc);
}

/* Fabric counter figures: both ends of bw and lat tests, every node of a
 * mesh, senders and receiver of every incast step; the worst result. */
Test(counters, class_sums_over_ends_nodes_and_steps)
{
	json_t *bw = parse("[{\"kind\":\"bw\",\"counters\":{\"local\":{\"summary\":{\"pause_rx\":5,"
			   "\"discards\":2}},\"remote\":{\"summary\":{\"pause_tx\":7,"
			   "\"cnp_sent\":3}}}},"
			   "{\"kind\":\"bw\",\"counters\":{\"local\":{\"summary\":{}},"
			   "\"remote\":null}}]");
	json_t *mesh = parse("[{\"kind\":\"mesh\",\"nodes\":[{\"counters\":{\"errors\":1,"
			     "\"link_events\":2}},{\"counters\":{\"discards\":40}},{}]}]");
	json_t *incast = parse("[{\"kind\":\"incast\",\"steps\":[{\"counters\":{\"senders\":"
			       "{\"cnp_handled\":10},\"receiver\":{\"cnp_sent\":11,"
			       "\"ecn_marked\":12}}},{}]}]");
	json_t *none = parse("[{\"kind\":\"lat\",\"stats\":{\"p50_ns\":1}}]");
	double v;

	cr_assert(ix_figure_of("bw", bw, "pfc_pauses", &v));
	cr_assert_float_eq(v, 12, 1e-9, "5 received + 7 sent, the worst size");
	cr_assert(ix_figure_of("bw", bw, "cnp", &v));
	cr_assert_float_eq(v, 3, 1e-9);
	cr_assert(ix_figure_of("bw", bw, "fabric_drops", &v));
	cr_assert_float_eq(v, 2, 1e-9);
	cr_assert(ix_figure_of("mesh", mesh, "fabric_errors", &v));
	cr_assert_float_eq(v, 3, 1e-9, "errors and link events");
	cr_assert(ix_figure_of("mesh", mesh, "fabric_drops", &v));
	cr_assert_float_eq(v, 40, 1e-9);
	cr_assert(ix_figure_of("incast", incast, "cnp", &v));
	cr_assert_float_eq(v, 21, 1e-9);
	cr_assert(ix_figure_of("incast", incast, "ecn_marked", &v));
	cr_assert_float_eq(v, 12, 1e-9);
	cr_assert(!ix_figure_of("lat", none, "pfc_pauses", &v), "no counters read: not measured");
	cr_assert(!ix_figure_of("bw", bw, "no_such_counter", &v));
	json_decref(bw);
	json_decref(mesh);
	json_decref(incast);
	json_decref(none);
}

/* rdma_bw and rdma_lat results: perftest's average bandwidth, the latency
 * statistics, and both ends' counters, as bw and lat results are read. */
Test(rdma, bandwidth_latency_and_counters)
{
	json_t *bw = parse("[{\"kind\":\"rdma_bw\",\"rdma\":{\"bits_per_second\":4e9},"
			   "\"counters\":{\"local\":{\"summary\":{\"cnp_sent\":2}},"
			   "\"remote\":{\"summary\":{\"cnp_handled\":5}}}},"
			   "{\"kind\":\"rdma_bw\",\"rdma\":{\"bits_per_second\":9e9}},"
			   "{\"kind\":\"rdma_bw\",\"rdma\":null}]");
	json_t *lat = parse("[{\"kind\":\"rdma_lat\",\"stats\":{\"p99_ns\":3000}},"
			    "{\"kind\":\"rdma_lat\",\"stats\":{\"p99_ns\":5000}}]");
	struct ix_headline h;
	double v;

	cr_assert(ix_figure_of("bw", bw, "bits_per_second", &v));
	cr_assert_float_eq(v, 4e9, 1, "the slowest size measured; null is not measured");
	cr_assert(ix_figure_of("bw", bw, "cnp", &v));
	cr_assert_float_eq(v, 7, 1e-9, "sent at one end, handled at the other");
	ix_headline_of("bw", bw, &h);
	cr_assert(!h.valid, "the last size measured nothing");
	cr_assert(ix_figure_of("lat", lat, "p99_ns", &v));
	cr_assert_float_eq(v, 5000, 1e-9);
	ix_headline_of("lat", lat, &h);
	cr_assert(h.valid && !h.higher_better);
	cr_assert_float_eq(h.value, 3000, 1e-9);
	json_decref(bw);
	json_decref(lat);
}

/* gpu results: the cells measured ("ok") of the bandwidth tests, in bit/s
 * or as a share of their reference, and of the latency tests. */
Test(gpu, cells_by_metric_and_reference)
{
	json_t *r =
		parse("[{\"kind\":\"gpu\",\"tests\":["
		      "{\"metric\":\"bandwidth\",\"reference\":\"pcie_link\",\"matrix\":{"
		      "\"value\":[[2e10,1e9]],\"percent_of_reference\":[[80,4]],"
		      "\"state\":[[\"ok\",\"failed\"]]}},"
		      "{\"metric\":\"bandwidth\",\"reference\":\"hbm\",\"matrix\":{"
		      "\"value\":[[1e12]],\"percent_of_reference\":[[60]],\"state\":[[\"ok\"]]}},"
		      "{\"metric\":\"latency\",\"reference\":null,\"matrix\":{"
		      "\"value\":[[800,null],[1200,900]],\"percent_of_reference\":[[null,null],"
		      "[null,null]],\"state\":[[\"ok\",\"none\"],[\"ok\",\"ok\"]]}}]}]");
	json_t *skipped = parse("[{\"kind\":\"gpu\",\"tests\":[{\"metric\":\"bandwidth\","
				"\"reference\":\"pcie_link\",\"matrix\":{\"value\":[[null]],"
				"\"percent_of_reference\":[[null]],\"state\":[[\"pending\"]]}}]}]");
	struct ix_headline h;
	double v;

	cr_assert(ix_figure_of("gpu", r, "bits_per_second", &v));
	cr_assert_float_eq(v, 1.6e11, 1, "2e10 B/s in bit/s; the failed cell does not count");
	cr_assert(ix_figure_of("gpu", r, "percent_of_link", &v));
	cr_assert_float_eq(v, 80, 1e-9);
	cr_assert(ix_figure_of("gpu", r, "percent_of_hbm", &v));
	cr_assert_float_eq(v, 60, 1e-9);
	cr_assert(ix_figure_of("gpu", r, "latency_ns", &v));
	cr_assert_float_eq(v, 1200, 1e-9, "the slowest chase");
	ix_headline_of("gpu", r, &h);
	cr_assert(h.valid && h.higher_better);
	cr_assert_float_eq(h.value, 1.6e11, 1);
	cr_assert(!ix_figure_of("gpu", skipped, "bits_per_second", &v), "nothing measured");
	cr_assert(!ix_figure_of("gpu", skipped, "percent_of_hbm", &v));
	json_decref(r);
	json_decref(skipped);
}

/* coll results: the average bus bandwidth in bit/s, the wrong elements,
 * and the slow links with the ranks that never reported. */
Test(coll, busbw_wrong_and_slow)
{
	json_t *r = parse("[{\"kind\":\"coll\",\"avg_busbw_Bps\":1.5e11,\"wrong\":3,"
			  "\"missing\":1,\"verdict\":{\"culprit\":\"rank\",\"slow_pairs\":2}}]");
	json_t *none = parse("[{\"kind\":\"coll\",\"avg_busbw_Bps\":0,\"wrong\":null,"
			     "\"missing\":0,\"verdict\":{\"culprit\":null,\"slow_pairs\":0}}]");
	struct ix_headline h;
	double v;

	cr_assert(ix_figure_of("coll", r, "busbw_bits_per_second", &v));
	cr_assert_float_eq(v, 1.2e12, 1, "150 GB/s in bit/s");
	cr_assert(ix_figure_of("coll", r, "wrong", &v));
	cr_assert_float_eq(v, 3, 1e-12);
	cr_assert(ix_figure_of("coll", r, "slow", &v));
	cr_assert_float_eq(v, 3, 1e-12, "two slow links and one missing rank");
	ix_headline_of("coll", r, &h);
	cr_assert(h.valid && h.higher_better);
	cr_assert_str_eq(h.name, "average bus bandwidth");
	cr_assert_str_eq(h.unit, "bit/s");
	cr_assert_float_eq(h.value, 1.2e12, 1);
	cr_assert(!ix_figure_of("coll", none, "busbw_bits_per_second", &v),
		  "nothing measured is no figure, never 0");
	cr_assert(!ix_figure_of("coll", none, "wrong", &v), "not checked is no figure");
	cr_assert(ix_figure_of("coll", none, "slow", &v));
	cr_assert_float_eq(v, 0, 1e-12);
	cr_assert(!ix_figure_of("coll", r, "bits_per_second", &v), "no such coll figure");
	json_decref(r);
	json_decref(none);
}

/* mem results: the slowest pair's read and write (streaming stores where
 * measured) in bit/s, the slowest latency, the SLOW pairs; a pair not
 * measured counts for none of them. */
Test(mem, slowest_pair_and_slow)
{
	json_t *r = parse("[{\"kind\":\"mem\",\"slow\":[{\"initiator\":0,\"target\":1}],\"cells\":["
			  "{\"bandwidth_Bps\":{\"read\":2e10,\"write\":1e10,\"nt_write\":1.5e10},"
			  "\"latency_ns\":90},"
			  "{\"bandwidth_Bps\":{\"read\":5e9,\"write\":4e9,\"nt_write\":null},"
			  "\"latency_ns\":250},"
			  "{\"bandwidth_Bps\":{\"read\":null,\"write\":null,\"nt_write\":null},"
			  "\"latency_ns\":null}]}]");
	json_t *none = parse("[{\"kind\":\"mem\",\"slow\":[],\"cells\":[]}]");
	struct ix_headline h;
	double v;

	cr_assert(ix_figure_of("mem", r, "read_bits_per_second", &v));
	cr_assert_float_eq(v, 4e10, 1, "5 GB/s in bit/s");
	cr_assert(ix_figure_of("mem", r, "write_bits_per_second", &v));
	cr_assert_float_eq(v, 3.2e10, 1, "the plain write where no streaming one was measured");
	cr_assert(ix_figure_of("mem", r, "latency_ns", &v));
	cr_assert_float_eq(v, 250, 1e-9);
	cr_assert(ix_figure_of("mem", r, "slow", &v));
	cr_assert_float_eq(v, 1, 1e-12);
	ix_headline_of("mem", r, &h);
	cr_assert(h.valid && h.higher_better);
	cr_assert_str_eq(h.name, "slowest pair's read bandwidth");
	cr_assert(!ix_figure_of("mem", none, "read_bits_per_second", &v), "none measured");
	cr_assert(!ix_figure_of("mem", none, "latency_ns", &v));
	cr_assert(ix_figure_of("mem", none, "slow", &v));
	cr_assert_float_eq(v, 0, 1e-12);
	cr_assert(!ix_figure_of("mem", r, "bits_per_second", &v), "no such mem figure");
	json_decref(r);
	json_decref(none);
}

Test(topo, findings_counted)
{
	json_t *r = parse("[{\"kind\":\"topo\",\"findings\":[{\"message\":\"a\"},"
			  "{\"message\":\"b\"}]}]");
	struct ix_headline h;
	double v;

	cr_assert(ix_figure_of("topo", r, "findings", &v));
	cr_assert_float_eq(v, 2, 1e-9);
	ix_headline_of("topo", r, &h);
	cr_assert(h.valid && !h.higher_better);
	cr_assert_float_eq(h.value, 2, 1e-9);
	json_decref(r);
}

/* inventory: the fleet's odd nodes and findings; nothing answered, nothing measured. */
Test(inventory, fleet_figures)
{
	json_t *r = parse("[{\"kind\":\"fleet\",\"answered\":4,\"odd_nodes\":2,"
			  "\"findings_total\":1}]");
	json_t *none = parse("[{\"kind\":\"fleet\",\"answered\":0,\"odd_nodes\":0,"
			     "\"findings_total\":0}]");
	struct ix_headline h;
	double v;

	cr_assert(ix_figure_of("inventory", r, "odd_nodes", &v) && v == 2);
	cr_assert(ix_figure_of("inventory", r, "findings", &v) && v == 1);
	cr_assert_not(ix_figure_of("inventory", none, "odd_nodes", &v), "no agent answered");
	ix_headline_of("inventory", r, &h);
	cr_assert(h.valid && h.value == 2 && !h.higher_better);
	cr_assert_str_eq(h.name, "odd nodes");
	json_decref(r);
	json_decref(none);
}
