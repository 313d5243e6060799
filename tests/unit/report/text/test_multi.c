/* Unit tests for report/text/multi.c: mesh and incast results as text,
 * from hand-built structs (tests/unit/report/fixtures.h); and the UDP
 * summary line of report/text/text.c. */
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
	cr_assert_not_null(
		strstr(buf, "bandwidth 1.00 Gbit/s < 0.7 x median 5.00 Gbit/s (20%) (confirmed)"),
		"the bad pair says why: %s", buf);
	cr_assert_not_null(strstr(buf, "Pair latency baseline 5.00 us (median, p50 of 2 pairs"),
			   "%s", buf);
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

/* report/text/text.c: a UDP summary names the duplicates next to the
 * out-of-order count when there are any, and leaves them out otherwise. */
static char *udp_summary(uint64_t dup)
{
	struct ix_bw_params p = { .path = "udp", .streams = 1, .mode = IX_MODE_FORWARD };
	struct ix_bw_result r;
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ix_bw_result_init(&r, &p);
	r.streams[0].sender = (struct ix_stream_end){
		.valid = true, .bytes = 14720, .seconds = 1, .packets = ix_u64(10)
	};
	r.streams[0].receiver = (struct ix_stream_end){ .valid = true,
							.bytes = 13248,
							.seconds = 1,
							.packets = ix_u64(9),
							.lost = ix_u64(1),
							.out_of_order = ix_u64(2),
							.duplicates = ix_u64(dup),
							.jitter_ns = ix_f64(0) };
	ix_text_bw_summary(f, &r, &u);
	fclose(f);
	ix_bw_result_free(&r);
	return buf;
}

Test(bw, udp_summary_shows_duplicates)
{
	char *buf = udp_summary(3);

	cr_assert_not_null(strstr(buf, "lost 1/10"), "%s", buf);
	cr_assert_not_null(strstr(buf, "2 out of order, 3 duplicates"), "%s", buf);
	free(buf);
	buf = udp_summary(0);
	cr_assert_not_null(strstr(buf, "2 out of order"), "%s", buf);
	cr_assert_null(strstr(buf, "duplicates"), "%s", buf);
	free(buf);
}
