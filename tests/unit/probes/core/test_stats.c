/* Unit tests for probes/core/stats.c: log-linear histogram, nearest-rank
 * percentiles, mean and sample standard deviation. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/core/stats.h"

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Every value must fall in [lo, hi) of its own bucket. The last bucket's
 * upper bound would be 2^64, which is clamped to UINT64_MAX. */
static void check_round_trip(uint64_t v)
{
	size_t i = ix_hist_index(v);
	uint64_t lo, hi;

	cr_assert_lt(i, IX_HIST_BUCKETS, "index of %llu out of range", (unsigned long long)v);
	ix_hist_bounds(i, &lo, &hi);
	cr_assert_leq(lo, v, "value %llu below its bucket [%llu, %llu)", (unsigned long long)v,
		      (unsigned long long)lo, (unsigned long long)hi);
	if (i == IX_HIST_BUCKETS - 1)
		cr_assert_eq(hi, UINT64_MAX);
	else
		cr_assert_lt(v, hi, "value %llu not below its bucket's end [%llu, %llu)",
			     (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
}

Test(hist, small_values_get_a_bucket_each)
{
	for (uint64_t v = 0; v < IX_HIST_SUB; v++) {
		uint64_t lo, hi;

		cr_assert_eq(ix_hist_index(v), v);
		ix_hist_bounds(v, &lo, &hi);
		cr_assert_eq(lo, v);
		cr_assert_eq(hi, v + 1);
	}
}

Test(hist, index_bounds_round_trip_edge_values)
{
	static const uint64_t vals[] = { 0,
					 1,
					 15,
					 16,
					 17,
					 31,
					 32,
					 33,
					 63,
					 64,
					 65,
					 99,
					 100,
					 1000,
					 1023,
					 1024,
					 1025,
					 123456789,
					 (1ull << 63) - 1,
					 1ull << 63,
					 UINT64_MAX - 1,
					 UINT64_MAX };

	for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++)
		check_round_trip(vals[k]);
	for (unsigned e = 0; e < 64; e++) {
		uint64_t p = 1ull << e;
		check_round_trip(p);
		check_round_trip(p - 1);
		check_round_trip(p + 1);
		check_round_trip(p + p / 2);
	}
}

Test(hist, index_bounds_round_trip_many_values)
{
	uint64_t st = 0x9E3779B97F4A7C15ull;

	for (uint64_t v = 0; v < 100000; v++)
		check_round_trip(v);
	for (int k = 0; k < 200000; k++) {
		uint64_t v = rng_next(&st);
		check_round_trip(v >> (k % 64)); /* every magnitude */
	}
}

Test(hist, buckets_tile_the_range_without_gaps)
{
	uint64_t prev_hi = 0;

	for (size_t i = 0; i < IX_HIST_BUCKETS; i++) {
		uint64_t lo, hi;

		ix_hist_bounds(i, &lo, &hi);
		cr_assert_eq(lo, prev_hi, "bucket %zu starts at %llu, previous ended at %llu", i,
			     (unsigned long long)lo, (unsigned long long)prev_hi);
		cr_assert_gt(hi, lo, "bucket %zu is empty", i);
		cr_assert_eq(ix_hist_index(lo), i);
		cr_assert_eq(ix_hist_index(hi - 1), i);
		prev_hi = hi;
	}
	cr_assert_eq(prev_hi, UINT64_MAX);
	cr_assert_eq(ix_hist_index(UINT64_MAX), IX_HIST_BUCKETS - 1);
}

Test(hist, bucket_width_at_most_a_sixteenth_of_lower_bound)
{
	for (size_t i = IX_HIST_SUB; i < IX_HIST_BUCKETS; i++) {
		uint64_t lo, hi;

		ix_hist_bounds(i, &lo, &hi);
		cr_assert_geq(lo, 16);
		/* (hi - lo) <= lo / 16, without rounding lo / 16 down */
		cr_assert_leq((hi - lo), lo / IX_HIST_SUB, "bucket %zu [%llu, %llu) too wide", i,
			      (unsigned long long)lo, (unsigned long long)hi);
	}
}

Test(hist, add_counts_every_sample)
{
	struct ix_hist *h = calloc(1, sizeof(*h));

	cr_assert_not_null(h);
	ix_hist_add(h, 5);
	ix_hist_add(h, 5);
	ix_hist_add(h, 1000);
	cr_assert_eq(h->total, 3);
	cr_assert_eq(h->count[5], 2);
	cr_assert_eq(h->count[ix_hist_index(1000)], 1);
	free(h);
}

Test(hist, percentile_of_empty_histogram_is_zero)
{
	struct ix_hist *h = calloc(1, sizeof(*h));

	cr_assert_not_null(h);
	cr_assert_eq(ix_hist_percentile(h, 50), 0);
	cr_assert_eq(ix_hist_percentile(h, 100), 0);
	free(h);
}

Test(hist, percentile_exact_below_sixteen)
{
	struct ix_hist *h = calloc(1, sizeof(*h));

	cr_assert_not_null(h);
	for (uint64_t v = 1; v <= 10; v++)
		ix_hist_add(h, v);
	/* Values below 16 have unit-wide buckets: estimates are exact. */
	cr_assert_eq(ix_hist_percentile(h, 50), 5);
	cr_assert_eq(ix_hist_percentile(h, 90), 9);
	cr_assert_eq(ix_hist_percentile(h, 100), 10);
	cr_assert_eq(ix_hist_percentile(h, 0.001), 1);
	free(h);
}

Test(hist, percentile_is_bucket_upper_bound_minus_one)
{
	struct ix_hist *h = calloc(1, sizeof(*h));
	uint64_t lo, hi;

	cr_assert_not_null(h);
	for (int k = 0; k < 10; k++)
		ix_hist_add(h, 1000);
	ix_hist_bounds(ix_hist_index(1000), &lo, &hi);
	cr_assert_eq(lo, 992);
	cr_assert_eq(hi, 1024);
	cr_assert_eq(ix_hist_percentile(h, 50), 1023);
	cr_assert_eq(ix_hist_percentile(h, 99.99), 1023);
	free(h);
}

/* On a heavy-tailed data set the histogram estimate is never below the
 * exact nearest-rank value and at most 1/16 above it. */
Test(hist, percentile_within_a_sixteenth_on_skewed_data)
{
	static const double ps[] = { 1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100 };
	const size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v));
	struct ix_hist *h = calloc(1, sizeof(*h));
	uint64_t st = 42;

	cr_assert_not_null(v);
	cr_assert_not_null(h);
	for (size_t i = 0; i < n; i++) {
		/* Pareto-like: most around a few microseconds, a long tail. */
		double u = ((double)(rng_next(&st) >> 11) + 1.0) / 9007199254740993.0;
		v[i] = (uint64_t)(2000.0 / pow(u, 1.0 / 1.2));
		ix_hist_add(h, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		uint64_t exact = ix_percentile_sorted(v, n, ps[k]);
		uint64_t est = ix_hist_percentile(h, ps[k]);

		cr_assert_geq(est, exact, "p%g: estimate %llu below exact %llu", ps[k],
			      (unsigned long long)est, (unsigned long long)exact);
		cr_assert_leq((double)(est - exact), (double)exact / 16.0,
			      "p%g: estimate %llu too far from exact %llu", ps[k],
			      (unsigned long long)est, (unsigned long long)exact);
	}
	free(v);
	free(h);
}

