#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/host/pci.h"
#include "probes/host/sysfs.h"

static const struct {
	double gts;
	int gen;
} speeds[] = { { 2.5, 1 }, { 5.0, 2 }, { 8.0, 3 }, { 16.0, 4 }, { 32.0, 5 }, { 64.0, 6 } };

int ix_pcie_parse_speed(const char *s, double *gts)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || strncmp(end, " GT/s", 5) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (v == speeds[i].gts) {
			*gts = v;
			return 0;
		}
	return -1;
}

int ix_pcie_gen(double gts)
{
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (gts == speeds[i].gts)
			return speeds[i].gen;
	return 0;
}

double ix_pcie_bps(double gts, int width)
{
	int gen = ix_pcie_gen(gts);
	double enc = gen <= 2 ? 8.0 / 10 : gen <= 5 ? 128.0 / 130 : 242.0 / 256;

	return gen && width > 0 ? gts * 1e9 * width * enc : 0;
}

const char *ix_pci_type_name(enum ix_pci_type t)
{
	static const char *const names[] = {
		[IX_PCI_OTHER] = "other",
		[IX_PCI_GPU] = "gpu",
		[IX_PCI_NIC] = "nic",
		[IX_PCI_IB] = "ib",
		[IX_PCI_NVME] = "nvme",
		[IX_PCI_CXL] = "cxl",
		[IX_PCI_ROOT_PORT] = "root_port",
		[IX_PCI_SWITCH_UP] = "switch_upstream",
		[IX_PCI_SWITCH_DOWN] = "switch_downstream",
		[IX_PCI_BRIDGE] = "bridge",
	};
	return t <= IX_PCI_BRIDGE ? names[t] : "other";
}

bool ix_pci_note(struct ix_pci *p, const char *fmt, ...)
{
	char buf[512], **v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	v = realloc(p->notes, (p->nnotes + 1) * sizeof(*v));
	if (!v)
		return false;
	p->notes = v;
	v[p->nnotes] = strdup(buf);
	if (!v[p->nnotes])
		return false;
	p->nnotes++;
	return true;
}

