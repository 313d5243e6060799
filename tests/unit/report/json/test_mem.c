/* Unit tests for report/json/mem.c: the "mem" result, bandwidths in bytes
 * per second, HMAT's MB/s turned into them, null for what was not
 * measured or not advertised (never 0). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "tests/unit/report/fixtures.h"

static json_t *cell(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "cells"), i);
}

Test(mem, fields_and_nulls)
{
	static struct ix_mem_result r;
	struct ix_mem_cell cells[3];
	json_t *j, *c, *n1, *adv;

	ix_test_mem_result(&r, cells);
	j = ix_json_mem(&r);
	cr_assert_str_eq(json_string_value(json_object_get(j, "kind")), "mem");
	cr_assert(json_is_true(json_object_get(j, "complete")));
	n1 = json_array_get(json_object_get(j, "nodes"), 1);
	cr_assert(json_is_null(json_object_get(n1, "cpus")), "CPU-less: null");
	cr_assert_eq(json_integer_value(json_object_get(
			     json_array_get(json_object_get(n1, "hmat"), 0), "read_bandwidth_Bps")),
		     8000000000ll);
	cr_assert(json_is_null(json_array_get(json_object_get(n1, "hmat"), 1)), "no class 1");
	c = cell(j, 0);
	cr_assert_float_eq(
		json_real_value(json_object_get(json_object_get(c, "bandwidth_Bps"), "nt_write")),
		17e9, 1);
	cr_assert_eq(json_array_size(json_object_get(c, "loaded")), 3);
	cr_assert(json_is_null(json_object_get(json_array_get(json_object_get(c, "loaded"), 0),
					       "delay_ns")),
		  "the idle point has no delay");
	adv = json_object_get(cell(j, 1), "advertised");
	cr_assert_eq(json_integer_value(json_object_get(adv, "class")), 0);
	cr_assert(json_is_true(json_object_get(adv, "slow")));
	cr_assert_float_eq(json_real_value(json_object_get(adv, "read_ratio")), 0.5, 1e-9);
	c = cell(j, 2);
	cr_assert(json_is_false(json_object_get(c, "measured")));
	cr_assert(json_is_null(json_object_get(json_object_get(c, "bandwidth_Bps"), "read")));
	cr_assert(json_is_null(json_object_get(c, "latency_ns")));
	cr_assert(json_is_null(json_object_get(c, "advertised")), "node 2 advertises nothing");
	cr_assert_str_eq(json_string_value(json_object_get(c, "note")),
			 "node 2 has 10 MiB free; the test needs 384 MiB and leaves 64");
	cr_assert_eq(json_array_size(json_object_get(j, "slow")), 1);
	json_decref(j);
}
