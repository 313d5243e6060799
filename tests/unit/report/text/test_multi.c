/* Unit tests for report/text/multi.c: mesh and incast results as text,
 * from hand-built structs (tests/unit/report/fixtures.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"
#include "tests/unit/report/fixtures.h"

Test(mesh, text_names_the_suspect)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	mesh(&r, cells, nodes, errs, sus);
	ix_text_mesh(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "SUSPECT: n3:6000"), "%s", buf);
	cr_assert_not_null(strstr(buf, "1 bad pair(s)"), "%s", buf);
	cr_assert_not_null(strstr(buf, "n1:5301 -> n3:6000"), "%s", buf);
	cr_assert_not_null(strstr(buf, "INCOMPLETE: 1 pair(s) not measured"), "%s", buf);
	free(buf);
}

Test(incast, text_of_a_stream_sweep)
{
	struct ix_incast_result r;
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	incast(&r);
	ix_text_incast(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "8.00 Gbit/s"), "%s", buf);
	cr_assert_not_null(strstr(buf, "Diagnosis: goodput holds"), "%s", buf);
	free(buf);
}
