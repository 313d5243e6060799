/* The cells of an all-pairs matrix and the store that keeps them packed:
 * a 4096-host mesh has 16.7 M ordered pairs, so a cell is read and
 * written through ix_cells_get/ix_cells_set as a plain struct ix_cell, and
 * kept in 11 bytes (ix_cells_bytes); a mesh of one test per pair keeps one
 * slot per pair (8.4 M at 4096 hosts: 92 MB). */
#ifndef IX_CELLS_H
#define IX_CELLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Row = the host that initiated, column = its peer. */
enum ix_cell_state {
	IX_CELL_PENDING = 0, /* not measured (yet) */
	IX_CELL_OK,
	IX_CELL_FAILED, /* the test failed: see the node's error */
	IX_CELL_NONE,   /* the diagonal, or a direction not asked for */
};

struct ix_cell {
	float bw_bps;     /* goodput, bit/s; 0 when not measured or bw_zero */
	float lat_p50_ns; /* one-way latency; 0 when not measured or lat_lost */
	float lat_p99_ns;
	uint8_t state;        /* enum ix_cell_state */
	uint8_t bad;          /* flagged by ix_mesh_analyze: IX_BAD_* */
	uint8_t retested : 1; /* measured a second time */
	uint8_t mirrored : 1; /* a view's copy of the pair's one measured direction */
	/* The bandwidth test ran to its end and moved nothing: measured at 0
	 * (a bad pair), not "not measured". */
	uint8_t bw_zero : 1;
	/* The latency test ran to its end and no round trip came back: a bad
	 * pair with no latency figure. */
	uint8_t lat_lost : 1;
};

/* Whether a cell holds a bandwidth figure (0 included) or a latency one
 * (a lost latency test has none, but was measured). */
static inline bool ix_cell_has_bw(const struct ix_cell *c)
{
	return c->bw_bps > 0 || c->bw_zero;
}

static inline bool ix_cell_has_lat(const struct ix_cell *c)
{
	return c->lat_p50_ns > 0;
}

/* A float's bits, and back. */
static inline uint32_t ix_float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float ix_bits_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Why a cell is bad (its bad field, a mask). */
#define IX_BAD_BW  1 /* bandwidth below the rule, or measured at 0 */
#define IX_BAD_LAT 2 /* latency above the rule, or no round trip came back */

/*
 * How a store keeps its n x n matrix:
 * - FULL: a slot per ordered pair (a mesh of both directions);
 * - PAIR: a slot per unordered pair, holding the direction it was written
 *   in; the other direction reads as IX_CELL_NONE (a mesh of one test per
 *   pair: the result as measured);
 * - MIRROR: as PAIR, but the other direction of a measured or failed pair
 *   reads as the slot's copy with mirrored set (a view that draws the one
 *   test of a pair on both sides), and of a pending pair as pending.
 * The diagonal reads as IX_CELL_NONE until written (FULL: a host's
 * traffic to itself); PAIR and MIRROR have no slot for it. In PAIR and MIRROR, a write
 * of IX_CELL_NONE to the direction the slot does not hold changes
 * nothing, a write of a mirrored copy changes only the pair's bad flags,
 * and any other write makes that direction the slot's.
 * Bandwidths are kept as floats; latencies as floats rounded to 17
 * significant bits (within 0.0004%; exact for whole nanoseconds below
 * 131 us); a negative figure is kept as its magnitude.
 */
enum ix_cells_mode {
	IX_CELLS_FULL,
	IX_CELLS_PAIR,
	IX_CELLS_MIRROR,
};

struct ix_cells {
	uint32_t n;
	enum ix_cells_mode mode;
	unsigned char *v; /* the slots; NULL before init or after free */
};

/* Every off-diagonal cell pending, the diagonal none. 0, or -1 when out of memory (or the
 * matrix would not fit a size_t); *m is then empty. */
int ix_cells_init(struct ix_cells *m, uint32_t n, enum ix_cells_mode mode);
void ix_cells_free(struct ix_cells *m);
/* The bytes the slots take for n hosts. */
size_t ix_cells_bytes(uint32_t n, enum ix_cells_mode mode);

/* Cell (a, b); a and b < n. */
struct ix_cell ix_cells_get(const struct ix_cells *m, uint32_t a, uint32_t b);
void ix_cells_set(struct ix_cells *m, uint32_t a, uint32_t b, const struct ix_cell *c);
/* Only the bad flags of cell (a, b) (and its mirror's). */
void ix_cells_set_bad(struct ix_cells *m, uint32_t a, uint32_t b, uint8_t bad);

/* How many cells are in each state (count[enum ix_cell_state] += ...):
 * in FULL every slot (the diagonal too), in PAIR and MIRROR each pair once
 * (its slot). */
void ix_cells_count(const struct ix_cells *m, uint64_t count[4]);

/* The mode a matrix read from a document needs: FULL when some pair is
 * other than IX_CELL_NONE both ways (state(arg, a, b) says), else one_way. */
enum ix_cells_mode ix_cells_mode_for(uint32_t n, enum ix_cells_mode one_way,
				     uint8_t (*state)(void *arg, uint32_t a, uint32_t b),
				     void *arg);

/* A copy of src in mode (src's own, or another: FULL to MIRROR keeps the
 * direction of each pair that was measured, as PAIR would; PAIR to MIRROR
 * draws it on both sides) into dst: zeroed, or a store (reused when of
 * src's size in mode, else freed). 0, or -1 when out of memory. */
int ix_cells_copy(struct ix_cells *dst, const struct ix_cells *src, enum ix_cells_mode mode);
/* A store filled from a plain row-major n x n array, cell by cell in order
 * of rows (as ix_cells_set). 0, or -1 when out of memory. */
int ix_cells_load(struct ix_cells *m, const struct ix_cell *v, uint32_t n, enum ix_cells_mode mode);

#endif
