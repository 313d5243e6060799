/* Unit tests for report/tui/heatmap.c: blocks, levels, zoom, cursor and the
 * text around the matrix, without a terminal. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/tui/heatmap.h"

/* n hosts "h0".."h<n-1>", every pair measured at 10 Gbit/s and 10 us. */
static void src_uniform(struct ix_heat_src *s, uint32_t n)
{
	memset(s, 0, sizeof(*s));
	cr_assert_eq(ix_heat_src_alloc(s, n, IX_CELLS_FULL), 0);
	for (uint32_t i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "h%u", i);
		s->names[i] = strdup(name);
	}
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++)
			ix_cells_set(&s->cells, a, b,
				     &(struct ix_cell){ 10e9f, 10000, 12000, IX_CELL_OK, 0, 0, 0, 0,
							0 });
	s->rules = (struct ix_mesh_rules){ 0.7, 2.0, 50, 0, 0 };
	s->tests = IX_MESH_BW | IX_MESH_LAT;
	s->both = true;
}

static struct ix_cell at(const struct ix_heat_src *s, uint32_t a, uint32_t b)
{
	return ix_cells_get(&s->cells, a, b);
}

/* Change cell (a, b) of s: stmt on c_, written back. */
#define SET(s, a, b, stmt)                                           \
	do {                                                         \
		struct ix_cell c_ = ix_cells_get(&(s)->cells, a, b); \
		stmt;                                                \
		ix_cells_set(&(s)->cells, a, b, &c_);                \
	} while (0)

Test(heatmap, fits_256_hosts_in_80x24)
{
	struct ix_heat_src s;
	struct ix_heat_view v = { .levels = 11 };

	src_uniform(&s, 256);
	ix_heat_layout(&v, &s, 80, 24);
	cr_assert_leq(v.rows, 24 - IX_HEAT_ROWS_ABOVE - IX_HEAT_ROWS_BELOW);
	cr_assert_leq(v.label_w + 2 + v.cols * IX_HEAT_CELL_W, 80);
	/* Every host is inside one of the blocks shown. */
	cr_assert_geq(v.rows * v.block, 256);
	cr_assert_geq(v.cols * v.block, 256);
	cr_assert_eq(v.block, 14, "19 rows of blocks need 14 hosts a block, got %u", v.block);
	ix_heat_src_free(&s);
}

Test(heatmap, one_host_per_cell_when_it_fits)
{
	struct ix_heat_src s;
	struct ix_heat_view v = { .levels = 11 };

	src_uniform(&s, 16);
	ix_heat_layout(&v, &s, 120, 40);
	cr_assert_eq(v.block, 1);
	cr_assert_eq(v.rows, 16);
	cr_assert_eq(v.cols, 16);
	ix_heat_src_free(&s);
}

Test(heatmap, block_shows_the_worst)
{
	struct ix_heat_src s;
	struct ix_heat_view v = { .levels = 10, .zoom = 2 };
	struct ix_heat_px px;

	src_uniform(&s, 4);
	SET(&s, 0, 1, c_.bw_bps = 5e9f);      /* half the best: level 5 of 10 */
	SET(&s, 1, 0, c_.lat_p50_ns = 40000); /* 4x the lowest: level 2 */
	ix_heat_layout(&v, &s, 200, 50);
	cr_assert_eq(v.block, 2);
	px = ix_heat_block(&v, &s, 0, 0);
	cr_assert_eq(px.kind, IX_HEAT_VALUE);
	cr_assert_eq(px.level, 5);
	px = ix_heat_block(&v, &s, 1, 1);
	cr_assert_eq(px.level, 9, "an untouched block is at the best level");
	v.metric = IX_HEAT_LAT;
	ix_heat_layout(&v, &s, 200, 50);
	px = ix_heat_block(&v, &s, 0, 0);
	cr_assert_eq(px.level, 2);
	ix_heat_src_free(&s);
}

/* A pair measured at 0, or whose latency test got no round trip back, is
 * a value at the worst level, never an empty cell. */
Test(heatmap, a_dead_pair_is_the_worst_value)
{
	struct ix_heat_src s;
	struct ix_heat_view v = { .levels = 10 };
	struct ix_heat_px px;
	char buf[256];

	src_uniform(&s, 4);
	SET(&s, 0, 1, c_.bw_bps = 0);
	SET(&s, 0, 1, c_.bw_zero = 1);
	SET(&s, 0, 1, c_.lat_p50_ns = c_.lat_p99_ns = 0);
	SET(&s, 0, 1, c_.lat_lost = 1);
	ix_heat_layout(&v, &s, 200, 50);
	cr_assert_eq(v.block, 1);
	px = ix_heat_block(&v, &s, 0, 1);
	cr_assert_eq(px.kind, IX_HEAT_VALUE);
	cr_assert_eq(px.level, 0);
	cr_assert_eq(v.scale_max, 10e9f, "the scale is the best pair's");
	v.cur_row = 0;
	v.cur_col = 1;
	ix_heat_cursor_text(&v, &s, buf, sizeof(buf));
	cr_assert(strstr(buf, "h0 -> h1: 0.00 bit/s  p50 lost"), "%s", buf);
	v.metric = IX_HEAT_LAT;
	ix_heat_layout(&v, &s, 200, 50);
	px = ix_heat_block(&v, &s, 0, 1);
	cr_assert_eq(px.kind, IX_HEAT_VALUE);
	cr_assert_eq(px.level, 0);
	cr_assert_eq(v.scale_max, 10000, "a lost pair does not set the scale");
	ix_heat_src_free(&s);
}

