/* Unit tests for probes/host/ifaddr.c: subnets of IPv4 and IPv6 addresses
 * to the edge prefixes, this machine's own addresses, and the RDMA device
 * of an interface read from a fixture sysfs tree. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "probes/host/ifaddr.h"
#include "tests/unit/common.h"

Test(ifaddr, ipv4_subnets_to_the_edge_prefixes)
{
	cr_expect(ix_ifaddr_in_subnet(AF_INET, "10.1.0.7", "10.1.0.0", 24));
	cr_expect(ix_ifaddr_in_subnet(AF_INET, "10.1.0.255", "10.1.0.0", 24));
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET, "10.1.1.7", "10.1.0.0", 24));
	cr_expect(ix_ifaddr_in_subnet(AF_INET, "10.1.1.7", "10.1.0.0", 23));
	cr_expect(ix_ifaddr_in_subnet(AF_INET, "10.1.0.129", "10.1.0.128", 25));
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET, "10.1.0.127", "10.1.0.128", 25));
	cr_expect(ix_ifaddr_in_subnet(AF_INET, "192.168.3.4", "0.0.0.0", 0), "/0 holds all");
	cr_expect(ix_ifaddr_in_subnet(AF_INET, "10.1.0.7", "10.1.0.7", 32));
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET, "10.1.0.7", "10.1.0.6", 32));
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET, "10.1.0.7", "10.1.0.7", 33), "no /33 in IPv4");
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET, "10.1.0.7", "fd00::", 8), "families differ");
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET, "10.1.0", "10.1.0.0", 24));
	cr_expect_not(ix_ifaddr_in_subnet(AF_UNIX, "10.1.0.7", "10.1.0.0", 24));
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET, NULL, "10.1.0.0", 24));
}

Test(ifaddr, ipv6_subnets_to_the_edge_prefixes)
{
	cr_expect(ix_ifaddr_in_subnet(AF_INET6, "fd00:1:2:3::7", "fd00:1:2:3::", 64));
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET6, "fd00:1:2:4::7", "fd00:1:2:3::", 64));
	cr_expect(ix_ifaddr_in_subnet(AF_INET6, "fd00:1:2:3::7", "fd00::", 16));
	cr_expect(ix_ifaddr_in_subnet(AF_INET6, "2001:db8::1", "::", 0));
	cr_expect(ix_ifaddr_in_subnet(AF_INET6, "2001:db8::1", "2001:db8::1", 128));
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET6, "2001:db8::1", "2001:db8::2", 128));
	cr_expect(ix_ifaddr_in_subnet(AF_INET6, "2001:db8::1", "2001:db8::", 127));
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET6, "2001:db8::1", "2001:db8::1", 129));
	cr_expect_not(ix_ifaddr_in_subnet(AF_INET6, "10.1.0.7", "10.1.0.0", 24));
}

/* The subnet of addr/prefix as ix_ifaddr_subnet writes it. */
static void expect_subnet(int family, const char *addr, unsigned prefix, const char *want)
{
	struct ix_ifaddr a = { .family = family, .prefix = (uint8_t)prefix };
	char buf[64];

	snprintf(a.addr, sizeof(a.addr), "%s", addr);
	ix_ifaddr_subnet(&a, buf, sizeof(buf));
	cr_expect_str_eq(buf, want, "%s/%u", addr, prefix);
}

Test(ifaddr, subnet_of_an_address)
{
	expect_subnet(AF_INET, "10.1.0.7", 24, "10.1.0.0/24");
	expect_subnet(AF_INET, "10.1.0.200", 25, "10.1.0.128/25");
	expect_subnet(AF_INET, "10.1.3.7", 22, "10.1.0.0/22");
	expect_subnet(AF_INET, "10.1.0.7", 32, "10.1.0.7/32");
	expect_subnet(AF_INET, "10.1.0.7", 0, "0.0.0.0/0");
	expect_subnet(AF_INET, "10.1.0.7", 33, "");
	expect_subnet(AF_INET6, "fd00:1:2:3:4:5:6:7", 64, "fd00:1:2:3::/64");
	expect_subnet(AF_INET6, "fd00:1:2:3:4:5:6:7", 128, "fd00:1:2:3:4:5:6:7/128");
	expect_subnet(AF_INET6, "fd00:1:2:3:4:5:6:7", 0, "::/0");
	expect_subnet(AF_INET6, "fd00:1:2:3:4:5:6:ff", 121, "fd00:1:2:3:4:5:6:80/121");
	expect_subnet(AF_INET6, "not-an-address", 64, "");

	struct ix_ifaddr a = { .family = AF_INET, .addr = "10.1.0.7", .prefix = 24 };
	char small[6];

	ix_ifaddr_subnet(&a, small, sizeof(small));
	cr_expect_str_eq(small, "10.1.", "cut to fit");
}