void ix_pci_free(struct ix_pci *p)
{
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

bool ix_pci_parse_bdf(const char *s, struct ix_pci_addr *a)
{
	char *end;

	if (!s || !ix_sysfs_is_bdf(s))
		return false;
	a->domain = (uint32_t)strtoul(s, &end, 16);
	a->bus = (uint8_t)strtoul(end + 1, &end, 16);
	a->dev = (uint8_t)strtoul(end + 1, &end, 16);
	a->fn = (uint8_t)strtoul(end + 1, NULL, 16);
	return true;
}

int ix_pci_addr_cmp(const struct ix_pci_addr *a, const struct ix_pci_addr *b)
{
	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	if (a->bus != b->bus)
		return a->bus < b->bus ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->fn < b->fn ? -1 : a->fn > b->fn;
}

/* By number, not text: "ffff:00:00.0" comes before "10000:00:00.0". */
static int bdf_cmp(const void *a, const void *b)
{
	return ix_pci_addr_cmp(&((const struct ix_pci_dev *)a)->addr,
			       &((const struct ix_pci_dev *)b)->addr);
}

int ix_pci_find(const struct ix_pci *p, const char *bdf)
{
	struct ix_pci_dev key;
	const struct ix_pci_dev *d;

	if (!p->n || !ix_pci_parse_bdf(bdf, &key.addr))
		return -1;
	d = bsearch(&key, p->v, p->n, sizeof(*p->v), bdf_cmp);
	return d ? (int)(d - p->v) : -1;
}

/* ROOT/sys/bus/pci/devices/BDF/NAME */
static bool attr(char *buf, size_t len, const char *root, const char *bdf, const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/%s", bdf, name);
	return ix_sysfs_path(buf, len, root, rel);
}

static void read_ids(struct ix_pci *p, const char *root, struct ix_pci_dev *d)
{
	char path[PATH_MAX];
	long v;

	if (attr(path, sizeof(path), root, d->bdf, "vendor") && ix_sysfs_read_long(path, &v) == 0 &&
	    v >= 0 && v <= 0xffff)
		d->vendor = (uint16_t)v;
	if (attr(path, sizeof(path), root, d->bdf, "device") && ix_sysfs_read_long(path, &v) == 0 &&
	    v >= 0 && v <= 0xffff)
		d->device = (uint16_t)v;
	if (attr(path, sizeof(path), root, d->bdf, "class") && ix_sysfs_read_long(path, &v) == 0 &&
	    v >= 0 && v <= 0xffffff) {
		d->class = (uint32_t)v;
		d->class_known = true;
	} else {
		ix_pci_note(p, "%s: no readable class; its kind is unknown", d->bdf);
	}
	d->numa_node = -1;
	if (attr(path, sizeof(path), root, d->bdf, "numa_node")) {
		char raw[64];

		if (ix_sysfs_read_long(path, &v) == 0) {
			if (v >= 0 && v < 4096)
				d->numa_node = (int)v;
		} else if (errno == EINVAL && ix_sysfs_read(path, raw, sizeof(raw)) == 0) {
			ix_pci_note(p, "%s: numa_node '%s' is not a number", d->bdf, raw);
		}
	}
	if (attr(path, sizeof(path), root, d->bdf, "driver"))
		ix_sysfs_link_name(path, d->driver, sizeof(d->driver));
	/* No vendor file, but NVIDIA's driver lists it among its GPUs. */
	if (!d->vendor) {
		char rel[96];

		snprintf(rel, sizeof(rel), "/proc/driver/nvidia/gpus/%s", d->bdf);
		if (ix_sysfs_path(path, sizeof(path), root, rel) && access(path, F_OK) == 0) {
			d->vendor = 0x10de;
			if (!d->driver[0])
				snprintf(d->driver, sizeof(d->driver), "nvidia");
		}
	}
}

static int read_speed(struct ix_pci *p, const char *root, const char *bdf, const char *name,
		      double *gts)
{
	char path[PATH_MAX], buf[64];

	if (!attr(path, sizeof(path), root, bdf, name) || ix_sysfs_read(path, buf, sizeof(buf)) < 0)
		return -1;
	if (ix_pcie_parse_speed(buf, gts) < 0) {
		if (strncmp(buf, "Unknown", 7) != 0)
			ix_pci_note(p, "%s: %s '%s' is not a PCIe speed", bdf, name, buf);
		return -1;
	}
	return 0;
}

static int read_width(struct ix_pci *p, const char *root, const char *bdf, const char *name, int *w)
{
	char path[PATH_MAX];
	long v;

	if (!attr(path, sizeof(path), root, bdf, name))
		return -1;
	if (ix_sysfs_read_long(path, &v) < 0) {
		char raw[64];

		if (errno == EINVAL && ix_sysfs_read(path, raw, sizeof(raw)) == 0)
			ix_pci_note(p, "%s: %s '%s' is not a number of lanes", bdf, name, raw);
		return -1;
	}
	if (v < 1 || v > 32)
		return -1; /* 0: the link is down; 255: not reported */
	*w = (int)v;
	return 0;
}

static void read_link(struct ix_pci *p, const char *root, struct ix_pci_dev *d)
{
	struct ix_pci_link *l = &d->link;

	bool speed = read_speed(p, root, d->bdf, "current_link_speed", &l->speed_gts) == 0;
	bool width = read_width(p, root, d->bdf, "current_link_width", &l->width) == 0;

	l->present = speed && width;
	read_speed(p, root, d->bdf, "max_link_speed", &l->max_speed_gts);
	read_width(p, root, d->bdf, "max_link_width", &l->max_width);
	l->gen = ix_pcie_gen(l->speed_gts);
	l->max_gen = ix_pcie_gen(l->max_speed_gts);
	l->bps = ix_pcie_bps(l->speed_gts, l->width);
	l->max_bps = ix_pcie_bps(l->max_speed_gts, l->max_width);
}

#define CFG_READ     256  /* the capability list lives in the first 256 bytes */
#define CFG_CAP_PTR  0x34 /* the first capability */
#define CFG_CAP_MIN  0x40 /* capabilities sit past the header */
#define CFG_CAP_HOPS 48   /* (256 - 64) / 4: more is a loop */
#define CAP_PCIE     0x10
#define PCIE_LNKCAP2 0x2c
#define PCIE_LNKSTA2 0x32

int ix_pci_retimers(const uint8_t *cfg, size_t n, bool *detect)
{
	size_t cap = 0;
	uint32_t lnkcap2;
	unsigned lnksta2;

	*detect = false;
	if (n < CFG_CAP_MIN || !(cfg[0x06] & 0x10)) /* Status: capabilities list */
		return -1;
	for (size_t at = cfg[CFG_CAP_PTR] & 0xfc, hop = 0; hop < CFG_CAP_HOPS; hop++) {
		if (at < CFG_CAP_MIN || at + 2 > n)
			return -1;
		if (cfg[at] == CAP_PCIE) {
			cap = at;
			break;
		}
		at = cfg[at + 1] & 0xfc;
	}
	if (!cap || cap + PCIE_LNKSTA2 + 2 > n || (cfg[cap + 2] & 0x0f) < 2)
		return -1;
	lnkcap2 = (uint32_t)cfg[cap + PCIE_LNKCAP2] | (uint32_t)cfg[cap + PCIE_LNKCAP2 + 1] << 8 |
		  (uint32_t)cfg[cap + PCIE_LNKCAP2 + 2] << 16 |
		  (uint32_t)cfg[cap + PCIE_LNKCAP2 + 3] << 24;
	lnksta2 = (unsigned)cfg[cap + PCIE_LNKSTA2] | (unsigned)cfg[cap + PCIE_LNKSTA2 + 1] << 8;
	if (!(lnkcap2 & 1u << 23))
		return 0;
	*detect = true;
	if ((lnkcap2 & 1u << 24) && (lnksta2 & 1u << 7))
		return 2;
	return lnksta2 & 1u << 6 ? 1 : 0;
}

/* What d says of the retimers on its link: -1 where its config space does
 * not tell or it cannot detect them; *cut where that is because fewer
 * bytes than its PCI Express capability needs could be read. */
size_t ix_pci_config(const char *root, const char *bdf, uint8_t *buf, size_t len)
{
	char path[PATH_MAX];
	size_t n = 0;
	int fd;

	if (!bdf[0] || !attr(path, sizeof(path), root, bdf, "config") ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (n < len) {
		ssize_t got = read(fd, buf + n, len - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	return n;
}

static int read_retimers(const char *root, const struct ix_pci_dev *d, bool *cut)
{
	uint8_t cfg[CFG_READ];
	size_t n = ix_pci_config(root, d->bdf, cfg, sizeof(cfg));
	bool detect;
	int r = ix_pci_retimers(cfg, n, &detect);

	*cut = n > 0 && r < 0 && n < sizeof(cfg);
	return detect ? r : -1;
}

/* Each link's retimers: what either end reports. */
static void link_retimers(struct ix_pci *p, const int *own)
{
	for (size_t i = 0; i < p->n; i++) {
		struct ix_pci_link *l = &p->v[i].link;
		int other = ix_pci_link_partner(p, i), r = own[i];

		if (other >= 0 && own[other] > r)
			r = own[other];
		l->retimers_known = r >= 0;
		l->retimers = r >= 0 ? r : 0;
	}
}

/* "TOTAL_ERR_COR 17" among the lines of an aer_dev_* file. */
static int read_aer_total(const char *path, uint64_t *out)
{
	FILE *f = fopen(path, "r");
	char line[128];
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');
		if (strncmp(line, "TOTAL_ERR_", 10) == 0 && sp) {
			char *end;
			unsigned long long v = strtoull(sp + 1, &end, 10);
			if (end != sp + 1) {
				*out = v;
				rc = 0;
			}
		}
	}
	fclose(f);
	return rc;
}

static void read_aer(const char *root, struct ix_pci_dev *d)
{
	char path[PATH_MAX];
	int known = 0;

	known += attr(path, sizeof(path), root, d->bdf, "aer_dev_correctable") &&
		 read_aer_total(path, &d->aer_cor) == 0;
	known += attr(path, sizeof(path), root, d->bdf, "aer_dev_nonfatal") &&
		 read_aer_total(path, &d->aer_nonfatal) == 0;
	known += attr(path, sizeof(path), root, d->bdf, "aer_dev_fatal") &&
		 read_aer_total(path, &d->aer_fatal) == 0;
	d->aer_known = known > 0;
}

/* Names of the entries of a subdirectory (net/, infiniband/). */
static size_t list_names(const char *root, const char *bdf, const char *sub,
			 char names[IX_PCI_NAMES][32])
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	size_t n = 0;

	if (!attr(path, sizeof(path), root, bdf, sub) || !(dir = opendir(path)))
		return 0;
	while ((e = readdir(dir)) && n < IX_PCI_NAMES)
		if (e->d_name[0] != '.')
			snprintf(names[n++], 32, "%.31s", e->d_name);
	closedir(dir);
	qsort(names, n, 32, (int (*)(const void *, const void *))strcmp);
	return n;
}

static enum ix_pci_type endpoint_type(const struct ix_pci_dev *d)
{
	uint32_t base = d->class >> 16, sub = (d->class >> 8) & 0xff;

	if (!d->class_known)
		return IX_PCI_OTHER;
	if ((d->vendor == 0x10de || d->vendor == 0x1002) &&
	    ((base == 0x03 && (sub == 0x00 || sub == 0x02)) || base == 0x12))
		return IX_PCI_GPU;
	if (base == 0x02 && sub == 0x00)
		return IX_PCI_NIC;
	/* InfiniBand: the network controller's subclass, the older serial
	 * bus one (QLogic), or "other network" with an RDMA device (mlx4). */
	if ((base == 0x02 && sub == 0x07) || (base == 0x0c && sub == 0x06) ||
	    (base == 0x02 && sub == 0x80 && d->nrdma))
		return IX_PCI_IB;
	if (d->class == 0x010802)
		return IX_PCI_NVME;
	if (d->class == 0x050210)
		return IX_PCI_CXL;
	if (base == 0x06 && sub == 0x04)
		return IX_PCI_BRIDGE;
	return IX_PCI_OTHER;
}

/* Root ports, switch ports and plain bridges, from where bridges sit. */
static void classify_bridges(struct ix_pci *p)
{
	bool *has_bridge_child = calloc(p->n + 1, sizeof(bool));

	if (!has_bridge_child)
		return;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].type == IX_PCI_BRIDGE && p->v[i].parent >= 0)
			has_bridge_child[p->v[i].parent] = true;
	/* Parents come before children: sorted by depth would be exact, but
	 * a parent's bus number is always lower, and a VMD domain's number
	 * higher than its controller's, so address order works. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->n; i++) {
			struct ix_pci_dev *d = &p->v[i];
			enum ix_pci_type up = d->parent >= 0 ? p->v[d->parent].type : IX_PCI_OTHER;

			if (endpoint_type(d) != IX_PCI_BRIDGE)
				continue;
			if (d->parent < 0 || d->below_host_bridge)
				d->type = IX_PCI_ROOT_PORT;
			else if (up == IX_PCI_SWITCH_UP)
				d->type = IX_PCI_SWITCH_DOWN;
			else if (has_bridge_child[i] &&
				 (up == IX_PCI_ROOT_PORT || up == IX_PCI_SWITCH_DOWN ||
				  up == IX_PCI_BRIDGE))
				d->type = IX_PCI_SWITCH_UP;
			else
				d->type = IX_PCI_BRIDGE;
		}
	free(has_bridge_child);
	for (size_t i = 0; i < p->n; i++) {
		struct ix_pci_dev *d = &p->v[i];

		d->sw = -1;
		if (d->type == IX_PCI_SWITCH_DOWN)
			d->sw = d->parent;
		else if (d->parent >= 0 && p->v[d->parent].type == IX_PCI_SWITCH_DOWN)
			d->sw = p->v[d->parent].parent;
	}
}

int ix_pci_link_partner(const struct ix_pci *p, size_t i)
{
	const struct ix_pci_dev *d = &p->v[i];

	if (d->type != IX_PCI_ROOT_PORT && d->type != IX_PCI_SWITCH_DOWN)
		return d->parent;
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].parent == (int)i && p->v[k].link.present)
			return (int)k;
	return -1;
}

void ix_pci_judge_link(struct ix_pci_link *l, const struct ix_pci_link *partner, bool device_is_gpu)
{
	l->expected_gen = l->expected_width = 0;
	l->expected_bps = 0;
	l->downtrained = l->idle_slow = false;
	if (!l->present)
		return;
	l->expected_gen = l->max_gen ? l->max_gen : l->gen;
	l->expected_width = l->max_width ? l->max_width : l->width;
	if (partner && partner->max_gen && partner->max_gen < l->expected_gen)
		l->expected_gen = partner->max_gen;
	if (partner && partner->max_width && partner->max_width < l->expected_width)
		l->expected_width = partner->max_width;
	for (size_t k = 0; k < sizeof(speeds) / sizeof(speeds[0]); k++)
		if (speeds[k].gen == l->expected_gen)
			l->expected_bps = ix_pcie_bps(speeds[k].gts, l->expected_width);
	l->downtrained = l->gen < l->expected_gen || l->width < l->expected_width;
	if (l->downtrained && device_is_gpu && l->width >= l->expected_width) {
		l->downtrained = false;
		l->idle_slow = true;
	}
}

/* What both ends of each link support, and whether it trained below. */
static void expected_links(struct ix_pci *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct ix_pci_dev *d = &p->v[i];
		int other = ix_pci_link_partner(p, i);
		bool port = d->type == IX_PCI_ROOT_PORT || d->type == IX_PCI_SWITCH_DOWN;
		/* The link's downstream end: the device, below a port. */
		const struct ix_pci_dev *dev = port && other >= 0 ? &p->v[other] : d;

		ix_pci_judge_link(&d->link, other >= 0 ? &p->v[other].link : NULL,
				  dev->type == IX_PCI_GPU);
	}
}

