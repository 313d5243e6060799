/* Unit tests for probes/host/inventory.c: the rate of the link a test runs
 * over, from a sysfs tree built in a temporary directory (Ethernet speed,
 * IPoIB and RoCE ports under device/infiniband, loopback, virtual links). */
#include "config.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/host/inventory.h"

static char root[64];

/* Write text to root/path, making the directories on the way. */
static void put(const char *path, const char *text)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (char *s = strchr(full + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(full, 0755);
		*s = '/';
	}
	f = fopen(full, "w");
	cr_assert_not_null(f, "cannot write %s", full);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static void build_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/ixperf-inventory.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	/* Ethernet with a speed, and a veth-like device without one. */
	put("sys/class/net/eth0/type", "1");
	put("sys/class/net/eth0/speed", "25000");
	put("sys/class/net/veth0/type", "1");
	put("sys/class/net/veth0/speed", "-1");
	put("sys/class/net/lo/type", "772");
	/* IPoIB on the second port of a dual-port adapter: dev_port 1. */
	put("sys/class/net/ib1/type", "32");
	put("sys/class/net/ib1/dev_port", "1");
	put("sys/class/net/ib1/device/infiniband/mlx4_0/ports/1/rate", "56 Gb/sec (4X FDR)");
	put("sys/class/net/ib1/device/infiniband/mlx4_0/ports/1/link_layer", "InfiniBand");
	put("sys/class/net/ib1/device/infiniband/mlx4_0/ports/2/rate", "400 Gb/sec (4X NDR)");
	put("sys/class/net/ib1/device/infiniband/mlx4_0/ports/2/link_layer", "InfiniBand");
	/* IPoIB known only through its port's link layer (type unreadable),
	 * with a speed of its own that the IB rate wins over. */
	put("sys/class/net/ibp1s0/speed", "100000");
	put("sys/class/net/ibp1s0/device/infiniband/mlx5_0/ports/1/rate", "200 Gb/sec (4X HDR)");
	put("sys/class/net/ibp1s0/device/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand");
	/* RoCE: the netdev's speed first, the port's rate when it has none. */
	put("sys/class/net/ens1/type", "1");
	put("sys/class/net/ens1/speed", "100000");
	put("sys/class/net/ens1/device/infiniband/mlx5_1/ports/1/rate", "50 Gb/sec (2X HDR)");
	put("sys/class/net/ens1/device/infiniband/mlx5_1/ports/1/link_layer", "Ethernet");
	put("sys/class/net/ens2/type", "1");
	put("sys/class/net/ens2/device/infiniband/mlx5_2/ports/1/rate", "10 Gb/sec (4X SDR)");
	put("sys/class/net/ens2/device/infiniband/mlx5_2/ports/1/link_layer", "Ethernet");
	put("sys/class/net/ens2/device/infiniband/mlx5_2/ports/1/gid_attrs/ndevs/0", "other");
	put("sys/class/net/ens2/device/infiniband/mlx5_2/ports/2/rate", "100 Gb/sec (4X EDR)");
	put("sys/class/net/ens2/device/infiniband/mlx5_2/ports/2/link_layer", "Ethernet");
	put("sys/class/net/ens2/device/infiniband/mlx5_2/ports/2/gid_attrs/ndevs/0", "ens2");
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(void)
{
	nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(inventory, .init = build_tree, .fini = remove_tree);

static void expect(const char *iface, int rc, double bps, const char *source)
{
	struct ix_link_limit l;

	cr_assert_eq(ix_link_limit_of(iface, root, &l), rc, "%s", iface);
	cr_assert_str_eq(l.iface, iface);
	cr_assert_float_eq(l.bps, bps, 1, "%s: %g bit/s", iface, l.bps);
	cr_assert_str_eq(l.source, source, "%s: %s", iface, l.source);
}

Test(inventory, ethernet_speed)
{
	expect("eth0", 0, 25e9, "ethtool speed");
}

Test(inventory, ipoib_uses_its_port_rate)
{
	expect("ib1", 0, 400e9, "infiniband rate");
	expect("ibp1s0", 0, 200e9, "infiniband rate");
}

Test(inventory, roce_prefers_the_netdev_speed)
{
	expect("ens1", 0, 100e9, "ethtool speed");
	/* No speed: the port whose GID 0 names the device. */
	expect("ens2", 0, 100e9, "infiniband rate");
}

Test(inventory, unknown_rates)
{
	expect("veth0", -1, 0, "unknown");
	expect("lo", -1, 0, "unknown");
	expect("nosuch0", -1, 0, "unknown");
	expect("..", -1, 0, "unknown");
}

Test(inventory, loopback_route_has_no_rate)
{
	struct ix_link_limit l;

	cr_assert_eq(ix_link_toward("127.0.0.1", root, &l), -1);
	cr_assert_str_eq(l.iface, "lo");
	cr_assert_eq(l.bps, 0);
	cr_assert_str_eq(l.source, "unknown");
	cr_assert_eq(ix_link_rate_bps("127.0.0.1", root), 0);
}

/* The path's ceiling: an IPoIB link of 400 Gbit/s whose ConnectX-7 trained
 * Gen4 x8 of Gen5 x16 (the downtrained layout of tests/topo/mkfixture.py):
 * its PCIe link is the bottleneck; its neighbour's Gen4 x16 is not. */
Test(inventory, pcie_link_below_the_line_rate_is_the_ceiling)
{
	char dir[64] = "/tmp/ixperf-pcie.XXXXXX", cmd[512], *top = getenv("top_srcdir");
	struct ix_link_limit l;

	if (system("command -v python3 >/dev/null") != 0)
		cr_skip_test("python3 is not installed (tests/topo/mkfixture.py builds the tree)");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/topo/mkfixture.py' downtrained '%s'",
		 top && *top ? top : ".", dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_eq(ix_link_limit_of("ibp1s0", dir, &l), 0);
	cr_assert_float_eq(l.bps, 400e9, 1);
	cr_assert(l.pcie.known);
	cr_assert_str_eq(l.pcie.bdf, "0000:01:00.0");
	cr_assert_eq(l.pcie.gen, 4);
	cr_assert_eq(l.pcie.width, 8);
	cr_assert_eq(l.pcie.expected_gen, 5);
	cr_assert_eq(l.pcie.expected_width, 16);
	cr_assert(l.pcie.downtrained);
	cr_assert_float_eq(l.ceiling_bps, 16e9 * 8 * 128 / 130, 1e3);
	cr_assert_str_eq(l.bottleneck, "pcie");
	/* Gen4 x16 (252 Gbit/s) is still below 400 Gbit/s, but as expected. */
	cr_assert_eq(ix_link_limit_of("ibp2s0", dir, &l), 0);
	cr_assert_str_eq(l.bottleneck, "pcie");
	cr_assert_not(l.pcie.downtrained);
	cr_assert_float_eq(l.ceiling_bps, 16e9 * 16 * 128 / 130, 1e3);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* An RDMA port's ceiling: its rate, its device's PCI function's link
 * (found through /sys/class/infiniband/DEV/device) and, with GPU buffers,
 * the GPU's (the downtrained and ib-init-aer layouts of mkfixture.py). */
Test(inventory, rdma_port_ceiling_with_its_nic_and_gpu)
{
	char dir[64] = "/tmp/ixperf-rdma-link.XXXXXX", cmd[512], *top = getenv("top_srcdir");
	struct ix_link_limit l;

	if (system("command -v python3 >/dev/null") != 0)
		cr_skip_test("python3 is not installed (tests/topo/mkfixture.py builds the tree)");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "python3 '%1$s/tests/topo/mkfixture.py' downtrained '%2$s/d' && "
		 "python3 '%1$s/tests/topo/mkfixture.py' ib-init-aer '%2$s/i'",
		 top && *top ? top : ".", dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd), "%s/d", dir);
	cr_assert_eq(ix_link_of_rdma(cmd, "mlx5_0", "", 400e9, NULL, &l), 0);
	cr_assert_str_eq(l.iface, "mlx5_0", "no netdev: the device names it");
	cr_assert_str_eq(l.pcie.bdf, "0000:01:00.0");
	cr_assert(l.pcie.downtrained);
	cr_assert_not(l.gpu.known);
	cr_assert_str_eq(l.bottleneck, "pcie");
	cr_assert_float_eq(l.ceiling_bps, 16e9 * 8 * 128 / 130, 1e3);
	snprintf(cmd, sizeof(cmd), "%s/i", dir);
	cr_assert_eq(ix_link_of_rdma(cmd, "mlx5_0", "ibp25s0", 400e9, "0000:18:00.0", &l), 0);
	cr_assert_str_eq(l.iface, "ibp25s0");
	cr_assert_str_eq(l.pcie.bdf, "0000:19:00.0");
	cr_assert(l.gpu.known);
	cr_assert_str_eq(l.gpu.bdf, "0000:18:00.0");
	cr_assert_eq(l.gpu.gen, 5);
	cr_assert_eq(l.gpu.width, 16);
	cr_assert_str_eq(l.bottleneck, "link", "Gen5 x16 carries more than 400 Gbit/s");
	/* A name that is not a device's, or a path, finds no PCI function. */
	cr_assert_eq(ix_link_of_rdma(cmd, "../../etc", "", 0, NULL, &l), -1);
	cr_assert_not(l.pcie.known);
	/* The tree is read once a minute: with its PCI devices gone, the
	 * next test's ceiling still comes from the tree read above. */
	snprintf(cmd, sizeof(cmd), "mv '%1$s/i/sys/bus/pci/devices' '%1$s/i/gone'", dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(cmd, sizeof(cmd), "%s/i", dir);
	cr_assert_eq(ix_link_of_rdma(cmd, "mlx5_0", "ibp25s0", 400e9, "0000:18:00.0", &l), 0);
	cr_assert_str_eq(l.pcie.bdf, "0000:19:00.0");
	cr_assert(l.gpu.known);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* No PCI function behind it: the ceiling is the link's own rate. */
Test(inventory, no_pcie_the_link_is_the_ceiling)
{
	struct ix_link_limit l;

	cr_assert_eq(ix_link_limit_of("eth0", root, &l), 0);
	cr_assert_not(l.pcie.known);
	cr_assert_float_eq(l.ceiling_bps, 25e9, 1);
	cr_assert_str_eq(l.bottleneck, "link");
	cr_assert_eq(ix_link_limit_of("veth0", root, &l), -1);
	cr_assert_float_eq(l.ceiling_bps, 0, 1e-9);
	cr_assert_str_eq(l.bottleneck, "");
}
