/* Unit tests for probes/cluster/analysis.c: Jain's fairness index, the median, bad
 * cells and suspect nodes of an all-pairs mesh, measured zeros and floors. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/analysis.h"

#define GBIT 1e9

/* The analysis over a plain n x n array: through a store of every ordered
 * pair, and the cells back into the array (the diagonal as none). */
static int analyze(struct ix_cell *cells, uint32_t n, const struct ix_mesh_rules *rules,
		   struct ix_mesh_findings *out)
{
	struct ix_cells m;
	int rc;

	cr_assert_eq(ix_cells_load(&m, cells, n, IX_CELLS_FULL), 0);
	rc = ix_mesh_analyze(&m, rules, out);
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++)
			cells[(size_t)a * n + b] = ix_cells_get(&m, a, b);
	ix_cells_free(&m);
	return rc;
}

/* Deterministic pseudo-random numbers (xorshift64*), so failures repeat. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, 1). */
static double rng_unit(uint64_t *state)
{
	return (double)(rng_next(state) >> 11) / (double)(1ull << 53);
}

/* ---- Jain's index ---- */

Test(jain, equal_shares_are_fair)
{
	const double x[] = { 1, 1, 1, 1 };

	cr_assert_float_eq(ix_jain_index(x, 4), 1.0, 1e-12);
}

Test(jain, one_flow_gets_everything)
{
	const double x[] = { 1, 0, 0, 0 };

	cr_assert_float_eq(ix_jain_index(x, 4), 0.25, 1e-12);
}

Test(jain, empty_and_all_zero_are_zero)
{
	const double z[] = { 0, 0, 0 };

	cr_assert_eq(ix_jain_index(NULL, 0), 0.0);
	cr_assert_eq(ix_jain_index(z, 3), 0.0);
}

Test(jain, uneven_shares)
{
	/* (1 + 2 + 3 + 4)^2 / (4 * (1 + 4 + 9 + 16)) = 100 / 120 */
	const double x[] = { 1, 2, 3, 4 };
	/* (3 + 1)^2 / (2 * (9 + 1)) = 16 / 20 */
	const double y[] = { 3, 1 };

	cr_assert_float_eq(ix_jain_index(x, 4), 100.0 / 120.0, 1e-12);
	cr_assert_float_eq(ix_jain_index(y, 2), 0.8, 1e-12);
}

Test(jain, scale_free)
{
	const double x[] = { 1, 2, 3, 4 }, y[] = { 1e9, 2e9, 3e9, 4e9 };

	cr_assert_float_eq(ix_jain_index(x, 4), ix_jain_index(y, 4), 1e-12);
}

/* ---- median ---- */

Test(median, odd_count)
{
	const double x[] = { 5, 1, 3 };

	cr_assert_eq(ix_median(x, 3), 3.0);
}

Test(median, even_count_is_mean_of_middle_two)
{
	const double x[] = { 4, 1, 3, 2 };

	cr_assert_eq(ix_median(x, 4), 2.5);
}

Test(median, one_and_none)
{
	const double x[] = { 7 };

	cr_assert_eq(ix_median(x, 1), 7.0);
	cr_assert_eq(ix_median(NULL, 0), 0.0);
}

Test(median, input_left_unsorted)
{
	const double x[] = { 9, 8, 7, 6, 5 };
	double y[5];

	memcpy(y, x, sizeof(y));
	cr_assert_eq(ix_median(y, 5), 7.0);
	cr_assert_eq(memcmp(x, y, sizeof(y)), 0);
}

/* ---- mesh ---- */

/* An n * n mesh, every pair OK at about 10 Gbit/s (+-1%) and 5 us (+-1%),
 * the diagonal NONE; bad set to 1 everywhere so that clearing is tested. */
static struct ix_cell *mesh_new(uint32_t n)
{
	struct ix_cell *cells = calloc((size_t)n * n + 1, sizeof(*cells));
	uint64_t rng = 0x1234567 + n;

	cr_assert_not_null(cells);
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t c = 0; c < n; c++) {
			struct ix_cell *x = &cells[(size_t)r * n + c];

			x->bad = 1;
			if (r == c) {
				x->state = IX_CELL_NONE;
				continue;
			}
			x->state = IX_CELL_OK;
			x->bw_bps = (float)(10 * GBIT * (0.99 + 0.02 * rng_unit(&rng)));
			x->lat_p50_ns = (float)(5000 * (0.99 + 0.02 * rng_unit(&rng)));
			x->lat_p99_ns = 2 * x->lat_p50_ns;
		}
	return cells;
}

