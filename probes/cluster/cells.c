/* The packed cell store (cells.h). A slot is 11 bytes:
 *   0..3   the bandwidth's float bits; in PAIR and MIRROR the sign bit says
 *          which direction the slot holds (set: row > column)
 *   4..6   the p50 latency, a float's bits 7..30 rounded (sign dropped)
 *   7..9   the p99 latency, the same
 *   10     state (bits 0-1), bad (2-3), retested, mirrored, bw_zero,
 *          lat_lost (4..7)
 * PAIR and MIRROR keep pair {lo, hi} (lo < hi) in slot hi * (hi - 1) / 2
 * + lo. */
#include "config.h"

#include "probes/cluster/cells.h"

#include <stdlib.h>
#include <string.h>

#define SLOT    11
#define DIR_BIT 0x80000000u

/* A latency in 24 bits: 8 of exponent, 16 of mantissa, rounded to
 * nearest; NaN stays NaN, what rounds past the largest float is inf. */
static uint32_t f24_of(float x)
{
	uint32_t u = ix_float_bits(x) & 0x7fffffffu;

	if (u > 0x7f800000u)
		return 0xffffffu;
	u = (u + 0x40u) >> 7;
	return u > 0xff0000u ? 0xff0000u : u;
}

static float f24_float(uint32_t c)
{
	return ix_bits_float(c << 7);
}

static void put24(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
}

static uint32_t get24(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static void encode(unsigned char *p, const struct ix_cell *c, bool dir)
{
	uint32_t bw = (ix_float_bits(c->bw_bps) & ~DIR_BIT) | (dir ? DIR_BIT : 0);

	memcpy(p, &bw, 4);
	put24(p + 4, f24_of(c->lat_p50_ns));
	put24(p + 7, f24_of(c->lat_p99_ns));
	p[10] = (unsigned char)((c->state & 3u) | (c->bad & 3u) << 2 | c->retested << 4 |
				c->mirrored << 5 | c->bw_zero << 6 | c->lat_lost << 7);
}

static struct ix_cell decode(const unsigned char *p, bool *dir)
{
	struct ix_cell c = { 0 };
	uint32_t bw;

	memcpy(&bw, p, 4);
	*dir = bw & DIR_BIT;
	c.bw_bps = ix_bits_float(bw & ~DIR_BIT);
	c.lat_p50_ns = f24_float(get24(p + 4));
	c.lat_p99_ns = f24_float(get24(p + 7));
	c.state = p[10] & 3u;
	c.bad = p[10] >> 2 & 3u;
	c.retested = p[10] >> 4 & 1u;
	c.mirrored = p[10] >> 5 & 1u;
	c.bw_zero = p[10] >> 6 & 1u;
	c.lat_lost = p[10] >> 7 & 1u;
	return c;
}

static size_t slots(uint32_t n, enum ix_cells_mode mode)
{
	return mode == IX_CELLS_FULL ? (size_t)n * n : (size_t)n * (n - (n > 0)) / 2;
}

size_t ix_cells_bytes(uint32_t n, enum ix_cells_mode mode)
{
	return slots(n, mode) * SLOT;
}

int ix_cells_init(struct ix_cells *m, uint32_t n, enum ix_cells_mode mode)
{
	memset(m, 0, sizeof(*m));
	if (n && (size_t)n > SIZE_MAX / SLOT / n)
		return -1;
	m->v = calloc(slots(n, mode) ? slots(n, mode) : 1, SLOT);
	if (!m->v)
		return -1;
	m->n = n;
	m->mode = mode;
	for (uint32_t i = 0; mode == IX_CELLS_FULL && i < n; i++) /* the diagonal: no pair */
		m->v[((size_t)i * n + i) * SLOT + 10] = IX_CELL_NONE;
	return 0;
}

void ix_cells_free(struct ix_cells *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* The slot of (a, b), a != b, and whether the slot holding (a, b) has its
 * direction bit set (*dir; false in FULL). */
static unsigned char *slot(const struct ix_cells *m, uint32_t a, uint32_t b, bool *dir)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;

	if (m->mode == IX_CELLS_FULL) {
		*dir = false;
		return m->v + ((size_t)a * m->n + b) * SLOT;
	}
	*dir = a > b;
	return m->v + ((size_t)hi * (hi - 1) / 2 + lo) * SLOT;
}

static bool shown(const struct ix_cell *c)
{
	return c->state == IX_CELL_OK || c->state == IX_CELL_FAILED;
}

struct ix_cell ix_cells_get(const struct ix_cells *m, uint32_t a, uint32_t b)
{
	struct ix_cell c;
	unsigned char *p;
	bool want, held;

	if (a == b && m->mode != IX_CELLS_FULL)
		return (struct ix_cell){ .state = IX_CELL_NONE };
	p = slot(m, a, b, &want);
	c = decode(p, &held);
	if (held == want)
		return c;
	if (m->mode == IX_CELLS_PAIR)
		return (struct ix_cell){ .state = IX_CELL_NONE };
	if (!shown(&c))
		return (struct ix_cell){ .state = c.state };
	c.mirrored = 1;
	return c;
}

void ix_cells_set_bad(struct ix_cells *m, uint32_t a, uint32_t b, uint8_t bad)
{
	unsigned char *p;
	bool want, held;
	struct ix_cell c;

	if (a == b && m->mode != IX_CELLS_FULL)
		return;
	p = slot(m, a, b, &want);
	c = decode(p, &held);
	if (held != want && (m->mode == IX_CELLS_PAIR || !shown(&c)))
		return; /* that direction reads as none, or pending */
	p[10] = (unsigned char)((p[10] & ~(3u << 2)) | (bad & 3u) << 2);
}

void ix_cells_set(struct ix_cells *m, uint32_t a, uint32_t b, const struct ix_cell *c)
{
	unsigned char *p;
	bool want, held;

	if (a == b && m->mode != IX_CELLS_FULL)
		return;
	p = slot(m, a, b, &want);
	if (m->mode != IX_CELLS_FULL) {
		decode(p, &held);
		if (held != want && c->state == IX_CELL_NONE)
			return;
		if (held != want && c->mirrored) {
			ix_cells_set_bad(m, a, b, c->bad);
			return;
		}
	}
	encode(p, c, want);
}

void ix_cells_count(const struct ix_cells *m, uint64_t count[4])
{
	size_t ns = slots(m->n, m->mode);

	for (size_t i = 0; i < ns; i++)
		count[m->v[i * SLOT + 10] & 3u]++;
}

enum ix_cells_mode ix_cells_mode_for(uint32_t n, enum ix_cells_mode one_way,
				     uint8_t (*state)(void *arg, uint32_t a, uint32_t b), void *arg)
{
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++)
			if (state(arg, a, b) != IX_CELL_NONE && state(arg, b, a) != IX_CELL_NONE)
				return IX_CELLS_FULL;
	return one_way;
}

