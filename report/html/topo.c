/* The topology section of an HTML report: findings, the GPU/NIC path
 * matrix and the links of the devices that matter, from a run's
 * "topology" object (the topo result). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/html/html.h"

static void findings(FILE *f, json_t *topo)
{
	json_t *fs = json_object_get(topo, "findings"), *e;
	size_t i;

	if (!json_array_size(fs)) {
		fputs("<p>Nothing flagged: every link at the lower of both ends' capabilities, "
		      "RDMA ports ACTIVE, no AER errors.</p>\n",
		      f);
		return;
	}
	fputs("<table><thead><tr><th>Severity</th><th>Finding</th><th>Device</th>"
	      "<th>What</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(fs, i, e)
	{
		const char *sev = ix_html_str(e, "severity");

		fprintf(f, "<tr class=\"%s\"><td>", strcmp(sev, "error") == 0 ? "fail" : "warn");
		ix_html_esc(f, sev);
		fputs("</td><td>", f);
		ix_html_esc(f, ix_html_str(e, "kind"));
		fputs("</td><td><code>", f);
		ix_html_esc(f, ix_html_str(e, "device"));
		fputs("</code></td><td>", f);
		ix_html_esc(f, ix_html_str(e, "message"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void matrix(FILE *f, json_t *paths)
{
	json_t *labels = json_object_get(paths, "labels"), *m = json_object_get(paths, "matrix");
	json_t *devs = json_object_get(paths, "devices");
	size_t n = json_array_size(labels);

	if (!n)
		return;
	fputs("<h3>Paths between GPUs and NICs</h3>\n<p class=\"muted\">X self, PIX one PCIe "
	      "switch, PXB several switches, PHB a host bridge, NODE between host bridges of a "
	      "NUMA node, SYS between NUMA nodes.</p>\n<table><thead><tr><th></th>",
	      f);
	for (size_t b = 0; b < n; b++) {
		fputs("<th>", f);
		ix_html_esc(f, json_string_value(json_array_get(labels, b)));
		fputs("</th>", f);
	}
	fputs("<th>PCI</th></tr></thead><tbody>\n", f);
	for (size_t a = 0; a < n; a++) {
		json_t *row = json_array_get(m, a);

		fputs("<tr><th>", f);
		ix_html_esc(f, json_string_value(json_array_get(labels, a)));
		fputs("</th>", f);
		for (size_t b = 0; b < n; b++) {
			const char *p = json_string_value(json_array_get(row, b));

			fprintf(f, "<td class=\"%s\">", p && !strcmp(p, "SYS") ? "warn" : "");
			ix_html_esc(f, p ? p : "?");
			fputs("</td>", f);
		}
		fputs("<td><code>", f);
		ix_html_esc(f, json_string_value(json_array_get(devs, a)));
		fputs("</code></td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void links(FILE *f, json_t *topo)
{
	json_t *pci = json_object_get(topo, "pci"), *d;
	size_t i, shown = 0;

	json_array_foreach(pci, i, d)
	{
		const char *type = ix_html_str(d, "type");
		json_t *l = json_object_get(d, "link");

		if (strcmp(type, "gpu") && strcmp(type, "nic") && strcmp(type, "ib") &&
		    strcmp(type, "nvme") && strcmp(type, "cxl"))
			continue;
		if (!shown++)
			fputs("<h3>Device links</h3>\n<table><thead><tr><th>PCI</th><th>Kind</th>"
			      "<th>Driver</th><th>NUMA</th><th>Link</th><th>Capable</th>"
			      "<th>Per direction</th></tr></thead><tbody>\n",
			      f);
		fprintf(f, "<tr class=\"%s\"><td><code>",
			json_is_true(json_object_get(l, "downtrained")) ? "warn" : "");
		ix_html_esc(f, ix_html_str(d, "bdf"));
		fputs("</code></td><td>", f);
		ix_html_esc(f, type);
		fputs("</td><td>", f);
		ix_html_esc(f, ix_html_str(d, "driver"));
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, d, "numa_node", IX_HF_PLAIN);
		if (json_is_object(l))
			fprintf(f,
				"</td><td>Gen%lld x%lld</td><td>Gen%lld x%lld</td><td class=\"n\">",
				(long long)json_integer_value(json_object_get(l, "gen")),
				(long long)json_integer_value(json_object_get(l, "width")),
				(long long)json_integer_value(json_object_get(l, "expected_gen")),
				(long long)json_integer_value(
					json_object_get(l, "expected_width")));
		else
			fputs("</td><td>-</td><td>-</td><td class=\"n\">", f);
		ix_html_numf(f, l, "bps", IX_HF_RATE);
		fputs("</td></tr>\n", f);
	}
	if (shown)
		fputs("</tbody></table>\n", f);
}

void ix_html_topo(FILE *f, json_t *run)
{
	json_t *topo = json_object_get(run, "topology");

	if (!json_is_object(topo))
		return;
	fputs("<section><h2 id=\"topo\">Topology</h2>\n", f);
	findings(f, topo);
	ix_html_topo_tree(f, topo);
	matrix(f, json_object_get(topo, "paths"));
	links(f, topo);
	ix_html_memory(f, topo);
	fputs("</section>\n", f);
}