static struct ix_cell *cell(struct ix_cell *cells, uint32_t n, uint32_t r, uint32_t c)
{
	return &cells[(size_t)r * n + c];
}

/* Every cell in node s's row and column (off the diagonal) at bw. */
static void slow_node(struct ix_cell *cells, uint32_t n, uint32_t s, float bw)
{
	for (uint32_t i = 0; i < n; i++)
		if (i != s) {
			cell(cells, n, s, i)->bw_bps = bw;
			cell(cells, n, i, s)->bw_bps = bw;
		}
}

/* Asserts that bad is set exactly where want(r, c) says. */
static void expect_bad(struct ix_cell *cells, uint32_t n, bool (*want)(uint32_t, uint32_t))
{
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t c = 0; c < n; c++)
			cr_assert_eq(cell(cells, n, r, c)->bad != 0, want(r, c),
				     "cell (%u, %u): bad = %u", r, c, cell(cells, n, r, c)->bad);
}

static bool involves_3(uint32_t r, uint32_t c)
{
	return r != c && (r == 3 || c == 3);
}

static bool involves_1_or_4(uint32_t r, uint32_t c)
{
	return r != c && (r == 1 || c == 1 || r == 4 || c == 4);
}

static bool none(uint32_t r, uint32_t c)
{
	return false;
}

Test(mesh, one_slow_node_is_the_suspect)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_rules rules = { 0.7, 2.0, 50, 0, 0 };
	struct ix_mesh_findings f;

	slow_node(cells, n, 3, (float)GBIT);
	cr_assert_eq(analyze(cells, n, &rules, &f), 0);
	cr_assert_eq(f.bad_pairs, 10);
	expect_bad(cells, n, involves_3);
	cr_assert_eq(f.nsuspects, 1);
	cr_assert_eq(f.suspects[0], 3);
	cr_assert(f.median_bw_bps > 9.9 * GBIT && f.median_bw_bps < 10.1 * GBIT, "median %g",
		  f.median_bw_bps);
	cr_assert(f.min_lat_ns >= 4950 && f.min_lat_ns <= 5050, "min latency %g", f.min_lat_ns);
	free(f.suspects);
	free(cells);
}

Test(mesh, uniform_mesh_has_nothing_bad)
{
	uint32_t n = 16;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 0);
	expect_bad(cells, n, none);
	cr_assert_eq(f.nsuspects, 0);
	cr_assert_null(f.suspects);
	free(cells);
}

/* 10 nodes, so that the 34 slow cells of nodes 1 and 4 stay a minority of
 * the 90 and the median stays fast. */
Test(mesh, two_slow_nodes_and_the_cell_between_them)
{
	uint32_t n = 10;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	slow_node(cells, n, 1, (float)GBIT);
	slow_node(cells, n, 4, (float)(1.5 * GBIT));
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 34);
	expect_bad(cells, n, involves_1_or_4);
	cr_assert_eq(cell(cells, n, 1, 4)->bad, 1);
	cr_assert_eq(cell(cells, n, 4, 1)->bad, 1);
	cr_assert_eq(f.nsuspects, 2);
	cr_assert_eq(f.suspects[0], 1);
	cr_assert_eq(f.suspects[1], 4);
	free(f.suspects);
	free(cells);
}

Test(mesh, high_latency_node_is_the_suspect)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	for (uint32_t i = 0; i < n; i++)
		if (i != 3) {
			cell(cells, n, 3, i)->lat_p50_ns *= 5;
			cell(cells, n, i, 3)->lat_p50_ns *= 5;
		}
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 10);
	expect_bad(cells, n, involves_3);
	cr_assert_eq(f.nsuspects, 1);
	cr_assert_eq(f.suspects[0], 3);
	free(f.suspects);
	free(cells);
}

Test(mesh, single_bad_cell_names_no_suspect)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	cell(cells, n, 0, 1)->bw_bps = (float)GBIT;
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 1);
	cr_assert_eq(cell(cells, n, 0, 1)->bad, 1);
	cr_assert_eq(cell(cells, n, 1, 0)->bad, 0);
	cr_assert_eq(f.nsuspects, 0);
	cr_assert_null(f.suspects);

	/* Both directions bad: two each for nodes 0 and 1, of ten measured. */
	cell(cells, n, 1, 0)->lat_p50_ns = 20000;
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 2);
	cr_assert_eq(f.nsuspects, 0);
	free(cells);
}

