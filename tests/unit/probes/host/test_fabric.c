/* Unit tests for probes/host/fabric.c: snapshots of the counters of real
 * NICs' names (mlx5 in RoCE and InfiniBand modes, bnxt, irdma with ice,
 * rdma_rxe) from fixture trees built before and after a test, checked
 * against the summary and the sentence; `ethtool -S` text; the live
 * system's loopback. */
#include "config.h"

#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/host/fabric.h"
#include "tests/unit/common.h"
#include "tests/unit/data.h"

struct nic {
	char root[64];
	char iface[32], device[32], rdma[72];
	char summary[1024], sentence[1024];
};

static void put(const char *root, const char *side, const char *path, const char *value)
{
	char full[1024], *slash;

	snprintf(full, sizeof(full), "%s/%s/%s", root, side, path);
	slash = strrchr(full, '/');
	*slash = '\0';
	ix_test_mkdirs(full);
	ix_test_put(full, slash + 1, value);
}

static void append(const char *root, const char *side, const char *iface, const char *line)
{
	char path[512];
	FILE *f;
	bool fresh;

	snprintf(path, sizeof(path), "%s/%s/ethtool", root, side);
	ix_test_mkdirs(path);
	snprintf(path, sizeof(path), "%s/%s/ethtool/%s", root, side, iface);
	fresh = access(path, F_OK) != 0;
	f = fopen(path, "a");
	cr_assert_not_null(f);
	if (fresh)
		fputs("NIC statistics:\n", f);
	fprintf(f, "     %s\n", line);
	fclose(f);
}

/* Build ROOT/before and ROOT/after from tests/data/fabric/NAME.txt. */
static void load(const char *name, struct nic *n)
{
	char path[512], line[1024];
	FILE *f;

	memset(n, 0, sizeof(*n));
	snprintf(n->root, sizeof(n->root), "/tmp/ixperf-fabric.XXXXXX");
	cr_assert_not_null(mkdtemp(n->root));
	snprintf(path, sizeof(path), "fabric/%s.txt", name);
	f = fopen(ix_test_data(path), "r");
	cr_assert_not_null(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		char a[512] = "", b[128] = "", c[64] = "", d[64] = "", kv[160];

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (sscanf(line, "iface %31s", n->iface) == 1 ||
		    sscanf(line, "device %31s", n->device) == 1 ||
		    sscanf(line, "rdma %71s", n->rdma) == 1)
			continue;
		if (strncmp(line, "summary", 7) == 0) {
			snprintf(n->summary, sizeof(n->summary), "%s", line[7] ? line + 8 : "");
		} else if (strncmp(line, "sentence", 8) == 0) {
			snprintf(n->sentence, sizeof(n->sentence), "%s", line[8] ? line + 9 : "");
		} else if (sscanf(line, "put %511s %127s", a, b) == 2) {
			put(n->root, "before", a, b);
			put(n->root, "after", a, b);
		} else if (sscanf(line, "dir %511s", a) == 1) {
			for (int s = 0; s < 2; s++) {
				char full[1024];

				snprintf(full, sizeof(full), "%s/%s/%s", n->root,
					 s ? "after" : "before", a);
				ix_test_mkdirs(full);
			}
		} else if (sscanf(line, "ctr %511s %63s %63s", a, c, d) == 3) {
			put(n->root, "before", a, c);
			put(n->root, "after", a, d);
		} else if (sscanf(line, "ethtool %127s %511s %63s %63s", b, a, c, d) == 4) {
			snprintf(kv, sizeof(kv), "%s: %s", a, c);
			append(n->root, "before", b, kv);
			snprintf(kv, sizeof(kv), "%s: %s", a, d);
			append(n->root, "after", b, kv);
		} else {
			cr_assert_fail("%s: cannot read '%s'", path, line);
		}
	}
	fclose(f);
}

static void unload(struct nic *n)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", n->root);
	cr_expect_eq(system(cmd), 0);
}

