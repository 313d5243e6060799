/* Unit tests for report/model/fabric.c. The matrices are made up here (a
 * simulation of a mesh's figures, named as one): hosts under switches as
 * their LLDP neighbours say, one switch's uplink slow, one host's own
 * link slow, and the same matrices without neighbours for the inferred
 * grouping; then the grid of a 1,024-host fabric. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/model/fabric.h"

#define MAXN 1024

struct mesh {
	uint32_t n;
	char name[MAXN][16];
	const char *names[MAXN];
	struct ix_neighbor nbr[MAXN];
	struct ix_cell *cells; /* n x n, as the tests set them */
	struct ix_cells store; /* the cells as the model reads them */
	int group[MAXN];
};

/* The store from the cells, every ordered pair kept. */
static void sync(struct mesh *m)
{
	ix_cells_free(&m->store);
	cr_assert_eq(ix_cells_load(&m->store, m->cells, m->n, IX_CELLS_FULL), 0);
}

/* n hosts, group g of host i = i / per; every pair measured at fast bit/s
 * (and 20 us), a little apart from one another. */
static struct mesh *mesh_new(uint32_t n, uint32_t per, double fast)
{
	struct mesh *m = calloc(1, sizeof(*m));

	cr_assert_not_null(m);
	m->n = n;
	m->cells = calloc((size_t)n * n, sizeof(*m->cells));
	cr_assert_not_null(m->cells);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(m->name[i], sizeof(m->name[i]), "h%u", i + 1);
		m->names[i] = m->name[i];
		m->group[i] = (int)(i / per);
		snprintf(m->nbr[i].source, sizeof(m->nbr[i].source), "lldp");
		snprintf(m->nbr[i].chassis, sizeof(m->nbr[i].chassis), "02:00:00:00:00:%02x",
			 m->group[i] + 1);
		snprintf(m->nbr[i].name, sizeof(m->nbr[i].name), "leaf-%c", 'a' + m->group[i]);
		snprintf(m->nbr[i].port, sizeof(m->nbr[i].port), "swp%u", i % per + 1);
		for (uint32_t j = 0; j < n; j++) {
			struct ix_cell *c = &m->cells[(size_t)i * n + j];

			c->state = i == j ? IX_CELL_NONE : IX_CELL_OK;
			if (i != j) {
				c->bw_bps = (float)(fast * (1.0 + 0.01 * ((i * 7 + j * 3) % 10)));
				c->lat_p50_ns = 20000;
			}
		}
	}
	return m;
}

static void mesh_free(struct mesh *m)
{
	free(m->cells);
	ix_cells_free(&m->store);
	free(m);
}

/* Pairs between a host of group g and any other group at slow bit/s. */
static void slow_uplink(struct mesh *m, int g, double slow)
{
	for (uint32_t i = 0; i < m->n; i++)
		for (uint32_t j = 0; j < m->n; j++)
			if (i != j && m->group[i] != m->group[j] &&
			    (m->group[i] == g || m->group[j] == g))
				m->cells[(size_t)i * m->n + j].bw_bps = (float)slow;
}

static void slow_host(struct mesh *m, uint32_t h, double slow)
{
	for (uint32_t j = 0; j < m->n; j++)
		if (j != h) {
			m->cells[(size_t)h * m->n + j].bw_bps = (float)slow;
			m->cells[(size_t)j * m->n + h].bw_bps = (float)slow;
		}
}

/* Flag bad cells as the mesh does, then build (with the hosts' counters
 * when ctrs is not NULL). */
static void build_ctrs(struct mesh *m, bool lldp, const struct ix_ctr_sum *ctrs,
		       struct ix_fabric *f)
{
	struct ix_mesh_rules rules = { .bw_fraction = 0.7,
				       .lat_factor = 2.0,
				       .lat_percentile = 50 };
	struct ix_mesh_findings fi;
	struct ix_fab_input in = {
		.n = m->n, .cells = &m->store, .nbrs = lldp ? m->nbr : NULL, .ctrs = ctrs
	};