Test(mesh, failed_and_pending_cells_are_ignored)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	slow_node(cells, n, 3, (float)GBIT);
	/* Node 5 failed everything; stale low figures must not count. */
	for (uint32_t i = 0; i < n; i++)
		if (i != 5) {
			*cell(cells, n, 5, i) = (struct ix_cell){
				.state = IX_CELL_FAILED, .bw_bps = 1e6f, .lat_p50_ns = 1, .bad = 1
			};
			*cell(cells, n, i, 5) = (struct ix_cell){
				.state = IX_CELL_PENDING, .bw_bps = 1e6f, .lat_p50_ns = 1, .bad = 1
			};
		}
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	/* Node 3's cells with 0, 1, 2 and 4, both ways. */
	cr_assert_eq(f.bad_pairs, 8);
	for (uint32_t i = 0; i < n; i++) {
		cr_assert_eq(cell(cells, n, 5, i)->bad, 0);
		cr_assert_eq(cell(cells, n, i, 5)->bad, 0);
	}
	cr_assert(f.min_lat_ns > 4900, "min latency %g includes a failed cell", f.min_lat_ns);
	cr_assert(f.median_bw_bps > 9.9 * GBIT, "median %g", f.median_bw_bps);
	cr_assert_eq(f.nsuspects, 1);
	cr_assert_eq(f.suspects[0], 3);
	free(f.suspects);
	free(cells);
}

/* Node 0 has only two measured cells left, both bad: 2 of 2 is suspect. */
Test(mesh, suspect_among_few_measured)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	for (uint32_t i = 2; i < n; i++) {
		cell(cells, n, 0, i)->state = IX_CELL_FAILED;
		cell(cells, n, i, 0)->state = IX_CELL_FAILED;
	}
	cell(cells, n, 0, 1)->bw_bps = (float)GBIT;
	cell(cells, n, 1, 0)->bw_bps = (float)GBIT;
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 2);
	cr_assert_eq(f.nsuspects, 1);
	cr_assert_eq(f.suspects[0], 0);
	free(f.suspects);

	/* One measured cell, bad: 1 of 1 is most, but fewer than two. */
	cell(cells, n, 1, 0)->state = IX_CELL_FAILED;
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 1);
	cr_assert_eq(f.nsuspects, 0);
	cr_assert_null(f.suspects);
	free(cells);
}

Test(mesh, two_nodes_name_no_suspect)
{
	uint32_t n = 2;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	/* Median 5.5 Gbit/s: (0, 1) is slow; (1, 0) has 5x the lowest latency,
	 * bad against a baseline near the lowest (the 1st percentile). Both
	 * cells are bad, both nodes 2 of 2, but n < 3. */
	struct ix_mesh_rules low = { 0, 0, 1, 0, 0 };

	*cell(cells, n, 0, 1) =
		(struct ix_cell){ .state = IX_CELL_OK, .bw_bps = (float)GBIT, .lat_p50_ns = 1000 };
	*cell(cells, n, 1, 0) = (struct ix_cell){ .state = IX_CELL_OK,
						  .bw_bps = (float)(10 * GBIT),
						  .lat_p50_ns = 5000 };
	cr_assert_eq(analyze(cells, n, &low, &f), 0);
	cr_assert_eq(f.bad_pairs, 2);
	cr_assert_eq(f.nsuspects, 0);
	cr_assert_null(f.suspects);
	cr_assert_float_eq(f.median_bw_bps, 5.5 * GBIT, 1);
	cr_assert_eq(f.min_lat_ns, 1000.0);
	free(cells);
}

