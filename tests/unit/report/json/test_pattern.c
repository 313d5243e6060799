/* Unit tests for report/json/pattern.c: a pattern's result as its object,
 * every member the schema names, nulls where nothing is known. */
#include "config.h"

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "tests/unit/report/patfix.h"

Test(json_pattern, bisection_object)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;
	json_t *o, *nd;

	pat_bisection(&r, &hl, false);
	cr_assert_eq(ix_pattern_judge(&r), 0);
	o = ix_json_pattern(&r);
	cr_assert_str_eq(json_string_value(json_object_get(o, "kind")), "pattern");
	cr_assert_str_eq(json_string_value(json_object_get(o, "pattern")), "bisection");
	cr_assert(json_is_null(json_object_get(o, "seed")));
	cr_assert_eq(json_array_size(json_object_get(o, "tests")), 4);
	cr_assert_eq(json_array_size(json_object_get(o, "nodes")), 4);
	nd = json_array_get(json_object_get(o, "nodes"), 1);
	cr_assert_str_eq(json_string_value(json_object_get(nd, "host")), "h2:5201");
	cr_assert_str_eq(json_string_value(json_object_get(nd, "against")), "line_rate");
	cr_assert_float_eq(json_real_value(json_object_get(nd, "percent")), 45, 1e-9);
	cr_assert(json_is_true(json_object_get(nd, "bad")));
	cr_assert(json_is_null(json_object_get(nd, "counters")), "none read at this host");
	cr_assert_float_eq(
		json_real_value(json_object_get(json_object_get(o, "halves"), "cut_bps")), 360e6,
		1);
	cr_assert_str_eq(json_string_value(json_object_get(o, "verdict")), r.verdict);
	cr_assert(json_is_null(json_object_get(o, "estimate_s")));
	json_decref(o);
	ix_pattern_result_free(&r);
}

Test(json_pattern, permutation_keeps_its_seed_and_failed_tests_their_error)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;
	json_t *o, *t;

	pat_init(&r, &hl, IX_PATTERN_PERMUTATION, 2);
	r.seed = 12345678901ull;
	pat_test(&r, 0, 0, 1, 100e6);
	pat_test(&r, 0, 1, 0, -1);
	cr_assert_eq(ix_pattern_judge(&r), 0);
	o = ix_json_pattern(&r);
	cr_assert_eq(json_integer_value(json_object_get(o, "seed")), 12345678901ll);
	cr_assert(json_is_null(json_object_get(o, "halves")));
	t = json_array_get(json_object_get(o, "tests"), 1);
	cr_assert(json_is_null(json_object_get(t, "bps")));
	cr_assert_str_eq(json_string_value(json_object_get(t, "error")), "connection refused");
	cr_assert(json_is_false(json_object_get(o, "complete")));
	json_decref(o);
	ix_pattern_result_free(&r);
}
