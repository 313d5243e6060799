/*
 * The terminal: the only layer that talks to curses. Colours are roles
 * mapped to a scheme chosen from the terminal (256 colours, 8 colours,
 * monochrome; NO_COLOR honoured). Views draw through these calls and
 * redraw only when their data changed; curses sends only the cells that
 * differ, so nothing flickers.
 */
#ifndef IX_TUI_H
#define IX_TUI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "probes/core/err.h"
#include "report/tui/heatmap.h"

enum ix_tui_scheme { IX_TUI_MONO, IX_TUI_8, IX_TUI_256 };

enum ix_tui_role {
	IX_ROLE_PLAIN,
	IX_ROLE_TITLE,
	IX_ROLE_DIM,
	IX_ROLE_FAILED,
	IX_ROLE_WARN,
	IX_ROLE_GOOD,
	IX_ROLE_SUSPECT,
	IX_ROLE_CURSOR,
	IX_ROLE_COUNT
};

struct ix_tui {
	void *screen; /* curses SCREEN */
	void *tty;    /* FILE of /dev/tty: stdout stays free for the results */
	enum ix_tui_scheme scheme;
	bool utf8;
	uint32_t levels; /* heat levels the scheme shows */
	int w, h;
	bool resized; /* the size changed since the last frame */
	/* The heatmap's cells as last drawn, to redraw only what changed. */
	struct ix_heat_px *heat_last;
	uint32_t heat_rows, heat_cols;
};

/* Keys the views share, curses codes translated. */
enum ix_tui_key {
	IX_KEY_NONE = -1,
	IX_KEY_UP = 0x100,
	IX_KEY_DOWN,
	IX_KEY_LEFT,
	IX_KEY_RIGHT,
	IX_KEY_PGUP,
	IX_KEY_PGDOWN,
	IX_KEY_HOME,
	IX_KEY_RESIZE,
};

/* The scheme for a terminal: NO_COLOR set and non-empty means monochrome,
 * else by the colours it has. */
enum ix_tui_scheme ix_tui_pick_scheme(const char *no_color, bool has_colors, int colors);

/* Open the controlling terminal; IX_EXIT_UNAVAILABLE without one or when
 * built without ncurses. */
int ix_tui_open(struct ix_tui *t, struct ix_err *err);
/* The same on given streams (benchmarks draw to /dev/null); the size
 * comes from LINES and COLUMNS when out is not a terminal. */
int ix_tui_open_stream(struct ix_tui *t, FILE *in, FILE *out, struct ix_err *err);
void ix_tui_close(struct ix_tui *t);
/* Next key within timeout_ms, IX_KEY_NONE when none came. */
int ix_tui_key(struct ix_tui *t, int timeout_ms);
/* Start a frame (picks up the terminal size; clear says whether to start
 * from a blank screen, which a new size forces) and show it. */
void ix_tui_begin(struct ix_tui *t, bool clear);
void ix_tui_end(struct ix_tui *t);
/* Text at (y, x) in a role, clipped to the screen; returns the columns used. */
int ix_tui_text(struct ix_tui *t, int y, int x, enum ix_tui_role role, const char *s);
/* Blank from (y, x) to the end of the line. */
void ix_tui_clear_line(struct ix_tui *t, int y, int x);
/* Two-column heat swatch of level k (0 worst) with a 2-character glyph. */
void ix_tui_swatch(struct ix_tui *t, int y, int x, uint32_t k, const char *glyph, bool bold);

/* The mesh heatmap: matrix, labels, legend, cursor line and keys. */
void ix_tui_heat_draw(struct ix_tui *t, struct ix_heat_view *v, const struct ix_heat_src *s,
		      bool paused, const char *note);
/* The same mesh as a fabric (report/model/fabric.h): switches with their
 * uplinks, hosts below, each edge coloured by its goodput against the
 * fabric's reference and marked where the blame falls; scrolls. */
void ix_tui_fabric_draw(struct ix_tui *t, struct ix_heat_view *v, const struct ix_heat_src *s,
			bool paused, const char *note);
/* A key's action on the heatmap; false when the key is not one of its keys. */
bool ix_tui_heat_action(int key, enum ix_heat_action *a);

#endif
