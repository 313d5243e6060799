/* The topology as text: a tree, a path matrix in nvidia-smi's terms, the
 * network side and the findings. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/fmt/units.h"
#include "report/text/text.h"

static void link_text(const struct ix_pci_link *l, char *buf, size_t len)
{
	bool rt = l->retimers_known && l->retimers > 0;

	if (!l->present)
		buf[0] = '\0';
	else
		snprintf(buf, len, "  Gen%d x%d (%.0f Gbit/s)%s%s", l->gen, l->width, l->bps / 1e9,
			 !rt                ? ""
			 : l->retimers == 1 ? "  retimer"
					    : "  2 retimers",
			 l->downtrained ? "  DOWNTRAINED" : "");
}

/* Addresses are 12 characters, longer in domains above ffff. */
static int bdf_width(const struct ix_topo *t)
{
	size_t w = 12;

	for (size_t i = 0; i < t->pci.n; i++)
		if (strlen(t->pci.v[i].bdf) > w)
			w = strlen(t->pci.v[i].bdf);
	return (int)w;
}

static void tree(FILE *f, const struct ix_topo *t, int parent, const char *hb, int depth, int w)
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
		if (ix_tree_shown(t, i))
			fprintf(f, "%*s%-*s %-17s %04x:%04x %-10s numa %-2s%s%s\n", 2 * depth + 2,
				"", w, d->bdf, ix_pci_type_name(d->type), d->vendor, d->device,
				d->driver[0] ? d->driver : "-", numa, l, extra);
		tree(f, t, (int)i, hb, depth + 1, w);
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
		tree(f, t, -1, hb, 0, bdf_width(t));
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
		"NODE between host bridges of a NUMA node, SYS between NUMA nodes,\n"
		"? where a function's place in the PCI tree is unknown):\n%8s",
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
	ix_text_numa(f, t);
	ix_text_cxl(f, t);
	network_text(f, t);
	fprintf(f, "\n%zu finding(s)%s\n", t->nfindings, t->nfindings ? ":" : ".");
	for (size_t i = 0; i < t->nfindings; i++)
		fprintf(f, "  %s %-16s %s\n", t->findings[i].error ? "ERROR" : "WARN ",
			ix_finding_name(t->findings[i].kind), t->findings[i].message);
	for (size_t i = 0; i < t->pci.nnotes; i++)
		fprintf(f, "  note: %s\n", t->pci.notes[i]);
}

void ix_text_tree(FILE *f, const struct ix_tree *tr)
{
	static const struct ix_unit_choice bits = { .kind = IX_UNITS_BITS };
	char load[48], rate[32];

	for (size_t i = 0; i < tr->n; i++) {
		const struct ix_tree_node *n = &tr->v[i];

		load[0] = '\0';
		if (n->load_known) {
			ix_fmt_rate(n->load_bps, &bits, rate, sizeof(rate));
			if (n->has_link && n->link_bps > 0)
				snprintf(load, sizeof(load), "%s (%.0f%%%s)", rate, 100 * n->load,
					 n->measured ? " measured" : "");
			else
				snprintf(load, sizeof(load), "%s", rate);
		}
		fprintf(f, "%*s%-16s %-28s %-9s %-12s %-20s%s%s\n", 2 * n->depth, "", n->name,
			n->what, n->ids, n->link, load,
			n->health == IX_TREE_BAD    ? "PROBLEM: "
			: n->health == IX_TREE_WARN ? "warning: "
						    : "",
			n->issue);
	}
	if (!tr->n)
		fprintf(f, "no PCI functions to show\n");
}