Test(ifaddr, this_machines_addresses)
{
	struct ix_ifaddr a[IX_IFADDR_MAX];
	size_t n = ix_ifaddr_list("", a, IX_IFADDR_MAX);
	unsigned char b[16];

	cr_log_info("%zu addresses", n);
	cr_expect_leq(n, IX_IFADDR_MAX);
	for (size_t i = 0; i < n; i++) {
		cr_expect_neq(a[i].iface[0], '\0', "entry %zu has no interface", i);
		cr_expect_str_neq(a[i].iface, "lo", "loopback is never listed");
		cr_expect(a[i].family == AF_INET || a[i].family == AF_INET6, "%s", a[i].addr);
		cr_expect_eq(inet_pton(a[i].family, a[i].addr, b), 1, "%s", a[i].addr);
		cr_expect_leq(a[i].prefix, a[i].family == AF_INET ? 32 : 128, "%s/%u", a[i].addr,
			      a[i].prefix);
		cr_expect_str_neq(a[i].addr, "127.0.0.1");
		cr_expect_str_neq(a[i].addr, "::1");
		cr_expect_neq(strncmp(a[i].addr, "fe8", 3), 0, "link-local %s", a[i].addr);
	}
	cr_expect_eq(ix_ifaddr_list("", a, 1), n ? 1 : 0, "at most cap");
	cr_expect_eq(ix_ifaddr_list("", a, 0), 0);
}

static char dir[64];

static void mktree(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ixperf-ifaddr.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void rmtree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* dir/REL created, its path into buf. */
static void sub(const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", dir, rel);
	ix_test_mkdirs(buf);
}

Test(ifaddr, rdma_device_of_an_interface, .init = mktree, .fini = rmtree)
{
	char p[256], dev[32];

	/* A soft-RoCE device with its GID 1 on eth7, an IB port without
	 * network devices, and an IPoIB interface through its PCI device. */
	sub("/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs", p, sizeof(p));
	ix_test_put(p, "0", "eth6");
	ix_test_put(p, "1", "eth7");
	sub("/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs", p, sizeof(p));
	sub("/sys/class/net/ib0/device/infiniband/mlx5_0", p, sizeof(p));
	cr_expect(ix_ifaddr_rdma(dir, "eth7", dev, sizeof(dev)));
	cr_expect_str_eq(dev, "rxe0");
	cr_expect(ix_ifaddr_rdma(dir, "eth6", dev, sizeof(dev)));
	cr_expect_str_eq(dev, "rxe0");
	cr_expect(ix_ifaddr_rdma(dir, "ib0", dev, sizeof(dev)));
	cr_expect_str_eq(dev, "mlx5_0");
	cr_expect_not(ix_ifaddr_rdma(dir, "eth8", dev, sizeof(dev)));
	cr_expect_str_eq(dev, "");
	cr_expect_not(ix_ifaddr_rdma(dir, "../net/ib0", dev, sizeof(dev)), "not a path");
	cr_expect_not(ix_ifaddr_rdma(dir, "eth", dev, sizeof(dev)), "whole names only");
	cr_expect_not(ix_ifaddr_rdma(dir, "eth7", dev, 3), "a name that does not fit");
}

Test(ifaddr, listed_addresses_carry_their_rdma_device, .init = mktree, .fini = rmtree)
{
	struct ix_ifaddr a[IX_IFADDR_MAX], b[IX_IFADDR_MAX];
	size_t n = ix_ifaddr_list("", a, IX_IFADDR_MAX);
	char p[256];

	if (!n)
		cr_skip_test("this machine has no address but loopback's and link-local ones");
	/* The first listed interface gets a soft-RoCE device in the tree. */
	sub("/sys/class/infiniband/rxe_fx/ports/1/gid_attrs/ndevs", p, sizeof(p));
	ix_test_put(p, "0", a[0].iface);
	cr_assert_eq(ix_ifaddr_list(dir, b, IX_IFADDR_MAX), n);
	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(b[i].rdma, strcmp(b[i].iface, a[0].iface) == 0 ? "rxe_fx" : "",
				 "%s %s", b[i].iface, b[i].addr);
}
