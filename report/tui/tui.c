#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_NCURSES
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#endif

#include "probes/core/text.h"
#include "report/tui/tui.h"

enum ix_tui_scheme ix_tui_pick_scheme(const char *no_color, bool has_colors, int colors)
{
	if ((no_color && *no_color) || !has_colors || colors < 8)
		return IX_TUI_MONO;
	return colors >= 256 ? IX_TUI_256 : IX_TUI_8;
}

#ifdef HAVE_NCURSES

/* Worst to best: red, orange, yellow, green. */
static const short ramp256[] = { 196, 202, 208, 214, 220, 226, 190, 154, 118, 82, 46 };
static const short ramp8[] = { COLOR_RED, COLOR_YELLOW, COLOR_GREEN };
#define NRAMP256    (sizeof(ramp256) / sizeof(ramp256[0]))
#define NRAMP8      (sizeof(ramp8) / sizeof(ramp8[0]))
#define PAIR_HEAT   16 /* colour pairs from here are heat levels */
#define MONO_LEVELS 5

static chtype role_attr(const struct ix_tui *t, enum ix_tui_role r)
{
	static const chtype mono[IX_ROLE_COUNT] = {
		[IX_ROLE_TITLE] = A_BOLD,       [IX_ROLE_DIM] = A_DIM,
		[IX_ROLE_FAILED] = A_BOLD,      [IX_ROLE_WARN] = A_BOLD,
		[IX_ROLE_SUSPECT] = A_STANDOUT, [IX_ROLE_CURSOR] = A_REVERSE,
	};

	if (t->scheme == IX_TUI_MONO || r == IX_ROLE_PLAIN || r == IX_ROLE_CURSOR)
		return mono[r];
	return COLOR_PAIR(r) | (r == IX_ROLE_TITLE || r == IX_ROLE_FAILED ? A_BOLD : 0);
}

static void init_colours(struct ix_tui *t)
{
	short bg = -1;

	t->scheme = IX_TUI_MONO;
	if (ix_tui_pick_scheme(getenv("NO_COLOR"), has_colors(), 8) != IX_TUI_MONO) {
		start_color();
		if (use_default_colors() == ERR)
			bg = COLOR_BLACK;
		t->scheme = ix_tui_pick_scheme(getenv("NO_COLOR"), true, COLORS);
	}
	if (t->scheme == IX_TUI_MONO) {
		t->levels = MONO_LEVELS;
		return;
	}
	init_pair(IX_ROLE_TITLE, COLOR_CYAN, bg);
	init_pair(IX_ROLE_DIM, COLOR_BLUE, bg);
	init_pair(IX_ROLE_FAILED, COLOR_RED, bg);
	init_pair(IX_ROLE_WARN, COLOR_YELLOW, bg);
	init_pair(IX_ROLE_GOOD, COLOR_GREEN, bg);
	init_pair(IX_ROLE_SUSPECT, COLOR_WHITE, COLOR_RED);
	if (t->scheme == IX_TUI_256) {
		t->levels = NRAMP256;
		for (size_t k = 0; k < NRAMP256; k++)
			init_pair((short)(PAIR_HEAT + k), COLOR_BLACK, ramp256[k]);
	} else {
		t->levels = NRAMP8;
		for (size_t k = 0; k < NRAMP8; k++)
			init_pair((short)(PAIR_HEAT + k), COLOR_BLACK, ramp8[k]);
	}
}

int ix_tui_open(struct ix_tui *t, struct ix_err *err)
{
	FILE *tty = fopen("/dev/tty", "r+");

	if (!tty) {
		memset(t, 0, sizeof(*t));
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "the live view needs a terminal (/dev/tty cannot be opened)");
	}
	if (ix_tui_open_stream(t, tty, tty, err) < 0) {
		fclose(tty);
		return -1;
	}
	t->tty = tty;
	return 0;
}

int ix_tui_open_stream(struct ix_tui *t, FILE *in, FILE *out, struct ix_err *err)
{
	SCREEN *scr;
	const char *cs;

	memset(t, 0, sizeof(*t));
	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	t->utf8 = cs && strcmp(cs, "UTF-8") == 0;
	scr = newterm(NULL, out, in);
	if (!scr)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "terminal '%s' is not usable by curses",
			       getenv("TERM") ? getenv("TERM") : "(TERM unset)");
	t->screen = scr;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	init_colours(t);
	getmaxyx(stdscr, t->h, t->w);
	return 0;
}

void ix_tui_close(struct ix_tui *t)
{
	free(t->heat_last);
	t->heat_last = NULL;
	if (!t->screen)
		return;
	endwin();
	delscreen(t->screen);
	if (t->tty)
		fclose(t->tty);
	t->screen = NULL;
	t->tty = NULL;
}

int ix_tui_key(struct ix_tui *t, int timeout_ms)
{
	int c;

	(void)t;
	timeout(timeout_ms);
	c = getch();
	switch (c) {
	case ERR:
		return IX_KEY_NONE;
	case KEY_UP:
		return IX_KEY_UP;
	case KEY_DOWN:
		return IX_KEY_DOWN;
	case KEY_LEFT:
		return IX_KEY_LEFT;
	case KEY_RIGHT:
		return IX_KEY_RIGHT;
	case KEY_PPAGE:
		return IX_KEY_PGUP;
	case KEY_NPAGE:
		return IX_KEY_PGDOWN;
	case KEY_HOME:
		return IX_KEY_HOME;
	case KEY_RESIZE:
		return IX_KEY_RESIZE;
	default:
		return c >= 0 && c < 0x100 ? c : IX_KEY_NONE;
	}
}

