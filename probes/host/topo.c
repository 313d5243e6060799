#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/host/sysfs.h"
#include "probes/host/topo.h"

const char *ix_path_name(enum ix_path p)
{
	static const char *const names[] = { "X", "PIX", "PXB", "PHB", "NODE", "SYS", "?" };
	return p <= IX_PATH_UNKNOWN ? names[p] : "?";
}

const char *ix_finding_name(enum ix_finding_kind k)
{
	static const char *const names[] = {
		"pcie_downtrained", "rdma_port_state", "mtu_mismatch", "numa_far", "aer", "cxl"
	};
	return k <= IX_FIND_CXL ? names[k] : "?";
}

static int numa_cmp(const void *a, const void *b)
{
	return ((const struct ix_numa_node *)a)->node - ((const struct ix_numa_node *)b)->node;
}

/* NUMA nodes that hold a GPU's memory: "Node: 250" in the numa_status
 * NVIDIA's driver keeps for each GPU whose memory is online. */
static void gpu_memory_nodes(const char *root, struct ix_topo *t)
{
	for (size_t i = 0; i < t->pci.n; i++) {
		char rel[96], path[PATH_MAX], line[128];
		FILE *f;
		long node = -1;

		if (t->pci.v[i].type != IX_PCI_GPU)
			continue;
		snprintf(rel, sizeof(rel), "/proc/driver/nvidia/gpus/%s/numa_status",
			 t->pci.v[i].bdf);
		if (!ix_sysfs_path(path, sizeof(path), root, rel) || !(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "Node:", 5) == 0) {
				char *end;

				node = strtol(line + 5, &end, 10);
				if (end == line + 5)
					node = -1;
			}
		fclose(f);
		for (size_t k = 0; k < t->nnuma && node >= 0; k++)
			if (t->numa[k].node == node && !t->numa[k].cpus[0])
				snprintf(t->numa[k].gpu, sizeof(t->numa[k].gpu), "%s",
					 t->pci.v[i].bdf);
	}
}

static void read_numa(const char *root, struct ix_topo *t)
{
	char dir_path[2048];
	struct dirent *e;
	DIR *dir;

	if (!ix_sysfs_path(dir_path, sizeof(dir_path), root, "/sys/devices/system/node") ||
	    !(dir = opendir(dir_path)))
		return;
	while ((e = readdir(dir))) {
		char path[PATH_MAX], line[256], *end;
		struct ix_numa_node *v, *nd;
		long node = strtol(e->d_name + 4, &end, 10);
		FILE *f;

		if (strncmp(e->d_name, "node", 4) != 0 || end == e->d_name + 4 || *end || node < 0)
			continue;
		v = realloc(t->numa, (t->nnuma + 1) * sizeof(*v));
		if (!v)
			break;
		t->numa = v;
		nd = &v[t->nnuma++];
		memset(nd, 0, sizeof(*nd));
		nd->node = (int)node;
		snprintf(path, sizeof(path), "%s/%.255s/cpulist", dir_path, e->d_name);
		if (ix_sysfs_read(path, nd->cpus, sizeof(nd->cpus)) < 0)
			nd->cpus[0] = '\0';
		snprintf(path, sizeof(path), "%s/%.255s", dir_path, e->d_name);
		ix_hmat_read(path, 0, &nd->access[0]);
		ix_hmat_read(path, 1, &nd->access[1]);
		snprintf(path, sizeof(path), "%s/%.255s/meminfo", dir_path, e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		while (fgets(line, sizeof(line), f)) {
			char *mt = strstr(line, "MemTotal:");
			unsigned long long kb;

			if (mt && sscanf(mt + 9, "%llu", &kb) == 1) {
				nd->memory_known = true;
				nd->memory_bytes = kb * 1024;
			}
		}
		fclose(f);
	}
	closedir(dir);
	if (t->nnuma)
		qsort(t->numa, t->nnuma, sizeof(*t->numa), numa_cmp);
}

/* The PCI function a sysfs object hangs from: the nearest BDF component of
 * its real path that is a listed function. */
static int pci_of(const char *root, const struct ix_pci *pci, const char *path)
{
	char rel[PATH_MAX];

	if (ix_sysfs_device_path(root, path, rel, sizeof(rel)) < 0)
		return -1;
	for (char *slash; (slash = strrchr(rel, '/')); *slash = '\0') {
		int i;

		if (ix_sysfs_is_bdf(slash + 1) && (i = ix_pci_find(pci, slash + 1)) >= 0)
			return i;
	}
	return -1;
}

static void read_ifaces(const char *root, struct ix_topo *t)
{
	t->ifaces = calloc(t->links.n + 1, sizeof(*t->ifaces));
	if (!t->ifaces)
		return;
	for (size_t i = 0; i < t->links.n; i++) {
		const struct ix_link *l = &t->links.v[i];
		struct ix_iface *f;
		char rel[128], path[PATH_MAX];

		if (l->kind != IX_LINK_NET)
			continue;
		f = &t->ifaces[t->nifaces++];
		f->link = l;
		snprintf(rel, sizeof(rel), "/sys/class/net/%s/device", l->name);
		if (!ix_sysfs_path(path, sizeof(path), root, rel))
			continue;
		f->pci = pci_of(root, &t->pci, path);
		if (f->pci >= 0) {
			/* virtio and others hang their netdev one level lower. */
			struct ix_pci_dev *d = &t->pci.v[f->pci];
			bool listed = false;

			for (size_t k = 0; k < d->nnetdevs; k++)
				listed |= strcmp(d->netdevs[k], l->name) == 0;
			if (!listed && d->nnetdevs < IX_PCI_NAMES)
				snprintf(d->netdevs[d->nnetdevs++], 32, "%.31s", l->name);
		}
		snprintf(rel, sizeof(rel), "/sys/class/net/%s/device/driver", l->name);
		if (ix_sysfs_path(path, sizeof(path), root, rel))
			ix_sysfs_link_name(path, f->driver, sizeof(f->driver));
	}
}

static void read_gids(const char *root, struct ix_rdma_port *p)
{
	char dir_path[2048], rel[192];
	struct dirent *e;
	DIR *dir;

	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports/%u/gids", p->link->dev,
		 p->link->port);
	if (!ix_sysfs_path(dir_path, sizeof(dir_path), root, rel) || !(dir = opendir(dir_path)))
		return;
	while ((e = readdir(dir)) && p->ngids < IX_TOPO_GIDS) {
		char path[PATH_MAX], *end;
		unsigned long idx = strtoul(e->d_name, &end, 10);
		struct ix_gid *g = &p->gids[p->ngids];

		if (end == e->d_name || *end || idx > 65535)
			continue;
		memset(g, 0, sizeof(*g));
		g->index = (unsigned)idx;
		snprintf(path, sizeof(path), "%s/%.255s", dir_path, e->d_name);
		if (ix_sysfs_read(path, g->gid, sizeof(g->gid)) < 0 ||
		    strspn(g->gid, "0:") == strlen(g->gid))
			continue; /* an unused entry */
		snprintf(path, sizeof(path), "%s/../gid_attrs/types/%lu", dir_path, idx);
		if (ix_sysfs_read(path, g->type, sizeof(g->type)) < 0)
			g->type[0] = '\0';
		if (strcmp(g->type, "IB/RoCE v1") == 0)
			snprintf(g->type, sizeof(g->type), "%s",
				 strcmp(p->link->link_layer, "InfiniBand") == 0 ? "IB" : "RoCE v1");
		snprintf(path, sizeof(path), "%s/../gid_attrs/ndevs/%lu", dir_path, idx);
		if (ix_sysfs_read(path, g->netdev, sizeof(g->netdev)) < 0)
			g->netdev[0] = '\0';
		p->ngids++;
	}
	closedir(dir);
	for (size_t i = 1; i < p->ngids; i++) /* by index */
		for (size_t k = i; k > 0 && p->gids[k - 1].index > p->gids[k].index; k--) {
			struct ix_gid tmp = p->gids[k];
			p->gids[k] = p->gids[k - 1];
			p->gids[k - 1] = tmp;
		}
}

