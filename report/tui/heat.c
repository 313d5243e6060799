/* The mesh heatmap on the terminal: report/tui/heatmap.c decides what each
 * cell shows, this file only places it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/tui/tui.h"

bool ix_tui_heat_action(int key, enum ix_heat_action *a)
{
	switch (key) {
	case IX_KEY_UP:
	case 'k':
		*a = IX_HEAT_UP;
		return true;
	case IX_KEY_DOWN:
	case 'j':
		*a = IX_HEAT_DOWN;
		return true;
	case IX_KEY_LEFT:
	case 'h':
		*a = IX_HEAT_LEFT;
		return true;
	case IX_KEY_RIGHT:
		*a = IX_HEAT_RIGHT;
		return true;
	case IX_KEY_PGUP:
		*a = IX_HEAT_PGUP;
		return true;
	case IX_KEY_PGDOWN:
		*a = IX_HEAT_PGDOWN;
		return true;
	case IX_KEY_HOME:
		*a = IX_HEAT_HOME;
		return true;
	case '+':
	case '=':
		*a = IX_HEAT_ZOOM_IN;
		return true;
	case '-':
	case '_':
		*a = IX_HEAT_ZOOM_OUT;
		return true;
	case 'b':
		*a = IX_HEAT_SHOW_BW;
		return true;
	case 'l':
		*a = IX_HEAT_SHOW_LAT;
		return true;
	case 'f':
		*a = IX_HEAT_FABRIC;
		return true;
	default:
		return false;
	}
}

/* Host indexes above the columns, every few blocks where they fit. */
static void column_header(struct ix_tui *t, const struct ix_heat_view *v, int x0)
{
	int next = x0;

	for (uint32_t k = 0; k < v->cols; k++) {
		int x = x0 + (int)k * IX_HEAT_CELL_W;
		char num[16];

		if (x < next)
			continue;
		snprintf(num, sizeof(num), "%u", v->left + k * v->block);
		next = x + ix_tui_text(t, 1, x, IX_ROLE_DIM, num) + 2;
	}
}

static void cell(struct ix_tui *t, int y, int x, struct ix_heat_px px)
{
	const char *pending = t->utf8 ? "\u00b7\u00b7" : "..";

	switch (px.kind) {
	case IX_HEAT_VALUE:
		if (px.cursor)
			ix_tui_swatch(t, y, x, px.level, px.bad ? "!]" : "[]", true);
		else
			ix_tui_swatch(t, y, x, px.level, px.bad ? "!!" : NULL, px.bad);
		return;
	case IX_HEAT_FAILED:
		ix_tui_text(t, y, x, px.cursor ? IX_ROLE_CURSOR : IX_ROLE_FAILED, "XX");
		return;
	case IX_HEAT_PENDING:
		ix_tui_text(t, y, x, px.cursor ? IX_ROLE_CURSOR : IX_ROLE_DIM, pending);
		return;
	default:
		ix_tui_text(t, y, x, px.cursor ? IX_ROLE_CURSOR : IX_ROLE_PLAIN, "  ");
	}
}

static void legend(struct ix_tui *t, const struct ix_heat_view *v, int y)
{
	char lo[32], hi[32], buf[64];
	int x = 0;

	if (v->scale_max > 0) {
		ix_heat_fmt(v, v->metric == IX_HEAT_BW ? 0 : ix_heat_level_floor(v, 1), lo,
			    sizeof(lo));
		ix_heat_fmt(v, v->scale_max, hi, sizeof(hi));
	} else {
		snprintf(lo, sizeof(lo), "-");
		snprintf(hi, sizeof(hi), "-");
	}
	snprintf(buf, sizeof(buf), "%s%s ", v->metric == IX_HEAT_LAT ? ">" : "", lo);
	x += ix_tui_text(t, y, x, IX_ROLE_PLAIN, buf);
	for (uint32_t k = 0; k < t->levels; k++, x += 2)
		ix_tui_swatch(t, y, x, k, NULL, false);
	snprintf(buf, sizeof(buf), " %s   ", hi);
	x += ix_tui_text(t, y, x, IX_ROLE_PLAIN, buf);
	x += ix_tui_text(t, y, x, IX_ROLE_DIM, t->utf8 ? "\u00b7\u00b7" : "..");
	x += ix_tui_text(t, y, x, IX_ROLE_PLAIN, " pending  ");
	x += ix_tui_text(t, y, x, IX_ROLE_FAILED, "XX");
	x += ix_tui_text(t, y, x, IX_ROLE_PLAIN, " failed  ");
	x += ix_tui_text(t, y, x, IX_ROLE_WARN, "!!");
	x += ix_tui_text(t, y, x, IX_ROLE_PLAIN, " bad  ");
	x += ix_tui_text(t, y, x, IX_ROLE_SUSPECT, "S");
	ix_tui_text(t, y, x, IX_ROLE_PLAIN, " suspect");
}

