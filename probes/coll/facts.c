/*
 * What a rank's node says of the links its collective runs over, and the
 * bus bandwidth those links allow.
 *
 * The ceiling follows the ring that NCCL and RCCL build, a ring per
 * channel: each GPU sends and receives its whole share of busbw over its
 * links to the other GPUs of its node, so within a node busbw is at most
 * the slowest GPU's NVLinks together (every GPU of the node on NVLink), or
 * its PCIe link (peer traffic through PCIe); across nodes each ring
 * crosses a node boundary through one NIC, so busbw is at most the rates
 * of a node's NICs together, the node with the least setting it. NVLink
 * SHARP and in-network reductions can go above it; a share over 1 says so.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probes/coll/coll.h"
#include "probes/gpu/nvml.h"
#include "probes/host/fabric.h"
#include "probes/host/links.h"
#include "probes/host/topo.h"

/* The PCI index of bdf in t, or -1. */
static int pci_index(const struct ix_topo *t, const char *bdf)
{
	for (size_t i = 0; i < t->pci.n; i++)
		if (!strcasecmp(t->pci.v[i].bdf, bdf))
			return (int)i;
	return -1;
}

/* The link that carries PCI function pci: an active RDMA port first, then a
 * network interface; NULL when none. */
static const struct ix_link *nic_link(const struct ix_topo *t, int pci)
{
	const struct ix_link *any = NULL;

	for (size_t i = 0; i < t->nports; i++)
		if (t->ports[i].pci == pci && t->ports[i].link) {
			if (strstr(t->ports[i].link->state, "ACTIVE")) /* "4: ACTIVE" */
				return t->ports[i].link;
			any = any ? any : t->ports[i].link;
		}
	for (size_t i = 0; !any && i < t->nifaces; i++)
		if (t->ifaces[i].pci == pci && t->ifaces[i].link)
			any = t->ifaces[i].link;
	return any;
}

/* Where the NIC's fabric counters are: an RDMA port, or a network device. */
static void where_of(const char *nic, struct ix_fabric_where *w, char *dev, size_t len)
{
	const char *slash = strchr(nic, '/');

	memset(w, 0, sizeof(*w));
	if (slash) {
		snprintf(dev, len, "%.*s", (int)(slash - nic), nic);
		w->rdma_dev = dev;
		w->port = (unsigned)strtoul(slash + 1, NULL, 10); /* 0 (the first) if none */
	} else {
		snprintf(dev, len, "%s", nic);
		w->iface = dev;
	}
}

/* The NIC nearest the GPU at PCI index g, by the topology's path classes. */
static void nearest_nic(const struct ix_topo *t, int g, struct ix_coll_facts *f)
{
	size_t gi = t->npath, best = t->npath;
	enum ix_path bp = IX_PATH_UNKNOWN;

	for (size_t i = 0; i < t->ngpus; i++)
		if (t->path_dev[i] == g)
			gi = i;
	if (gi == t->npath)
		return;
	for (size_t j = t->ngpus; j < t->npath; j++) {
		enum ix_path p = (enum ix_path)t->paths[gi * t->npath + j];

		if (nic_link(t, t->path_dev[j]) && (best == t->npath || p < bp)) {
			best = j;
			bp = p;
		}
	}
	if (best == t->npath)
		return;
	const struct ix_link *l = nic_link(t, t->path_dev[best]);

	snprintf(f->nic, sizeof(f->nic), "%.47s", l->name);
	snprintf(f->nic_path, sizeof(f->nic_path), "%s", ix_path_name(bp));
	f->nic_Bps = l->speed_known ? l->speed_bps / 8 : 0;
}

void ix_coll_facts_read(const char *root, const char *nvml_lib, const char *pci_bus_id,
			struct ix_coll_facts *f, struct ix_ctr_set *before)
{
	struct ix_topo t;
	struct ix_nvlinks nv;
	struct ix_err err = { 0 };
	struct ix_fabric_where w;
	char dev[48];
	int g;

