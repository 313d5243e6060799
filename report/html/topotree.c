/* The server's tree in the HTML report: an inline SVG of the NUMA nodes,
 * host bridges and PCI functions of a run's topology, a row each (as the
 * terminal's 'top --topo' draws them, report/model/topotree.h), each link
 * as trained and coloured by its health; a large tree is folded to fit as
 * ix_tree_fit chooses, a folded node saying what it holds and the worst
 * problem it hides. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html/html.h"
#include "report/json/read.h"
#include "report/model/topotree.h"

#define ROW      18  /* px per row */
#define INDENT   18  /* px per level */
#define LINK_X   10  /* the link column */
#define TREE_X   90  /* where the tree starts */
#define ROWS_MAX 160 /* rows shown before folding */
#define BAD_C    "#e03131"
#define WARN_C   "#f08c00"

static const char *health_colour(enum ix_tree_health h)
{
	return h == IX_TREE_BAD ? BAD_C : h == IX_TREE_WARN ? WARN_C : "#555";
}

static void row(FILE *f, const struct ix_tree *tr, size_t i, int y)
{
	const struct ix_tree_node *n = &tr->v[i];
	int x = TREE_X + n->depth * INDENT;
	enum ix_tree_health h = n->folded ? n->worst : n->health;
	char held[96];

	/* The elbow from its parent's column. */
	if (n->parent >= 0)
		fprintf(f, "<path d=\"M%d,%dV%dH%d\" fill=\"none\" stroke=\"#aaa\"/>",
			x - INDENT + 4, y - ROW + 6, y, x - 2);
	if (n->has_link) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\"%s>", LINK_X, y + 4,
			health_colour(n->health),
			n->health == IX_TREE_BAD ? " font-weight=\"bold\"" : "");
		ix_html_esc(f, n->link);
		if (n->retimers)
			fprintf(f, "<title>%d retimer%s on this link (PCIe Link Status 2)</title>",
				n->retimers, n->retimers > 1 ? "s" : "");
		fputs("</text>", f);
	}
	fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/>", x + 2, y, health_colour(h));
	fprintf(f, "<text x=\"%d\" y=\"%d\"><tspan font-weight=\"bold\">", x + 10, y + 4);
	ix_html_esc(f, n->name);
	fputs("</tspan> ", f);
	ix_html_esc(f, n->what);
	if (ix_tree_summary(tr, i, held, sizeof(held)))
		fprintf(f, " [+%s]", held);
	fputs("</text>", f);
	if (n->issue[0] || (n->folded && n->hides_issues && n->worst_tag[0])) {
		fputs("<title>", f);
		ix_html_esc(f, n->issue[0] ? n->issue : n->worst_tag);
		fputs("</title>", f);
	}
	fputc('\n', f);
}

/* The tag column, right of the longest row. */
static void tags(FILE *f, const struct ix_tree *tr, const size_t *rows, size_t nrows, int x)
{
	for (size_t r = 0; r < nrows; r++) {
		const struct ix_tree_node *n = &tr->v[rows[r]];
		bool hides = n->folded && n->hides_issues && !n->tag[0];
		const char *tag = hides ? n->worst_tag : n->tag;
		enum ix_tree_health h = hides ? n->worst : n->health;

		if (!tag[0])
			continue;
		fprintf(f,
			"<text class=\"tag\" x=\"%d\" y=\"%d\" fill=\"%s\" font-weight=\"bold\">",
			x, (int)(r + 1) * ROW + 4, health_colour(h));
		/* Its own problem in words, or the worst tag below a fold. */
		ix_html_esc(f, n->issue[0] ? n->issue : tag);
		fputs("</text>\n", f);
	}
}

void ix_html_topo_tree(FILE *f, json_t *topo)
{
	struct ix_err err = { 0 };
	struct ix_topo t;
	struct ix_tree tr;
	size_t *rows, nrows, shown;
	int w, text_x = 0;

	if (ix_json_read_topo(topo, &t, &err) < 0) {
		fputs("<p class=\"muted\">tree not drawn: ", f);
		ix_html_esc(f, err.msg);
		fputs("</p>\n", f);
		return;
	}
	if (ix_tree_build(&t, &tr) < 0) {
		ix_topo_free(&t);
		return;
	}
	rows = malloc((tr.n + 1) * sizeof(*rows));
	if (!rows) {
		ix_tree_free(&tr);
		ix_topo_free(&t);
		return;
	}
	ix_tree_fit(&tr, ROWS_MAX);
	nrows = ix_tree_visible(&tr, rows, tr.n);
	shown = nrows < tr.n ? nrows : tr.n;
	for (size_t r = 0; r < shown; r++) {
		const struct ix_tree_node *n = &tr.v[rows[r]];
		int end = TREE_X + n->depth * INDENT + 10 +
			  8 * (int)(strlen(n->name) + strlen(n->what) + (n->folded ? 32 : 1));

		text_x = end > text_x ? end : text_x;
	}
	w = text_x + 420;
	fprintf(f,
		"<h3>Server tree</h3>\n<p class=\"muted\">%zu of %zu nodes shown%s; each link as "
		"trained, red where it is downtrained or has uncorrected AER errors, orange for "
		"corrected errors or a port not up. Its live load: <code>ixperf top "
		"--topo</code>.</p>\n",
		shown, tr.n, shown < tr.n ? " (folded: storage and other leaves first)" : "");
	fprintf(f,
		"<div class=\"heatmap\"><svg class=\"topotree\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"server tree\" "
		"font-family=\"monospace\" font-size=\"12\">\n",
		w, (int)(shown + 1) * ROW + 6, w, (int)(shown + 1) * ROW + 6);
	for (size_t r = 0; r < shown; r++)
		row(f, &tr, rows[r], (int)(r + 1) * ROW);
	tags(f, &tr, rows, shown, text_x + 10);
	fputs("</svg></div>\n", f);
	free(rows);
	ix_tree_free(&tr);
	ix_topo_free(&t);
}
