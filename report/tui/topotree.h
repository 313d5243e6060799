/* 'ixperf top --topo': the server's tree (report/model/topotree.h) on the
 * terminal, a row a node, its link coloured by what it carries and by its
 * health. */
#ifndef IX_TUI_TOPOTREE_H
#define IX_TUI_TOPOTREE_H

#include <stddef.h>

#include "report/model/topotree.h"
#include "report/tui/tui.h"

struct ix_tui_tree {
	const char *title;
	const char *keys;
	const struct ix_tree *tree;
	size_t first;  /* the first visible node on the screen */
	size_t cursor; /* the visible node under the cursor */
};

/* Rows the tree has on a screen of height h (title, header, keys aside). */
int ix_tui_tree_rows(int h);
void ix_tui_tree_draw(struct ix_tui *t, const struct ix_tui_tree *s);

#endif
