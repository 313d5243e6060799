/* Renderers of the topology (probes/topo.h): JSON, and text as a tree, a
 * path matrix in nvidia-smi's terms, the network side and the findings. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/topo.h"
#include "report/units.h"

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *bdf_or_null(const struct ix_topo *t, int i)
{
	return i >= 0 ? json_string(t->pci.v[i].bdf) : json_null();
}

static json_t *link_json(const struct ix_pci_link *l)
{
	if (!l->present)
		return json_null();
	return json_pack("{s:f,s:i,s:i,s:f,s:i,s:i,s:f,s:f,s:b,s:i,s:i}", "speed_gts", l->speed_gts,
			 "gen", l->gen, "width", l->width, "max_speed_gts", l->max_speed_gts,
			 "max_gen", l->max_gen, "max_width", l->max_width, "bps", l->bps, "max_bps",
			 l->max_bps, "downtrained", l->downtrained, "expected_gen", l->expected_gen,
			 "expected_width", l->expected_width);
}

static json_t *names_json(char names[][32], size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(names[i]));
	return a;
}

static json_t *pci_json(const struct ix_topo *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->pci.n; i++) {
		const struct ix_pci_dev *d = &t->pci.v[i];
		char vendor[8], device[8], class[10];

		snprintf(vendor, sizeof(vendor), "0x%04x", d->vendor);
		snprintf(device, sizeof(device), "0x%04x", d->device);
		snprintf(class, sizeof(class), "0x%06x", d->class);
		json_array_append_new(
			a, json_pack("{s:s,s:s,s:s,s:o,s:s,s:o,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o}",
				     "bdf", d->bdf, "vendor", vendor, "device", device, "class",
				     d->class_known ? json_string(class) : json_null(), "type",
				     ix_pci_type_name(d->type), "driver", str_or_null(d->driver),
				     "numa_node",
				     d->numa_node >= 0 ? json_integer(d->numa_node) : json_null(),
				     "parent", bdf_or_null(t, d->parent), "host_bridge",
				     d->host_bridge, "switch", bdf_or_null(t, d->sw), "link",
				     link_json(&d->link), "aer",
				     d->aer_known ? json_pack("{s:I,s:I,s:I}", "correctable",
							      (json_int_t)d->aer_cor, "nonfatal",
							      (json_int_t)d->aer_nonfatal, "fatal",
							      (json_int_t)d->aer_fatal)
						  : json_null(),
				     "netdevs", names_json((char(*)[32])d->netdevs, d->nnetdevs),
				     "rdma", names_json((char(*)[32])d->rdma, d->nrdma)));
	}
	return a;
}

static json_t *numa_json(const struct ix_topo *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->nnuma; i++) {
		const struct ix_numa_node *n = &t->numa[i];

		json_array_append_new(
			a, json_pack("{s:i,s:s,s:b,s:o}", "node", n->node, "cpus", n->cpus,
				     "cpuless", n->cpus[0] == '\0', "memory_bytes",
				     n->memory_known ? json_integer((json_int_t)n->memory_bytes)
						     : json_null()));
	}
	return a;
}

static json_t *ifaces_json(const struct ix_topo *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->nifaces; i++) {
		const struct ix_iface *f = &t->ifaces[i];
		const struct ix_link *l = f->link;

		json_array_append_new(
			a, json_pack("{s:s,s:o,s:o,s:s,s:o,s:o,s:b}", "name", l->name, "speed_bps",
				     l->speed_known ? json_real(l->speed_bps) : json_null(), "mtu",
				     l->mtu_known ? json_integer(l->mtu) : json_null(), "state",
				     l->state, "driver", str_or_null(f->driver), "pci",
				     bdf_or_null(t, f->pci), "virtual", l->is_virtual));
	}
	return a;
}

static json_t *ports_json(const struct ix_topo *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->nports; i++) {
		const struct ix_rdma_port *p = &t->ports[i];
		const struct ix_link *l = p->link;
		json_t *gids = json_array();

		for (size_t k = 0; k < p->ngids; k++)
			json_array_append_new(
				gids, json_pack("{s:i,s:s,s:o,s:o}", "index", (int)p->gids[k].index,
						"gid", p->gids[k].gid, "type",
						str_or_null(p->gids[k].type), "netdev",
						str_or_null(p->gids[k].netdev)));
		json_array_append_new(
			a, json_pack("{s:s,s:i,s:s,s:s,s:o,s:s,s:o,s:o,s:o}", "device", l->dev,
				     "port", (int)l->port, "state", l->state, "phys_state",
				     l->phys_state, "rate_bps",
				     l->speed_known ? json_real(l->speed_bps) : json_null(),
				     "link_layer", l->link_layer, "netdev", str_or_null(l->netdev),
				     "pci", bdf_or_null(t, p->pci), "gids", gids));
	}
	return a;
}

static json_t *paths_json(const struct ix_topo *t)
{
	json_t *devs = json_array(), *labels = json_array(), *m = json_array();

	for (size_t a = 0; a < t->npath; a++) {
		json_t *row = json_array();
		char label[16];

		snprintf(label, sizeof(label), "%s%zu", a < t->ngpus ? "GPU" : "NIC",
			 a < t->ngpus ? a : a - t->ngpus);
		json_array_append_new(devs, json_string(t->pci.v[t->path_dev[a]].bdf));
		json_array_append_new(labels, json_string(label));
		for (size_t b = 0; b < t->npath; b++)
			json_array_append_new(row,
					      json_string(ix_path_name(
						      (enum ix_path)t->paths[a * t->npath + b])));
		json_array_append_new(m, row);
	}
	return json_pack("{s:o,s:o,s:o}", "devices", devs, "labels", labels, "matrix", m);
}

json_t *ix_json_topo(const struct ix_topo *t)
{
	json_t *cxl = json_array(), *findings = json_array(), *notes = json_array();

	for (size_t i = 0; i < t->ncxl; i++)
		json_array_append_new(cxl, json_pack("{s:s,s:o,s:o}", "name", t->cxl[i].name, "pci",
						     bdf_or_null(t, t->cxl[i].pci), "numa_node",
						     t->cxl[i].numa_node >= 0
							     ? json_integer(t->cxl[i].numa_node)
							     : json_null()));
	for (size_t i = 0; i < t->nfindings; i++)
		json_array_append_new(
			findings,
			json_pack("{s:s,s:s,s:s,s:s}", "kind", ix_finding_name(t->findings[i].kind),
				  "severity", t->findings[i].error ? "error" : "warn", "device",
				  t->findings[i].device, "message", t->findings[i].message));
	for (size_t i = 0; i < t->pci.nnotes; i++)
		json_array_append_new(notes, json_string(t->pci.notes[i]));
	return json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "kind", "topo", "numa",
			 numa_json(t), "pci", pci_json(t), "interfaces", ifaces_json(t), "rdma",
			 ports_json(t), "cxl", cxl, "paths", paths_json(t), "findings", findings,
			 "notes", notes);
}

/* ---- text ---------------------------------------------------------------- */

