/* Unit tests for report/json/top.c: the JSON documents of the live monitor,
 * over the sysfs fixtures and a known traffic matrix. Unknown figures must
 * come out as null, never 0. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "tests/unit/common.h"
#include "tests/unit/data.h"
#include "tests/unit/report/fixtures.h"

/* Member key of object o, which must exist. */
static json_t *get(json_t *o, const char *key)
{
	json_t *x = json_object_get(o, key);

	cr_assert_not_null(x, "no member %s", key);
	return x;
}

static double num(json_t *o, const char *key)
{
	json_t *x = get(o, key);

	cr_assert(json_is_number(x), "%s is not a number", key);
	return json_number_value(x);
}

static void is_null(json_t *o, const char *key)
{
	cr_assert(json_is_null(get(o, key)), "%s is not null", key);
}

static json_t *link_named(json_t *doc, const char *name)
{
	json_t *links = get(doc, "links"), *l;
	size_t i;

	json_array_foreach(links, i,
			   l) if (strcmp(json_string_value(get(l, "name")), name) == 0) return l;
	cr_assert_fail("no link %s", name);
	return NULL;
}

Test(json_top, links_rates_and_nulls)
{
	struct ix_top_model m;
	json_t *doc, *l, *r, *c;

	model(&m, true);
	doc = ix_test_json_roundtrip(ix_json_links(&m));
	cr_assert_eq(num(doc, "samples"), 2);
	cr_assert_eq(num(doc, "interval_s"), 2.0);

	l = link_named(doc, "eth0");
	cr_assert_str_eq(json_string_value(get(l, "kind")), "net");
	cr_assert_str_eq(json_string_value(get(l, "state")), "up");
	cr_assert_eq(num(l, "speed_bps"), 25e9);
	cr_assert_eq(num(l, "mtu"), 9000);
	cr_assert_eq(num(l, "ifindex"), 2);
	cr_assert(json_is_false(get(l, "virtual")));
	is_null(l, "port");
	is_null(l, "phys_state");
	r = get(l, "rates");
	cr_assert_eq(num(r, "rx_bps"), 6.25e9);
	cr_assert_eq(num(r, "tx_bps"), 2.5e9);
	cr_assert_eq(num(r, "rx_errors_per_s"), 5);
	cr_assert_eq(num(r, "tx_errors_per_s"), 0, "a known 0 stays 0");
	cr_assert_float_eq(num(r, "utilization"), 0.25, 1e-12);
	c = get(l, "counters");
	cr_assert_eq(num(c, "rx_bytes"), 11562500000.0);
	is_null(c, "symbol_errors");

	/* down, speed -1 */
	l = link_named(doc, "ens1f0");
	is_null(l, "speed_bps");
	is_null(get(l, "rates"), "utilization");
	/* counter reset and missing counters */
	l = link_named(doc, "eth10");
	r = get(l, "rates");
	is_null(r, "rx_bps");
	cr_assert_eq(num(r, "tx_bps"), 8000);
	cr_assert(json_is_true(get(r, "reset")));
	is_null(get(l, "counters"), "rx_packets");
	/* just appeared */
	r = get(link_named(doc, "veth1"), "rates");
	is_null(r, "rx_bps");
	is_null(r, "rx_pps");

	l = link_named(doc, "mlx5_0/1");
	cr_assert_str_eq(json_string_value(get(l, "kind")), "ib");
	cr_assert_str_eq(json_string_value(get(l, "device")), "mlx5_0");
	cr_assert_str_eq(json_string_value(get(l, "link_layer")), "InfiniBand");
	cr_assert_eq(num(l, "port"), 1);
	cr_assert_eq(num(l, "speed_bps"), 200e9);
	is_null(l, "mtu");
	is_null(l, "address");
	is_null(l, "netdev");
	c = get(l, "counters");
	cr_assert_eq(num(c, "rx_bytes"), 4.0 * 2500000000.0);
	is_null(c, "symbol_errors");
	is_null(c, "tx_errors");
	r = get(l, "rates");
	cr_assert_eq(num(r, "rx_bps"), 8e9);
	is_null(r, "symbol_errors_per_s");
	cr_assert_str_eq(json_string_value(get(link_named(doc, "mlx5_1/1"), "netdev")), "ens1f1");
	json_decref(doc);
	ix_top_model_free(&m);
}

/* The fabric counters of the fixtures' ethtool/eth0 files and the RoCE
 * port's hw_counters, basic -> basic2 over 2 s. */
