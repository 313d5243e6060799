/* The server's tree on the terminal. Each row: the tree's lines, a fold
 * mark ([+] folded, [-] open), the node, what it is, then its link as
 * trained, what it carries now against it (a bar and a share), and its
 * own problem, or on a folded node the worst one hidden below it and what
 * the fold holds ("2 GPU, 1 NIC"). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/fmt/units.h"
#include "report/tui/topotree.h"

#define TREE_TOP 2  /* title and header */
#define LINK_W   13 /* "Gen5 x16 +2R " */
#define LOAD_W   14 /* an 8-cell bar and a share, or a rate */

/* The health column: a tag on narrow screens, the sentence on wide ones. */
static int health_w(int w)
{
	return w >= 140 ? 48 : 22;
}

static int right_w(int w)
{
	return LINK_W + LOAD_W + health_w(w);
}

int ix_tui_tree_rows(int h)
{
	return h - TREE_TOP - 1 > 0 ? h - TREE_TOP - 1 : 0;
}

static enum ix_tui_role health_role(enum ix_tree_health h)
{
	return h == IX_TREE_BAD ? IX_ROLE_FAILED : h == IX_TREE_WARN ? IX_ROLE_WARN : IX_ROLE_PLAIN;
}

/* The lines left of node i, a column for each level below the top: an
 * ancestor's column has a bar while it has siblings still to come; the
 * last column is i's own corner. */
static void branches(const struct ix_tree *tr, size_t i, bool utf8, char *buf, size_t len)
{
	const char *bar = utf8 ? "\u2502 " : "| ", *none = "  ";
	const char *mid = utf8 ? "\u251c\u2500" : "|-", *end = utf8 ? "\u2514\u2500" : "`-";
	const char *parts[64];
	int d = tr->v[i].depth, k = d - 2;
	size_t off = 0;

	buf[0] = '\0';
	if (d <= 0 || d > 64)
		return;
	parts[d - 1] = ix_tree_last_seen(tr, i) ? end : mid;
	for (int p = tr->v[i].parent; p >= 0 && k >= 0; p = tr->v[p].parent, k--)
		parts[k] = ix_tree_last_seen(tr, (size_t)p) ? none : bar;
	for (int c = 0; c < d && off < len; c++)
		off += (size_t)snprintf(buf + off, len - off, "%s", parts[c]);
}

static enum ix_tui_role load_role(double share)
{
	return share >= 0.8 ? IX_ROLE_FAILED : share >= 0.5 ? IX_ROLE_WARN : IX_ROLE_GOOD;
}

/* The health column's words: its own problem (in words where they fit),
 * else the worst one a fold hides; then what the fold holds. */
static enum ix_tree_health health_text(const struct ix_tree *tr, size_t i, int hw, char *s,
				       size_t len)
{
	const struct ix_tree_node *n = &tr->v[i];
	enum ix_tree_health h = n->health;
	char held[96];
	size_t off = 0;

	if (n->health != IX_TREE_OK)
		off = (size_t)snprintf(s, len, "%s",
				       (int)strlen(n->issue) <= hw ? n->issue : n->tag);
	else if (n->folded && n->hides_issues && n->worst != IX_TREE_OK) {
		off = (size_t)snprintf(s, len, "%s below", n->worst_tag);
		h = n->worst;
	} else
		s[0] = '\0';
	if (ix_tree_summary(tr, i, held, sizeof(held)) && off < len) {
		/* A long issue gives way to its tag, so the summary shows. */
		if (off && (int)(off + 2 + strlen(held)) > hw && n->health != IX_TREE_OK)
			off = (size_t)snprintf(s, len, "%s", n->tag);
		snprintf(s + off, len - off, "%s%s", off ? "  " : "", held);
	}
	return h;
}