static void check_nic(const char *name)
{
	struct ix_fabric_where w = { 0 };
	struct ix_ctr_set before, after, moved;
	struct ix_ctr_sum sum;
	char root[128], buf[1024], want[1024], got[512] = "";
	struct nic n;
	size_t off = 0;

	load(name, &n);
	w.iface = n.iface;
	w.rdma_dev = n.device;
	snprintf(root, sizeof(root), "%s/before", n.root);
	ix_fabric_snapshot(root, &w, &before);
	snprintf(root, sizeof(root), "%s/after", n.root);
	ix_fabric_snapshot(root, &w, &after);
	cr_assert(before.valid && after.valid, "%s: nothing read", name);
	cr_expect_str_eq(after.rdma, n.rdma, "%s: RDMA port", name);
	cr_expect(after.sources & (1u << IX_SRC_NETDEV), "%s: netdev read", name);
	cr_assert_geq(ix_ctr_delta(&before, &after, &moved), 0);
	ix_ctr_summarize(&moved, &sum);
	for (int k = 1; k < IX_CC_N; k++)
		if (sum.has & (1u << k))
			off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%s=%llu",
						off ? " " : "", ix_ctr_class_key(k),
						(unsigned long long)sum.v[k]);
	snprintf(want, sizeof(want), "%s", n.summary);
	cr_expect_str_eq(got, want, "%s: summary", name);
	ix_ctr_sentence(&moved, buf, sizeof(buf));
	cr_expect_str_eq(buf, n.sentence, "%s: sentence", name);
	ix_ctr_set_free(&before);
	ix_ctr_set_free(&after);
	ix_ctr_set_free(&moved);
	unload(&n);
}

Test(fabric, mlx5_roce_by_interface)
{
	check_nic("mlx5-roce");
}

Test(fabric, mlx5_infiniband_through_ipoib)
{
	check_nic("mlx5-ib");
}

Test(fabric, bnxt_by_rdma_device)
{
	check_nic("bnxt");
}

Test(fabric, irdma_with_ice)
{
	check_nic("irdma");
}

Test(fabric, idle_rxe_moves_nothing_that_matters)
{
	check_nic("rxe-idle");
}

Test(fabric, ethtool_text_as_printed)
{
	static const char text[] = "NIC statistics:\n"
				   "     peer_ifindex: 7\n"
				   "     rx_queue_0_xdp_packets: 0\n"
				   "     rx_queue_0_drops: 12\n"
				   "     weird line without a value\n"
				   "     negative: -3\n"
				   "     rx_priority_3_xoff.nic: 5\n";
	struct ix_ctr_set s;

	ix_ctr_set_init(&s);
	cr_assert_eq(ix_fabric_parse_ethtool_text(text, &s), 4);
	cr_assert(s.sources & (1u << IX_SRC_ETHTOOL));
	cr_assert_str_eq(s.v[2].name, "rx_queue_0_drops");
	cr_assert_eq(s.v[2].value, 12);
	cr_assert_eq(s.v[2].cls, IX_CC_DISCARD);
	cr_assert_str_eq(s.v[3].name, "rx_priority_3_xoff.nic");
	ix_ctr_set_free(&s);
	ix_ctr_set_init(&s);
	cr_assert_eq(ix_fabric_parse_ethtool_text("no statistics here\n", &s), 0);
	cr_assert_not(s.valid);
}

/* An attribute of type t with n bytes of data at b + *off; *off past it. */
static struct rtattr *put_attr(char *b, size_t *off, unsigned short t, const void *d, size_t n)
{
	struct rtattr *a = (struct rtattr *)(b + *off);

	a->rta_type = t;
	a->rta_len = (unsigned short)RTA_LENGTH(n);
	if (d)
		memcpy(RTA_DATA(a), d, n);
	*off += RTA_ALIGN(a->rta_len);
	return a;
}

/* The answers as the kernel sends them: an RTM_NEWLINK with IFLA_STATS64,
 * a qdisc dump of two interfaces ending in NLMSG_DONE; a truncated message
 * reads nothing. */
