/* Every node's inventory in an HTML report: the odd ones out and the
 * topology findings, each with its node, then a row per node and NIC,
 * from a result's "fleet" object. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/html/html.h"

/* Cells of one row, escaped: each of the n strings, "-" for NULL. */
static void cells(FILE *f, const char *cls, const char *const *v, size_t n)
{
	fprintf(f, "<tr%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	for (size_t i = 0; i < n; i++) {
		fputs("<td>", f);
		ix_html_esc(f, v[i] && v[i][0] ? v[i] : "-");
		fputs("</td>", f);
	}
	fputs("</tr>\n", f);
}

static void odd_ones(FILE *f, json_t *fleet)
{
	json_t *odd = json_object_get(fleet, "odd_ones_out"), *e;
	size_t i;

	if (!json_array_size(odd)) {
		fputs("<p>No odd one out: every node that answered has what most nodes have.</p>\n",
		      f);
		return;
	}
	fputs("<table><thead><tr><th>Node</th><th>Device</th><th>What</th><th>Its value</th>"
	      "<th>Most nodes</th><th>Agree</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(odd, i, e)
	{
		char agree[48];
		double a = 0, of = 0;
		const char *v[6];

		ix_html_num(e, "agree", &a);
		ix_html_num(e, "of", &of);
		snprintf(agree, sizeof(agree), "%.0f of %.0f", a, of);
		v[0] = ix_html_str(e, "host");
		v[1] = ix_html_str(e, "device");
		v[2] = ix_html_str(e, "field");
		v[3] = ix_html_str(e, "value");
		v[4] = ix_html_str(e, "majority");
		v[5] = agree;
		cells(f, "fail", v, 6);
	}
	fputs("</tbody></table>\n", f);
}

static void findings(FILE *f, json_t *fleet)
{
	json_t *fs = json_object_get(fleet, "findings"), *e;
	size_t i;

	if (!json_array_size(fs))
		return;
	fputs("<h4>Topology findings</h4>\n<table><thead><tr><th>Node</th><th>Severity</th>"
	      "<th>Finding</th><th>Device</th><th>What</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(fs, i, e)
	{
		const char *sev = ix_html_str(e, "severity");
		const char *v[5] = { ix_html_str(e, "host"), sev, ix_html_str(e, "kind"),
				     ix_html_str(e, "device"), ix_html_str(e, "message") };

		cells(f, sev && strcmp(sev, "error") == 0 ? "fail" : "warn", v, 5);
	}
	fputs("</tbody></table>\n", f);
}

/* "Gen4 x8 of Gen5 x16" from a NIC's pcie object. */
static void pcie_text(json_t *nic, char *buf, size_t len)
{
	double g, w, mg, mw;
	json_t *p = json_object_get(nic, "pcie");

	if (!ix_html_num(p, "gen", &g) || !ix_html_num(p, "width", &w)) {
		snprintf(buf, len, "-");
		return;
	}
	if (ix_html_num(p, "max_gen", &mg) && ix_html_num(p, "max_width", &mw))
		snprintf(buf, len, "Gen%.0f x%.0f of Gen%.0f x%.0f", g, w, mg, mw);
	else
		snprintf(buf, len, "Gen%.0f x%.0f", g, w);
}

static void nodes(FILE *f, json_t *fleet)
{
	json_t *ns = json_object_get(fleet, "nodes"), *nd;
	size_t i;

	fputs("<table><thead><tr><th>Node</th><th>Kernel</th><th>libibverbs</th><th>NIC</th>"
	      "<th>Model</th><th>Firmware</th><th>Driver</th><th>PCIe as trained</th>"
	      "<th>MTU</th><th>NUMA</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(ns, i, nd)
	{
		json_t *inv = json_object_get(nd, "inventory"),
		       *nics = json_object_get(inv, "nics");
		const char *cls = json_is_true(json_object_get(nd, "odd")) ? "warn" : NULL;
		size_t k, rows = json_array_size(nics) ? json_array_size(nics) : 1;

		if (!json_is_object(inv)) {
			const char *v[3] = { ix_html_str(nd, "host"), "no inventory",
					     ix_html_str(nd, "error") };

			cells(f, "fail", v, 3);
			continue;
		}
		for (k = 0; k < rows; k++) {
			json_t *n = json_array_get(nics, k);
			char pcie[64], mtu[24] = "", numa[24] = "", drv[160];
			double x;

			pcie_text(n, pcie, sizeof(pcie));
			if (ix_html_num(n, "mtu", &x))
				snprintf(mtu, sizeof(mtu), "%.0f", x);
			if (ix_html_num(n, "numa_node", &x))
				snprintf(numa, sizeof(numa), "%.0f", x);
			snprintf(drv, sizeof(drv), "%s %s", ix_html_str(n, "driver") ?: "",
				 ix_html_str(n, "driver_version") ?: "");
			const char *v[10] = { k ? "" : ix_html_str(nd, "host"),
					      k ? "" : ix_html_str(inv, "kernel"),
					      k ? "" : ix_html_str(inv, "verbs"),
					      ix_html_str(n, "name"),
					      ix_html_str(n, "model"),
					      ix_html_str(n, "fw"),
					      drv,
					      n ? pcie : "",
					      mtu,
					      numa };

			cells(f, cls, v, 10);
		}
	}
	fputs("</tbody></table>\n", f);
}

void ix_html_fleet(FILE *f, json_t *fleet)
{
	double answered = 0, odd = 0, n = (double)json_array_size(json_object_get(fleet, "nodes"));

	if (!json_is_object(fleet))
		return;
	ix_html_num(fleet, "answered", &answered);
	ix_html_num(fleet, "odd_nodes", &odd);
	fprintf(f,
		"<h3>Every node's inventory</h3>\n<p>%.0f of %.0f node(s) answered; %.0f odd "
		"one(s) out.</p>\n",
		answered, n, odd);
	odd_ones(f, fleet);
	findings(f, fleet);
	nodes(f, fleet);
}
