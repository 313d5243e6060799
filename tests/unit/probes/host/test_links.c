/* Unit tests for probes/host/links.c: sysfs snapshots of network devices and
 * InfiniBand/RoCE ports (fixtures in tests/data/sysfs), rates between two
 * snapshots, histories, sparklines, fabric counter rates and the monitor's
 * model. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/host/links.h"
#include "tests/unit/data.h"

/* ix_test_data returns a static buffer: keep a copy per fixture. */
static char basic[4096], basic2[4096];

static void fixtures(void)
{
	snprintf(basic, sizeof(basic), "%s", ix_test_data("sysfs/basic"));
	snprintf(basic2, sizeof(basic2), "%s", ix_test_data("sysfs/basic2"));
}

TestSuite(links, .init = fixtures);

static const struct ix_link *must_find(const struct ix_links *ls, const char *name)
{
	const struct ix_link *l = ix_links_find(ls, name);

	cr_assert_not_null(l, "link %s not found", name);
	return l;
}

Test(links, reads_sorted_by_name_skipping_plain_files)
{
	static const char *const want[] = { "br0",   "ens1f0", "ens1f1",   "eth0",    "eth2",
					    "eth10", "lo",     "mlx5_0/1", "mlx5_1/1" };
	struct ix_links ls;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_links_read(basic, &ls, &err), 0, "%s", err.msg);
	cr_assert_eq(ls.n, sizeof(want) / sizeof(want[0]), "%zu links", ls.n);
	for (size_t i = 0; i < ls.n; i++)
		cr_assert_str_eq(ls.v[i].name, want[i]);
	cr_assert_null(ix_links_find(&ls, "bonding_masters"));
	cr_assert_null(ix_links_find(&ls, "eth1"));
	ix_links_free(&ls);
	cr_assert_null(ls.v);
	cr_assert_eq(ls.n, 0);
}

Test(links, ethernet_attributes_and_counters)
{
	struct ix_links ls;
	const struct ix_link *l;

	cr_assert_eq(ix_links_read(basic, &ls, NULL), 0);
	l = must_find(&ls, "eth0");
	cr_assert_eq(l->kind, IX_LINK_NET);
	cr_assert_str_eq(l->dev, "eth0");
	cr_assert_str_eq(l->state, "up");
	cr_assert_str_eq(l->address, "0c:42:a1:00:00:01");
	cr_assert_eq(l->ifindex, 2);
	cr_assert(l->mtu_known);
	cr_assert_eq(l->mtu, 9000);
	cr_assert(l->speed_known);
	cr_assert_eq(l->speed_bps, 25e9);
	cr_assert_not(l->is_virtual);
	cr_assert_not(l->is_loopback);
	cr_assert_eq(l->known, 0xffu, "known 0x%x", l->known);
	cr_assert_eq(l->rx_bytes, 10000000000ULL);
	cr_assert_eq(l->tx_bytes, 4000000000ULL);
	cr_assert_eq(l->rx_packets, 8000000);
	cr_assert_eq(l->tx_packets, 3000000);
	cr_assert_eq(l->rx_errors, 7);
	cr_assert_eq(l->tx_errors, 1);
	cr_assert_eq(l->rx_dropped, 20);
	cr_assert_eq(l->tx_dropped, 0);
	ix_links_free(&ls);
}

Test(links, speed_unknown_is_not_zero)
{
	struct ix_links ls;
	const struct ix_link *l;

	cr_assert_eq(ix_links_read(basic, &ls, NULL), 0);
	/* speed -1 and operstate down */
	l = must_find(&ls, "ens1f0");
	cr_assert_not(l->speed_known);
	cr_assert_eq(l->speed_bps, 0);
	cr_assert_str_eq(l->state, "down");
	/* no speed attribute at all (reading it fails with EINVAL on lo) */
	l = must_find(&ls, "lo");
	cr_assert_not(l->speed_known);
	l = must_find(&ls, "eth10");
	cr_assert_not(l->speed_known);
	ix_links_free(&ls);
}

