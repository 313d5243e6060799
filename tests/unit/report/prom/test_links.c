/* Unit tests for report/prom/links.c: a model built by hand rendered as
 * metrics; each family written once with its samples together, figures
 * not read left out, fabric counters summed by class (the largest
 * source) and pause frames by priority. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/prom/prom.h"
#include "tests/unit/report/prom/memout.h"

static struct ix_link links[3];
static struct ix_link_rate rates[3];
static struct ix_ctr_set snaps[3];
static struct ix_top_model model;

static void build(void)
{
	memset(links, 0, sizeof(links));
	memset(rates, 0, sizeof(rates));
	snprintf(links[0].name, sizeof(links[0].name), "eth0");
	snprintf(links[0].state, sizeof(links[0].state), "up");
	links[0].known = IX_LINK_RX_BYTES | IX_LINK_TX_BYTES;
	links[0].rx_bytes = 100;
	links[0].tx_bytes = 18446744073709551615ull;
	links[0].speed_known = true;
	links[0].speed_bps = 1e10;
	rates[0].known = IX_LINK_RX_BYTES;
	rates[0].rx_bps = 800;
	snprintf(links[1].name, sizeof(links[1].name), "lo");
	snprintf(links[1].state, sizeof(links[1].state), "unknown");
	links[1].mtu_known = true;
	links[1].mtu = 65536;
	snprintf(links[2].name, sizeof(links[2].name), "mlx5_0/1");
	snprintf(links[2].dev, sizeof(links[2].dev), "mlx5_0");
	snprintf(links[2].netdev, sizeof(links[2].netdev), "ens1f0");
	snprintf(links[2].state, sizeof(links[2].state), "DOWN");
	links[2].kind = IX_LINK_IB;
	links[2].port = 1;
	links[2].known = IX_LINK_SYMBOL_ERRORS;
	links[2].symbol_errors = 4;
	for (int i = 0; i < 3; i++) {
		ix_ctr_set_free(&snaps[i]);
		ix_ctr_set_init(&snaps[i]);
		snaps[i].valid = true;
	}
	/* eth0: drops in two sources (the larger counts), pause per priority. */
	ix_ctr_set_add(&snaps[0], IX_SRC_NETDEV, "rx_dropped", 4);
	ix_ctr_set_add(&snaps[0], IX_SRC_ETHTOOL, "rx_discards_phy", 9);
	ix_ctr_set_add(&snaps[0], IX_SRC_ETHTOOL, "rx_prio3_pause", 10);
	ix_ctr_set_add(&snaps[0], IX_SRC_ETHTOOL, "rx_prio4_pause", 0);
	ix_ctr_set_add(&snaps[0], IX_SRC_ETHTOOL, "tx_pause_ctrl_phy", 6);
	ix_ctr_set_add(&snaps[0], IX_SRC_ETHTOOL, "rx_packets", 77);
	/* the RDMA port: CNPs, ECN, retransmissions. */
	ix_ctr_set_add(&snaps[2], IX_SRC_HW, "np_cnp_sent", 5);
	ix_ctr_set_add(&snaps[2], IX_SRC_HW, "rp_cnp_handled", 3);
	ix_ctr_set_add(&snaps[2], IX_SRC_HW, "np_ecn_marked_roce_packets", 2);
	ix_ctr_set_add(&snaps[2], IX_SRC_HW, "local_ack_timeout_err", 1);
	memset(&model, 0, sizeof(model));
	model.cur = (struct ix_links){ links, 3 };
	model.rates = rates;
	model.snaps = snaps;
}

static char *render(void)
{
	struct buf b;

	open_buf(&b);
	ix_prom_links(b.f, &model, NULL);
	return close_buf(&b);
}

/* Every sample under the family of its name, each family once. */
static void grouped(const char *text)
{
	char family[128] = "", seen[8192] = " ";
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];

		cr_assert_lt(n, sizeof(line));
		memcpy(line, p, n);
		line[n] = '\0';
		if (!strncmp(line, "# TYPE ", 7)) {
			char key[140];

			sscanf(line + 7, "%127s", family);
			snprintf(key, sizeof(key), " %s ", family);
			cr_assert_null(strstr(seen, key), "%s twice", family);
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s ", family);
		} else if (line[0] != '#') {
			size_t k = strcspn(line, "{ ");

			cr_assert(k == strlen(family) && !strncmp(line, family, k),
				  "'%s' outside its family (%s)", line, family);
		}
		p += n + (nl ? 1 : 0);
	}
}