static void link_text(const struct ix_pci_link *l, char *buf, size_t len)
{
	if (!l->present)
		buf[0] = '\0';
	else
		snprintf(buf, len, "  Gen%d x%d (%.0f Gbit/s)%s", l->gen, l->width, l->bps / 1e9,
			 l->downtrained ? "  DOWNTRAINED" : "");
}

static bool interesting(const struct ix_pci_dev *d)
{
	return d->type != IX_PCI_OTHER || d->nnetdevs || d->nrdma;
}

static void tree(FILE *f, const struct ix_topo *t, int parent, const char *hb, int depth)
{
	for (size_t i = 0; i < t->pci.n; i++) {
		const struct ix_pci_dev *d = &t->pci.v[i];
		char l[96], extra[160] = "", numa[16];

		if (d->parent != parent || (parent < 0 && strcmp(d->host_bridge, hb) != 0))
			continue;
		link_text(&d->link, l, sizeof(l));
		if (d->nnetdevs || d->nrdma)
			snprintf(extra, sizeof(extra), "  [%s%s%s]",
				 d->nnetdevs ? d->netdevs[0] : "",
				 d->nnetdevs && d->nrdma ? " " : "", d->nrdma ? d->rdma[0] : "");
		snprintf(numa, sizeof(numa), d->numa_node >= 0 ? "%d" : "-", d->numa_node);
		if (interesting(d))
			fprintf(f, "%*s%s %-17s %04x:%04x %-10s numa %-2s%s%s\n", 2 * depth + 2, "",
				d->bdf, ix_pci_type_name(d->type), d->vendor, d->device,
				d->driver[0] ? d->driver : "-", numa, l, extra);
		tree(f, t, (int)i, hb, depth + 1);
	}
}

static void tree_all(FILE *f, const struct ix_topo *t)
{
	char last[32] = "";

	fprintf(f, "PCI tree (%zu functions; other devices without a netdev are left out):\n",
		t->pci.n);
	for (size_t i = 0; i < t->pci.n; i++) {
		const char *hb = t->pci.v[i].host_bridge;
		bool seen = strcmp(hb, last) == 0;

		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(t->pci.v[k].host_bridge, hb) == 0;
		if (seen)
			continue;
		snprintf(last, sizeof(last), "%s", hb);
		fprintf(f, "%s\n", hb);
		tree(f, t, -1, hb, 0);
	}
}