	sync(m);
	cr_assert_eq(ix_mesh_analyze(&m->store, &rules, &fi), 0);
	for (uint32_t a = 0; a < m->n; a++) /* the flags back into the cells */
		for (uint32_t b = 0; b < m->n; b++)
			if (a != b)
				m->cells[(size_t)a * m->n + b] = ix_cells_get(&m->store, a, b);
	free(fi.suspects);
	cr_assert_eq(ix_fabric_build(&in, f), 0);
}

static void build(struct mesh *m, bool lldp, struct ix_fabric *f)
{
	build_ctrs(m, lldp, NULL, f);
}

static const struct ix_fab_switch *switch_of(const struct ix_fabric *f, uint32_t node)
{
	return &f->sw[f->host[f->at[node]].sw];
}

Test(fabric, lldp_groups_and_the_slow_uplink)
{
	struct mesh *m = mesh_new(6, 2, 10e9);
	struct ix_fabric f;

	slow_uplink(m, 0, 0.5e9);
	build(m, true, &f);
	cr_assert_str_eq(ix_fabric_source(&f), "LLDP");
	cr_assert_eq(f.nsw, 3);
	for (uint32_t i = 0; i < m->n; i++) {
		cr_assert_str_eq(switch_of(&f, i)->name, m->nbr[i].name);
		cr_assert_str_eq(f.host[f.at[i]].port, m->nbr[i].port);
		cr_assert_eq(f.host[f.at[i]].node, i);
		/* The slow pairs all cross leaf-a's uplink: no host is blamed. */
		cr_assert_eq(f.host[f.at[i]].edge.health, IX_FAB_OK, "%s: %s", m->name[i],
			     f.host[f.at[i]].edge.why);
	}
	cr_assert_eq(switch_of(&f, 0)->uplink.health, IX_FAB_BAD);
	cr_assert_eq(switch_of(&f, 0)->uplink.bad, 16); /* 2 hosts x 4 others, both ways */
	cr_assert_lt(switch_of(&f, 0)->uplink.out_bps, 1e9);
	cr_assert_lt(ix_fab_share(&f, &switch_of(&f, 0)->uplink), 0.2);
	/* leaf-b and leaf-c see bad pairs only towards leaf-a. */
	cr_assert_eq(switch_of(&f, 2)->uplink.health, IX_FAB_OK, "%s",
		     switch_of(&f, 2)->uplink.why);
	cr_assert_eq(switch_of(&f, 4)->uplink.health, IX_FAB_OK);
	cr_assert_gt(switch_of(&f, 4)->uplink.bad, 0);
	ix_fabric_free(&f);
	mesh_free(m);
}

Test(fabric, two_switches_share_the_blame)
{
	struct mesh *m = mesh_new(4, 2, 10e9);
	struct ix_fabric f;
	uint32_t count;

	slow_uplink(m, 0, 0.5e9);
	build(m, true, &f);
	cr_assert_eq(f.nsw, 2);
	/* The pairs between them are all that is bad: both uplinks are on it. */
	cr_assert_eq(ix_fabric_worst(&f, &count), IX_FAB_BAD);
	cr_assert_eq(count, 2);
	cr_assert_eq(f.sw[0].uplink.health, IX_FAB_BAD);
	cr_assert_eq(f.sw[1].uplink.health, IX_FAB_BAD);
	ix_fabric_free(&f);
	mesh_free(m);
}

/* A one-direction mesh as the live view holds it: each pair's measured
 * cell copied to the other side, marked mirrored. The fabric counts each
 * pair once, as from the mesh's own result. */
