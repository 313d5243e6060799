/* Unit tests for probes/rdma/setup.c and probes/rdma/setup_msg.c: GID
 * choice on sysfs trees built here (RoCE ports with several netdevs, a
 * VLAN, v1 only, InfiniBand, no GIDs), RoCE MTUs, test parameters derived
 * from one side's options, the setup message against hostile input, and
 * NUMA placement. */
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

/* ---- Parameters ---- */

/* A ConnectX-like device. */
static const struct ix_rdma_caps cx = {
	.max_qp_wr = 32768,
	.max_sge = 30,
	.max_inline_data = 512,
	.max_qp = 262144,
	.max_qp_rd_atom = 16,
	.max_mr_size = 1ull << 40,
	.max_msg_size = 1ull << 30,
};

static struct ix_rdma_params checked(enum ix_rdma_kind kind, enum ix_rdma_op op, uint64_t size,
				     const struct ix_rdma_caps *caps)
{
	struct ix_rdma_params p;
	struct ix_err err = { 0 };

	ix_rdma_params_init(&p, kind, op);
	p.msg_size = size;
	cr_assert_eq(ix_rdma_params_check(&p, caps ? caps : &cx, &err), 0, "%s", err.msg);
	return p;
}

Test(params, bw_defaults)
{
	struct ix_rdma_params p = checked(IX_RDMA_BW, IX_RDMA_OP_WRITE, 65536, NULL);

	cr_assert_eq(p.qps, 1);
	cr_assert_eq(p.tx_depth, 128);
	cr_assert_eq(p.rx_depth, 0);
	cr_assert_eq(p.cq_mod, 64);
	cr_assert_eq(p.inline_size, 0);
	cr_assert_eq(p.rd_atom, 0);
	cr_assert_float_eq(p.duration_s, 10, 1e-9);
	cr_assert_float_eq(p.warmup_s, 1, 1e-9);
	p = checked(IX_RDMA_INCAST, IX_RDMA_OP_SEND, 4096, NULL);
	cr_assert_eq(p.rx_depth, 512, "perftest's default, not the tx depth");
	{
		struct ix_rdma_caps small = cx;

		small.max_qp_wr = 200; /* a device smaller than the default: its limit */
		p = checked(IX_RDMA_BW, IX_RDMA_OP_SEND, 4096, &small);
		cr_assert_eq(p.tx_depth, 128);
		cr_assert_eq(p.rx_depth, 200);
		small.max_qp_rd_atom = 128; /* soft-RoCE's: reads in flight default to it */
		p = checked(IX_RDMA_BW, IX_RDMA_OP_READ, 4096, &small);
		cr_assert_eq(p.rd_atom, 128, "perftest's default, the device's max");
		small.max_qp_wr = 100; /* never below the tx depth */
		p = checked(IX_RDMA_BW, IX_RDMA_OP_WRITE_IMM, 4096, &small);
		cr_assert_eq(p.rx_depth, p.tx_depth);
	}
	p = checked(IX_RDMA_MESH, IX_RDMA_OP_READ, 4096, NULL);
	cr_assert_eq(p.rd_atom, 16);
	cr_assert_eq(p.inline_size, 0);
}

Test(params, cq_moderation)
{
	struct ix_rdma_params p;
	struct ix_err err = { 0 };
	const uint32_t depth[] = { 1, 8, 128, 1000 }, mod[] = { 1, 4, 64, 100 };

	for (int i = 0; i < 4; i++) {
		ix_rdma_params_init(&p, IX_RDMA_BW, IX_RDMA_OP_WRITE);
		p.msg_size = 65536;
		p.tx_depth = depth[i];
		cr_assert_eq(ix_rdma_params_check(&p, &cx, &err), 0, "%s", err.msg);
		cr_assert_eq(p.cq_mod, mod[i], "tx_depth %u: cq_mod %u", depth[i], p.cq_mod);
	}
}

