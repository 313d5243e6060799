#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probes/coll/coll.h"

static const char *const op_names[IX_COLL_NOPS] = {
	"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv",
};

/* nccl-tests' names first (its -d), then what people also write. */
static const struct {
	const char *name;
	enum ix_coll_dtype t;
} dtype_names[] = {
	{ "int8", IX_COLL_INT8 },       { "uint8", IX_COLL_UINT8 },
	{ "int32", IX_COLL_INT32 },     { "uint32", IX_COLL_UINT32 },
	{ "int64", IX_COLL_INT64 },     { "uint64", IX_COLL_UINT64 },
	{ "half", IX_COLL_FLOAT16 },    { "float", IX_COLL_FLOAT32 },
	{ "double", IX_COLL_FLOAT64 },  { "bfloat16", IX_COLL_BFLOAT16 },
	{ "char", IX_COLL_INT8 },       { "int", IX_COLL_INT32 },
	{ "float16", IX_COLL_FLOAT16 }, { "fp16", IX_COLL_FLOAT16 },
	{ "float32", IX_COLL_FLOAT32 }, { "fp32", IX_COLL_FLOAT32 },
	{ "float64", IX_COLL_FLOAT64 }, { "fp64", IX_COLL_FLOAT64 },
	{ "bf16", IX_COLL_BFLOAT16 },
};

static const size_t dtype_sizes[IX_COLL_NDTYPES] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2 };

static const char *const redop_names[IX_COLL_NREDOPS] = { "sum", "prod", "max", "min", "avg" };

const char *ix_coll_op_name(enum ix_coll_op op)
{
	return op < IX_COLL_NOPS ? op_names[op] : "?";
}

const char *ix_coll_dtype_name(enum ix_coll_dtype t)
{
	for (size_t i = 0; i < sizeof(dtype_names) / sizeof(dtype_names[0]); i++)
		if (dtype_names[i].t == t)
			return dtype_names[i].name;
	return "?";
}

const char *ix_coll_redop_name(enum ix_coll_redop r)
{
	return r < IX_COLL_NREDOPS ? redop_names[r] : "?";
}

const char *ix_coll_place_name(enum ix_coll_place p)
{
	return p == IX_COLL_IN_PLACE ? "in-place" : "out-of-place";
}

size_t ix_coll_dtype_size(enum ix_coll_dtype t)
{
	return t < IX_COLL_NDTYPES ? dtype_sizes[t] : 0;
}

bool ix_coll_op_reduces(enum ix_coll_op op)
{
	return op == IX_COLL_ALL_REDUCE || op == IX_COLL_REDUCE_SCATTER || op == IX_COLL_REDUCE;
}

bool ix_coll_op_rooted(enum ix_coll_op op)
{
	return op == IX_COLL_BROADCAST || op == IX_COLL_REDUCE;
}

bool ix_coll_checkable(enum ix_coll_op op, enum ix_coll_place p)
{
	return p != IX_COLL_IN_PLACE || (op != IX_COLL_SENDRECV && op != IX_COLL_ALLTOALL);
}

const char *ix_coll_factor_text(enum ix_coll_op op)
{
	switch (op) {
	case IX_COLL_ALL_REDUCE:
		return "2(n-1)/n";
	case IX_COLL_ALL_GATHER:
	case IX_COLL_REDUCE_SCATTER:
	case IX_COLL_ALLTOALL:
		return "(n-1)/n";
	default:
		return "1";
	}
}

int ix_coll_op_parse(const char *s, enum ix_coll_op *out, struct ix_err *err)
{
	for (int i = 0; i < IX_COLL_NOPS; i++) {
		size_t n = strlen(op_names[i]);

		/* all_reduce, or all_reduce_perf as nccl-tests names its binary */
		if (strcmp(s, op_names[i]) == 0 ||
		    (strncmp(s, op_names[i], n) == 0 && strcmp(s + n, "_perf") == 0)) {
			*out = (enum ix_coll_op)i;
			return 0;
		}
	}
	return ix_fail(err, IX_EXIT_USAGE,
		       "unknown collective '%.64s' (known: all_reduce, all_gather, reduce_scatter, "
		       "alltoall, broadcast, reduce, sendrecv)",
		       s);
}

int ix_coll_dtype_parse(const char *s, enum ix_coll_dtype *out, struct ix_err *err)
{
	for (size_t i = 0; i < sizeof(dtype_names) / sizeof(dtype_names[0]); i++)
		if (strcasecmp(s, dtype_names[i].name) == 0) {
			*out = dtype_names[i].t;
			return 0;
		}
	return ix_fail(
		err, IX_EXIT_USAGE,
		"unknown data type '%.64s' (known: int8, uint8, int32, uint32, int64, uint64, "
		"half, float, double, bfloat16)",
		s);
}

int ix_coll_redop_parse(const char *s, enum ix_coll_redop *out, struct ix_err *err)
{
	for (int i = 0; i < IX_COLL_NREDOPS; i++)
		if (strcasecmp(s, redop_names[i]) == 0) {
			*out = (enum ix_coll_redop)i;
			return 0;
		}
	return ix_fail(err, IX_EXIT_USAGE,
		       "unknown reduction '%.64s' (known: sum, prod, max, min, avg)", s);
}

void ix_coll_result_free(struct ix_coll_result *r)
{
	free(r->ranks);
	free(r->pairs);
	r->ranks = NULL;
	r->pairs = NULL;
}