Test(links, loopback_virtual_and_partial_counters)
{
	struct ix_links ls;
	const struct ix_link *l;

	cr_assert_eq(ix_links_read(basic, &ls, NULL), 0);
	l = must_find(&ls, "lo");
	cr_assert(l->is_loopback);
	cr_assert(l->is_virtual);
	cr_assert_eq(l->mtu, 65536);
	cr_assert_str_eq(l->state, "unknown");
	l = must_find(&ls, "br0");
	cr_assert(l->is_virtual);
	cr_assert_not(l->is_loopback);
	/* Only rx_bytes and tx_bytes exist under eth10/statistics. */
	l = must_find(&ls, "eth10");
	cr_assert_eq(l->known, IX_LINK_RX_BYTES | IX_LINK_TX_BYTES, "known 0x%x", l->known);
	cr_assert_eq(l->rx_bytes, 900000);
	ix_links_free(&ls);
}

Test(links, infiniband_port)
{
	struct ix_links ls;
	const struct ix_link *l;

	cr_assert_eq(ix_links_read(basic, &ls, NULL), 0);
	l = must_find(&ls, "mlx5_0/1");
	cr_assert_eq(l->kind, IX_LINK_IB);
	cr_assert_str_eq(l->dev, "mlx5_0");
	cr_assert_eq(l->port, 1);
	cr_assert_str_eq(l->state, "ACTIVE");
	cr_assert_str_eq(l->phys_state, "LinkUp");
	cr_assert_str_eq(l->link_layer, "InfiniBand");
	cr_assert_str_eq(l->netdev, "");
	cr_assert(l->speed_known);
	cr_assert_eq(l->speed_bps, 200e9);
	cr_assert_not(l->mtu_known);
	cr_assert_not(l->is_virtual);
	/* port_xmit_data and port_rcv_data count 4-octet words. */
	cr_assert_eq(l->tx_bytes, 4ULL * 1000000000ULL);
	cr_assert_eq(l->rx_bytes, 4ULL * 2000000000ULL);
	cr_assert_eq(l->tx_packets, 5000000);
	cr_assert_eq(l->rx_packets, 6000000);
	cr_assert_eq(l->rx_errors, 3);
	cr_assert_eq(l->tx_dropped, 0);
	cr_assert_eq(l->link_downed, 1);
	/* symbol_error sits at 65535: saturated, so no longer a count. */
	cr_assert_not(l->known & IX_LINK_SYMBOL_ERRORS);
	cr_assert_not(l->known & (IX_LINK_TX_ERRORS | IX_LINK_RX_DROPPED));
	ix_links_free(&ls);
}

Test(links, roce_port)
{
	struct ix_links ls;
	const struct ix_link *l;

	cr_assert_eq(ix_links_read(basic, &ls, NULL), 0);
	l = must_find(&ls, "mlx5_1/1");
	cr_assert_str_eq(l->link_layer, "Ethernet");
	cr_assert_str_eq(l->netdev, "ens1f1");
	cr_assert_eq(l->speed_bps, 100e9);
	cr_assert_eq(l->tx_bytes, 4ULL * 4294967000ULL);
	ix_links_free(&ls);
}

