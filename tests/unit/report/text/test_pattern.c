/* Unit tests for report/text/pattern.c: the hosts' table, a bisection's
 * halves and cut, the verdict, and the estimate lines. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "report/fmt/units.h"
#include "report/text/text.h"
#include "tests/unit/report/patfix.h"

static char *render(const struct ix_pattern_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ix_unit_choice u = { 0 };

	ix_text_pattern(f, r, &u);
	fclose(f);
	return buf;
}

Test(text_pattern, bisection_table_and_verdict)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;
	char *s;

	pat_bisection(&r, &hl, false);
	ix_pattern_judge(&r);
	s = render(&r);
	cr_assert(strstr(s, "bisection over 4 hosts: 1 round(s), 4 test(s), 0 failed"), "%s", s);
	cr_assert(strstr(s, "Halves: h1:5201, h2:5201 | h3:5201, h4:5201 (the host list's order)"),
		  "%s", s);
	cr_assert(strstr(s, "line rate"), "%s", s);
	cr_assert(strstr(s, "45% BAD"), "%s", s);
	cr_assert(strstr(s, "Across the cut: 360 Mbit/s in all"), "%s", s);
	cr_assert(strstr(s, "\nVerdict: bisection 45% of line rate per host"), "%s", s);
	free(s);
	ix_pattern_result_free(&r);
}

Test(text_pattern, sat_out_and_failed_tests)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;
	char *s;

	pat_init(&r, &hl, IX_PATTERN_BISECTION, 3);
	r.host[2].sat_out = true;
	pat_test(&r, 0, 0, 1, 100e6);
	pat_test(&r, 0, 1, 0, -1);
	ix_pattern_judge(&r);
	s = render(&r);
	cr_assert(strstr(s, "h3:5201 sat out: an odd host count"), "%s", s);
	cr_assert(strstr(s, "FAILED: h2:5201 -> h1:5201: connection refused"), "%s", s);
	free(s);
	ix_pattern_result_free(&r);
}

Test(text_pattern, estimates)
{
	struct ix_mesh_params p = { .tests = IX_MESH_BW | IX_MESH_LAT };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	double s;

	p.bw.duration_s = 2;
	p.bw.warmup_s = 0.5;
	p.lat.duration_s = 1;
	p.lat.warmup_s = 0.1;
	ix_text_pattern_estimates(f, &p, p.tests, 5, 0);
	s = ix_text_pattern_say(f, IX_PATTERN_ALL_PAIRS, &p, 1024, 0, 5);
	cr_assert_float_eq(s, 1023 * 4.2, 1e-6);
	cr_assert_float_eq(ix_text_pattern_say(f, IX_PATTERN_RING, &p, 4, 0, 5), 2.8, 1e-9,
			   "a short run: nothing said");
	fclose(f);
	cr_assert(strstr(buf, "all-pairs over 5 hosts: 5 rounds of 2 tests, about 21 s\n"), "%s",
		  buf);
	cr_assert(strstr(buf, "bisection over 5 hosts: 1 round of 1 test, about 3 s (an odd count: "
			      "one host sits out)\n"),
		  "%s", buf);
	cr_assert(strstr(buf, "ixperf mesh: all-pairs over 1024 hosts: 1023 rounds of 2 tests, "
			      "about 72 min; --pattern bisection: about 3 s\n"),
		  "%s", buf);
	cr_assert_null(strstr(buf, "ring over 4"));
	free(buf);
}
