/* Every node's inventory and the odd ones out (probes/cluster/fleet.h) as
 * text: the odd ones and findings first, each naming its node, then a
 * line per node and NIC. */
#include "config.h"

#include "report/fmt/safe.h"
#include "report/text/text.h"

/* "(none)" for an empty value, else the value made safe. */
static const char *shown(const char *s, char *buf, size_t len)
{
	if (!s[0])
		return "(none)";
	ix_text_safe(s, buf, len);
	return buf;
}

static void odd_line(FILE *f, const struct ix_fleet_result *r, const struct ix_fleet_odd *o)
{
	char host[IX_HOST_NAME_MAX + 8], dev[40], v[160], m[160];

	ix_text_safe(r->nodes[o->node].host, host, sizeof(host));
	ix_text_safe(o->device, dev, sizeof(dev));
	fprintf(f, "ODD: %s: %s%s%s %s, where %u of %u nodes have %s\n", host, dev,
		dev[0] ? " " : "", o->field, shown(o->value, v, sizeof(v)), o->agree, o->of,
		shown(o->majority, m, sizeof(m)));
}

static void nic_line(FILE *f, const struct ix_inv_nic *n)
{
	char name[40], model[80], fw[80], drv[80], ver[80], cur[24], max[24];

	ix_inv_pcie_str(&n->pcie, false, cur, sizeof(cur));
	ix_inv_pcie_str(&n->pcie, true, max, sizeof(max));
	fprintf(f, "    %-12s %-16s fw %-14s %s%s%s  PCIe %s of %s%s  MTU ",
		shown(n->name, name, sizeof(name)), shown(n->model, model, sizeof(model)),
		shown(n->fw, fw, sizeof(fw)), shown(n->driver, drv, sizeof(drv)),
		n->driver_version[0] ? " " : "",
		n->driver_version[0] ? shown(n->driver_version, ver, sizeof(ver)) : "", cur, max,
		n->pcie.downtrained ? " (downtrained)" : "");
	if (n->mtu_known)
		fprintf(f, "%u", n->mtu);
	else
		fputs("-", f);
	if (n->numa_node >= 0)
		fprintf(f, "  NUMA %d", n->numa_node);
	fputc('\n', f);
}

void ix_text_fleet(FILE *f, const struct ix_fleet_result *r)
{
	char host[IX_HOST_NAME_MAX + 8], a[160], b[160], c[160];

	fprintf(f,
		"Inventory of %u node(s): %u answered, %u odd one(s) out, %u topology "
		"finding(s)\n",
		r->n, r->answered, r->odd_nodes, r->findings);
	for (uint32_t k = 0; k < r->nodd; k++)
		odd_line(f, r, &r->odd[k]);
	for (uint32_t i = 0; i < r->n; i++) {
		const struct ix_fleet_node *nd = &r->nodes[i];

		ix_text_safe(nd->host, host, sizeof(host));
		for (uint32_t k = 0; nd->ok && k < nd->inv.nfindings; k++)
			fprintf(f, "FINDING: %s: %s %s: %s\n", host,
				nd->inv.findings[k].error ? "error" : "warning",
				shown(nd->inv.findings[k].device, a, sizeof(a)),
				shown(nd->inv.findings[k].message, b, sizeof(b)));
		if (nd->ok && nd->inv.findings_total > nd->inv.nfindings)
			fprintf(f, "FINDING: %s: and %u more\n", host,
				nd->inv.findings_total - nd->inv.nfindings);
	}
	for (uint32_t i = 0; i < r->n; i++) {
		const struct ix_fleet_node *nd = &r->nodes[i];

		ix_text_safe(nd->host, host, sizeof(host));
		if (!nd->ok) {
			fprintf(f, "  %s: no inventory: %s\n", host,
				shown(nd->error, a, sizeof(a)));
			continue;
		}
		fprintf(f, "  %s%s: kernel %s, libibverbs %s, GPU driver %s\n", host,
			ix_fleet_node_odd(r, i) ? " (odd)" : "",
			shown(nd->inv.kernel, a, sizeof(a)), shown(nd->inv.verbs, b, sizeof(b)),
			shown(nd->inv.gpu_driver, c, sizeof(c)));
		for (uint32_t k = 0; k < nd->inv.nnics; k++)
			nic_line(f, &nd->inv.nics[k]);
		for (uint32_t k = 0; k < nd->inv.ngpus; k++) {
			const struct ix_inv_gpu *g = &nd->inv.gpus[k];
			char cur[24];

			ix_inv_pcie_str(&g->pcie, false, cur, sizeof(cur));
			fprintf(f, "    GPU %s %s %s  PCIe %s\n", shown(g->bdf, a, sizeof(a)),
				shown(g->model, b, sizeof(b)), shown(g->driver, c, sizeof(c)), cur);
		}
		if (nd->inv.truncated)
			fputs("    (more NICs or GPUs than an inventory holds)\n", f);
	}
}