Test(mesh, zero_rules_take_the_defaults)
{
	uint32_t n = 6;
	struct ix_cell *a = mesh_new(n), *b = mesh_new(n);
	struct ix_mesh_rules zero = { 0, 0, 0, 0, 0 }, negative = { -1, -3, -5, 0, 0 };
	struct ix_mesh_findings f;

	/* 0.65 of the median is bad by the default 0.7; 2.1x latency by 2.0. */
	cell(a, n, 0, 1)->bw_bps = (float)(6.5 * GBIT);
	cell(a, n, 2, 4)->lat_p50_ns = 4900 * 2.1f;
	cr_assert_eq(analyze(a, n, &zero, &f), 0);
	memcpy(b, a, (size_t)n * n * sizeof(*a));
	cr_assert_eq(f.bad_pairs, 2);
	cr_assert_eq(cell(a, n, 0, 1)->bad, IX_BAD_BW);
	cr_assert_eq(cell(a, n, 2, 4)->bad, IX_BAD_LAT);
	cr_assert_eq(analyze(b, n, &negative, &f), 0);
	cr_assert_eq(memcmp(a, b, (size_t)n * n * sizeof(*a)), 0);
	cr_assert_eq(analyze(b, n, NULL, &f), 0);
	cr_assert_eq(memcmp(a, b, (size_t)n * n * sizeof(*a)), 0);
	free(a);
	free(b);
}

Test(mesh, rules_are_applied)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_rules lax = { 0.05, 10, 50, 0, 0 }, strict = { 0.995, 1.001, 50, 0, 0 };
	struct ix_mesh_findings f;

	slow_node(cells, n, 3, (float)GBIT); /* 0.1 of the median */
	for (uint32_t i = 0; i < n; i++)
		if (i != 2)
			cell(cells, n, 2, i)->lat_p50_ns *= 5;
	cr_assert_eq(analyze(cells, n, &lax, &f), 0);
	cr_assert_eq(f.bad_pairs, 0);
	cr_assert_eq(f.nsuspects, 0);
	/* Within 0.5% of the median bandwidth and 0.1% of the median latency:
	 * the slow node's 10, row 2's 5 and about half of the other 15. */
	cr_assert_eq(analyze(cells, n, &strict, &f), 0);
	cr_assert_gt(f.bad_pairs, 15, "%zu bad, baseline %g, median %g", f.bad_pairs,
		     f.lat_baseline_ns, f.median_bw_bps);
	free(f.suspects);
	free(cells);
}

Test(mesh, empty_meshes)
{
	struct ix_cell one = { .state = IX_CELL_NONE, .bad = 1 };
	struct ix_mesh_findings f;

	cr_assert_eq(analyze(NULL, 0, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 0);
	cr_assert_eq(f.nsuspects, 0);
	cr_assert_null(f.suspects);
	cr_assert_eq(f.median_bw_bps, 0.0);
	cr_assert_eq(analyze(&one, 1, NULL, &f), 0);
	cr_assert_eq(one.bad, 0);
	cr_assert_eq(f.bad_pairs, 0);
	cr_assert_eq(f.min_lat_ns, 0.0);
}

/* The radix-selected median equals ix_median over the same values, for
 * wide, narrow (shared high bits), and few-valued distributions, odd and
 * even counts, with some cells failed, pending, or without a bandwidth. */
Test(mesh, median_matches_ix_median)
{
	uint64_t rng = 42;

	for (int trial = 0; trial < 60; trial++) {
		uint32_t n = 2 + (uint32_t)(rng_next(&rng) % 40);
		struct ix_cell *cells = mesh_new(n);
		double *v = malloc((size_t)n * n * sizeof(*v));
		size_t nv = 0;
		struct ix_mesh_findings f;

		cr_assert_not_null(v);
		for (uint32_t r = 0; r < n; r++)
			for (uint32_t c = 0; c < n; c++) {
				struct ix_cell *x = cell(cells, n, r, c);
				uint64_t pick = rng_next(&rng) % 10;

				if (r == c)
					continue;
				if (trial % 3 == 0) /* wide: 1 kbit/s .. 1 Tbit/s */
					x->bw_bps = (float)pow(10, 3 + 9 * rng_unit(&rng));
				else if (trial % 3 == 1) /* narrow: one high-16 bucket or two */
					x->bw_bps = (float)(8e9 + 1e5 * rng_unit(&rng));
				else /* few values, many ties */
					x->bw_bps = (float)(1e9 * (1 + rng_next(&rng) % 4));
				if (pick == 0)
					x->state = IX_CELL_FAILED;
				else if (pick == 1)
					x->state = IX_CELL_PENDING;
				else if (pick == 2)
					x->bw_bps = 0;
				else
					v[nv++] = x->bw_bps;
			}
		cr_assert_eq(analyze(cells, n, NULL, &f), 0);
		cr_assert_eq(f.median_bw_bps, ix_median(v, nv),
			     "trial %d, n = %u, %zu values: %.9g", trial, n, nv, f.median_bw_bps);
		free(f.suspects);
		free(v);
		free(cells);
	}
}

/* A 1024-host mesh (1 M cells) with a slow node: quick and exact. */
Test(mesh, large_mesh)
{
	uint32_t n = 1024;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	slow_node(cells, n, 777, (float)GBIT);
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 2 * (n - 1));
	cr_assert_eq(f.nsuspects, 1);
	cr_assert_eq(f.suspects[0], 777);
	free(f.suspects);
	free(cells);
}

