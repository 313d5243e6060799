/* One node's inventory (probes/host/nodeinv.h), from sysfs and procfs
 * under a root. */
#include "config.h"

#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "probes/host/nodeinv.h"
#include "probes/host/sysfs.h"
#include "probes/host/topo_check.h"

/* Printable ASCII only: what is answered is a JSON string, shown on
 * terminals. */
static void ascii(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* The first line of ROOT/rel into buf; "" when it cannot be read. */
static void read_rel(const char *root, const char *rel, char *buf, size_t len)
{
	char path[512];

	buf[0] = '\0';
	if (!ix_sysfs_path(path, sizeof(path), root, rel) || ix_sysfs_read(path, buf, len) < 0)
		buf[0] = '\0';
	ascii(buf);
}

/* A name from sysfs used in a path: no separators, not "." or "..". */
static bool plain_name(const char *s)
{
	return s[0] && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* The version in libibverbs' file name as the agent has it mapped: the
 * library's soname carries rdma-core's release (libibverbs.so.1.14.44.0
 * is rdma-core 44), and no device is needed to read it. */
static void read_verbs(const char *root, char *buf, size_t len)
{
	char path[512], line[1024];
	FILE *f;

	buf[0] = '\0';
	if (!ix_sysfs_path(path, sizeof(path), root, "/proc/self/maps"))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	/* The map of a process is long on a large binary: bounded reading. */
	for (int lines = 0; lines < 4096 && fgets(line, sizeof(line), f); lines++) {
		char *p = strstr(line, "/libibverbs.so.");

		if (!p)
			continue;
		p++;
		p[strcspn(p, " \n")] = '\0';
		snprintf(buf, len, "%s", p);
		ascii(buf);
		break;
	}
	fclose(f);
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19
 * ..." -> "nvidia 535.104.05"; else amdgpu's module version. */
static void read_gpu_driver(const char *root, char *buf, size_t len)
{
	char line[256], ver[64] = "";
	const char *p;

	read_rel(root, "/proc/driver/nvidia/version", line, sizeof(line));
	p = strstr(line, "Kernel Module");
	if (p) {
		p += strlen("Kernel Module");
		p += strspn(p, " \t");
		snprintf(ver, sizeof(ver), "%.*s", (int)strcspn(p, " \t"), p);
		if (ver[0]) {
			snprintf(buf, len, "nvidia %s", ver);
			return;
		}
	}
	read_rel(root, "/sys/module/amdgpu/version", ver, sizeof(ver));
	if (ver[0])
		snprintf(buf, len, "amdgpu %s", ver);
	else
		buf[0] = '\0';
}

static void fill_pcie(const struct ix_pci_link *l, struct ix_inv_pcie *p)
{
	p->known = l->present && l->gen > 0 && l->width > 0;
	p->gen = l->gen;
	p->width = l->width;
	p->max_gen = l->max_gen;
	p->max_width = l->max_width;
	p->downtrained = l->downtrained;
}

void ix_inv_pcie_str(const struct ix_inv_pcie *p, bool max, char *buf, size_t len)
{
	int g = max ? p->max_gen : p->gen, w = max ? p->max_width : p->width;

	if (!p->known || g <= 0 || w <= 0)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "Gen%d x%d", g, w);
}

/* Firmware and driver version of an Ethernet NIC from the driver itself
 * (ethtool -i), on the live system only: a fixture tree has no driver. */
static void ethtool_info(const char *root, const char *ifname, struct ix_inv_nic *n)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;
	int fd;

	if ((root && root[0]) || strlen(ifname) >= sizeof(ifr.ifr_name))
		return;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = (void *)&di;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0) {
		di.fw_version[sizeof(di.fw_version) - 1] = '\0';
		di.version[sizeof(di.version) - 1] = '\0';
		if (!n->fw[0] && di.fw_version[0] && strcmp(di.fw_version, "N/A") != 0)
			snprintf(n->fw, sizeof(n->fw), "%s", di.fw_version);
		if (!n->driver_version[0] && di.version[0])
			snprintf(n->driver_version, sizeof(n->driver_version), "%s", di.version);
		ascii(n->fw);
		ascii(n->driver_version);
	}
	close(fd);
}

static const struct ix_link *link_named(const struct ix_topo *t, const char *name)
{
	for (size_t i = 0; i < t->links.n; i++)
		if (t->links.v[i].kind == IX_LINK_NET && strcmp(t->links.v[i].name, name) == 0)
			return &t->links.v[i];
	return NULL;
}

static void add_nic(const char *root, const struct ix_topo *t, const struct ix_pci_dev *d,
		    struct ix_node_inv *inv)
{
	struct ix_inv_nic *n = &inv->nics[inv->nnics++];
	const struct ix_link *l;
	char rel[256];

