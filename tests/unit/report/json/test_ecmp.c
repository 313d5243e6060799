/* Unit tests for report/json/ecmp.c: an ecmp result as JSON. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"

Test(ecmp, without_switch_unknown_figures_are_null)
{
	static struct ix_ecmp_result r;
	static struct ix_host hv[3];
	static struct ix_hostlist h = { .v = hv, .n = 2 };
	json_t *j, *f;

	snprintf(h.v[0].name, sizeof(h.v[0].name), "a");
	snprintf(h.v[1].name, sizeof(h.v[1].name), "b");
	h.v[0].port = h.v[1].port = 5301;
	r.hosts = &h;
	r.params.bw.path = "tcp";
	r.params.bw.streams = 2;
	r.params.bw.src_port = 30000;
	r.nflows = 2;
	r.flows[0].sport = 30000;
	r.flows[1].sport = 30001;
	r.flows[0].ok = true;
	r.flows[0].bps = 1e6;
	r.complete = false;
	snprintf(r.verdict, sizeof(r.verdict), "uplinks unknown");
	j = ix_json_ecmp(&r);
	cr_assert_not_null(j);
	cr_assert_str_eq(json_string_value(json_object_get(j, "kind")), "ecmp");
	f = json_array_get(json_object_get(j, "flows"), 1);
	cr_assert(json_is_null(json_object_get(f, "bps")), "flow 1 did not run: null, not 0");
	cr_assert(json_is_null(json_object_get(f, "alone")), "no switch: nothing ran alone");
	cr_assert_eq(json_integer_value(json_object_get(f, "sport")), 30001);
	cr_assert(json_is_null(json_object_get(j, "spread")));
	cr_assert(json_is_null(json_object_get(json_object_get(j, "params"), "uplinks")));
	cr_assert_str_eq(json_string_value(json_object_get(j, "state")), "unknown");
	json_decref(j);
}