Test(mesh, one_lucky_pair_condemns_nobody)
{
	uint32_t n = 16;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	/* One pair far faster than the rest (a cached path, a same-switch
	 * shortcut): with the lowest pair as the baseline, every other pair
	 * would be above 2x it. */
	cell(cells, n, 5, 9)->lat_p50_ns = 1500;
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 0, "%zu bad pairs", f.bad_pairs);
	cr_assert_float_eq(f.min_lat_ns, 1500, 1e-3);
	cr_assert(f.lat_baseline_ns > 4950 && f.lat_baseline_ns < 5050, "baseline %g",
		  f.lat_baseline_ns);
	cr_assert_eq(f.lat_pairs, (size_t)n * (n - 1));
	free(cells);
}

Test(mesh, the_baseline_percentile_is_a_rule)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_rules p10 = { 0, 2.0, 10, 0, 0 }, p100 = { 0, 2.0, 100, 0, 0 };
	struct ix_mesh_findings f;

	/* Half the pairs at 5 us, half at 11 us: above 2x the 10th percentile,
	 * and not above 2x the highest. */
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t c = 0; c < n; c++)
			if (r != c && r >= n / 2)
				cell(cells, n, r, c)->lat_p50_ns = 11000;
	cr_assert_eq(analyze(cells, n, &p10, &f), 0);
	cr_assert_eq(f.bad_pairs, 15);
	cr_assert_float_eq(f.lat_percentile, 10, 1e-9);
	cr_assert_eq(analyze(cells, n, &p100, &f), 0);
	cr_assert_eq(f.bad_pairs, 0);
	cr_assert_float_eq(f.lat_baseline_ns, 11000, 1e-3);
	free(f.suspects);
	free(cells);
}

Test(mesh, a_bad_pair_says_why)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;
	char why[256];

	cell(cells, n, 0, 1)->bw_bps = (float)(3.1 * GBIT);
	cell(cells, n, 2, 4)->lat_p50_ns = 19400;
	cell(cells, n, 3, 5)->bw_bps = (float)(2 * GBIT);
	cell(cells, n, 3, 5)->lat_p50_ns = 12000;
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	ix_mesh_reason(cell(cells, n, 0, 1), &f, why, sizeof(why));
	cr_assert(strstr(why, "bandwidth 3.10 Gbit/s < 0.7 x median 10.0") == why, "%s", why);
	cr_assert(strstr(why, "(31%)"), "%s", why);
	ix_mesh_reason(cell(cells, n, 2, 4), &f, why, sizeof(why));
	cr_assert(strstr(why,
			 "latency p50 19.4 us > 2 x baseline 5.0 us (median of 30 pairs; 3.9 x)") ==
			  why,
		  "%s", why);
	ix_mesh_reason(cell(cells, n, 3, 5), &f, why, sizeof(why));
	cr_assert(strstr(why, "bandwidth 2.00 Gbit/s") == why &&
			  strstr(why, "; latency p50 12.0 us"),
		  "both rules: %s", why);
	ix_mesh_reason(cell(cells, n, 1, 2), &f, why, sizeof(why));
	cr_assert_str_eq(why, "", "a good pair has no reason");
	free(f.suspects);
	free(cells);
}

/* A pair whose test ran and moved nothing is measured at 0: bad whatever
 * the rules, counted, and left out of the median it would drag. */
