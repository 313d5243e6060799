/* Unit tests for report/json/read_rails.c: a "rails" result read back as
 * it was written (and rendered as the live one is), malformed ones refused
 * naming the member. */
#include "config.h"

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "report/json/read.h"
#include "report/text/text.h"
#include "tests/unit/report/fixtures.h"

static void summary(FILE *f, const void *arg)
{
	static const struct ix_unit_choice u = { 0 };

	ix_text_rails_summary(f, arg, &u);
}

Test(read_rails, reads_back_what_was_written)
{
	static struct rails_fixture x;
	struct ix_rails_saved s;
	struct ix_err err = { 0 };
	json_t *res;
	char *live, *saved;

	rails(&x);
	res = ix_json_rails(&x.r);
	cr_assert_eq(ix_json_read_rails(json_array_get(res, 2), &s, &err), 0, "%s", err.msg);
	cr_assert_eq(s.rails.n, 2);
	cr_assert_str_eq(s.rails.how, "subnet");
	cr_assert_str_eq(s.rails.rail[1].name, "10.2.0.0/24");
	cr_assert_str_eq(s.rails.rail[1].iface, "eth2");
	cr_assert_eq(s.rails.rail[1].hosts.n, 3);
	cr_assert_eq(s.rails.rail[1].node[2], 2);
	cr_assert_eq(s.r.bad_rails, 1);
	cr_assert(s.r.verdict[1].bad && !s.r.verdict[0].bad);
	cr_assert_str_eq(s.r.verdict[1].reason, x.r.verdict[1].reason);
	cr_assert_eq(s.nodes.n, 3);
	cr_assert_str_eq(s.nodes.v[2].name, "n3");
	cr_assert_eq(s.nodes.v[2].port, 6000);
	cr_assert_float_eq(s.r.node[1].bw_out_bps, x.r.node[1].bw_out_bps, 1);
	/* the saved tables are the live ones */
	live = ix_test_render(summary, &x.r);
	saved = ix_test_render(summary, &s.r);
	cr_assert_str_eq(saved, live);
	cr_assert(strstr(saved, "rail 1 (10.2.0.0/24): median 1.00 Gbit/s is 20%"), "%s", saved);
	free(live);
	free(saved);
	ix_rails_saved_free(&s);
	json_decref(res);
}

Test(read_rails, malformed_is_refused_naming_the_member)
{
	static const struct {
		const char *edit, *says;
	} bad[] = {
		{ "del(.by)", "by is missing" },
		{ "del(.wall_s)", "wall_s" },
		{ ".rails = []", "rails is empty" },
		{ ".rails[0].nodes[1] = \"n9:1\"", "rails[0].nodes[1]" },
		{ ".rails[1].bad = 3", "rails[1].bad" },
		{ ".nodes[1].host = \"n1:5301\"", "nodes[1].host: a node listed twice" },
	};
	static struct rails_fixture x;
	json_t *res;

	rails(&x);
	res = ix_json_rails(&x.r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *r = json_deep_copy(json_array_get(res, 2));
		struct ix_rails_saved s;
		struct ix_err err = { 0 };

		if (!strcmp(bad[i].edit, "del(.by)"))
			json_object_del(r, "by");
		else if (!strcmp(bad[i].edit, "del(.wall_s)"))
			json_object_del(r, "wall_s");
		else if (!strcmp(bad[i].edit, ".rails = []"))
			json_object_set_new(r, "rails", json_array());
		else if (i == 3)
			json_array_set_new(
				json_object_get(json_array_get(json_object_get(r, "rails"), 0),
						"nodes"),
				1, json_string("n9:1"));
		else if (i == 4)
			json_object_set_new(json_array_get(json_object_get(r, "rails"), 1), "bad",
					    json_integer(3));
		else
			json_object_set_new(json_array_get(json_object_get(r, "nodes"), 1), "host",
					    json_string("n1:5301"));
		cr_assert_eq(ix_json_read_rails(r, &s, &err), -1, "%s", bad[i].edit);
		cr_assert(strstr(err.msg, bad[i].says), "%s: %s", bad[i].edit, err.msg);
		json_decref(r);
	}
	json_decref(res);
}
