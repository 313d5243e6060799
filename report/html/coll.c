/* The HTML section of a "coll" result: the library, busbw against size,
 * nccl-tests' table, the ranks and the verdicts. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html/html.h"

static const char *const places[2] = { "out_of_place", "in_place" };

static void facts(FILE *f, json_t *r)
{
	const char *sim = ix_html_str(r, "simulation");
	double n;

	if (sim) {
		fputs("<p class=\"errbox\">SIMULATED library: ", f);
		ix_html_esc(f, sim);
		fputs("</p>\n", f);
	}
	fputs("<dl class=\"facts\"><dt>collective</dt><dd>", f);
	ix_html_esc(f, ix_html_str(r, "params.op"));
	fputs("</dd><dt>library</dt><dd>", f);
	ix_html_esc(f, ix_html_str(r, "library"));
	fputc(' ', f);
	ix_html_esc(f, ix_html_str(r, "library_version"));
	fputs(" over ", f);
	ix_html_esc(f, ix_html_str(r, "gpu_backend"));
	fputs("</dd><dt>ranks</dt><dd>", f);
	ix_html_numf(f, r, "nranks", IX_HF_PLAIN);
	fputs(" on ", f);
	ix_html_numf(f, r, "nnodes", IX_HF_PLAIN);
	fputs(ix_html_num(r, "nnodes", &n) && n == 1 ? " node" : " nodes", f);
	fputs("</dd><dt>data</dt><dd>", f);
	ix_html_esc(f, ix_html_str(r, "params.datatype"));
	if (ix_html_str(r, "params.redop")) {
		fputs(", ", f);
		ix_html_esc(f, ix_html_str(r, "params.redop"));
	}
	fputs("</dd><dt>busbw</dt><dd>algbw &times; ", f);
	ix_html_esc(f, ix_html_str(r, "bus_factor_formula"));
	fputs(" = ", f);
	ix_html_numf(f, r, "bus_factor", IX_HF_PLAIN);
	fputs(" (nccl-tests&#39; definition)</dd><dt>average busbw</dt><dd>", f);
	if (ix_html_num(r, "avg_busbw_Bps", &n))
		fprintf(f, "%.2f GB/s", n / 1e9);
	fputs("</dd><dt>the links allow</dt><dd>", f);
	if (ix_html_num(r, "ceiling.Bps", &n)) {
		fprintf(f, "%.2f GB/s busbw (", n / 1e9);
		ix_html_esc(f, ix_html_str(r, "ceiling.why"));
		fputc(')', f);
		if (ix_html_num(r, "ceiling.share", &n))
			fprintf(f, "; the largest size reached %.0f%% of it", n * 100);
	} else {
		fputs("unknown", f);
		if (ix_html_str(r, "ceiling.unknown")) {
			fputs(": ", f);
			ix_html_esc(f, ix_html_str(r, "ceiling.unknown"));
		}
	}
	fputs("</dd></dl>\n", f);
}

/* A rank's links, in a cell: PCIe, NVLink, the nearest NIC, what moved. */
static void links(FILE *f, json_t *k)
{
	json_t *x = json_object_get(k, "facts");
	double a, b;

	if (ix_html_num(x, "pcie.gen", &a) && ix_html_num(x, "pcie.width", &b))
		fprintf(f, "PCIe Gen%.0f x%.0f%s", a, b,
			json_is_true(json_object_get(json_object_get(x, "pcie"), "downtrained"))
				? " <b>downtrained</b>"
				: "");
	if (ix_html_num(x, "nvlinks", &a) && a > 0) {
		fprintf(f, "; %.0f NVLinks ", a);
		ix_html_esc(f, ix_html_str(x, "nvlink_version"));
	}
	if (ix_html_str(x, "nic")) {
		fputs("; ", f);
		ix_html_esc(f, ix_html_str(x, "nic"));
		fputc(' ', f);
		ix_html_esc(f, ix_html_str(x, "nic_path"));
	}
	if (json_object_size(json_object_get(x, "moved"))) { /* the classes that moved */
		const char *cls, *sep = "; <b>during the run: ";
		json_t *n;

		json_object_foreach(json_object_get(x, "moved"), cls, n)
		{
			fprintf(f, "%s%lld ", sep, (long long)json_integer_value(n));
			ix_html_esc(f, cls);
			sep = ", ";
		}
		fputs("</b>", f);
	}
}

/* busbw against the size, a line a placement. */
static void chart(FILE *f, json_t *rows)
{
	size_t n = json_array_size(rows);
	double *x = calloc(n ? n : 1, sizeof(*x)), *y[2];
	struct ix_hseries s[2];
	size_t ns = 0;
	struct ix_hchart c = { .title = "Bus bandwidth by size",
			       .xlabel = "size",
			       .ylabel = "busbw (GB/s)",
			       .xf = IX_HF_SIZE,
			       .yf = IX_HF_PLAIN,
			       .xlog2 = true };

	y[0] = calloc(n ? n : 1, sizeof(double));
	y[1] = calloc(n ? n : 1, sizeof(double));
	if (!x || !y[0] || !y[1] || n < 2)
		goto out;
	for (int p = 0; p < 2; p++) {
		bool any = false;

		for (size_t i = 0; i < n; i++) {
			json_t *cell = json_object_get(json_array_get(rows, i), places[p]);
			double v;

			ix_html_num(json_array_get(rows, i), "bytes", &x[i]);
			y[p][i] = ix_html_num(cell, "busbw_Bps", &v) ? v / 1e9 : NAN;
			any |= isfinite(y[p][i]);
		}
		if (any)
			s[ns++] =
				(struct ix_hseries){ p ? "in-place" : "out-of-place", x, y[p], n };
	}
	if (ns)
		ix_html_chart(f, &c, s, ns);
out:
	free(x);
	free(y[0]);
	free(y[1]);
}