	memset(f, 0, sizeof(*f));
	ix_ctr_set_init(before);
	f->nvlinks = -1;
	if (!pci_bus_id || !pci_bus_id[0])
		return;
	if (ix_nvml_nvlinks(nvml_lib, pci_bus_id, &nv, &err) == 0) {
		f->nvlinks = nv.active;
		f->nvlink_version = nv.version;
		f->nvlink_Bps = nv.Bps;
	} else {
		snprintf(f->nvml_error, sizeof(f->nvml_error), "%.127s", err.msg);
	}
	if (ix_topo_scan(root ? root : "", &t, &err) < 0)
		return;
	g = pci_index(&t, pci_bus_id);
	if (g >= 0 && t.pci.v[g].link.present) {
		const struct ix_pci_link *l = &t.pci.v[g].link;

		f->pcie_known = l->bps > 0;
		f->pcie_gen = l->gen;
		f->pcie_width = l->width;
		f->pcie_max_gen = l->max_gen;
		f->pcie_max_width = l->max_width;
		f->pcie_Bps = l->bps / 8;
		f->pcie_downtrained = l->downtrained;
	}
	if (g >= 0)
		nearest_nic(&t, g, f);
	ix_topo_free(&t);
	if (f->nic[0]) {
		where_of(f->nic, &w, dev, sizeof(dev));
		ix_fabric_snapshot(root, &w, before);
	}
}

void ix_coll_facts_end(const char *root, struct ix_coll_facts *f, struct ix_ctr_set *before)
{
	struct ix_ctr_set after, moved;
	struct ix_fabric_where w;
	char dev[48];

	ix_ctr_set_init(&after);
	ix_ctr_set_init(&moved);
	if (f->nic[0] && before->valid) {
		where_of(f->nic, &w, dev, sizeof(dev));
		ix_fabric_snapshot(root, &w, &after);
		if (after.valid && ix_ctr_delta(before, &after, &moved) >= 0) {
			ix_ctr_summarize(&moved, &f->fabric_moved);
			f->fabric_known = true;
		}
	}
	ix_ctr_set_free(&moved);
	ix_ctr_set_free(&after);
	ix_ctr_set_free(before);
}

/* The ranks on rank r's node (same node name). */
static int node_ranks(const struct ix_coll_result *r, int k)
{
	int n = 0;

	for (int i = 0; i < r->nranks; i++)
		n += !strcmp(r->ranks[i].node, r->ranks[k].node);
	return n;
}

/* Within nodes: the slowest GPU's links to its node's other GPUs. */
static void within(const struct ix_coll_result *r, struct ix_coll_ceiling *c)
{
	bool nvlink_all = true;

	for (int i = 0; i < r->nranks; i++) {
		const struct ix_coll_facts *f = &r->ranks[i].facts;

		if (node_ranks(r, i) < 2)
			continue;
		/* AMD GPUs talk over xGMI (Infinity Fabric), which nothing here
		 * reads: a PCIe figure could be far below what they reach. */
		if (!strcmp(r->gpu_backend, "rocm")) {
			snprintf(
				c->unknown, sizeof(c->unknown),
				"rank %d on %.64s: the GPUs' xGMI links are not read (NVLink only)",
				i, r->ranks[i].node);
			return;
		}
		if (f->nvlinks <= 0)
			nvlink_all = false;
	}
	for (int i = 0; i < r->nranks; i++) {
		const struct ix_coll_rank *k = &r->ranks[i];
		const struct ix_coll_facts *f = &k->facts;
		double b = nvlink_all ? f->nvlink_Bps : f->pcie_Bps;

		if (node_ranks(r, i) < 2)
			continue;
		if (!nvlink_all && f->nvlinks < 0 && !c->unknown[0])
			snprintf(c->unknown, sizeof(c->unknown),
				 "rank %d on %.64s: NVLink not read (%.127s)", i, k->node,
				 f->nvml_error[0] ? f->nvml_error : "no NVML");
		if (!nvlink_all && !f->pcie_known && !c->unknown[0])
			snprintf(c->unknown, sizeof(c->unknown),
				 "rank %d on %s: no PCIe link for GPU %s in sysfs", i, k->node,
				 k->pci_bus_id);
		if (nvlink_all && b <= 0 && !c->unknown[0])
			snprintf(c->unknown, sizeof(c->unknown),
				 "rank %d on %s: NVLink version %d not known", i, k->node,
				 f->nvlink_version);
		if (b <= 0 || (c->Bps > 0 && b >= c->Bps))
			continue;
		c->Bps = b;
		if (nvlink_all) {
			snprintf(c->limit, sizeof(c->limit), "nvlink");
			snprintf(c->why, sizeof(c->why),
				 "NVLink %s, %d links x %.0f GB/s each way (rank %d on %s)",
				 ix_nvlink_version_name(f->nvlink_version), f->nvlinks,
				 ix_nvlink_link_Bps(f->nvlink_version) / 1e9, i, k->node);
		} else {
			snprintf(c->limit, sizeof(c->limit), "pcie");
			snprintf(c->why, sizeof(c->why),
				 "PCIe Gen%d x%d, %.1f GB/s each way (rank %d on %s, GPU %s)",
				 f->pcie_gen, f->pcie_width, f->pcie_Bps / 1e9, i, k->node,
				 k->pci_bus_id);
		}
	}
}