	memset(n, 0, sizeof(*n));
	snprintf(n->bdf, sizeof(n->bdf), "%s", d->bdf);
	if (d->nrdma && plain_name(d->rdma[0]))
		snprintf(n->rdma, sizeof(n->rdma), "%s", d->rdma[0]);
	if (d->nnetdevs && plain_name(d->netdevs[0]))
		snprintf(n->name, sizeof(n->name), "%s", d->netdevs[0]);
	else
		snprintf(n->name, sizeof(n->name), "%s", n->rdma[0] ? n->rdma : d->bdf);
	snprintf(n->driver, sizeof(n->driver), "%s", d->driver);
	n->numa_node = d->numa_node;
	fill_pcie(&d->link, &n->pcie);
	if (n->rdma[0]) {
		snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/fw_ver", n->rdma);
		read_rel(root, rel, n->fw, sizeof(n->fw));
		snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/hca_type", n->rdma);
		read_rel(root, rel, n->model, sizeof(n->model));
	}
	if (!n->model[0])
		snprintf(n->model, sizeof(n->model), "%04x:%04x", d->vendor, d->device);
	if (n->driver[0] && plain_name(n->driver)) {
		snprintf(rel, sizeof(rel), "/sys/module/%s/version", n->driver);
		read_rel(root, rel, n->driver_version, sizeof(n->driver_version));
	}
	l = d->nnetdevs ? link_named(t, d->netdevs[0]) : NULL;
	if (l && l->mtu_known) {
		n->mtu_known = true;
		n->mtu = l->mtu;
	}
	if (d->nnetdevs)
		ethtool_info(root, n->name, n);
}

static void add_gpu(const char *root, const struct ix_pci_dev *d, struct ix_node_inv *inv)
{
	struct ix_inv_gpu *g = &inv->gpus[inv->ngpus++];
	char rel[256], line[256];
	char path[512];
	FILE *f;

	memset(g, 0, sizeof(*g));
	snprintf(g->bdf, sizeof(g->bdf), "%s", d->bdf);
	snprintf(g->driver, sizeof(g->driver), "%s", d->driver);
	g->numa_node = d->numa_node;
	fill_pcie(&d->link, &g->pcie);
	/* NVIDIA's driver names the model per GPU: "Model:  NVIDIA H100 ..." */
	snprintf(rel, sizeof(rel), "/proc/driver/nvidia/gpus/%s/information", d->bdf);
	f = ix_sysfs_path(path, sizeof(path), root, rel) ? fopen(path, "re") : NULL;
	for (int lines = 0; f && lines < 64 && fgets(line, sizeof(line), f); lines++) {
		if (strncmp(line, "Model:", 6) != 0)
			continue;
		const char *p = line + 6 + strspn(line + 6, " \t");

		snprintf(g->model, sizeof(g->model), "%.*s", (int)strcspn(p, "\n"), p);
		ascii(g->model);
		break;
	}
	if (f)
		fclose(f);
	if (!g->model[0])
		snprintf(g->model, sizeof(g->model), "%04x:%04x", d->vendor, d->device);
}

void ix_node_inv_read(const char *root, struct ix_node_inv *inv)
{
	struct ix_err err = { 0 };
	struct ix_topo t;

	if (!root)
		root = "";
	memset(inv, 0, sizeof(*inv));
	read_rel(root, "/proc/sys/kernel/hostname", inv->hostname, sizeof(inv->hostname));
	read_rel(root, "/proc/sys/kernel/osrelease", inv->kernel, sizeof(inv->kernel));
	read_verbs(root, inv->verbs, sizeof(inv->verbs));
	read_gpu_driver(root, inv->gpu_driver, sizeof(inv->gpu_driver));
	memset(&t, 0, sizeof(t));
	if (ix_topo_read(root, &t, &err) < 0) {
		ix_topo_free(&t);
		return;
	}
	for (size_t i = 0; i < t.pci.n; i++) {
		const struct ix_pci_dev *d = &t.pci.v[i];

		if (d->type == IX_PCI_NIC || d->type == IX_PCI_IB) {
			if (inv->nnics < IX_INV_MAX_NICS)
				add_nic(root, &t, d, inv);
			else
				inv->truncated = true;
		} else if (d->type == IX_PCI_GPU) {
			if (inv->ngpus < IX_INV_MAX_GPUS)
				add_gpu(root, d, inv);
			else
				inv->truncated = true;
		}
	}
	inv->findings_total = (uint32_t)t.nfindings;
	for (size_t i = 0; i < t.nfindings && inv->nfindings < IX_INV_MAX_FINDINGS; i++) {
		struct ix_inv_finding *f = &inv->findings[inv->nfindings++];

		snprintf(f->kind, sizeof(f->kind), "%s", ix_finding_name(t.findings[i].kind));
		f->error = t.findings[i].error;
		snprintf(f->device, sizeof(f->device), "%s", t.findings[i].device);
		snprintf(f->message, sizeof(f->message), "%s", t.findings[i].message);
	}
	ix_topo_free(&t);
}
