/* Unit tests for report/html/ibfab.c: the section drawn from an
 * "ib_fabric" result (report/json/ibfab.c over a subnet built by hand): a
 * leaf with one adapter under a spine, errors on the spine cable. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/ibfab/ibfab.h"
#include "tests/unit/ibfab_fixture.h"
#include "report/html/html.h"
#include "report/json/json.h"
#include "tests/unit/report/fixtures.h"

static void draw(FILE *f, const void *arg)
{
	ix_html_ibfab(f, (json_t *)arg);
}

Test(html_ibfab, findings_tiers_and_cables)
{
	struct ix_ibfab f;
	struct ix_ibfab_findings fs;
	struct ix_err err = { 0 };
	json_t *j;
	char *out;

	ix_ibfab_init(&f);
	ix_ibfab_add(&f, 0x10, false, "h<1>", 1);
	ix_ibfab_add(&f, 0x20, true, "leaf", 8);
	ix_ibfab_add(&f, 0x30, true, "spine", 8);
	ix_test_ib_cable(&f, 0, 1, 1, 1);
	ix_test_ib_cable(&f, 1, 5, 2, 1);
	f.nodes[1].ports[5].ctr[1].v[IX_IBC_SYMBOL_ERRORS] = 5;
	cr_assert_eq(ix_ibfab_check(&f, NULL, &fs, &err), 0);
	j = ix_json_ibfab(&f, &fs, 2);
	out = ix_test_render(draw, j);
	cr_expect(strstr(out, "<p>2 switches, 1 adapters, 2 cables, read twice.</p>"), "%s", out);
	cr_expect(strstr(out, "<tr class=\"fail\"><td>errors</td><td>&quot;leaf&quot;/5: "
			      "SymbolErrorCounter +5 between the reads</td></tr>"),
		  "%s", out);
	/* the spine above, the leaf with its adapter below; the spine cable red */
	cr_expect(strstr(out, "<rect x=\"10\" y=\"20\""), "%s", out);
	cr_expect(strstr(out, "<rect x=\"10\" y=\"130\""), "%s", out);
	cr_expect(strstr(out, "1 adapters</text>"), "%s", out);
	cr_expect(strstr(out, "stroke=\"#c0392b\" stroke-width=\"3\"><title>leaf/5 - spine/1: 4X "
			      "QDR</title>"),
		  "%s", out);
	cr_expect(strstr(out, "stroke=\"#8a8a8a\" stroke-width=\"1\"><title>leaf/1 - h&lt;1&gt;/1"),
		  "%s", out);
	/* each cable once; the one with errors marked, its counter named */
	cr_expect(strstr(out, "<tr class=\"bad\"><td>leaf/5</td><td>spine/1</td><td>4X</td><td>QDR"
			      "</td><td>32</td><td>Active</td><td>SymbolErrorCounter +5</td></tr>"),
		  "%s", out);
	cr_expect(strstr(out, "<td>h&lt;1&gt;/1</td><td>leaf/1</td>"), "%s", out);
	cr_expect_null(strstr(out, "<td>leaf/1</td><td>h&lt;1&gt;/1</td>"), "listed twice");
	cr_expect_null(strstr(out, "h<1>"), "markup from a node description is escaped");
	free(out);
	json_decref(j);
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&f);
}

Test(html_ibfab, nothing_flagged)
{
	struct ix_ibfab f;
	json_t *j;
	char *out;

	ix_ibfab_init(&f);
	ix_ibfab_add(&f, 0x10, false, "h", 1);
	ix_ibfab_add(&f, 0x20, true, "leaf", 8);
	ix_test_ib_cable(&f, 0, 1, 1, 1);
	j = ix_json_ibfab(&f, NULL, 1);
	out = ix_test_render(draw, j);
	cr_expect(strstr(out, "<p>Nothing flagged"), "%s", out);
	cr_expect(strstr(out, "read once"), "%s", out);
	free(out);
	json_decref(j);
	ix_ibfab_free(&f);
}