static bool same_px(struct ix_heat_px a, struct ix_heat_px b)
{
	return a.kind == b.kind && a.level == b.level && a.bad == b.bad && a.cursor == b.cursor;
}

/* Text on a line that may have held longer text last frame. */
static void line(struct ix_tui *t, int y, enum ix_tui_role role, const char *s)
{
	ix_tui_clear_line(t, y, ix_tui_text(t, y, 0, role, s));
}

void ix_tui_heat_draw(struct ix_tui *t, struct ix_heat_view *v, const struct ix_heat_src *s,
		      bool paused, const char *note)
{
	char buf[512];
	int x0, y0 = IX_HEAT_ROWS_ABOVE;
	uint32_t old_top, old_left, old_block, old_label;
	bool full;

	if (v->fabric) {
		ix_tui_fabric_draw(t, v, s, paused, note);
		return;
	}
	ix_tui_begin(t, false);
	v->levels = t->levels;
	old_top = v->top;
	old_left = v->left;
	old_block = v->block;
	old_label = v->label_w;
	ix_heat_layout(v, s, (uint32_t)(t->w > 0 ? t->w : 1), (uint32_t)(t->h > 0 ? t->h : 1));
	/* Cells are redrawn only where they changed, unless the matrix moved. */
	full = t->resized || !t->heat_last || t->heat_rows != v->rows || t->heat_cols != v->cols ||
	       old_top != v->top || old_left != v->left || old_block != v->block ||
	       old_label != v->label_w;
	if (full) {
		free(t->heat_last);
		t->heat_last = calloc((size_t)v->rows * v->cols + 1, sizeof(*t->heat_last));
		t->heat_rows = v->rows;
		t->heat_cols = v->cols;
	}
	x0 = (int)v->label_w + 2;
	line(t, 0, IX_ROLE_TITLE, ix_heat_status(v, s, paused, buf, sizeof(buf)));
	if (full) {
		ix_tui_clear_line(t, 1, 0);
		column_header(t, v, x0);
	}
	for (uint32_t r = 0; r < v->rows; r++) {
		bool sus = ix_heat_row_suspect(v, s, r);

		ix_heat_row_label(v, s, r, buf, sizeof(buf));
		ix_tui_text(t, y0 + (int)r, 0, sus ? IX_ROLE_SUSPECT : IX_ROLE_PLAIN, buf);
		ix_tui_text(t, y0 + (int)r, (int)v->label_w, sus ? IX_ROLE_SUSPECT : IX_ROLE_PLAIN,
			    sus ? "S" : " ");
		for (uint32_t c = 0; c < v->cols; c++) {
			struct ix_heat_px px = ix_heat_block(v, s, r, c);
			struct ix_heat_px *last =
				t->heat_last ? &t->heat_last[(size_t)r * v->cols + c] : NULL;

			if (!full && last && same_px(px, *last))
				continue;
			cell(t, y0 + (int)r, x0 + (int)c * IX_HEAT_CELL_W, px);
			if (last)
				*last = px;
		}
		/* Blank what a wider matrix left; no erase(), so that curses
		 * compares only what was drawn again. */
		if (full)
			ix_tui_clear_line(t, y0 + (int)r, x0 + (int)v->cols * IX_HEAT_CELL_W);
	}
	for (int y = y0 + (int)v->rows; full && y < t->h - IX_HEAT_ROWS_BELOW; y++)
		ix_tui_clear_line(t, y, 0);
	ix_tui_clear_line(t, t->h - 3, 0);
	legend(t, v, t->h - 3);
	line(t, t->h - 2, IX_ROLE_PLAIN, ix_heat_cursor_text(v, s, buf, sizeof(buf)));
	line(t, t->h - 1, IX_ROLE_DIM,
	     note ? note
		  : "arrows move  b bandwidth  l latency  +/- zoom  f fabric  p pause  q quit");
	ix_tui_end(t);
}