Test(fabric, a_mirrored_view_counts_each_pair_once)
{
	struct mesh *m = mesh_new(6, 2, 10e9);
	struct ix_fabric f1, f2, f3;
	struct ix_cells mirror;
	struct ix_fab_input in = { .n = 6, .cells = &m->store, .nbrs = m->nbr };

	slow_uplink(m, 0, 0.5e9);
	for (uint32_t a = 0; a < m->n; a++)
		for (uint32_t b = 0; b < a; b++)
			m->cells[(size_t)a * m->n + b] = (struct ix_cell){ .state = IX_CELL_NONE };
	build(m, true, &f1);
	for (uint32_t a = 0; a < m->n; a++)
		for (uint32_t b = 0; b < a; b++) {
			m->cells[(size_t)a * m->n + b] = m->cells[(size_t)b * m->n + a];
			m->cells[(size_t)a * m->n + b].mirrored = 1;
		}
	sync(m);
	cr_assert_eq(ix_fabric_build(&in, &f2), 0);
	/* The live view's own store: one slot a pair, drawn both ways. */
	cr_assert_eq(ix_cells_load(&mirror, m->cells, m->n, IX_CELLS_MIRROR), 0);
	cr_assert(ix_cells_get(&mirror, 1, 0).mirrored);
	in.cells = &mirror;
	cr_assert_eq(ix_fabric_build(&in, &f3), 0);
	cr_assert_eq(switch_of(&f1, 0)->uplink.pairs, 8); /* 2 hosts x 4 others, once */
	cr_assert_eq(switch_of(&f1, 0)->uplink.health, IX_FAB_BAD);
	for (uint32_t i = 0; i < f1.nsw; i++) {
		cr_assert_eq(f2.sw[i].uplink.pairs, f1.sw[i].uplink.pairs, "switch %u", i);
		cr_assert_eq(f2.sw[i].uplink.bad, f1.sw[i].uplink.bad, "switch %u", i);
		cr_assert_eq(f2.sw[i].uplink.health, f1.sw[i].uplink.health, "switch %u", i);
	}
	for (uint32_t i = 0; i < m->n; i++) {
		cr_assert_eq(f2.host[i].edge.pairs, f1.host[i].edge.pairs, "host %u", i);
		cr_assert_eq(f2.host[i].edge.bad, f1.host[i].edge.bad, "host %u", i);
		cr_assert_eq(f3.host[i].edge.pairs, f1.host[i].edge.pairs, "host %u", i);
		cr_assert_eq(f3.host[i].edge.bad, f1.host[i].edge.bad, "host %u", i);
	}
	for (uint32_t i = 0; i < f1.nsw; i++)
		cr_assert_eq(f3.sw[i].uplink.bad, f1.sw[i].uplink.bad, "switch %u", i);
	ix_fabric_free(&f1);
	ix_fabric_free(&f2);
	ix_fabric_free(&f3);
	ix_cells_free(&mirror);
	mesh_free(m);
}

Test(fabric, one_slow_host_is_not_its_uplink)
{
	struct mesh *m = mesh_new(6, 2, 10e9);
	struct ix_fabric f;

	slow_host(m, 3, 0.5e9);
	build(m, true, &f);
	cr_assert_eq(f.host[f.at[3]].edge.health, IX_FAB_BAD);
	cr_assert_str_eq(f.host[f.at[3]].edge.why, "10 of 10 pairs bad");
	cr_assert_neq(switch_of(&f, 3)->uplink.health, IX_FAB_BAD);
	cr_assert_eq(f.host[f.at[2]].edge.health, IX_FAB_WARN); /* its one pair with h4, each way */
	ix_fabric_free(&f);
	mesh_free(m);
}

Test(fabric, inferred_without_neighbours)
{
	struct mesh *m = mesh_new(4, 2, 10e9);
	struct ix_fabric f;

	slow_uplink(m, 0, 0.5e9);
	build(m, false, &f);
	cr_assert_str_eq(ix_fabric_source(&f), "inferred from the mesh");
	cr_assert_eq(f.nsw, 2);
	cr_assert(f.sw[0].inferred);
	cr_assert_str_eq(f.sw[0].name, "group 1");
	cr_assert_eq(f.host[f.at[0]].sw, f.host[f.at[1]].sw);
	cr_assert_eq(f.host[f.at[2]].sw, f.host[f.at[3]].sw);
	cr_assert_neq(f.host[f.at[0]].sw, f.host[f.at[2]].sw);
	cr_assert_gt(f.split_bps, 0.5e9);
	cr_assert_lt(f.split_bps, 10e9);
	cr_assert_eq(f.sw[0].uplink.health, IX_FAB_BAD);
	ix_fabric_free(&f);
	mesh_free(m);
}

