/* Unit tests: a cable between two ports of a subnet built by hand
 * (probes/ibfab/ibfab.h), both ends 4X QDR Active, able to train at that,
 * their counters read twice. */
#ifndef IX_TEST_IBFAB_FIXTURE_H
#define IX_TEST_IBFAB_FIXTURE_H

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

#endif
