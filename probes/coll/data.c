#include "config.h"

#include <math.h>
#include <string.h>

#include "probes/coll/coll.h"

/*
 * The check's data: small integers, so that every type holds every operand
 * and every result of sum, prod, max and min exactly whatever the order of
 * the reduction. For the reducing ops element i has one rank of its own
 * (i mod n), which alone puts a value that moves the result there: a rank's
 * contribution lost, doubled or misplaced changes the elements it owns.
 * For the others the value names its rank and place.
 */

static double owned(enum ix_coll_redop redop, size_t i, int nranks, bool owner)
{
	size_t k = i / (size_t)nranks % 3;

	switch (redop) {
	case IX_COLL_PROD:
		return owner ? 2.0 + (double)(k % 2) : 1.0;
	case IX_COLL_MAX:
		return owner ? 2.0 + (double)k : 1.0;
	case IX_COLL_MIN:
		return owner ? (double)k : 3.0;
	default: /* sum, avg */
		return owner ? 1.0 + (double)k : 0.0;
	}
}

double ix_coll_data_value(enum ix_coll_op op, enum ix_coll_redop redop, int nranks, int rank,
			  size_t i)
{
	if (nranks < 1)
		nranks = 1;
	if (ix_coll_op_reduces(op))
		return owned(redop, i, nranks, (size_t)rank == i % (size_t)nranks);
	return 1.0 + (double)(((size_t)rank * 31 + i) % 97);
}