Test(json_top, fabric_rates_and_moved_counters)
{
	struct ix_top_model m;
	json_t *doc, *f, *r, *mv, *src;

	model(&m, true);
	doc = ix_test_json_roundtrip(ix_json_links(&m));
	f = get(link_named(doc, "eth0"), "fabric");
	src = get(f, "sources");
	cr_assert_eq(json_array_size(src), 2);
	cr_assert_str_eq(json_string_value(json_array_get(src, 0)), "netdev");
	cr_assert_str_eq(json_string_value(json_array_get(src, 1)), "ethtool");
	r = get(f, "rates");
	cr_assert_eq(json_object_size(r), 3, "only the classes that moved");
	cr_assert_eq(num(r, "discards"), 12);
	cr_assert_eq(num(r, "pause_rx"), 400);
	cr_assert_eq(num(r, "errors"), 5);
	mv = get(f, "moved");
	cr_assert_eq(json_object_size(mv), 5);
	cr_assert_eq(num(mv, "ethtool:rx_prio3_pause"), 700);
	cr_assert_eq(num(mv, "ethtool:rx_discards_phy"), 24);
	cr_assert_eq(num(mv, "netdev:rx_errors"), 10);
	cr_assert_eq(num(f, "moved_count"), 5);
	cr_assert(json_is_false(get(f, "truncated")));
	cr_assert_null(json_object_get(f, "read"), "every counter only when asked");

	r = get(get(link_named(doc, "mlx5_1/1"), "fabric"), "rates");
	cr_assert_eq(json_object_size(r), 2);
	cr_assert_eq(num(r, "cnp_sent"), 30);
	cr_assert_eq(num(r, "ecn_marked"), 5);
	/* The RoCE port's network device: read, nothing moved. */
	f = get(link_named(doc, "ens1f1"), "fabric");
	cr_assert_eq(json_object_size(get(f, "rates")), 0);
	cr_assert_eq(json_object_size(get(f, "moved")), 0);
	is_null(link_named(doc, "veth1"), "fabric");
	json_decref(doc);

	/* --counters: every counter read at the end of the interval. */
	m.fabric_all = true;
	doc = ix_test_json_roundtrip(ix_json_links(&m));
	f = get(get(link_named(doc, "eth0"), "fabric"), "read");
	cr_assert_eq(num(f, "ethtool:rx_vport_rdma_unicast_packets"), 700);
	cr_assert_eq(num(f, "ethtool:rx_prio3_pause"), 1700);
	cr_assert_eq(num(f, "netdev:rx_bytes"), 11562500000.0);
	f = get(get(link_named(doc, "mlx5_1/1"), "fabric"), "read");
	cr_assert_eq(num(f, "hw_counters:np_cnp_sent"), 160);
	cr_assert_eq(num(f, "port_counters:port_xmit_data"), 4294967295.0);
	json_decref(doc);
	ix_top_model_free(&m);
}

Test(json_top, first_sample_has_no_rates)
{
	struct ix_top_model m;
	json_t *doc, *r;
	const char *k;
	json_t *v;

	model(&m, false);
	doc = ix_test_json_roundtrip(ix_json_links(&m));
	cr_assert_eq(num(doc, "samples"), 1);
	is_null(doc, "interval_s");
	r = get(link_named(doc, "eth0"), "rates");
	json_object_foreach(r, k, v) if (strcmp(k, "reset") != 0)
		cr_assert(json_is_null(v), "%s is not null", k);
	is_null(link_named(doc, "eth0"), "fabric");
	json_decref(doc);
	ix_top_model_free(&m);
}

Test(json_top, talkers_document)
{
	struct ix_talkers_view v;
	struct ix_talkers *t = traffic(&v, false);
	json_t *doc, *h, *p;

	doc = ix_test_json_roundtrip(ix_json_talkers(&v));
	is_null(doc, "period_s");
	cr_assert_eq(num(doc, "packets"), 2);
	cr_assert_eq(num(doc, "bytes"), 3500);
	h = json_array_get(get(doc, "hosts"), 0);
	cr_assert_str_eq(json_string_value(get(h, "address")), "10.0.0.1");
	cr_assert_eq(num(h, "tx_bytes"), 3000);
	is_null(h, "tx_bytes_per_second");
	cr_assert_eq(json_array_size(get(doc, "pairs")), 2, "pairs without traffic left out");
	p = json_array_get(get(doc, "pairs"), 0);
	cr_assert_eq(num(p, "src"), 0);
	cr_assert_eq(num(p, "dst"), 1);
	cr_assert_eq(num(p, "bytes"), 3000);
	is_null(p, "bytes_per_second");
	json_decref(doc);
	ix_talkers_view_free(&v);
	ix_talkers_free(t);

	t = traffic(&v, true);
	doc = ix_test_json_roundtrip(ix_json_talkers(&v));
	cr_assert_eq(num(doc, "period_s"), 2.0);
	p = json_array_get(get(doc, "pairs"), 0);
	cr_assert_eq(num(p, "bytes_per_second"), 1000.0);
	p = json_array_get(get(doc, "pairs"), 1);
	cr_assert_eq(num(p, "bytes_per_second"), 0.0);
	cr_assert_eq(num(json_array_get(get(doc, "hosts"), 1), "rx_bytes_per_second"), 1000.0);
	json_decref(doc);
	ix_talkers_view_free(&v);
	ix_talkers_free(t);
}

Test(json_top, talkers_other_bucket)
{
	struct ix_talkers *t = ix_talkers_new(1, NULL);
	struct ix_talkers_view v;
	uint8_t a[16] = { 10, 0, 0, 1 }, b[16] = { 10, 0, 0, 2 };
	json_t *doc, *h;

	ix_talkers_add(t, 4, a, b, 100, 1);
	cr_assert_eq(ix_talkers_snapshot(t, 1, &v, NULL), 0);
	doc = ix_test_json_roundtrip(ix_json_talkers(&v));
	h = json_array_get(get(doc, "hosts"), 1);
	cr_assert(json_is_true(get(h, "other")));
	is_null(h, "address");
	is_null(h, "family");
	cr_assert_eq(num(doc, "other_bytes"), 100);
	json_decref(doc);
	ix_talkers_view_free(&v);
	ix_talkers_free(t);
}