void ix_tui_begin(struct ix_tui *t, bool clear)
{
	int h, w;

	getmaxyx(stdscr, h, w);
	t->resized = h != t->h || w != t->w;
	t->h = h;
	t->w = w;
	if (clear || t->resized)
		erase();
}

void ix_tui_clear_line(struct ix_tui *t, int y, int x)
{
	if (y < 0 || y >= t->h || x < 0 || x >= t->w)
		return;
	move(y, x);
	clrtoeol();
}

void ix_tui_end(struct ix_tui *t)
{
	(void)t;
	wnoutrefresh(stdscr);
	doupdate();
}

/* UTF-8 decoded here rather than through the locale's mbrtowc(), which
 * costs more than the drawing itself; what is not valid UTF-8 goes
 * through curses as it is. */
static void put_utf8(int y, int x, const char *s, int len, chtype a)
{
	cchar_t cells[256];
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	int n = 0;

	while (p < end && n < 256) {
		wchar_t wc[2] = { 0, 0 };
		int extra = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : -1;

		if (extra < 0 || p + extra >= end + (extra == 0))
			break;
		wc[0] = extra == 0 ? *p : extra == 1 ? *p & 0x1f : *p & 0x0f;
		for (int k = 1; k <= extra; k++) {
			if ((p[k] & 0xc0) != 0x80)
				extra = -1;
			wc[0] = (wc[0] << 6) | (p[k] & 0x3f);
		}
		if (extra < 0)
			break;
		setcchar(&cells[n++], wc, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
		p += extra + 1;
	}
	if (p == end) {
		mvadd_wchnstr(y, x, cells, n);
		return;
	}
	attrset(a);
	mvaddnstr(y, x, s, len);
	attrset(A_NORMAL);
}

/* len bytes of s at (y, x) in attribute a. ASCII goes in as cells, which
 * skips the multibyte conversion: a 256 x 256 heatmap is 65536 of them. */
static void put(int y, int x, const char *s, int len, chtype a)
{
	chtype cells[256];
	int i;

	for (i = 0; i < len && i < 256 && !((unsigned char)s[i] & 0x80); i++)
		cells[i] = (unsigned char)s[i] | a;
	if (i == len) {
		mvaddchnstr(y, x, cells, len);
		return;
	}
	put_utf8(y, x, s, len, a);
}

int ix_tui_text(struct ix_tui *t, int y, int x, enum ix_tui_role role, const char *s)
{
	char safe[2048];
	int n = 0;
	char *p = safe;

	if (y < 0 || y >= t->h || x < 0 || x >= t->w)
		return 0;
	/* Host names, labels and errors come from peers and files, and
	 * curses does not stop every control (text that is not UTF-8 goes
	 * through addnstr to the terminal as it is): none, C1 included, is
	 * drawn. A terminal that is not UTF-8 takes a byte from 0x80 on as a
	 * character of its own or as C1, so it gets ASCII alone. */
	ix_text_safe(s, safe, sizeof(safe));
	/* Columns are characters: the views write ASCII and a few
	 * single-width UTF-8 symbols. Clip at the right edge, never wrap. */
	for (; *p; p++) {
		if (!t->utf8 && ((unsigned char)*p & 0x80))
			*p = '?';
		else if (((unsigned char)*p & 0xc0) == 0x80)
			continue;
		if (n == t->w - x)
			break;
		n++;
	}
	put(y, x, safe, (int)(p - safe), role_attr(t, role));
	return n;
}

void ix_tui_swatch(struct ix_tui *t, int y, int x, uint32_t k, const char *glyph, bool bold)
{
	static const char *const mono_ramp[MONO_LEVELS] = { "__", "--", "==", "++", "##" };
	chtype a = bold ? A_BOLD : 0;

	if (y < 0 || y >= t->h || x + 1 >= t->w)
		return;
	if (k >= t->levels)
		k = t->levels - 1;
	if (t->scheme == IX_TUI_MONO)
		put(y, x, glyph ? glyph : mono_ramp[k], 2, a);
	else
		put(y, x, glyph ? glyph : "  ", 2, COLOR_PAIR(PAIR_HEAT + (short)k) | a);
}

#else /* !HAVE_NCURSES */

int ix_tui_open_stream(struct ix_tui *t, FILE *in, FILE *out, struct ix_err *err)
{
	(void)in;
	(void)out;
	memset(t, 0, sizeof(*t));
	return ix_fail(err, IX_EXIT_UNAVAILABLE,
		       "live views are not available: ixperf was built without ncurses");
}

int ix_tui_open(struct ix_tui *t, struct ix_err *err)
{
	return ix_tui_open_stream(t, NULL, NULL, err);
}

void ix_tui_close(struct ix_tui *t)
{
	(void)t;
}

int ix_tui_key(struct ix_tui *t, int timeout_ms)
{
	(void)t;
	(void)timeout_ms;
	return IX_KEY_NONE;
}

void ix_tui_begin(struct ix_tui *t, bool clear)
{
	(void)t;
	(void)clear;
}

void ix_tui_clear_line(struct ix_tui *t, int y, int x)
{
	(void)t;
	(void)y;
	(void)x;
}

void ix_tui_end(struct ix_tui *t)
{
	(void)t;
}

int ix_tui_text(struct ix_tui *t, int y, int x, enum ix_tui_role role, const char *s)
{
	(void)t;
	(void)y;
	(void)x;
	(void)role;
	(void)s;
	return 0;
}

void ix_tui_swatch(struct ix_tui *t, int y, int x, uint32_t k, const char *glyph, bool bold)
{
	(void)t;
	(void)y;
	(void)x;
	(void)k;
	(void)glyph;
	(void)bold;
}

#endif
