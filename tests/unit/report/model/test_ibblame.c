/* Unit tests for report/model/ibblame.h (ibblame_place.c and
 * ibblame_elements.c): meshes over the hand-routed fat
 * tree of tests/unit/ibfab_fixture.h (made up here, a simulation named as
 * one), their bad pairs those of one element, blamed as that element. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/model/ibblame.h"
#include "tests/unit/ibfab_fixture.h"

#define N 6

static struct ix_ibfab f;
static struct ix_hostlist hosts;
static struct ix_host hv[N];
static struct ix_cell cells[N * N];
static struct ix_mesh_node nodes[N];
static struct ix_mesh_result r;
static struct ix_ibblame b;

static void setup(void)
{
	ix_test_ib_fat_tree(&f);
	memset(cells, 0, sizeof(cells));
	memset(nodes, 0, sizeof(nodes));
	for (uint32_t i = 0; i < N; i++) {
		memset(&hv[i], 0, sizeof(hv[i]));
		snprintf(hv[i].name, sizeof(hv[i].name), "h%u", i + 1);
		for (uint32_t j = 0; j < N; j++) {
			struct ix_cell *c = &cells[i * N + j];

			c->state = i == j ? IX_CELL_NONE : IX_CELL_OK;
			c->bw_bps = i == j ? 0 : 90e9f;
		}
	}
	hosts = (struct ix_hostlist){ hv, N, N };
	r = (struct ix_mesh_result){ .hosts = &hosts, .n = N, .nodes = nodes };
	r.params.bw.path = "rdma";
	memset(&b, 0, sizeof(b));
}

static void teardown(void)
{
	ix_cells_free(&r.cells);
	ix_ibblame_free(&b);
	ix_ibfab_free(&f);
}

TestSuite(ibblame, .init = setup, .fini = teardown);

/* The mesh's cells from the array the tests set. */
static void sync(void)
{
	ix_cells_free(&r.cells);
	cr_assert_eq(ix_cells_load(&r.cells, cells, N, IX_CELLS_FULL), 0);
}

static void bad(uint32_t a, uint32_t c)
{
	cells[a * N + c].bad = IX_BAD_BW;
	cells[a * N + c].bw_bps = 20e9f;
}

static void build(void)
{
	struct ix_err err = { 0 };

	struct ix_ibblame_input in = { .mesh = &r, .routes = &f };

	sync();
	cr_assert_eq(ix_ibblame_build(&in, &b, &err), 0, "%s", err.msg);
}

/* One element blamed: its kind, name and pairs. */
static void expect_one(enum ix_ibb_kind kind, const char *what, uint32_t nbad, uint32_t ngood)
{
	cr_assert_eq(b.n, 1, "%u elements", b.n);
	cr_expect_eq(b.v[0].kind, kind);
	cr_expect_str_eq(b.v[0].what, what);
	cr_expect_eq(b.v[0].bad, nbad);
	cr_expect_eq(b.v[0].good, ngood);
}

Test(ibblame, a_hosts_pairs_blame_its_cable)
{
	for (uint32_t i = 0; i < N; i++)
		if (i != IX_T_H4) {
			bad(i, IX_T_H4);
			bad(IX_T_H4, i);
		}
	build();
	cr_expect_eq(b.tied, N);
	cr_expect_str_eq(b.ties[3].by, "node description");
	cr_expect_eq(b.pairs_bad, 10);
	cr_expect_eq(b.pairs_good, 20);
	expect_one(IX_IBB_HOST_CABLE, "h4's cable (\"h4 mlx5_0\"/1 - \"L2\"/2, both ways)", 10, 0);
	cr_expect_eq(b.unexplained, 0);
	cr_expect(strstr(b.v[0].evidence, "10 bad pairs cross it and no good pair does"), "%s",
		  b.v[0].evidence);
	cr_expect_str_eq(b.counters_why, "the subnet was read once");
}

/* L1 sends h4 and h6 up through S2 (L1/4 - S2/1); L2 sends h2 and L3 h1
 * down the same cable. */
static void bad_up_l1_s2(void)
{
	bad(IX_T_H1, IX_T_H4);
	bad(IX_T_H2, IX_T_H4);
	bad(IX_T_H1, IX_T_H6);
	bad(IX_T_H2, IX_T_H6);
}

Test(ibblame, the_pairs_up_one_cable_blame_it_one_way)
{
	bad_up_l1_s2();
	build();
	expect_one(IX_IBB_LINK, "the link \"L1\"/4 - \"S2\"/1, towards \"S2\"", 4, 0);
	cr_expect_eq(b.v[0].ncables, 1);
}

