/*
 * The heatmap of a mesh as a model: which block of the matrix each screen
 * cell shows, its colour level, marks and the text around it. No curses
 * here: report/tui/heat.c maps the roles to the terminal, and the same
 * model is tested without one.
 */
#ifndef IX_HEATMAP_H
#define IX_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/cluster/analysis.h"
#include "probes/cluster/multi.h"

/* A snapshot of a mesh the view owns: copied from a running mesh or read
 * back from its state file. */
struct ix_heat_src {
	uint32_t n;
	char **names;             /* n host names */
	struct ix_cells cells;    /* n x n; row = initiator, column = peer */
	bool *suspect;            /* n; from the provisional analysis */
	struct ix_neighbor *nbrs; /* n; the switch port each agent reported ("" unknown) */
	size_t bad_pairs;
	struct ix_mesh_rules rules;
	unsigned tests;          /* enum ix_mesh_test bits */
	bool both;               /* both directions measured */
	uint32_t batches, total; /* batches done and planned (round k of K) */
	double elapsed_s;
	bool done;       /* the run is over (final figures) */
	bool complete;   /* and every pair was measured */
	char title[128]; /* replaces the mesh status line when set */
};

/* Names and cells for n hosts (kept when n and mode are those it has):
 * mode IX_CELLS_MIRROR for a mesh of one test per pair (drawn on both
 * sides), IX_CELLS_FULL for every ordered pair. */
int ix_heat_src_alloc(struct ix_heat_src *s, uint32_t n, enum ix_cells_mode mode);
void ix_heat_src_free(struct ix_heat_src *s);
/* Copy a running mesh's matrix and host names into s (allocated on first
 * use or when n changed). Returns -1 when out of memory. */
int ix_heat_src_copy(struct ix_heat_src *s, const struct ix_mesh_result *r);
/* Flag bad pairs and suspects over what is measured so far, with the
 * mesh's own rules (the final analysis replaces it when the run ends). */
void ix_heat_src_analyze(struct ix_heat_src *s);

enum ix_heat_metric { IX_HEAT_BW, IX_HEAT_LAT };

enum ix_heat_kind {
	IX_HEAT_PENDING, /* not measured yet */
	IX_HEAT_NONE,    /* the diagonal, or a direction not asked for */
	IX_HEAT_FAILED,
	IX_HEAT_VALUE, /* level set */
};

/* One screen cell: a block of zoom x zoom pairs, showing the worst. */
struct ix_heat_px {
	uint8_t kind;  /* enum ix_heat_kind */
	uint8_t level; /* 0 (worst) .. levels - 1 (best) */
	bool bad;      /* a bad pair in the block */
	bool cursor;
};

#define IX_HEAT_LABEL_MAX 16

struct ix_heat_view {
	enum ix_heat_metric metric;
	uint32_t levels;  /* colour levels the terminal shows (>= 2) */
	uint32_t zoom;    /* pairs per block side; 0 = fit to the screen */
	uint32_t top;     /* first row shown (host index) */
	uint32_t left;    /* first column shown */
	uint32_t cur_row; /* cursor (host indexes) */
	uint32_t cur_col;
	/* From ix_heat_layout: */
	uint32_t block;      /* zoom in effect */
	uint32_t label_w;    /* characters of the row labels */
	uint32_t rows, cols; /* blocks shown */
	double scale_max;    /* bw: the highest bandwidth; lat: the lowest p50 */
	/* The fabric instead of the matrix ('f'), scrolled to fab_top. */
	bool fabric;
	uint32_t fab_top, fab_rows;
};

/* Screen rows around the matrix: status, column header; legend, cursor
 * line, keys. */
#define IX_HEAT_ROWS_ABOVE 2
#define IX_HEAT_ROWS_BELOW 3
#define IX_HEAT_CELL_W     2

/* Fit the view to a screen of w x h characters: block size, how many
 * blocks show, the scale; keeps the cursor on screen. */
void ix_heat_layout(struct ix_heat_view *v, const struct ix_heat_src *s, uint32_t w, uint32_t h);

enum ix_heat_action {
	IX_HEAT_UP,
	IX_HEAT_DOWN,
	IX_HEAT_LEFT,
	IX_HEAT_RIGHT,
	IX_HEAT_PGUP,
	IX_HEAT_PGDOWN,
	IX_HEAT_HOME,
	IX_HEAT_ZOOM_IN,
	IX_HEAT_ZOOM_OUT,
	IX_HEAT_SHOW_BW,
	IX_HEAT_SHOW_LAT,
	IX_HEAT_FABRIC, /* the matrix or the fabric */
};

/* Apply a key's action; call ix_heat_layout afterwards. */
void ix_heat_act(struct ix_heat_view *v, const struct ix_heat_src *s, enum ix_heat_action a);

/* Screen cell (row, col) of the matrix, 0-based among the blocks shown. */
struct ix_heat_px ix_heat_block(const struct ix_heat_view *v, const struct ix_heat_src *s,
				uint32_t row, uint32_t col);
/* The level of a value (bit/s or ns) on the view's scale. */
uint32_t ix_heat_level(const struct ix_heat_view *v, double value);
/* The value where level k starts (for the legend). */
double ix_heat_level_floor(const struct ix_heat_view *v, uint32_t k);

/* Text around the matrix; each returns buf. */
const char *ix_heat_status(const struct ix_heat_view *v, const struct ix_heat_src *s, bool paused,
			   char *buf, size_t len);
const char *ix_heat_cursor_text(const struct ix_heat_view *v, const struct ix_heat_src *s,
				char *buf, size_t len);
/* Label of row block k: the first host's name, truncated to label_w. */
const char *ix_heat_row_label(const struct ix_heat_view *v, const struct ix_heat_src *s, uint32_t k,
			      char *buf, size_t len);
/* Whether row block k holds a suspect node. */
bool ix_heat_row_suspect(const struct ix_heat_view *v, const struct ix_heat_src *s, uint32_t k);
/* A value as the legend and cursor line print it. */
void ix_heat_fmt(const struct ix_heat_view *v, double value, char *buf, size_t len);

#endif
