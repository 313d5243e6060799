/* Unit tests for report/json/rails.c: a rail mesh's results, each rail's
 * mesh with its rail and then the rails side by side. */
#include "config.h"

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "tests/unit/report/fixtures.h"

Test(json_rails, each_rails_mesh_then_the_rails)
{
	static struct rails_fixture x;
	json_t *res, *last, *rail;

	rails(&x);
	res = ix_json_rails(&x.r);
	cr_assert_eq(json_array_size(res), 3);
	for (int k = 0; k < 2; k++) {
		rail = json_object_get(json_array_get(res, k), "rail");
		cr_assert_str_eq(json_string_value(json_object_get(json_array_get(res, k), "kind")),
				 "mesh");
		cr_assert_eq(json_integer_value(json_object_get(rail, "index")), k);
		cr_assert_str_eq(json_string_value(json_object_get(rail, "by")), "subnet");
		cr_assert_eq(json_array_size(json_object_get(rail, "nodes")), 3);
		cr_assert_str_eq(
			json_string_value(json_array_get(json_object_get(rail, "nodes"), 2)),
			"n3:6000");
	}
	rail = json_object_get(json_array_get(res, 1), "rail");
	cr_assert(json_is_true(json_object_get(rail, "bad")));
	cr_assert_str_eq(json_string_value(json_object_get(rail, "reason")),
			 "median 1.00 Gbit/s is 20% of the rails' 5.00 Gbit/s");
	cr_assert(json_is_null(
		json_object_get(json_object_get(json_array_get(res, 0), "rail"), "reason")));
	last = json_array_get(res, 2);
	cr_assert_str_eq(json_string_value(json_object_get(last, "kind")), "rails");
	cr_assert_eq(json_array_size(json_object_get(last, "bad_rails")), 1);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(last, "bad_rails"), 0)),
			 "10.2.0.0/24");
	cr_assert_float_eq(json_real_value(json_object_get(last, "ref_bw_bps")), 5e9, 1);
	cr_assert_float_eq(json_real_value(json_object_get(last, "bw_fraction")), 0.7, 1e-9);
	cr_assert_float_eq(
		json_real_value(json_object_get(json_array_get(json_object_get(last, "nodes"), 0),
						"bw_out_bps")),
		6e9, 1, "each node's rails summed");
	json_decref(res);
}
