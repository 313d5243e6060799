#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/html/html.h"

#define SVG_MAX_N  32     /* up to this many hosts: SVG cells with tooltips */
#define MESH_MAX_N 2048   /* beyond this the matrix is not drawn (page size) */
#define LIST_MAX   200    /* bad pairs and failures listed as text */
#define BAD_MAX    100000 /* bad pairs marked on a canvas */

/* Viridis: perceptually even, its lightness rises steadily so it reads in grey. */
static const unsigned char stops[9][3] = {
	{ 0x44, 0x01, 0x54 }, { 0x47, 0x2d, 0x7b }, { 0x3b, 0x52, 0x8b },
	{ 0x2c, 0x72, 0x8e }, { 0x21, 0x91, 0x8c }, { 0x28, 0xae, 0x80 },
	{ 0x5e, 0xc9, 0x62 }, { 0xad, 0xdc, 0x30 }, { 0xfd, 0xe7, 0x25 },
};

void ix_html_palette(int i, char out[8])
{
	double t = (i < 0 ? 0 : i > 255 ? 255 : i) / 255.0 * 8, u;
	int k = (int)t < 8 ? (int)t : 7;
	unsigned char c[3];

	u = t - k;
	for (int j = 0; j < 3; j++)
		c[j] = (unsigned char)lround(stops[k][j] + (stops[k + 1][j] - stops[k][j]) * u);
	snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* One figure of the matrix, quantized to a byte per cell:
 * 0 not measured, 1 failed, 2..255 the value between lo and hi. */
struct hmap {
	const char *key, *title;
	enum ix_hfmt fmt;
	bool rev; /* lower is better: the light end of the scale is low */
	double lo, hi;
	size_t measured;
	unsigned char *q;
};

struct hmesh {
	json_t *r, *matrix, *state;
	size_t n, nfailed;
	const char **names;
	bool *sus;
	size_t *bad, nbad;
	int id;
};

struct hname {
	const char *name;
	size_t i;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hname *)a)->name, ((const struct hname *)b)->name);
}

static bool failed_cell(const struct hmesh *m, size_t a, size_t b)
{
	const char *s = json_string_value(json_array_get(json_array_get(m->state, a), b));

	return s && !strcmp(s, "failed");
}

static int palette_index(const struct hmap *h, int q)
{
	int i = (int)lround((q - 2) * 255.0 / 253.0);

	return h->rev ? 255 - i : i;
}

static bool map_build(const struct hmesh *m, struct hmap *h)
{
	json_t *rows = json_object_get(m->matrix, h->key);
	size_t n = m->n;
	double v;

	h->lo = INFINITY;
	h->hi = -INFINITY;
	h->q = calloc(n * n, 1);
	if (!h->q)
		return false;
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++)
			if (ix_html_num(json_array_get(json_array_get(rows, a), b), "", &v)) {
				h->lo = fmin(h->lo, v);
				h->hi = fmax(h->hi, v);
				h->measured++;
			}
	/* Anchor the scale on the bad-pair rules, so that noise between good
	 * pairs stays pale and a pair past the limit is at the dark end. */
	if (h->measured && !h->rev) {
		double f = 0.7, med = h->hi;

		ix_html_num(m->r, "params.rules.bw_fraction", &f);
		ix_html_num(m->r, "median_bw_bps", &med);
		h->lo = fmin(h->lo, fmax(f * med, 0));
	} else if (h->measured) {
		double f = 2, min = h->lo;

		ix_html_num(m->r, "params.rules.lat_factor", &f);
		ix_html_num(m->r, "min_lat_ns", &min);
		h->hi = fmax(h->hi, f * min);
	}
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++) {
			unsigned char *q = &h->q[a * n + b];

			if (ix_html_num(json_array_get(json_array_get(rows, a), b), "", &v))
				*q = (unsigned char)(h->hi > h->lo
							     ? 2 + lround((v - h->lo) /
									  (h->hi - h->lo) * 253)
							     : 128);
			else if (failed_cell(m, a, b))
				*q = 1;
		}
	return true;
}

