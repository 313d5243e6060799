/* Unit tests for probes/cluster/analysis.c: Jain's fairness index, the median, bad
 * cells and suspect nodes of an all-pairs mesh, and the incast diagnosis. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/analysis.h"

#define GBIT 1e9

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
	struct ix_mesh_rules rules = { 0.7, 2.0, 50 };
	struct ix_mesh_findings f;

	slow_node(cells, n, 3, (float)GBIT);
	cr_assert_eq(ix_mesh_analyze(cells, n, &rules, &f), 0);
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

	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
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
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
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
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
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
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 1);
	cr_assert_eq(cell(cells, n, 0, 1)->bad, 1);
	cr_assert_eq(cell(cells, n, 1, 0)->bad, 0);
	cr_assert_eq(f.nsuspects, 0);
	cr_assert_null(f.suspects);

	/* Both directions bad: two each for nodes 0 and 1, of ten measured. */
	cell(cells, n, 1, 0)->lat_p50_ns = 20000;
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
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
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
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
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 2);
	cr_assert_eq(f.nsuspects, 1);
	cr_assert_eq(f.suspects[0], 0);
	free(f.suspects);

	/* One measured cell, bad: 1 of 1 is most, but fewer than two. */
	cell(cells, n, 1, 0)->state = IX_CELL_FAILED;
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
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
	struct ix_mesh_rules low = { 0, 0, 1 };

	*cell(cells, n, 0, 1) =
		(struct ix_cell){ .state = IX_CELL_OK, .bw_bps = (float)GBIT, .lat_p50_ns = 1000 };
	*cell(cells, n, 1, 0) = (struct ix_cell){ .state = IX_CELL_OK,
						  .bw_bps = (float)(10 * GBIT),
						  .lat_p50_ns = 5000 };
	cr_assert_eq(ix_mesh_analyze(cells, n, &low, &f), 0);
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
	struct ix_mesh_rules zero = { 0, 0, 0 }, negative = { -1, -3, -5 };
	struct ix_mesh_findings f;

	/* 0.65 of the median is bad by the default 0.7; 2.1x latency by 2.0. */
	cell(a, n, 0, 1)->bw_bps = (float)(6.5 * GBIT);
	cell(a, n, 2, 4)->lat_p50_ns = 4900 * 2.1f;
	cr_assert_eq(ix_mesh_analyze(a, n, &zero, &f), 0);
	memcpy(b, a, (size_t)n * n * sizeof(*a));
	cr_assert_eq(f.bad_pairs, 2);
	cr_assert_eq(cell(a, n, 0, 1)->bad, IX_BAD_BW);
	cr_assert_eq(cell(a, n, 2, 4)->bad, IX_BAD_LAT);
	cr_assert_eq(ix_mesh_analyze(b, n, &negative, &f), 0);
	cr_assert_eq(memcmp(a, b, (size_t)n * n * sizeof(*a)), 0);
	cr_assert_eq(ix_mesh_analyze(b, n, NULL, &f), 0);
	cr_assert_eq(memcmp(a, b, (size_t)n * n * sizeof(*a)), 0);
	free(a);
	free(b);
}

Test(mesh, rules_are_applied)
{
	uint32_t n = 6;
	struct ix_cell *cells = mesh_new(n);
	struct ix_mesh_rules lax = { 0.05, 10, 50 }, strict = { 0.995, 1.001, 50 };
	struct ix_mesh_findings f;

	slow_node(cells, n, 3, (float)GBIT); /* 0.1 of the median */
	for (uint32_t i = 0; i < n; i++)
		if (i != 2)
			cell(cells, n, 2, i)->lat_p50_ns *= 5;
	cr_assert_eq(ix_mesh_analyze(cells, n, &lax, &f), 0);
	cr_assert_eq(f.bad_pairs, 0);
	cr_assert_eq(f.nsuspects, 0);
	/* Within 0.5% of the median bandwidth and 0.1% of the median latency:
	 * the slow node's 10, row 2's 5 and about half of the other 15. */
	cr_assert_eq(ix_mesh_analyze(cells, n, &strict, &f), 0);
	cr_assert_gt(f.bad_pairs, 15, "%zu bad, baseline %g, median %g", f.bad_pairs,
		     f.lat_baseline_ns, f.median_bw_bps);
	free(f.suspects);
	free(cells);
}

