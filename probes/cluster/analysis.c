#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/analysis.h"

#define DEFAULT_BW_FRACTION 0.7
#define DEFAULT_LAT_FACTOR  2.0
#define DEFAULT_LAT_PCT     50.0 /* the latency baseline: the median pair */

double ix_jain_index(const double *x, size_t n)
{
	double sum = 0, sumsq = 0;

	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		sumsq += x[i] * x[i];
	}
	if (n == 0 || !(sumsq > 0))
		return 0;
	return sum * sum / ((double)n * sumsq);
}

/* Ascending, NaNs last, so that qsort sees a consistent order. */
static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

/* NAN when the private copy cannot be allocated. */
double ix_median(const double *x, size_t n)
{
	double *v, med;

	if (n == 0)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return NAN;
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return med;
}

/* The k-th smallest of x[0..n) (0-based), x reordered so that it sits at
 * k with nothing larger before it: Hoare's selection, median-of-three. */
static float select_k(float *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		float a = x[lo], b = x[mid], c = x[hi];
		float p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));

		while (i <= j) {
			while (x[i] < p)
				i++;
			while (x[j] > p)
				j--;
			if (i <= j) {
				float t = x[i];

				x[i++] = x[j];
				x[j] = t;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return x[k];
	}
	return x[k];
}

double ix_median_float(float *x, size_t n)
{
	float hi, lo;

	if (n == 0)
		return 0;
	hi = select_k(x, n, n / 2);
	if (n % 2)
		return hi;
	lo = x[0]; /* the largest of those before n / 2 */
	for (size_t i = 1; i < n / 2; i++)
		lo = x[i] > lo ? x[i] : lo;
	return ((double)lo + hi) / 2;
}

/*
 * Median of the mesh's bandwidths without copying them. A positive float
 * (neither NaN nor 0) orders like its bit pattern read as an unsigned
 * integer, so the k-th smallest bandwidth is found by radix selection in two
 * passes over the cells with one histogram of 2^16 counters (512 KiB): the
 * first pass counts the high 16 bits, which names the bucket holding rank k;
 * the second counts the low 16 bits of the values in that bucket. The mesh
 * takes O(n^2) time and, besides the histogram, O(n) memory; no n * n copy.
 */
#define DIGITS (1u << 16)

/* A bandwidth the relative rule is taken over: one that moved data (a
 * pair measured at 0 is bad by itself and does not drag the median). */
static bool has_bw(const struct ix_cell *c)
{
	return c->bw_bps > 0; /* false for NaN */
}

static bool has_lat(const struct ix_cell *c)
{
	return ix_cell_has_lat(c);
}

/* A pair measured: an OK cell off the diagonal. */
static bool measured_pair(const struct ix_cell *c, uint32_t row, uint32_t col)
{
	return c->state == IX_CELL_OK && row != col;
}

/* A cell's figure: its bandwidth (lat false) or its p50 latency. */
static float figure(const struct ix_cell *c, bool lat)
{
	return lat ? c->lat_p50_ns : c->bw_bps;
}

/* What a selection is over: the figure (bandwidth, or p50 latency with
 * lat) of the cells keep() takes, and the histogram it reuses. */
struct sel {
	const struct ix_cells *m;
	bool lat;
	ix_cell_keep_fn keep;
	const void *arg;
	uint64_t *hist;
};

/* The figures of rank k and k + 1 (0-based) among the cells s takes, whose
 * high-16-bit histogram is in s->hist (reused). *vk1 is meaningless when
 * rank k is the largest. */