/* The right side: link, load, health. */
static void link_cols(struct ix_tui *t, int y, int x, const struct ix_tree *tr, size_t i)
{
	static const struct ix_unit_choice bits = { .kind = IX_UNITS_BITS };
	const struct ix_tree_node *n = &tr->v[i];
	char s[160], rate[32];
	int hw = health_w(t->w);
	enum ix_tree_health h;

	if (n->has_link) {
		snprintf(s, sizeof(s), "%s ", n->link);
		ix_tui_text(t, y, x, n->health == IX_TREE_BAD ? IX_ROLE_FAILED : IX_ROLE_PLAIN, s);
	}
	x += LINK_W;
	if (n->load_known && n->has_link && n->link_bps > 0) {
		int fill = (int)(n->load * 8 + 0.5);
		char bar[8 * 3 + 1];
		size_t o = 0;

		for (int k = 0; k < 8; k++)
			o += (size_t)snprintf(bar + o, sizeof(bar) - o, "%s",
					      k < fill ? (t->utf8 ? "\u2588" : "#")
						       : (t->utf8 ? "\u00b7" : "."));
		ix_tui_text(t, y, x, load_role(n->load), bar);
		snprintf(s, sizeof(s), "%4.0f%%", 100 * n->load);
		ix_tui_text(t, y, x + 8, load_role(n->load), s);
	} else if (n->load_known) {
		ix_fmt_rate(n->load_bps, &bits, rate, sizeof(rate));
		ix_tui_text(t, y, x, IX_ROLE_DIM, rate);
	}
	x += LOAD_W;
	h = health_text(tr, i, hw, s, sizeof(s));
	/* Words longer than the column take the room of a load not known. */
	if (!n->load_known && (int)strlen(s) > hw)
		x -= (int)strlen(s) - hw < LOAD_W ? (int)strlen(s) - hw : LOAD_W;
	if (s[0])
		ix_tui_text(t, y, x, h == IX_TREE_OK ? IX_ROLE_DIM : health_role(h), s);
}

static void row(struct ix_tui *t, int y, const struct ix_tree *tr, size_t i, bool sel)
{
	const struct ix_tree_node *n = &tr->v[i];
	char pre[256], line[320];
	int x, room = t->w - right_w(t->w) - 1;

	branches(tr, i, t->utf8, pre, sizeof(pre));
	snprintf(line, sizeof(line), "%s%s", pre, n->nchildren ? (n->folded ? "[+]" : "[-]") : " ");
	x = ix_tui_text(t, y, 0, IX_ROLE_DIM, line);
	snprintf(line, sizeof(line), "%s", n->name);
	x += ix_tui_text(t, y, x,
			 sel ? IX_ROLE_CURSOR : health_role(n->folded ? n->worst : n->health),
			 line);
	/* What it is, and its PCI ids where there is room. */
	if (room > x + 1) {
		if (n->ids[0] && (int)(strlen(n->what) + strlen(n->ids)) + 2 < room - x)
			snprintf(line, sizeof(line), " %s %s", n->what, n->ids);
		else
			snprintf(line, sizeof(line), " %s", n->what);
		snprintf(pre, sizeof(pre), "%-*.*s", room - x, room - x, line);
		ix_tui_text(t, y, x, n->kind == IX_TREE_PCI ? IX_ROLE_PLAIN : IX_ROLE_DIM, pre);
		x = room;
	}
	if (x + 1 < t->w)
		link_cols(t, y, x + 1, tr, i);
}

void ix_tui_tree_draw(struct ix_tui *t, const struct ix_tui_tree *s)
{
	static size_t rows[IX_TREE_ROWS_MAX];
	size_t nvis = ix_tree_visible(s->tree, rows, IX_TREE_ROWS_MAX);
	int y = TREE_TOP, h = ix_tui_tree_rows(t->h);
	char line[160];

	ix_tui_begin(t, true);
	ix_tui_text(t, 0, 0, IX_ROLE_TITLE, s->title);
	snprintf(line, sizeof(line), "%-*s %-*s%-*s%s",
		 t->w - right_w(t->w) - 1 > 4 ? t->w - right_w(t->w) - 1 : 4, "NODE", LINK_W,
		 "LINK", LOAD_W, "LOAD", "HEALTH");
	ix_tui_text(t, 1, 0, IX_ROLE_DIM, line);
	for (size_t r = s->first; r < nvis && r < IX_TREE_ROWS_MAX && y < TREE_TOP + h; r++, y++)
		row(t, y, s->tree, rows[r], r == s->cursor);
	if (!s->tree->n)
		ix_tui_text(t, y, 0, IX_ROLE_DIM, "no PCI functions to show");
	ix_tui_text(t, t->h - 1, 0, IX_ROLE_DIM, s->keys);
	ix_tui_end(t);
}
