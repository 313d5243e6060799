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
