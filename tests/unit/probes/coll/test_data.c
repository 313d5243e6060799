/* Unit tests for probes/coll/data.c: the check's data. Each collective is
 * carried out here by a plain reference over n ranks' operands, in every
 * data type and reduction, and the check must find its result right, and
 * find one corrupted element; float16 and bfloat16 conversions against
 * known bit patterns. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/coll.h"

#define N    4
#define SIZE 384 /* bytes per row: 48 int64 elements, 12 a rank */

static double reduce(enum ix_coll_redop r, const double *v, int n, bool integer)
{
	double x = v[0];

	for (int i = 1; i < n; i++)
		x = r == IX_COLL_PROD  ? x * v[i]
		    : r == IX_COLL_MAX ? fmax(x, v[i])
		    : r == IX_COLL_MIN ? fmin(x, v[i])
				       : x + v[i];
	if (r == IX_COLL_AVG)
		x = integer ? floor(x / n) : x / n;
	return x;
}

/* The result of rank me, element j, by the collective's definition. */
static double reference(enum ix_coll_op op, enum ix_coll_redop r, enum ix_coll_dtype t,
			const struct ix_coll_shape *sh, int me, int root, size_t j)
{
	double v[N];
	size_t per = sh->count;
	size_t i = op == IX_COLL_REDUCE_SCATTER ? (size_t)me * per + j : j;

	switch (op) {
	case IX_COLL_ALL_REDUCE:
	case IX_COLL_REDUCE:
	case IX_COLL_REDUCE_SCATTER:
		for (int k = 0; k < N; k++)
			v[k] = ix_coll_data_value(op, r, N, k, i);
		return reduce(r, v, N, t <= IX_COLL_UINT64);
	case IX_COLL_ALL_GATHER:
		return ix_coll_data_value(op, r, N, (int)(j / per), j % per);
	case IX_COLL_ALLTOALL:
		return ix_coll_data_value(op, r, N, (int)(j / per), (size_t)me * per + j % per);
	case IX_COLL_BROADCAST:
		return ix_coll_data_value(op, r, N, root, j);
	default:
		return ix_coll_data_value(op, r, N, (me + N - 1) % N, j);
	}
}

static void one(enum ix_coll_op op, enum ix_coll_redop r, enum ix_coll_dtype t)
{
	size_t dsize = ix_coll_dtype_size(t);
	struct ix_coll_shape sh;
	uint8_t *buf;
	int root = 1;

	ix_coll_shape(op, SIZE / 8 * dsize, dsize, N, &sh);
	buf = calloc(sh.recv + 1, dsize);
	cr_assert_not_null(buf);
	for (int me = 0; me < N; me++) {
		size_t first = 99;

		for (size_t j = 0; j < sh.recv; j++)
			ix_coll_data_put(t, buf, j, reference(op, r, t, &sh, me, root, j));
		cr_assert_eq(ix_coll_data_check(op, r, t, N, me, root, &sh, buf, &first), 0,
			     "%s %s %s rank %d: the reference's result is right",
			     ix_coll_op_name(op), ix_coll_dtype_name(t), ix_coll_redop_name(r), me);
		if (op == IX_COLL_REDUCE && me != root)
			continue; /* not the root: nothing to check */
		/* one element off by one */
		ix_coll_data_put(t, buf, 5, ix_coll_data_get(t, buf, 5) + 1);
		cr_assert_eq(ix_coll_data_check(op, r, t, N, me, root, &sh, buf, &first), 1,
			     "%s %s %s rank %d: one wrong element", ix_coll_op_name(op),
			     ix_coll_dtype_name(t), ix_coll_redop_name(r), me);
		cr_assert_eq(first, 5);
	}
	free(buf);
}

Test(data, every_op_type_and_reduction)
{
	for (int op = 0; op < IX_COLL_NOPS; op++)
		for (int t = 0; t < IX_COLL_NDTYPES; t++)
			for (int r = 0; r < IX_COLL_NREDOPS; r++) {
				if (!ix_coll_op_reduces((enum ix_coll_op)op) && r > 0)
					continue;
				one((enum ix_coll_op)op, (enum ix_coll_redop)r,
				    (enum ix_coll_dtype)t);
			}
}

