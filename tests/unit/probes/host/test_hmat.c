/* Unit tests for probes/host/hmat.c: an HMAT access class as the kernel
 * shows it under nodeN/accessC/initiators/, read from a tree made here:
 * figures and initiators, figures missing or garbage, no class at all,
 * initiator entries that are not nodes or beyond the mask. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/host/hmat.h"
#include "tests/unit/common.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ixhmat.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static void mk(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	ix_test_mkdirs(p);
}

static void put(const char *rel, const char *name, const char *v)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	ix_test_put(p, name, v);
}

TestSuite(hmat, .init = setup, .fini = teardown);

Test(hmat, figures_and_initiators)
{
	struct ix_hmat h;

	mk("access0/initiators/node0");
	mk("access0/initiators/node2");
	mk("access0/initiators/node63");
	mk("access0/initiators/node64"); /* beyond the mask: left out */
	mk("access0/initiators/nodeX");
	put("access0/initiators", "read_latency", "30");
	put("access0/initiators", "write_latency", "45");
	put("access0/initiators", "read_bandwidth", "5120");
	put("access0/initiators", "write_bandwidth", "4096");
	ix_hmat_read(dir, 0, &h);
	cr_assert(h.present);
	cr_assert_eq(h.read_ns, 30);
	cr_assert_eq(h.write_ns, 45);
	cr_assert_eq(h.read_mbps, 5120);
	cr_assert_eq(h.write_mbps, 4096);
	cr_assert_eq(h.initiators, 1ull | 1ull << 2 | 1ull << 63);
}

Test(hmat, missing_and_garbage)
{
	struct ix_hmat h;

	ix_hmat_read(dir, 1, &h);
	cr_assert_not(h.present, "no access1: nothing advertised");
	cr_assert_eq(h.initiators, 0);
	mk("access1/initiators");
	put("access1/initiators", "read_latency", "banana");
	put("access1/initiators", "read_bandwidth", "-5");
	ix_hmat_read(dir, 1, &h);
	cr_assert(h.present);
	cr_assert_eq(h.read_ns, 0, "garbage reads as not given");
	cr_assert_eq(h.read_mbps, 0);
	cr_assert_eq(h.write_ns, 0, "a missing file too");
	cr_assert_eq(h.initiators, 0);
}
