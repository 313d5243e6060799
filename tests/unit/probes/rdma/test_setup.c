/* Unit tests for probes/rdma/setup.c: GID choice on sysfs trees built
 * here (RoCE ports with several netdevs, a VLAN, v1 only, InfiniBand, no
 * GIDs), RoCE MTUs and NUMA placement (probes/rdma/setup_msg.c has
 * test_setup_msg.c). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "probes/rdma/setup.h"
#include "tests/unit/common.h"

static char root[256];

/* ROOT/rel (directories made), holding value and a newline. */
static void put(const char *rel, const char *value)
{
	char path[1024], dir[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	ix_test_mkdirs(dir);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fprintf(f, "%s\n", value);
	fclose(f);
}

#define ZERO_GID "0000:0000:0000:0000:0000:0000:0000:0000"
#define LL_GID   "fe80:0000:0000:0000:0e42:a1ff:fe2b:c3d4"
#define V4(x)    "0000:0000:0000:0000:0000:ffff:" x

/* A port of DEV with n GID slots, all unused. */
static void port(const char *dev, const char *link_layer, const char *lid, int n)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/link_layer", dev);
	put(rel, link_layer);
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/lid", dev);
	put(rel, lid);
	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/gids/%d", dev, i);
		put(rel, ZERO_GID);
	}
}

/* GID idx of DEV port 1; type NULL for an InfiniBand port. */
static void gid(const char *dev, int idx, const char *g, const char *type, const char *ndev)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/gids/%d", dev, idx);
	put(rel, g);
	if (!type)
		return;
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/gid_attrs/types/%d", dev, idx);
	put(rel, type);
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/%d", dev, idx);
	put(rel, ndev);
}

#define V1 "IB/RoCE v1"
#define V2 "RoCE v2"

/* mlx5_0: ens1f0 (10.0.0.1, fd00::1) and its VLAN ens1f0.100 (10.100.0.1);
 * mlx5_1: ens2f0 with link-local GIDs only; mlx5_2: RoCE v1 only, NUMA
 * node 1; mlx5_3: InfiniBand, LID 0x1a; mlx5_4: InfiniBand without LID;
 * mlx5_5: RoCE without any GID. NUMA nodes 0, 1 and a memory-only 2. */
static void fixtures(void)
{
	char tmpl[] = "/tmp/ixperf-rdma-XXXXXX", vlan[512];

	cr_assert_not_null(mkdtemp(tmpl));
	snprintf(root, sizeof(root), "%s", tmpl);
	port("mlx5_0", "Ethernet", "0x0", 16);
	gid("mlx5_0", 0, LL_GID, V1, "ens1f0");
	gid("mlx5_0", 1, LL_GID, V2, "ens1f0");
	gid("mlx5_0", 2, V4("0a00:0001"), V1, "ens1f0");
	gid("mlx5_0", 3, V4("0a00:0001"), V2, "ens1f0");
	gid("mlx5_0", 4, "fd00:0000:0000:0000:0000:0000:0000:0001", V1, "ens1f0");
	gid("mlx5_0", 5, "fd00:0000:0000:0000:0000:0000:0000:0001", V2, "ens1f0");
	gid("mlx5_0", 6, V4("0a64:0001"), V1, "ens1f0.100");
	gid("mlx5_0", 7, V4("0a64:0001"), V2, "ens1f0.100");
	snprintf(vlan, sizeof(vlan), "%s/sys/class/net/ens1f0.100/lower_ens1f0", root);
	ix_test_mkdirs(vlan);
	port("mlx5_1", "Ethernet", "0x0", 4);
	gid("mlx5_1", 0, "fe80:0000:0000:0000:0e42:a1ff:fe2b:0001", V1, "ens2f0");
	gid("mlx5_1", 1, "fe80:0000:0000:0000:0e42:a1ff:fe2b:0001", V2, "ens2f0");
	port("mlx5_2", "Ethernet", "0x0", 4);
	gid("mlx5_2", 0, "fe80:0000:0000:0000:0e42:a1ff:fe2b:0002", V1, "ens3f0");
	gid("mlx5_2", 1, V4("0a03:0001"), V1, "ens3f0");
	put("sys/class/infiniband/mlx5_2/device/numa_node", "1");
	port("mlx5_3", "InfiniBand", "0x1a", 2);
	gid("mlx5_3", 0, "fe80:0000:0000:0000:0002:c903:0001:0002", NULL, NULL);
	port("mlx5_4", "InfiniBand", "0x0", 1);
	gid("mlx5_4", 0, "fe80:0000:0000:0000:0002:c903:0001:0003", NULL, NULL);
	port("mlx5_5", "Ethernet", "0x0", 8);
	put("sys/devices/system/node/node0/cpulist", "4-7,12-15");
	put("sys/devices/system/node/node1/cpulist", "0-3,8-11");
	put("sys/devices/system/node/node2/cpulist", "");
}

