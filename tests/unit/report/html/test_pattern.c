/* Unit tests for report/html/pattern.c: a pattern's facts, verdict and
 * hosts' table from its saved object. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "report/html/html.h"
#include "report/json/json.h"
#include "tests/unit/report/patfix.h"

Test(html_pattern, table_and_verdict)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *o;

	pat_bisection(&r, &hl, true);
	ix_pattern_judge(&r);
	o = ix_json_pattern(&r);
	ix_html_pattern(f, o);
	fclose(f);
	cr_assert(strstr(buf, "<dt>pattern</dt><dd>bisection</dd>"), "%s", buf);
	cr_assert(strstr(buf, "<dt>halves</dt><dd>leaf1 | leaf2 (the host list&#39;s order)"), "%s",
		  buf);
	cr_assert(strstr(buf, "<table class=\"pattern\">"), "%s", buf);
	cr_assert(strstr(buf, "<tr><td>h3:5201</td>"), "%s", buf);
	cr_assert(strstr(buf, "<td>line rate</td>"), "%s", buf);
	cr_assert(strstr(buf, "45%</td><td>&#9650; BAD</td>"), "%s", buf);
	cr_assert(strstr(buf, "<b>Verdict:</b> bisection 45% of line rate per host"), "%s", buf);
	free(buf);
	json_decref(o);
	ix_pattern_result_free(&r);
}
