/* Unit tests for probes/coll/shape.c: each collective's counts, buffers and
 * in-place offsets as nccl-tests counts them, the bus-bandwidth factors of
 * doc/PERFORMANCE.md, and the sizes of a sweep. */
#include "config.h"

#include <criterion/criterion.h>

#include "probes/coll/coll.h"

/* 1 KiB of float over 4 ranks: 256 elements, 64 a rank. */
static struct ix_coll_shape shape(enum ix_coll_op op)
{
	struct ix_coll_shape s;

	ix_coll_shape(op, 1024, 4, 4, &s);
	return s;
}

Test(shape, whole_array_ops)
{
	enum ix_coll_op ops[] = { IX_COLL_ALL_REDUCE, IX_COLL_BROADCAST, IX_COLL_REDUCE,
				  IX_COLL_SENDRECV };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct ix_coll_shape s = shape(ops[i]);
		cr_assert_eq(s.count, 256, "%s", ix_coll_op_name(ops[i]));
		cr_assert_eq(s.send, 256);
		cr_assert_eq(s.recv, 256);
		cr_assert_eq(s.send_off, 0);
		cr_assert_eq(s.recv_off, 0);
		cr_assert_eq(s.row_bytes, 1024);
		cr_assert_float_eq(s.alg_bytes, 1024, 1e-9);
	}
}

Test(shape, all_gather)
{
	struct ix_coll_shape s = shape(IX_COLL_ALL_GATHER);

	cr_assert_eq(s.count, 64, "the count is one rank's share");
	cr_assert_eq(s.send, 64);
	cr_assert_eq(s.recv, 256);
	cr_assert_eq(s.send_off, 64, "in place, rank r's operand is its block of the result");
	cr_assert_eq(s.recv_off, 0);
	cr_assert_eq(s.row_bytes, 1024);
	cr_assert_float_eq(s.alg_bytes, 1024, 1e-9, "S is the whole gathered array");
}

Test(shape, reduce_scatter)
{
	struct ix_coll_shape s = shape(IX_COLL_REDUCE_SCATTER);

	cr_assert_eq(s.count, 64);
	cr_assert_eq(s.send, 256);
	cr_assert_eq(s.recv, 64);
	cr_assert_eq(s.send_off, 0);
	cr_assert_eq(s.recv_off, 64, "in place, rank r's result is its block of the operand");
	cr_assert_eq(s.row_bytes, 1024);
	cr_assert_float_eq(s.alg_bytes, 1024, 1e-9);
}

Test(shape, alltoall)
{
	struct ix_coll_shape s = shape(IX_COLL_ALLTOALL);

	cr_assert_eq(s.count, 64);
	cr_assert_eq(s.send, 256);
	cr_assert_eq(s.recv, 256);
	cr_assert_float_eq(s.alg_bytes, 1024, 1e-9);
}

Test(shape, uneven_sizes_round_down_to_whole_shares)
{
	struct ix_coll_shape s;

	/* 1000 bytes of float over 3 ranks: 250 elements, 83 a rank. */
	ix_coll_shape(IX_COLL_ALL_GATHER, 1000, 4, 3, &s);
	cr_assert_eq(s.count, 83);
	cr_assert_eq(s.recv, 249);
	cr_assert_eq(s.row_bytes, 996);
	cr_assert_float_eq(s.alg_bytes, 996, 1e-9);
}

Test(shape, bus_factors)
{
	cr_assert_float_eq(ix_coll_bus_factor(IX_COLL_ALL_REDUCE, 8), 1.75, 1e-12);
	cr_assert_float_eq(ix_coll_bus_factor(IX_COLL_ALL_REDUCE, 2), 1.0, 1e-12);
	cr_assert_float_eq(ix_coll_bus_factor(IX_COLL_ALL_REDUCE, 1), 0.0, 1e-12,
			   "all_reduce of one rank moves nothing: nccl-tests prints busbw 0");
	cr_assert_float_eq(ix_coll_bus_factor(IX_COLL_ALL_GATHER, 8), 0.875, 1e-12);
	cr_assert_float_eq(ix_coll_bus_factor(IX_COLL_REDUCE_SCATTER, 4), 0.75, 1e-12);
	cr_assert_float_eq(ix_coll_bus_factor(IX_COLL_ALLTOALL, 16), 0.9375, 1e-12);
	cr_assert_float_eq(ix_coll_bus_factor(IX_COLL_BROADCAST, 8), 1.0, 1e-12);
	cr_assert_float_eq(ix_coll_bus_factor(IX_COLL_REDUCE, 8), 1.0, 1e-12);
	cr_assert_float_eq(ix_coll_bus_factor(IX_COLL_SENDRECV, 8), 1.0, 1e-12);
}

Test(shape, sweep_by_factor)
{
	size_t s[IX_COLL_MAX_ROWS];
	int n;

	cr_assert_eq(ix_coll_sizes(8, 64, 2, 0, s, IX_COLL_MAX_ROWS, &n, NULL), 0);
	cr_assert_eq(n, 4);
	cr_assert(s[0] == 8 && s[1] == 16 && s[2] == 32 && s[3] == 64);
	/* nccl-tests stops at the last size not above -e */
	cr_assert_eq(ix_coll_sizes(8, 100, 4, 0, s, IX_COLL_MAX_ROWS, &n, NULL), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(s[1], 32, "128 would pass -e 100");
}

Test(shape, sweep_by_step_and_single)
{
	size_t s[IX_COLL_MAX_ROWS];
	int n;

	cr_assert_eq(ix_coll_sizes(1 << 20, 3 << 20, 1, 1 << 20, s, IX_COLL_MAX_ROWS, &n, NULL), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(s[2], 3u << 20);
	cr_assert_eq(ix_coll_sizes(32 << 20, 32 << 20, 1, 0, s, IX_COLL_MAX_ROWS, &n, NULL), 0);
	cr_assert_eq(n, 1, "nccl-tests' default: one size");
}

Test(shape, sweep_errors)
{
	size_t s[4];
	struct ix_err err = { 0 };
	int n;

	cr_assert_eq(ix_coll_sizes(64, 8, 2, 0, s, 4, &n, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "-b 64") && strstr(err.msg, "-e 8"), "%s", err.msg);
	cr_assert_eq(ix_coll_sizes(0, 8, 2, 0, s, 4, &n, &err), -1, "a factor from 0 never grows");
	cr_assert_eq(ix_coll_sizes(8, 64, 1, 0, s, 4, &n, &err), -1);
	cr_assert(strstr(err.msg, "-f 2"), "%s", err.msg);
	cr_assert_eq(ix_coll_sizes(1, 1 << 20, 2, 0, s, 4, &n, &err), -1);
	cr_assert(strstr(err.msg, "more than 4 sizes"), "%s", err.msg);
}