/* Across nodes: the node whose NICs carry the least together. */
static void across(const struct ix_coll_result *r, struct ix_coll_ceiling *c)
{
	int *mine = calloc((size_t)r->nranks, sizeof(*mine)); /* one node's ranks */

	if (!mine) {
		snprintf(c->unknown, sizeof(c->unknown), "out of memory");
		return;
	}
	for (int i = 0; i < r->nranks; i++) {
		const struct ix_coll_rank *k = &r->ranks[i];
		double sum = 0;
		int nics = 0, n = 0;
		bool first = true, unknown = false;

		for (int j = 0; j < i && first; j++) /* each node once, at its first rank */
			first = strcmp(r->ranks[j].node, k->node) != 0;
		if (!first)
			continue;
		for (int j = i; j < r->nranks; j++)
			if (!strcmp(r->ranks[j].node, k->node))
				mine[n++] = j;
		for (int a = 0; a < n; a++) {
			const struct ix_coll_facts *f = &r->ranks[mine[a]].facts;
			bool seen = false;

			for (int b = 0; b < a && !seen; b++) /* a NIC two GPUs share counts once */
				seen = !strcmp(r->ranks[mine[b]].facts.nic, f->nic);
			if (!f->nic[0] || f->nic_Bps <= 0)
				unknown = true;
			else if (!seen) {
				sum += f->nic_Bps;
				nics++;
			}
		}
		if (unknown && !c->unknown[0])
			snprintf(c->unknown, sizeof(c->unknown),
				 "%s: a rank's NIC or its rate not found in sysfs", k->node);
		if (sum <= 0 || (c->Bps > 0 && sum >= c->Bps))
			continue;
		c->Bps = sum;
		snprintf(c->limit, sizeof(c->limit), "network");
		snprintf(c->why, sizeof(c->why), "%s: %d NIC%s, %.1f GB/s together each way",
			 k->node, nics, nics == 1 ? "" : "s", sum / 1e9);
	}
	free(mine);
}

void ix_coll_ceiling(struct ix_coll_result *r)
{
	struct ix_coll_ceiling *c = &r->ceiling;

	memset(c, 0, sizeof(*c));
	if (r->nranks < 2 || !r->ranks)
		return;
	within(r, c);
	if (r->nnodes > 1)
		across(r, c);
	/* A part not read leaves the whole unknown: a ceiling from the rest
	 * could be above what the unread link allows. */
	if (c->unknown[0]) {
		c->Bps = 0;
		c->limit[0] = c->why[0] = '\0';
	}
	for (int i = r->nrows - 1; i >= 0 && c->Bps > 0; i--) {
		const struct ix_coll_cell *x = &r->rows[i].cell[IX_COLL_OUT_OF_PLACE];

		if (x->measured) {
			c->share = x->busbw / c->Bps;
			break;
		}
	}
}