static void cell_colour(const struct hmap *h, int q, char out[8])
{
	if (q == 0)
		snprintf(out, 8, "#f2f2f2");
	else if (q == 1)
		snprintf(out, 8, "#000000");
	else
		ix_html_palette(palette_index(h, q), out);
}

static bool is_bad(const struct hmesh *m, size_t k)
{
	for (size_t i = 0; i < m->nbad; i++)
		if (m->bad[i] == k)
			return true;
	return false;
}

/* A host label of at most 28 bytes, cut on a UTF-8 character boundary. */
static void short_name(FILE *f, const char *s)
{
	char buf[32];
	size_t l = strlen(s);

	if (l <= 28) {
		ix_html_esc(f, s);
		return;
	}
	l = 27;
	while (l > 0 && ((unsigned char)s[l] & 0xC0) == 0x80)
		l--;
	memcpy(buf, s, l);
	buf[l] = '\0';
	ix_html_esc(f, buf);
	fputs("&#8230;", f);
}

static void svg_map(FILE *f, const struct hmesh *m, const struct hmap *h)
{
	size_t n = m->n, cell = n <= 8 ? 34 : n <= 16 ? 26 : 18, lw = 230, th = 22;
	size_t w = lw + n * cell + 10, ht = th + n * cell + 10;
	json_t *rows = json_object_get(m->matrix, h->key);
	char col[8], buf[64];

	fprintf(f,
		"<svg class=\"heatmap\" viewBox=\"0 0 %zu %zu\" style=\"max-width:%zupx\" "
		"role=\"img\" aria-label=\"",
		w, ht, w);
	ix_html_esc(f, h->title);
	fputs(" heatmap\">\n", f);
	for (size_t i = 0; i < n; i++) {
		const char *weight = m->sus[i] ? " font-weight=\"bold\" fill=\"#a04000\"" : "";

		if (m->sus[i])
			fprintf(f,
				"<rect x=\"0\" y=\"%zu\" width=\"%zu\" height=\"%zu\" "
				"fill=\"#fde8d7\"/><rect x=\"%zu\" y=\"0\" width=\"%zu\" "
				"height=\"%zu\" fill=\"#fde8d7\"/>",
				th + i * cell, lw - 2, cell, lw + i * cell, cell, th);
		fprintf(f, "<text x=\"%zu\" y=\"%zu\" text-anchor=\"middle\"%s>%zu</text>",
			lw + i * cell + cell / 2, th - 7, weight, i + 1);
		fprintf(f, "<text x=\"%zu\" y=\"%zu\" text-anchor=\"end\"%s><title>", lw - 6,
			th + i * cell + cell / 2 + 4, weight);
		ix_html_esc(f, m->names[i]);
		fprintf(f, "%s</title>%s%zu. ", m->sus[i] ? " (suspect)" : "",
			m->sus[i] ? "&#9650; " : "", i + 1);
		short_name(f, m->names[i]);
		fputs("</text>\n", f);
	}
	for (size_t a = 0; a < n; a++) {
		for (size_t b = 0; b < n; b++) {
			int q = h->q[a * n + b];
			size_t x = lw + b * cell, y = th + a * cell;
			double v;

			cell_colour(h, q, col);
			fprintf(f,
				"<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%zu\" "
				"fill=\"%s\"><title>",
				x, y, cell - 1, cell - 1, col);
			ix_html_esc(f, m->names[a]);
			fputs(" &#8594; ", f);
			ix_html_esc(f, m->names[b]);
			fputs(": ", f);
			if (ix_html_num(json_array_get(json_array_get(rows, a), b), "", &v)) {
				ix_html_fmt(h->fmt, v, buf, sizeof(buf));
				ix_html_esc(f, buf);
			} else {
				fputs(q == 1 ? "failed" : "not measured", f);
			}
			fputs(is_bad(m, a * n + b) ? " (bad pair)</title></rect>"
						   : "</title></rect>",
			      f);
			if (q == 1)
				fprintf(f,
					"<path stroke=\"#fff\" stroke-width=\"1.5\" "
					"d=\"M%zu,%zuL%zu,%zuM%zu,%zuL%zu,%zu\"/>",
					x + 3, y + 3, x + cell - 4, y + cell - 4, x + cell - 4,
					y + 3, x + 3, y + cell - 4);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < m->nbad; i++)
		fprintf(f,
			"<rect class=\"bad\" x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%zu\" "
			"fill=\"none\" stroke=\"#e03131\" stroke-width=\"3\"/>",
			lw + (m->bad[i] % n) * cell + 1, th + (m->bad[i] / n) * cell + 1, cell - 3,
			cell - 3);
	fputs("</svg>\n", f);
}

static void put_b64(FILE *f, const unsigned char *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		fputc(tab[(v >> 18) & 63], f);
		fputc(tab[(v >> 12) & 63], f);
		fputc(i + 1 < n ? tab[(v >> 6) & 63] : '=', f);
		fputc(i + 2 < n ? tab[v & 63] : '=', f);
	}
}

