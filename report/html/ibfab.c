/* An InfiniBand subnet in an HTML report (report/html/html.h), from an
 * "ib_fabric" result: the findings, a figure of its switches in tiers
 * (those with adapters below, the others above) with each cable coloured
 * by what was found on it, and the cables with their figures. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/html/html.h"

#define TIER_GAP  110
#define BOX_W     92
#define BOX_H     26
#define SLOT_W    110
#define MAX_DRAWN 128 /* switches in the figure; larger subnets: the tables */

struct sw {
	json_t *node;
	int tier, slot;
	size_t adapters;
};

/* The finding that names this port ("guid/port"), or NULL. */
static json_t *finding_at(json_t *findings, const char *guid, json_int_t port)
{
	json_t *x;
	size_t i;

	json_array_foreach(findings, i, x)
	{
		const char *g = ix_html_str(x, "node");

		if (g && guid && !strcmp(g, guid) &&
		    json_integer_value(json_object_get(x, "port")) == port)
			return x;
	}
	return NULL;
}

/* What a cable's colour says: the worse finding at either end. */
static const char *cable_class(json_t *findings, const char *ga, json_int_t pa, json_t *peer)
{
	json_t *a = finding_at(findings, ga, pa);
	json_t *b = finding_at(findings, ix_html_str(peer, "guid"),
			       json_integer_value(json_object_get(peer, "port")));
	const char *ka = a ? ix_html_str(a, "kind") : NULL, *kb = b ? ix_html_str(b, "kind") : NULL;

	if (!a && !b)
		return "ok";
	if ((ka && !strcmp(ka, "not_active")) && !kb)
		return "warn";
	if ((kb && !strcmp(kb, "not_active")) && !ka)
		return "warn";
	return "bad";
}

static json_t *node_by_guid(json_t *nodes, const char *guid)
{
	json_t *n;
	size_t i;

	json_array_foreach(nodes, i, n)
	{
		const char *g = ix_html_str(n, "guid");

		if (g && guid && !strcmp(g, guid))
			return n;
	}
	return NULL;
}

static size_t node_index(json_t *nodes, json_t *node)
{
	json_t *n;
	size_t i;

	json_array_foreach(nodes, i, n)
	{
		if (n == node)
			return i;
	}
	return SIZE_MAX;
}

static int sw_index(const struct sw *s, size_t n, json_t *node)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].node == node)
			return (int)i;
	return -1;
}

static void figure(FILE *f, json_t *nodes, json_t *findings)
{
	static const char *const stroke[] = { "#8a8a8a", "#d08a00", "#c0392b" };
	struct sw s[MAX_DRAWN];
	size_t n = 0, i, per[2] = { 0, 0 };
	json_t *nd, *pt;
	int width, height;

	json_array_foreach(nodes, i, nd)
	{
		size_t k, a = 0;

		if (strcmp(ix_html_str(nd, "type") ?: "", "switch") != 0)
			continue;
		if (n == MAX_DRAWN)
			return; /* too many to draw: the tables say it all */
		json_array_foreach(json_object_get(nd, "ports"), k, pt)
		{
			json_t *peer = node_by_guid(nodes, ix_html_str(pt, "peer.guid"));

			a += peer && strcmp(ix_html_str(peer, "type") ?: "", "adapter") == 0;
		}
		s[n] = (struct sw){ .node = nd, .tier = a ? 1 : 0, .adapters = a };
		s[n].slot = (int)per[s[n].tier]++;
		n++;
	}
	if (!n)
		return;
	width = (int)((per[0] > per[1] ? per[0] : per[1]) * SLOT_W) + 20;
	height = 2 * TIER_GAP + 40;
	fprintf(f,
		"<svg class=\"fabric\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"InfiniBand switches and their cables\">\n",
		width, height, width, height);
	/* cables between switches, then each leaf's adapters as one line */
	for (i = 0; i < n; i++) {
		size_t k;
		int x0 = 10 + s[i].slot * SLOT_W + BOX_W / 2, y0 = 20 + s[i].tier * TIER_GAP;

		json_array_foreach(json_object_get(s[i].node, "ports"), k, pt)
		{
			json_t *peer = json_object_get(pt, "peer");
			json_t *pn = node_by_guid(nodes, ix_html_str(peer, "guid"));
			int j = sw_index(s, n, pn);
			const char *cls =
				cable_class(findings, ix_html_str(s[i].node, "guid"),
					    json_integer_value(json_object_get(pt, "port")), peer);
			int c = !strcmp(cls, "ok") ? 0 : !strcmp(cls, "warn") ? 1 : 2;

			if (j >= 0 && (size_t)j > i)
				fprintf(f,
					"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
					"stroke=\"%s\" "
					"stroke-width=\"%d\"><title>",
					x0, y0 + BOX_H / 2, 10 + s[j].slot * SLOT_W + BOX_W / 2,
					20 + s[j].tier * TIER_GAP + BOX_H / 2, stroke[c],
					c ? 3 : 1);
			else if (j < 0 && pn)
				fprintf(f,
					"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
					"stroke=\"%s\" "
					"stroke-width=\"%d\"><title>",
					x0, y0 + BOX_H, x0 + (int)(k % 9) * 8 - 32, y0 + BOX_H + 40,
					stroke[c], c ? 3 : 1);
			else
				continue;
			ix_html_esc(f, ix_html_str(s[i].node, "desc"));
			fprintf(f, "/%lld - ",
				(long long)json_integer_value(json_object_get(pt, "port")));
			ix_html_esc(f, ix_html_str(pn, "desc"));
			fprintf(f, "/%lld: %s %s</title></line>\n",
				(long long)json_integer_value(json_object_get(peer, "port")),
				ix_html_str(pt, "width.active") ?: "?",
				ix_html_str(pt, "speed.active") ?: "?");
		}
	}
	for (i = 0; i < n; i++) {
		int x = 10 + s[i].slot * SLOT_W, y = 20 + s[i].tier * TIER_GAP;

		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" "
			"fill=\"#eef2f7\" "
			"stroke=\"#555\"/><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			"font-size=\"11\">",
			x, y, BOX_W, BOX_H, x + BOX_W / 2, y + 17);
		ix_html_esc(f, ix_html_str(s[i].node, "desc"));
		fputs("</text>", f);
		if (s[i].adapters)
			fprintf(f,
				"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" "
				"fill=\"#555\">%zu adapters</text>",
				x + BOX_W / 2, y + BOX_H + 54, s[i].adapters);
		fputc('\n', f);
	}
	fputs("</svg>\n", f);
}

