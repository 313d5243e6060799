/* Unit tests for report/text/fleet.c: the odd ones out and findings, each
 * naming its node, over a fleet built by hand. */
#include "config.h"

#include <stdlib.h>

#include <criterion/criterion.h>

#include "report/text/text.h"
#include "tests/unit/report/fixtures.h"

static void draw(FILE *f, const void *arg)
{
	ix_text_fleet(f, arg);
}

static char *render(const struct ix_fleet_result *r)
{
	return ix_test_render(draw, r);
}

Test(text_fleet, names_the_odd_ones_and_the_findings)
{
	struct ix_fleet_result r;
	char *out;

	fleet(&r, false);
	out = render(&r);
	cr_expect_not_null(strstr(out, "Inventory of 3 node(s): 3 answered, 2 odd one(s) out, 1 "
				       "topology finding(s)\n"),
			   "%s", out);
	cr_expect_not_null(
		strstr(out,
		       "ODD: n2:5301: ibp1s0 fw 28.36.1010, where 2 of 3 nodes have 28.39.1002\n"),
		"%s", out);
	cr_expect_not_null(
		strstr(out,
		       "ODD: n3:6000: ibp1s0 pcie Gen4 x8, where 2 of 3 nodes have Gen5 x16\n"),
		"%s", out);
	cr_expect_not_null(strstr(out, "FINDING: n3:6000: warning 0000:01:00.0: trained at"), "%s",
			   out);
	cr_expect_null(strchr(out, '\x1b'), "a control character from an agent is not printed");
	cr_expect_not_null(strstr(out, "  n3:6000 (odd): kernel 6.1.0-18-amd64"), "%s", out);
	cr_expect_not_null(strstr(out, "(downtrained)"), "%s", out);
	free(out);
	ix_fleet_free(&r);
}

Test(text_fleet, a_node_without_inventory_says_why)
{
	struct ix_fleet_result r;
	char *out;

	fleet(&r, true);
	out = render(&r);
	cr_expect_not_null(strstr(out, "  n1:5301: no inventory: no answer before the deadline\n"),
			   "%s", out);
	cr_expect_null(strstr(out, "ODD:"), "%s", out);
	free(out);
	ix_fleet_free(&r);
}