static void cleanup(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(gid, .init = fixtures, .fini = cleanup);
TestSuite(numa, .init = fixtures, .fini = cleanup);

static struct ix_rdma_addr host[8];
static size_t nhost;

static struct sockaddr_storage ip(const char *text)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, text, &in->sin_addr) == 1)
		in->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1)
		in6->sin6_family = AF_INET6;
	else
		cr_assert_fail("bad address %s", text);
	return ss;
}

static void addr(const char *ifname, const char *text)
{
	snprintf(host[nhost].ifname, sizeof(host[nhost].ifname), "%s", ifname);
	host[nhost++].addr = ip(text);
}

/* This host: a management eth0, lo, and the RDMA interfaces. */
static void addrs(void)
{
	nhost = 0;
	addr("lo", "127.0.0.1");
	addr("eth0", "192.168.1.10");
	addr("ens1f0", "fe80::e42:a1ff:fe2b:c3d4");
	addr("ens1f0", "10.0.0.1");
	addr("ens1f0", "fd00::1");
	addr("ens1f0.100", "10.100.0.1");
	addr("ens2f0", "10.2.0.1");
	addr("ens3f0", "10.3.0.1");
}

static int run_pick(const char *dev, const char *local, const struct ix_rdma_gid_pref *pref,
		    struct ix_rdma_gid *g, struct ix_err *err)
{
	struct sockaddr_storage ss;

	addrs();
	if (local)
		ss = ip(local);
	return ix_rdma_pick_gid(root, dev, 1, local ? &ss : NULL, host, nhost, pref, g, err);
}

static struct ix_rdma_gid pick(const char *dev, const char *local,
			       const struct ix_rdma_gid_pref *pref)
{
	struct ix_rdma_gid g;
	struct ix_err err = { 0 };

	cr_assert_eq(run_pick(dev, local, pref, &g, &err), 0, "%s", err.msg);
	cr_assert_not_null(strchr(g.reason, ' '));
	return g;
}

/* The pick must fail with code and a message containing each part. */
static void pick_fails(const char *dev, const char *local, const struct ix_rdma_gid_pref *pref,
		       int code, const char *part1, const char *part2)
{
	struct ix_rdma_gid g;
	struct ix_err err = { 0 };

	cr_assert_eq(run_pick(dev, local, pref, &g, &err), -1, "picked %d (%s)", g.index, g.reason);
	cr_assert_eq(err.code, code, "%d: %s", err.code, err.msg);
	cr_assert_not_null(strstr(err.msg, part1), "'%s' lacks '%s'", err.msg, part1);
	if (part2)
		cr_assert_not_null(strstr(err.msg, part2), "'%s' lacks '%s'", err.msg, part2);
}

Test(gid, ipv4_mapped_on_the_routed_netdev)
{
	struct ix_rdma_gid g = pick("mlx5_0", "10.0.0.1", NULL);

	cr_assert_eq(g.index, 3);
	cr_assert_eq(g.type, IX_RDMA_GID_ROCE_V2);
	cr_assert_str_eq(g.netdev, "ens1f0");
	cr_assert_str_eq(g.text, "0000:0000:0000:0000:0000:ffff:0a00:0001");
	cr_assert_not(g.infiniband);
	cr_assert_not_null(strstr(g.reason, "10.0.0.1"), "%s", g.reason);
	/* The same address seen through an IPv6 socket. */
	cr_assert_eq(pick("mlx5_0", "::ffff:10.0.0.1", NULL).index, 3);
}

Test(gid, ipv6_peer)
{
	struct ix_rdma_gid g = pick("mlx5_0", "fd00::1", NULL);

	cr_assert_eq(g.index, 5);
	cr_assert_not_null(strstr(g.reason, "fd00::1"), "%s", g.reason);
}

