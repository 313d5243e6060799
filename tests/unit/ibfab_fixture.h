/* Unit tests: a cable between two ports of a subnet built by hand
 * (probes/ibfab/ibfab.h), both ends 4X QDR Active, able to train at that,
 * their counters read twice. */
#ifndef IX_TEST_IBFAB_FIXTURE_H
#define IX_TEST_IBFAB_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/ibfab/ibfab.h"

static inline void ix_test_ib_cable(struct ix_ibfab *f, int32_t a, uint32_t pa, int32_t b,
				    uint32_t pb)
{
	struct ix_ibfab_port *x = ix_ibfab_port(f, a, pa), *y = ix_ibfab_port(f, b, pb);

	cr_assert(x && y);
	*x = (struct ix_ibfab_port){ .num = (uint8_t)pa,
				     .lid = 1,
				     .state = 4,
				     .phys = 5,
				     .width_active = 2,
				     .width_enabled = 3,
				     .width_supported = 3,
				     .speed_active = 4,
				     .speed_enabled = 7,
				     .speed_supported = 7,
				     .peer_node = b,
				     .peer_port = (uint8_t)pb };
	*y = *x;
	y->num = (uint8_t)pb;
	y->peer_node = a;
	y->peer_port = (uint8_t)pa;
	for (int s = 0; s < 2; s++)
		x->ctr[s].valid = y->ctr[s].valid = true;
}

/* A small fat tree, routed by hand: adapters h1..h6 (nodes 0-5, LIDs
 * 1-6, port GUIDs 0x101..0x106), two on each of the leaves L1, L2, L3
 * (nodes 6-8, LIDs 7-9; ports 1 and 2 down, 3 up to S1 and 4 up to S2),
 * the spines S1 and S2 (nodes 9-10, LIDs 10-11; port k down to leaf k).
 * Each leaf sends one of each other leaf's hosts up through S1 and the
 * other through S2. */
enum {
	IX_T_H1,
	IX_T_H2,
	IX_T_H3,
	IX_T_H4,
	IX_T_H5,
	IX_T_H6,
	IX_T_L1,
	IX_T_L2,
	IX_T_L3,
	IX_T_S1,
	IX_T_S2,
	IX_T_NODES
};

static inline void ix_test_ib_fat_tree(struct ix_ibfab *f)
{
	static const char *const names[] = { "h1 mlx5_0", "h2 mlx5_0", "h3 mlx5_0", "h4 mlx5_0",
					     "h5 mlx5_0", "h6 mlx5_0", "L1",        "L2",
					     "L3",        "S1",        "S2" };
	/* per switch: the port for LIDs 1..11 (0: itself) */
	static const uint8_t lft[5][12] = {
		{ 0xff, 1, 2, 3, 4, 3, 4, 0, 3, 4, 3, 4 }, /* L1 */
		{ 0xff, 3, 4, 1, 2, 4, 3, 3, 0, 3, 3, 4 }, /* L2 */
		{ 0xff, 4, 3, 3, 4, 1, 2, 3, 4, 0, 3, 4 }, /* L3 */
		{ 0xff, 1, 1, 2, 2, 3, 3, 1, 2, 3, 0, 1 }, /* S1 */
		{ 0xff, 1, 1, 2, 2, 3, 3, 1, 2, 3, 1, 0 }, /* S2 */
	};

	ix_ibfab_init(f);
	for (int i = 0; i < IX_T_NODES; i++)
		cr_assert(ix_ibfab_add(f, 0x100u + (uint64_t)i, i >= IX_T_L1, names[i],
				       i < IX_T_L1   ? 1
				       : i < IX_T_S1 ? 4
						     : 3));
	for (int l = 0; l < 3; l++) {
		ix_test_ib_cable(f, 2 * l, 1, IX_T_L1 + l, 1);
		ix_test_ib_cable(f, 2 * l + 1, 1, IX_T_L1 + l, 2);
		ix_test_ib_cable(f, IX_T_L1 + l, 3, IX_T_S1, (uint32_t)l + 1);
		ix_test_ib_cable(f, IX_T_L1 + l, 4, IX_T_S2, (uint32_t)l + 1);
	}
	for (int i = 0; i < IX_T_NODES; i++) {
		struct ix_ibfab_node *nd = &f->nodes[i];

		nd->lid = (uint16_t)(i + 1);
		for (uint32_t p = 0; p <= nd->nports; p++) {
			nd->ports[p].lid = nd->lid;
			nd->ports[p].guid = i < IX_T_L1 ? 0x101u + (uint64_t)i : nd->guid;
		}
		if (i < IX_T_L1)
			continue;
		nd->lft = malloc(12);
		cr_assert(nd->lft);
		memcpy(nd->lft, lft[i - IX_T_L1], 12);
		nd->nlft = 12;
	}
}

#endif
