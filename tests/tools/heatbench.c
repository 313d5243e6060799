/* heatbench N W H FRAMES [full]: time frames of an N-host mesh heatmap
 * drawn through curses to /dev/null on a W x H terminal. Every frame after
 * the first changes one round's worth of pairs (N/2 cells), as a running
 * mesh does, then draws and flushes the screen; with "full", every frame
 * redraws every cell as after a zoom or a pan. Prints the first frame
 * (which paints the whole screen) and the median, p99 and worst of the
 * others, in milliseconds. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/core/clock.h"
#include "report/tui/tui.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 256;
	const char *w = argc > 2 ? argv[2] : "540", *h = argc > 3 ? argv[3] : "270";
	int frames = argc > 4 ? (int)strtol(argv[4], NULL, 10) : 200;
	int full = argc > 5 && strcmp(argv[5], "full") == 0;
	struct ix_heat_src s = { 0 };
	struct ix_heat_view v = { 0 };
	struct ix_tui t;
	struct ix_err err = { 0 };
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	double *ms, first;
	unsigned seed = 1;

	if (n < 2 || frames < 2 || !out || !in || ix_heat_src_alloc(&s, n, IX_CELLS_FULL) < 0)
		return 2;
	ms = calloc((size_t)frames, sizeof(*ms));
	for (uint32_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "node%04u", i);
		s.names[i] = strdup(name);
	}
	s.rules = (struct ix_mesh_rules){ 0.7, 2.0, 50, 0, 0 };
	s.tests = IX_MESH_BW | IX_MESH_LAT;
	s.both = true;
	s.done = true; /* the figures as given: no analysis inside the timing */
	s.total = 2 * n;
	setenv("LINES", h, 1);
	setenv("COLUMNS", w, 1);
	if (!getenv("TERM"))
		setenv("TERM", "xterm-256color", 1);
	if (ix_tui_open_stream(&t, in, out, &err) < 0) {
		fprintf(stderr, "heatbench: %s\n", err.msg);
		return 1;
	}
	for (int f = 0; f < frames; f++) {
		int64_t t0 = ix_now_ns();

		for (uint32_t k = 0; f && k < n / 2; k++) {
			uint32_t a = (uint32_t)rand_r(&seed) % n, b = (uint32_t)rand_r(&seed) % n;
			struct ix_cell c = { .state = IX_CELL_OK };

			if (a == b)
				continue;
			c.bw_bps = (float)(1e9 * (1 + rand_r(&seed) % 100));
			c.lat_p50_ns = (float)(1000 + rand_r(&seed) % 50000);
			c.bad = rand_r(&seed) % 50 == 0;
			ix_cells_set(&s.cells, a, b, &c);
		}
		s.batches = (uint32_t)f;
		if (full) {
			free(t.heat_last);
			t.heat_last = NULL;
		}
		ix_tui_heat_draw(&t, &v, &s, false, NULL);
		ms[f] = (double)(ix_now_ns() - t0) / 1e6;
	}
	ix_tui_close(&t);
	first = ms[0];
	qsort(ms + 1, (size_t)frames - 1, sizeof(*ms), cmp);
	printf("heatmap %u x %u on %sx%s (blocks of %u)%s: first frame %.2f ms, then median %.3f "
	       "ms, "
	       "p99 %.3f ms, worst %.3f ms over %d frames\n",
	       n, n, w, h, v.block, full ? ", every cell redrawn" : "", first,
	       ms[1 + (frames - 1) / 2], ms[1 + (size_t)((frames - 1) * 0.99)], ms[frames - 1],
	       frames - 1);
	ix_heat_src_free(&s);
	free(ms);
	fclose(in);
	fclose(out);
	return 0;
}