Test(gid, vlan_netdev)
{
	struct ix_rdma_gid g = pick("mlx5_0", "10.100.0.1", NULL);

	cr_assert_eq(g.index, 7);
	cr_assert_str_eq(g.netdev, "ens1f0.100");
	cr_assert_not_null(strstr(g.reason, "ens1f0.100 (over ens1f0)"), "%s", g.reason);
}

Test(gid, any_v2_when_no_gid_holds_the_address)
{
	struct ix_rdma_gid g = pick("mlx5_1", "10.2.0.1", NULL);

	cr_assert_eq(g.index, 1);
	cr_assert_not_null(strstr(g.reason, "no RoCE v2 GID holds 10.2.0.1"), "%s", g.reason);
}

Test(gid, v1_only_falls_back)
{
	struct ix_rdma_gid g = pick("mlx5_2", "10.3.0.1", NULL);

	cr_assert_eq(g.index, 1);
	cr_assert_eq(g.type, IX_RDMA_GID_ROCE_V1);
	cr_assert_not_null(strstr(g.reason, "RoCE v1"), "%s", g.reason);
}

Test(gid, preferences)
{
	struct ix_rdma_gid_pref v1 = { .type = "v1" }, six = { .family = AF_INET6 };
	struct ix_rdma_gid_pref bad = { .type = "v3" };

	cr_assert_eq(pick("mlx5_0", NULL, NULL).index, 3); /* the first routable v2 GID */
	cr_assert_eq(pick("mlx5_0", "10.0.0.1", &v1).index, 2);
	cr_assert_eq(pick("mlx5_0", "10.0.0.1", &six).index, 5);
	pick_fails("mlx5_0", "10.0.0.1", &bad, IX_EXIT_USAGE, "--gid-type", NULL);
}

Test(gid, explicit_index)
{
	struct ix_rdma_gid_pref p = { .by_index = true, .index = 5 };
	struct ix_rdma_gid g = pick("mlx5_0", "10.0.0.1", &p);

	cr_assert_eq(g.index, 5);
	cr_assert_not_null(strstr(g.reason, "as asked"), "%s", g.reason);
	p.index = 8;
	pick_fails("mlx5_0", "10.0.0.1", &p, IX_EXIT_UNAVAILABLE, "index 8", "not in use");
	p.index = 40;
	pick_fails("mlx5_0", "10.0.0.1", &p, IX_EXIT_UNAVAILABLE, "index 40", "out of range");
	p.index = 300;
	pick_fails("mlx5_0", "10.0.0.1", &p, IX_EXIT_USAGE, "--gid-index", NULL);
}

Test(gid, no_gid_on_the_routed_netdev)
{
	pick_fails("mlx5_0", "192.168.1.10", NULL, IX_EXIT_UNAVAILABLE,
		   "has no RoCE v2 GID on eth0", "its GIDs are on ens1f0, ens1f0.100");
	pick_fails("mlx5_0", "192.168.1.10", NULL, IX_EXIT_UNAVAILABLE, "`rdma link`", "ip addr");
	pick_fails("mlx5_0", "10.9.9.9", NULL, IX_EXIT_UNAVAILABLE, "no interface holds",
		   "10.9.9.9");
}

Test(gid, infiniband_port)
{
	struct ix_rdma_gid_pref p = { .by_index = true, .index = 1 };
	struct ix_rdma_gid g = pick("mlx5_3", "10.0.0.1", NULL);

	cr_assert_eq(g.index, 0);
	cr_assert(g.infiniband);
	cr_assert_eq(g.type, IX_RDMA_GID_IB);
	cr_assert_eq(g.lid, 0x1a);
	cr_assert_str_eq(g.text, "fe80:0000:0000:0000:0002:c903:0001:0002");
	pick_fails("mlx5_3", NULL, &p, IX_EXIT_UNAVAILABLE, "index 1", "not in use");
	pick_fails("mlx5_4", NULL, NULL, IX_EXIT_UNAVAILABLE, "no LID", "subnet manager");
}

Test(gid, no_gids_or_no_port)
{
	pick_fails("mlx5_5", "10.0.0.1", NULL, IX_EXIT_UNAVAILABLE, "mlx5_5 port 1 has no GIDs",
		   NULL);
	pick_fails("mlx5_9", NULL, NULL, IX_EXIT_UNAVAILABLE, "no RDMA port mlx5_9/1", NULL);
	pick_fails("../mlx5_0", NULL, NULL, IX_EXIT_USAGE, "not an RDMA device", NULL);
}