static void read_ports(const char *root, struct ix_topo *t)
{
	t->ports = calloc(t->links.n + 1, sizeof(*t->ports));
	if (!t->ports)
		return;
	for (size_t i = 0; i < t->links.n; i++) {
		const struct ix_link *l = &t->links.v[i];
		struct ix_rdma_port *p;
		char rel[160], path[PATH_MAX];

		if (l->kind != IX_LINK_IB)
			continue;
		p = &t->ports[t->nports++];
		p->link = l;
		p->pci = -1;
		snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/device", l->dev);
		if (ix_sysfs_path(path, sizeof(path), root, rel))
			p->pci = pci_of(root, &t->pci, path);
		read_gids(root, p);
	}
}

/* The CXL bus: through libcxl on the live system, from the memory
 * devices' own directories in a saved tree; then each device's place in
 * the PCI tree (by its address, or by where its directory really is) and
 * what both ends of its link run. */
static void read_cxl(const char *root, struct ix_topo *t)
{
	if (!root)
		root = "";
	if (!*root)
		ix_cxl_read_live(&t->cxl);
	else
		ix_cxl_read_tree(root, &t->cxl);
	for (size_t i = 0; i < t->cxl.nmemdevs; i++) {
		struct ix_cxl_memdev *m = &t->cxl.memdevs[i];
		char rel[96], path[PATH_MAX];
		int up;

		m->pci = ix_pci_find(&t->pci, m->host);
		if (m->pci < 0 &&
		    (size_t)snprintf(rel, sizeof(rel), "/sys/bus/cxl/devices/%s", m->name) <
			    sizeof(rel) &&
		    ix_sysfs_path(path, sizeof(path), root, rel))
			m->pci = pci_of(root, &t->pci, path);
		if (m->pci < 0)
			continue;
		snprintf(m->host, sizeof(m->host), "%s", t->pci.v[m->pci].bdf);
		if ((up = t->pci.v[m->pci].parent) >= 0)
			snprintf(m->port, sizeof(m->port), "%s", t->pci.v[up].bdf);
		ix_cxl_flexbus_read(root, m->host, &m->dev_fb);
		if (m->port[0])
			ix_cxl_flexbus_read(root, m->port, &m->port_fb);
	}
}

