/* Unit tests for report/json/read_fleet.c: a "fleet" object read back as
 * it was written, and malformed ones refused naming the member. */
#include "config.h"

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "report/json/read.h"
#include "tests/unit/report/fixtures.h"

Test(read_fleet, reads_back_what_was_written)
{
	struct ix_fleet_result r, back;
	struct ix_err err = { 0 };
	json_t *j;

	fleet(&r, true);
	/* The reply parser refuses control characters: none in a saved one. */
	memset(r.nodes[2].inv.findings[0].message, 0, sizeof(r.nodes[2].inv.findings[0].message));
	snprintf(r.nodes[2].inv.findings[0].message, sizeof(r.nodes[2].inv.findings[0].message),
		 "trained low.");
	j = ix_json_fleet(&r);
	cr_assert_eq(ix_json_read_fleet(j, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.n, r.n);
	cr_expect_eq(back.answered, r.answered);
	cr_expect_eq(back.nodd, r.nodd);
	cr_expect_eq(back.findings, r.findings);
	for (uint32_t i = 0; i < r.n; i++) {
		cr_expect_str_eq(back.nodes[i].host, r.nodes[i].host);
		cr_expect_eq(back.nodes[i].ok, r.nodes[i].ok);
		if (r.nodes[i].ok)
			cr_expect_eq(memcmp(&back.nodes[i].inv, &r.nodes[i].inv,
					    sizeof(back.nodes[i].inv)),
				     0);
		else
			cr_expect_str_eq(back.nodes[i].error, r.nodes[i].error);
	}
	json_decref(j);
	ix_fleet_free(&back);
	ix_fleet_free(&r);
}

Test(read_fleet, malformed_ones_name_the_member)
{
	static const struct {
		const char *doc, *want;
	} bad[] = {
		{ "{\"nodes\": {}}", "fleet.nodes: not an array" },
		{ "{\"nodes\": [{\"host\": 7, \"inventory\": null, \"error\": \"x\"}]}",
		  "fleet.nodes[0].host" },
		{ "{\"nodes\": [{\"host\": \"a\", \"inventory\": null}]}", "fleet.nodes[0].error" },
		{ "{\"nodes\": [{\"host\": \"a\", \"inventory\": {\"kernel\": 1}}]}",
		  "fleet.nodes[0]: inventory reply: hostname" },
	};
	struct ix_fleet_result r;
	struct ix_err err = { 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i].doc, 0, NULL);

		cr_assert_not_null(j, "%s", bad[i].doc);
		cr_expect_eq(ix_json_read_fleet(j, &r, &err), -1, "%s", bad[i].doc);
		cr_expect_not_null(strstr(err.msg, bad[i].want), "'%s' lacks '%s'", err.msg,
				   bad[i].want);
		cr_expect_eq(r.n, 0);
		json_decref(j);
	}
}
