/* Unit tests for probes/core/counters.c: the classes of the drivers' names,
 * deltas that keep what moved and tells of trouble, sums across sources,
 * sentences, and the JSON a peer sends with every malformed form refused. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/core/counters.h"
#include "tests/unit/common.h"

static const struct {
	enum ix_ctr_source src;
	const char *name;
	enum ix_ctr_class cls;
} names[] = {
	/* netdev: the totals, not their parts */
	{ IX_SRC_NETDEV, "rx_dropped", IX_CC_DISCARD },
	{ IX_SRC_NETDEV, "rx_errors", IX_CC_ERROR },
	{ IX_SRC_NETDEV, "rx_crc_errors", IX_CC_NONE },
	{ IX_SRC_NETDEV, "rx_bytes", IX_CC_NONE },
	{ IX_SRC_QDISC, "tbf_drops", IX_CC_DISCARD },
	{ IX_SRC_QDISC, "tbf_overlimits", IX_CC_NONE },
	/* mlx5 ethtool, RoCE */
	{ IX_SRC_ETHTOOL, "rx_prio3_pause", IX_CC_PAUSE_RX },
	{ IX_SRC_ETHTOOL, "tx_prio3_pause", IX_CC_PAUSE_TX },
	{ IX_SRC_ETHTOOL, "rx_prio3_pause_duration", IX_CC_PAUSE_TIME },
	{ IX_SRC_ETHTOOL, "rx_prio3_pause_transition", IX_CC_NONE },
	{ IX_SRC_ETHTOOL, "rx_pause_ctrl_phy", IX_CC_PAUSE_RX },
	{ IX_SRC_ETHTOOL, "tx_pause_storm_warning_events", IX_CC_ERROR },
	{ IX_SRC_ETHTOOL, "rx_discards_phy", IX_CC_DISCARD },
	{ IX_SRC_ETHTOOL, "rx_out_of_buffer", IX_CC_DISCARD },
	{ IX_SRC_ETHTOOL, "rx_prio3_buf_discard", IX_CC_DISCARD },
	{ IX_SRC_ETHTOOL, "rx_prio3_marked", IX_CC_ECN },
	{ IX_SRC_ETHTOOL, "rx_prio3_bytes", IX_CC_NONE },
	{ IX_SRC_ETHTOOL, "rx_corrected_bits_phy", IX_CC_NONE },
	{ IX_SRC_ETHTOOL, "link_down_events_phy", IX_CC_LINK },
	/* mlx5 hw_counters */
	{ IX_SRC_HW, "np_cnp_sent", IX_CC_CNP_SENT },
	{ IX_SRC_HW, "rp_cnp_handled", IX_CC_CNP_HANDLED },
	{ IX_SRC_HW, "np_ecn_marked_roce_packets", IX_CC_ECN },
	{ IX_SRC_HW, "local_ack_timeout_err", IX_CC_RETRANS },
	{ IX_SRC_HW, "out_of_sequence", IX_CC_SEQ_ERR },
	{ IX_SRC_HW, "rnr_nak_retry_err", IX_CC_RNR },
	{ IX_SRC_HW, "req_cqe_error", IX_CC_ERROR },
	{ IX_SRC_HW, "req_cqe_flush_error", IX_CC_NONE },
	{ IX_SRC_HW, "rx_write_requests", IX_CC_NONE },
	/* InfiniBand port counters */
	{ IX_SRC_PORT, "port_xmit_wait", IX_CC_XMIT_WAIT },
	{ IX_SRC_PORT, "link_error_recovery", IX_CC_LINK },
	{ IX_SRC_PORT, "excessive_buffer_overrun_errors", IX_CC_DISCARD },
	{ IX_SRC_PORT, "VL15_dropped", IX_CC_DISCARD },
	{ IX_SRC_PORT, "port_rcv_data", IX_CC_NONE },
	/* rdma_rxe */
	{ IX_SRC_HW, "completer_retry_err", IX_CC_RETRANS },
	{ IX_SRC_HW, "rcvd_rnr_err", IX_CC_RNR },
	{ IX_SRC_HW, "send_err", IX_CC_DISCARD },
	{ IX_SRC_HW, "sent_pkts", IX_CC_NONE },
	/* bnxt_re and bnxt_en */
	{ IX_SRC_HW, "to_retransmits", IX_CC_RETRANS },
	{ IX_SRC_HW, "seq_err_naks_rcvd", IX_CC_SEQ_ERR },
	{ IX_SRC_HW, "tx_cnp_pkts", IX_CC_CNP_SENT },
	{ IX_SRC_HW, "rx_cnp_pkts", IX_CC_CNP_HANDLED },
	{ IX_SRC_HW, "rx_ecn_marked_pkts", IX_CC_ECN },
	{ IX_SRC_HW, "rx_roce_discards", IX_CC_DISCARD },
	{ IX_SRC_ETHTOOL, "rx_pfc_ena_frames_pri3", IX_CC_PAUSE_RX },
	{ IX_SRC_ETHTOOL, "rx_discard_bytes_cos0", IX_CC_NONE },
	/* irdma and ice */
	{ IX_SRC_HW, "cnpSent", IX_CC_CNP_SENT },
	{ IX_SRC_HW, "cnpHandled", IX_CC_CNP_HANDLED },
	{ IX_SRC_HW, "RxECNMrkd", IX_CC_ECN },
	{ IX_SRC_HW, "tcpRetransSegs", IX_CC_RETRANS },
	{ IX_SRC_HW, "RNR sent", IX_CC_RNR },
	{ IX_SRC_HW, "ip4InOctets", IX_CC_NONE },
	{ IX_SRC_ETHTOOL, "rx_priority_3_xoff.nic", IX_CC_PAUSE_RX },
	{ IX_SRC_ETHTOOL, "rx_priority_3_xon.nic", IX_CC_NONE },
	{ IX_SRC_ETHTOOL, "link_xoff_tx.nic", IX_CC_PAUSE_TX },
	{ IX_SRC_ETHTOOL, "rx_dropped.nic", IX_CC_DISCARD },
	/* veth, and words of names nobody listed */
	{ IX_SRC_ETHTOOL, "rx_queue_0_drops", IX_CC_DISCARD },
	{ IX_SRC_ETHTOOL, "tx_queue_0_xdp_xmit_errors", IX_CC_ERROR },
	{ IX_SRC_ETHTOOL, "peer_ifindex", IX_CC_NONE },
	{ IX_SRC_ETHTOOL, "rx_vport_rdma_unicast_bytes", IX_CC_NONE },
	{ IX_SRC_ETHTOOL, "some_ecn_marked_frames", IX_CC_ECN },
};

