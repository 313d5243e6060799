/* Unit tests for report/json/coll.c: the "coll" result's fields, null for
 * what was not measured or not asked (a placement left out, no check, no
 * pair scan), never 0. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/merge.h"
#include "report/json/json.h"

static void setup(struct ix_coll_result *res, int n)
{
	memset(res, 0, sizeof(*res));
	res->opts.op = IX_COLL_ALL_GATHER;
	res->opts.dtype = IX_COLL_BFLOAT16;
	res->opts.sizes[0] = 8192;
	res->opts.nsizes = 1;
	res->opts.iters = 5;
	res->opts.places[IX_COLL_OUT_OF_PLACE] = true;
	res->opts.timeout_s = 60;
	snprintf(res->lib_name, sizeof(res->lib_name), "rccl");
	snprintf(res->gpu_backend, sizeof(res->gpu_backend), "rocm");
	res->nranks = n;
	res->ranks = calloc((size_t)n, sizeof(*res->ranks));
	for (int r = 0; r < n; r++) {
		res->ranks[r].rank = r;
		res->ranks[r].device = r;
		res->ranks[r].joined = res->ranks[r].complete = true;
		res->ranks[r].nrows = 1;
		res->ranks[r].cell[0][0] =
			(struct ix_coll_rank_cell){ .measured = true, .host_us = 50, .wrong = -1 };
		res->ranks[r].niter = 2;
		res->ranks[r].iter_us[1] = 7.5f;
	}
}

Test(json_coll, fields)
{
	struct ix_coll_result res;
	json_t *o;

	setup(&res, 2);
	ix_coll_merge(&res);
	o = ix_json_coll(&res);
	cr_assert_str_eq(json_string_value(json_object_get(o, "kind")), "coll");
	cr_assert_str_eq(json_string_value(json_object_get(o, "library")), "rccl");
	cr_assert(json_is_null(json_object_get(o, "simulation")), "a real library: null");
	cr_assert(json_is_null(json_object_get(o, "library_version")));
	json_t *p = json_object_get(o, "params");
	cr_assert_str_eq(json_string_value(json_object_get(p, "op")), "all_gather");
	cr_assert_str_eq(json_string_value(json_object_get(p, "datatype")), "bfloat16");
	cr_assert(json_is_null(json_object_get(p, "redop")), "all_gather takes none");
	cr_assert(json_is_null(json_object_get(p, "root")));
	cr_assert_str_eq(json_string_value(json_object_get(o, "bus_factor_formula")), "(n-1)/n");
	cr_assert_float_eq(json_number_value(json_object_get(o, "bus_factor")), 0.5, 1e-12);
	json_t *row = json_array_get(json_object_get(o, "rows"), 0);
	cr_assert_eq(json_integer_value(json_object_get(row, "bytes")), 8192);
	cr_assert_eq(json_integer_value(json_object_get(row, "count")), 2048);
	cr_assert(json_is_null(json_object_get(row, "in_place")), "not asked: null");
	json_t *c = json_object_get(row, "out_of_place");
	cr_assert(json_is_true(json_object_get(c, "measured")));
	cr_assert_float_eq(json_number_value(json_object_get(c, "algbw_Bps")), 8192 / 50e-6, 1);
	cr_assert(json_is_null(json_object_get(c, "wrong")), "not checked: null, not 0");
	cr_assert(json_is_null(json_object_get(o, "wrong")));
	json_t *k = json_array_get(json_object_get(o, "ranks"), 1);
	cr_assert_eq(json_integer_value(json_object_get(k, "device")), 1);
	cr_assert(json_is_null(json_object_get(k, "node")));
	cr_assert(json_is_null(json_object_get(k, "pair_Bps")), "no scan: null");
	cr_assert_eq(json_array_size(json_object_get(k, "iter_us")), 2);
	cr_assert_float_eq(json_number_value(json_array_get(json_object_get(k, "iter_us"), 1)), 7.5,
			   1e-6);
	json_t *v = json_object_get(o, "verdict");
	cr_assert(json_is_null(json_object_get(v, "culprit")), "no scan: no culprit");
	cr_assert(json_is_null(json_object_get(v, "late_rank")));
	cr_assert(json_is_true(json_object_get(o, "complete")));
	json_decref(o);
	ix_coll_result_free(&res);
}

Test(json_coll, a_missing_rank)
{
	struct ix_coll_result res;
	json_t *o;

	setup(&res, 3);
	memset(&res.ranks[2], 0, sizeof(res.ranks[2]));
	res.ranks[2].rank = 2;
	res.ranks[2].device = -1;
	res.ranks[2].missing = true;
	snprintf(res.ranks[2].error, sizeof(res.ranks[2].error), "never joined");
	res.missing = 1;
	ix_coll_merge(&res);
	o = ix_json_coll(&res);
	cr_assert(json_is_false(json_object_get(o, "complete")));
	cr_assert_eq(json_integer_value(json_object_get(o, "missing")), 1);
	json_t *k = json_array_get(json_object_get(o, "ranks"), 2);
	cr_assert(json_is_true(json_object_get(k, "missing")));
	cr_assert(json_is_null(json_object_get(k, "device")));
	cr_assert(json_is_null(json_object_get(k, "iter_median_us")));
	cr_assert_str_eq(json_string_value(json_object_get(k, "error")), "never joined");
	json_t *row = json_array_get(json_object_get(o, "rows"), 0);
	cr_assert(json_is_false(json_object_get(json_object_get(row, "out_of_place"), "measured")),
		  "no figure without every rank");
	json_decref(o);
	ix_coll_result_free(&res);
}
