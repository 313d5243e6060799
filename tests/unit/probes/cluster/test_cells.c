/* Unit tests for probes/cluster/cells.c: the packed cell store, its three
 * modes, what it keeps of a figure, copies and the size at 4096 hosts. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/cells.h"

static struct ix_cell ok(float bw, float p50, float p99)
{
	return (struct ix_cell){
		.bw_bps = bw, .lat_p50_ns = p50, .lat_p99_ns = p99, .state = IX_CELL_OK
	};
}

static bool same(const struct ix_cell *x, const struct ix_cell *y)
{
	return x->bw_bps == y->bw_bps && x->lat_p50_ns == y->lat_p50_ns &&
	       x->lat_p99_ns == y->lat_p99_ns && x->state == y->state && x->bad == y->bad &&
	       x->retested == y->retested && x->mirrored == y->mirrored &&
	       x->bw_zero == y->bw_zero && x->lat_lost == y->lat_lost;
}

Test(cells, bytes_at_4096_hosts)
{
	size_t pairs = (size_t)4096 * 4095 / 2;

	cr_assert_eq(ix_cells_bytes(4096, IX_CELLS_PAIR), pairs * 11);
	cr_assert_eq(ix_cells_bytes(4096, IX_CELLS_MIRROR), pairs * 11);
	cr_assert_eq(ix_cells_bytes(4096, IX_CELLS_FULL), (size_t)4096 * 4096 * 11);
	cr_assert_lt(ix_cells_bytes(4096, IX_CELLS_PAIR), (size_t)100000000,
		     "a one-way mesh of 4096 hosts fits 100 MB: %zu",
		     ix_cells_bytes(4096, IX_CELLS_PAIR));
	cr_assert_eq(ix_cells_bytes(0, IX_CELLS_PAIR), 0);
	cr_assert_eq(ix_cells_bytes(1, IX_CELLS_PAIR), 0);
}

Test(cells, too_large_is_refused)
{
	struct ix_cells m;

	cr_assert_eq(ix_cells_init(&m, UINT32_MAX, IX_CELLS_FULL), -1);
	cr_assert_null(m.v);
}

Test(cells, full_round_trip)
{
	struct ix_cells m;
	struct ix_cell c = ok(9.4e9f, 12345, 23456), g;

	cr_assert_eq(ix_cells_init(&m, 5, IX_CELLS_FULL), 0);
	for (uint32_t a = 0; a < 5; a++)
		for (uint32_t b = 0; b < 5; b++)
			cr_assert_eq(ix_cells_get(&m, a, b).state,
				     a == b ? IX_CELL_NONE : IX_CELL_PENDING);
	c.bad = IX_BAD_BW | IX_BAD_LAT;
	c.retested = c.bw_zero = c.lat_lost = c.mirrored = 1;
	ix_cells_set(&m, 3, 1, &c);
	g = ix_cells_get(&m, 3, 1);
	cr_assert(same(&g, &c));
	cr_assert_eq(ix_cells_get(&m, 1, 3).state, IX_CELL_PENDING, "the other way is its own");
	ix_cells_set(&m, 2, 2, &c);
	cr_assert_eq(ix_cells_get(&m, 2, 2).bw_bps, 9.4e9f, "a host's traffic to itself");
	cr_assert_eq(ix_cells_get(&m, 4, 4).state, IX_CELL_NONE);
	ix_cells_set_bad(&m, 3, 1, 0);
	cr_assert_eq(ix_cells_get(&m, 3, 1).bad, 0);
	cr_assert_eq(ix_cells_get(&m, 3, 1).bw_bps, 9.4e9f);
	ix_cells_free(&m);
	cr_assert_null(m.v);
}

Test(cells, figures_kept)
{
	struct ix_cells m;
	uint64_t seed = 88172645463325252ull;

	cr_assert_eq(ix_cells_init(&m, 2, IX_CELLS_FULL), 0);
	/* Whole nanoseconds below 2^17 are kept exactly, bandwidths always. */
	for (float v = 1; v < 131072; v += 7) {
		struct ix_cell c = ok(v * 1.37e6f, v, 131071 - v);

		ix_cells_set(&m, 0, 1, &c);
		cr_assert_eq(ix_cells_get(&m, 0, 1).lat_p50_ns, v);
		cr_assert_eq(ix_cells_get(&m, 0, 1).lat_p99_ns, 131071 - v);
		cr_assert_eq(ix_cells_get(&m, 0, 1).bw_bps, v * 1.37e6f);
	}
	/* Any latency within 2^-17 of itself. */
	for (int i = 0; i < 100000; i++) {
		float v;
		struct ix_cell c;

		seed ^= seed >> 12;
		seed ^= seed << 25;
		seed ^= seed >> 27;
		v = (float)ldexp((double)(seed >> 40) / (1 << 24) + 1, (int)(seed % 60) - 10);
		c = ok(1, v, v);
		ix_cells_set(&m, 0, 1, &c);
		cr_assert_leq(fabs(ix_cells_get(&m, 0, 1).lat_p50_ns - v) / v, 1.0 / (1 << 17),
			      "%g became %g", v, ix_cells_get(&m, 0, 1).lat_p50_ns);
	}
	{
		struct ix_cell c = ok(NAN, NAN, INFINITY);

		ix_cells_set(&m, 1, 0, &c);
		cr_assert(isnan(ix_cells_get(&m, 1, 0).bw_bps));
		cr_assert(isnan(ix_cells_get(&m, 1, 0).lat_p50_ns));
		cr_assert(isinf(ix_cells_get(&m, 1, 0).lat_p99_ns));
		c = ok(0, FLT_MAX, -5);
		ix_cells_set(&m, 1, 0, &c);
		cr_assert(isinf(ix_cells_get(&m, 1, 0).lat_p50_ns), "rounds past the largest");
		cr_assert_eq(ix_cells_get(&m, 1, 0).lat_p99_ns, 5, "a magnitude");
	}
	ix_cells_free(&m);
}