Test(counters, driver_names_have_their_classes)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		cr_expect_eq(ix_ctr_classify(names[i].src, names[i].name), names[i].cls,
			     "%s:%s is %s, not %s", ix_ctr_source_name(names[i].src), names[i].name,
			     ix_ctr_class_key(ix_ctr_classify(names[i].src, names[i].name)),
			     ix_ctr_class_key(names[i].cls));
}

static void add(struct ix_ctr_set *s, enum ix_ctr_source src, const char *name, uint64_t v)
{
	cr_assert_eq(ix_ctr_set_add(s, src, name, v), 0);
}

Test(counters, delta_keeps_trouble_that_moved)
{
	struct ix_ctr_set a, b, d;

	ix_ctr_set_init(&a);
	ix_ctr_set_init(&b);
	snprintf(b.iface, sizeof(b.iface), "eth0");
	add(&a, IX_SRC_NETDEV, "rx_bytes", 100);
	add(&a, IX_SRC_NETDEV, "rx_dropped", 5);
	add(&a, IX_SRC_ETHTOOL, "rx_queue_0_drops", 5);
	add(&a, IX_SRC_ETHTOOL, "rx_discards_phy", 10);
	add(&a, IX_SRC_HW, "np_cnp_sent", 7);
	add(&a, IX_SRC_HW, "out_of_sequence", 9);
	/* after: another order, a reset, a new counter */
	add(&b, IX_SRC_HW, "np_cnp_sent", 7);
	add(&b, IX_SRC_ETHTOOL, "rx_discards_phy", 30);
	add(&b, IX_SRC_NETDEV, "rx_bytes", 900);
	add(&b, IX_SRC_NETDEV, "rx_dropped", 45);
	add(&b, IX_SRC_ETHTOOL, "rx_queue_0_drops", 45);
	add(&b, IX_SRC_HW, "out_of_sequence", 2);
	add(&b, IX_SRC_HW, "rnr_nak_retry_err", 3);
	cr_assert_eq(ix_ctr_delta(&a, &b, &d), 3);
	cr_assert(d.valid);
	cr_assert_str_eq(d.iface, "eth0");
	cr_assert_str_eq(d.v[0].name, "rx_discards_phy");
	cr_assert_eq(d.v[0].value, 20);
	cr_assert_str_eq(d.v[1].name, "rx_dropped");
	cr_assert_eq(d.v[1].value, 40);
	cr_assert_str_eq(d.v[2].name, "rx_queue_0_drops");
	cr_assert_eq(d.v[2].value, 40);
	ix_ctr_set_free(&d);

	/* An invalid side gives an invalid delta. */
	a.valid = false;
	cr_assert_eq(ix_ctr_delta(&a, &b, &d), 0);
	cr_assert_not(d.valid);
	ix_ctr_set_free(&a);
	ix_ctr_set_free(&b);
}

