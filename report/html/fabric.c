/* A mesh as a fabric in the HTML report: an inline SVG of the switches
 * under the fabric's core, their hosts below, each uplink and host edge
 * coloured by its goodput against the fabric's reference (the matrix's
 * palette) and drawn red where the blame falls; report/model/fabric.c
 * groups, judges and lays it out. The saved mesh is read back into its
 * struct (report/json/read.h) so that the model sees what the text sees. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/html/html.h"
#include "report/json/read.h"
#include "report/model/fabric.h"

#define CORE_H 28 /* the core's box, px */
#define BAND   30 /* between the core and the first band of switches */
#define MARGIN 10
#define SHOW_W 1100 /* px on the page at most */
#define BAD_C  "#e03131"

static void colour(const struct ix_fabric *fab, const struct ix_fab_edge *e, char out[8])
{
	double s = ix_fab_share(fab, e);

	if (s < 0)
		snprintf(out, 8, "#f2f2f2");
	else
		ix_html_palette((int)(s * 255 + 0.5), out);
}

/* An edge's figures as a tooltip line. */
static void tip(FILE *f, const struct ix_fab_edge *e)
{
	char out[32] = "-", in[32] = "-", lat[32] = "-";

	if (e->out_bps > 0)
		ix_html_fmt(IX_HF_RATE, e->out_bps, out, sizeof(out));
	if (e->in_bps > 0)
		ix_html_fmt(IX_HF_RATE, e->in_bps, in, sizeof(in));
	if (e->lat_ns > 0)
		ix_html_fmt(IX_HF_NS, e->lat_ns, lat, sizeof(lat));
	char moved[256];

	fprintf(f, "out %s, in %s, latency %s, %u of %u pairs bad", out, in, lat, e->bad, e->pairs);
	if (ix_ctr_sum_sentence(&e->ctrs, moved, sizeof(moved)) && !strstr(e->why, moved)) {
		fputs("; counters moved: ", f);
		ix_html_esc(f, moved);
	}
	if (e->why[0]) {
		fputs(e->health == IX_FAB_BAD ? " \xe2\x80\x94 BAD: " : " \xe2\x80\x94 ", f);
		ix_html_esc(f, e->why);
	}
}

/* The grid in pixels: a host's square is large on a small fabric (room
 * for a switch's name over two hosts), small on a large one. */
struct grid {
	int cell, gap;
};

static int px_x(const struct grid *g, int cells)
{
	return MARGIN + cells * (g->cell + g->gap);
}

static int px_y(const struct grid *g, int rows)
{
	return MARGIN + CORE_H + BAND + rows * (g->cell + g->gap);
}

static void uplink(FILE *f, const struct ix_fabric *fab, const struct ix_fab_switch *sw,
		   const struct grid *g, int cx)
{
	int x = px_x(g, sw->x), bw = px_x(g, sw->x + sw->cols) - x - g->gap;
	bool bad = sw->uplink.health == IX_FAB_BAD;
	char c[8];

	colour(fab, &sw->uplink, c);
	fputs("<g class=\"uplink\"><title>", f);
	ix_html_esc(f, sw->name);
	fputs(sw->inferred ? " (inferred) uplink: " : " uplink: ", f);
	tip(f, &sw->uplink);
	fprintf(f,
		"</title><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
		"stroke-width=\"%d\"%s/></g>\n",
		x + bw / 2, px_y(g, sw->y), cx, MARGIN + CORE_H, bad ? BAD_C : c, bad ? 5 : 3,
		sw->uplink.pairs ? "" : " stroke-dasharray=\"3 3\"");
}

static void box(FILE *f, const struct ix_fabric *fab, const struct ix_fab_switch *sw,
		const struct grid *g)
{
	int x = px_x(g, sw->x), y = px_y(g, sw->y), bw = px_x(g, sw->x + sw->cols) - x - g->gap;
	bool bad = sw->uplink.health == IX_FAB_BAD;
	double share = ix_fab_share(fab, &sw->uplink);
	char c[8];

	colour(fab, &sw->uplink, c);
	fprintf(f, "<g class=\"sw%s\"><title>", bad ? " bad" : "");
	ix_html_esc(f, sw->name);
	fputs(sw->inferred ? " (inferred) uplink: " : " uplink: ", f);
	tip(f, &sw->uplink);
	fprintf(f,
		"</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\" "
		"stroke=\"%s\" stroke-width=\"%d\"/><text x=\"%d\" y=\"%d\" "
		"text-anchor=\"middle\" textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\"%s>",
		x, y, bw, g->cell, c, bad ? BAD_C : "#888", bad ? 3 : 1, x + bw / 2,
		y + g->cell / 2 + 4,
		bw - 4 < 6 * (int)strlen(sw->name) ? bw - 4 : 6 * (int)strlen(sw->name),
		share >= 0 && share < 0.5 ? " fill=\"#fff\"" : "");
	ix_html_esc(f, sw->name);
	fputs(sw->inferred ? "*" : "", f);
	fputs("</text></g>\n", f);
}