/* The data of the canvas heatmaps of one mesh, as JSON safe inside <script>. */
static void canvas_data(FILE *f, const struct hmesh *m, struct hmap *maps, size_t nmaps)
{
	fprintf(f, "<script type=\"application/json\" id=\"mesh%d\">{\"hosts\":[", m->id);
	for (size_t i = 0; i < m->n; i++) {
		if (i)
			fputc(',', f);
		ix_html_js_str(f, m->names[i]);
	}
	fputs("],\"suspect\":[", f);
	for (size_t i = 0, k = 0; i < m->n; i++)
		if (m->sus[i])
			fprintf(f, "%s%zu", k++ ? "," : "", i);
	fputs("],\"bad\":[", f);
	for (size_t i = 0; i < m->nbad && i < BAD_MAX; i++)
		fprintf(f, "%s%zu", i ? "," : "", m->bad[i]);
	fputs("],\"maps\":[", f);
	for (size_t k = 0; k < nmaps; k++) {
		fprintf(f, "%s{\"fmt\":\"%s\",\"rev\":%s,\"lo\":%.17g,\"hi\":%.17g,\"q\":\"",
			k ? "," : "", maps[k].fmt == IX_HF_NS ? "ns" : "rate",
			maps[k].rev ? "true" : "false", isfinite(maps[k].lo) ? maps[k].lo : 0,
			isfinite(maps[k].hi) ? maps[k].hi : 0);
		put_b64(f, maps[k].q, m->n * m->n);
		fputs("\"}", f);
	}
	fputs("]}</script>\n", f);
}