Test(cells, pair_holds_the_direction_written)
{
	struct ix_cells m;
	struct ix_cell c = ok(5e9f, 0, 0), none = { .state = IX_CELL_NONE };
	uint64_t count[4] = { 0 };

	cr_assert_eq(ix_cells_init(&m, 4, IX_CELLS_PAIR), 0);
	cr_assert_eq(ix_cells_get(&m, 1, 2).state, IX_CELL_PENDING, "(lo, hi) before any write");
	cr_assert_eq(ix_cells_get(&m, 2, 1).state, IX_CELL_NONE);
	ix_cells_set(&m, 2, 1, &c);
	cr_assert_eq(ix_cells_get(&m, 2, 1).bw_bps, 5e9f);
	cr_assert_eq(ix_cells_get(&m, 1, 2).state, IX_CELL_NONE, "the way not measured");
	ix_cells_set(&m, 1, 2, &none);
	cr_assert_eq(ix_cells_get(&m, 2, 1).state, IX_CELL_OK, "none the other way: no change");
	ix_cells_set_bad(&m, 1, 2, IX_BAD_BW);
	cr_assert_eq(ix_cells_get(&m, 2, 1).bad, 0, "bad flags the other way: no change");
	ix_cells_set_bad(&m, 2, 1, IX_BAD_BW);
	cr_assert_eq(ix_cells_get(&m, 2, 1).bad, IX_BAD_BW);
	c.state = IX_CELL_FAILED;
	ix_cells_set(&m, 1, 2, &c);
	cr_assert_eq(ix_cells_get(&m, 1, 2).state, IX_CELL_FAILED, "a write takes the slot");
	cr_assert_eq(ix_cells_get(&m, 2, 1).state, IX_CELL_NONE);
	ix_cells_set(&m, 3, 3, &c);
	cr_assert_eq(ix_cells_get(&m, 3, 3).state, IX_CELL_NONE, "no slot for the diagonal");
	ix_cells_count(&m, count);
	cr_assert_eq(count[IX_CELL_FAILED], 1);
	cr_assert_eq(count[IX_CELL_PENDING], 5, "six pairs of 4 hosts, one failed");
	cr_assert_eq(count[IX_CELL_OK] + count[IX_CELL_NONE], 0);
	ix_cells_free(&m);
}

