/* Unit tests for report/html/fleet.c: the section drawn from a "fleet"
 * object (report/json/fleet.c over a fleet built by hand). */
#include "config.h"

#include <stdlib.h>

#include <criterion/criterion.h>

#include "report/html/html.h"
#include "report/json/json.h"
#include "tests/unit/report/fixtures.h"

static void draw(FILE *f, const void *arg)
{
	ix_html_fleet(f, (json_t *)arg);
}

static char *render(json_t *fl)
{
	return ix_test_render(draw, fl);
}

Test(html_fleet, odd_ones_findings_and_nodes)
{
	struct ix_fleet_result r;
	json_t *j;
	char *out;

	fleet(&r, false);
	j = ix_json_fleet(&r);
	out = render(j);
	cr_expect_not_null(strstr(out, "3 of 3 node(s) answered; 2 odd one(s) out."), "%s", out);
	cr_expect_not_null(strstr(out, "<tr class=\"fail\"><td>n2:5301</td><td>ibp1s0</td><td>fw</"
				       "td><td>28.36.1010</td><td>28.39.1002</td><td>2 of 3</td>"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "<tr class=\"fail\"><td>n3:6000</td><td>ibp1s0</td><td>pcie"
				       "</td><td>Gen4 x8</td>"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "<tr class=\"warn\"><td>n3:6000</td><td>warning</td>"), "%s",
			   out);
	cr_expect_null(strstr(out, "<b>below</b>"), "markup from an agent is escaped");
	cr_expect_not_null(strstr(out, "&lt;b&gt;below"), "%s", out);
	cr_expect_not_null(strstr(out, "Gen4 x8 of Gen5 x16"), "%s", out);
	free(out);
	json_decref(j);
	ix_fleet_free(&r);
}

Test(html_fleet, no_odd_one_and_a_silent_node)
{
	struct ix_fleet_result r;
	json_t *j;
	char *out;

	fleet(&r, true);
	j = ix_json_fleet(&r);
	out = render(j);
	cr_expect_not_null(strstr(out, "No odd one out"), "%s", out);
	cr_expect_not_null(strstr(out, "<tr class=\"fail\"><td>n1:5301</td><td>no inventory</td>"
				       "<td>no answer before the deadline</td>"),
			   "%s", out);
	free(out);
	json_decref(j);
	out = render(NULL);
	cr_expect_str_eq(out, "", "nothing without a fleet object");
	free(out);
	ix_fleet_free(&r);
}