/* Every pair's latency measured and good: the pairs whose round trip
 * comes back over the cable do not clear it of what their data did not
 * cross. */
Test(ibblame, a_bandwidth_fault_one_way_is_found_among_good_round_trips)
{
	for (uint32_t i = 0; i < N * N; i++)
		if (cells[i].state == IX_CELL_OK)
			cells[i].lat_p50_ns = 2000;
	bad_up_l1_s2();
	build();
	expect_one(IX_IBB_LINK, "the link \"L1\"/4 - \"S2\"/1, towards \"S2\"", 4, 0);
}

/* A latency fault on the cable: every pair whose round trip crosses it. */
Test(ibblame, a_latency_fault_blames_the_cable_of_the_round_trips)
{
	struct ix_ibblame_input in = { .mesh = &r, .routes = &f };
	struct ix_ibfab_hop h[IX_IBFAB_MAX_HOPS];
	struct ix_err err = { 0 };
	char why[200];
	uint32_t n, nbad = 0;

	for (uint32_t a = 0; a < N; a++)
		for (uint32_t z = 0; z < N; z++) {
			bool cross = false;

			if (a == z)
				continue;
			cells[a * N + z].lat_p50_ns = 2000;
			for (int way = 0; way < 2; way++) {
				uint32_t from = way ? z : a, to = way ? a : z;

				cr_assert_eq(ix_ibfab_path(&f, (int32_t)from, 1, (uint16_t)(to + 1),
							   h, &n, why, sizeof(why)),
					     0, "%s", why);
				for (uint32_t k = 0; k < n; k++)
					cross |= (h[k].node == IX_T_L1 && h[k].port == 4) ||
						 (h[k].node == IX_T_S2 && h[k].port == 1);
			}
			if (cross) {
				cells[a * N + z].bad = IX_BAD_LAT;
				cells[a * N + z].lat_p50_ns = 9000;
				nbad++;
			}
		}
	sync();
	cr_assert_eq(ix_ibblame_build(&in, &b, &err), 0, "%s", err.msg);
	expect_one(IX_IBB_LINK, "the link \"L1\"/4 - \"S2\"/1, both ways", nbad, 0);
	cr_expect(strstr(b.v[0].evidence, "p50 9.0 us"), "%s", b.v[0].evidence);
}

Test(ibblame, the_pairs_both_ways_blame_it_both_ways)
{
	bad_up_l1_s2();
	bad(IX_T_H3, IX_T_H2);
	bad(IX_T_H4, IX_T_H2);
	bad(IX_T_H5, IX_T_H1);
	bad(IX_T_H6, IX_T_H1);
	build();
	expect_one(IX_IBB_LINK, "the link \"L1\"/4 - \"S2\"/1, both ways", 8, 0);
	cr_expect_eq(b.v[0].ncables, 2);
}

Test(ibblame, every_pair_off_a_leaf_blames_its_uplinks)
{
	for (uint32_t i = 0; i < 2; i++)
		for (uint32_t j = 2; j < N; j++) {
			bad(i, j);
			bad(j, i);
		}
	build();
	expect_one(IX_IBB_UPLINKS, "the uplinks of \"L1\" (all 2)", 16, 0);
}

Test(ibblame, every_pair_through_a_spine_blames_it)
{
	/* the pairs each leaf sends up through S2 */
	static const uint32_t via_s2[][2] = { { 0, 3 }, { 1, 3 }, { 0, 5 }, { 1, 5 },
					      { 2, 1 }, { 3, 1 }, { 2, 4 }, { 3, 4 },
					      { 4, 0 }, { 5, 0 }, { 4, 3 }, { 5, 3 } };

	for (size_t k = 0; k < sizeof(via_s2) / sizeof(via_s2[0]); k++)
		bad(via_s2[k][0], via_s2[k][1]);
	build();
	expect_one(IX_IBB_SWITCH, "switch \"S2\" (all its 3 cables)", 12, 0);
}

