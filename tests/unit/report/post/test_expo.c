/* Unit tests for report/post/expo.c: samples into their families, each
 * family once after its HELP and TYPE, a series written once, empty
 * labels left out, label values escaped, a rail label on every sample
 * while one is set. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/post/expo.h"

static char *close_body(struct ix_expo *x)
{
	struct ix_err err = { 0 };
	char *body = NULL;
	size_t len = 0;

	cr_assert_eq(ix_expo_close(x, &body, &len, &err), 0, "%s", err.msg);
	cr_assert_eq(strlen(body), len);
	return body;
}

Test(expo, families_in_table_order_each_once)
{
	struct ix_expo x;
	char *b;

	cr_assert_eq(ix_expo_open(&x), 0);
	ix_expo_put(&x, F_PAT_BAD, 2, (const char *const[]){ "pattern", "ring", NULL });
	ix_expo_put(&x, F_PASS, 1, NULL);
	ix_expo_put(&x, F_PAT_BAD, 3, (const char *const[]){ "pattern", "ring", NULL });
	b = close_body(&x);
	cr_expect_str_eq(b, "# HELP ixperf_run_pass 1 when the run's verdict is PASS, else 0.\n"
			    "# TYPE ixperf_run_pass gauge\n"
			    "ixperf_run_pass 1\n"
			    "# HELP ixperf_pattern_bad_nodes Hosts of a traffic pattern below "
			    "bad_fraction x their reference.\n"
			    "# TYPE ixperf_pattern_bad_nodes gauge\n"
			    "ixperf_pattern_bad_nodes{pattern=\"ring\"} 2\n");
	free(b);
}

Test(expo, empty_labels_out_values_escaped_rail_added)
{
	struct ix_expo x;
	char *b;

	cr_assert_eq(ix_expo_open(&x), 0);
	x.rail = "eth\"1";
	ix_expo_put(&x, F_RAIL_BAD, 1,
		    (const char *const[]){ "check", "", "node", "a\\b\nc", "path", NULL, NULL });
	x.rail = NULL;
	ix_expo_put(&x, F_RAIL_BAD, 0.1, (const char *const[]){ "node", "d", NULL });
	b = close_body(&x);
	cr_expect(strstr(b, "\nixperf_rail_bad{node=\"a\\\\b\\nc\",rail=\"eth\\\"1\"} 1\n"), "%s",
		  b);
	cr_expect(strstr(b, "\nixperf_rail_bad{node=\"d\"} 0.1\n"), "%s", b);
	free(b);
}

Test(expo, nothing_put_is_an_empty_body)
{
	struct ix_expo x;
	char *b;

	cr_assert_eq(ix_expo_open(&x), 0);
	b = close_body(&x);
	cr_expect_str_eq(b, "");
	free(b);
}
