/* The screen of 'ixperf top' (report/tui/top.c). */
#ifndef IX_TUI_TOP_H
#define IX_TUI_TOP_H

#include <stddef.h>

#include "probes/capture/talkers.h"
#include "probes/host/links.h"
#include "report/tui/tui.h"

struct ix_tui_top {
	const char *title;                     /* the status line */
	const char *keys;                      /* the bottom line */
	const struct ix_top_model *model;      /* links and their rates */
	const struct ix_talkers_view *talkers; /* NULL without a capture */
	size_t first;                          /* first link shown (scrolling) */
};

void ix_tui_top_draw(struct ix_tui *t, const struct ix_tui_top *s);

#endif
