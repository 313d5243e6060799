/* Unit tests for report/tui/tui.c and report/tui/heat.c: the colour scheme a
 * terminal gets, the keys of the heatmap and what text from peers and
 * files sends the terminal. Drawing itself is tested on a real terminal
 * under tmux (tests/integration/tui.sh). */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/tui/tui.h"

Test(tui, scheme_from_the_terminal)
{
	cr_assert_eq(ix_tui_pick_scheme(NULL, true, 256), IX_TUI_256);
	cr_assert_eq(ix_tui_pick_scheme(NULL, true, 16777216), IX_TUI_256);
	cr_assert_eq(ix_tui_pick_scheme(NULL, true, 8), IX_TUI_8);
	cr_assert_eq(ix_tui_pick_scheme(NULL, true, 88), IX_TUI_8);
	cr_assert_eq(ix_tui_pick_scheme(NULL, false, 256), IX_TUI_MONO);
	cr_assert_eq(ix_tui_pick_scheme(NULL, true, 2), IX_TUI_MONO);
}

Test(tui, no_color_is_honoured_when_set_and_not_empty)
{
	cr_assert_eq(ix_tui_pick_scheme("1", true, 256), IX_TUI_MONO);
	cr_assert_eq(ix_tui_pick_scheme("anything", true, 8), IX_TUI_MONO);
	cr_assert_eq(ix_tui_pick_scheme("", true, 256), IX_TUI_256);
}

Test(tui, heatmap_keys)
{
	static const struct {
		int key;
		enum ix_heat_action a;
	} keys[] = {
		{ IX_KEY_UP, IX_HEAT_UP },     { 'k', IX_HEAT_UP },
		{ IX_KEY_DOWN, IX_HEAT_DOWN }, { 'j', IX_HEAT_DOWN },
		{ IX_KEY_LEFT, IX_HEAT_LEFT }, { IX_KEY_RIGHT, IX_HEAT_RIGHT },
		{ IX_KEY_PGUP, IX_HEAT_PGUP }, { IX_KEY_PGDOWN, IX_HEAT_PGDOWN },
		{ IX_KEY_HOME, IX_HEAT_HOME }, { '+', IX_HEAT_ZOOM_IN },
		{ '=', IX_HEAT_ZOOM_IN },      { '-', IX_HEAT_ZOOM_OUT },
		{ 'b', IX_HEAT_SHOW_BW },      { 'l', IX_HEAT_SHOW_LAT },
	};
	enum ix_heat_action a;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		cr_assert(ix_tui_heat_action(keys[i].key, &a), "key %d", keys[i].key);
		cr_assert_eq(a, keys[i].a, "key %d", keys[i].key);
	}
	/* q, p and resizes belong to the command, not to the heatmap. */
	cr_assert_not(ix_tui_heat_action('q', &a));
	cr_assert_not(ix_tui_heat_action('p', &a));
	cr_assert_not(ix_tui_heat_action(IX_KEY_RESIZE, &a));
	cr_assert_not(ix_tui_heat_action(IX_KEY_NONE, &a));
}

Test(tui, no_terminal_is_a_clear_error)
{
	struct ix_tui t;
	struct ix_err err = { 0 };
	FILE *tty = fopen("/dev/tty", "r");

	/* make check under CI has no controlling terminal; where one is there
	 * the view would open, so there is nothing to check. */
	if (tty) {
		fclose(tty);
		cr_skip_test("a controlling terminal is present");
	}
	cr_assert_eq(ix_tui_open(&t, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert(strstr(err.msg, "terminal"), "%s", err.msg);
}

/* The bytes curses sends a terminal for one frame with s drawn on it, in a
 * locale; the length, or the test is skipped where curses is not built in
 * or knows no xterm. */
static size_t drawn(const char *locale, const char *s, char *buf, size_t len)
{
	struct ix_tui t;
	struct ix_err err = { 0 };
	FILE *in = fopen("/dev/null", "r"), *out = tmpfile();
	size_t n;

	cr_assert(in && out);
	setenv("LC_ALL", locale, 1);
	setenv("TERM", "xterm", 1);
	setenv("LINES", "4", 1);
	setenv("COLUMNS", "120", 1);
	if (ix_tui_open_stream(&t, in, out, &err) < 0)
		cr_skip_test("%s", err.msg);
	ix_tui_begin(&t, true);
	ix_tui_text(&t, 1, 0, IX_ROLE_PLAIN, s);
	ix_tui_end(&t);
	ix_tui_close(&t);
	fflush(out);
	rewind(out);
	n = fread(buf, 1, len, out);
	fclose(out);
	fclose(in);
	return n;
}

static bool has(const char *buf, size_t n, const char *s)
{
	return memmem(buf, n, s, strlen(s)) != NULL;
}

/* A host name from a mesh state file or an agent, with a clear screen
 * (ESC [ 2J), an OSC title, C1 CSI as U+009B and as a raw byte, a new line
 * and a bell: shown as '?' each, none of them sent. */
#define HOSTILE                     \
	"A\x1b[2JB\x1b]0;PWNED\x07" \
	"C\xc2\x9b"                 \
	"2JD\x9b"                   \
	"2JE\nF caf\xc3\xa9"

Test(tui, text_from_peers_sends_no_control_to_the_terminal)
{
	static char buf[65536];
	size_t n;

	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		cr_skip_test("no C.UTF-8 locale");
	n = drawn("C.UTF-8", HOSTILE, buf, sizeof(buf));
	cr_assert(has(buf, n, "A?[2JB?]0;PWNED?C?2JD?2JE?F caf\xc3\xa9"),
		  "the text, its controls as '?' and its UTF-8 kept");
	cr_assert_not(has(buf, n, "\x1b]0;PWNED"), "no OSC title");
	cr_assert_not(has(buf, n, "\x1b[2JB"), "no clear screen");
	cr_assert_not(has(buf, n, "\xc2\x9b"), "no C1 CSI as UTF-8");
	cr_assert_not(has(buf, n, "\x9b"), "no C1 CSI as a byte");
	cr_assert_not(has(buf, n, "\x07"), "no bell");
}

/* A terminal that is not UTF-8 takes a byte from 0x80 on as a character
 * of its own or as C1: it gets none. */
Test(tui, a_terminal_that_is_not_utf8_gets_ascii)
{
	static char buf[65536];
	size_t n = drawn("C", HOSTILE, buf, sizeof(buf));

	cr_assert(has(buf, n, "A?[2JB?]0;PWNED?C?2JD?2JE?F caf??"));
	for (size_t i = 0; i < n; i++)
		cr_assert_lt((unsigned char)buf[i], 0x80, "byte %zu is 0x%02x", i,
			     (unsigned char)buf[i]);
}