static void select_pair(const struct sel *s, uint64_t k, float *vk, float *vk1)
{
	uint64_t below = 0, *hist = s->hist;
	uint32_t hi = 0, lo, above = UINT32_MAX; /* above: smallest bits with a higher hi */

	while (below + hist[hi] <= k)
		below += hist[hi++];
	k -= below; /* rank within bucket hi */

	memset(hist, 0, DIGITS * sizeof(*hist));
	for (uint32_t row = 0; row < s->m->n; row++)
		for (uint32_t col = 0; col < s->m->n; col++) {
			struct ix_cell c = ix_cells_get(s->m, row, col);
			uint32_t u;

			if (!s->keep(&c, row, col, s->arg))
				continue;
			u = ix_float_bits(figure(&c, s->lat));
			if (u >> 16 == hi)
				hist[u & 0xffff]++;
			else if (u >> 16 > hi && u < above)
				above = u;
		}
	below = 0;
	lo = 0;
	while (below + hist[lo] <= k)
		below += hist[lo++];
	*vk = ix_bits_float(hi << 16 | lo);
	if (k + 1 < below + hist[lo]) { /* rank k + 1 has the same value */
		*vk1 = *vk;
		return;
	}
	while (++lo < DIGITS)
		if (hist[lo])
			break;
	*vk1 = ix_bits_float(lo < DIGITS ? hi << 16 | lo : above);
}

/* The pct-th percentile (0..100, between ranks by interpolation; 50 is
 * the median) of the figures s takes, *count of them (counted here when
 * *count is 0). */
static double percentile(const struct sel *s, uint64_t *count, double pct)
{
	bool counted = *count > 0;
	double pos;
	uint64_t k;
	float vk, vk1;

	memset(s->hist, 0, DIGITS * sizeof(*s->hist));
	for (uint32_t row = 0; row < s->m->n; row++)
		for (uint32_t col = 0; col < s->m->n; col++) {
			struct ix_cell c = ix_cells_get(s->m, row, col);

			if (s->keep(&c, row, col, s->arg)) {
				s->hist[ix_float_bits(figure(&c, s->lat)) >> 16]++;
				*count += !counted;
			}
		}
	if (!*count)
		return 0;
	pos = pct / 100.0 * (double)(*count - 1);
	k = (uint64_t)pos;
	select_pair(s, k, &vk, &vk1);
	if (k + 1 >= *count)
		return vk;
	return (double)vk + (pos - (double)k) * ((double)vk1 - (double)vk);
}

double ix_cells_percentile(const struct ix_cells *m, bool lat, ix_cell_keep_fn keep,
			   const void *arg, double pct, uint64_t *count)
{
	struct sel s = { m, lat, keep, arg, calloc(DIGITS, sizeof(uint64_t)) };
	double v;

	*count = 0;
	if (!s.hist)
		return NAN;
	v = percentile(&s, count, pct);
	free(s.hist);
	return v;
}

static bool keep_bw(const struct ix_cell *c, uint32_t row, uint32_t col, const void *arg)
{
	(void)arg;
	return measured_pair(c, row, col) && has_bw(c);
}

static bool keep_lat(const struct ix_cell *c, uint32_t row, uint32_t col, const void *arg)
{
	(void)arg;
	return measured_pair(c, row, col) && has_lat(c);
}

/*
 * Only OK cells off the diagonal count (a host is not paired with itself);
 * the others get bad = 0 and count as neither measured nor bad. A cell is
 * bad (IX_BAD_BW) when it was measured at 0 (bw_zero), or has a bandwidth
 * below bw_fraction * the median of the pairs that moved data or below the
 * floor min_bw_bps, and (IX_BAD_LAT) when no round trip came back
 * (lat_lost), or its p50 latency is above max_lat_ns or lat_factor * the
 * baseline:
 * the lat_percentile-th percentile of all pairs' p50 (the median by
 * default), so that one unusually fast pair condemns nobody. Rules (or
 * rules == NULL) with a fraction or factor that is not > 0 take the
 * defaults 0.7 and 2.0, a percentile outside (0, 100] the median. A node
 * (n >= 3) is suspect when at least two of its measured cells, as row or
 * column, are bad and they are more than half of them. Everything is
 * allocated before the cells are touched: on failure (-1) they are as they
 * were and *out is zero.
 */