Test(params, lat_defaults)
{
	struct ix_err err = { 0 };
	struct ix_rdma_caps small = cx;
	struct ix_rdma_params p = checked(IX_RDMA_LAT, IX_RDMA_OP_WRITE, 64, NULL);

	cr_assert_eq(p.tx_depth, 1);
	cr_assert_eq(p.cq_mod, 8, "one send in 8 signaled, in a send queue of 16");
	cr_assert_eq(ix_rdma_sq_depth(&p), 16);
	cr_assert_eq(p.inline_size, 220);
	cr_assert_float_eq(p.duration_s, 2, 1e-9);
	cr_assert_float_eq(p.warmup_s, 0.5, 1e-9);
	small.max_inline_data = 64;
	small.max_qp_rd_atom = 4;
	cr_assert_eq(checked(IX_RDMA_LAT, IX_RDMA_OP_SEND, 64, &small).inline_size, 64);
	p = checked(IX_RDMA_LAT, IX_RDMA_OP_READ, 64, &small);
	cr_assert_eq(p.inline_size, 0);
	cr_assert_eq(p.rd_atom, 4);
	/* A count instead of a time: no warmup unless asked. */
	ix_rdma_params_init(&p, IX_RDMA_LAT, IX_RDMA_OP_SEND);
	p.msg_size = 8;
	p.iterations = 100000;
	cr_assert_eq(ix_rdma_params_check(&p, &cx, &err), 0, "%s", err.msg);
	cr_assert(p.duration_s == 0 && p.warmup_s == 0);
}

/* Options that must be refused with a message containing part. */
static void refused(struct ix_rdma_params p, const struct ix_rdma_caps *caps, const char *part)
{
	struct ix_err err = { 0 };

	cr_assert_eq(ix_rdma_params_check(&p, caps ? caps : &cx, &err), -1, "accepted ('%s')",
		     part);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, part), "'%s' lacks '%s'", err.msg, part);
}

Test(params, capability_violations)
{
	struct ix_rdma_caps noread = cx;
	struct ix_rdma_params p, q;

	ix_rdma_params_init(&p, IX_RDMA_BW, IX_RDMA_OP_WRITE);
	p.msg_size = 65536;
	q = p, q.msg_size = (1ull << 30) + 1, refused(q, NULL, "max_msg_size");
	q = p, q.inline_size = 1024, refused(q, NULL, "max_inline_data 512");
	q = p, q.tx_depth = 65536, refused(q, NULL, "max_qp_wr 32768");
	q = p, q.qps = 300, refused(q, NULL, "--qps 300");
	noread.max_qp = 8;
	q = p, q.qps = 9, refused(q, &noread, "max_qp 8");
	noread.max_qp_rd_atom = 0;
	q = p, q.op = IX_RDMA_OP_READ, refused(q, &noread, "max_qp_rd_atom 0");
	q = p, q.op = IX_RDMA_OP_READ, q.rd_atom = 32, refused(q, NULL, "max_qp_rd_atom 16");
	q = p, q.op = IX_RDMA_OP_READ, q.inline_size = 64, refused(q, NULL, "--inline");
}

Test(params, option_conflicts)
{
	struct ix_rdma_params p, q;

	ix_rdma_params_init(&p, IX_RDMA_BW, IX_RDMA_OP_SEND);
	p.msg_size = 4096;
	q = p, q.tx_depth = 128, q.rx_depth = 64, refused(q, NULL, "--rx-depth 64 is below");
	q = p, q.op = IX_RDMA_OP_WRITE, q.rx_depth = 64, refused(q, NULL, "--rx-depth applies");
	q = p, q.tx_depth = 16, q.cq_mod = 32, refused(q, NULL, "--cq-mod 32");
	q = p, q.iterations = 10, q.duration_s = 5, refused(q, NULL, "--iters and --time");
	q = p, q.msg_size = 0, refused(q, NULL, "--size");
	q = p, q.service_level = 16, refused(q, NULL, "--sl");
	q = p, q.mtu_cap = 6, refused(q, NULL, "--mtu");
	q = p, q.kind = IX_RDMA_LAT, q.bidirectional = true, refused(q, NULL, "--bidir");
	q = p, q.kind = IX_RDMA_LAT, q.tx_depth = 16, refused(q, NULL, "--tx-depth");
}

static void same_params(const struct ix_rdma_params *a, const struct ix_rdma_params *b)
{
	cr_assert(a->kind == b->kind && a->op == b->op && a->msg_size == b->msg_size &&
		  a->qps == b->qps && a->tx_depth == b->tx_depth && a->rx_depth == b->rx_depth &&
		  a->cq_mod == b->cq_mod && a->inline_size == b->inline_size &&
		  a->rd_atom == b->rd_atom && a->iterations == b->iterations &&
		  a->duration_s == b->duration_s && a->warmup_s == b->warmup_s &&
		  a->bidirectional == b->bidirectional && a->traffic_class == b->traffic_class &&
		  a->service_level == b->service_level && a->mtu_cap == b->mtu_cap);
}