Test(counters, sums_take_the_largest_source)
{
	struct ix_ctr_set s;
	struct ix_ctr_sum sum, two;

	ix_ctr_set_init(&s);
	add(&s, IX_SRC_NETDEV, "rx_dropped", 40);
	add(&s, IX_SRC_ETHTOOL, "rx_queue_0_drops", 30);
	add(&s, IX_SRC_ETHTOOL, "rx_discards_phy", 20);
	add(&s, IX_SRC_ETHTOOL, "rx_prio3_pause", 6);
	add(&s, IX_SRC_ETHTOOL, "tx_prio3_pause", 1);
	add(&s, IX_SRC_HW, "np_cnp_sent", 4);
	add(&s, IX_SRC_HW, "rp_cnp_handled", 5);
	ix_ctr_summarize(&s, &sum);
	cr_assert_eq(sum.v[IX_CC_DISCARD], 50, "the driver's 30 + 20 over netdev's 40");
	cr_assert_eq(ix_ctr_sum_pauses(&sum), 7);
	cr_assert_eq(ix_ctr_sum_cnps(&sum), 9);
	cr_assert(sum.has & (1u << IX_CC_DISCARD));
	cr_assert_not(sum.has & (1u << IX_CC_ERROR));
	two = sum;
	ix_ctr_sum_add(&two, &sum);
	cr_assert_eq(two.v[IX_CC_DISCARD], 100);
	ix_ctr_set_free(&s);
}