Test(links, counters_and_gauges)
{
	char *s;

	build();
	s = render();
	grouped(s);
	names_follow_the_rules(s);
	cr_assert(strstr(s, "# TYPE ixperf_receive_bytes_total counter\n"
			    "ixperf_receive_bytes_total{interface=\"eth0\"} 100\n"));
	cr_assert(strstr(s,
			 "ixperf_transmit_bytes_total{interface=\"eth0\"} 18446744073709551615\n"));
	cr_assert(!strstr(s, "ixperf_receive_errors_total"), "not read: left out");
	cr_assert(strstr(s, "ixperf_symbol_errors_total{device=\"mlx5_0\",port=\"1\"} 4\n"));
	cr_assert(strstr(s, "ixperf_link_up{interface=\"eth0\"} 1\n"));
	cr_assert(strstr(s, "ixperf_link_up{device=\"mlx5_0\",port=\"1\"} 0\n"));
	cr_assert(!strstr(s, "ixperf_link_up{interface=\"lo\"}"), "unknown state: left out");
	cr_assert(strstr(s, "ixperf_link_speed_bytes_per_second{interface=\"eth0\"} 1250000000\n"));
	cr_assert(strstr(s, "ixperf_link_mtu_bytes{interface=\"lo\"} 65536\n"));
	cr_assert(strstr(s, "ixperf_receive_bytes_per_second{interface=\"eth0\"} 100\n"));
	cr_assert(!strstr(s, "ixperf_transmit_bytes_per_second"), "rate unknown: left out");
	cr_assert(!strstr(s, "ixperf_link_utilization_ratio"));
	cr_assert(strstr(
		s, "ixperf_rdma_port_info{device=\"mlx5_0\",port=\"1\",interface=\"ens1f0\"} 1\n"));
	free(s);
}

Test(links, fabric_classes)
{
	char *s;

	build();
	s = render();
	cr_assert(strstr(
		s, "ixperf_pause_frames_received_total{interface=\"eth0\",priority=\"3\"} 10\n"));
	cr_assert(
		strstr(s,
		       "ixperf_pause_frames_received_total{interface=\"eth0\",priority=\"4\"} 0\n"),
		"a counter read at 0 is a sample");
	cr_assert(strstr(
		s, "ixperf_pause_frames_sent_total{interface=\"eth0\",priority=\"link\"} 6\n"));
	cr_assert(
		strstr(s, "ixperf_fabric_events_total{interface=\"eth0\",class=\"discards\"} 9\n"),
		"the larger source's drops:\n%s", s);
	has_lines(s,
		  (const char *const[]){
			  "ixperf_cnp_sent_total{device=\"mlx5_0\",port=\"1\"} 5\n",
			  "ixperf_cnp_handled_total{device=\"mlx5_0\",port=\"1\"} 3\n",
			  "ixperf_ecn_marked_packets_total{device=\"mlx5_0\",port=\"1\"} 2\n",
			  "ixperf_retransmissions_total{device=\"mlx5_0\",port=\"1\"} 1\n",
		  },
		  4);
	cr_assert(!strstr(s, "ixperf_cnp_sent_total{interface"), "no CNP counter on eth0");
	free(s);
}

Test(links, label_values_from_outside_are_escaped)
{
	char *s;

	build();
	snprintf(links[0].name, sizeof(links[0].name), "e\"v\\il\n");
	s = render();
	cr_assert(strstr(s, "ixperf_receive_bytes_total{interface=\"e\\\"v\\\\il\\n\"} 100\n"));
	free(s);
}

Test(links, no_links_no_samples)
{
	char *s;

	build();
	model.cur.n = 0;
	s = render();
	cr_assert_str_eq(s, "");
	free(s);
}

Test(links, invalid_snapshots_count_nothing)
{
	char *s;

	build();
	for (int i = 0; i < 3; i++)
		snaps[i].valid = false;
	s = render();
	cr_assert(!strstr(s, "ixperf_pause_frames"));
	cr_assert(!strstr(s, "ixperf_fabric_events_total"));
	free(s);
}