Test(params, same_derivation_on_both_ends)
{
	struct ix_rdma_params client, server, echo;
	struct ix_err err = { 0 };
	json_t *j;

	ix_rdma_params_init(&client, IX_RDMA_BW, IX_RDMA_OP_WRITE_IMM);
	client.msg_size = 8192;
	client.qps = 4;
	client.bidirectional = true;
	client.traffic_class = 26 << 2 | 2;
	client.service_level = 3;
	client.mtu_cap = IX_RDMA_MTU_2048;
	server = client; /* the server given the client's options */
	cr_assert_eq(ix_rdma_params_check(&client, &cx, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_params_check(&server, &cx, &err), 0, "%s", err.msg);
	same_params(&client, &server);
	/* The filled values as the peer reads them, checked again there. */
	j = ix_test_json_roundtrip(ix_rdma_params_json(&client));
	cr_assert_eq(ix_rdma_params_parse(j, NULL, &echo, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_params_check(&echo, &cx, &err), 0, "%s", err.msg);
	same_params(&client, &echo);
	json_decref(j);
}

Test(params, peer_values_are_checked_against_this_device)
{
	struct ix_rdma_params client = checked(IX_RDMA_LAT, IX_RDMA_OP_WRITE, 32, NULL), echo;
	struct ix_rdma_caps small = cx;
	struct ix_err err = { 0 };
	json_t *j = ix_test_json_roundtrip(ix_rdma_params_json(&client));

	small.max_inline_data = 64;
	cr_assert_eq(ix_rdma_params_parse(j, NULL, &echo, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_params_check(&echo, &small, &err), -1);
	cr_assert_not_null(strstr(err.msg, "--inline 220"), "%s", err.msg);
	json_decref(j);
}

/* ---- The setup message ---- */

static struct ix_rdma_endpoint endpoint(void)
{
	struct ix_rdma_endpoint e = { 0 };

	e.params = checked(IX_RDMA_BW, IX_RDMA_OP_WRITE, 65536, NULL);
	e.params.qps = 4;
	cr_assert_eq(ix_rdma_gid_parse(V4("0a00:0001"), e.gid), 0);
	e.gid_index = 3;
	e.mtu = IX_RDMA_MTU_4096;
	e.nqps = 4;
	for (uint32_t i = 0; i < 4; i++)
		e.qps[i] = (struct ix_rdma_qp_id){ .qpn = 0x1a2 + i, .psn = 0xabcde0 + i };
	e.buf_addr = 0x7f0012345000ull;
	e.rkey = 0xdeadbeef;
	e.buf_len = 1 << 20;
	e.numa_node = 1;
	return e;
}

static const struct ix_rdma_limits lim = { .max_qps = 16, .max_buffer = 1 << 24 };

Test(setup, round_trip)
{
	struct ix_rdma_endpoint e = endpoint(), back;
	struct ix_err err = { 0 };
	json_t *j = ix_test_json_roundtrip(ix_rdma_setup_json(&e));

	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), 0, "%s", err.msg);
	cr_assert_not(back.infiniband);
	cr_assert_eq(back.lid, 0);
	cr_assert_arr_eq(back.gid, e.gid, 16);
	cr_assert_eq(back.gid_index, 3);
	cr_assert_eq(back.mtu, IX_RDMA_MTU_4096);
	cr_assert_eq(back.nqps, 4);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(back.qps[i].qpn, e.qps[i].qpn);
		cr_assert_eq(back.qps[i].psn, e.qps[i].psn);
	}
	cr_assert_eq(back.buf_addr, e.buf_addr);
	cr_assert_eq(back.rkey, 0xdeadbeef);
	cr_assert_eq(back.buf_len, 1 << 20);
	cr_assert_eq(back.numa_node, 1);
	same_params(&back.params, &e.params);
	json_decref(j);
	/* InfiniBand with a LID; NUMA node not known. */
	e.infiniband = true;
	e.lid = 0x1a;
	e.numa_node = -1;
	e.buf_addr = UINT64_MAX - (1 << 20);
	j = ix_test_json_roundtrip(ix_rdma_setup_json(&e));
	cr_assert_null(json_object_get(j, "numa_node"));
	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), 0, "%s", err.msg);
	cr_assert(back.infiniband);
	cr_assert_eq(back.lid, 0x1a);
	cr_assert_eq(back.numa_node, -1);
	cr_assert_eq(back.buf_addr, UINT64_MAX - (1 << 20));
	json_decref(j);
}

/* The good message with member path (dotted, [i] for arrays) replaced by
 * value (NULL: removed); parsing must fail naming field. */
