/* Unit tests for report/doc/figures_gpu.c: the figures of GPU documents
 * (a figure per measured cell of each test that ran, and a bandwidth sum)
 * and of collectives (each measured cell's busbw, the average, the wrong
 * elements), and how they compare. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/merge.h"
#include "report/doc/compare.h"
#include "report/doc/figures.h"
#include "report/json/json.h"
#include "tests/unit/report/doc/figs.h"

/* GPU documents: a figure per measured cell of each test that ran, and a bandwidth sum. */
Test(figures_gpu, gpu_cells_and_compare)
{
	struct ix_err err = { 0 };
	struct ix_cmp_row *rows;
	struct ix_cmp_counts k;
	size_t nb, nn, nr;
	struct ix_figure *b = figures("gpu-base.json", &nb), *c = figures("gpu-new.json", &nn);

	cr_expect_eq(nb, 12, "2 bandwidth tests of 2 cells and a sum, 6 latencies, 0 skipped");
	cr_expect_eq(nn, 8, "a failed test has no figure, not even from a cell it measured");
	expect(b, nb, "gpu/host_to_device_memcpy_ce@host->GPU1", 50e9);
	expect(b, nb, "gpu/device_to_device_memcpy_read_ce@sum", 600e9);
	cr_expect_null(ix_figures_find(b, nb, "gpu/device_to_device_memcpy_read_ce@GPU0->GPU0"));
	cr_expect(get(b, nb, "gpu/device_to_device_memcpy_read_ce@GPU1->GPU0")->better ==
			  IX_HIGHER_BETTER &&
		  !strcmp(get(b, nb, "gpu/host_to_device_memcpy_ce@sum")->unit, "B/s"));
	cr_expect(get(b, nb, "gpu/host_device_latency_sm@host->GPU0")->better == IX_LOWER_BETTER &&
		  !strcmp(get(b, nb, "gpu/host_device_latency_sm@host->GPU0")->unit, "ns"));
	cr_assert_eq(ix_figures_compare(b, nb, c, nn, 0.1, &rows, &nr, &k, &err), 0);
	cr_expect(k.regressions == 2 && k.improved == 1 && k.same == 5 && k.only_base == 4);
	cr_expect_eq(row_of(rows, nr, "gpu/host_device_latency_sm@host->GPU1"), IX_CMP_REGRESSION);
	cr_expect_eq(row_of(rows, nr, "gpu/device_to_device_latency_sm@GPU0->GPU0"),
		     IX_CMP_ONLY_BASE);
	free(rows);
	free(b);
	free(c);
}

/* A coll document of two ranks, one size, both placements; rank 1's time
 * at 'slow' x rank 0's. */
static json_t *coll_doc(double slow, int64_t wrong)
{
	struct ix_coll_result res = { 0 };
	json_t *doc;

	res.opts.op = IX_COLL_ALL_REDUCE;
	res.opts.dtype = IX_COLL_FLOAT32;
	res.opts.sizes[0] = 1 << 20;
	res.opts.nsizes = 1;
	res.opts.iters = 5;
	res.opts.check = true;
	res.opts.places[0] = res.opts.places[1] = true;
	res.nranks = 2;
	res.ranks = calloc(2, sizeof(*res.ranks));
	for (int r = 0; r < 2; r++) {
		res.ranks[r].rank = r;
		res.ranks[r].joined = res.ranks[r].complete = true;
		res.ranks[r].nrows = 1;
		for (int p = 0; p < 2; p++)
			res.ranks[r].cell[0][p] =
				(struct ix_coll_rank_cell){ .measured = true,
							    .host_us = 100 * (r ? slow : 1),
							    .wrong = r ? wrong : 0 };
	}
	ix_coll_merge(&res);
	doc = ix_json_document("coll", 0, NULL, json_pack("[o]", ix_json_coll(&res)), NULL);
	ix_coll_result_free(&res);
	return doc;
}

static struct ix_figure *extract(json_t *doc, size_t *n)
{
	struct ix_err err = { 0 };
	struct ix_figure *v = NULL;

	cr_assert_eq(ix_figures_extract(doc, &v, n, &err), 0, "%s", err.msg);
	json_decref(doc);
	return v;
}

Test(figures_gpu, coll_figures)
{
	size_t n;
	struct ix_figure *v = extract(coll_doc(1, 0), &n);

	cr_expect_eq(n, 4, "two cells, the average, the wrong elements");
	/* all_reduce of 2 ranks: busbw = algbw = 1 MiB / 100 us */
	expect(v, n, "coll/busbw@1048576/out-of-place", 1048576 / 100e-6);
	expect(v, n, "coll/busbw@1048576/in-place", 1048576 / 100e-6);
	expect(v, n, "coll/avg_busbw", 1048576 / 100e-6);
	expect(v, n, "coll/wrong", 0);
	cr_expect_eq(get(v, n, "coll/busbw@1048576/in-place")->better, IX_HIGHER_BETTER);
	cr_expect_str_eq(get(v, n, "coll/avg_busbw")->unit, "B/s");
	cr_expect(get(v, n, "coll/wrong")->absolute);
	free(v);
}

Test(figures_gpu, coll_compare)
{
	struct ix_err err = { 0 };
	struct ix_cmp_row *rows;
	struct ix_cmp_counts k;
	size_t nb, nn, nr;
	struct ix_figure *b = extract(coll_doc(1, 0), &nb), *c = extract(coll_doc(3, 2), &nn);

	cr_assert_eq(ix_figures_compare(b, nb, c, nn, 0.1, &rows, &nr, &k, &err), 0, "%s", err.msg);
	cr_expect_eq(row_of(rows, nr, "coll/avg_busbw"), IX_CMP_REGRESSION,
		     "a rank at 3 x the time halves the mean");
	cr_expect_eq(row_of(rows, nr, "coll/wrong"), IX_CMP_REGRESSION, "wrong elements appear");
	free(rows);
	free(b);
	free(c);
}
