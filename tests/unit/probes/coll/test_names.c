/* Unit tests for probes/coll/names.c: the names of collectives, data types
 * and reductions, nccl-tests' spellings and the usual aliases, and the
 * errors that list the known ones. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/coll.h"

Test(names, ops_round_trip)
{
	for (int i = 0; i < IX_COLL_NOPS; i++) {
		enum ix_coll_op op;
		cr_assert_eq(ix_coll_op_parse(ix_coll_op_name((enum ix_coll_op)i), &op, NULL), 0);
		cr_assert_eq(op, (enum ix_coll_op)i);
	}
}

Test(names, nccl_tests_binary_names)
{
	enum ix_coll_op op;

	cr_assert_eq(ix_coll_op_parse("all_reduce_perf", &op, NULL), 0);
	cr_assert_eq(op, IX_COLL_ALL_REDUCE);
	cr_assert_eq(ix_coll_op_parse("alltoall_perf", &op, NULL), 0);
	cr_assert_eq(op, IX_COLL_ALLTOALL);
}

Test(names, unknown_op_lists_the_known)
{
	struct ix_err err = { 0 };
	enum ix_coll_op op;

	cr_assert_eq(ix_coll_op_parse("allreduce", &op, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "'allreduce'") && strstr(err.msg, "all_reduce"), "%s", err.msg);
	cr_assert_eq(ix_coll_op_parse("all_reduce_perfx", &op, &err), -1);
}

Test(names, dtypes_as_nccl_numbers_them)
{
	enum ix_coll_dtype t;

	cr_assert_eq(ix_coll_dtype_parse("float", &t, NULL), 0);
	cr_assert_eq(t, IX_COLL_FLOAT32);
	cr_assert_eq((int)t, 7, "ncclFloat32");
	cr_assert_eq(ix_coll_dtype_parse("BF16", &t, NULL), 0);
	cr_assert_eq((int)t, 9, "ncclBfloat16");
	cr_assert_eq(ix_coll_dtype_parse("fp16", &t, NULL), 0);
	cr_assert_eq(t, IX_COLL_FLOAT16);
	cr_assert_str_eq(ix_coll_dtype_name(IX_COLL_FLOAT16), "half", "nccl-tests' name");
	cr_assert_eq(ix_coll_dtype_size(IX_COLL_BFLOAT16), 2);
	cr_assert_eq(ix_coll_dtype_size(IX_COLL_UINT64), 8);
	cr_assert_eq(ix_coll_dtype_size(IX_COLL_INT8), 1);
}

Test(names, unknown_dtype_and_redop)
{
	struct ix_err err = { 0 };
	enum ix_coll_dtype t;
	enum ix_coll_redop r;

	cr_assert_eq(ix_coll_dtype_parse("float128", &t, &err), -1);
	cr_assert(strstr(err.msg, "bfloat16"), "%s", err.msg);
	cr_assert_eq(ix_coll_redop_parse("mulsum", &r, &err), -1);
	cr_assert(strstr(err.msg, "avg"), "%s", err.msg);
	cr_assert_eq(ix_coll_redop_parse("MAX", &r, NULL), 0);
	cr_assert_eq((int)r, 2, "ncclMax");
}

Test(names, roles_and_factors)
{
	cr_assert(ix_coll_op_reduces(IX_COLL_REDUCE_SCATTER));
	cr_assert(!ix_coll_op_reduces(IX_COLL_ALL_GATHER));
	cr_assert(ix_coll_op_rooted(IX_COLL_BROADCAST));
	cr_assert(!ix_coll_op_rooted(IX_COLL_ALL_REDUCE));
	cr_assert_str_eq(ix_coll_factor_text(IX_COLL_ALL_REDUCE), "2(n-1)/n");
	cr_assert_str_eq(ix_coll_factor_text(IX_COLL_ALLTOALL), "(n-1)/n");
	cr_assert_str_eq(ix_coll_factor_text(IX_COLL_SENDRECV), "1");
	cr_assert_str_eq(ix_coll_place_name(IX_COLL_IN_PLACE), "in-place");
}

Test(names, in_place_p2p_is_not_checked)
{
	cr_assert(ix_coll_checkable(IX_COLL_SENDRECV, IX_COLL_OUT_OF_PLACE));
	cr_assert(!ix_coll_checkable(IX_COLL_SENDRECV, IX_COLL_IN_PLACE));
	cr_assert(!ix_coll_checkable(IX_COLL_ALLTOALL, IX_COLL_IN_PLACE));
	cr_assert(ix_coll_checkable(IX_COLL_ALL_GATHER, IX_COLL_IN_PLACE));
}