static uint64_t *seq_1_to(size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));

	cr_assert_not_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = i + 1;
	return v;
}

Test(percentile, one_to_hundred)
{
	uint64_t *v = seq_1_to(100);

	cr_assert_eq(ix_percentile_sorted(v, 100, 50), 50);
	cr_assert_eq(ix_percentile_sorted(v, 100, 90), 90);
	cr_assert_eq(ix_percentile_sorted(v, 100, 99), 99);
	cr_assert_eq(ix_percentile_sorted(v, 100, 99.9), 100);
	cr_assert_eq(ix_percentile_sorted(v, 100, 99.99), 100);
	cr_assert_eq(ix_percentile_sorted(v, 100, 100), 100);
	cr_assert_eq(ix_percentile_sorted(v, 100, 1), 1);
	cr_assert_eq(ix_percentile_sorted(v, 100, 1.5), 2);
	free(v);
}

Test(percentile, one_to_thousand)
{
	uint64_t *v = seq_1_to(1000);

	cr_assert_eq(ix_percentile_sorted(v, 1000, 50), 500);
	cr_assert_eq(ix_percentile_sorted(v, 1000, 90), 900);
	cr_assert_eq(ix_percentile_sorted(v, 1000, 99), 990);
	cr_assert_eq(ix_percentile_sorted(v, 1000, 99.99), 1000);
	cr_assert_eq(ix_percentile_sorted(v, 1000, 100), 1000);
	free(v);
}

/* Nearest rank of p99.9 over 1000 samples is ceil(999.0) = 999. The
 * implementation computes ceil(99.9 / 100.0 * 1000) in binary floating
 * point, which is ceil(999.0000000000001) = 1000 (probes/core/stats.c,
 * rank_for). Disabled until that is fixed; see the test report. */