static void hostile(const char *path, json_t *value, const char *field)
{
	struct ix_rdma_endpoint e = endpoint(), back;
	struct ix_err err = { 0 };
	json_t *j = ix_test_json_roundtrip(ix_rdma_setup_json(&e)), *o = j;
	char buf[128], *key = buf, *dot;

	snprintf(buf, sizeof(buf), "%s", path);
	while ((dot = strchr(key, '.'))) {
		*dot = '\0';
		o = json_object_get(o, key);
		key = dot + 1;
	}
	if (strchr(key, '[')) {
		*strchr(key, '[') = '\0';
		o = json_array_get(json_object_get(o, key),
				   (size_t)strtoul(key + strlen(key) + 1, NULL, 10));
		key = NULL;
	}
	cr_assert_not_null(o, "%s", path);
	if (!key)
		json_object_update(o, value);
	else if (value)
		json_object_set(o, key, value);
	else
		json_object_del(o, key);
	json_decref(value);
	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), -1, "accepted %s", path);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, field), "'%s' does not name '%s'", err.msg, field);
	json_decref(j);
}

Test(setup, hostile_messages)
{
	hostile("link_layer", NULL, "'link_layer' is missing");
	hostile("link_layer", json_string("Token Ring"), "'link_layer'");
	hostile("lid", json_integer(5), "'lid'"); /* RoCE has none */
	hostile("lid", json_string("1"), "'lid' is not an integer");
	hostile("gid", json_string("fe80::1"), "'gid'");
	hostile("gid", json_string(ZERO_GID), "'gid' is all zeros");
	hostile("gid", json_integer(1), "'gid' is not a string");
	hostile("gid_index", json_integer(256), "'gid_index'");
	hostile("mtu", json_integer(0), "'mtu'");
	hostile("mtu", json_integer(6), "'mtu'");
	hostile("qps", json_array(), "'qps'");
	hostile("qps", json_object(), "'qps' is missing or not an array");
	hostile("qps[1]", json_pack("{s:i}", "qpn", 0), "'qps[1].qpn' = 0");
	hostile("qps[0]", json_pack("{s:i}", "qpn", 0x1000000), "'qps[0].qpn'");
	hostile("qps[2]", json_pack("{s:i}", "psn", -1), "'qps[2].psn'");
	hostile("qps[3]", json_pack("{s:i}", "qpn", 0x1a2), "'qps[3].qpn' repeats qps[0]");
	hostile("params.qps", json_integer(3), "'qps' has 4 entries");
	hostile("params.qps", json_integer(17), "'params.qps'"); /* above the limit of 16 */
	hostile("buffer.length", json_integer(0), "'buffer.length'");
	hostile("buffer.length", json_integer((1 << 24) + 1), "'buffer.length'");
	hostile("buffer.length", json_integer(4096), "'buffer.length' 4096 is below");
	hostile("buffer.addr", json_string("12345"), "'buffer.addr'");
	hostile("buffer.addr", json_string("0x10000000000000000"), "'buffer.addr'");
	hostile("buffer.addr", json_string("0xfffffffffffff000"), "'buffer.addr' plus length");
	hostile("buffer.rkey", json_integer(1ll << 32), "'buffer.rkey'");
	hostile("buffer", NULL, "'buffer'");
	hostile("params", NULL, "'params'");
	hostile("params.op", json_string("atomic"), "'params.op'");
	hostile("params.kind", json_string("bandwidth"), "'params.kind'");
	hostile("params.msg_size", json_integer(0), "'params.msg_size'");
	hostile("params.tx_depth", json_string("128"), "'params.tx_depth' is not an integer");
	hostile("params.cq_mod", json_integer(1000), "'params.cq_mod'");
	hostile("params.duration", json_real(-1), "'params.duration'");
	hostile("params.duration", json_real(90000), "'params.duration'");
	hostile("params.duration", json_real(0), "'params.iterations'");
	hostile("params.warmup", NULL, "'params.warmup' is missing");
	hostile("params.bidirectional", json_integer(1), "'params.bidirectional'");
	hostile("params.mtu_cap", json_integer(1000), "'params.mtu_cap'");
	hostile("params.service_level", json_integer(16), "'params.service_level'");
	hostile("numa_node", json_string("1"), "'numa_node'");
	hostile("numa_node", json_integer(5000), "'numa_node'");
}

Test(setup, infiniband_peer_needs_a_lid)
{
	struct ix_rdma_endpoint e = endpoint(), back;
	struct ix_err err = { 0 };
	json_t *j;

	e.infiniband = true;
	e.lid = 0;
	j = ix_test_json_roundtrip(ix_rdma_setup_json(&e));
	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), -1);
	cr_assert_not_null(strstr(err.msg, "'lid' = 0"), "%s", err.msg);
	json_decref(j);
	cr_assert_eq(ix_rdma_setup_parse(NULL, &lim, &back, &err), -1);
	j = json_array();
	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), -1);
	cr_assert_not_null(strstr(err.msg, "not an object"), "%s", err.msg);
	json_decref(j);
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