int ix_topo_numa(const struct ix_topo *t, int pci)
{
	for (int i = pci; i >= 0; i = t->pci.v[i].parent)
		if (t->pci.v[i].numa_node >= 0)
			return t->pci.v[i].numa_node;
	return -1;
}

int ix_topo_nearest_gpu(const struct ix_topo *t, const char *dev, enum ix_path *path)
{
	int nic = -1, best = -1;

	for (size_t i = 0; i < t->pci.n && nic < 0; i++) {
		const struct ix_pci_dev *d = &t->pci.v[i];

		for (size_t k = 0; k < d->nrdma && nic < 0; k++)
			if (strcmp(d->rdma[k], dev) == 0)
				nic = (int)i;
		for (size_t k = 0; k < d->nnetdevs && nic < 0; k++)
			if (strcmp(d->netdevs[k], dev) == 0)
				nic = (int)i;
	}
	for (size_t g = 0; nic >= 0 && g < t->ngpus; g++) {
		enum ix_path p = ix_topo_path(t, nic, t->path_dev[g]);

		if (best < 0 || p < *path) {
			best = t->path_dev[g];
			*path = p;
		}
	}
	return best;
}

/* The switch a hop on the way up crosses, or -1. */
static int hop_switch(const struct ix_pci *p, int i)
{
	return p->v[i].type == IX_PCI_SWITCH_UP ? i : p->v[i].sw;
}

enum ix_path ix_topo_path(const struct ix_topo *t, int a, int b)
{
	const struct ix_pci *p = &t->pci;
	int lca = -1, sw[64], nsw = 0;
	bool host_bridge = false;

	if (a == b)
		return IX_PATH_SELF;
	for (int x = a; x >= 0 && lca < 0; x = p->v[x].parent)
		for (int y = b; y >= 0; y = p->v[y].parent)
			if (x == y) {
				lca = x;
				break;
			}
	if (lca < 0) {
		int na = ix_topo_numa(t, a), nb = ix_topo_numa(t, b);

		bool far = na >= 0 && nb >= 0 && na != nb;

		if (!p->v[a].host_bridge[0] || !p->v[b].host_bridge[0])
			return far ? IX_PATH_SYS : IX_PATH_UNKNOWN;
		if (strcmp(p->v[a].host_bridge, p->v[b].host_bridge) == 0)
			return IX_PATH_PHB;
		return far ? IX_PATH_SYS : IX_PATH_NODE;
	}
	/* Distinct switches crossed on both sides up to the common bridge, and
	 * whether a host bridge is (that of a VMD domain, whose root ports
	 * hang from the VMD function). */
	for (int side = 0; side < 2; side++)
		for (int x = side ? b : a; x >= 0; x = p->v[x].parent) {
			int s = hop_switch(p, x);
			bool seen = false;

			for (int k = 0; k < nsw; k++)
				seen |= sw[k] == s;
			if (s >= 0 && !seen && nsw < 64)
				sw[nsw++] = s;
			if (x == lca)
				break;
			host_bridge |= p->v[x].below_host_bridge;
		}
	if (host_bridge)
		return IX_PATH_PHB;
	return nsw <= 1 ? IX_PATH_PIX : IX_PATH_PXB;
}

static void paths(struct ix_topo *t)
{
	size_t n = 0;

	t->path_dev = calloc(t->pci.n + 1, sizeof(*t->path_dev));
	if (!t->path_dev)
		return;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < t->pci.n; i++) {
			enum ix_pci_type ty = t->pci.v[i].type;

			if (pass == 0 ? ty == IX_PCI_GPU : ty == IX_PCI_NIC || ty == IX_PCI_IB)
				t->path_dev[n++] = (int)i;
			if (pass == 0)
				t->ngpus = n;
		}
	t->npath = n;
	t->paths = calloc(n * n + 1, 1);
	if (!t->paths)
		return;
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++)
			t->paths[a * n + b] =
				(uint8_t)ix_topo_path(t, t->path_dev[a], t->path_dev[b]);
}

void ix_topo_free(struct ix_topo *t)
{
	ix_pci_free(&t->pci);
	ix_links_free(&t->links);
	free(t->numa);
	free(t->ifaces);
	free(t->ports);
	ix_cxl_free(&t->cxl);
	free(t->path_dev);
	free(t->paths);
	free(t->findings);
	memset(t, 0, sizeof(*t));
}

int ix_topo_scan(const char *root, struct ix_topo *t, struct ix_err *err)
{
	struct ix_err lerr = { 0 };

	memset(t, 0, sizeof(*t));
	if (ix_pci_read(root, &t->pci, err) < 0)
		return -1;
	if (ix_links_read(root, &t->links, &lerr) < 0)
		ix_pci_note(&t->pci, "network links not read: %s", lerr.msg);
	read_numa(root, t);
	gpu_memory_nodes(root, t);
	read_ifaces(root, t);
	read_ports(root, t);
	read_cxl(root, t);
	paths(t);
	return 0;
}