Test(percentile, one_to_thousand_p999)
{
	uint64_t *v = seq_1_to(1000);

	cr_assert_eq(ix_percentile_sorted(v, 1000, 99.9), 999);
	free(v);
	v = seq_1_to(10000);
	cr_assert_eq(ix_percentile_sorted(v, 10000, 99.9), 9990);
	free(v);
}

Test(percentile, single_sample)
{
	uint64_t v = 777;

	cr_assert_eq(ix_percentile_sorted(&v, 1, 0.01), 777);
	cr_assert_eq(ix_percentile_sorted(&v, 1, 50), 777);
	cr_assert_eq(ix_percentile_sorted(&v, 1, 100), 777);
}

Test(percentile, all_equal_samples)
{
	uint64_t v[64];

	for (size_t i = 0; i < 64; i++)
		v[i] = 4242;
	cr_assert_eq(ix_percentile_sorted(v, 64, 50), 4242);
	cr_assert_eq(ix_percentile_sorted(v, 64, 99.99), 4242);
}

Test(percentile, no_samples_is_zero)
{
	cr_assert_eq(ix_percentile_sorted(NULL, 0, 50), 0);
}

/* ---- ix_samples and ix_stats_compute ---------------------------------- */

static void add_all(struct ix_samples *s, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(ix_samples_add(s, v[i]), 0);
}

Test(stats, empty_is_not_valid)
{
	struct ix_samples s;
	struct ix_lat_stats st;

	cr_assert_eq(ix_samples_init(&s), 0);
	ix_stats_compute(&s, &st);
	cr_assert_not(st.valid);
	cr_assert_eq(st.count, 0);
	ix_samples_free(&s);
}

Test(stats, mean_and_sample_stdev)
{
	static const uint64_t v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct ix_samples s;
	struct ix_lat_stats st;

	cr_assert_eq(ix_samples_init(&s), 0);
	add_all(&s, v, 8);
	ix_stats_compute(&s, &st);
	cr_assert(st.valid);
	cr_assert(st.exact);
	cr_assert_eq(st.count, 8);
	cr_assert_eq(st.min, 2);
	cr_assert_eq(st.max, 9);
	cr_assert_float_eq(st.mean, 5.0, 1e-12);
	/* sum of squared deviations 32, n - 1 = 7 */
	cr_assert_float_eq(st.stdev, sqrt(32.0 / 7.0), 1e-12);
	ix_samples_free(&s);
}

Test(stats, stdev_of_large_offset_values)
{
	/* Welford's update keeps precision where sum-of-squares would not. */
	static const uint64_t v[] = { 1000000001, 1000000002, 1000000003, 1000000004 };
	struct ix_samples s;
	struct ix_lat_stats st;

	cr_assert_eq(ix_samples_init(&s), 0);
	add_all(&s, v, 4);
	ix_stats_compute(&s, &st);
	cr_assert_float_eq(st.mean, 1000000002.5, 1e-6);
	/* deviations +-0.5, +-1.5: sum of squares 5, / 3 */
	cr_assert_float_eq(st.stdev, sqrt(5.0 / 3.0), 1e-6);
	ix_samples_free(&s);
}

Test(stats, single_sample_has_zero_stdev)
{
	struct ix_samples s;
	struct ix_lat_stats st;

	cr_assert_eq(ix_samples_init(&s), 0);
	cr_assert_eq(ix_samples_add(&s, 12345), 0);
	ix_stats_compute(&s, &st);
	cr_assert(st.valid);
	cr_assert_eq(st.count, 1);
	cr_assert_eq(st.min, 12345);
	cr_assert_eq(st.max, 12345);
	cr_assert_float_eq(st.mean, 12345.0, 1e-9);
	cr_assert_float_eq(st.stdev, 0.0, 1e-12);
	cr_assert_eq(st.p50, 12345);
	cr_assert_eq(st.p9999, 12345);
	ix_samples_free(&s);
}