static void findings_table(FILE *f, json_t *findings)
{
	json_t *x;
	size_t i;

	if (!json_array_size(findings)) {
		fputs("<p>Nothing flagged: every cable at what its ends can train at, every cabled "
		      "port Active, no error counter moved, every port's counters read.</p>\n",
		      f);
		return;
	}
	fputs("<table><thead><tr><th>Finding</th><th>What</th></tr></thead><tbody>\n", f);
	json_array_foreach(findings, i, x)
	{
		const char *k = ix_html_str(x, "kind");

		fprintf(f, "<tr class=\"%s\"><td>",
			k && !strcmp(k, "not_active") ? "warn" : "fail");
		ix_html_esc(f, k);
		fputs("</td><td>", f);
		ix_html_esc(f, ix_html_str(x, "text"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* Each cable once (from the end listed first), with its figures. */
static void cables_table(FILE *f, json_t *nodes, json_t *findings)
{
	json_t *nd, *pt;
	size_t i, k;

	fputs("<table><thead><tr><th>Port</th><th>Cabled to</th><th>Width</th><th>Speed</th>"
	      "<th>Gbit/s</th><th>State</th><th>Errors moved</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(nodes, i, nd)
	{
		json_array_foreach(json_object_get(nd, "ports"), k, pt)
		{
			json_t *peer = json_object_get(pt, "peer"), *moved, *v;
			json_t *pn = node_by_guid(nodes, ix_html_str(peer, "guid"));
			const char *cls =
				cable_class(findings, ix_html_str(nd, "guid"),
					    json_integer_value(json_object_get(pt, "port")), peer);
			const char *name;
			bool any = false;

			if (!pn || node_index(nodes, pn) < i)
				continue; /* listed from its other end */
			fprintf(f, "<tr class=\"%s\"><td>", !strcmp(cls, "ok") ? "" : cls);
			ix_html_esc(f, ix_html_str(nd, "desc"));
			fprintf(f, "/%lld</td><td>",
				(long long)json_integer_value(json_object_get(pt, "port")));
			ix_html_esc(f, ix_html_str(pn, "desc"));
			fprintf(f, "/%lld</td><td>",
				(long long)json_integer_value(json_object_get(peer, "port")));
			ix_html_esc(f, ix_html_str(pt, "width.active"));
			fputs("</td><td>", f);
			ix_html_esc(f, ix_html_str(pt, "speed.active"));
			fputs("</td><td>", f);
			ix_html_numf(f, pt, "rate_gbps", IX_HF_PLAIN);
			fputs("</td><td>", f);
			ix_html_esc(f, ix_html_str(pt, "state"));
			fputs("</td><td>", f);
			moved = json_object_get(pt, "moved");
			json_object_foreach(moved, name, v)
			{
				if (!json_integer_value(v) || strstr(name, "Data") ||
				    strstr(name, "Pkts") || !strcmp(name, "PortXmitWait"))
					continue;
				fprintf(f, "%s%s +%lld", any ? ", " : "", name,
					(long long)json_integer_value(v));
				any = true;
			}
			fputs(any ? "</td></tr>\n" : "-</td></tr>\n", f);
		}
	}
	fputs("</tbody></table>\n", f);
}

/* fabric --mesh: the elements blamed for a mesh's bad pairs. */
static void blame_section(FILE *f, json_t *b)
{
	json_t *x;
	size_t i;

	if (!json_is_object(b))
		return;
	fputs("<h3>The mesh ", f);
	ix_html_esc(f, ix_html_str(b, "mesh"));
	fprintf(f,
		" on the subnet</h3>\n<p>%lld of %zu hosts tied; %lld bad and %lld good pairs "
		"followed through %lld forwarding tables",
		(long long)json_integer_value(json_object_get(b, "tied")),
		json_array_size(json_object_get(b, "hosts")),
		(long long)json_integer_value(json_object_get(json_object_get(b, "pairs"), "bad")),
		(long long)json_integer_value(json_object_get(json_object_get(b, "pairs"), "good")),
		(long long)json_integer_value(json_object_get(b, "switches_routed")));
	fprintf(f, ", %lld not placed.</p>\n",
		(long long)json_integer_value(
			json_object_get(json_object_get(b, "pairs"), "unplaced")));
	if (ix_html_str(b, "caveat")) {
		fputs("<p class=\"warn\">Caveat: ", f);
		ix_html_esc(f, ix_html_str(b, "caveat"));
		fputs("</p>\n", f);
	}
	if (ix_html_str(b, "counters_why")) {
		fputs("<p class=\"muted\">Counters not joined: ", f);
		ix_html_esc(f, ix_html_str(b, "counters_why"));
		fputs("</p>\n", f);
	}
	json_array_foreach(json_object_get(b, "hosts"), i, x) if (ix_html_str(x, "error"))
	{
		fputs("<p class=\"muted\">Not tied: ", f);
		ix_html_esc(f, ix_html_str(x, "host"));
		fputs(": ", f);
		ix_html_esc(f, ix_html_str(x, "error"));
		fputs("</p>\n", f);
	}
	if (!json_array_size(json_object_get(b, "elements"))) {
		fputs("<p>No cable to blame.</p>\n", f);
	} else {
		fputs("<table><thead><tr><th>Blamed</th><th>Element</th><th>Evidence</th></tr>"
		      "</thead><tbody>\n",
		      f);
		json_array_foreach(json_object_get(b, "elements"), i, x)
		{
			fputs("<tr class=\"fail\"><td>", f);
			ix_html_esc(f, ix_html_str(x, "kind"));
			fputs("</td><td>", f);
			ix_html_esc(f, ix_html_str(x, "what"));
			fputs("</td><td>", f);
			ix_html_esc(f, ix_html_str(x, "evidence"));
			fputs("</td></tr>\n", f);
		}
		fputs("</tbody></table>\n", f);
	}
	if (json_integer_value(json_object_get(b, "unexplained")))
		fprintf(f, "<p>%lld bad pair(s) no cable explains.</p>\n",
			(long long)json_integer_value(json_object_get(b, "unexplained")));
}

void ix_html_ibfab(FILE *f, json_t *r)
{
	json_t *nodes = json_object_get(r, "nodes"), *findings = json_object_get(r, "findings");

	fprintf(f, "<p>%lld switches, %lld adapters, %lld cables, read %s.</p>\n",
		(long long)json_integer_value(json_object_get(r, "switches")),
		(long long)json_integer_value(json_object_get(r, "adapters")),
		(long long)json_integer_value(json_object_get(r, "links")),
		json_integer_value(json_object_get(r, "reads")) > 1 ? "twice" : "once");
	if (ix_html_str(r, "between")) {
		fputs("<p class=\"muted\">Counters ", f);
		ix_html_esc(f, ix_html_str(r, "between"));
		fputs("</p>\n", f);
	}
	json_t *marks = json_is_array(findings) ? json_copy(findings) : json_array(), *e, *c;
	size_t i, k;

	findings_table(f, findings);
	blame_section(f, json_object_get(r, "blame"));
	/* the cables blamed for a mesh's bad pairs are drawn as findings are */
	json_array_foreach(json_object_get(json_object_get(r, "blame"), "elements"), i, e)
		json_array_foreach(json_object_get(e, "cables"), k, c) json_array_append_new(
			marks,
			json_pack("{s:O,s:O,s:s}", "node",
				  json_object_get(json_object_get(c, "from"), "guid"), "port",
				  json_object_get(json_object_get(c, "from"), "port"), "kind",
				  "blame"));
	figure(f, nodes, marks);
	cables_table(f, nodes, marks);
	json_decref(marks);
}