int ix_mesh_analyze(struct ix_cells *cells, const struct ix_mesh_rules *rules,
		    struct ix_mesh_findings *out)
{
	/* A view that draws a pair on both sides counts it once. */
	struct ix_cells once = *cells;
	uint32_t n = cells->n;
	size_t nbw = 0, nlat = 0, bad_pairs = 0, nsus = 0, zero = 0, lost = 0;
	double frac = DEFAULT_BW_FRACTION, factor = DEFAULT_LAT_FACTOR, pct = DEFAULT_LAT_PCT;
	double min_bw = 0, max_lat = INFINITY;
	double bw_limit, lat_limit, median, baseline;
	uint64_t *hist = calloc(DIGITS, sizeof(*hist));
	uint32_t *node = calloc(2 * (size_t)n + 1, sizeof(*node)); /* measured, then bad */
	uint32_t *measured = node, *bad = node + n;
	float minl = INFINITY;

	memset(out, 0, sizeof(*out));
	if (!hist || !node) {
		free(hist);
		free(node);
		return -1;
	}
	if (once.mode == IX_CELLS_MIRROR)
		once.mode = IX_CELLS_PAIR;
	cells = &once;
	if (rules && rules->bw_fraction > 0)
		frac = rules->bw_fraction;
	if (rules && rules->lat_factor > 0)
		factor = rules->lat_factor;
	if (rules && rules->lat_percentile > 0 && rules->lat_percentile <= 100)
		pct = rules->lat_percentile;
	if (rules && rules->min_bw_bps > 0)
		min_bw = rules->min_bw_bps;
	if (rules && rules->max_lat_ns > 0)
		max_lat = rules->max_lat_ns;

	/* Pass 1: how many figures, the lowest latency. */
	for (uint32_t row = 0; row < n; row++)
		for (uint32_t col = 0; col < n; col++) {
			struct ix_cell c = ix_cells_get(cells, row, col);

			if (!measured_pair(&c, row, col))
				continue;
			nbw += has_bw(&c);
			nlat += has_lat(&c);
			if (has_lat(&c) && c.lat_p50_ns < minl)
				minl = c.lat_p50_ns;
		}
	median = percentile(&(struct sel){ cells, false, keep_bw, NULL, hist }, &(uint64_t){ nbw },
			    50);
	baseline = percentile(&(struct sel){ cells, true, keep_lat, NULL, hist },
			      &(uint64_t){ nlat }, pct);
	free(hist);
	bw_limit = frac * median;
	lat_limit = factor * baseline;

	/* Last pass: flag cells, count per node. */
	for (uint32_t row = 0; row < n; row++)
		for (uint32_t col = 0; col < n; col++) {
			struct ix_cell c = ix_cells_get(cells, row, col);
			uint8_t was = c.bad;

			c.bad = 0;
			if (measured_pair(&c, row, col)) {
				if (c.bw_zero ||
				    (has_bw(&c) && (c.bw_bps < bw_limit || c.bw_bps < min_bw)))
					c.bad |= IX_BAD_BW;
				if (c.lat_lost || (has_lat(&c) && (c.lat_p50_ns > lat_limit ||
								   c.lat_p50_ns > max_lat)))
					c.bad |= IX_BAD_LAT;
			}
			if (c.bad != was)
				ix_cells_set_bad(cells, row, col, c.bad);
			if (!measured_pair(&c, row, col))
				continue;
			measured[row]++;
			measured[col]++;
			zero += c.bw_zero;
			lost += c.lat_lost;
			if (c.bad) {
				bad_pairs++;
				bad[row]++;
				bad[col]++;
			}
		}

	/* Suspects, compacted into the front of node (index i is read before
	 * slot nsus <= i is written), which then becomes out->suspects. */
	for (uint32_t i = 0; n >= 3 && i < n; i++)
		if (bad[i] >= 2 && (uint64_t)bad[i] * 2 > measured[i])
			node[nsus++] = i;
	if (nsus) {
		uint32_t *shrunk = realloc(node, nsus * sizeof(*node));

		out->suspects = shrunk ? shrunk : node;
	} else {
		free(node);
	}
	out->nsuspects = nsus;
	out->bad_pairs = bad_pairs;
	out->median_bw_bps = median;
	out->min_lat_ns = minl < INFINITY ? minl : 0;
	out->lat_baseline_ns = baseline;
	out->bw_fraction = frac;
	out->lat_factor = factor;
	out->lat_percentile = pct;
	out->lat_pairs = nlat;
	out->min_bw_bps = min_bw;
	out->max_lat_ns = max_lat < INFINITY ? max_lat : 0;
	out->zero_pairs = zero;
	out->lost_pairs = lost;
	return 0;
}

