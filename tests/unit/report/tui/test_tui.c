/* Unit tests for report/tui/tui.c and report/tui/heat.c: the colour scheme a
 * terminal gets and the keys of the heatmap. Drawing itself is tested on
 * a real terminal under tmux (tests/integration/tui.sh). */
#include "config.h"

#include <stdio.h>
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