static void host(FILE *f, const struct ix_fabric *fab, const struct ix_fab_host *ho,
		 const struct ix_hostlist *hosts, const struct grid *g)
{
	char c[8], name[IX_HOST_NAME_MAX + 16];
	bool bad = ho->edge.health == IX_FAB_BAD;

	colour(fab, &ho->edge, c);
	ix_host_format(&hosts->v[ho->node], name, sizeof(name));
	fprintf(f,
		"<rect class=\"host%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
		"stroke=\"%s\" stroke-width=\"%d\"><title>",
		bad ? " bad" : "", px_x(g, ho->x), px_y(g, ho->y), g->cell, g->cell, c,
		bad                              ? BAD_C
		: ho->edge.health == IX_FAB_WARN ? "#f08c00"
						 : "#888",
		bad ? 3 : 1);
	ix_html_esc(f, name);
	if (ho->port[0]) {
		fputs(" on ", f);
		ix_html_esc(f, fab->sw[ho->sw].name);
		fputs(" port ", f);
		ix_html_esc(f, ho->port);
	}
	fputs(": ", f);
	tip(f, &ho->edge);
	fputs("</title></rect>\n", f);
}

static void svg(FILE *f, const struct ix_fabric *fab, const struct ix_hostlist *hosts)
{
	struct grid g = { fab->n <= 64 ? 40 : 14, fab->n <= 64 ? 6 : 2 };
	int w = px_x(&g, fab->width) + MARGIN, h = px_y(&g, fab->height) + MARGIN;

	int sw_px, sh_px;

	if (w < 320)
		w = 320;
	/* Shown at most SHOW_W wide; the viewBox scales the rest. */
	sw_px = w < SHOW_W ? w : SHOW_W;
	sh_px = (int)((double)h * sw_px / w + 0.5);
	fprintf(f,
		"<svg class=\"fabric\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"fabric\" font-family=\"sans-serif\" "
		"font-size=\"11\">\n",
		sw_px, sh_px, w, h);
	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"160\" height=\"%d\" rx=\"4\" fill=\"#ddd\" "
		"stroke=\"#888\"/><text x=\"%d\" y=\"%d\" text-anchor=\"middle\">fabric "
		"core</text>\n",
		w / 2 - 80, MARGIN, CORE_H, w / 2, MARGIN + CORE_H / 2 + 4);
	/* Lines first, so that boxes and hosts sit on them. */
	for (uint32_t s = 0; s < fab->nsw; s++)
		uplink(f, fab, &fab->sw[s], &g, w / 2);
	for (uint32_t s = 0; s < fab->nsw; s++) {
		box(f, fab, &fab->sw[s], &g);
		for (uint32_t k = 0; k < fab->sw[s].count; k++)
			host(f, fab, &fab->host[fab->sw[s].first + k], hosts, &g);
	}
	fputs("</svg>\n", f);
}

/* The list beside the picture: what is marked, in words. */
static void marked(FILE *f, const struct ix_fabric *fab, const struct ix_hostlist *hosts)
{
	char name[IX_HOST_NAME_MAX + 16];
	size_t shown = 0;

	fputs("<ul class=\"fabric-marks\">\n", f);
	for (uint32_t s = 0; s < fab->nsw; s++)
		if (fab->sw[s].uplink.health != IX_FAB_OK && shown++ < 200) {
			fputs("<li>", f);
			fputs(fab->sw[s].uplink.health == IX_FAB_BAD ? "<b>BAD</b> " : "WARN ", f);
			ix_html_esc(f, fab->sw[s].name);
			fputs("'s uplink: ", f);
			tip(f, &fab->sw[s].uplink);
			fputs("</li>\n", f);
		}
	for (uint32_t p = 0; p < fab->n; p++)
		if (fab->host[p].edge.health != IX_FAB_OK && shown++ < 200) {
			ix_host_format(&hosts->v[fab->host[p].node], name, sizeof(name));
			fputs("<li>", f);
			fputs(fab->host[p].edge.health == IX_FAB_BAD ? "<b>BAD</b> " : "WARN ", f);
			ix_html_esc(f, name);
			fputs(": ", f);
			tip(f, &fab->host[p].edge);
			fputs("</li>\n", f);
		}
	if (!shown)
		fputs("<li class=\"muted\">no edge stands out</li>\n", f);
	fputs("</ul>\n", f);
}

void ix_html_fabric(FILE *f, json_t *r)
{
	struct ix_mesh_saved m;
	struct ix_err err = { 0 };
	struct ix_fabric fab;
	char ref[32] = "-";

	if (ix_json_read_mesh(r, &m, &err) < 0) {
		fputs("<p class=\"muted\">fabric not drawn: ", f);
		ix_html_esc(f, err.msg);
		fputs("</p>\n", f);
		ix_mesh_saved_free(&m);
		return;
	}
	if (ix_fabric_of_mesh(&m.r, &fab) < 0) {
		ix_mesh_saved_free(&m);
		return;
	}
	if (ix_fabric_worth_drawing(&fab)) {
		if (fab.ref_bps > 0)
			ix_html_fmt(IX_HF_RATE, fab.ref_bps, ref, sizeof(ref));
		fprintf(f, "<h3>Fabric (%u hosts under %u switch%s, from ", fab.n, fab.nsw,
			fab.nsw == 1 ? "" : "es");
		ix_html_esc(f, ix_fabric_source(&fab));
		fputs(")</h3>\n<p class=\"muted\">Colour: each edge's slower median goodput "
		      "against ",
		      f);
		ix_html_esc(f, ref);
		fprintf(f,
			", the median %s; red: where the bad pairs point%s. Hover for "
			"figures.</p>\n",
			fab.ref_within ? "within switches" : "of all pairs",
			fab.inferred ? "; * a group inferred from the mesh" : "");
		fputs("<div class=\"heatmap\">", f);
		svg(f, &fab, &m.hosts);
		fputs("</div>\n", f);
		marked(f, &fab, &m.hosts);
	}
	ix_fabric_free(&fab);
	ix_mesh_saved_free(&m);
}