static void legend(FILE *f, const struct hmesh *m, const struct hmap *h, int k)
{
	char col[8], buf[64];

	fprintf(f,
		"<svg class=\"legend\" viewBox=\"0 0 660 52\" style=\"max-width:660px\" "
		"role=\"img\" aria-label=\"colour scale\"><defs><linearGradient "
		"id=\"g%d_%d\">",
		m->id, k);
	for (int i = 0; i <= 16; i++) {
		ix_html_palette(h->rev ? 255 - i * 255 / 16 : i * 255 / 16, col);
		fprintf(f, "<stop offset=\"%d%%\" stop-color=\"%s\"/>", i * 100 / 16, col);
	}
	fprintf(f,
		"</linearGradient></defs><rect x=\"10\" y=\"6\" width=\"260\" height=\"16\" "
		"fill=\"url(#g%d_%d)\" stroke=\"#888\"/>",
		m->id, k);
	for (int i = 0; i <= 2; i++) {
		double v = isfinite(h->lo) ? h->lo + (h->hi - h->lo) * i / 2 : NAN;

		ix_html_fmt(h->fmt, v, buf, sizeof(buf));
		fprintf(f, "<text x=\"%d\" y=\"36\" text-anchor=\"%s\">%s</text>", 10 + i * 130,
			i == 0   ? "start"
			: i == 1 ? "middle"
				 : "end",
			buf);
	}
	fputs("<text x=\"10\" y=\"49\">", f);
	ix_html_esc(f, h->title);
	fputs(h->rev ? " (light = low = good)</text>" : " (light = high = good)</text>", f);
	fputs("<rect x=\"290\" y=\"6\" width=\"14\" height=\"14\" fill=\"#f2f2f2\" "
	      "stroke=\"#888\"/><text x=\"308\" y=\"17\">not measured</text>"
	      "<rect x=\"395\" y=\"6\" width=\"14\" height=\"14\" fill=\"#000\"/>"
	      "<path stroke=\"#fff\" d=\"M397,8l10,10M407,8l-10,10\"/>"
	      "<text x=\"413\" y=\"17\">failed</text>"
	      "<rect x=\"460\" y=\"6\" width=\"14\" height=\"14\" fill=\"none\" "
	      "stroke=\"#e03131\" stroke-width=\"3\"/><text x=\"478\" y=\"17\">bad pair</text>"
	      "<rect x=\"540\" y=\"6\" width=\"14\" height=\"14\" fill=\"#e8590c\"/>"
	      "<text x=\"558\" y=\"17\">&#9650; suspect node</text>"
	      "<text x=\"290\" y=\"40\">row = from (sender), column = to</text></svg>\n",
	      f);
}

