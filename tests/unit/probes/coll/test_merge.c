/* Unit tests for probes/coll/merge.c: the rows from every rank's report
 * (time the mean of the ranks', algbw and busbw by nccl-tests' formulas,
 * wrong elements summed), a row some rank lacks left unmeasured, and the
 * verdicts: the slow rank, the slow link, none, and the late rank. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/merge.h"

static void setup(struct ix_coll_result *res, enum ix_coll_op op, int n)
{
	memset(res, 0, sizeof(*res));
	res->opts.op = op;
	res->opts.dtype = IX_COLL_FLOAT32;
	res->opts.sizes[0] = 1 << 20;
	res->opts.sizes[1] = 4 << 20;
	res->opts.nsizes = 2;
	res->opts.iters = 4;
	res->opts.check = true;
	res->opts.places[IX_COLL_OUT_OF_PLACE] = true;
	res->opts.places[IX_COLL_IN_PLACE] = true;
	res->opts.pair_scan = true;
	res->nranks = n;
	res->ranks = calloc((size_t)n, sizeof(*res->ranks));
	for (int r = 0; r < n; r++) {
		struct ix_coll_rank *k = &res->ranks[r];
		k->rank = r;
		snprintf(k->node, sizeof(k->node), "node%d", r / 2);
		k->joined = k->complete = true;
		k->nrows = 2;
		for (int i = 0; i < 2; i++)
			for (int p = 0; p < 2; p++)
				k->cell[i][p] = (struct ix_coll_rank_cell){
					.measured = true, .host_us = 100.0 * (i + 1) + r, .wrong = 0
				};
		k->pair_bps = 10e9;
		k->niter = 6;
		for (int it = 0; it < 6; it++)
			k->iter_us[it] = 100;
	}
}

Test(merge, rows_by_the_formulas)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 4);
	ix_coll_merge(&res);
	cr_assert(res.complete);
	cr_assert_eq(res.nrows, 2);
	cr_assert_eq(res.rows[1].bytes, 4 << 20);
	cr_assert_eq(res.rows[1].count, 1 << 20);
	const struct ix_coll_cell *c = &res.rows[1].cell[IX_COLL_OUT_OF_PLACE];
	cr_assert(c->measured);
	cr_assert_float_eq(c->time_us, 201.5, 1e-9, "the mean of 200..203");
	cr_assert_float_eq(c->rank_min_us, 200, 1e-9);
	cr_assert_float_eq(c->rank_max_us, 203, 1e-9);
	cr_assert_float_eq(c->algbw, (4 << 20) / 201.5e-6, 1);
	cr_assert_float_eq(c->busbw, c->algbw * 1.5, 1, "2(n-1)/n for 4 ranks");
	cr_assert_float_eq(res.bus_factor, 1.5, 1e-12);
	cr_assert_eq(res.wrong, 0);
	cr_assert_eq(res.nnodes, 2);
	cr_assert_float_eq(res.avg_busbw,
			   (res.rows[0].cell[0].busbw + res.rows[0].cell[1].busbw +
			    res.rows[1].cell[0].busbw + res.rows[1].cell[1].busbw) /
				   4,
			   1);
	ix_coll_result_free(&res);
}

Test(merge, all_gather_counts_the_whole_array)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_GATHER, 4);
	ix_coll_merge(&res);
	const struct ix_coll_cell *c = &res.rows[0].cell[0];
	cr_assert_eq(res.rows[0].count, (1 << 20) / 4 / 4);
	cr_assert_float_eq(c->algbw, (1 << 20) / (c->time_us * 1e-6), 1);
	cr_assert_float_eq(c->busbw, c->algbw * 0.75, 1);
	ix_coll_result_free(&res);
}

Test(merge, a_row_one_rank_lacks_is_not_measured)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 4);
	res.ranks[3].nrows = 1;
	res.ranks[3].complete = false;
	snprintf(res.ranks[3].error, sizeof(res.ranks[3].error), "timed out");
	ix_coll_merge(&res);
	cr_assert(!res.complete);
	cr_assert(res.rows[0].cell[0].measured);
	cr_assert(!res.rows[1].cell[0].measured, "no figure from 3 ranks of 4");
	ix_coll_result_free(&res);
}

Test(merge, wrong_elements)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 4);
	res.ranks[2].cell[1][1].wrong = 5;
	res.ranks[3].cell[1][1].wrong = 2;
	ix_coll_merge(&res);
	const struct ix_coll_cell *c = &res.rows[1].cell[IX_COLL_IN_PLACE];
	cr_assert_eq(c->wrong, 7);
	cr_assert_eq(c->wrong_ranks, 2);
	cr_assert_eq(c->first_wrong_rank, 2);
	cr_assert_eq(res.wrong, 7);
	ix_coll_result_free(&res);
}

Test(merge, unchecked_is_null_not_zero)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 2);
	res.opts.check = false;
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 2; i++)
			for (int p = 0; p < 2; p++)
				res.ranks[r].cell[i][p].wrong = -1;
	ix_coll_merge(&res);
	cr_assert_eq(res.rows[0].cell[0].wrong, -1);
	cr_assert_eq(res.wrong, -1);
	ix_coll_result_free(&res);
}

Test(merge, slow_rank_named)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 6);
	for (int r = 0; r < 6; r++)
		snprintf(res.ranks[r].node, sizeof(res.ranks[r].node), "node%d", r);
	/* rank 3's links: (2,3) and (3,4) */
	res.ranks[2].pair_bps = 4e9;
	res.ranks[3].pair_bps = 5e9;
	ix_coll_merge(&res);
	cr_assert_eq(res.npairs, 6);
	cr_assert_eq(res.verdict.slow_pairs, 2);
	cr_assert_eq(res.verdict.culprit, IX_COLL_RANK);
	cr_assert_eq(res.verdict.rank, 3);
	cr_assert_float_eq(res.verdict.share, 0.45, 1e-9);
	cr_assert(res.pairs[2].slow && res.pairs[3].slow && !res.pairs[0].slow);
	ix_coll_result_free(&res);
}

