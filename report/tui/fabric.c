/* The mesh as a fabric on the terminal: report/model/fabric.c groups the
 * hosts under their switches and judges every edge; this file lists the
 * switches with their uplinks and the hosts below, a swatch per edge for
 * its goodput against the fabric's reference, and scrolls. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fmt/units.h"
#include "report/model/fabric.h"
#include "report/tui/tui.h"

#define ROWS_ABOVE 2 /* status, the fabric's line */
#define ROWS_BELOW 1 /* keys */

static enum ix_tui_role role_of(enum ix_fab_health h)
{
	return h == IX_FAB_BAD ? IX_ROLE_FAILED : h == IX_FAB_WARN ? IX_ROLE_WARN : IX_ROLE_PLAIN;
}

/* One edge: its swatch (the worse direction's share of the reference),
 * figures and, when it is not well, the blame. */
static void edge(struct ix_tui *t, int y, int x, const struct ix_fabric *f,
		 const struct ix_fab_edge *e)
{
	struct ix_unit_choice u = { .kind = IX_UNITS_BITS };
	char out[24] = "-", in[24] = "-", buf[256];
	double share = ix_fab_share(f, e);

	if (share >= 0)
		ix_tui_swatch(t, y, x, (uint32_t)(share * (t->levels - 1) + 0.5),
			      e->health == IX_FAB_BAD ? "!!" : "  ", e->health == IX_FAB_BAD);
	else
		ix_tui_text(t, y, x, IX_ROLE_DIM, "..");
	if (e->out_bps > 0)
		ix_fmt_rate(e->out_bps, &u, out, sizeof(out));
	if (e->in_bps > 0)
		ix_fmt_rate(e->in_bps, &u, in, sizeof(in));
	snprintf(buf, sizeof(buf), " out %-12s in %-12s %u/%u bad ", out, in, e->bad, e->pairs);
	x += 2 + ix_tui_text(t, y, x + 2, IX_ROLE_PLAIN, buf);
	if (e->health != IX_FAB_OK)
		x += ix_tui_text(t, y, x, role_of(e->health),
				 e->health == IX_FAB_BAD ? "BAD: " : "WARN: ");
	if (!e->why[0] && e->explained) {
		snprintf(buf, sizeof(buf), "(%u more across a bad uplink)", e->explained);
		x += ix_tui_text(t, y, x, IX_ROLE_DIM, buf);
	}
	ix_tui_clear_line(t, y, x + ix_tui_text(t, y, x, role_of(e->health), e->why));
}

static void row(struct ix_tui *t, int y, const struct ix_fabric *f, const struct ix_heat_src *s,
		uint32_t k)
{
	char buf[160];
	int x;

	if (k < f->nsw + f->n) {
		/* Switch s's row, then its hosts: find which k is. */
		for (uint32_t w = 0, at = 0; w < f->nsw; w++) {
			const struct ix_fab_switch *sw = &f->sw[w];

			if (k == at) {
				snprintf(buf, sizeof(buf), "%-22.22s%s %3u host%s", sw->name,
					 sw->inferred ? "*" : " ", sw->count,
					 sw->count == 1 ? " " : "s");
				x = ix_tui_text(t, y, 0, role_of(sw->uplink.health), buf);
				x += ix_tui_text(t, y, x, IX_ROLE_DIM, "  uplink ");
				edge(t, y, x, f, &sw->uplink);
				return;
			}
			if (k <= at + sw->count) {
				const struct ix_fab_host *h = &f->host[sw->first + (k - at - 1)];

				snprintf(buf, sizeof(buf), " %s %-18.18s %-8.8s",
					 k == at + sw->count ? "`-" : "|-",
					 s->names[h->node] ? s->names[h->node] : "?",
					 h->port[0] ? h->port : "-");
				x = ix_tui_text(t, y, 0, role_of(h->edge.health), buf);
				edge(t, y, x + 2, f, &h->edge);
				return;
			}
			at += sw->count + 1;
		}
	}
	ix_tui_clear_line(t, y, 0);
}

void ix_tui_fabric_draw(struct ix_tui *t, struct ix_heat_view *v, const struct ix_heat_src *s,
			bool paused, const char *note)
{
	struct ix_fab_input in = {
		.n = s->n, .cells = &s->cells, .nbrs = s->nbrs, .bw_fraction = s->rules.bw_fraction
	};
	struct ix_unit_choice u = { .kind = IX_UNITS_BITS };
	char buf[512], ref[24] = "-";
	struct ix_fabric f;
	uint32_t nrows, worst_n;
	enum ix_fab_health worst;

	ix_tui_begin(t, false);
	v->levels = t->levels;
	/* The matrix drawn next starts from a blank of its own. */
	free(t->heat_last);
	t->heat_last = NULL;
	ix_tui_clear_line(t, 0,
			  ix_tui_text(t, 0, 0, IX_ROLE_TITLE,
				      ix_heat_status(v, s, paused, buf, sizeof(buf))));
	if (ix_fabric_build(&in, &f) < 0) {
		ix_tui_clear_line(t, 1, ix_tui_text(t, 1, 0, IX_ROLE_FAILED, "out of memory"));
		ix_tui_end(t);
		return;
	}
	worst = ix_fabric_worst(&f, &worst_n);
	if (f.ref_bps > 0)
		ix_fmt_rate(f.ref_bps, &u, ref, sizeof(ref));
	snprintf(buf, sizeof(buf), "Fabric: %u switch%s (%s%s); colour: goodput against %s%s",
		 f.nsw, f.nsw == 1 ? "" : "es", ix_fabric_source(&f),
		 f.inferred ? ", * inferred" : "", ref,
		 worst == IX_FAB_OK    ? ""
		 : worst == IX_FAB_BAD ? "; BAD edges"
				       : "; WARN edges");
	ix_tui_clear_line(t, 1, ix_tui_text(t, 1, 0, role_of(worst), buf));
	nrows = f.nsw + f.n;
	v->fab_rows =
		t->h > ROWS_ABOVE + ROWS_BELOW ? (uint32_t)(t->h - ROWS_ABOVE - ROWS_BELOW) : 1;
	if (v->fab_top + v->fab_rows > nrows)
		v->fab_top = nrows > v->fab_rows ? nrows - v->fab_rows : 0;
	for (uint32_t r = 0; r < v->fab_rows; r++)
		row(t, ROWS_ABOVE + (int)r, &f, s, v->fab_top + r);
	if (note)
		snprintf(buf, sizeof(buf), "%s", note);
	else
		snprintf(buf, sizeof(buf),
			 "rows %u-%u of %u  arrows scroll  f matrix  p pause  q quit",
			 nrows ? v->fab_top + 1 : 0,
			 v->fab_top + v->fab_rows < nrows ? v->fab_top + v->fab_rows : nrows,
			 nrows);
	ix_tui_clear_line(t, t->h - 1, ix_tui_text(t, t->h - 1, 0, IX_ROLE_DIM, buf));
	ix_fabric_free(&f);
	ix_tui_end(t);
}