static void pair_table(FILE *f, json_t *list, const char *title, bool failures)
{
	size_t n = json_array_size(list);

	fprintf(f, "<h3>%s (%zu)</h3>\n", title, n);
	if (!n) {
		fputs("<p class=\"muted\">none</p>\n", f);
		return;
	}
	fputs(failures ? "<table><thead><tr><th>From</th><th>To</th><th>Error</th></tr>"
		       : "<table><thead><tr><th>From</th><th>To</th><th>Bandwidth</th>"
			 "<th>Latency p50</th><th>Retested</th><th>Why</th></tr>",
	      f);
	fputs("</thead><tbody>\n", f);
	for (size_t i = 0; i < n && i < LIST_MAX; i++) {
		json_t *e = json_array_get(list, i);

		fputs("<tr><td>", f);
		ix_html_esc(f, ix_html_str(e, "from"));
		fputs("</td><td>", f);
		ix_html_esc(f, ix_html_str(e, "to"));
		if (failures) {
			fputs("</td><td>", f);
			ix_html_esc(f, ix_html_str(e, "error"));
		} else {
			fputs("</td><td class=\"n\">", f);
			ix_html_numf(f, e, "bw_bps", IX_HF_RATE);
			fputs("</td><td class=\"n\">", f);
			ix_html_numf(f, e, "lat_p50_ns", IX_HF_NS);
			fputs("</td><td>", f);
			fputs(json_is_true(json_object_get(e, "retested")) ? "yes" : "no", f);
			fputs("</td><td>", f);
			ix_html_esc(f, ix_html_str(e, "reason"));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (n > LIST_MAX)
		fprintf(f, "<p class=\"muted\">&#8230; and %zu more</p>\n", n - LIST_MAX);
}

/* What moved at a node, class by class ("discards 426, pause_rx 12"). */
static void node_counters(FILE *f, json_t *c)
{
	const char *k;
	json_t *v;
	bool any = false;

	if (!json_is_object(c)) {
		fputs("-", f);
		return;
	}
	json_object_foreach(c, k, v)
	{
		if (!json_is_integer(v))
			continue;
		fputs(any ? ", " : "", f);
		ix_html_esc(f, k);
		fprintf(f, " %lld", (long long)json_integer_value(v));
		any = true;
	}
	if (!any)
		fputs("none moved", f);
}

/* A node's ceiling: its rate and what it is (link or PCIe, "trained
 * low" when the PCIe link trained below what both ends can). */
static void node_ceiling(FILE *f, json_t *link)
{
	const char *b = ix_html_str(link, "bottleneck");
	json_t *pcie = json_object_get(link, "pcie");

	if (!json_is_number(json_object_get(link, "ceiling_bps"))) {
		fputs("-", f);
		return;
	}
	ix_html_numf(f, link, "ceiling_bps", IX_HF_RATE);
	if (b && strcmp(b, "pcie") == 0 && json_is_object(pcie)) {
		fprintf(f, " (PCIe Gen%lld x%lld%s)",
			(long long)json_integer_value(json_object_get(pcie, "gen")),
			(long long)json_integer_value(json_object_get(pcie, "width")),
			json_is_true(json_object_get(pcie, "downtrained")) ? ", trained low" : "");
	} else {
		fputs(" (link)", f);
	}
}

/* Hosts whose figures sit at a ceiling below their line rate. */
static void bottleneck_list(FILE *f, json_t *list)
{
	if (!json_array_size(list))
		return;
	fputs("<h3>Bottlenecks</h3>\n<ul class=\"bottlenecks\">\n", f);
	for (size_t i = 0; i < json_array_size(list) && i < LIST_MAX; i++) {
		fputs("<li>", f);
		ix_html_esc(f, json_string_value(json_array_get(list, i)) ?: "");
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

static void node_table(FILE *f, json_t *nodes)
{
	size_t n = json_array_size(nodes);

	fprintf(f,
		"%s<table class=\"nodes\"><thead><tr><th>Host</th><th>Bandwidth out</th>"
		"<th>Bandwidth in</th><th>Latency p50</th><th>Pairs measured</th>"
		"<th>Bad pairs</th><th>Suspect</th><th>Ceiling</th><th>%% of ceiling</th>"
		"<th>Fabric counters</th><th>Error</th></tr>"
		"</thead><tbody>\n",
		n > SVG_MAX_N ? "<details><summary>per-node table</summary>" : "");
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(nodes, i);
		bool sus = json_is_true(json_object_get(e, "suspect"));

		fputs(sus ? "<tr class=\"sus\"><td>" : "<tr><td>", f);
		ix_html_esc(f, ix_html_str(e, "host"));
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, e, "bw_out_bps", IX_HF_RATE);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, e, "bw_in_bps", IX_HF_RATE);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, e, "lat_p50_ns", IX_HF_NS);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, e, "measured", IX_HF_PLAIN);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, e, "bad", IX_HF_PLAIN);
		fputs(sus ? "</td><td>&#9650; yes</td><td class=\"n\">"
			  : "</td><td>no</td><td class=\"n\">",
		      f);
		node_ceiling(f, json_object_get(e, "link"));
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, e, "percent_of_ceiling", IX_HF_PLAIN);
		fputs("</td><td>", f);
		node_counters(f, json_object_get(e, "counters"));
		fputs("</td><td>", f);
		ix_html_esc(f, ix_html_str(e, "error"));
		fputs("</td></tr>\n", f);
	}
	if (!n)
		fputs("<tr><td colspan=\"11\">-</td></tr>\n", f);
	fputs(n > SVG_MAX_N ? "</tbody></table></details>\n" : "</tbody></table>\n", f);
}