Test(fabric, a_slow_host_is_no_group_of_its_own)
{
	struct mesh *m = mesh_new(6, 6, 10e9);
	struct ix_fabric f;

	slow_host(m, 3, 0.5e9);
	build(m, false, &f);
	cr_assert_eq(f.nsw, 1);
	cr_assert_str_eq(f.sw[0].name, "group 1");
	cr_assert_eq(f.sw[0].count, 6);
	cr_assert_eq(f.host[f.at[3]].edge.health, IX_FAB_BAD);
	ix_fabric_free(&f);
	mesh_free(m);
}

Test(fabric, counters_that_moved_at_a_host)
{
	struct mesh *m = mesh_new(4, 2, 10e9);
	struct ix_ctr_sum ctrs[4] = { 0 };
	struct ix_fabric f;

	ctrs[2].v[IX_CC_PAUSE_RX] = 40;
	ctrs[2].has = 1u << IX_CC_PAUSE_RX;
	build_ctrs(m, true, ctrs, &f);
	cr_assert_eq(f.host[f.at[2]].edge.health, IX_FAB_WARN);
	cr_assert_str_eq(f.host[f.at[2]].edge.why, "counters moved: 40 pause frames received");
	cr_assert_eq(f.host[f.at[3]].edge.health, IX_FAB_OK);
	/* leaf-b's uplink carries its hosts' counters, and no blame. */
	cr_assert_eq(switch_of(&f, 2)->uplink.ctrs.v[IX_CC_PAUSE_RX], 40);
	cr_assert_eq(switch_of(&f, 2)->uplink.health, IX_FAB_OK);
	ix_fabric_free(&f);
	mesh_free(m);
}

/* Pairs spread over a wide range with no set of hosts apart: the widest
 * gap splits nothing the pairs bear out. */
Test(fabric, a_noisy_mesh_is_one_group)
{
	struct mesh *m = mesh_new(6, 6, 10e9);
	struct ix_fabric f;

	for (uint32_t a = 0; a < 6; a++)
		for (uint32_t b = 0; b < 6; b++)
			if (a != b)
				m->cells[a * 6 + b].bw_bps =
					(float)(((a + 2 * b) % 3 ? 20e9 : 5e9));
	build(m, false, &f);
	cr_assert_eq(f.nsw, 1, "%u groups", f.nsw);
	cr_assert_eq(f.split_bps, 0);
	ix_fabric_free(&f);
	mesh_free(m);
}

Test(fabric, an_even_mesh_is_one_group)
{
	struct mesh *m = mesh_new(8, 2, 10e9);
	struct ix_fabric f;

	build(m, false, &f);
	cr_assert_eq(f.nsw, 1);
	cr_assert_eq(f.split_bps, 0);
	cr_assert_eq(ix_fabric_worst(&f, NULL), IX_FAB_OK);
	ix_fabric_free(&f);
	mesh_free(m);
}

Test(fabric, a_thousand_hosts_in_bands)
{
	struct mesh *m = mesh_new(1024, 32, 10e9);
	struct ix_fabric f;

	slow_uplink(m, 5, 1e9);
	build(m, true, &f);
	cr_assert_eq(f.nsw, 32);
	cr_assert_eq(f.sw[5].uplink.health, IX_FAB_BAD);
	cr_assert_leq(f.width, 68);
	for (uint32_t s = 0; s < f.nsw; s++) {
		cr_assert_leq(f.sw[s].x + f.sw[s].cols, f.width);
		cr_assert_eq(f.sw[s].cols, 16);
		cr_assert_eq(f.sw[s].rows, 2);
		if (s != 5)
			cr_assert_eq(f.sw[s].uplink.health, IX_FAB_OK, "switch %u", s);
	}
	/* No two hosts share a cell, and each sits in its switch's block. */
	for (uint32_t p = 0; p < f.n; p++) {
		const struct ix_fab_switch *w = &f.sw[f.host[p].sw];

		cr_assert_geq(f.host[p].x, w->x);
		cr_assert_lt(f.host[p].x, w->x + w->cols);
		cr_assert_gt(f.host[p].y, w->y);
		cr_assert_leq(f.host[p].y, w->y + w->rows);
		if (p)
			cr_assert(f.host[p].x != f.host[p - 1].x || f.host[p].y != f.host[p - 1].y);
	}
	cr_assert_eq(f.height, 8 * 5 - 2); /* eight bands of a header and two rows */
	ix_fabric_free(&f);
	mesh_free(m);
}