Test(mesh, empty_meshes)
{
	struct ix_cell one = { .state = IX_CELL_NONE, .bad = 1 };
	struct ix_mesh_findings f;

	cr_assert_eq(ix_mesh_analyze(NULL, 0, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 0);
	cr_assert_eq(f.nsuspects, 0);
	cr_assert_null(f.suspects);
	cr_assert_eq(f.median_bw_bps, 0.0);
	cr_assert_eq(ix_mesh_analyze(&one, 1, NULL, &f), 0);
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
		cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
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
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
	cr_assert_eq(f.bad_pairs, 2 * (n - 1));
	cr_assert_eq(f.nsuspects, 1);
	cr_assert_eq(f.suspects[0], 777);
	free(f.suspects);
	free(cells);
}

/* ---- incast diagnosis ---- */

/* A sweep point without fabric counters. */
#define PT(n_, bps_, stalled_, rounds_, retr_)                                        \
	{                                                                             \
		.senders = (n_), .goodput_bps = (bps_), .stalled_rounds = (stalled_), \
		.rounds = (rounds_), .retransmits = (retr_)                           \
	}

static void expect_has(const char *buf, const char *phrase)
{
	cr_assert_not_null(strstr(buf, phrase), "\"%s\" lacks \"%s\"", buf, phrase);
}

Test(incast, collapse_with_stalls)
{
	const struct ix_incast_point p[] = {
		PT(1, 9.4e9, 0, 100, 0), PT(8, 9.3e9, 0, 100, 2),
		PT(32, 1.2e9, 37, 100, 900), /* 12.8% */
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "goodput at N=32 is 13% of N=1 with 37 of 100 rounds stalled");
	expect_has(buf, "retransmission timeouts (incast collapse)");
	expect_has(buf, "switch port buffers");
}

Test(incast, collapse_without_stalls)
{
	const struct ix_incast_point p[] = {
		PT(1, 9.4e9, 0, 0, 0),
		PT(16, 3.0e9, 0, 0, 4521), /* 31.9% */
		PT(32, 4.0e9, 0, 0, 100),
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "drops to 32% of N=1 at N=16 without stalled rounds");
	expect_has(buf, "saturated or losing packets");
	expect_has(buf, "check retransmits: 4521");
}

Test(incast, mild_degradation)
{
	const struct ix_incast_point p[] = {
		PT(2, 9.0e9, 0, 50, 0), PT(4, 8.9e9, 0, 50, 0), PT(64, 6.75e9, 1, 50, 12), /* 75% */
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "goodput at N=64 is 75% of N=2");
	expect_has(buf, "mild");
	cr_assert_null(strstr(buf, "incast collapse"), "%s", buf);
}

Test(incast, goodput_holds)
{
	const struct ix_incast_point p[] = {
		PT(1, 9.4e9, 0, 100, 0), PT(8, 9.35e9, 0, 100, 0),
		PT(32, 9.3e9, 0, 100, 0), /* 98.9% */
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "goodput holds from N=1 to N=32 (at least 99% of N=1)");
	expect_has(buf, "no incast collapse at these fan-ins");
}

Test(incast, base_is_the_fewest_senders_whatever_the_order)
{
	const struct ix_incast_point p[] = {
		PT(32, 1.0e9, 5, 10, 0),
		PT(4, 9.0e9, 0, 10, 0),
		PT(8, 8.8e9, 0, 10, 0),
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "goodput at N=32 is 11% of N=4 with 5 of 10 rounds stalled");
}

/* Switch-side evidence as the hosts count it, next to retransmissions. */
Test(incast, collapse_cites_the_counters)
{
	struct ix_incast_point p[] = { PT(1, 9.4e9, 0, 100, 0), PT(16, 2.0e9, 30, 100, 4000) };
	char buf[1024];

	p[1].counters = true;
	p[1].at_receiver.v[IX_CC_PAUSE_TX] = 1800;
	p[1].at_receiver.v[IX_CC_CNP_SENT] = 250;
	p[1].at_receiver.has = (1u << IX_CC_PAUSE_TX) | (1u << IX_CC_CNP_SENT);
	p[1].at_senders.v[IX_CC_PAUSE_RX] = 1790;
	p[1].at_senders.v[IX_CC_CNP_HANDLED] = 240;
	p[1].at_senders.has = (1u << IX_CC_PAUSE_RX) | (1u << IX_CC_CNP_HANDLED);
	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	expect_has(buf, "incast collapse");
	expect_has(buf,
		   "; fabric counters at N=16: receiver 1800 pause frames sent, 250 CNPs sent, "
		   "senders 1790 pause frames received, 240 CNPs handled");
	/* Read but quiet: the loss is past the hosts' ports. */
	memset(&p[1].at_receiver, 0, sizeof(p[1].at_receiver));
	memset(&p[1].at_senders, 0, sizeof(p[1].at_senders));
	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	expect_has(buf, "no fabric counter moved at the hosts");
	/* A healthy sweep with quiet counters says nothing more. */
	p[1].goodput_bps = 9.3e9;
	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	cr_assert_null(strstr(buf, "fabric counter"), "%s", buf);
	/* Never read: nothing said about counters. */
	p[1].goodput_bps = 2.0e9;
	p[1].counters = false;
	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	cr_assert_null(strstr(buf, "fabric counter"), "%s", buf);
}

Test(incast, fewer_than_two_points)
{
	const struct ix_incast_point p[] = { PT(1, 9.4e9, 0, 100, 0) };
	char buf[512];

	ix_incast_diagnose(p, 1, buf, sizeof(buf));
	expect_has(buf, "at least two sender counts");
	ix_incast_diagnose(NULL, 0, buf, sizeof(buf));
	expect_has(buf, "at least two sender counts");
}

Test(incast, no_goodput_at_the_base)
{
	const struct ix_incast_point p[] = { PT(1, 0, 0, 0, 0), PT(2, 1e9, 0, 0, 0) };
	char buf[512];

	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	expect_has(buf, "no goodput was measured at N=1");
}

Test(incast, tiny_buffer_is_terminated_and_not_overrun)
{
	const struct ix_incast_point p[] = {
		PT(1, 9.4e9, 0, 100, 0),
		PT(32, 1.2e9, 37, 100, 900),
	};
	char buf[32];

	memset(buf, 'X', sizeof(buf));
	ix_incast_diagnose(p, 2, buf, 8);
	cr_assert_eq(strlen(buf), 7);
	cr_assert_eq(strncmp(buf, "goodput", 7), 0, "%s", buf);
	for (size_t i = 8; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 'X', "byte %zu written", i);

	memset(buf, 'X', sizeof(buf));
	ix_incast_diagnose(p, 2, buf, 0);
	cr_assert_eq(buf[0], 'X', "len 0 writes nothing");
	ix_incast_diagnose(p, 2, buf, 1);
	cr_assert_eq(buf[0], '\0');
	cr_assert_eq(buf[1], 'X');
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
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
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
	struct ix_mesh_rules p10 = { 0, 2.0, 10 }, p100 = { 0, 2.0, 100 };
	struct ix_mesh_findings f;

	/* Half the pairs at 5 us, half at 11 us: above 2x the 10th percentile,
	 * and not above 2x the highest. */
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t c = 0; c < n; c++)
			if (r != c && r >= n / 2)
				cell(cells, n, r, c)->lat_p50_ns = 11000;
	cr_assert_eq(ix_mesh_analyze(cells, n, &p10, &f), 0);
	cr_assert_eq(f.bad_pairs, 15);
	cr_assert_float_eq(f.lat_percentile, 10, 1e-9);
	cr_assert_eq(ix_mesh_analyze(cells, n, &p100, &f), 0);
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
	cr_assert_eq(ix_mesh_analyze(cells, n, NULL, &f), 0);
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

/* ---- ceilings ------------------------------------------------------------------ */

static struct ix_link_limit pcie_link(int gen, int width, int egen, int ewidth, double pcie_bps,
				      double line_bps)
{
	struct ix_link_limit l = {
		.iface = "ibp1s0",
		.bps = line_bps,
		.source = "infiniband rate",
		.pcie = { .known = true,
			  .bdf = "0000:01:00.0",
			  .gen = gen,
			  .width = width,
			  .expected_gen = egen,
			  .expected_width = ewidth,
			  .bps = pcie_bps,
			  .downtrained = gen < egen || width < ewidth },
		.ceiling_bps = pcie_bps < line_bps ? pcie_bps : line_bps,
	};

	snprintf(l.bottleneck, sizeof(l.bottleneck), "%s", pcie_bps < line_bps ? "pcie" : "link");
	return l;
}

/* The issue's own example: 118 Gbit/s over a Gen4 x8 link of a 400G NIC. */
Test(ceiling, a_figure_at_a_downtrained_pcie_link_is_named)
{
	struct ix_link_limit l = pcie_link(4, 8, 5, 16, 126.03e9, 400e9);
	char buf[256];

	cr_assert(ix_link_verdict(&l, 118e9, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "118.00 Gbit/s is 94% of its NIC's PCIe Gen4 x8 link (126.03 "
			      "Gbit/s), trained below its Gen5 x16 capability");
	/* Trained as both ends can, and still below the line: said so. */
	l = pcie_link(4, 16, 4, 16, 252.06e9, 400e9);
	cr_assert(ix_link_verdict(&l, 240e9, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "240.00 Gbit/s is 95% of its NIC's PCIe Gen4 x16 link (252.06 "
			      "Gbit/s), below the line rate of 400.00 Gbit/s");
}

Test(ceiling, no_verdict_below_the_ceiling_or_at_the_line)
{
	struct ix_link_limit l = pcie_link(4, 8, 5, 16, 126.03e9, 400e9);
	struct ix_link_limit line = pcie_link(5, 16, 5, 16, 504e9, 400e9);
	char buf[256] = "x";

	/* Under 80% of the PCIe ceiling: something else holds it back. */
	cr_assert_not(ix_link_verdict(&l, 90e9, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "");
	/* Far above it, the traffic did not cross that link alone. */
	cr_assert_not(ix_link_verdict(&l, 150e9, buf, sizeof(buf)));
	/* The line is the ceiling: nothing to name. */
	cr_assert_not(ix_link_verdict(&line, 390e9, buf, sizeof(buf)));
	cr_assert_not(ix_link_verdict(NULL, 390e9, buf, sizeof(buf)));
	/* A short buffer is cut, never overrun. */
	cr_assert(ix_link_verdict(&l, 118e9, buf, 12));
	cr_assert_eq(strlen(buf), 11);
}

Test(ceiling, incast_names_the_receivers_pcie_link)
{
	struct ix_incast_point pts[2] = { { .senders = 1, .goodput_bps = 110e9 },
					  { .senders = 4, .goodput_bps = 118e9 } };
	struct ix_link_limit l = pcie_link(4, 8, 5, 16, 126.03e9, 400e9);
	char buf[1024];

	ix_incast_diagnose(pts, 2, buf, sizeof(buf));
	ix_incast_ceiling_clause(pts, 2, &l, buf, sizeof(buf));
	cr_assert(strstr(buf, "; at N=4 the receiver's 118.00 Gbit/s is 94% of its NIC's PCIe Gen4 "
			      "x8 link (126.03 Gbit/s), trained below its Gen5 x16 capability"),
		  "%s", buf);
	/* Without a known link, the diagnosis is left as it was. */
	ix_incast_diagnose(pts, 2, buf, sizeof(buf));
	ix_incast_ceiling_clause(pts, 2, NULL, buf, sizeof(buf));
	cr_assert_null(strstr(buf, "receiver's"), "%s", buf);
}