/* Host names, suspects and bad pairs as indices into the matrix. */
static bool mesh_index(struct hmesh *m)
{
	json_t *hosts = json_object_get(m->r, "hosts"), *sus = json_object_get(m->r, "suspects");
	json_t *bad = json_object_get(m->r, "bad_pairs");
	struct hname *idx, key, *a, *b;
	size_t n = m->n;

	m->names = calloc(n, sizeof(*m->names));
	m->sus = calloc(n, sizeof(*m->sus));
	m->bad = calloc(json_array_size(bad) + 1, sizeof(*m->bad));
	idx = calloc(n, sizeof(*idx));
	if (!m->names || !m->sus || !m->bad || !idx) {
		free(idx);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(hosts, i));

		m->names[i] = s ? s : "?";
		idx[i] = (struct hname){ m->names[i], i };
	}
	qsort(idx, n, sizeof(*idx), name_cmp);
	for (size_t i = 0; i < json_array_size(sus); i++) {
		key.name = json_string_value(json_array_get(sus, i));
		a = key.name ? bsearch(&key, idx, n, sizeof(*idx), name_cmp) : NULL;
		if (a)
			m->sus[a->i] = true;
	}
	for (size_t i = 0; i < json_array_size(bad); i++) {
		key.name = ix_html_str(json_array_get(bad, i), "from");
		a = key.name ? bsearch(&key, idx, n, sizeof(*idx), name_cmp) : NULL;
		key.name = ix_html_str(json_array_get(bad, i), "to");
		b = key.name ? bsearch(&key, idx, n, sizeof(*idx), name_cmp) : NULL;
		if (a && b)
			m->bad[m->nbad++] = a->i * n + b->i;
	}
	for (size_t a2 = 0; a2 < n; a2++)
		for (size_t b2 = 0; b2 < n; b2++)
			m->nfailed += failed_cell(m, a2, b2);
	free(idx);
	return true;
}

static void facts(FILE *f, json_t *r)
{
	static const struct {
		const char *k, *path;
		enum ix_hfmt fmt;
	} rows[] = {
		{ "pairs planned", "pairs.planned", IX_HF_PLAIN },
		{ "pairs measured", "pairs.measured", IX_HF_PLAIN },
		{ "pairs failed", "pairs.failed", IX_HF_PLAIN },
		{ "pairs retested", "pairs.retested", IX_HF_PLAIN },
		{ "rounds", "rounds", IX_HF_PLAIN },
		{ "wall time", "wall_s", IX_HF_SECONDS },
		{ "median pair bandwidth", "median_bw_bps", IX_HF_RATE },
		{ "min pair latency", "min_lat_ns", IX_HF_NS },
		{ "pair latency baseline", "lat_baseline_ns", IX_HF_NS },
		{ "baseline percentile of pairs", "params.rules.lat_percentile", IX_HF_PLAIN },
		{ "bad if bandwidth below (x median)", "params.rules.bw_fraction", IX_HF_PLAIN },
		{ "bad if latency above (x baseline)", "params.rules.lat_factor", IX_HF_PLAIN },
	};

	fprintf(f, "<dl class=\"facts\"><dt>hosts</dt><dd>%zu</dd>",
		json_array_size(json_object_get(r, "hosts")));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		fprintf(f, "<dt>%s</dt><dd>", rows[i].k);
		ix_html_numf(f, r, rows[i].path, rows[i].fmt);
		fputs("</dd>", f);
	}
	fputs("</dl>\n", f);
	if (ix_html_str(r, "error")) {
		fputs("<p class=\"errbox\">", f);
		ix_html_esc(f, ix_html_str(r, "error"));
		fputs("</p>\n", f);
	}
}

