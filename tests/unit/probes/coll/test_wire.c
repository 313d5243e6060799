/* Unit tests for probes/coll/wire.c: a rank's report survives the trip to
 * rank 0 whole, and bytes that are not one whole report are refused. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/wire.h"

static struct ix_coll_rank *sample(void)
{
	struct ix_coll_rank *r = calloc(1, sizeof(*r));

	r->rank = 7;
	snprintf(r->node, sizeof(r->node), "gpu-node-12");
	r->device = 3;
	snprintf(r->gpu, sizeof(r->gpu), "Fake GPU 1");
	snprintf(r->pci_bus_id, sizeof(r->pci_bus_id), "0000:18:00.0");
	r->joined = true;
	r->missing = true; /* rank 0's own note: not carried */
	r->nrows = 2;
	r->cell[1][1] = (struct ix_coll_rank_cell){ true, 12.5, 11.0, 10.5, 30.25, 3, 17 };
	r->cell[0][0] = (struct ix_coll_rank_cell){ true, 1.5, 1.0, 0.5, 2.0, -1, 0 };
	r->niter = 3;
	r->iter_us[0] = 1.5f;
	r->iter_us[2] = 99.25f;
	r->pair_bps = 12.5e9;
	r->facts.nvlinks = 18;
	r->facts.nvlink_Bps = 450e9;
	snprintf(r->facts.nic, sizeof(r->facts.nic), "mlx5_0/1");
	snprintf(r->facts.nic_path, sizeof(r->facts.nic_path), "PIX");
	r->facts.fabric_known = true;
	r->facts.fabric_moved.v[IX_CC_ERROR] = 12;
	r->facts.fabric_moved.has = 1u << IX_CC_ERROR;
	snprintf(r->error, sizeof(r->error), "the collectives did not end within 5 s");
	return r;
}

Test(wire, round_trip)
{
	struct ix_coll_rank *r = sample(), *back = calloc(1, sizeof(*back));
	uint8_t *buf;
	size_t len;

	cr_assert_eq(ix_coll_wire_encode(r, &buf, &len, NULL), 0);
	cr_assert_lt(len, 1000, "a report is small: only its rows go");
	cr_assert_eq(ix_coll_wire_decode(buf, len, back, NULL), 0);
	cr_assert_eq(back->rank, 7);
	cr_assert_str_eq(back->node, "gpu-node-12");
	cr_assert_eq(back->device, 3);
	cr_assert_str_eq(back->gpu, "Fake GPU 1");
	cr_assert_str_eq(back->pci_bus_id, "0000:18:00.0");
	cr_assert(back->joined && !back->complete);
	cr_assert(!back->missing, "rank 0 decides that, not the sender");
	cr_assert_eq(back->nrows, 2);
	cr_assert_eq(memcmp(&back->cell[1][1], &r->cell[1][1], sizeof(r->cell[1][1])), 0);
	cr_assert_eq(back->cell[0][0].wrong, -1);
	cr_assert_eq(back->niter, 3);
	cr_assert_float_eq(back->iter_us[2], 99.25, 1e-6);
	cr_assert_float_eq(back->pair_bps, 12.5e9, 1);
	cr_assert_eq(back->facts.nvlinks, 18);
	cr_assert_float_eq(back->facts.nvlink_Bps, 450e9, 1);
	cr_assert_str_eq(back->facts.nic, "mlx5_0/1");
	cr_assert_str_eq(back->facts.nic_path, "PIX");
	cr_assert(back->facts.fabric_known);
	cr_assert_eq(back->facts.fabric_moved.v[IX_CC_ERROR], 12);
	cr_assert_eq(back->facts.fabric_moved.has, 1u << IX_CC_ERROR);
	cr_assert_str_eq(back->error, r->error);
	free(buf);
	free(r);
	free(back);
}

Test(wire, refused)
{
	struct ix_coll_rank *r = sample(), *back = calloc(1, sizeof(*back));
	struct ix_err err = { 0 };
	uint8_t *buf;
	size_t len;

	cr_assert_eq(ix_coll_wire_encode(r, &buf, &len, NULL), 0);
	for (size_t cut = 0; cut < len; cut += 7)
		cr_assert_eq(ix_coll_wire_decode(buf, cut, back, &err), -1, "cut at %zu", cut);
	cr_assert_eq(ix_coll_wire_decode(buf, len + 1, back, &err), -1, "a byte too many");
	buf[0] = 'X';
	cr_assert_eq(ix_coll_wire_decode(buf, len, back, &err), -1);
	cr_assert(strstr(err.msg, "IXC2"), "%s", err.msg);
	buf[0] = 'I';
	/* nrows at offset 4 + 4 + 4 + 1 + 1 */
	buf[14] = 0xff;
	cr_assert_eq(ix_coll_wire_decode(buf, len, back, &err), -1);
	cr_assert(strstr(err.msg, "malformed"), "%s", err.msg);
	free(buf);
	free(r);
	free(back);
}
