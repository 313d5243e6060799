/* The HTML section of a GPU result: devices and a heatmap table per test. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/html/html.h"

static void html_cell(FILE *f, json_t *t, size_t a, size_t b, double lo, double hi, bool lat)
{
	json_t *m = json_object_get(t, "matrix");
	json_t *v = json_array_get(json_array_get(json_object_get(m, "value"), a), b);
	json_t *p =
		json_array_get(json_array_get(json_object_get(m, "percent_of_reference"), a), b);
	const char *st = json_string_value(
		json_array_get(json_array_get(json_object_get(m, "state"), a), b));
	char col[8] = "#f2f2f2";
	double x = json_number_value(v);
	int k;

	if (!json_is_number(v)) {
		fprintf(f, "<td class=\"n\" style=\"background:%s\">%s</td>",
			st && !strcmp(st, "failed") ? "#e8a0a0" : col,
			st && !strcmp(st, "none")     ? "N/A"
			: st && !strcmp(st, "failed") ? "failed"
						      : "-");
		return;
	}
	k = hi > lo ? (int)lround((x - lo) / (hi - lo) * 255) : 255;
	ix_html_palette(lat ? 255 - k : k, col);
	fprintf(f, "<td class=\"n\" style=\"background:%s;color:%s\">", col,
		(lat ? 255 - k : k) < 128 ? "#fff" : "#000");
	if (lat)
		fprintf(f, "%.1f ns", x);
	else
		fprintf(f, "%.2f GB/s", x / 1e9);
	if (json_is_number(p))
		fprintf(f, "<br>%.0f%%", json_number_value(p));
	fputs("</td>", f);
}

static void html_test(FILE *f, json_t *t)
{
	json_t *rows = json_object_get(t, "rows"), *cols = json_object_get(t, "columns");
	json_t *val = json_object_get(json_object_get(t, "matrix"), "value");
	const char *metric = ix_html_str(t, "metric"), *status = ix_html_str(t, "status");
	bool lat = metric && !strcmp(metric, "latency");
	double lo = INFINITY, hi = -INFINITY, x;

	fputs("<h3>", f);
	ix_html_esc(f, ix_html_str(t, "name"));
	fputs("</h3>\n<p class=\"muted\">", f);
	ix_html_esc(f, ix_html_str(t, "description"));
	if (ix_html_str(t, "reference")) {
		const char *ref = ix_html_str(t, "reference");

		fputs(" &middot; % of ", f);
		fputs(!strcmp(ref, "pcie_link") ? "the PCIe link"
		      : !strcmp(ref, "hbm")     ? "HBM bandwidth, read + write"
						: "the same copy within one process",
		      f);
	}
	fputs("</p>\n", f);
	if (ix_html_str(t, "reason")) {
		fputs(status && !strcmp(status, "failed") ? "<p class=\"errbox\">failed: "
							  : "<p class=\"muted\">skipped: ",
		      f);
		ix_html_esc(f, ix_html_str(t, "reason"));
		fputs("</p>\n", f);
	}
	if (!json_array_size(rows))
		return;
	for (size_t a = 0; a < json_array_size(val); a++)
		for (size_t b = 0; b < json_array_size(json_array_get(val, a)); b++)
			if (ix_html_num(json_array_get(json_array_get(val, a), b), "", &x)) {
				lo = fmin(lo, x);
				hi = fmax(hi, x);
			}
	/* Anchored so that a small spread stays pale: the dark end is half the
	 * best bandwidth, or twice the lowest latency. */
	if (lat)
		hi = fmax(hi, 2 * lo);
	else
		lo = fmin(lo, hi / 2);
	fputs("<table class=\"gpu\"><thead><tr><th>from \\ to</th>", f);
	for (size_t b = 0; b < json_array_size(cols); b++) {
		fputs("<th>", f);
		ix_html_esc(f, json_string_value(json_array_get(cols, b)));
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (size_t a = 0; a < json_array_size(rows); a++) {
		fputs("<tr><th>", f);
		ix_html_esc(f, json_string_value(json_array_get(rows, a)));
		fputs("</th>", f);
		for (size_t b = 0; b < json_array_size(cols); b++)
			html_cell(f, t, a, b, lo, hi, lat);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

void ix_html_gpu(FILE *f, json_t *r)
{
	json_t *devs = json_object_get(r, "devices"), *tests = json_object_get(r, "tests"), *d;
	size_t i;

	fputs("<dl class=\"facts\"><dt>backend</dt><dd>", f);
	ix_html_esc(f, ix_html_str(r, "backend.name"));
	fputs("</dd><dt>library</dt><dd>", f);
	ix_html_esc(f, ix_html_str(r, "backend.library"));
	fputs("</dd><dt>version</dt><dd>", f);
	ix_html_esc(f, ix_html_str(r, "backend.version"));
	fputs("</dd><dt>bytes per copy</dt><dd>", f);
	ix_html_numf(f, r, "params.size", IX_HF_SIZE);
	fputs("</dd></dl>\n<table><thead><tr><th>GPU</th><th>Name</th><th>PCI</th>"
	      "<th>NUMA</th><th>PCIe</th><th>Link</th><th>HBM</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(devs, i, d)
	{
		double g = 0, w = 0, x;

		fprintf(f, "<tr><td>%zu</td><td>", i);
		ix_html_esc(f, ix_html_str(d, "name"));
		fputs("</td><td><code>", f);
		ix_html_esc(f, ix_html_str(d, "pci_bus_id"));
		fputs("</code></td><td class=\"n\">", f);
		ix_html_numf(f, d, "numa_node", IX_HF_PLAIN);
		fputs("</td><td>", f);
		if (ix_html_num(d, "pcie.gen", &g) && ix_html_num(d, "pcie.width", &w))
			fprintf(f, "Gen%.0f x%.0f", g, w);
		else
			fputs("-", f);
		fputs("</td><td class=\"n\">", f);
		if (ix_html_num(d, "pcie.reference_bytes_per_second", &x))
			fprintf(f, "%.1f GB/s", x / 1e9);
		else
			fputs("-", f);
		fputs("</td><td class=\"n\">", f);
		if (ix_html_num(d, "hbm_bytes_per_second", &x))
			fprintf(f, "%.0f GB/s", x / 1e9);
		else
			fputs("-", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	json_array_foreach(tests, i, d) html_test(f, d);
}