Test(cells, mirror_draws_both_sides)
{
	struct ix_cells m;
	struct ix_cell c = ok(3e9f, 2000, 4000), g;

	cr_assert_eq(ix_cells_init(&m, 3, IX_CELLS_MIRROR), 0);
	cr_assert_eq(ix_cells_get(&m, 2, 0).state, IX_CELL_PENDING, "pending both ways");
	ix_cells_set(&m, 2, 0, &c);
	g = ix_cells_get(&m, 0, 2);
	cr_assert_eq(g.state, IX_CELL_OK);
	cr_assert(g.mirrored);
	cr_assert_eq(g.lat_p50_ns, 2000);
	cr_assert_not(ix_cells_get(&m, 2, 0).mirrored);
	ix_cells_set_bad(&m, 0, 2, IX_BAD_LAT);
	cr_assert_eq(ix_cells_get(&m, 2, 0).bad, IX_BAD_LAT, "one pair, one set of flags");
	g.bad = 0;
	g.bw_bps = 1;
	ix_cells_set(&m, 0, 2, &g);
	cr_assert_eq(ix_cells_get(&m, 2, 0).bad, 0, "a mirrored copy writes its flags only");
	cr_assert_eq(ix_cells_get(&m, 2, 0).bw_bps, 3e9f);
	ix_cells_free(&m);
}

Test(cells, copies_and_loads)
{
	struct ix_cell v[9] = { 0 };
	struct ix_cells full, mirror = { 0 }, back = { 0 }, pair = { 0 };

	for (int i = 0; i < 9; i++)
		v[i].state = i % 4 == 0 ? IX_CELL_NONE : IX_CELL_PENDING;
	v[0 * 3 + 1] = ok(1e9f, 0, 0);                            /* 0 -> 1 measured */
	v[2 * 3 + 0] = ok(2e9f, 0, 0);                            /* 2 -> 0 measured, */
	v[0 * 3 + 2] = (struct ix_cell){ .state = IX_CELL_NONE }; /* not 0 -> 2 */
	v[1 * 3 + 0].state = IX_CELL_NONE;
	v[2 * 3 + 1].state = IX_CELL_NONE; /* 1 -> 2 pending: a one-way matrix */
	cr_assert_eq(ix_cells_load(&full, v, 3, IX_CELLS_FULL), 0);
	cr_assert_eq(ix_cells_get(&full, 2, 0).bw_bps, 2e9f);
	cr_assert_eq(ix_cells_copy(&mirror, &full, IX_CELLS_MIRROR), 0);
	cr_assert_eq(ix_cells_get(&mirror, 2, 0).bw_bps, 2e9f, "the measured way kept");
	cr_assert(ix_cells_get(&mirror, 0, 2).mirrored);
	cr_assert_eq(ix_cells_get(&mirror, 0, 1).bw_bps, 1e9f);
	cr_assert_eq(ix_cells_get(&mirror, 1, 2).state, IX_CELL_PENDING);
	cr_assert_eq(ix_cells_copy(&pair, &mirror, IX_CELLS_PAIR), 0);
	cr_assert_eq(ix_cells_get(&pair, 0, 2).state, IX_CELL_NONE);
	cr_assert_eq(ix_cells_copy(&back, &pair, IX_CELLS_FULL), 0);
	for (uint32_t a = 0; a < 3; a++)
		for (uint32_t b = 0; b < 3; b++) {
			struct ix_cell x = ix_cells_get(&back, a, b), y = v[a * 3 + b];

			cr_assert(same(&x, &y), "(%u, %u)", a, b);
		}
	/* A copy into a store of the same size and mode reuses it. */
	cr_assert_eq(ix_cells_copy(&back, &full, IX_CELLS_FULL), 0);
	ix_cells_free(&full);
	ix_cells_free(&mirror);
	ix_cells_free(&pair);
	ix_cells_free(&back);
}

static uint8_t state_of(void *arg, uint32_t a, uint32_t b)
{
	return ((const uint8_t *)arg)[a * 3 + b];
}

Test(cells, mode_for_a_document)
{
	uint8_t one[9] = { IX_CELL_NONE,   IX_CELL_OK,      IX_CELL_NONE,
			   IX_CELL_NONE,   IX_CELL_NONE,    IX_CELL_NONE,
			   IX_CELL_FAILED, IX_CELL_PENDING, IX_CELL_NONE };
	uint8_t two[9];

	cr_assert_eq(ix_cells_mode_for(3, IX_CELLS_PAIR, state_of, one), IX_CELLS_PAIR);
	cr_assert_eq(ix_cells_mode_for(3, IX_CELLS_MIRROR, state_of, one), IX_CELLS_MIRROR);
	memcpy(two, one, sizeof(two));
	two[1 * 3 + 0] = IX_CELL_OK; /* 0 <-> 1 both ways */
	cr_assert_eq(ix_cells_mode_for(3, IX_CELLS_PAIR, state_of, two), IX_CELLS_FULL);
}