Test(links, parse_ib_rate)
{
	static const struct {
		const char *s;
		double bps;
	} good[] = {
		{ "200 Gb/sec (4X HDR)", 200e9 },
		{ "25 Gb/sec (1X EDR)", 25e9 },
		{ "10 Gb/sec (4X)", 10e9 },
		{ "2.5 Gb/sec (1X SDR)", 2.5e9 },
		{ "400 Gb/sec (4X NDR)\n", 400e9 },
		{ "14.0625 Gb/sec (1X FDR)", 14.0625e9 },
		{ "100 Mb/sec", 100e6 },
	};
	static const char *const bad[] = { "",           "Gb/sec", "-1 Gb/sec", "200",
					   "200 Xb/sec", "200 G",  "unknown" };
	double v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_assert_eq(ix_links_parse_rate(good[i].s, &v), 0, "'%s'", good[i].s);
		cr_assert_float_eq(v, good[i].bps, good[i].bps * 1e-12, "'%s': %g", good[i].s, v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(ix_links_parse_rate(bad[i], &v), -1, "'%s' accepted", bad[i]);
}

/* Two fixture snapshots two seconds apart. */
static void sample_both(struct ix_top_model *m, const struct ix_top_filter *f)
{
	struct ix_err err = { 0 };

	cr_assert_eq(ix_top_model_init(m, f, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_top_model_sample(m, basic, 1000000000, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_top_model_sample(m, basic2, 3000000000, &err), 0, "%s", err.msg);
}

static const struct ix_link_rate *rate_of(const struct ix_top_model *m, const char *name)
{
	const struct ix_link *l = must_find(&m->cur, name);

	return &m->rates[l - m->cur.v];
}

Test(links, exact_ethernet_rates)
{
	struct ix_top_model m;
	const struct ix_link_rate *r;

	sample_both(&m, NULL);
	r = rate_of(&m, "eth0");
	cr_assert_eq(r->known, 0xffu, "known 0x%x", r->known);
	cr_assert_not(r->reset);
	cr_assert_eq(r->interval_s, 2.0);
	cr_assert_eq(r->rx_bps, 6.25e9); /* 1562500000 bytes in 2 s */
	cr_assert_eq(r->tx_bps, 2.5e9);
	cr_assert_eq(r->rx_pps, 500000);
	cr_assert_eq(r->tx_pps, 200000);
	cr_assert_eq(r->rx_errors_ps, 5);
	cr_assert_eq(r->tx_errors_ps, 0);
	cr_assert_eq(r->rx_dropped_ps, 2);
	cr_assert_eq(r->tx_dropped_ps, 0);
	cr_assert(r->util_known);
	cr_assert_float_eq(r->util, 0.25, 1e-12);
	r = rate_of(&m, "lo");
	cr_assert_eq(r->rx_bps, 400000);
	cr_assert_not(r->util_known, "no speed, no utilisation");
	ix_top_model_free(&m);
}

Test(links, exact_infiniband_rates)
{
	struct ix_top_model m;
	const struct ix_link_rate *r;

	sample_both(&m, NULL);
	r = rate_of(&m, "mlx5_0/1");
	/* 250e6 words out, 500e6 words in, 2 s */
	cr_assert_eq(r->tx_bps, 4e9);
	cr_assert_eq(r->rx_bps, 8e9);
	cr_assert_eq(r->tx_pps, 200000);
	cr_assert_eq(r->rx_pps, 300000);
	cr_assert_eq(r->rx_errors_ps, 2);
	cr_assert_eq(r->tx_dropped_ps, 1);
	cr_assert_eq(r->link_downed_ps, 0);
	cr_assert(r->known & IX_LINK_LINK_DOWNED);
	cr_assert_not(r->known & IX_LINK_SYMBOL_ERRORS);
	cr_assert(r->util_known);
	cr_assert_float_eq(r->util, 0.04, 1e-12);
	/* RoCE port: port_xmit_data reached 2^32-1 and saturated. */
	r = rate_of(&m, "mlx5_1/1");
	cr_assert_not(r->known & IX_LINK_TX_BYTES);
	cr_assert_eq(r->rx_bps, 3200);
	cr_assert_not(r->util_known);
	ix_top_model_free(&m);
}

Test(links, counter_reset_is_unknown_not_negative)
{
	struct ix_top_model m;
	const struct ix_link_rate *r;

	sample_both(&m, NULL);
	/* eth10 rx_bytes went from 900000 to 400 */
	r = rate_of(&m, "eth10");
	cr_assert(r->reset);
	cr_assert_not(r->known & IX_LINK_RX_BYTES);
	cr_assert_eq(r->rx_bps, 0);
	cr_assert(r->known & IX_LINK_TX_BYTES);
	cr_assert_eq(r->tx_bps, 8000);
	ix_top_model_free(&m);
}

Test(links, links_that_appear_and_vanish)
{
	struct ix_top_model m;
	const struct ix_link_rate *r;
	const struct ix_link_history *h;
	double v[4];

	sample_both(&m, NULL);
	cr_assert_null(ix_links_find(&m.cur, "br0"), "br0 is gone in basic2");
	cr_assert_not_null(ix_links_find(&m.prev, "br0"));
	r = rate_of(&m, "veth1");
	cr_assert_eq(r->known, 0);
	cr_assert_eq(r->interval_s, 0);
	cr_assert(must_find(&m.cur, "veth1")->is_virtual);
	/* Its history holds one unknown sample, eth0's one known one. */
	h = &m.hist[must_find(&m.cur, "veth1") - m.cur.v];
	cr_assert_eq(ix_links_history_get(h, false, v, 4), 1);
	cr_assert(isnan(v[0]));
	h = &m.hist[must_find(&m.cur, "eth0") - m.cur.v];
	cr_assert_eq(ix_links_history_get(h, false, v, 4), 1);
	cr_assert_eq(v[0], 6.25e9);
	cr_assert_eq(ix_links_history_get(h, true, v, 4), 1);
	cr_assert_eq(v[0], 2.5e9);
	ix_top_model_free(&m);
}

Test(links, history_follows_links_across_samples)
{
	struct ix_top_model m;
	struct ix_err err = { 0 };
	const struct ix_link_history *h;
	double v[8];

	sample_both(&m, NULL);
	/* Same counters again: zero traffic; the ring keeps order. */
	cr_assert_eq(ix_top_model_sample(&m, basic2, 4000000000, &err), 0, "%s", err.msg);
	cr_assert_eq(m.samples, 3);
	h = &m.hist[must_find(&m.cur, "eth0") - m.cur.v];
	cr_assert_eq(ix_links_history_get(h, false, v, 8), 2);
	cr_assert_eq(v[0], 6.25e9);
	cr_assert_eq(v[1], 0);
	/* A timestamp that does not move on: rates unknown, nothing divides by 0. */
	cr_assert_eq(ix_top_model_sample(&m, basic2, 4000000000, &err), 0, "%s", err.msg);
	cr_assert_eq(m.rates[0].known, 0);
	ix_top_model_free(&m);
}

Test(links, rate_edge_cases)
{
	struct ix_link a = {
		.kind = IX_LINK_NET, .ifindex = 3, .known = IX_LINK_RX_BYTES, .rx_bytes = 1000
	};
	struct ix_link b = a;
	struct ix_link_rate r;

	b.rx_bytes = 3000;
	ix_links_rate(&a, &b, 1000000000, &r);
	cr_assert_eq(r.rx_bps, 16000);
	ix_links_rate(NULL, &b, 1000000000, &r);
	cr_assert_eq(r.known, 0);
	ix_links_rate(&a, &b, 0, &r);
	cr_assert_eq(r.known, 0);
	ix_links_rate(&a, &b, -5, &r);
	cr_assert_eq(r.known, 0);
	/* Deleted and created again under the same name. */
	b.ifindex = 9;
	ix_links_rate(&a, &b, 1000000000, &r);
	cr_assert_eq(r.known, 0);
	cr_assert(r.reset);
	/* A 64-bit counter close to its end that wrapped: unknown, not huge. */
	a.rx_bytes = UINT64_MAX - 10;
	b.ifindex = 3;
	b.rx_bytes = 5;
	ix_links_rate(&a, &b, 1000000000, &r);
	cr_assert_eq(r.known, 0);
	cr_assert(r.reset);
	/* Known in one snapshot only. */
	a.rx_bytes = 0;
	b.known = 0;
	ix_links_rate(&a, &b, 1000000000, &r);
	cr_assert_eq(r.known, 0);
	cr_assert_not(r.reset);
}

Test(links, filters)
{
	struct ix_top_model m;
	char n1[] = "eth0", n2[] = "mlx5_0", n3[] = "nosuch", n4[] = "ens1f1";
	char *names[] = { n1, n2, n3 };
	struct ix_top_filter f = { .exclude_loopback = true };

	sample_both(&m, &f);
	cr_assert_null(ix_links_find(&m.cur, "lo"));
	cr_assert_not_null(ix_links_find(&m.cur, "veth1"));
	ix_top_model_free(&m);

	f.exclude_virtual = true;
	sample_both(&m, &f);
	cr_assert_null(ix_links_find(&m.cur, "lo"));
	cr_assert_null(ix_links_find(&m.cur, "veth1"));
	cr_assert_not_null(ix_links_find(&m.cur, "eth0"));
	ix_top_model_free(&m);

	f = (struct ix_top_filter){ .names = names, .nnames = 3 };
	sample_both(&m, &f);
	n1[0] = 'X'; /* the model keeps its own copy */
	cr_assert_eq(m.cur.n, 2);
	cr_assert_str_eq(m.cur.v[0].name, "eth0");
	cr_assert_str_eq(m.cur.v[1].name, "mlx5_0/1");
	cr_assert_eq(m.rates[0].rx_bps, 6.25e9);
	ix_top_model_free(&m);

	/* A RoCE port comes with its network device. */
	f.names = (char *[]){ n4 };
	f.nnames = 1;
	sample_both(&m, &f);
	cr_assert_eq(m.cur.n, 2);
	cr_assert_str_eq(m.cur.v[0].name, "ens1f1");
	cr_assert_str_eq(m.cur.v[1].name, "mlx5_1/1");
	ix_top_model_free(&m);
}

Test(links, missing_sysfs_is_an_error_and_keeps_the_model)
{
	struct ix_top_model m;
	struct ix_err err = { 0 };
	struct ix_links ls;

	cr_assert_eq(ix_links_read("/nonexistent/ixperf", &ls, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert_not_null(strstr(err.msg, "/nonexistent/ixperf/sys/class/net"), "%s", err.msg);
	sample_both(&m, NULL);
	cr_assert_eq(ix_top_model_sample(&m, "/nonexistent/ixperf", 5000000000, &err), -1);
	cr_assert_eq(m.samples, 2);
	cr_assert_eq(m.cur_ns, 3000000000);
	cr_assert_not_null(ix_links_find(&m.cur, "eth0"));
	ix_top_model_free(&m);
}

static void put(const char *dir, const char *file, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* A tree built at run time: a symlinked class entry as on a live system,
 * and no /sys/class/infiniband at all. */
Test(links, symlinked_virtual_device)
{
	char root[] = "/tmp/ixperf-links-XXXXXX", p[1024], q[2048], cmd[4096];
	struct ix_links ls;
	struct ix_err err = { 0 };
	const struct ix_link *l;

	cr_assert_not_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/sys/class/net", root);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s %s/sys/devices/virtual/net/veth7 "
		 "%s/sys/devices/pci0000:00/net/enp1s0",
		 p, root, root);
	cr_assert_eq(system(cmd), 0);
	snprintf(q, sizeof(q), "%s/veth7", p);
	cr_assert_eq(symlink("../../devices/virtual/net/veth7", q), 0);
	snprintf(q, sizeof(q), "%s/enp1s0", p);
	cr_assert_eq(symlink("../../devices/pci0000:00/net/enp1s0", q), 0);
	snprintf(q, sizeof(q), "%s/sys/devices/virtual/net/veth7", root);
	put(q, "mtu", "1500\n");
	snprintf(q, sizeof(q), "%s/sys/devices/pci0000:00/net/enp1s0", root);
	put(q, "speed", "garbage\n");

	cr_assert_eq(ix_links_read(root, &ls, &err), 0, "%s", err.msg);
	cr_assert_eq(ls.n, 2);
	l = must_find(&ls, "veth7");
	cr_assert(l->is_virtual);
	cr_assert_eq(l->mtu, 1500);
	cr_assert_eq(l->known, 0);
	l = must_find(&ls, "enp1s0");
	cr_assert_not(l->is_virtual);
	cr_assert_not(l->speed_known);
	cr_assert_not(l->mtu_known);
	ix_links_free(&ls);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	cr_assert_eq(system(cmd), 0);
}

static const struct ix_link_fabric *fabric_of(const struct ix_top_model *m, const char *name)
{
	return &m->fabric[must_find(&m->cur, name) - m->cur.v];
}

#define BIT(c) (1u << (c))

/* basic -> basic2, 2 s: eth0's netdev and ethtool counters (the fixture's
 * ethtool/eth0 files), the RoCE port's hw_counters. */
Test(links, fabric_rates_per_class)
{
	struct ix_top_model m;
	const struct ix_link_fabric *f;
	char buf[256];

	sample_both(&m, NULL);
	f = fabric_of(&m, "eth0");
	cr_assert(f->valid);
	cr_assert_eq(f->sources, BIT(IX_SRC_NETDEV) | BIT(IX_SRC_ETHTOOL), "0x%x", f->sources);
	cr_assert_eq(f->interval_s, 2.0);
	cr_assert_eq(f->has, BIT(IX_CC_DISCARD) | BIT(IX_CC_PAUSE_RX) | BIT(IX_CC_ERROR), "0x%x",
		     f->has);
	/* netdev rx_dropped +4, ethtool rx_discards_phy +24: the larger. */
	cr_assert_eq(f->rate[IX_CC_DISCARD], 12);
	cr_assert_eq(f->rate[IX_CC_PAUSE_RX], 400); /* prio3 +700, prio4 +100 */
	cr_assert_eq(f->rate[IX_CC_ERROR], 5);
	cr_assert_eq(f->rate[IX_CC_PAUSE_TX], 0);
	cr_assert_eq(f->nmoved, 5);
	cr_assert_eq(f->ntop, 5);
	cr_assert_str_eq(f->top[0].name, "rx_prio3_pause");
	cr_assert_eq(f->top[0].source, IX_SRC_ETHTOOL);
	cr_assert_eq(f->top[0].cls, IX_CC_PAUSE_RX);
	cr_assert_eq(f->top[0].delta, 700);
	cr_assert_str_eq(f->top[1].name, "rx_prio4_pause");
	cr_assert_str_eq(f->top[2].name, "rx_discards_phy");
	cr_assert_eq(f->top[2].delta, 24);
	cr_assert_str_eq(f->top[4].name, "rx_dropped");
	cr_assert_eq(f->top[4].source, IX_SRC_NETDEV);
	ix_link_fabric_text(f, ", ", buf, sizeof(buf));
	cr_assert_str_eq(buf, "drops 12/s, pause rx 400/s, errors 5/s");
	ix_link_fabric_names(f, 3, buf, sizeof(buf));
	cr_assert_str_eq(buf, "rx_prio3_pause, rx_prio4_pause, rx_discards_phy");

	/* The RoCE port: its hw_counters; a counter that went down is a
	 * reset, left out (local_ack_timeout_err 9 -> 5). */
	f = fabric_of(&m, "mlx5_1/1");
	cr_assert(f->valid);
	cr_assert_eq(f->sources, BIT(IX_SRC_HW) | BIT(IX_SRC_PORT), "0x%x", f->sources);
	cr_assert_eq(f->has, BIT(IX_CC_CNP_SENT) | BIT(IX_CC_ECN), "0x%x", f->has);
	cr_assert_eq(f->rate[IX_CC_CNP_SENT], 30);
	cr_assert_eq(f->rate[IX_CC_ECN], 5);
	cr_assert_eq(f->rate[IX_CC_RETRANS], 0);
	ix_link_fabric_text(f, "  ", buf, sizeof(buf));
	cr_assert_str_eq(buf, "ecn 5/s  cnp sent 30/s");
	/* ...which its network device does not count again. */
	f = fabric_of(&m, "ens1f1");
	cr_assert(f->valid);
	cr_assert_eq(f->sources, BIT(IX_SRC_NETDEV));
	cr_assert_eq(f->has, 0);
	ix_link_fabric_text(f, ", ", buf, sizeof(buf));
	cr_assert_str_eq(buf, "");
	/* An InfiniBand port's PMA counters. */
	f = fabric_of(&m, "mlx5_0/1");
	cr_assert_eq(f->rate[IX_CC_ERROR], 2);
	cr_assert_eq(f->rate[IX_CC_DISCARD], 1);
	/* Just appeared: no rates yet. */
	cr_assert_not(fabric_of(&m, "veth1")->valid);
	ix_top_model_free(&m);
}

Test(links, fabric_first_sample_and_recreated_device)
{
	struct ix_top_model m;
	struct ix_err err = { 0 };
	char root[] = "/tmp/ixperf-links-XXXXXX", cmd[8192], dir[4096];

	cr_assert_eq(ix_top_model_init(&m, NULL, &err), 0);
	cr_assert_eq(ix_top_model_sample(&m, basic, 1000000000, &err), 0, "%s", err.msg);
	cr_assert_not(fabric_of(&m, "eth0")->valid, "one snapshot: no rates");
	cr_assert(m.snaps[must_find(&m.cur, "eth0") - m.cur.v].valid);
	/* eth0 deleted and created again between two samples: its counters
	 * started again, so no rates rather than a reset's nonsense. */
	cr_assert_not_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -r %s/. %s", basic2, root);
	cr_assert_eq(system(cmd), 0);
	snprintf(dir, sizeof(dir), "%s/sys/class/net/eth0", root);
	put(dir, "ifindex", "77\n");
	cr_assert_eq(ix_top_model_sample(&m, root, 3000000000, &err), 0, "%s", err.msg);
	cr_assert_not(fabric_of(&m, "eth0")->valid);
	cr_assert(fabric_of(&m, "mlx5_1/1")->valid);
	ix_top_model_free(&m);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	cr_assert_eq(system(cmd), 0);
}

/* Hand-made snapshots: edge cases, the largest growths kept in order. */
Test(links, fabric_rates_edge_cases)
{
	struct ix_ctr_set a, b;
	struct ix_link_fabric f;
	char name[32], buf[64];

	ix_ctr_set_init(&a);
	ix_ctr_set_init(&b);
	a.valid = b.valid = true;
	a.sources = b.sources = BIT(IX_SRC_ETHTOOL);
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "rx_prio%d_pause", i);
		ix_ctr_set_add(&a, IX_SRC_ETHTOOL, name, 1000);
		ix_ctr_set_add(&b, IX_SRC_ETHTOOL, name, 1000 + (uint64_t)(i % 6) * 10);
	}
	ix_ctr_set_add(&a, IX_SRC_ETHTOOL, "rx_packets", 5);
	ix_ctr_set_add(&b, IX_SRC_ETHTOOL, "rx_packets", 500);
	cr_assert_eq(ix_link_fabric_rates(NULL, &b, 1000000000, &f), 0);
	cr_assert_not(f.valid);
	cr_assert_eq(ix_link_fabric_rates(&a, &b, 0, &f), 0);
	cr_assert_not(f.valid);
	cr_assert_eq(ix_link_fabric_rates(&a, &b, 4000000000, &f), 0);
	cr_assert(f.valid);
	cr_assert_eq(f.has, BIT(IX_CC_PAUSE_RX), "traffic is no class: 0x%x", f.has);
	cr_assert_eq(f.nmoved, 10, "two of each growth, zero growth left out");
	cr_assert_eq(f.ntop, IX_LINK_FABRIC_TOP);
	cr_assert_eq(f.rate[IX_CC_PAUSE_RX], 2 * (10 + 20 + 30 + 40 + 50) / 4.0);
	/* Largest first; equal growths by name. */
	cr_assert_str_eq(f.top[0].name, "rx_prio11_pause");
	cr_assert_str_eq(f.top[1].name, "rx_prio5_pause");
	cr_assert_eq(f.top[7].delta, 20);
	ix_link_fabric_clause(&f, IX_CC_PAUSE_RX, buf, sizeof(buf));
	cr_assert_str_eq(buf, "pause rx 75/s");
	cr_assert_eq(ix_link_fabric_clause(&f, IX_CC_DISCARD, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
	f.rate[IX_CC_PAUSE_RX] = 0.5;
	ix_link_fabric_clause(&f, IX_CC_PAUSE_RX, buf, sizeof(buf));
	cr_assert_str_eq(buf, "pause rx 0.5/s");
	f.rate[IX_CC_PAUSE_RX] = 123456;
	ix_link_fabric_clause(&f, IX_CC_PAUSE_RX, buf, sizeof(buf));
	cr_assert_str_eq(buf, "pause rx 123k/s");
	f.rate[IX_CC_PAUSE_RX] = 2.5e9;
	ix_link_fabric_clause(&f, IX_CC_PAUSE_RX, buf, sizeof(buf));
	cr_assert_str_eq(buf, "pause rx 2500M/s");
	/* A buffer too small for the whole clause: cut, terminated. */
	cr_assert_eq(ix_link_fabric_clause(&f, IX_CC_PAUSE_RX, buf, 6), 5);
	cr_assert_str_eq(buf, "pause");
	cr_assert(ix_link_fabric_alarm(IX_CC_DISCARD));
	cr_assert(ix_link_fabric_alarm(IX_CC_PAUSE_TX));
	cr_assert(ix_link_fabric_alarm(IX_CC_CNP_HANDLED));
	cr_assert(ix_link_fabric_alarm(IX_CC_RETRANS));
	cr_assert(ix_link_fabric_alarm(IX_CC_ERROR));
	cr_assert_not(ix_link_fabric_alarm(IX_CC_ECN));
	cr_assert_not(ix_link_fabric_alarm(IX_CC_XMIT_WAIT));
	cr_assert_not(ix_link_fabric_alarm(IX_CC_NONE));
	cr_assert_str_eq(ix_link_fabric_label(IX_CC_CNP_HANDLED), "cnp handled");
	ix_ctr_set_free(&a);
	ix_ctr_set_free(&b);
}

Test(links, history_ring)
{
	struct ix_link_history h = { 0 };
	double v[IX_LINKS_HISTORY + 5];

	cr_assert_eq(ix_links_history_get(&h, false, v, 10), 0);
	for (int i = 0; i < IX_LINKS_HISTORY + 10; i++)
		ix_links_history_push(&h, i, -i);
	cr_assert_eq(h.count, IX_LINKS_HISTORY);
	cr_assert_eq(ix_links_history_get(&h, false, v, IX_LINKS_HISTORY + 5), IX_LINKS_HISTORY);
	cr_assert_eq(v[0], 10);
	cr_assert_eq(v[IX_LINKS_HISTORY - 1], IX_LINKS_HISTORY + 9);
	cr_assert_eq(ix_links_history_get(&h, true, v, 3), 3);
	cr_assert_eq(v[0], -(IX_LINKS_HISTORY + 7));
	cr_assert_eq(v[2], -(IX_LINKS_HISTORY + 9));
}

Test(links, sparkline_utf8)
{
	double v[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, NAN, -3, 0.01 };
	char buf[64];

	cr_assert_eq(ix_sparkline(v, 12, 8, buf, sizeof(buf)), 1 + 8 * 3 + 2 + 3);
	cr_assert_str_eq(buf, " ▁▂▃▄▅▆▇█  ▁");
	/* max 0: the largest value; values above max are full blocks. */
	ix_sparkline(v + 1, 2, 0, buf, sizeof(buf));
	cr_assert_str_eq(buf, "▄█");
	ix_sparkline(v + 7, 2, 4, buf, sizeof(buf));
	cr_assert_str_eq(buf, "██");
	/* Only whole characters fit: 3 blocks need 10 bytes with the NUL. */
	cr_assert_eq(ix_sparkline(v + 1, 3, 8, buf, 9), 6);
	cr_assert_str_eq(buf, "▁▂");
	cr_assert_eq(ix_sparkline(v + 1, 3, 8, buf, 1), 0);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(ix_sparkline(v, 0, 8, buf, sizeof(buf)), 0);
	/* all unknown or zero: blanks */
	ix_sparkline(v + 9, 2, 0, buf, sizeof(buf));
	cr_assert_str_eq(buf, "  ");
}

Test(links, sparkline_ascii)
{
	double v[] = { 0, 1, 2, 3, 4, 5, 6, NAN };
	char buf[16];

	cr_assert_eq(ix_sparkline_ascii(v, 8, 6, buf, sizeof(buf)), 8);
	cr_assert_str_eq(buf, " ._-=^# ");
	cr_assert_eq(ix_sparkline_ascii(v, 8, 6, buf, 4), 3);
	cr_assert_str_eq(buf, " ._");
}

/* The live /sys of the machine running the tests. */
Test(links, live_sysfs_has_loopback)
{
	struct ix_top_model m;
	struct ix_err err = { 0 };
	const struct ix_link *lo;
	const struct ix_link_rate *r;

	cr_assert_eq(ix_top_model_init(&m, NULL, &err), 0);
	cr_assert_eq(ix_top_model_sample(&m, "", ix_now_ns(), &err), 0, "%s", err.msg);
	usleep(20000);
	cr_assert_eq(ix_top_model_sample(&m, NULL, ix_now_ns(), &err), 0, "%s", err.msg);
	lo = must_find(&m.cur, "lo");
	r = &m.rates[lo - m.cur.v];
	cr_assert(lo->is_loopback);
	cr_assert(lo->mtu_known && lo->mtu > 0);
	cr_assert(lo->known & IX_LINK_RX_BYTES);
	cr_assert(lo->known & IX_LINK_TX_BYTES);
	cr_assert_lt(lo->rx_bytes, 1ULL << 62);
	cr_assert_not(lo->speed_known);
	for (size_t i = 0; i < m.cur.n; i++) {
		const struct ix_link_rate *ri = &m.rates[i];

		cr_assert(!(ri->known & IX_LINK_RX_BYTES) ||
			  (ri->rx_bps >= 0 && isfinite(ri->rx_bps)));
		cr_assert(!(ri->known & IX_LINK_TX_BYTES) ||
			  (ri->tx_bps >= 0 && isfinite(ri->tx_bps)));
	}
	cr_assert_gt(r->interval_s, 0);
	ix_top_model_free(&m);
}