/* "pci0000:00", "pci10000:e0": a host bridge, as a component of a path. */
static bool is_host_bridge(const char *s, size_t len)
{
	size_t n = 3;

	if (len < 3 || strncmp(s, "pci", 3) != 0)
		return false;
	while (n < len && n < 3 + 8 && isxdigit((unsigned char)s[n]))
		n++;
	return n >= 3 + 4 && len == n + 3 && s[n] == ':' && isxdigit((unsigned char)s[n + 1]) &&
	       isxdigit((unsigned char)s[n + 2]);
}

/* Parent, host bridge and depth from the path below /sys/devices:
 * "pci0000:00/0000:00:01.0/0000:01:00.0", or, for a domain behind an
 * Intel VMD controller, "pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:06.0"
 * (the controller is the parent of the domain's root ports). */
static int place(struct ix_pci *p, struct ix_pci_dev *d, const char *rel, char *parent_bdf)
{
	const char *slash = strchr(rel, '/'), *last = strrchr(rel, '/'), *end = last;

	parent_bdf[0] = '\0';
	if (!slash || strncmp(rel, "pci", 3) != 0)
		return -1;
	snprintf(d->host_bridge, sizeof(d->host_bridge), "%.*s", (int)(slash - rel), rel);
	if (strcmp(last + 1, d->bdf) != 0)
		ix_pci_note(p, "%s: its directory is called %s", d->bdf, last + 1);
	for (const char *s = slash; s && s < last; s = strchr(s + 1, '/')) {
		const char *next = strchr(s + 1, '/');

		d->depth += !is_host_bridge(s + 1, (size_t)(next - s - 1));
	}
	d->below_host_bridge = last == slash;
	while (end > slash) {
		const char *prev = end - 1;

		while (prev > rel && *prev != '/')
			prev--;
		if (!is_host_bridge(prev + 1, (size_t)(end - prev - 1))) {
			snprintf(parent_bdf, IX_PCI_BDF_LEN, "%.*s", (int)(end - prev - 1),
				 prev + 1);
			break;
		}
		d->below_host_bridge = true; /* a host bridge below a function */
		end = prev;
	}
	return 0;
}