void ix_rate_text(double bps, char *buf, size_t len)
{
	if (bps >= 1e9)
		snprintf(buf, len, "%.2f Gbit/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%.1f Mbit/s", bps / 1e6);
	else
		snprintf(buf, len, "%.1f kbit/s", bps / 1e3);
}

/* Where the baseline comes from, for the sentence. */
static void baseline_name(const struct ix_mesh_findings *f, char *buf, size_t len)
{
	if (f->lat_percentile == 50)
		snprintf(buf, len, "median of %zu pairs", f->lat_pairs);
	else
		snprintf(buf, len, "p%g of %zu pairs", f->lat_percentile, f->lat_pairs);
}

/* One more clause of a reason, after "; " when there is one before. */
static size_t add(char *buf, size_t len, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t add(char *buf, size_t len, size_t n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (n + 1 >= len)
		return n;
	if (n) {
		k = snprintf(buf + n, len - n, "; ");
		n = (size_t)k < len - n ? n + (size_t)k : len - 1;
	}
	va_start(ap, fmt);
	k = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return k > 0 && (size_t)k < len - n ? n + (size_t)k : len - 1;
}

void ix_mesh_reason(const struct ix_cell *c, const struct ix_mesh_findings *f, char *buf,
		    size_t len)
{
	char v[32], m[32], base[48];
	size_t n = 0;

	if (!buf || !len)
		return;
	buf[0] = '\0';
	if ((c->bad & IX_BAD_BW) && c->bw_zero) {
		n = add(buf, len, n, "the bandwidth test ran and moved nothing (0 bit/s)");
	} else if (c->bad & IX_BAD_BW) {
		ix_rate_text(c->bw_bps, v, sizeof(v));
		if (f->min_bw_bps > 0 && c->bw_bps < f->min_bw_bps) {
			ix_rate_text(f->min_bw_bps, m, sizeof(m));
			n = add(buf, len, n, "bandwidth %s < floor %s", v, m);
		}
		if (c->bw_bps < f->bw_fraction * f->median_bw_bps) {
			ix_rate_text(f->median_bw_bps, m, sizeof(m));
			n = add(buf, len, n, "bandwidth %s < %.2g x median %s (%.0f%%)", v,
				f->bw_fraction, m,
				f->median_bw_bps > 0 ? 100.0 * c->bw_bps / f->median_bw_bps : 0.0);
		}
	}
	if ((c->bad & IX_BAD_LAT) && c->lat_lost) {
		n = add(buf, len, n, "latency: the test ran and no round trip came back");
	} else if (c->bad & IX_BAD_LAT) {
		if (f->max_lat_ns > 0 && c->lat_p50_ns > f->max_lat_ns)
			n = add(buf, len, n, "latency p50 %.1f us > limit %.1f us",
				c->lat_p50_ns / 1e3, f->max_lat_ns / 1e3);
		if (c->lat_p50_ns > f->lat_factor * f->lat_baseline_ns) {
			baseline_name(f, base, sizeof(base));
			n = add(buf, len, n,
				"latency p50 %.1f us > %.2g x baseline %.1f us (%s; %.1f x)",
				c->lat_p50_ns / 1e3, f->lat_factor, f->lat_baseline_ns / 1e3, base,
				f->lat_baseline_ns > 0 ? c->lat_p50_ns / f->lat_baseline_ns : 0.0);
		}
	}
	if (!n && c->bad) /* on a limit after rounding: the rule it broke */
		add(buf, len, n, "%s at the limit of its rule",
		    c->bad & IX_BAD_BW ? "bandwidth" : "latency");
}
