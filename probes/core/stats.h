/* Latency samples, summary statistics and a log-linear histogram. */
#ifndef IX_STATS_H
#define IX_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Log-linear histogram: values below IX_HIST_SUB get a bucket each; above,
 * every power of two [2^e, 2^(e+1)) is cut into IX_HIST_SUB equal buckets,
 * so a bucket's width is at most 1/IX_HIST_SUB of its lower bound. */
#define IX_HIST_SUB_BITS 4
#define IX_HIST_SUB      (1u << IX_HIST_SUB_BITS)
#define IX_HIST_BUCKETS  (IX_HIST_SUB + (64 - IX_HIST_SUB_BITS) * IX_HIST_SUB)

struct ix_hist {
	uint64_t count[IX_HIST_BUCKETS];
	uint64_t total;
};

size_t ix_hist_index(uint64_t v);
/* Inclusive lower and exclusive upper bound of bucket i. */
void ix_hist_bounds(size_t i, uint64_t *lo, uint64_t *hi);
void ix_hist_add(struct ix_hist *h, uint64_t v);
/* Percentile (0 < p <= 100) estimated from buckets: upper bound - 1 of the
 * bucket holding the nearest-rank sample (ix_stats_compute caps it by the
 * largest sample seen). */
uint64_t ix_hist_percentile(const struct ix_hist *h, double p);

/* Raw samples are kept up to IX_SAMPLES_CAP for exact percentiles; the
 * histogram always sees every sample. */
#define IX_SAMPLES_CAP (16u * 1024 * 1024)

struct ix_samples {
	uint64_t *v;
	size_t n, cap;
	uint64_t seen; /* every sample added, kept or not */
	uint64_t min, max;
	double sum;      /* for the mean */
	double m2, mean; /* Welford running variance */
	struct ix_hist *hist;
};

int ix_samples_init(struct ix_samples *s);
void ix_samples_free(struct ix_samples *s);
int ix_samples_add(struct ix_samples *s, uint64_t v);
/* The most memory n samples can take (raw values up to IX_SAMPLES_CAP, as
 * ix_samples_add grows them, and the histogram): what a test that keeps
 * them charges to a memory limit. */
uint64_t ix_samples_bytes(uint64_t n);

struct ix_lat_stats {
	bool valid; /* false when there are no samples */
	bool exact; /* percentiles from every raw sample, not the histogram */
	uint64_t count;
	uint64_t min, max;
	double mean, stdev; /* stdev: sample standard deviation (n - 1) */
	uint64_t p50, p90, p99, p999, p9999;
};

/* Nearest-rank percentile of a sorted array: the smallest value with at
 * least p% of the samples at or below it. */
uint64_t ix_percentile_sorted(const uint64_t *sorted, size_t n, double p);
/* Sorts s->v in place. */
void ix_stats_compute(struct ix_samples *s, struct ix_lat_stats *out);

#endif