Test(counters, sentence_names_classes_and_counters)
{
	struct ix_ctr_set s;
	char buf[512];

	ix_ctr_set_init(&s);
	cr_assert_eq(ix_ctr_sentence(&s, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
	snprintf(s.iface, sizeof(s.iface), "ens1f0np0");
	snprintf(s.rdma, sizeof(s.rdma), "mlx5_0/1");
	add(&s, IX_SRC_ETHTOOL, "rx_prio3_pause", 60);
	add(&s, IX_SRC_ETHTOOL, "rx_prio4_pause", 2);
	add(&s, IX_SRC_ETHTOOL, "rx_prio5_pause", 1);
	add(&s, IX_SRC_HW, "np_cnp_sent", 20);
	add(&s, IX_SRC_ETHTOOL, "rx_discards_phy", 2048);
	ix_ctr_sentence(&s, buf, sizeof(buf));
	cr_assert_str_eq(buf,
			 "ens1f0np0 (mlx5_0/1): 2048 drops (ethtool rx_discards_phy 2048), "
			 "63 pause frames received (ethtool rx_prio3_pause 60, ethtool "
			 "rx_prio4_pause 2 and 1 more), 20 CNPs sent (hw_counters np_cnp_sent 20)");
	/* Truncated, never overrun. */
	cr_assert_eq(ix_ctr_sentence(&s, buf, 16), 15);
	cr_assert_eq(strlen(buf), 15);
	ix_ctr_set_free(&s);
}

Test(counters, json_round_trip)
{
	struct ix_ctr_set s, back;
	struct ix_err err = { 0 };
	json_t *j, *rt;

	ix_ctr_set_init(&s);
	snprintf(s.iface, sizeof(s.iface), "ib0");
	snprintf(s.rdma, sizeof(s.rdma), "mlx5_1/1");
	add(&s, IX_SRC_PORT, "port_xmit_wait", 123456);
	add(&s, IX_SRC_HW, "RNR sent", 3);
	s.truncated = true;
	j = ix_ctr_json(&s);
	cr_assert_eq(
		json_integer_value(json_object_get(json_object_get(j, "summary"), "xmit_wait")),
		123456);
	cr_assert_eq(json_integer_value(
			     json_object_get(json_object_get(j, "moved"), "hw_counters:RNR sent")),
		     3);
	rt = ix_test_json_roundtrip(j);
	cr_assert_eq(ix_ctr_parse(rt, &back, &err), 0, "%s", err.msg);
	cr_assert(back.valid);
	cr_assert(back.truncated);
	cr_assert_str_eq(back.iface, "ib0");
	cr_assert_str_eq(back.rdma, "mlx5_1/1");
	cr_assert_eq(back.n, 2);
	cr_assert_eq(back.sources, (1u << IX_SRC_PORT) | (1u << IX_SRC_HW));
	cr_assert_str_eq(back.v[1].name, "RNR sent");
	cr_assert_eq(back.v[1].cls, IX_CC_RNR);
	json_decref(rt);
	ix_ctr_set_free(&back);
	ix_ctr_set_free(&s);
	j = ix_ctr_json(&s);
	cr_assert(json_is_null(j));
	cr_assert_eq(ix_ctr_parse(j, &back, &err), 0);
	cr_assert_not(back.valid);
	json_decref(j);
}

Test(counters, hostile_json_refused_with_reason)
{
	static const struct {
		const char *doc, *says;
	} bad[] = {
		{ "[]", "not an object" },
		{ "{\"moved\": []}", "'moved' is not an object" },
		{ "{\"moved\": {\"rx_dropped\": 1}}", "is not SOURCE:NAME" },
		{ "{\"moved\": {\"bogus:rx_dropped\": 1}}", "is not SOURCE:NAME" },
		{ "{\"moved\": {\"netdev:a/b\": 1}}", "is not SOURCE:NAME" },
		{ "{\"moved\": {\"netdev:\": 1}}", "is not SOURCE:NAME" },
		{ "{\"moved\": {\"netdev:rx_dropped\": -1}}", "not a non-negative integer" },
		{ "{\"moved\": {\"netdev:rx_dropped\": \"1\"}}", "not a non-negative integer" },
		{ "{\"iface\": 7}", "'iface' is not a short printable string" },
		{ "{\"rdma\": \"a\\nb\"}", "'rdma' is not a short printable string" },
		{ "{\"sources\": [\"x\"]}", "source 0 is not a known source" },
	};
	struct ix_ctr_set s;
	json_t *big = json_object(), *mv = json_object();
	char key[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ix_err err = { 0 };
		json_t *j = json_loads(bad[i].doc, 0, NULL);

		cr_assert_not_null(j, "%s", bad[i].doc);
		cr_expect_eq(ix_ctr_parse(j, &s, &err), -1, "%s", bad[i].doc);
		cr_expect_not_null(strstr(err.msg, bad[i].says), "%s: %s", bad[i].doc, err.msg);
		cr_expect_null(s.v);
		json_decref(j);
	}
	for (int i = 0; i <= IX_CTR_MOVED_MAX; i++) {
		snprintf(key, sizeof(key), "ethtool:rx_queue_%d_drops", i);
		json_object_set_new(mv, key, json_integer(1));
	}
	json_object_set_new(big, "moved", mv);
	{
		struct ix_err err = { 0 };

		cr_assert_eq(ix_ctr_parse(big, &s, &err), -1);
		cr_assert_not_null(strstr(err.msg, "more than"));
	}
	json_decref(big);
}

Test(counters, copy_and_limits)
{
	struct ix_ctr_set s, c;

	ix_ctr_set_init(&s);
	for (int i = 0; i < IX_CTR_MAX; i++)
		cr_assert_eq(ix_ctr_set_add(&s, IX_SRC_ETHTOOL, "rx_queue_0_drops", (uint64_t)i),
			     0);
	cr_assert_eq(ix_ctr_set_add(&s, IX_SRC_ETHTOOL, "one_too_many", 1), -1);
	cr_assert(s.truncated);
	cr_assert_eq(ix_ctr_set_copy(&c, &s), 0);
	cr_assert_eq(c.n, IX_CTR_MAX);
	cr_assert_neq(c.v, s.v);
	cr_assert_eq(c.v[IX_CTR_MAX - 1].value, IX_CTR_MAX - 1);
	ix_ctr_set_free(&c);
	ix_ctr_set_free(&s);
}