Test(stats, percentiles_of_shuffled_one_to_hundred)
{
	uint64_t v[100];
	uint64_t st_rng = 7;
	struct ix_samples s;
	struct ix_lat_stats st;

	for (size_t i = 0; i < 100; i++)
		v[i] = i + 1;
	for (size_t i = 99; i > 0; i--) { /* Fisher-Yates */
		size_t j = (size_t)(rng_next(&st_rng) % (i + 1));
		uint64_t t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
	cr_assert_eq(ix_samples_init(&s), 0);
	add_all(&s, v, 100);
	ix_stats_compute(&s, &st);
	cr_assert(st.exact);
	cr_assert_eq(st.p50, 50);
	cr_assert_eq(st.p90, 90);
	cr_assert_eq(st.p99, 99);
	cr_assert_eq(st.p999, 100);
	cr_assert_eq(st.p9999, 100);
	cr_assert_float_eq(st.mean, 50.5, 1e-12);
	/* variance of 1..n with n - 1: n (n + 1) / 12 */
	cr_assert_float_eq(st.stdev, sqrt(100.0 * 101.0 / 12.0), 1e-9);
	ix_samples_free(&s);
}

Test(stats, all_equal_samples)
{
	struct ix_samples s;
	struct ix_lat_stats st;

	cr_assert_eq(ix_samples_init(&s), 0);
	for (int k = 0; k < 5000; k++) /* crosses the first growth of the array */
		cr_assert_eq(ix_samples_add(&s, 1000), 0);
	ix_stats_compute(&s, &st);
	cr_assert(st.exact);
	cr_assert_eq(st.count, 5000);
	cr_assert_eq(s.n, 5000);
	cr_assert_eq(st.p50, 1000);
	cr_assert_eq(st.p9999, 1000);
	cr_assert_float_eq(st.mean, 1000.0, 1e-9);
	cr_assert_float_eq(st.stdev, 0.0, 1e-9);
	cr_assert_eq(s.hist->total, 5000);
	ix_samples_free(&s);
}

/* When raw samples were dropped (n < seen, past IX_SAMPLES_CAP), the
 * percentiles come from the histogram and are capped at the maximum. */
Test(stats, histogram_path_when_samples_were_dropped)
{
	struct ix_samples s;
	struct ix_lat_stats st;

	cr_assert_eq(ix_samples_init(&s), 0);
	for (int k = 0; k < 100; k++)
		cr_assert_eq(ix_samples_add(&s, 1000), 0);
	s.n = 10; /* as if the other 90 had not fit */
	ix_stats_compute(&s, &st);
	cr_assert(st.valid);
	cr_assert_not(st.exact);
	cr_assert_eq(st.count, 100);
	/* The bucket [992, 1024) would say 1023; the cap says 1000. */
	cr_assert_eq(st.p50, 1000);
	cr_assert_eq(st.p9999, 1000);
	ix_samples_free(&s);
}

Test(stats, histogram_path_one_to_thousand)
{
	struct ix_samples s;
	struct ix_lat_stats st;

	cr_assert_eq(ix_samples_init(&s), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		cr_assert_eq(ix_samples_add(&s, v), 0);
	s.n = 0;
	ix_stats_compute(&s, &st);
	cr_assert_not(st.exact);
	/* 500 lies in [496, 512): the estimate is that bucket's last value. */
	cr_assert_eq(st.p50, 511);
	cr_assert_geq(st.p90, 900);
	cr_assert_leq(st.p90, 900 + 900 / 16);
	cr_assert_geq(st.p99, 990);
	cr_assert_leq(st.p99, 1000); /* capped at max */
	ix_samples_free(&s);
}

Test(stats, min_max_track_extremes)
{
	static const uint64_t v[] = { 50, 0, UINT64_MAX, 7 };
	struct ix_samples s;
	struct ix_lat_stats st;

	cr_assert_eq(ix_samples_init(&s), 0);
	add_all(&s, v, 4);
	ix_stats_compute(&s, &st);
	cr_assert_eq(st.min, 0);
	cr_assert_eq(st.max, UINT64_MAX);
	cr_assert_eq(st.p9999, UINT64_MAX);
	cr_assert_eq(s.seen, 4);
	ix_samples_free(&s);
}

Test(samples, bytes_bound_what_adding_them_allocates)
{
	struct ix_samples s;
	uint64_t n = 100000;

	cr_assert_eq(ix_samples_init(&s), 0);
	for (uint64_t i = 0; i < n; i++)
		cr_assert_eq(ix_samples_add(&s, i), 0);
	cr_assert_geq(ix_samples_bytes(n), s.cap * sizeof(uint64_t) + sizeof(*s.hist));
	cr_assert_lt(ix_samples_bytes(n), 4 * n * sizeof(uint64_t) + sizeof(*s.hist));
	ix_samples_free(&s);
	/* Past the cap, raw samples stop growing: so does the charge. */
	cr_assert_eq(ix_samples_bytes(UINT64_MAX), ix_samples_bytes(IX_SAMPLES_CAP));
	cr_assert_lt(ix_samples_bytes(UINT64_MAX), 256ull << 20);
	cr_assert_gt(ix_samples_bytes(0), 0);
}