/* A directory itself, not a link to one. */
static bool plain_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int collect(struct ix_pci *p, const char *root, char (**parents)[IX_PCI_BDF_LEN],
		   struct ix_err *err)
{
	char dir_path[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	size_t cap = 0;

	if (!ix_sysfs_path(dir_path, sizeof(dir_path), root, "/sys/bus/pci/devices") ||
	    !(dir = opendir(dir_path)))
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s: %s", dir_path, strerror(errno));
	while ((e = readdir(dir))) {
		char path[PATH_MAX], rel[PATH_MAX];
		struct ix_pci_dev *d;
		int rc;

		if (e->d_name[0] == '.')
			continue;
		if (!ix_sysfs_is_bdf(e->d_name)) {
			ix_pci_note(p,
				    "%s: not a PCI address (domain of 4 to 8 hex digits, bus, "
				    "device 00-1f, function 0-7), skipped",
				    e->d_name);
			continue;
		}
		if (snprintf(path, sizeof(path), "%s/%.255s", dir_path, e->d_name) >=
		    (int)sizeof(path))
			continue;
		rc = ix_sysfs_device_path(root, path, rel, sizeof(rel));
		if (rc < 0 && errno == EXDEV && plain_dir(path)) {
			/* A copy of the tree that flattened the links: the
			 * function is there, its place in the tree is not. */
			ix_pci_note(p,
				    "%s: a directory, not a link into /sys/devices: its place in "
				    "the PCI tree is unknown",
				    e->d_name);
			rel[0] = '\0';
		} else if (rc < 0) {
			ix_pci_note(p, "%s: %s, skipped", e->d_name,
				    errno == ELOOP   ? "a symlink loop"
				    : errno == EXDEV ? "it leads outside /sys/devices"
						     : strerror(errno));
			continue;
		}
		if (p->n == cap) {
			void *nv = realloc(p->v, (cap = cap ? 2 * cap : 64) * sizeof(*p->v));
			void *np = realloc(*parents, cap * sizeof(**parents));

			if (nv)
				p->v = nv;
			if (np)
				*parents = np;
			if (!nv || !np) {
				closedir(dir);
				return ix_fail(err, IX_EXIT_FAIL, "out of memory");
			}
		}
		d = &p->v[p->n];
		memset(d, 0, sizeof(*d));
		(*parents)[p->n][0] = '\0';
		snprintf(d->bdf, sizeof(d->bdf), "%.16s", e->d_name);
		ix_pci_parse_bdf(d->bdf, &d->addr);
		if (rel[0] && place(p, d, rel, (*parents)[p->n]) < 0) {
			ix_pci_note(p, "%s: not under a PCI host bridge (%s), skipped", d->bdf,
				    rel);
			continue;
		}
		p->n++;
	}
	closedir(dir);
	return 0;
}

int ix_pci_read(const char *root, struct ix_pci *out, struct ix_err *err)
{
	char(*parents)[IX_PCI_BDF_LEN] = NULL;
	int *own;
	size_t cut = 0;

	memset(out, 0, sizeof(*out));
	if (collect(out, root, &parents, err) < 0) {
		free(parents);
		ix_pci_free(out);
		return -1;
	}
	/* Sort with the parents' names alongside. */
	{
		struct pair {
			struct ix_pci_dev d;
			char parent[IX_PCI_BDF_LEN];
		} *tmp = calloc(out->n + 1, sizeof(*tmp));

		if (!tmp) {
			free(parents);
			ix_pci_free(out);
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		}
		for (size_t i = 0; i < out->n; i++) {
			tmp[i].d = out->v[i];
			memcpy(tmp[i].parent, parents[i], IX_PCI_BDF_LEN);
		}
		qsort(tmp, out->n, sizeof(*tmp), bdf_cmp);
		for (size_t i = 0; i < out->n; i++) {
			out->v[i] = tmp[i].d;
			memcpy(parents[i], tmp[i].parent, IX_PCI_BDF_LEN);
		}
		free(tmp);
	}
	own = calloc(out->n + 1, sizeof(*own));
	if (!own) {
		free(parents);
		ix_pci_free(out);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	for (size_t i = 0; i < out->n; i++) {
		struct ix_pci_dev *d = &out->v[i];
		bool short_read;

		d->parent = parents[i][0] ? ix_pci_find(out, parents[i]) : -1;
		if (parents[i][0] && d->parent < 0)
			ix_pci_note(out, "%s: its parent %s is not a listed PCI function", d->bdf,
				    parents[i]);
		read_ids(out, root, d);
		read_link(out, root, d);
		read_aer(root, d);
		own[i] = read_retimers(root, d, &short_read);
		cut += short_read && d->link.present; /* one without a link has none */
		d->nnetdevs = list_names(root, d->bdf, "net", d->netdevs);
		d->nrdma = list_names(root, d->bdf, "infiniband", d->rdma);
		d->type = endpoint_type(d);
	}
	free(parents);
	classify_bridges(out);
	expected_links(out);
	link_retimers(out, own);
	free(own);
	if (cut)
		ix_pci_note(out,
			    "%zu PCI function(s) gave only part of their config space (without "
			    "root, its first 64 bytes): whether retimers sit on their links is "
			    "unknown",
			    cut);
	return 0;
}