static void cell(FILE *f, json_t *c)
{
	double v;

	if (!json_is_object(c) || !json_is_true(json_object_get(c, "measured"))) {
		fputs("<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td>"
		      "<td class=\"n\">-</td>",
		      f);
		return;
	}
	fputs("<td class=\"n\">", f);
	ix_html_numf(f, c, "time_us", IX_HF_US);
	fprintf(f, "</td><td class=\"n\">%.2f</td>",
		ix_html_num(c, "algbw_Bps", &v) ? v / 1e9 : NAN);
	fprintf(f, "<td class=\"n\">%.2f</td>", ix_html_num(c, "busbw_Bps", &v) ? v / 1e9 : NAN);
	if (!ix_html_num(c, "wrong", &v))
		fputs("<td class=\"n\">N/A</td>", f);
	else
		fprintf(f, "<td class=\"n%s\">%.0f</td>", v > 0 ? " warn" : "", v);
}

static void table(FILE *f, json_t *rows)
{
	fputs("<table class=\"coll\"><tr><th rowspan=\"2\">size</th><th rowspan=\"2\">count</th>"
	      "<th colspan=\"4\">out-of-place</th><th colspan=\"4\">in-place</th></tr>\n<tr>",
	      f);
	for (int p = 0; p < 2; p++)
		fputs("<th>time</th><th>algbw GB/s</th><th>busbw GB/s</th><th>#wrong</th>", f);
	fputs("</tr>\n", f);
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *row = json_array_get(rows, i);

		fputs("<tr><td class=\"n\">", f);
		ix_html_numf(f, row, "bytes", IX_HF_SIZE);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, row, "count", IX_HF_PLAIN);
		fputs("</td>", f);
		for (int p = 0; p < 2; p++)
			cell(f, json_object_get(row, places[p]));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void verdict(FILE *f, json_t *r)
{
	json_t *v = json_object_get(r, "verdict");
	const char *culprit = ix_html_str(v, "culprit");
	double a, b, share, late;

	fputs("<p><b>Verdict:</b> ", f);
	if (culprit && !strcmp(culprit, "rank") && ix_html_num(v, "rank", &a) &&
	    ix_html_num(v, "share", &share)) {
		json_t *k = json_array_get(json_object_get(r, "ranks"), (size_t)a);
		fprintf(f, "slow rank %.0f on ", a);
		ix_html_esc(f, ix_html_str(k, "node"));
		fprintf(f, ": both its ring links at %.2g &times; the others&#39;", share);
	} else if (culprit && !strcmp(culprit, "link") && ix_html_num(v, "rank", &a) &&
		   ix_html_num(v, "rank_b", &b) && ix_html_num(v, "share", &share)) {
		fprintf(f, "slow link between ranks %.0f and %.0f, at %.2g &times; the others&#39;",
			a, b, share);
	} else if (culprit && !strcmp(culprit, "many")) {
		fputs("slow links that no single rank or link explains", f);
	} else if (culprit) {
		fputs("no rank or link stands out in the pair scan", f);
	} else {
		fputs("no pair scan", f);
	}
	if (ix_html_num(v, "late_rank", &a) && ix_html_num(v, "late_us", &late))
		fprintf(f, "; rank %.0f arrived last, the others waiting %.1f us for it", a, late);
	fputs("</p>\n", f);
}

static void ranks(FILE *f, json_t *r)
{
	json_t *ks = json_object_get(r, "ranks"), *v = json_object_get(r, "verdict");
	double culprit = -1;

	if (ix_html_str(v, "culprit") && !strcmp(ix_html_str(v, "culprit"), "rank"))
		ix_html_num(v, "rank", &culprit);
	fputs("<table class=\"coll\"><tr><th>rank</th><th>node</th><th>GPU</th><th>PCI</th>"
	      "<th>iteration median</th><th>fastest</th><th>slowest</th><th>pair GB/s</th>"
	      "<th>links</th><th>error</th></tr>\n",
	      f);
	for (size_t i = 0; i < json_array_size(ks); i++) {
		json_t *k = json_array_get(ks, i);
		double pair;

		fprintf(f, "<tr%s><td class=\"n\">%zu</td><td>",
			(double)i == culprit ? " class=\"fail\"" : "", i);
		ix_html_esc(f, ix_html_str(k, "node"));
		fputs("</td><td>", f);
		ix_html_esc(f, ix_html_str(k, "gpu"));
		fputs("</td><td>", f);
		ix_html_esc(f, ix_html_str(k, "pci_bus_id"));
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, k, "iter_median_us", IX_HF_US);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, k, "iter_min_us", IX_HF_US);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, k, "iter_max_us", IX_HF_US);
		fputs("</td><td class=\"n\">", f);
		if (ix_html_num(k, "pair_Bps", &pair))
			fprintf(f, "%.2f", pair / 1e9);
		else
			fputs("-", f);
		fputs("</td><td>", f);
		links(f, k);
		fputs("</td><td>", f);
		if (ix_html_str(k, "error"))
			ix_html_esc(f, ix_html_str(k, "error"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

void ix_html_coll(FILE *f, json_t *r)
{
	json_t *rows = json_object_get(r, "rows");

	facts(f, r);
	chart(f, rows);
	table(f, rows);
	verdict(f, r);
	ranks(f, r);
}
