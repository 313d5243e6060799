/* Unit tests for probes/rdma/access.c: what each end's buffer grants. */
#include "config.h"

#include <criterion/criterion.h>

#include "probes/rdma/access.h"
#include "probes/rdma/verbs.h"

static unsigned access_of(enum ix_rdma_kind kind, enum ix_rdma_op op, bool bidir, bool requester)
{
	struct ix_rdma_params p;

	ix_rdma_params_init(&p, kind, op);
	p.bidirectional = bidir;
	return ix_rdma_mr_access(&p, requester);
}

#define LW IX_VERBS_ACCESS_LOCAL_WRITE
#define RW IX_VERBS_ACCESS_REMOTE_WRITE
#define RR IX_VERBS_ACCESS_REMOTE_READ

Test(access, only_what_the_op_needs)
{
	/* Send and receive: no peer touches the buffer. */
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_SEND, false, true), LW);
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_SEND, false, false), LW);
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_SEND, true, false), LW);
	cr_expect_eq(access_of(IX_RDMA_LAT, IX_RDMA_OP_SEND, false, true), LW);
	/* Write: the target takes writes, the initiator grants nothing. */
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_WRITE, false, true), LW);
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_WRITE, false, false), LW | RW);
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_WRITE_IMM, false, true), LW);
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_WRITE_IMM, false, false), LW | RW);
	cr_expect_eq(access_of(IX_RDMA_MESH, IX_RDMA_OP_WRITE, false, false), LW | RW);
	/* Read: the target is read from; the reader only writes locally. */
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_READ, false, true), LW);
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_READ, false, false), LW | RR);
	cr_expect_eq(access_of(IX_RDMA_INCAST, IX_RDMA_OP_READ, false, false), LW | RR);
	/* Never both remote rights. */
	for (int op = IX_RDMA_OP_WRITE; op <= IX_RDMA_OP_WRITE_IMM; op++)
		for (int k = IX_RDMA_BW; k <= IX_RDMA_MESH; k++)
			for (int b = 0; b < 4; b++)
				cr_expect_neq(access_of(k, op, b & 1, b & 2) & (RW | RR), RW | RR);
}

Test(access, both_ends_when_both_are_targets)
{
	/* Bidirectional: each end is also the other's target. */
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_WRITE, true, true), LW | RW);
	cr_expect_eq(access_of(IX_RDMA_BW, IX_RDMA_OP_READ, true, true), LW | RR);
	/* Latency write ping-pong: the answer is a write back. */
	cr_expect_eq(access_of(IX_RDMA_LAT, IX_RDMA_OP_WRITE, false, true), LW | RW);
	cr_expect_eq(access_of(IX_RDMA_LAT, IX_RDMA_OP_WRITE, false, false), LW | RW);
	cr_expect_eq(access_of(IX_RDMA_LAT, IX_RDMA_OP_WRITE_IMM, false, true), LW | RW);
	/* Latency read: only the responder is read from. */
	cr_expect_eq(access_of(IX_RDMA_LAT, IX_RDMA_OP_READ, false, true), LW);
	cr_expect_eq(access_of(IX_RDMA_LAT, IX_RDMA_OP_READ, false, false), LW | RR);
}