/* Which direction of pair (lo, hi) a one-slot store keeps: a mirrored
 * copy never, then a measured or failed one, else (lo, hi). */
static bool keep_hi_lo(const struct ix_cell *x, const struct ix_cell *y)
{
	if (x->mirrored || y->mirrored)
		return x->mirrored;
	return !shown(x) && shown(y);
}

typedef struct ix_cell (*cell_fn)(const void *src, uint32_t n, uint32_t a, uint32_t b);

static int fill(struct ix_cells *dst, uint32_t n, enum ix_cells_mode mode, const void *src,
		cell_fn get)
{
	if (ix_cells_init(dst, n, mode) < 0)
		return -1;
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = mode == IX_CELLS_FULL ? 0 : a + 1; b < n; b++) {
			struct ix_cell x = get(src, n, a, b), y;

			if (mode == IX_CELLS_FULL || a == b) {
				ix_cells_set(dst, a, b, &x);
				continue;
			}
			y = get(src, n, b, a);
			if (keep_hi_lo(&x, &y))
				ix_cells_set(dst, b, a, &y);
			else
				ix_cells_set(dst, a, b, &x);
		}
	return 0;
}

static struct ix_cell from_store(const void *src, uint32_t n, uint32_t a, uint32_t b)
{
	(void)n;
	return ix_cells_get(src, a, b);
}

static struct ix_cell from_array(const void *src, uint32_t n, uint32_t a, uint32_t b)
{
	return ((const struct ix_cell *)src)[(size_t)a * n + b];
}

int ix_cells_copy(struct ix_cells *dst, const struct ix_cells *src, enum ix_cells_mode mode)
{
	bool same = (src->mode == IX_CELLS_FULL) == (mode == IX_CELLS_FULL);

	if (same && dst->v && dst->n == src->n && dst->mode == mode) {
		memcpy(dst->v, src->v, ix_cells_bytes(src->n, mode));
		return 0;
	}
	ix_cells_free(dst);
	if (!same)
		return fill(dst, src->n, mode, src, from_store);
	if (ix_cells_init(dst, src->n, mode) < 0)
		return -1;
	memcpy(dst->v, src->v, ix_cells_bytes(src->n, mode));
	return 0;
}

int ix_cells_load(struct ix_cells *m, const struct ix_cell *v, uint32_t n, enum ix_cells_mode mode)
{
	return fill(m, n, mode, v, from_array);
}