Test(merge, slow_rank_of_three)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 3);
	for (int r = 0; r < 3; r++)
		snprintf(res.ranks[r].node, sizeof(res.ranks[r].node), "one");
	/* rank 2: links (1,2) and (2,0); the median of all three is slow */
	res.ranks[1].pair_bps = 2e9;
	res.ranks[2].pair_bps = 2e9;
	ix_coll_merge(&res);
	cr_assert_eq(res.verdict.culprit, IX_COLL_RANK);
	cr_assert_eq(res.verdict.rank, 2);
	ix_coll_result_free(&res);
}

Test(merge, slow_link_named)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 6);
	for (int r = 0; r < 6; r++)
		snprintf(res.ranks[r].node, sizeof(res.ranks[r].node), "node%d", r);
	res.ranks[4].pair_bps = 3e9;
	ix_coll_merge(&res);
	cr_assert_eq(res.verdict.culprit, IX_COLL_LINK);
	cr_assert_eq(res.verdict.rank, 4);
	cr_assert_eq(res.verdict.rank_b, 5);
	cr_assert_float_eq(res.verdict.share, 0.3, 1e-9);
	ix_coll_result_free(&res);
}

Test(merge, links_of_another_kind_are_not_slow)
{
	struct ix_coll_result res;

	/* nodes of 2 ranks: (0,1), (2,3) within a node at 100 GB/s; the
	 * links between nodes at 10: no verdict */
	setup(&res, IX_COLL_ALL_REDUCE, 4);
	res.ranks[0].pair_bps = 100e9;
	res.ranks[2].pair_bps = 100e9;
	ix_coll_merge(&res);
	cr_assert_eq(res.verdict.slow_pairs, 0);
	cr_assert_eq(res.verdict.culprit, IX_COLL_NONE);
	ix_coll_result_free(&res);
}

Test(merge, late_rank)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 4);
	/* rank 1 arrives last in 4 of 6 iterations: its own time is short */
	for (int it = 0; it < 4; it++)
		res.ranks[1].iter_us[it] = 40;
	ix_coll_merge(&res);
	cr_assert_eq(res.verdict.late_rank, 1);
	cr_assert_eq(res.verdict.late_iters, 4);
	cr_assert_float_eq(res.verdict.late_us, 60, 1e-6);
	ix_coll_result_free(&res);
}

Test(merge, too_few_iterations_name_no_one)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 4);
	for (int r = 0; r < 4; r++)
		res.ranks[r].niter = IX_COLL_LATE_MIN_ITERS - 1;
	for (int it = 0; it < IX_COLL_LATE_MIN_ITERS - 1; it++)
		res.ranks[1].iter_us[it] = 40;
	ix_coll_merge(&res);
	cr_assert_eq(res.verdict.late_rank, -1, "every iteration, but too few of them");
	ix_coll_result_free(&res);
}

Test(merge, no_late_rank_in_noise)
{
	struct ix_coll_result res;

	setup(&res, IX_COLL_ALL_REDUCE, 4);
	res.ranks[1].iter_us[0] = 95;
	res.ranks[2].iter_us[1] = 40; /* once is not a pattern */
	ix_coll_merge(&res);
	cr_assert_eq(res.verdict.late_rank, -1);
	ix_coll_result_free(&res);
}
