/* The HTML section of a "mem" result: the nodes with their HMAT classes,
 * read bandwidth and idle latency as initiator x memory-node heatmaps,
 * every pair with the advertised figures beside, and the loaded-latency
 * curves as one chart. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/html/html.h"

#define MAX_IDS 64

/* The distinct initiators or targets of the cells, in order of first use. */
static size_t ids(json_t *cells, const char *key, int *out)
{
	size_t n = 0, i;
	json_t *c;

	json_array_foreach(cells, i, c)
	{
		int id = (int)json_integer_value(json_object_get(c, key));
		size_t k;

		for (k = 0; k < n && out[k] != id; k++)
			;
		if (k == n && n < MAX_IDS)
			out[n++] = id;
	}
	return n;
}

static json_t *cell_of(json_t *cells, int in, int tg)
{
	size_t i;
	json_t *c;

	json_array_foreach(cells, i, c)
	{
		if (json_integer_value(json_object_get(c, "initiator")) == in &&
		    json_integer_value(json_object_get(c, "target")) == tg)
			return c;
	}
	return NULL;
}

/* One heatmap: rows initiators, columns targets; low latency and high
 * bandwidth light. */
static void heatmap(FILE *f, json_t *cells, const char *title, const char *path, bool lat)
{
	int in[MAX_IDS], tg[MAX_IDS];
	size_t ni = ids(cells, "initiator", in), nt = ids(cells, "target", tg), i;
	double lo = INFINITY, hi = -INFINITY, v;
	json_t *c;

	json_array_foreach(cells, i, c)
	{
		if (ix_html_num(c, path, &v)) {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	fprintf(f, "<h4>%s</h4>\n<table class=\"gpu\"><thead><tr><th>CPUs of \\ memory of</th>",
		title);
	for (size_t b = 0; b < nt; b++)
		fprintf(f, "<th>node %d</th>", tg[b]);
	fputs("</tr></thead><tbody>\n", f);
	for (size_t a = 0; a < ni; a++) {
		fprintf(f, "<tr><th>node %d</th>", in[a]);
		for (size_t b = 0; b < nt; b++) {
			char col[8] = "#f2f2f2";
			int k;

			c = cell_of(cells, in[a], tg[b]);
			if (!c || !ix_html_num(c, path, &v)) {
				fputs("<td class=\"n\">-</td>", f);
				continue;
			}
			k = hi > lo ? (int)lround((v - lo) / (hi - lo) * 255) : 255;
			k = lat ? 255 - k : k;
			ix_html_palette(k, col);
			fprintf(f, "<td class=\"n\" style=\"background:%s;color:%s\">", col,
				k < 128 ? "#fff" : "#000");
			if (lat)
				fprintf(f, "%.1f ns", v);
			else
				fprintf(f, "%.2f GB/s", v / 1e9);
			if (json_is_true(ix_html_get(c, "advertised.slow")))
				fputs("<br><b>SLOW</b>", f);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void nodes(FILE *f, json_t *r)
{
	size_t i;
	json_t *n;

	fputs("<table><thead><tr><th>node</th><th>CPUs</th><th>memory</th>"
	      "<th>HMAT class 0 (any initiator)</th><th>HMAT class 1 (CPUs)</th></tr></thead>"
	      "<tbody>\n",
	      f);
	json_array_foreach(json_object_get(r, "nodes"), i, n)
	{
		fprintf(f, "<tr><td>%d</td><td>",
			(int)json_integer_value(json_object_get(n, "node")));
		ix_html_esc(f, ix_html_str(n, "cpus") ? ix_html_str(n, "cpus") : "none");
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, n, "memory_bytes", IX_HF_SIZE);
		fputs("</td>", f);
		for (size_t k = 0; k < 2; k++) {
			json_t *h = json_array_get(json_object_get(n, "hmat"), k), *x;
			size_t j;
			double v;

			fputs("<td>", f);
			if (!json_is_object(h)) {
				fputs("-</td>", f);
				continue;
			}
			fputs("read ", f);
			ix_html_numf(f, h, "read_latency_ns", IX_HF_NS);
			if (ix_html_num(h, "read_bandwidth_Bps", &v))
				fprintf(f, ", %.1f GB/s", v / 1e9);
			fputs("; from node", f);
			json_array_foreach(json_object_get(h, "initiators"), j, x)
			{
				fprintf(f, "%s%d", j ? "," : " ", (int)json_integer_value(x));
			}
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* A cell of the figure at path: GB/s from bytes/s, or a ratio; "-" when
 * there is none. */
static void figure(FILE *f, json_t *c, const char *path, bool is_ratio)
{
	double v;

	fputs("<td class=\"n\">", f);
	if (!ix_html_num(c, path, &v))
		fputs("-", f);
	else if (is_ratio)
		fprintf(f, "x%.2f", v);
	else
		fprintf(f, "%.2f", v / 1e9);
	fputs("</td>", f);
}

static void pairs(FILE *f, json_t *r)
{
	size_t i;
	json_t *c;

	fputs("<table><thead><tr><th>CPUs of</th><th>memory of</th><th>threads</th>"
	      "<th>read GB/s</th><th>write</th><th>nt write</th><th>copy</th><th>latency</th>"
	      "<th>HMAT class</th><th>read / adv.</th><th>write / adv.</th>"
	      "<th>latency / adv.</th><th>note</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(json_object_get(r, "cells"), i, c)
	{
		json_t *adv = json_object_get(c, "advertised");

		fprintf(f, "<tr%s><td>node %d</td><td>node %d</td><td class=\"n\">%d</td>",
			json_is_true(json_object_get(adv, "slow")) ? " class=\"fail\"" : "",
			(int)json_integer_value(json_object_get(c, "initiator")),
			(int)json_integer_value(json_object_get(c, "target")),
			(int)json_integer_value(json_object_get(c, "threads")));
		figure(f, c, "bandwidth_Bps.read", false);
		figure(f, c, "bandwidth_Bps.write", false);
		figure(f, c, "bandwidth_Bps.nt_write", false);
		figure(f, c, "bandwidth_Bps.copy", false);
		fputs("<td class=\"n\">", f);
		ix_html_numf(f, c, "latency_ns", IX_HF_NS);
		fputs("</td><td class=\"n\">", f);
		if (json_is_object(adv))
			fprintf(f, "%d", (int)json_integer_value(json_object_get(adv, "class")));
		else
			fputs("none", f);
		fputs("</td>", f);
		figure(f, c, "advertised.read_ratio", true);
		figure(f, c, "advertised.write_ratio", true);
		figure(f, c, "advertised.latency_ratio", true);
		fputs("<td>", f);
		if (json_is_true(json_object_get(adv, "slow")))
			fputs("<b>SLOW</b> ", f);
		if (ix_html_str(c, "note"))
			ix_html_esc(f, ix_html_str(c, "note"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* Every pair's loaded-latency points as one line each. */
static void curves(FILE *f, json_t *r)
{
	struct ix_hseries s[MAX_IDS];
	double xs[MAX_IDS][16], ys[MAX_IDS][16];
	char names[MAX_IDS][40];
	size_t ns = 0, i;
	json_t *c;
	struct ix_hchart ch = { .title = "Loaded latency",
				.xlabel = "what the other threads read (GB/s)",
				.ylabel = "latency",
				.xf = IX_HF_PLAIN,
				.yf = IX_HF_NS };

	json_array_foreach(json_object_get(r, "cells"), i, c)
	{
		json_t *pts = json_object_get(c, "loaded"), *p;
		size_t k, n = 0;

		if (json_array_size(pts) < 2 || ns == MAX_IDS)
			continue;
		json_array_foreach(pts, k, p)
		{
			if (n < 16) {
				xs[ns][n] = json_number_value(json_object_get(p, "load_Bps")) / 1e9;
				ys[ns][n++] = json_number_value(json_object_get(p, "latency_ns"));
			}
		}
		snprintf(names[ns], sizeof(names[ns]), "node %d -> node %d",
			 (int)json_integer_value(json_object_get(c, "initiator")),
			 (int)json_integer_value(json_object_get(c, "target")));
		s[ns] = (struct ix_hseries){ names[ns], xs[ns], ys[ns], n };
		ns++;
	}
	if (ns)
		ix_html_chart(f, &ch, s, ns);
}

void ix_html_mem(FILE *f, json_t *r)
{
	json_t *cells = json_object_get(r, "cells");

	fputs("<h3>NUMA nodes</h3>\n", f);
	nodes(f, r);
	heatmap(f, cells, "Read bandwidth", "bandwidth_Bps.read", false);
	heatmap(f, cells, "Idle latency", "latency_ns", true);
	fputs("<h4>Every pair, with what the firmware advertises (ACPI HMAT)</h4>\n", f);
	pairs(f, r);
	curves(f, r);
}