bool ix_html_mesh(FILE *f, json_t *r, int id)
{
	struct hmap maps[2] = {
		{ "bw_bps", "pair bandwidth", IX_HF_RATE, false, 0, 0, 0, NULL },
		{ "lat_p50_ns", "pair latency p50", IX_HF_NS, true, 0, 0, 0, NULL },
	};
	struct hmesh m = { r, NULL, NULL, 0, 0, NULL, NULL, NULL, 0, id };
	size_t nmaps = 0;
	bool canvas = false;

	m.matrix = json_object_get(r, "matrix");
	m.state = json_object_get(m.matrix, "state");
	m.n = json_array_size(json_object_get(r, "hosts"));
	facts(f, r);
	if (m.n > MESH_MAX_N) {
		fprintf(f, "<p class=\"muted\">%zu hosts: too many to draw the matrix</p>\n", m.n);
	} else if (m.n && mesh_index(&m)) {
		for (size_t k = 0; k < 2; k++) {
			if (!map_build(&m, &maps[k]))
				break;
			if (maps[k].measured || (k == 0 && m.nfailed))
				maps[nmaps++] = maps[k];
			else
				free(maps[k].q);
		}
		/* With failures only, the bandwidth map still shows where. */
		canvas = nmaps && m.n > SVG_MAX_N;
		if (canvas)
			canvas_data(f, &m, maps, nmaps);
		for (size_t k = 0; k < nmaps; k++) {
			fputs("<h3>Heatmap: ", f);
			ix_html_esc(f, maps[k].title);
			fprintf(f, " (%zu hosts, %zu pairs measured)</h3>\n", m.n,
				maps[k].measured);
			if (canvas) {
				size_t cell = 720 / m.n ? (720 / m.n > 20 ? 20 : 720 / m.n) : 1;

				fprintf(f,
					"<div class=\"heatmap\"><canvas class=\"hm\" "
					"id=\"hm%d_%zu\" "
					"width=\"%zu\" height=\"%zu\" data-mesh=\"mesh%d\" "
					"data-map=\"%zu\" data-cell=\"%zu\"></canvas>"
					"<div class=\"hmtip\" id=\"hm%d_%zu_tip\"></div></div>\n"
					"<noscript><p>This heatmap is drawn with JavaScript; the "
					"tables below list the same findings.</p></noscript>\n",
					id, k, m.n * cell + 8, m.n * cell + 8, id, k, cell, id, k);
			} else {
				svg_map(f, &m, &maps[k]);
			}
			legend(f, &m, &maps[k], (int)k);
		}
		if (!nmaps)
			fputs("<p class=\"muted\">no pair was measured</p>\n", f);
		for (size_t k = 0; k < nmaps; k++)
			free(maps[k].q);
	}
	ix_html_fabric(f, r);
	fputs("<h3>Suspect nodes</h3>\n<p>", f);
	for (size_t i = 0; i < json_array_size(json_object_get(r, "suspects")); i++) {
		fputs(i ? ", <b>&#9650; " : "<b>&#9650; ", f);
		ix_html_esc(f,
			    json_string_value(json_array_get(json_object_get(r, "suspects"), i)));
		fputs("</b>", f);
	}
	if (!json_array_size(json_object_get(r, "suspects")))
		fputs("<span class=\"muted\">none</span>", f);
	fputs("</p>\n", f);
	pair_table(f, json_object_get(r, "bad_pairs"), "Bad pairs", false);
	pair_table(f, json_object_get(r, "failures"), "Failed pairs", true);
	fputs("<h3>Per node</h3>\n", f);
	node_table(f, json_object_get(r, "nodes"));
	bottleneck_list(f, json_object_get(r, "bottlenecks"));
	free(m.names);
	free(m.sus);
	free(m.bad);
	return canvas;
}