Test(gid_text, format_and_parse)
{
	uint8_t raw[16], back[16];
	char text[IX_RDMA_GID_TEXT];

	for (int i = 0; i < 16; i++)
		raw[i] = (uint8_t)(i * 17);
	ix_rdma_gid_format(raw, text);
	cr_assert_str_eq(text, "0011:2233:4455:6677:8899:aabb:ccdd:eeff");
	cr_assert_eq(ix_rdma_gid_parse("0011:2233:4455:6677:8899:AABB:CCDD:EEFF", back), 0);
	cr_assert_arr_eq(raw, back, 16);
	cr_assert_eq(ix_rdma_gid_parse("fe80::1", back), -1);
	cr_assert_eq(ix_rdma_gid_parse("0011:2233:4455:6677:8899:aabb:ccdd:eefg", back), -1);
	cr_assert_eq(ix_rdma_gid_parse("0011:2233:4455:6677:8899:aabb:ccdd-eeff", back), -1);
	cr_assert_eq(ix_rdma_gid_parse("0011:2233:4455:6677:8899:aabb:ccdd:eeff:", back), -1);
}

Test(gid_text, host_addresses)
{
	struct ix_rdma_addr *a;
	size_t n;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_rdma_addrs_read(&a, &n, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < n; i++) {
		cr_assert(a[i].addr.ss_family == AF_INET || a[i].addr.ss_family == AF_INET6);
		cr_assert_neq(a[i].ifname[0], '\0');
	}
	free(a);
}

/* ---- MTU ---- */

Test(mtu, from_netdev)
{
	cr_assert_eq(ix_rdma_mtu_from_netdev(1500), IX_RDMA_MTU_1024);
	cr_assert_eq(ix_rdma_mtu_from_netdev(4200), IX_RDMA_MTU_4096);
	cr_assert_eq(ix_rdma_mtu_from_netdev(9000), IX_RDMA_MTU_4096);
	/* 96 bytes of headers: 1024 + 96 is the least for 1024. */
	cr_assert_eq(ix_rdma_mtu_from_netdev(1120), IX_RDMA_MTU_1024);
	cr_assert_eq(ix_rdma_mtu_from_netdev(1119), IX_RDMA_MTU_512);
	cr_assert_eq(ix_rdma_mtu_from_netdev(1024), IX_RDMA_MTU_512);
	cr_assert_eq(ix_rdma_mtu_from_netdev(4192), IX_RDMA_MTU_4096);
	cr_assert_eq(ix_rdma_mtu_from_netdev(4191), IX_RDMA_MTU_2048);
	cr_assert_eq(ix_rdma_mtu_from_netdev(352), IX_RDMA_MTU_256);
	cr_assert_eq(ix_rdma_mtu_from_netdev(351), 0);
	cr_assert_eq(ix_rdma_mtu_from_netdev(0), 0);
}

Test(mtu, bytes_and_path)
{
	cr_assert_eq(ix_rdma_mtu_bytes(IX_RDMA_MTU_256), 256);
	cr_assert_eq(ix_rdma_mtu_bytes(IX_RDMA_MTU_4096), 4096);
	cr_assert_eq(ix_rdma_mtu_bytes(0), -1);
	cr_assert_eq(ix_rdma_mtu_bytes(6), -1);
	cr_assert_eq(ix_rdma_mtu_from_bytes(1024), IX_RDMA_MTU_1024);
	cr_assert_eq(ix_rdma_mtu_from_bytes(1500), -1);
	cr_assert_eq(ix_rdma_path_mtu(IX_RDMA_MTU_4096, IX_RDMA_MTU_1024, 0), IX_RDMA_MTU_1024);
	cr_assert_eq(ix_rdma_path_mtu(IX_RDMA_MTU_2048, IX_RDMA_MTU_4096, 0), IX_RDMA_MTU_2048);
	cr_assert_eq(ix_rdma_path_mtu(IX_RDMA_MTU_4096, IX_RDMA_MTU_4096, IX_RDMA_MTU_512),
		     IX_RDMA_MTU_512);
	cr_assert_eq(ix_rdma_path_mtu(IX_RDMA_MTU_1024, IX_RDMA_MTU_4096, IX_RDMA_MTU_4096),
		     IX_RDMA_MTU_1024);
	cr_assert_eq(ix_rdma_path_mtu(0, IX_RDMA_MTU_4096, 0), -1);
	cr_assert_eq(ix_rdma_path_mtu(IX_RDMA_MTU_1024, IX_RDMA_MTU_4096, 7), -1);
}