Test(fabric, rtnetlink_answers_read_from_bytes)
{
	static uint64_t buf[512];
	char *b = (char *)buf;
	struct nlmsghdr *nh = (struct nlmsghdr *)b;
	struct rtnl_link_stats64 st = { .rx_bytes = 1000, .tx_dropped = 7 };
	struct gnet_stats_queue q = { .drops = 3, .overlimits = 5 };
	struct rtattr *st2;
	struct ix_ctr_set s;
	size_t off, start;

	memset(buf, 0, sizeof(buf));
	nh->nlmsg_type = RTM_NEWLINK;
	((struct ifinfomsg *)NLMSG_DATA(nh))->ifi_index = 2;
	off = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	put_attr(b, &off, IFLA_IFNAME, "eth0", 5);
	put_attr(b, &off, IFLA_STATS64, &st, sizeof(st));
	nh->nlmsg_len = (uint32_t)off;
	ix_ctr_set_init(&s);
	cr_assert(ix_fabric_parse_rtnl(b, off, false, 2, &s), "a single answer is over");
	cr_assert_eq(s.n, 24);
	cr_assert_str_eq(s.v[2].name, "rx_bytes");
	cr_assert_eq(s.v[2].value, 1000);
	cr_assert_str_eq(s.v[7].name, "tx_dropped");
	cr_assert_eq(s.v[7].value, 7);
	ix_ctr_set_free(&s);
	ix_ctr_set_init(&s);
	ix_fabric_parse_rtnl(b, off, false, 3, &s);
	cr_assert_eq(s.n, 0, "another interface's");
	ix_fabric_parse_rtnl(b, off - 8, false, 2, &s);
	cr_assert_eq(s.n, 0, "a truncated message");
	ix_ctr_set_free(&s);

	memset(buf, 0, sizeof(buf));
	start = 0;
	for (int ifindex = 3; ifindex >= 2; ifindex--) {
		struct tcmsg *tc;

		nh = (struct nlmsghdr *)(b + start);
		nh->nlmsg_type = RTM_NEWQDISC;
		tc = NLMSG_DATA(nh);
		tc->tcm_ifindex = ifindex;
		tc->tcm_parent = TC_H_ROOT;
		off = start + NLMSG_LENGTH(sizeof(*tc));
		put_attr(b, &off, TCA_KIND, "fq_codel", 9);
		st2 = put_attr(b, &off, TCA_STATS2, NULL, 0);
		put_attr(b, &off, TCA_STATS_QUEUE, &q, sizeof(q));
		st2->rta_len = (unsigned short)((b + off) - (char *)st2);
		nh->nlmsg_len = (uint32_t)(off - start);
		start = NLMSG_ALIGN(off);
	}
	ix_ctr_set_init(&s);
	cr_assert_not(ix_fabric_parse_rtnl(b, start, true, 2, &s), "a dump goes on to DONE");
	cr_assert_eq(s.n, 3);
	cr_assert_str_eq(s.v[0].name, "fq_codel_drops");
	cr_assert_eq(s.v[0].value, 3);
	cr_assert_eq(s.v[1].value, 5);
	nh = (struct nlmsghdr *)(b + start);
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(int));
	cr_assert(ix_fabric_parse_rtnl(b, start + nh->nlmsg_len, true, 9, &s));
	cr_assert_eq(s.n, 3);
	ix_ctr_set_free(&s);
}

Test(fabric, missing_everything_is_not_valid)
{
	struct ix_fabric_where w = { .iface = "nosuch0" };
	struct ix_ctr_set s;

	ix_fabric_snapshot("/nonexistent-root", &w, &s);
	cr_assert_not(s.valid);
	cr_assert_eq(s.n, 0);
	w.iface = NULL;
	ix_fabric_snapshot("/nonexistent-root", &w, &s);
	cr_assert_not(s.valid);
}

Test(fabric, live_loopback_socket_and_counters)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	struct ix_fabric_where w = { .iface = "lo" };
	struct ix_ctr_set s;
	char iface[32] = "";
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(ix_fabric_iface_of_socket(fd, iface, sizeof(iface)), 0);
	cr_assert_str_eq(iface, "lo");
	close(fd);
	ix_fabric_snapshot(NULL, &w, &s);
	cr_assert(s.valid);
	cr_assert(s.sources & (1u << IX_SRC_NETDEV), "lo has netdev statistics");
	cr_assert_str_eq(s.rdma, "");
	ix_ctr_set_free(&s);
}

static uint64_t sysfs_stat(const char *name)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/lo/statistics/%s", name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

/* The live netdev statistics come from rtnetlink, named and valued as the
 * sysfs files: between two reads of the file, never outside them. */
Test(fabric, live_netdev_statistics_are_the_sysfs_ones)
{
	struct ix_fabric_where w = { .iface = "lo", .sources = 1u << IX_SRC_NETDEV };
	static const char *const names[] = { "rx_packets", "tx_bytes",   "rx_dropped",
					     "rx_errors",  "tx_dropped", "rx_nohandler" };
	struct ix_ctr_set s;
	uint64_t lo[6], hi[6];

	for (size_t i = 0; i < 6; i++)
		lo[i] = sysfs_stat(names[i]);
	ix_fabric_snapshot(NULL, &w, &s);
	for (size_t i = 0; i < 6; i++)
		hi[i] = sysfs_stat(names[i]);
	cr_assert_geq(s.n, 23, "%zu counters", s.n);
	for (size_t i = 0; i < 6; i++) {
		size_t k = 0;

		while (k < s.n && strcmp(s.v[k].name, names[i]) != 0)
			k++;
		cr_assert_lt(k, s.n, "no %s", names[i]);
		cr_assert(s.v[k].value >= lo[i] && s.v[k].value <= hi[i],
			  "%s: %llu not in [%llu, %llu]", names[i],
			  (unsigned long long)s.v[k].value, (unsigned long long)lo[i],
			  (unsigned long long)hi[i]);
	}
	ix_ctr_set_free(&s);
}
