/* Unit tests for report/json/ibfab.c and read_ibfab.c: a subnet as the
 * "ib_fabric" result (cabled ports only, counters at the last read and
 * what moved, findings by node GUID), read back as a baseline with the
 * same nodes and cables, and malformed members refused by name. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/ibfab/ibfab.h"
#include "report/json/json.h"
#include "report/json/read.h"
#include "tests/unit/common.h"

/* h (0x10) port 1 - sw (0x20) port 3; sw port 4 uncabled. */
static void subnet(struct ix_ibfab *f)
{
	struct ix_ibfab_port *h, *s;

	ix_ibfab_init(f);
	cr_assert_not_null(ix_ibfab_add(f, 0x10, false, "h", 1));
	cr_assert_not_null(ix_ibfab_add(f, 0x20, true, "sw", 4));
	h = ix_ibfab_port(f, 0, 1);
	s = ix_ibfab_port(f, 1, 3);
	h->peer_node = 1;
	h->peer_port = 3;
	s->peer_node = 0;
	s->peer_port = 1;
	h->state = s->state = 4;
	h->width_active = s->width_active = 2;
	h->speed_active = s->speed_active = 4;
	h->lid = 2;
	s->lid = 1;
	h->ctr[0].valid = h->ctr[1].valid = true;
	h->ctr[0].v[IX_IBC_SYMBOL_ERRORS] = 3;
	h->ctr[1].v[IX_IBC_SYMBOL_ERRORS] = 10;
	h->ctr[1].extended = true;
	snprintf(s->ctr[1].error, sizeof(s->ctr[1].error), "no answer");
}

Test(ibfab_json, cabled_ports_counters_and_findings)
{
	struct ix_ibfab f;
	struct ix_ibfab_findings fs = { 0 };
	struct ix_err err = { 0 };
	json_t *j, *port, *nodes;

	subnet(&f);
	cr_assert_eq(ix_ibfab_check(&f, NULL, &fs, &err), 0);
	j = ix_test_json_roundtrip(ix_json_ibfab(&f, &fs, 2));
	cr_assert_str_eq(json_string_value(json_object_get(j, "kind")), "ib_fabric");
	cr_assert_eq(json_integer_value(json_object_get(j, "switches")), 1);
	cr_assert_eq(json_integer_value(json_object_get(j, "adapters")), 1);
	cr_assert_eq(json_integer_value(json_object_get(j, "links")), 1);
	nodes = json_object_get(j, "nodes");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(nodes, 1), "guid")),
			 "0x0000000000000020");
	cr_assert_eq(json_array_size(json_object_get(json_array_get(nodes, 1), "ports")), 1,
		     "the uncabled port is left out");
	port = json_array_get(json_object_get(json_array_get(nodes, 0), "ports"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(port, "state")), "Active");
	cr_assert_str_eq(
		json_string_value(json_object_get(json_object_get(port, "width"), "active")), "4X");
	cr_assert_float_eq(json_number_value(json_object_get(port, "rate_gbps")), 32, 1e-9);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(port, "counters"),
							"SymbolErrorCounter")),
		     10);
	cr_assert_eq(json_integer_value(
			     json_object_get(json_object_get(port, "moved"), "SymbolErrorCounter")),
		     7);
	cr_assert(json_is_true(json_object_get(port, "counters_extended")));
	cr_assert_eq(json_array_size(json_object_get(j, "findings")), 2, "errors, no counters");
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(j, "findings"), 0), "kind")),
			 "errors");
	json_decref(j);
	/* one read: nothing moved, counters as read */
	j = ix_test_json_roundtrip(ix_json_ibfab(&f, NULL, 1));
	port = json_array_get(
		json_object_get(json_array_get(json_object_get(j, "nodes"), 1), "ports"), 0);
	cr_assert(json_is_null(json_object_get(port, "moved")));
	cr_assert(json_is_null(json_object_get(port, "counters")));
	cr_assert(json_is_null(json_object_get(port, "counters_error")), "never asked");
	json_decref(j);
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&f);
}

Test(ibfab_json, read_back_as_a_baseline)
{
	struct ix_ibfab f, back;
	struct ix_ibfab_findings fs;
	struct ix_err err = { 0 };
	json_t *j;

	subnet(&f);
	j = ix_test_json_roundtrip(ix_json_ibfab(&f, NULL, 1));
	cr_assert_eq(ix_json_read_ibfab(j, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.n, 2);
	cr_assert_str_eq(back.nodes[0].desc, "h");
	cr_assert(back.nodes[1].is_switch);
	cr_assert_eq(back.nodes[1].nports, 4);
	cr_assert_eq(back.nodes[1].ports[3].peer_node, 0);
	cr_assert_eq(back.nodes[1].ports[3].peer_port, 1);
	/* as a reference for the subnet it came from: nothing is gone */
	cr_assert_eq(ix_ibfab_check(&f, &back, &fs, &err), 0);
	for (size_t i = 0; i < fs.n; i++)
		cr_assert(fs.v[i].kind != IX_IBF_LINK_LOST && fs.v[i].kind != IX_IBF_NODE_LOST,
			  "%s", fs.v[i].text);
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&back);
	json_decref(j);
	ix_ibfab_free(&f);
}

static void refused(const char *text, const char *part)
{
	struct ix_ibfab f;
	struct ix_err err = { 0 };
	json_t *j = json_loads(text, 0, NULL);

	cr_assert_not_null(j, "bad test JSON: %s", text);
	cr_assert_eq(ix_json_read_ibfab(j, &f, &err), -1, "accepted: %s", text);
	cr_assert_not_null(strstr(err.msg, part), "'%s' lacks '%s'", err.msg, part);
	cr_assert_eq(f.n, 0);
	json_decref(j);
}

Test(ibfab_json, malformed_baselines_are_refused_by_name)
{
	refused("{}", "no 'nodes' array");
	refused("{\"nodes\":[{\"guid\":\"12\",\"type\":\"switch\",\"ports_total\":4}]}",
		"node 0: 'guid'");
	refused("{\"nodes\":[{\"guid\":\"0x12\",\"type\":\"switch\",\"ports_total\":300}]}",
		"'ports_total'");
	refused("{\"nodes\":[{\"guid\":\"0x12\",\"type\":\"switch\",\"ports_total\":4,"
		"\"ports\":[{\"port\":9}]}]}",
		"port number is out of range");
	refused("{\"nodes\":[{\"guid\":\"0x12\",\"type\":\"switch\",\"ports_total\":4,"
		"\"ports\":[{\"port\":1,\"peer\":{\"guid\":\"0xzz\",\"port\":1}}]}]}",
		"'peer' is bad");
}
