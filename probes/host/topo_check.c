/* What is wrong with a machine, from its topology: one finding per
 * problem, each a sentence an operator can act on. */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/host/sysfs.h"
#include "probes/host/topo_check.h"

#define ROCE_MTU_NEEDED 4200 /* a 4096-byte RDMA path MTU plus its headers */

__attribute__((format(printf, 5, 6))) static void add(struct ix_topo *t, enum ix_finding_kind kind,
						      bool error, const char *device,
						      const char *fmt, ...)
{
	struct ix_finding *v = realloc(t->findings, (t->nfindings + 1) * sizeof(*v)), *f;
	va_list ap;

	if (!v)
		return;
	t->findings = v;
	f = &v[t->nfindings++];
	f->kind = kind;
	f->error = error;
	snprintf(f->device, sizeof(f->device), "%s", device);
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
	va_end(ap);
}

/* "nic 15b3:1021, mlx5_core" */
static void what(const struct ix_pci_dev *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s %04x:%04x%s%s", ix_pci_type_name(d->type), d->vendor, d->device,
		 d->driver[0] ? ", " : "", d->driver);
}

static void check_links(struct ix_topo *t)
{
	for (size_t i = 0; i < t->pci.n; i++) {
		const struct ix_pci_dev *d = &t->pci.v[i];
		const struct ix_pci_link *l = &d->link;
		char w[128];

		bool port = d->type == IX_PCI_ROOT_PORT || d->type == IX_PCI_SWITCH_DOWN;

		/* A link is reported by its downstream end: root and switch
		 * downstream ports show the same link as the device below,
		 * and speak for it only where that device is not listed. */
		if (!l->present || (port && ix_pci_link_partner(&t->pci, i) >= 0))
			continue;
		what(d, w, sizeof(w));
		if (l->idle_slow)
			ix_pci_note(&t->pci,
				    "%s (%s) runs at Gen%d x%d, below Gen%d: GPUs slow their link "
				    "when idle, so this is not flagged; check it under load",
				    d->bdf, w, l->gen, l->width, l->expected_gen);
		if (!l->downtrained)
			continue;
		add(t, IX_FIND_DOWNTRAINED, false, d->bdf,
		    "%s (%s) trained at Gen%d x%d but both ends support Gen%d x%d: %.0f of %.0f "
		    "Gbit/s per direction.",
		    d->bdf, w, l->gen, l->width, l->expected_gen, l->expected_width, l->bps / 1e9,
		    l->expected_bps / 1e9);
	}
}

/* Where the link's Link Status 2 says retimers sit on it, they are
 * suspects too: "; a retimer sits on this link (...)", else "". */
static const char *retimer_suspect(const struct ix_pci_link *l)
{
	if (!l->retimers_known || l->retimers <= 0)
		return "";
	return l->retimers == 1 ? "; a retimer sits on this link (PCIe Link Status 2): a suspect "
				  "beside the device and its slot"
				: "; 2 retimers sit on this link (PCIe Link Status 2): suspects "
				  "beside the device and its slot";
}

static void check_aer(struct ix_topo *t)
{
	for (size_t i = 0; i < t->pci.n; i++) {
		const struct ix_pci_dev *d = &t->pci.v[i];
		const char *rt = retimer_suspect(&d->link);
		char w[128];

		if (!d->aer_known || !(d->aer_cor || d->aer_nonfatal || d->aer_fatal))
			continue;
		what(d, w, sizeof(w));
		if (d->aer_nonfatal || d->aer_fatal)
			add(t, IX_FIND_AER, true, d->bdf,
			    "%s (%s) reported %llu non-fatal and %llu fatal uncorrectable PCIe "
			    "errors (and %llu correctable) since boot%s.",
			    d->bdf, w, (unsigned long long)d->aer_nonfatal,
			    (unsigned long long)d->aer_fatal, (unsigned long long)d->aer_cor, rt);
		else if (rt[0])
			add(t, IX_FIND_AER, false, d->bdf,
			    "%s (%s) reported %llu correctable PCIe errors since boot%s.", d->bdf,
			    w, (unsigned long long)d->aer_cor, rt);
		else
			add(t, IX_FIND_AER, false, d->bdf,
			    "%s (%s) reported %llu correctable PCIe errors since boot: a marginal "
			    "link, slot or retimer.",
			    d->bdf, w, (unsigned long long)d->aer_cor);
	}
}

static const char *state_word(const char *s)
{
	const char *colon = strchr(s, ':');

	return colon ? colon + 1 + (colon[1] == ' ') : s;
}

