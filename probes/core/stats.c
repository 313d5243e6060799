#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probes/core/stats.h"

size_t ix_hist_index(uint64_t v)
{
	unsigned e;

	if (v < IX_HIST_SUB)
		return (size_t)v;
	e = 63u - (unsigned)__builtin_clzll(v); /* e >= IX_HIST_SUB_BITS */
	return IX_HIST_SUB + (size_t)(e - IX_HIST_SUB_BITS) * IX_HIST_SUB +
	       (size_t)((v >> (e - IX_HIST_SUB_BITS)) - IX_HIST_SUB);
}

void ix_hist_bounds(size_t i, uint64_t *lo, uint64_t *hi)
{
	size_t e, sub;
	uint64_t width;

	if (i < IX_HIST_SUB) {
		*lo = i;
		*hi = i + 1;
		return;
	}
	e = (i - IX_HIST_SUB) / IX_HIST_SUB + IX_HIST_SUB_BITS;
	sub = (i - IX_HIST_SUB) % IX_HIST_SUB;
	width = 1ull << (e - IX_HIST_SUB_BITS);
	*lo = (1ull << e) + sub * width;
	*hi = *lo + width; /* wraps to 0 for the very last bucket */
	if (*hi == 0)
		*hi = UINT64_MAX;
}

void ix_hist_add(struct ix_hist *h, uint64_t v)
{
	h->count[ix_hist_index(v)]++;
	h->total++;
}

/* Nearest rank ceil(p/100 * n), in integers: p is taken to 1e-6 percent so
 * that 99.9% of 1000 samples is rank 999, not 1000 by rounding error. */
static uint64_t rank_for(uint64_t n, double p)
{
	unsigned __int128 pp, r;

	if (p <= 0)
		return 1;
	if (p >= 100)
		return n;
	pp = (unsigned __int128)llround(p * 1e6); /* 100% = 1e8 */
	r = (pp * n + 99999999u) / 100000000u;
	if (r < 1)
		r = 1;
	return r > n ? n : (uint64_t)r;
}

uint64_t ix_hist_percentile(const struct ix_hist *h, double p)
{
	uint64_t want, seen = 0, lo, hi;
	size_t i;

	if (h->total == 0)
		return 0;
	want = rank_for(h->total, p);
	for (i = 0; i < IX_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= want) {
			ix_hist_bounds(i, &lo, &hi);
			return hi - 1;
		}
	}
	return UINT64_MAX;
}

int ix_samples_init(struct ix_samples *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
	s->hist = calloc(1, sizeof(*s->hist));
	return s->hist ? 0 : -1;
}

void ix_samples_free(struct ix_samples *s)
{
	free(s->v);
	free(s->hist);
	memset(s, 0, sizeof(*s));
}

uint64_t ix_samples_bytes(uint64_t n)
{
	uint64_t cap = 4096;

	while (cap < n && cap < IX_SAMPLES_CAP)
		cap *= 2;
	if (cap > IX_SAMPLES_CAP)
		cap = IX_SAMPLES_CAP;
	/* growing from cap / 2 holds both arrays for a moment */
	return cap * sizeof(uint64_t) * 3 / 2 + sizeof(struct ix_hist);
}

int ix_samples_add(struct ix_samples *s, uint64_t v)
{
	double delta;

	if (s->n == s->cap && s->cap < IX_SAMPLES_CAP) {
		size_t ncap = s->cap ? s->cap * 2 : 4096;
		uint64_t *nv;

		if (ncap > IX_SAMPLES_CAP)
			ncap = IX_SAMPLES_CAP;
		nv = realloc(s->v, ncap * sizeof(*nv));
		if (!nv)
			return -1;
		s->v = nv;
		s->cap = ncap;
	}
	if (s->n < s->cap)
		s->v[s->n++] = v;
	s->seen++;
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->sum += (double)v;
	delta = (double)v - s->mean;
	s->mean += delta / (double)s->seen;
	s->m2 += delta * ((double)v - s->mean);
	ix_hist_add(s->hist, v);
	return 0;
}

uint64_t ix_percentile_sorted(const uint64_t *sorted, size_t n, double p)
{
	if (n == 0)
		return 0;
	return sorted[rank_for(n, p) - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void ix_stats_compute(struct ix_samples *s, struct ix_lat_stats *o)
{
	static const double ps[] = { 50, 90, 99, 99.9, 99.99 };
	uint64_t out[5];
	size_t i;

	memset(o, 0, sizeof(*o));
	if (s->seen == 0)
		return;
	o->valid = true;
	o->count = s->seen;
	o->min = s->min;
	o->max = s->max;
	o->mean = s->sum / (double)s->seen;
	o->stdev = s->seen > 1 ? sqrt(s->m2 / (double)(s->seen - 1)) : 0.0;
	o->exact = (s->n == s->seen);
	if (o->exact)
		qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	for (i = 0; i < 5; i++) {
		out[i] = o->exact ? ix_percentile_sorted(s->v, s->n, ps[i])
				  : ix_hist_percentile(s->hist, ps[i]);
		if (out[i] > s->max)
			out[i] = s->max;
	}
	o->p50 = out[0];
	o->p90 = out[1];
	o->p99 = out[2];
	o->p999 = out[3];
	o->p9999 = out[4];
}