Test(ibblame, a_tcp_mesh_off_infiniband_says_its_pairs_may_not_have_crossed)
{
	r.params.bw.path = "tcp";
	build();
	cr_expect(strstr(b.caveat, "the mesh ran over tcp and no host's link is an InfiniBand "
				   "port"),
		  "%s", b.caveat);
	ix_ibblame_free(&b);
	snprintf(nodes[2].link.iface, sizeof(nodes[2].link.iface), "ib0");
	snprintf(nodes[2].link.source, sizeof(nodes[2].link.source), "infiniband rate");
	build();
	cr_expect_str_eq(b.caveat, "", "IPoIB: the pairs crossed the subnet");
	ix_ibblame_free(&b);
	r.params.bw.path = "rdma";
	memset(&nodes[2].link, 0, sizeof(nodes[2].link));
	build();
	cr_expect_str_eq(b.caveat, "");
}

Test(ibblame, a_lone_bad_pair_is_left_unexplained)
{
	bad(0, 1);
	build();
	cr_expect_eq(b.n, 0);
	cr_expect_eq(b.unexplained, 1);
}

Test(ibblame, hosts_tied_by_port_guid_else_said_why_not)
{
	snprintf(hv[0].name, sizeof(hv[0].name), "10.0.0.1");
	nodes[0].link.port_guid = 0x101;
	snprintf(hv[1].name, sizeof(hv[1].name), "nosuch");
	snprintf(hv[2].name, sizeof(hv[2].name), "h3.cluster.example");
	bad(IX_T_H1, IX_T_H4);
	bad(IX_T_H2, IX_T_H4);
	build();
	cr_expect_str_eq(b.ties[0].by, "port GUID");
	cr_expect_eq(b.ties[0].node, IX_T_H1);
	cr_expect_eq(b.ties[1].node, -1);
	cr_expect_str_eq(b.ties[1].why, "no adapter of the subnet is described as nosuch, and its "
					"agent gave no port GUID");
	cr_expect_eq(b.ties[2].node, IX_T_H3, "a host's short name is its description's");
	cr_expect_eq(b.tied, 5);
	cr_expect_eq(b.unplaced, 10); /* nosuch's pairs */
	cr_expect(strstr(b.unplaced_why, "nosuch is not tied to the subnet"), "%s", b.unplaced_why);
}

Test(ibblame, two_adapters_of_one_host_need_its_interface)
{
	snprintf(f.nodes[IX_T_H2].desc, sizeof(f.nodes[IX_T_H2].desc), "h1 mlx5_1");
	build();
	cr_expect_eq(b.ties[0].node, -1);
	cr_expect(strstr(b.ties[0].why, "2 adapters are described as h1"), "%s", b.ties[0].why);
	ix_ibblame_free(&b);
	snprintf(nodes[0].link.iface, sizeof(nodes[0].link.iface), "mlx5_1");
	build();
	cr_expect_eq(b.ties[0].node, IX_T_H2);
}

Test(ibblame, counters_that_moved_at_its_ends_are_its_evidence)
{
	struct ix_err err = { 0 };

	f.nodes[IX_T_S2].ports[1].ctr[1].v[IX_IBC_SYMBOL_ERRORS] = 7;
	f.nodes[IX_T_S2].ports[1].ctr[1].v[IX_IBC_XMIT_DATA] = 1000; /* traffic: not evidence */
	bad_up_l1_s2();
	struct ix_ibfab_finding x = { IX_IBF_ERRORS, IX_T_L1, 4, "\"L1\"/4: LinkDownedCounter +1" };
	struct ix_ibfab_findings fs = { &x, 1, 1 };
	struct ix_ibblame_input in = {
		.mesh = &r, .routes = &f, .ctrs = &f, .judged = &f, .findings = &fs
	};

	sync();
	cr_assert_eq(ix_ibblame_build(&in, &b, &err), 0);
	cr_expect(b.counters);
	cr_assert_eq(b.n, 1);
	cr_expect(strstr(b.v[0].evidence, "moved over the mesh: \"S2\"/1 SymbolErrorCounter +7"),
		  "%s", b.v[0].evidence);
	cr_expect(!strstr(b.v[0].evidence, "XmitData"), "%s", b.v[0].evidence);
	cr_expect(
		strstr(b.v[0].evidence, "; the subnet's findings: \"L1\"/4: LinkDownedCounter +1"),
		"%s", b.v[0].evidence);
}

Test(ibblame, hosts_sit_under_their_switch_ports)
{
	struct ix_neighbor nb[N];

	build();
	ix_ibblame_neighbors(&b, &f, nb);
	cr_expect_str_eq(nb[3].source, "ib");
	cr_expect_str_eq(nb[3].chassis, "ib 0x0000000000000107");
	cr_expect_str_eq(nb[3].name, "L2");
	cr_expect_str_eq(nb[3].port, "2");
}