static void check_ports(struct ix_topo *t)
{
	int max_mtu = 0;

	for (size_t i = 0; i < t->nports; i++) {
		const struct ix_link *l = t->ports[i].link;
		char name[64];

		snprintf(name, sizeof(name), "%s", l->name);
		if (strcmp(state_word(l->state), "ACTIVE") != 0 ||
		    (l->phys_state[0] && strcmp(state_word(l->phys_state), "LinkUp") != 0))
			add(t, IX_FIND_PORT_STATE, true, name,
			    "RDMA port %s is %s (physical state %s), not ACTIVE/LinkUp: it carries "
			    "no RDMA traffic%s.",
			    l->name, l->state[0] ? state_word(l->state) : "unknown",
			    l->phys_state[0] ? state_word(l->phys_state) : "unknown",
			    strcmp(state_word(l->state), "INIT") == 0 ? " until a subnet manager "
									"activates it"
								      : "");
	}
	/* RoCE ports: their netdev's MTU bounds the RDMA path MTU. */
	for (size_t i = 0; i < t->nports; i++) {
		const struct ix_link *l = t->ports[i].link, *nd;

		if (strcmp(l->link_layer, "Ethernet") != 0 || !l->netdev[0] ||
		    !(nd = ix_links_find(&t->links, l->netdev)) || !nd->mtu_known)
			continue;
		if ((int)nd->mtu > max_mtu)
			max_mtu = (int)nd->mtu;
	}
	for (size_t i = 0; i < t->nports; i++) {
		const struct ix_link *l = t->ports[i].link, *nd;

		if (strcmp(l->link_layer, "Ethernet") != 0 || !l->netdev[0] ||
		    !(nd = ix_links_find(&t->links, l->netdev)) || !nd->mtu_known)
			continue;
		if (nd->mtu < ROCE_MTU_NEEDED)
			add(t, IX_FIND_MTU, false, nd->name,
			    "RoCE port %s runs on %s with MTU %u: RDMA cannot use a 4096-byte path "
			    "MTU (the netdev needs %d or more)%s.",
			    l->name, nd->name, nd->mtu, ROCE_MTU_NEEDED,
			    (int)nd->mtu < max_mtu ? ", and other RoCE ports here use more" : "");
		else if ((int)nd->mtu < max_mtu)
			add(t, IX_FIND_MTU, false, nd->name,
			    "RoCE port %s runs on %s with MTU %u while other RoCE ports here use "
			    "%d.",
			    l->name, nd->name, nd->mtu, max_mtu);
	}
}

/* A virtual function shares its parent's placement: not judged apart. */
static bool is_vf(const char *root, const char *bdf)
{
	char rel[128], path[PATH_MAX];

	snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/physfn", bdf);
	return ix_sysfs_path(path, sizeof(path), root, rel) && access(path, F_OK) == 0;
}

static void check_numa(const char *root, struct ix_topo *t)
{
	for (size_t k = t->ngpus; k < t->npath && t->ngpus; k++) {
		int nic = t->path_dev[k], best = -1, nn = ix_topo_numa(t, nic), gn;
		enum ix_path bp = IX_PATH_SYS;
		const struct ix_pci_dev *d = &t->pci.v[nic];

		/* RDMA-capable NICs feed the GPUs; management NICs do not. */
		if ((d->type != IX_PCI_IB && !d->nrdma) || is_vf(root, d->bdf) || nn < 0)
			continue;
		for (size_t g = 0; g < t->ngpus; g++) {
			enum ix_path p = (enum ix_path)t->paths[k * t->npath + g];

			if (best < 0 || p < bp) {
				best = t->path_dev[g];
				bp = p;
			}
		}
		gn = ix_topo_numa(t, best);
		if (best >= 0 && gn >= 0 && gn != nn)
			add(t, IX_FIND_NUMA_FAR, false, d->bdf,
			    "NIC %s (%s) is on NUMA node %d but its nearest GPU %s is on node %d "
			    "(%s): GPUDirect RDMA through it crosses the socket interconnect.",
			    d->bdf, d->nrdma ? d->rdma[0] : d->driver, nn, t->pci.v[best].bdf, gn,
			    ix_path_name(bp));
	}
}

/* CXL memory devices: the protocols their links trained with (a link at
 * PCIe only leaves the memory unreachable), a device the driver did not
 * enable or that has no endpoint port (no decoders), a region not
 * committed. Their PCIe links are judged with every other link. */
static void check_cxl(struct ix_topo *t)
{
	const struct ix_cxl *c = &t->cxl;
	char issue[384];

	for (size_t i = 0; i < c->nmemdevs; i++) {
		const struct ix_cxl_memdev *m = &c->memdevs[i];

		if (ix_cxl_link_issue(m, issue, sizeof(issue)))
			add(t, IX_FIND_CXL, true, m->name, "CXL memory device %s.", issue);
		else if (c->tree && (!m->enabled || m->endpoint < 0))
			add(t, IX_FIND_CXL, false, m->name,
			    "CXL memory device %s (%s) %s: its decoders and memory are not set "
			    "up (cxl_mem not loaded, or no CXL port path to a root).",
			    m->name, m->host,
			    !m->enabled ? "is not enabled" : "has no endpoint port");
	}
	for (size_t i = 0; i < c->nregions; i++)
		if (!c->regions[i].committed)
			add(t, IX_FIND_CXL, false, c->regions[i].name,
			    "CXL region %s (of %s) is not committed: its memory is not decoded.",
			    c->regions[i].name, c->regions[i].decoder);
}

void ix_topo_check(const char *root, struct ix_topo *t)
{
	check_links(t);
	check_ports(t);
	check_numa(root, t);
	check_aer(t);
	check_cxl(t);
}

int ix_topo_read(const char *root, struct ix_topo *t, struct ix_err *err)
{
	if (ix_topo_scan(root, t, err) < 0)
		return -1;
	ix_topo_check(root, t);
	return 0;
}
