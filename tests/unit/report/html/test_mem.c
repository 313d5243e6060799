/* Unit tests for report/html/mem.c: a "mem" result's section (the nodes
 * with their HMAT classes, the heatmaps, the pairs with the advertised
 * figures beside, SLOW marked, the loaded-latency chart) and a whole page
 * of a mem document (its headline, its FAIL on a slow pair). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/html/html.h"
#include "report/json/json.h"
#include "tests/unit/report/fixtures.h"

static void write_section(FILE *f, const void *o)
{
	ix_html_mem(f, (json_t *)o);
}

/* The fixture's result through ix_json_mem, rendered by write. */
static char *fixture_html(void (*write)(FILE *, const void *), struct ix_mem_result *r,
			  struct ix_mem_cell *cells, bool fresh)
{
	json_t *o;
	char *buf;

	if (fresh)
		ix_test_mem_result(r, cells);
	o = ix_json_mem(r);
	buf = ix_test_render(write, o);
	json_decref(o);
	return buf;
}

#define HAS(s) cr_assert_not_null(strstr(buf, s), "missing \"%s\" in:\n%s", s, buf)

Test(html_mem, section)
{
	static struct ix_mem_result r;
	struct ix_mem_cell cells[3];
	char *buf = fixture_html(write_section, &r, cells, true);

	HAS("<td>0</td><td>0-1</td>");
	HAS("<td>1</td><td>none</td>");
	HAS("read 250 ns, 8.0 GB/s; from node 0");
	HAS("<h4>Read bandwidth</h4>");
	HAS("18.00 GB/s");
	HAS("4.00 GB/s<br><b>SLOW</b>");
	HAS("<h4>Idle latency</h4>");
	HAS("95.5 ns");
	HAS("<tr class=\"fail\"><td>node 0</td><td>node 1</td>");
	HAS("x0.50");
	HAS("<b>SLOW</b> ");
	HAS("node 2 has 10 MiB free");
	HAS("Loaded latency");
	HAS("node 0 -&gt; node 0");
	free(buf);
}

static void write_page(FILE *f, const void *o)
{
	json_t *doc = ix_json_document("mem", 0, NULL, json_pack("[O]", (json_t *)o), NULL);
	struct ix_err err = { 0 };

	cr_assert_eq(ix_html_render(f, doc, NULL, 0, &err), 0, "%s", err.msg);
	json_decref(doc);
}

Test(html_mem, page_fails_on_a_slow_pair)
{
	static struct ix_mem_result r;
	struct ix_mem_cell cells[3];
	char *buf = fixture_html(write_page, &r, cells, true);

	HAS("highest read bandwidth");
	HAS("FAIL");
	free(buf);
	cells[1].bw[IX_MEM_READ] = 8e9; /* as advertised now */
	cells[1].bw[IX_MEM_NTWRITE] = 8e9;
	cells[1].lat_ns = 250;
	ix_mem_compare(&r);
	buf = fixture_html(write_page, &r, cells, false);
	cr_assert_null(strstr(buf, ">FAIL<"), "%s", buf);
	free(buf);
}