Test(heatmap, failed_before_values_before_pending)
{
	struct ix_heat_src s;
	struct ix_heat_view v = { .levels = 3, .zoom = 2 };

	src_uniform(&s, 4);
	SET(&s, 0, 1, c_.state = IX_CELL_FAILED);
	SET(&s, 2, 3, c_.state = IX_CELL_PENDING);
	for (uint32_t a = 0; a < 2; a++)
		for (uint32_t b = 2; b < 4; b++)
			SET(&s, a, b, c_.state = IX_CELL_PENDING);
	ix_heat_layout(&v, &s, 200, 50);
	cr_assert_eq(ix_heat_block(&v, &s, 0, 0).kind, IX_HEAT_FAILED);
	cr_assert_eq(ix_heat_block(&v, &s, 1, 1).kind, IX_HEAT_VALUE);
	cr_assert_eq(ix_heat_block(&v, &s, 0, 1).kind, IX_HEAT_PENDING);
	ix_heat_src_free(&s);
}

Test(heatmap, levels_and_legend_floors)
{
	struct ix_heat_view v = { .levels = 10, .scale_max = 100e9 };

	cr_assert_eq(ix_heat_level(&v, 100e9), 9);
	cr_assert_eq(ix_heat_level(&v, 150e9), 9);
	cr_assert_eq(ix_heat_level(&v, 69e9), 6);
	cr_assert_eq(ix_heat_level(&v, 1), 0);
	cr_assert_float_eq(ix_heat_level_floor(&v, 7), 70e9, 1);
	v.metric = IX_HEAT_LAT;
	v.scale_max = 1000;
	cr_assert_eq(ix_heat_level(&v, 1000), 9);
	cr_assert_eq(ix_heat_level(&v, 2000), 5);
	cr_assert_float_eq(ix_heat_level_floor(&v, 5), 2000, 1e-6);
	cr_assert(isinf(ix_heat_level_floor(&v, 0)));
}

Test(heatmap, provisional_analysis_flags_bad_pairs_and_suspects)
{
	struct ix_heat_src s;
	struct ix_heat_view v = { .levels = 11 };
	char buf[512];

	src_uniform(&s, 6);
	for (uint32_t b = 0; b < 6; b++)
		if (b != 3) {
			SET(&s, 3, b, c_.bw_bps = 1e9f);
			SET(&s, b, 3, c_.bw_bps = 1e9f);
		}
	ix_heat_src_analyze(&s);
	cr_assert(s.suspect[3]);
	cr_assert_not(s.suspect[0]);
	cr_assert_eq(s.bad_pairs, 10);
	cr_assert(at(&s, 3, 4).bad);
	ix_heat_layout(&v, &s, 120, 40);
	cr_assert(ix_heat_block(&v, &s, 3, 4).bad);
	cr_assert(ix_heat_row_suspect(&v, &s, 3));
	v.cur_row = 3;
	v.cur_col = 4;
	ix_heat_cursor_text(&v, &s, buf, sizeof(buf));
	cr_assert(strstr(buf, "h3 -> h4"), "%s", buf);
	cr_assert(strstr(buf, "BAD"), "%s", buf);
	cr_assert(strstr(buf, "1.00 Gbit/s"), "%s", buf);
	ix_heat_status(&v, &s, false, buf, sizeof(buf));
	cr_assert(strstr(buf, "10 bad"), "%s", buf);
	cr_assert(strstr(buf, "1 suspect"), "%s", buf);
	ix_heat_src_free(&s);
}

