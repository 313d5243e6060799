/* A rail mesh's rails side by side in an HTML report (a "rails" result):
 * each rail's verdict with why, then each node's all-rail throughput.
 * Each rail's own mesh is drawn as any mesh. */
#include "config.h"

#include <stdio.h>

#include "report/html/html.h"

static void cell(FILE *f, const char *s)
{
	fputs("<td>", f);
	ix_html_esc(f, s && s[0] ? s : "-");
	fputs("</td>", f);
}

static void num_cell(FILE *f, json_t *o, const char *path, enum ix_hfmt fmt)
{
	fputs("<td class=\"n\">", f);
	ix_html_numf(f, o, path, fmt);
	fputs("</td>", f);
}

void ix_html_rails(FILE *f, json_t *result)
{
	json_t *x;
	size_t i;

	fprintf(f, "<h3>Rails, measured at once</h3>\n<p>%zu rail(s) by %s; %zu bad.</p>\n",
		json_array_size(json_object_get(result, "rails")),
		ix_html_str(result, "by") ? ix_html_str(result, "by") : "?",
		json_array_size(json_object_get(result, "bad_rails")));
	fputs("<table><thead><tr><th>Rail</th><th>Name</th><th>Interface</th><th>Nodes</th>"
	      "<th>Median bw</th><th>Lat p50</th><th>Bad pairs</th><th>Verdict</th></tr></thead>"
	      "<tbody>\n",
	      f);
	json_array_foreach(json_object_get(result, "rails"), i, x)
	{
		bool bad = json_is_true(json_object_get(x, "bad"));

		fprintf(f, "<tr%s><td class=\"n\">%zu</td>", bad ? " class=\"fail\"" : "", i);
		cell(f, ix_html_str(x, "name"));
		cell(f, ix_html_str(x, "iface"));
		fprintf(f, "<td class=\"n\">%zu</td>",
			json_array_size(json_object_get(x, "nodes")));
		num_cell(f, x, "median_bw_bps", IX_HF_RATE);
		num_cell(f, x, "lat_p50_ns", IX_HF_NS);
		num_cell(f, x, "bad_pairs", IX_HF_PLAIN);
		cell(f, bad ? ix_html_str(x, "reason") : "ok");
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n<h3>All-rail throughput per node</h3>\n"
	      "<table><thead><tr><th>Node</th><th>Send</th><th>Recv</th><th>Rails</th></tr>"
	      "</thead><tbody>\n",
	      f);
	json_array_foreach(json_object_get(result, "nodes"), i, x)
	{
		fputs("<tr>", f);
		cell(f, ix_html_str(x, "host"));
		num_cell(f, x, "bw_out_bps", IX_HF_RATE);
		num_cell(f, x, "bw_in_bps", IX_HF_RATE);
		num_cell(f, x, "rails", IX_HF_PLAIN);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}