/* --- float16 and bfloat16 ------------------------------------------------ */

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bits_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* IEEE binary16, rounded to nearest even. */
static uint16_t half_of(float f)
{
	uint32_t u = float_bits(f), sign = (u >> 16) & 0x8000u, mant = u & 0x7fffffu;
	int exp = (int)((u >> 23) & 0xff);

	if (exp == 0xff) /* inf, nan (kept quiet) */
		return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
	exp = exp - 127 + 15;
	if (exp >= 0x1f)
		return (uint16_t)(sign | 0x7c00u);
	if (exp <= 0) { /* subnormal or zero */
		if (exp < -10)
			return (uint16_t)sign;
		mant |= 0x800000u;
		unsigned shift = (unsigned)(14 - exp);
		uint32_t h = mant >> shift, rest = mant & ((1u << shift) - 1),
			 halfway = 1u << (shift - 1);
		if (rest > halfway || (rest == halfway && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)exp << 10) | (mant >> 13), rest = mant & 0x1fffu;
	if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
		h++; /* may carry into the exponent, up to inf: as it should */
	return (uint16_t)(sign | h);
}

static float half_to(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;

	if (exp == 0x1f)
		return bits_float(sign | 0x7f800000u | (mant << 13));
	if (exp == 0) {
		float v = ldexpf((float)mant, -24);
		return sign ? -v : v;
	}
	return bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

static uint16_t bf16_of(float f)
{
	uint32_t u = float_bits(f);

	if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu))
		return (uint16_t)((u >> 16) | 0x40u); /* a quiet nan */
	u += 0x7fffu + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static float bf16_to(uint16_t b)
{
	return bits_float((uint32_t)b << 16);
}

void ix_coll_data_put(enum ix_coll_dtype t, void *buf, size_t i, double v)
{
	uint8_t *p = (uint8_t *)buf + i * ix_coll_dtype_size(t);

	switch (t) {
	case IX_COLL_INT8: {
		int8_t x = (int8_t)v;
		memcpy(p, &x, sizeof(x));
		break;
	}
	case IX_COLL_UINT8: {
		uint8_t x = (uint8_t)v;
		memcpy(p, &x, sizeof(x));
		break;
	}
	case IX_COLL_INT32: {
		int32_t x = (int32_t)v;
		memcpy(p, &x, sizeof(x));
		break;
	}
	case IX_COLL_UINT32: {
		uint32_t x = (uint32_t)v;
		memcpy(p, &x, sizeof(x));
		break;
	}
	case IX_COLL_INT64: {
		int64_t x = (int64_t)v;
		memcpy(p, &x, sizeof(x));
		break;
	}
	case IX_COLL_UINT64: {
		uint64_t x = (uint64_t)v;
		memcpy(p, &x, sizeof(x));
		break;
	}
	case IX_COLL_FLOAT16: {
		uint16_t x = half_of((float)v);
		memcpy(p, &x, sizeof(x));
		break;
	}
	case IX_COLL_BFLOAT16: {
		uint16_t x = bf16_of((float)v);
		memcpy(p, &x, sizeof(x));
		break;
	}
	case IX_COLL_FLOAT32: {
		float x = (float)v;
		memcpy(p, &x, sizeof(x));
		break;
	}
	case IX_COLL_FLOAT64:
		memcpy(p, &v, sizeof(v));
		break;
	default:
		break;
	}
}

double ix_coll_data_get(enum ix_coll_dtype t, const void *buf, size_t i)
{
	const uint8_t *p = (const uint8_t *)buf + i * ix_coll_dtype_size(t);
	union {
		int8_t i8;
		uint8_t u8;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		uint16_t h;
		float f;
		double d;
	} x;

	memcpy(&x, p, ix_coll_dtype_size(t));
	switch (t) {
	case IX_COLL_INT8:
		return x.i8;
	case IX_COLL_UINT8:
		return x.u8;
	case IX_COLL_INT32:
		return x.i32;
	case IX_COLL_UINT32:
		return x.u32;
	case IX_COLL_INT64:
		return (double)x.i64;
	case IX_COLL_UINT64:
		return (double)x.u64;
	case IX_COLL_FLOAT16:
		return half_to(x.h);
	case IX_COLL_BFLOAT16:
		return bf16_to(x.h);
	case IX_COLL_FLOAT32:
		return x.f;
	case IX_COLL_FLOAT64:
		return x.d;
	default:
		return 0;
	}
}

void ix_coll_data_fill(enum ix_coll_op op, enum ix_coll_redop redop, enum ix_coll_dtype t,
		       int nranks, int rank, void *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ix_coll_data_put(t, buf, i, ix_coll_data_value(op, redop, nranks, rank, i));
}

/* The reduction of element i over every rank. */
static double reduced(enum ix_coll_redop redop, enum ix_coll_dtype t, int nranks, size_t i)
{
	double v = owned(redop, i, nranks, true);

	if (redop == IX_COLL_AVG) {
		if (t <= IX_COLL_UINT64) /* integers: the sum divided, truncated */
			return floor(v / nranks);
		return v / nranks;
	}
	/* Every other rank puts the neutral value: the owner's decides. With
	 * one rank, the owner is the only one. */
	return v;
}

static bool same(enum ix_coll_dtype t, double got, double want)
{
	double tol;

	/* Two units in the last place of the type, relative: a result
	 * rounded once or twice passes, one off by one (at the check's
	 * magnitudes, up to 98) does not. */
	switch (t) {
	case IX_COLL_FLOAT16:
		tol = 0x1p-10;
		break;
	case IX_COLL_BFLOAT16:
		tol = 0x1p-7;
		break;
	case IX_COLL_FLOAT32:
		tol = 0x1p-22;
		break;
	case IX_COLL_FLOAT64:
		tol = 0x1p-51;
		break;
	default:
		return got == want;
	}
	return fabs(got - want) <= tol * (fabs(want) > 1 ? fabs(want) : 1);
}

/* What element j of rank me's result must be. */
static double expected(enum ix_coll_op op, enum ix_coll_redop redop, enum ix_coll_dtype t,
		       int nranks, int me, int root, const struct ix_coll_shape *sh, size_t j)
{
	size_t per = sh->count ? sh->count : 1;

	switch (op) {
	case IX_COLL_ALL_REDUCE:
	case IX_COLL_REDUCE:
		return reduced(redop, t, nranks, j);
	case IX_COLL_REDUCE_SCATTER:
		return reduced(redop, t, nranks, (size_t)me * sh->count + j);
	case IX_COLL_ALL_GATHER:
		return ix_coll_data_value(op, redop, nranks, (int)(j / per), j % per);
	case IX_COLL_ALLTOALL:
		return ix_coll_data_value(op, redop, nranks, (int)(j / per),
					  (size_t)me * sh->count + j % per);
	case IX_COLL_BROADCAST:
		return ix_coll_data_value(op, redop, nranks, root, j);
	case IX_COLL_SENDRECV:
		return ix_coll_data_value(op, redop, nranks, (me + nranks - 1) % nranks, j);
	default:
		return 0;
	}
}

uint64_t ix_coll_data_check(enum ix_coll_op op, enum ix_coll_redop redop, enum ix_coll_dtype t,
			    int nranks, int rank, int root, const struct ix_coll_shape *sh,
			    const void *recv, size_t *first)
{
	uint64_t wrong = 0;

	if (nranks < 1 || (op == IX_COLL_REDUCE && rank != root))
		return 0;
	for (size_t j = 0; j < sh->recv; j++) {
		double want = expected(op, redop, t, nranks, rank, root, sh, j);
		if (!same(t, ix_coll_data_get(t, recv, j), want)) {
			if (!wrong && first)
				*first = j;
			wrong++;
		}
	}
	return wrong;
}