Test(data, values_fit_every_type)
{
	for (int op = 0; op < IX_COLL_NOPS; op++)
		for (int r = 0; r < IX_COLL_NREDOPS; r++)
			for (size_t i = 0; i < 1000; i++) {
				double v = ix_coll_data_value((enum ix_coll_op)op,
							      (enum ix_coll_redop)r, 7, 3, i);
				cr_assert(v >= 0 && v <= 98 && v == floor(v),
					  "small non-negative integers only: %g", v);
			}
}

Test(data, a_lost_rank_is_seen)
{
	struct ix_coll_shape sh;
	float out[64];

	/* all_reduce sum over 4 ranks where rank 2's contribution is lost */
	ix_coll_shape(IX_COLL_ALL_REDUCE, sizeof(out), 4, N, &sh);
	for (size_t j = 0; j < 64; j++) {
		double s = 0;
		for (int k = 0; k < N; k++)
			if (k != 2)
				s += ix_coll_data_value(IX_COLL_ALL_REDUCE, IX_COLL_SUM, N, k, j);
		out[j] = (float)s;
	}
	cr_assert_eq(ix_coll_data_check(IX_COLL_ALL_REDUCE, IX_COLL_SUM, IX_COLL_FLOAT32, N, 0, 0,
					&sh, out, NULL),
		     16, "the 16 elements rank 2 owns");
}

Test(data, float16_bits)
{
	uint16_t h;

	ix_coll_data_put(IX_COLL_FLOAT16, &h, 0, 1.0);
	cr_assert_eq(h, 0x3c00);
	ix_coll_data_put(IX_COLL_FLOAT16, &h, 0, 65504.0);
	cr_assert_eq(h, 0x7bff, "the largest half");
	ix_coll_data_put(IX_COLL_FLOAT16, &h, 0, 70000.0);
	cr_assert_eq(h, 0x7c00, "past it: inf");
	ix_coll_data_put(IX_COLL_FLOAT16, &h, 0, -2.0);
	cr_assert_eq(h, 0xc000);
	ix_coll_data_put(IX_COLL_FLOAT16, &h, 0, 2049.0);
	cr_assert_eq(h, 0x6800, "2049 rounds to even, 2048");
	ix_coll_data_put(IX_COLL_FLOAT16, &h, 0, ldexp(1, -24));
	cr_assert_eq(h, 0x0001, "the smallest subnormal");
	h = 0x3555;
	cr_assert_float_eq(ix_coll_data_get(IX_COLL_FLOAT16, &h, 0), 0.333251953125, 1e-12);
	for (int v = 0; v <= 2048; v++) {
		ix_coll_data_put(IX_COLL_FLOAT16, &h, 0, v);
		cr_assert_eq(ix_coll_data_get(IX_COLL_FLOAT16, &h, 0), v);
	}
}

Test(data, bfloat16_bits)
{
	uint16_t b;

	ix_coll_data_put(IX_COLL_BFLOAT16, &b, 0, 1.0);
	cr_assert_eq(b, 0x3f80);
	ix_coll_data_put(IX_COLL_BFLOAT16, &b, 0, 257.0);
	cr_assert_eq(b, 0x4380, "257 rounds to even, 256");
	ix_coll_data_put(IX_COLL_BFLOAT16, &b, 0, -3.0);
	cr_assert_eq(b, 0xc040);
	for (int v = 0; v <= 256; v++) {
		ix_coll_data_put(IX_COLL_BFLOAT16, &b, 0, v);
		cr_assert_eq(ix_coll_data_get(IX_COLL_BFLOAT16, &b, 0), v);
	}
}

Test(data, integers_wrap_like_the_library)
{
	int8_t c;
	uint64_t u;

	ix_coll_data_put(IX_COLL_INT8, &c, 0, -5);
	cr_assert_eq(c, -5);
	cr_assert_eq(ix_coll_data_get(IX_COLL_INT8, &c, 0), -5);
	ix_coll_data_put(IX_COLL_UINT64, &u, 0, 12345678901.0);
	cr_assert_eq(u, 12345678901ull);
}