/* Draws every canvas.hm from its JSON block; hover shows the pair and value. */
static const char script[] =
	"var L=P.map(function(h){return[parseInt(h.slice(1,3),16),"
	"parseInt(h.slice(3,5),16),parseInt(h.slice(5,7),16)]});\n"
	"function dg(a){a=Math.abs(a);return a<9.995?2:a<99.95?1:0}\n"
	"function fr(v){var u=['','K','M','G','T','P'],i=0;while(Math.abs(v)>=999.5&&i<5){v/=1e3;"
	"i++}return v.toFixed(dg(v))+' '+u[i]+'bit/s'}\n"
	"function fn(v){var a=Math.abs(v);return a<999.5?v.toFixed(0)+' ns':a<999.5e3?"
	"(v/1e3).toFixed(dg(v/1e3))+' us':a<999.5e6?(v/1e6).toFixed(dg(v/1e6))+' ms':"
	"(v/1e9).toFixed(3)+' s'}\n"
	"document.querySelectorAll('canvas.hm').forEach(function(c){\n"
	"var d=JSON.parse(document.getElementById(c.dataset.mesh).textContent),"
	"m=d.maps[+c.dataset.map],n=d.hosts.length,z=+c.dataset.cell,M=8,S=n*z,q=atob(m.q),"
	"x=c.getContext('2d'),img=x.createImageData(S,S),p=img.data,bad=new Set(d.bad),"
	"sus=new Set(d.suspect),fl=[],t=document.getElementById(c.id+'_tip');\n"
	"for(var a=0;a<n;a++)for(var b=0;b<n;b++){var k=q.charCodeAt(a*n+b),"
	"i=Math.round((k-2)*255/253),col=k==0?[242,242,242]:k==1?[0,0,0]:L[m.rev?255-i:i];"
	"if(k==1)fl.push([a,b]);for(var r=0;r<z;r++)for(var s=0;s<z;s++){"
	"var o=((a*z+r)*S+b*z+s)*4;p[o]=col[0];p[o+1]=col[1];p[o+2]=col[2];p[o+3]=255}}\n"
	"x.fillStyle='#fff';x.fillRect(0,0,c.width,c.height);x.putImageData(img,M,M);\n"
	"if(z>=6){x.strokeStyle='#fff';x.lineWidth=1;fl.forEach(function(e){var X=M+e[1]*z,"
	"Y=M+e[0]*z;x.beginPath();x.moveTo(X+2,Y+2);x.lineTo(X+z-2,Y+z-2);x.moveTo(X+z-2,Y+2);"
	"x.lineTo(X+2,Y+z-2);x.stroke()})}\n"
	"x.fillStyle='#e8590c';sus.forEach(function(i){var w=Math.max(z,3),o=M+i*z-(w-z)/2;"
	"x.fillRect(0,o,M-2,w);x.fillRect(o,0,w,M-2)});\n"
	"x.strokeStyle='#e03131';x.lineWidth=2;bad.forEach(function(k){var a=Math.floor(k/n),"
	"b=k%n;if(z>=6)x.strokeRect(M+b*z+1,M+a*z+1,z-2,z-2);else{x.beginPath();"
	"x.arc(M+b*z+z/2,M+a*z+z/2,4,0,7);x.stroke()}});\n"
	"t.textContent='hover over a cell for the pair and its value';\n"
	"c.addEventListener('mousemove',function(e){var R=c.getBoundingClientRect(),"
	"f=c.width/R.width,b=Math.floor(((e.clientX-R.left)*f-M)/z),"
	"a=Math.floor(((e.clientY-R.top)*f-M)/z);if(a<0||b<0||a>=n||b>=n){t.textContent='';"
	"return}var k=q.charCodeAt(a*n+b),v=k==0?'not measured':k==1?'failed':'\\u2248 '+"
	"(m.fmt=='ns'?fn:fr)(m.lo+(k-2)*(m.hi-m.lo)/253);t.textContent=d.hosts[a]+"
	"(sus.has(a)?' (suspect)':'')+' \\u2192 '+d.hosts[b]+(sus.has(b)?' (suspect)':'')+"
	"': '+v+(bad.has(a*n+b)?' \\u2014 bad pair':'')});\n"
	"c.addEventListener('mouseleave',function(){t.textContent=''})})})();\n";

void ix_html_mesh_script(FILE *f)
{
	char col[8];

	fputs("<script>(function(){var P=[", f);
	for (int i = 0; i < 256; i++) {
		ix_html_palette(i, col);
		fprintf(f, "%s'%s'", i ? "," : "", col);
	}
	fprintf(f, "];\n%s</script>\n", script);
}
