/* The memory side of a topology in an HTML report: the NUMA nodes with
 * what the firmware advertises (HMAT), and the CXL memory devices with
 * both ends' protocols, the regions; from the "topo" result's numa, cxl
 * and cxl_bus. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/html/html.h"

/* A string member, "" when absent or null. */
static const char *text(json_t *o, const char *key)
{
	const char *s = ix_html_str(o, key);

	return s ? s : "";
}

/* "mem+io" of a protocol list, "-" when it is null. */
static void protocols(FILE *f, json_t *fb)
{
	json_t *on = json_object_get(fb, "enabled"), *v;
	size_t i;

	if (!json_is_array(on)) {
		fputs("-", f);
		return;
	}
	json_array_foreach(on, i, v)
	{
		if (i)
			fputs("+", f);
		ix_html_esc(f, json_string_value(v));
	}
	if (!json_array_size(on))
		fputs("none", f);
	fputs(" <span class=\"muted\">(", f);
	ix_html_esc(f, ix_html_str(fb, "source"));
	fputs(")</span>", f);
}

static void numa(FILE *f, json_t *topo)
{
	json_t *nodes = json_object_get(topo, "numa"), *n;
	size_t i;
	bool any = false;

	json_array_foreach(nodes, i, n)
	{
		json_t *h = json_array_get(json_object_get(n, "hmat"), 0);

		any |= json_is_object(h);
	}
	if (!any)
		return;
	fputs("<h3>Memory nodes as the firmware advertises them (HMAT)</h3>\n<table><thead><tr>"
	      "<th>Node</th><th>CPUs</th><th>Memory</th><th>Read latency</th><th>Read "
	      "bandwidth</th><th>Write bandwidth</th><th>From</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(nodes, i, n)
	{
		json_t *h = json_array_get(json_object_get(n, "hmat"), 0), *ini, *v;
		double bw;
		size_t k;

		fputs("<tr><td class=\"n\">", f);
		ix_html_numf(f, n, "node", IX_HF_PLAIN);
		fputs("</td><td>", f);
		ix_html_esc(f, *text(n, "cpus") ? text(n, "cpus") : "none");
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, n, "memory_bytes", IX_HF_SIZE);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, h, "read_latency_ns", IX_HF_NS);
		fputs("</td><td class=\"n\">", f);
		if (ix_html_num(h, "read_bandwidth_Bps", &bw))
			fprintf(f, "%.2f GB/s", bw / 1e9);
		else
			fputs("-", f);
		fputs("</td><td class=\"n\">", f);
		if (ix_html_num(h, "write_bandwidth_Bps", &bw))
			fprintf(f, "%.2f GB/s", bw / 1e9);
		else
			fputs("-", f);
		fputs("</td><td>", f);
		ini = json_object_get(h, "initiators");
		json_array_foreach(ini, k, v)
			fprintf(f, "%snode %lld", k ? ", " : "", (long long)json_integer_value(v));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void memdevs(FILE *f, json_t *topo)
{
	json_t *a = json_object_get(topo, "cxl"), *m;
	size_t i;

	if (!json_array_size(a))
		return;
	fputs("<h3>CXL memory devices</h3>\n<table><thead><tr><th>Device</th><th>PCI</th>"
	      "<th>Port</th><th>Firmware</th><th>RAM</th><th>PMEM</th><th>Device runs</th>"
	      "<th>Port runs</th><th>Problem</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(a, i, m)
	{
		json_t *fb = json_object_get(m, "flexbus");
		const char *issue = text(m, "issue");

		fprintf(f, "<tr class=\"%s\"><td><code>", *issue ? "fail" : "");
		ix_html_esc(f, ix_html_str(m, "name"));
		fputs("</code></td><td><code>", f);
		ix_html_esc(f, ix_html_str(m, "pci"));
		fputs("</code></td><td><code>", f);
		ix_html_esc(f, ix_html_str(m, "port"));
		fputs("</code></td><td>", f);
		ix_html_esc(f, ix_html_str(m, "firmware"));
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, m, "ram_bytes", IX_HF_SIZE);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, m, "pmem_bytes", IX_HF_SIZE);
		fputs("</td><td>", f);
		protocols(f, json_object_get(fb, "device"));
		fputs("</td><td>", f);
		protocols(f, json_object_get(fb, "port"));
		fputs("</td><td>", f);
		ix_html_esc(f, issue);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void regions(FILE *f, json_t *bus)
{
	json_t *a = json_object_get(bus, "regions"), *r, *t;
	size_t i, k;

	if (!json_is_true(json_object_get(bus, "read"))) {
		fputs("<p class=\"muted\">", f);
		ix_html_esc(f, ix_html_str(bus, "note"));
		fputs("</p>\n", f);
		return;
	}
	if (!json_array_size(a)) {
		fputs("<p class=\"muted\">No CXL region: no memory of a CXL device is "
		      "mapped.</p>\n",
		      f);
		return;
	}
	fputs("<h3>CXL regions</h3>\n<table><thead><tr><th>Region</th><th>Root decoder</th>"
	      "<th>Size</th><th>Ways</th><th>Granularity</th><th>State</th><th>Targets</th>"
	      "</tr></thead><tbody>\n",
	      f);
	json_array_foreach(a, i, r)
	{
		bool committed = json_is_true(json_object_get(r, "committed"));

		fprintf(f, "<tr class=\"%s\"><td><code>", committed ? "" : "warn");
		ix_html_esc(f, ix_html_str(r, "name"));
		fputs("</code></td><td><code>", f);
		ix_html_esc(f, ix_html_str(r, "decoder"));
		fputs("</code></td><td class=\"n\">", f);
		ix_html_numf(f, r, "size", IX_HF_SIZE);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, r, "ways", IX_HF_PLAIN);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, r, "granularity", IX_HF_SIZE);
		fprintf(f, "</td><td>%s</td><td>", committed ? "committed" : "not committed");
		json_array_foreach(json_object_get(r, "targets"), k, t)
		{
			fputs(k ? ", <code>" : "<code>", f);
			ix_html_esc(f, json_string_value(t));
			fputs("</code>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

void ix_html_memory(FILE *f, json_t *topo)
{
	json_t *bus = json_object_get(topo, "cxl_bus");

	numa(f, topo);
	memdevs(f, topo);
	if (json_array_size(json_object_get(topo, "cxl")) ||
	    json_array_size(json_object_get(bus, "ports")))
		regions(f, bus);
}