/* ---- NUMA ---- */

Test(numa, device_node_and_cpus)
{
	cpu_set_t cpus;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_rdma_numa_of(root, "mlx5_2"), 1);
	cr_assert_eq(ix_rdma_numa_of(root, "mlx5_0"), -1); /* not in the fixture */
	cr_assert_eq(ix_rdma_numa_of(root, "mlx5_7"), -1);
	cr_assert_eq(ix_rdma_cpus_of_node(root, 1, &cpus, &err), 8, "%s", err.msg);
	for (int c = 0; c < 16; c++)
		cr_assert_eq(!!CPU_ISSET(c, &cpus), (c >= 0 && c <= 3) || (c >= 8 && c <= 11),
			     "cpu %d", c);
	cr_assert_eq(ix_rdma_cpus_of_node(root, 2, &cpus, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_cpus_of_node(root, 7, &cpus, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
}

Test(numa, cpulist)
{
	cpu_set_t s;
	const char *bad[] = { "3-1", "0-", ",1", "1,", "a", "1-2-3", "99999", "1 2", "-1" };

	cr_assert_eq(ix_rdma_parse_cpulist("", &s), 0);
	cr_assert_eq(ix_rdma_parse_cpulist("5", &s), 1);
	cr_assert(CPU_ISSET(5, &s));
	cr_assert_eq(ix_rdma_parse_cpulist("0-3,8-11", &s), 8);
	cr_assert_eq(ix_rdma_parse_cpulist("0,2,4-5", &s), 4);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(ix_rdma_parse_cpulist(bad[i], &s), -1, "'%s' accepted", bad[i]);
}

Test(numa, placement)
{
	struct ix_rdma_placement pl;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_rdma_placement(root, "mlx5_2", IX_RDMA_NUMA_DEVICE, -1, &pl, &err), 0);
	cr_assert_eq(pl.node, 1);
	cr_assert_eq(pl.ncpus, 8);
	cr_assert_str_eq(pl.reason, "buffers and CPUs on NUMA node 1 (mlx5_2's node)");
	cr_assert_eq(ix_rdma_placement(root, "mlx5_2", IX_RDMA_NUMA_NODE, 0, &pl, &err), 0);
	cr_assert_eq(pl.node, 0);
	cr_assert_str_eq(pl.reason,
			 "buffers and CPUs on NUMA node 0 (as asked; mlx5_2 is on node 1)");
	cr_assert_eq(ix_rdma_placement(root, "mlx5_2", IX_RDMA_NUMA_NODE, 2, &pl, &err), 0);
	cr_assert_not_null(strstr(pl.reason, "no CPUs"), "%s", pl.reason);
	cr_assert_eq(ix_rdma_placement(root, "mlx5_2", IX_RDMA_NUMA_NONE, -1, &pl, &err), 0);
	cr_assert_eq(pl.node, -1);
	cr_assert_str_eq(pl.reason, "no NUMA placement (--numa none)");
	cr_assert_eq(ix_rdma_placement(root, "mlx5_0", IX_RDMA_NUMA_DEVICE, -1, &pl, &err), 0);
	cr_assert_eq(pl.node, -1);
	cr_assert_not_null(strstr(pl.reason, "unknown"), "%s", pl.reason);
	cr_assert_eq(ix_rdma_placement(root, "mlx5_2", IX_RDMA_NUMA_NODE, 7, &pl, &err), -1);
}

Test(gid, the_interface_of_an_address, .init = addrs)
{
	struct sockaddr_storage mapped = ip("::ffff:10.100.0.1"), v6 = ip("fd00::1");
	struct sockaddr_storage none = ip("10.9.9.9");

	cr_assert_str_eq(ix_rdma_addr_ifname(&mapped, host, nhost), "ens1f0.100",
			 "a dual-stack socket's IPv4-mapped address is the IPv4 one");
	cr_assert_str_eq(ix_rdma_addr_ifname(&v6, host, nhost), "ens1f0");
	cr_assert_null(ix_rdma_addr_ifname(&none, host, nhost));
	cr_assert_null(ix_rdma_addr_ifname(NULL, host, nhost));
}
