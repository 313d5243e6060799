/* Unit tests for probes/ibfab/route.c: paths through a fat tree routed by
 * hand (tests/unit/ibfab_fixture.h), and the ways a path ends short. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/ibfab/ibfab.h"
#include "tests/unit/ibfab_fixture.h"

static struct ix_ibfab f;

static void setup(void)
{
	ix_test_ib_fat_tree(&f);
}

static void teardown(void)
{
	ix_ibfab_free(&f);
}

TestSuite(ibroute, .init = setup, .fini = teardown);

static void expect(const struct ix_ibfab_hop *h, uint32_t n, const int32_t (*want)[2], uint32_t k)
{
	cr_assert_eq(n, k, "%u hops, not %u", n, k);
	for (uint32_t i = 0; i < k; i++)
		cr_expect(h[i].node == want[i][0] && h[i].port == want[i][1],
			  "hop %u: node %d port %u", i, h[i].node, h[i].port);
}

Test(ibroute, across_the_spines_as_the_tables_say)
{
	struct ix_ibfab_hop h[IX_IBFAB_MAX_HOPS];
	static const int32_t up2[][2] = {
		{ IX_T_H1, 1 }, { IX_T_L1, 4 }, { IX_T_S2, 2 }, { IX_T_L2, 2 }
	};
	static const int32_t back[][2] = {
		{ IX_T_H4, 1 }, { IX_T_L2, 3 }, { IX_T_S1, 1 }, { IX_T_L1, 1 }
	};
	static const int32_t near[][2] = { { IX_T_H1, 1 }, { IX_T_L1, 2 } };
	char why[200] = "";
	uint32_t n;

	cr_assert_eq(ix_ibfab_path(&f, IX_T_H1, 1, 4, h, &n, why, sizeof(why)), 0, "%s", why);
	expect(h, n, up2, 4);
	cr_assert_eq(ix_ibfab_path(&f, IX_T_H4, 1, 1, h, &n, why, sizeof(why)), 0, "%s", why);
	expect(h, n, back, 4);
	cr_assert_eq(ix_ibfab_path(&f, IX_T_H1, 1, 2, h, &n, why, sizeof(why)), 0, "%s", why);
	expect(h, n, near, 2);
	/* a switch's own LID ends at the switch */
	cr_assert_eq(ix_ibfab_path(&f, IX_T_H1, 1, 11, h, &n, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(n, 2);
}

Test(ibroute, a_path_that_cannot_end_says_why)
{
	struct ix_ibfab_hop h[IX_IBFAB_MAX_HOPS];
	char why[200];
	uint32_t n;

	f.nodes[IX_T_L1].lft[4] = IX_IBFAB_NO_ROUTE;
	cr_expect_eq(ix_ibfab_path(&f, IX_T_H1, 1, 4, h, &n, why, sizeof(why)), -1);
	cr_expect_str_eq(why, "switch \"L1\" has no route towards LID 4");
	/* L1 sends LID 3 to S1, which sends it back */
	f.nodes[IX_T_S1].lft[3] = 1;
	cr_expect_eq(ix_ibfab_path(&f, IX_T_H1, 1, 3, h, &n, why, sizeof(why)), -1);
	cr_expect(strstr(why, "(a loop)"), "%s", why);
	cr_expect_eq(n, IX_IBFAB_MAX_HOPS);
	f.nodes[IX_T_S1].lft[3] = 7; /* past its ports */
	cr_expect_eq(ix_ibfab_path(&f, IX_T_H1, 1, 3, h, &n, why, sizeof(why)), -1);
	cr_expect_str_eq(why, "switch \"S1\" sends LID 3 to port 7, not a cable");
	free(f.nodes[IX_T_L2].lft);
	f.nodes[IX_T_L2].lft = NULL;
	f.nodes[IX_T_L2].nlft = 0;
	cr_expect_eq(ix_ibfab_path(&f, IX_T_H3, 1, 1, h, &n, why, sizeof(why)), -1);
	cr_expect_str_eq(why, "switch \"L2\" has no forwarding table read towards LID 1");
	/* a cable gone */
	f.nodes[IX_T_H2].ports[1].peer_node = -1;
	cr_expect_eq(ix_ibfab_path(&f, IX_T_H2, 1, 1, h, &n, why, sizeof(why)), -1);
	cr_expect_str_eq(why, "\"h2 mlx5_0\"/1 has no cable");
	/* a LID no adapter on the way owns */
	cr_expect_eq(ix_ibfab_path(&f, IX_T_H1, 1, 12, h, &n, why, sizeof(why)), -1);
	cr_expect_str_eq(why, "switch \"L1\" has no route towards LID 12");
}

Test(ibroute, ports_by_lid_and_by_guid)
{
	uint32_t p = 99;

	cr_expect_eq(ix_ibfab_by_lid(&f, 3, &p), IX_T_H3);
	cr_expect_eq(p, 1);
	cr_expect_eq(ix_ibfab_by_lid(&f, 8, &p), IX_T_L2);
	cr_expect_eq(p, 0);
	cr_expect_eq(ix_ibfab_by_lid(&f, 0, &p), -1);
	cr_expect_eq(ix_ibfab_by_port_guid(&f, 0x104, &p), IX_T_H4);
	cr_expect_eq(p, 1);
	/* switches' port GUIDs are not adapters' */
	cr_expect_eq(ix_ibfab_by_port_guid(&f, 0x107, &p), -1);
	cr_expect_eq(ix_ibfab_by_port_guid(&f, 0, &p), -1);
}