Test(mesh, a_pair_measured_at_zero_is_bad)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;
	char why[256];

	cell(cells, n, 1, 4)->bw_bps = 0;
	cell(cells, n, 1, 4)->bw_zero = 1;
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 1);
	cr_assert_eq(f.zero_pairs, 1);
	cr_assert_eq(cell(cells, n, 1, 4)->bad, IX_BAD_BW);
	cr_assert_gt(f.median_bw_bps, 9.9 * GBIT, "the zero is not in the median: %g",
		     f.median_bw_bps);
	ix_mesh_reason(cell(cells, n, 1, 4), &f, why, sizeof(why));
	cr_assert(strstr(why, "moved nothing (0 bit/s)"), "%s", why);
	cr_assert(ix_cell_has_bw(cell(cells, n, 1, 4)));
	free(f.suspects);
	free(cells);
}

/* Every pair dead: a median of 0 condemns nobody by the relative rule,
 * yet every pair is bad. */
Test(mesh, a_dead_mesh_is_all_bad)
{
	uint32_t n = 4;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings f;

	for (uint32_t r = 0; r < n; r++)
		for (uint32_t c = 0; c < n; c++)
			if (r != c) {
				cell(cells, n, r, c)->bw_bps = 0;
				cell(cells, n, r, c)->bw_zero = 1;
			}
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, (size_t)n * (n - 1));
	cr_assert_eq(f.zero_pairs, (size_t)n * (n - 1));
	cr_assert_eq(f.median_bw_bps, 0.0);
	cr_assert_eq(f.nsuspects, n, "every node is suspect");
	free(f.suspects);
	free(cells);
}

/* Most pairs slow drag the median down to them: the relative rule finds
 * only the fast ones' opposite, the floor finds every slow pair. */
Test(mesh, the_floor_fails_a_mesh_its_median_hides)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_rules floor = { 0.7, 2.0, 50, 5 * GBIT, 0 };
	struct ix_mesh_findings f;
	size_t slow = 0;
	char why[256];

	for (uint32_t r = 0; r < n; r++)
		for (uint32_t c = 0; c < n; c++)
			if (r != c && (r + c) % 3 != 0) {
				cell(cells, n, r, c)->bw_bps = (float)GBIT;
				slow++;
			}
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.median_bw_bps, GBIT, "the slow pairs are the median");
	cr_assert_eq(f.bad_pairs, 0, "by the median alone nothing is bad");
	cr_assert_eq(analyze(cells, n, &floor, &f), 0);
	cr_assert_eq(f.bad_pairs, slow);
	cr_assert_eq(f.min_bw_bps, 5 * GBIT);
	ix_mesh_reason(cell(cells, n, 0, 1), &f, why, sizeof(why));
	cr_assert_str_eq(why, "bandwidth 1.00 Gbit/s < floor 5.00 Gbit/s");
	free(f.suspects);
	free(cells);
}

/* The latency limit, and a latency test with no round trip back. */
Test(mesh, the_latency_limit_and_a_lost_pair)
{
	uint32_t n = 5;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_rules lim = { 0.7, 2.0, 50, 0, 4000 };
	struct ix_mesh_findings f;
	char why[256];

	cell(cells, n, 2, 3)->lat_p50_ns = 0;
	cell(cells, n, 2, 3)->lat_lost = 1;
	cr_assert_eq(analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 1);
	cr_assert_eq(f.lost_pairs, 1);
	cr_assert_eq(cell(cells, n, 2, 3)->bad, IX_BAD_LAT);
	ix_mesh_reason(cell(cells, n, 2, 3), &f, why, sizeof(why));
	cr_assert_str_eq(why, "latency: the test ran and no round trip came back");
	/* Every pair is about 5 us: above a 4 us limit, all bad. */
	cr_assert_eq(analyze(cells, n, &lim, &f), 0);
	cr_assert_eq(f.bad_pairs, (size_t)n * (n - 1));
	cr_assert_eq(f.max_lat_ns, 4000);
	ix_mesh_reason(cell(cells, n, 0, 1), &f, why, sizeof(why));
	cr_assert(strstr(why, "> limit 4.0 us"), "%s", why);
	free(f.suspects);
	free(cells);
}

/* A mesh of one test per pair, as the mesh keeps it (one slot a pair) and
 * as a live view draws it (both sides): the same bad pairs and suspect as
 * from every ordered pair's store with the other way none. */
