/* Unit tests for probes/host/linkcache.c: an agent reads each interface's
 * link once a minute, not once a test; loopback has none. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/host/linkcache.h"

static char dir[64];

/* The downtrained layout of tests/topo/mkfixture.py: ibp1s0 is an IPoIB
 * port whose NIC trained Gen4 x8 of Gen5 x16. */
static void fixture(void)
{
	char cmd[512], *top = getenv("top_srcdir");

	if (system("command -v python3 >/dev/null") != 0)
		cr_skip_test("python3 is not installed (tests/topo/mkfixture.py builds the tree)");
	snprintf(dir, sizeof(dir), "/tmp/ixperf-linkcache.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/topo/mkfixture.py' downtrained '%s'",
		 top && *top ? top : ".", dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void cleanup(void)
{
	char cmd[128];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

Test(linkcache, read_once_then_served, .init = fixture, .fini = cleanup)
{
	struct ix_link_cache c;
	struct ix_link_limit l;

	ix_link_cache_init(&c, dir);
	for (int i = 0; i < 5; i++) {
		cr_assert_eq(ix_link_cache_get(&c, "ibp1s0", &l), 0);
		cr_assert_str_eq(l.iface, "ibp1s0");
		cr_assert_str_eq(l.bottleneck, "pcie");
		cr_assert(l.pcie.downtrained);
		cr_assert_float_eq(l.ceiling_bps, 16e9 * 8 * 128 / 130, 1e3);
	}
	cr_assert_eq(c.reads, 1, "read %llu times", (unsigned long long)c.reads);
	cr_assert_eq(ix_link_cache_get(&c, "ibp2s0", &l), 0);
	cr_assert_str_eq(l.iface, "ibp2s0");
	cr_assert_not(l.pcie.downtrained);
	cr_assert_eq(c.reads, 2);
	/* An unknown name is remembered too, with its failure. */
	cr_assert_eq(ix_link_cache_get(&c, "nosuch0", &l), -1);
	cr_assert_eq(ix_link_cache_get(&c, "nosuch0", &l), -1);
	cr_assert_eq(c.reads, 3);
	ix_link_cache_destroy(&c);
}

/* More interfaces than entries: the oldest goes, the answers stay right. */
Test(linkcache, eviction_keeps_answers_right, .init = fixture, .fini = cleanup)
{
	struct ix_link_cache c;
	struct ix_link_limit l;
	char name[32];

	ix_link_cache_init(&c, dir);
	for (int i = 0; i < IX_LINK_CACHE_N + 4; i++) {
		snprintf(name, sizeof(name), "nosuch%d", i);
		cr_assert_eq(ix_link_cache_get(&c, name, &l), -1);
	}
	cr_assert_eq(ix_link_cache_get(&c, "ibp1s0", &l), 0);
	cr_assert_str_eq(l.iface, "ibp1s0");
	cr_assert_str_eq(l.bottleneck, "pcie");
	ix_link_cache_destroy(&c);
}

Test(linkcache, loopback_has_no_link)
{
	struct ix_link_cache c;
	struct ix_link_limit l;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(9),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ix_link_cache_init(&c, "");
	cr_assert_eq(ix_link_cache_get(&c, "lo", &l), -1);
	cr_assert_str_eq(l.iface, "lo");
	cr_assert_eq(l.ceiling_bps, 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(ix_link_cache_socket(&c, fd, &l), -1);
	cr_assert_str_eq(l.iface, "lo");
	cr_assert_eq(ix_link_cache_toward(&c, "127.0.0.1", &l), -1);
	cr_assert_str_eq(l.iface, "lo");
	cr_assert_eq(c.reads, 0);
	close(fd);
	ix_link_cache_destroy(&c);
}