Test(heatmap, one_direction_is_mirrored)
{
	struct ix_heat_src s = { 0 };
	struct ix_cell c = { 3e9f, 10000, 12000, IX_CELL_OK, 0, 0, 0, 0, 0 };

	cr_assert_eq(ix_heat_src_alloc(&s, 3, IX_CELLS_MIRROR), 0);
	s.rules = (struct ix_mesh_rules){ 0.7, 2.0, 50, 0, 0 };
	s.tests = IX_MESH_BW | IX_MESH_LAT;
	ix_cells_set(&s.cells, 0, 1, &c);
	ix_heat_src_analyze(&s);
	cr_assert_eq(at(&s, 1, 0).state, IX_CELL_OK);
	cr_assert_float_eq(at(&s, 1, 0).bw_bps, 3e9f, 1);
	/* The copy is marked, the measured cell not; again changes nothing. */
	cr_assert(at(&s, 1, 0).mirrored);
	cr_assert_not(at(&s, 0, 1).mirrored);
	cr_assert_eq(at(&s, 2, 1).state, IX_CELL_PENDING, "pending both ways");
	ix_heat_src_analyze(&s);
	cr_assert(at(&s, 1, 0).mirrored);
	cr_assert_not(at(&s, 0, 1).mirrored);
	cr_assert_float_eq(at(&s, 1, 0).bw_bps, 3e9f, 1);
	ix_heat_src_free(&s);
}

Test(heatmap, cursor_zoom_and_pan)
{
	struct ix_heat_src s;
	struct ix_heat_view v = { .levels = 11 };

	src_uniform(&s, 100);
	ix_heat_layout(&v, &s, 80, 24);
	cr_assert_gt(v.block, 1);
	/* Zoom in to one host per cell: the matrix no longer fits, so the
	 * view pans to follow the cursor. */
	while (v.block > 1) {
		ix_heat_act(&v, &s, IX_HEAT_ZOOM_IN);
		ix_heat_layout(&v, &s, 80, 24);
	}
	cr_assert_eq(v.block, 1);
	for (int i = 0; i < 60; i++) {
		ix_heat_act(&v, &s, IX_HEAT_DOWN);
		ix_heat_act(&v, &s, IX_HEAT_RIGHT);
		ix_heat_layout(&v, &s, 80, 24);
	}
	cr_assert_eq(v.cur_row, 60);
	cr_assert_eq(v.cur_col, 60);
	cr_assert_leq(v.top, 60);
	cr_assert_gt(v.top + v.rows, 60, "cursor row off screen: top %u rows %u", v.top, v.rows);
	cr_assert_gt(v.left + v.cols, 60);
	cr_assert(ix_heat_block(&v, &s, 60 - v.top, 60 - v.left).cursor);
	for (int i = 0; i < 500; i++)
		ix_heat_act(&v, &s, IX_HEAT_DOWN);
	ix_heat_layout(&v, &s, 80, 24);
	cr_assert_eq(v.cur_row, 99, "the cursor stops at the last host");
	cr_assert_eq(v.top + v.rows, 100, "the last row is at the bottom");
	ix_heat_act(&v, &s, IX_HEAT_HOME);
	ix_heat_layout(&v, &s, 80, 24);
	cr_assert_eq(v.top, 0);
	cr_assert_eq(v.left, 0);
	/* Zooming out past the fit stops at the whole matrix in one block. */
	for (int i = 0; i < 20; i++) {
		ix_heat_act(&v, &s, IX_HEAT_ZOOM_OUT);
		ix_heat_layout(&v, &s, 80, 24);
	}
	cr_assert_eq(v.block, 100);
	cr_assert_eq(v.rows, 1);
	ix_heat_src_free(&s);
}

Test(heatmap, long_names_keep_their_end)
{
	struct ix_heat_src s;
	struct ix_heat_view v = { .levels = 11 };
	char buf[64];

	src_uniform(&s, 2);
	free(s.names[1]);
	s.names[1] = strdup("rack17-compute-node-0042.example.org");
	ix_heat_layout(&v, &s, 120, 40);
	cr_assert_eq(v.label_w, IX_HEAT_LABEL_MAX);
	ix_heat_row_label(&v, &s, 1, buf, sizeof(buf));
	cr_assert_eq(strlen(buf), IX_HEAT_LABEL_MAX);
	cr_assert_eq(buf[0], '~');
	cr_assert(strstr(buf, "example.org"), "%s", buf);
	ix_heat_src_free(&s);
}

Test(heatmap, status_estimates_time_left)
{
	struct ix_heat_src s;
	struct ix_heat_view v = { .levels = 11 };
	char buf[512];

	src_uniform(&s, 8);
	s.batches = 2;
	s.total = 7;
	s.elapsed_s = 20;
	ix_heat_status(&v, &s, true, buf, sizeof(buf));
	cr_assert(strstr(buf, "round 2/7"), "%s", buf);
	cr_assert(strstr(buf, "0:20 elapsed"), "%s", buf);
	cr_assert(strstr(buf, "~0:50 left"), "%s", buf);
	cr_assert(strstr(buf, "PAUSED"), "%s", buf);
	s.done = true;
	s.complete = false;
	ix_heat_status(&v, &s, false, buf, sizeof(buf));
	cr_assert(strstr(buf, "INCOMPLETE"), "%s", buf);
	cr_assert_null(strstr(buf, "left"), "%s", buf);
	ix_heat_src_free(&s);
}