static void matrix_text(FILE *f, const struct ix_topo *t)
{
	if (!t->npath) {
		fprintf(f, "\nNo GPUs or NICs: no path matrix.\n");
		return;
	}
	fprintf(f,
		"\nPaths (X self, PIX one PCIe switch, PXB several switches, PHB host bridge,\n"
		"NODE between host bridges of a NUMA node, SYS between NUMA nodes):\n%8s",
		"");
	for (size_t b = 0; b < t->npath; b++)
		fprintf(f, " %5s%-2zu", b < t->ngpus ? "GPU" : "NIC",
			b < t->ngpus ? b : b - t->ngpus);
	fprintf(f, "  NUMA  PCI\n");
	for (size_t a = 0; a < t->npath; a++) {
		int nn = ix_topo_numa(t, t->path_dev[a]);

		fprintf(f, "%s%-5zu", a < t->ngpus ? "GPU" : "NIC",
			a < t->ngpus ? a : a - t->ngpus);
		for (size_t b = 0; b < t->npath; b++)
			fprintf(f, " %7s", ix_path_name((enum ix_path)t->paths[a * t->npath + b]));
		if (nn >= 0)
			fprintf(f, "  %4d  %s\n", nn, t->pci.v[t->path_dev[a]].bdf);
		else
			fprintf(f, "  %4s  %s\n", "-", t->pci.v[t->path_dev[a]].bdf);
	}
}

static void network_text(FILE *f, const struct ix_topo *t)
{
	static const struct ix_unit_choice bits = { .kind = IX_UNITS_BITS };
	char sp[32];

	fprintf(f, "\nInterfaces:\n");
	for (size_t i = 0; i < t->nifaces; i++) {
		const struct ix_iface *x = &t->ifaces[i];

		if (x->link->speed_known)
			ix_fmt_rate(x->link->speed_bps, &bits, sp, sizeof(sp));
		else
			snprintf(sp, sizeof(sp), "-");
		fprintf(f, "  %-16s %-8s %12s  mtu %-6u %-12s %s\n", x->link->name, x->link->state,
			sp, x->link->mtu, x->driver[0] ? x->driver : "-",
			x->pci >= 0 ? t->pci.v[x->pci].bdf : "");
	}
	if (t->nports)
		fprintf(f, "\nRDMA ports:\n");
	for (size_t i = 0; i < t->nports; i++) {
		const struct ix_rdma_port *p = &t->ports[i];

		if (p->link->speed_known)
			ix_fmt_rate(p->link->speed_bps, &bits, sp, sizeof(sp));
		else
			snprintf(sp, sizeof(sp), "-");
		fprintf(f, "  %-12s %-10s %-10s %12s  %-10s %s%s\n", p->link->name, p->link->state,
			p->link->phys_state, sp, p->link->link_layer,
			p->link->netdev[0] ? "netdev " : "", p->link->netdev);
		for (size_t k = 0; k < p->ngids; k++)
			fprintf(f, "      gid %-3u %-40s %-8s %s\n", p->gids[k].index,
				p->gids[k].gid, p->gids[k].type[0] ? p->gids[k].type : "-",
				p->gids[k].netdev);
	}
}

void ix_text_topo(FILE *f, const struct ix_topo *t)
{
	tree_all(f, t);
	matrix_text(f, t);
	fprintf(f, "\nNUMA nodes:\n");
	for (size_t i = 0; i < t->nnuma; i++)
		fprintf(f, "  node %-3d cpus %-20s %s\n", t->numa[i].node,
			t->numa[i].cpus[0] ? t->numa[i].cpus : "none (memory only)",
			t->numa[i].memory_known ? "" : "memory unknown");
	for (size_t i = 0; i < t->ncxl; i++)
		fprintf(f, "  CXL %s on %s, NUMA node %d\n", t->cxl[i].name,
			t->cxl[i].pci >= 0 ? t->pci.v[t->cxl[i].pci].bdf : "?",
			t->cxl[i].numa_node);
	network_text(f, t);
	fprintf(f, "\n%zu finding(s)%s\n", t->nfindings, t->nfindings ? ":" : ".");
	for (size_t i = 0; i < t->nfindings; i++)
		fprintf(f, "  %s %-16s %s\n", t->findings[i].error ? "ERROR" : "WARN ",
			ix_finding_name(t->findings[i].kind), t->findings[i].message);
	for (size_t i = 0; i < t->pci.nnotes; i++)
		fprintf(f, "  note: %s\n", t->pci.notes[i]);
}
