/* Unit tests for report/text/mem.c: the nodes with their HMAT classes, a
 * row per pair with the advertised figures and ratios beside, SLOW, the
 * chase's pages, the curve, and why a pair was not measured. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"
#include "tests/unit/report/fixtures.h"

static void write_mem(FILE *f, const void *r)
{
	ix_text_mem(f, r);
}

#define HAS(s) cr_assert_not_null(strstr(buf, s), "missing \"%s\" in:\n%s", s, buf)

Test(mem, pairs_with_what_was_advertised)
{
	static struct ix_mem_result r;
	struct ix_mem_cell cells[3];
	char *buf;

	ix_test_mem_result(&r, cells);
	buf = ix_test_render(write_mem, &r);
	HAS("  node 0   0-1                     16.0 GiB  HMAT class 1: read 90 ns 20.0 GB/s, "
	    "write 20.0 GB/s from node 0\n");
	HAS("  node 1   (no CPUs)               64.0 GiB  HMAT class 0: read 250 ns 8.0 GB/s, "
	    "write 8.0 GB/s from node 0\n");
	HAS("    0 -> 0         2     18.00      9.00     17.00      8.00      95.5   HMAT "
	    "20.0 GB/s, 90 ns: read x0.90 write x0.85 latency x1.06\n");
	HAS("    0 -> 1         2      4.00      2.00      3.00      1.50     400.0   HMAT 8.0 "
	    "GB/s, 250 ns: read x0.50 write x0.38 latency x1.60  SLOW   only 50% of its pages "
	    "on node 1\n");
	HAS("    0 -> 2         2  not measured: node 2 has 10 MiB free");
	HAS("    0 -> 0   chase over 256 MiB: 100% in 2 MiB pages");
	HAS("    0 -> 1   chase over 256 MiB: 4 KiB pages (transparent huge pages are off): "
	    "nearly every load also misses the TLB");
	HAS("    0 -> 0   idle 96 ns, 4.0 GB/s 101 ns, 16.0 GB/s 180 ns\n");
	HAS("1 pair(s) slower than HMAT advertises by more than 25% (SLOW above)");
	cr_assert_null(strstr(buf, "INCOMPLETE"), "%s", buf);
	free(buf);
}

Test(mem, incomplete_and_no_nt_stores)
{
	static struct ix_mem_result r;
	struct ix_mem_cell cells[3];
	char *buf;

	ix_test_mem_result(&r, cells);
	r.complete = false;
	r.nt_stores = false;
	r.llc_bytes = 0;
	snprintf(r.error, sizeof(r.error), "interrupted: the cells not reached are empty");
	buf = ix_test_render(write_mem, &r);
	HAS("INCOMPLETE: interrupted: the cells not reached are empty");
	HAS("nt-write: this CPU has no non-temporal stores");
	HAS("largest cache unknown");
	free(buf);
}
