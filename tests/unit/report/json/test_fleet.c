/* Unit tests for report/json/fleet.c: the "fleet" object over a fleet
 * built by hand (tests/unit/report/fixtures.h). */
#include "config.h"

#include <criterion/criterion.h>

#include "probes/ctl/invwire.h"
#include "report/json/json.h"
#include "tests/unit/report/fixtures.h"

Test(json_fleet, odd_ones_and_findings_name_their_node)
{
	struct ix_fleet_result r;
	struct ix_node_inv back;
	struct ix_err err = { 0 };
	json_t *j, *odd, *nodes, *a;

	fleet(&r, false);
	j = ix_json_fleet(&r);
	cr_assert_not_null(j);
	cr_expect_str_eq(json_string_value(json_object_get(j, "kind")), "fleet");
	cr_expect_eq(json_integer_value(json_object_get(j, "answered")), 3);
	cr_expect_eq(json_integer_value(json_object_get(j, "odd_nodes")), 2);
	odd = json_object_get(j, "odd_ones_out");
	cr_assert_eq(json_array_size(odd), 2);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(odd, 0), "host")),
			 "n2:5301");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(odd, 0), "field")), "fw");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(odd, 1), "host")),
			 "n3:6000");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(odd, 1), "value")),
			 "Gen4 x8");
	cr_expect_eq(json_integer_value(json_object_get(json_array_get(odd, 1), "of")), 3);
	cr_assert_eq(json_array_size(json_object_get(j, "findings")), 1);
	cr_expect_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(j, "findings"), 0), "host")),
			 "n3:6000");
	nodes = json_object_get(j, "nodes");
	cr_assert_eq(json_array_size(nodes), 3);
	cr_expect(json_is_false(json_object_get(json_array_get(nodes, 0), "odd")));
	cr_expect(json_is_true(json_object_get(json_array_get(nodes, 1), "odd")));
	cr_expect(json_is_null(json_object_get(json_array_get(nodes, 0), "error")));
	/* Each node's addresses, with the RDMA device and leaf behind them. */
	a = json_array_get(
		json_object_get(json_object_get(json_array_get(nodes, 1), "inventory"), "addrs"),
		0);
	cr_expect_str_eq(json_string_value(json_object_get(a, "iface")), "ibp1s0");
	cr_expect_str_eq(json_string_value(json_object_get(a, "family")), "inet");
	cr_expect_str_eq(json_string_value(json_object_get(a, "addr")), "10.1.0.2");
	cr_expect_eq(json_integer_value(json_object_get(a, "prefix")), 24);
	cr_expect_str_eq(json_string_value(json_object_get(a, "rdma")), "mlx5_0");
	cr_expect_str_eq(json_string_value(json_object_get(a, "leaf")), "leaf-r1");
	/* Each node's inventory reads back as what was gathered (n3's finding
	 * holds a control character, which the reply parser refuses). */
	cr_assert_eq(ix_inv_reply_parse(json_object_get(json_array_get(nodes, 1), "inventory"),
					&back, &err),
		     0, "%s", err.msg);
	cr_expect_eq(memcmp(&back, &r.nodes[1].inv, sizeof(back)), 0);
	json_decref(j);
	ix_fleet_free(&r);
}

Test(json_fleet, a_node_without_inventory_has_its_error)
{
	struct ix_fleet_result r;
	json_t *j, *n0;

	fleet(&r, true);
	j = ix_json_fleet(&r);
	n0 = json_array_get(json_object_get(j, "nodes"), 0);
	cr_expect(json_is_null(json_object_get(n0, "inventory")));
	cr_expect_str_eq(json_string_value(json_object_get(n0, "error")),
			 "no answer before the deadline");
	cr_expect_eq(json_integer_value(json_object_get(j, "answered")), 2);
	/* n2 and n3 disagree on both: no majority of 2, nobody named. */
	cr_expect_eq(json_array_size(json_object_get(j, "odd_ones_out")), 0);
	json_decref(j);
	ix_fleet_free(&r);
}