Test(mesh, one_slot_a_pair_is_judged_as_every_ordered_pair)
{
	const uint32_t n = 9;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_findings full, pair, mirror;
	struct ix_cells m[2];

	slow_node(cells, n, 4, (float)GBIT);
	for (uint32_t a = 0; a < n; a++) /* each pair one way, alternating */
		for (uint32_t b = a + 1; b < n; b++)
			cell(cells, n, (a + b) % 2 ? a : b, (a + b) % 2 ? b : a)->state =
				IX_CELL_NONE;
	cr_assert_eq(ix_cells_load(&m[0], cells, n, IX_CELLS_PAIR), 0);
	cr_assert_eq(ix_cells_load(&m[1], cells, n, IX_CELLS_MIRROR), 0);
	cr_assert_eq(analyze(cells, n, NULL, &full), 0);
	cr_assert_eq(ix_mesh_analyze(&m[0], NULL, &pair), 0);
	cr_assert_eq(ix_mesh_analyze(&m[1], NULL, &mirror), 0);
	cr_assert_eq(full.bad_pairs, 8, "node 4's pairs, once each");
	cr_assert_eq(pair.bad_pairs, full.bad_pairs);
	cr_assert_eq(mirror.bad_pairs, full.bad_pairs, "a pair drawn both ways counts once");
	cr_assert_eq(pair.median_bw_bps, full.median_bw_bps);
	cr_assert_eq(mirror.lat_baseline_ns, full.lat_baseline_ns);
	cr_assert_eq(pair.nsuspects, 1);
	cr_assert_eq(mirror.nsuspects, 1);
	cr_assert_eq(pair.suspects[0], 4);
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++) {
			struct ix_cell p = ix_cells_get(&m[0], a, b), v = ix_cells_get(&m[1], a, b);
			struct ix_cell *c = cell(cells, n, a, b);

			cr_assert_eq(p.bad, c->bad, "(%u, %u)", a, b);
			cr_assert_eq(v.bad,
				     c->state == IX_CELL_OK ? c->bad : cell(cells, n, b, a)->bad,
				     "(%u, %u) drawn with its pair's flags", a, b);
		}
	free(full.suspects);
	free(pair.suspects);
	free(mirror.suspects);
	ix_cells_free(&m[0]);
	ix_cells_free(&m[1]);
	free(cells);
}

/* The in-place median is ix_median's, for any length, with repeats. */
Test(median, in_place_of_floats)
{
	uint64_t rng = 42;

	for (size_t n = 1; n < 200; n++) {
		float *f = malloc(n * sizeof(*f));
		double *d = malloc(n * sizeof(*d));

		cr_assert(f && d);
		for (size_t i = 0; i < n; i++) /* few distinct values: repeats */
			d[i] = f[i] = (float)(1 + (int)(rng_unit(&rng) * (double)(n % 7 + 2)));
		cr_assert_eq(ix_median_float(f, n), ix_median(d, n), "n = %zu", n);
		free(f);
		free(d);
	}
	cr_assert_eq(ix_median_float(NULL, 0), 0);
}

static bool row_zero(const struct ix_cell *c, uint32_t row, uint32_t col, const void *arg)
{
	(void)col;
	(void)arg;
	return row == 0 && c->state == IX_CELL_OK;
}

/* A percentile over the cells a filter takes: node 0's row. */
Test(mesh, a_percentile_over_chosen_cells)
{
	const uint32_t n = 5;
	struct ix_cell *cells = mesh_new(n);
	double row[4], low = INFINITY;
	struct ix_cells m;
	uint64_t count;

	for (uint32_t b = 1; b < n; b++)
		row[b - 1] = cell(cells, n, 0, b)->bw_bps = (float)(b * GBIT);
	cr_assert_eq(ix_cells_load(&m, cells, n, IX_CELLS_FULL), 0);
	cr_assert_eq(ix_cells_percentile(&m, false, row_zero, NULL, 50, &count), ix_median(row, 4));
	cr_assert_eq(count, 4);
	cr_assert_eq(ix_cells_percentile(&m, false, row_zero, NULL, 100, &count), 4 * GBIT);
	/* The 0th of the latencies: the lowest of the row (as the store keeps it). */
	for (uint32_t b = 1; b < n; b++)
		low = fmin(low, ix_cells_get(&m, 0, b).lat_p50_ns);
	cr_assert_eq(ix_cells_percentile(&m, true, row_zero, NULL, 0, &count), low);
	ix_cells_free(&m);
	free(cells);
}
