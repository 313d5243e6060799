#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cxl/libcxl.h>

#include "probes/host/cxl.h"
#include "probes/host/pci.h"
#include "probes/host/sysfs.h"

#define CXL_VENDOR    0x1e98 /* the CXL consortium's DVSEC vendor id */
#define DEVICE_DVSEC  0      /* PCIe DVSEC for CXL Devices */
#define FLEXBUS_DVSEC 7      /* Flex Bus Port DVSEC */
#define DVSEC_CAP_ID  0x23
#define CFG_SIZE      4096

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool ix_cxl_flexbus_parse(const uint8_t *cfg, size_t n, struct ix_cxl_flexbus *fb)
{
	size_t off = 0x100;

	memset(fb, 0, sizeof(*fb));
	/* The extended capabilities: a list from 0x100, each header holding
	 * its id (bits 15:0) and the next one's offset (bits 31:20). At most
	 * as many hops as headers fit, so a loop ends. The Flex Bus Port
	 * DVSEC says what the link trained with; where a device has none,
	 * its CXL device DVSEC's control register says what the host turned
	 * on (the same bits). */
	for (int hops = 0; off >= 0x100 && off + 16 <= n && hops < (CFG_SIZE - 0x100) / 4; hops++) {
		uint32_t h = le32(cfg + off);
		uint16_t id = le16(cfg + off + 8);

		if (h == 0 || h == 0xffffffffu)
			break;
		if ((h & 0xffff) == DVSEC_CAP_ID && le16(cfg + off + 4) == CXL_VENDOR &&
		    (id == FLEXBUS_DVSEC || (id == DEVICE_DVSEC && !fb->known))) {
			fb->known = true;
			fb->dvsec = (uint8_t)id;
			fb->cap = le16(cfg + off + 0x0a);
			fb->status = le16(cfg + off + (id == FLEXBUS_DVSEC ? 0x0e : 0x0c));
			if (id == DEVICE_DVSEC) {
				fb->cap &= IX_FLEXBUS_CACHE | IX_FLEXBUS_IO | IX_FLEXBUS_MEM;
				fb->status &= IX_FLEXBUS_CACHE | IX_FLEXBUS_IO | IX_FLEXBUS_MEM;
			} else {
				return true;
			}
		}
		off = (h >> 20) & 0xffc;
	}
	return fb->known;
}

const char *ix_cxl_protocols(uint16_t bits, char *buf, size_t len)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} names[] = { { IX_FLEXBUS_MEM, "mem" },
		      { IX_FLEXBUS_IO, "io" },
		      { IX_FLEXBUS_CACHE, "cache" } };
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bits & names[i].bit && off < len) {
			int w = snprintf(buf + off, len - off, "%s%s", off ? "+" : "",
					 names[i].name);

			off += w > 0 ? (size_t)w : 0;
		}
	if (!off)
		snprintf(buf, len, "none");
	return buf;
}

bool ix_cxl_link_issue(const struct ix_cxl_memdev *m, char *buf, size_t len)
{
	const struct ix_cxl_flexbus *d = &m->dev_fb, *p = &m->port_fb;
	uint16_t both;
	char on[32], off[32];

	if (!d->known)
		return false;
	both = p->known ? d->cap & p->cap : d->cap;
	if (both & IX_FLEXBUS_MEM && !(d->status & IX_FLEXBUS_MEM)) {
		snprintf(buf, len,
			 "%s (%s): CXL.mem is not enabled on its link (enabled: %s, capable at "
			 "both ends: %s), so it runs as PCIe only and its memory cannot be used",
			 m->name, m->host, ix_cxl_protocols(d->status, on, sizeof(on)),
			 ix_cxl_protocols(both, off, sizeof(off)));
		return true;
	}
	if (p->known && (d->status ^ p->status) & (IX_FLEXBUS_MEM | IX_FLEXBUS_CACHE)) {
		snprintf(buf, len,
			 "%s (%s): its link's two ends disagree: the device has %s enabled, "
			 "the port %s (%s)",
			 m->name, m->host, ix_cxl_protocols(d->status, on, sizeof(on)),
			 ix_cxl_protocols(p->status, off, sizeof(off)), m->port);
		return true;
	}
	return false;
}

const char *ix_cxl_port_kind_name(enum ix_cxl_port_kind k)
{
	static const char *const names[] = { "root", "host_bridge", "switch", "endpoint" };
	return k <= IX_CXL_ENDPOINT ? names[k] : "?";
}

/* src into dst, cut to fit. */
static void copy(char *dst, size_t len, const char *src)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

void ix_cxl_flexbus_read(const char *root, const char *bdf, struct ix_cxl_flexbus *fb)
{
	uint8_t *cfg = calloc(1, CFG_SIZE);

	memset(fb, 0, sizeof(*fb));
	if (cfg)
		ix_cxl_flexbus_parse(cfg, ix_pci_config(root, bdf, cfg, CFG_SIZE), fb);
	free(cfg);
}

static void *grow(void *v, size_t n, size_t size)
{
	return realloc(v, (n + 1) * size);
}

static void quiet(struct cxl_ctx *ctx, int priority, const char *file, int line, const char *fn,
		  const char *format, va_list args)
{
	(void)ctx, (void)priority, (void)file, (void)line, (void)fn, (void)format, (void)args;
}

static void read_memdevs(struct cxl_ctx *ctx, struct ix_cxl *c)
{
	struct cxl_memdev *md;

	cxl_memdev_foreach(ctx, md)
	{
		struct ix_cxl_memdev *v = grow(c->memdevs, c->nmemdevs, sizeof(*v)), *m;

		if (!v)
			return;
		c->memdevs = v;
		m = memset(&v[c->nmemdevs++], 0, sizeof(*m));
		copy(m->name, sizeof(m->name), cxl_memdev_get_devname(md));
		copy(m->host, sizeof(m->host), cxl_memdev_get_host(md));
		copy(m->firmware, sizeof(m->firmware), cxl_memdev_get_firmware_version(md));
		m->numa_node = cxl_memdev_get_numa_node(md);
		m->serial = cxl_memdev_get_serial(md);
		m->serial_known = m->serial != UINT64_MAX; /* libcxl's "not read" */
		m->ram_bytes = cxl_memdev_get_ram_size(md);
		m->pmem_bytes = cxl_memdev_get_pmem_size(md);
		m->enabled = cxl_memdev_is_enabled(md) > 0;
		m->endpoint = -1;
	}
}

static void read_decoders(struct cxl_port *port, int pi, struct ix_cxl *c)
{
	struct cxl_decoder *dec;

	cxl_decoder_foreach(port, dec)
	{
		struct ix_cxl_decoder *v = grow(c->decoders, c->ndecoders, sizeof(*v)), *d;
		struct cxl_region *reg = cxl_decoder_get_region(dec);
		struct cxl_target *tg;

		if (!v)
			return;
		c->decoders = v;
		d = memset(&v[c->ndecoders++], 0, sizeof(*d));
		copy(d->name, sizeof(d->name), cxl_decoder_get_devname(dec));
		d->port = pi;
		d->base = cxl_decoder_get_resource(dec);
		d->size = cxl_decoder_get_size(dec);
		d->dpa_base = cxl_decoder_get_dpa_resource(dec);
		d->dpa_size = cxl_decoder_get_dpa_size(dec);
		if (c->ports[pi].kind == IX_CXL_ENDPOINT)
			copy(d->mode, sizeof(d->mode),
			     cxl_decoder_mode_name(cxl_decoder_get_mode(dec)));
		switch (cxl_decoder_get_target_type(dec)) {
		case CXL_DECODER_TTYPE_EXPANDER:
			copy(d->target_type, sizeof(d->target_type), "expander");
			break;
		case CXL_DECODER_TTYPE_ACCELERATOR:
			copy(d->target_type, sizeof(d->target_type), "accelerator");
			break;
		default:
			break;
		}
		d->ram = cxl_decoder_is_volatile_capable(dec);
		d->pmem = cxl_decoder_is_pmem_capable(dec);
		d->locked = cxl_decoder_is_locked(dec);
		d->ways = cxl_decoder_get_interleave_ways(dec);
		d->granularity = cxl_decoder_get_interleave_granularity(dec);
		cxl_target_foreach(dec, tg) if (d->ntargets < IX_CXL_TARGETS)
			copy(d->targets[d->ntargets++], IX_CXL_NAME, cxl_target_get_devname(tg));
		if (reg)
			copy(d->region, sizeof(d->region), cxl_region_get_devname(reg));
	}
}

static void read_regions(struct cxl_port *rootport, struct ix_cxl *c)
{
	struct cxl_decoder *dec;

	cxl_decoder_foreach(rootport, dec)
	{
		struct cxl_region *reg;

		cxl_region_foreach(dec, reg)
		{
			struct ix_cxl_region *v = grow(c->regions, c->nregions, sizeof(*v)), *r;

			if (!v)
				return;
			c->regions = v;
			r = memset(&v[c->nregions++], 0, sizeof(*r));
			copy(r->name, sizeof(r->name), cxl_region_get_devname(reg));
			copy(r->decoder, sizeof(r->decoder), cxl_decoder_get_devname(dec));
			r->base = cxl_region_get_resource(reg);
			r->size = cxl_region_get_size(reg);
			r->ways = cxl_region_get_interleave_ways(reg);
			r->granularity = cxl_region_get_interleave_granularity(reg);
			r->committed = cxl_region_decode_is_committed(reg) > 0;
			r->enabled = cxl_region_is_enabled(reg) > 0;
			for (unsigned k = 0; k < r->ways && r->ntargets < IX_CXL_TARGETS; k++) {
				struct cxl_decoder *t = cxl_region_get_target_decoder(reg, (int)k);

				copy(r->targets[r->ntargets++], IX_CXL_NAME,
				     t ? cxl_decoder_get_devname(t) : "");
			}
		}
	}
}

/* The walk over libcxl's ports: theirs beside ours, index for index. */
struct walk {
	struct ix_cxl *c;
	struct cxl_port **lp;
};

/* Port p (libcxl's) as an entry of ports below parent; its index, or -1. */
static int add_port(struct walk *w, struct cxl_port *p, int parent, enum ix_cxl_port_kind kind)
{
	struct ix_cxl *c = w->c;
	struct ix_cxl_port *v = grow(c->ports, c->nports, sizeof(*v)), *o;
	struct cxl_port **lp;
	struct cxl_dport *dp;

	if (v)
		c->ports = v;
	if (!v || !(lp = grow(w->lp, c->nports, sizeof(*lp))))
		return -1;
	w->lp = lp;
	lp[c->nports] = p;
	o = memset(&v[c->nports++], 0, sizeof(*o));
	copy(o->name, sizeof(o->name), cxl_port_get_devname(p));
	copy(o->host, sizeof(o->host), cxl_port_get_host(p));
	/* A port hosted by a host bridge ("pci0000:0c") rather than a
	 * switch's upstream PCI function. */
	if (kind == IX_CXL_SWITCH && !ix_sysfs_is_bdf(o->host))
		kind = IX_CXL_HOST_BRIDGE;
	o->kind = kind;
	o->parent = parent;
	o->depth = cxl_port_get_depth(p);
	o->enabled = cxl_port_is_enabled(p) > 0;
	o->memdev = -1;
	cxl_dport_foreach(p, dp) if (o->ndports < IX_CXL_TARGETS)
	{
		struct ix_cxl_dport *d = &o->dports[o->ndports++];
		const char *phys = cxl_dport_get_physical_node(dp);

		copy(d->name, sizeof(d->name), cxl_dport_get_devname(dp));
		/* A PCI port (a root or switch downstream port) is named by
		 * its address or has it as its physical node; a root's dport
		 * is a host bridge (ACPI0016:00), no PCI function. */
		if (phys && ix_sysfs_is_bdf(phys))
			copy(d->pci, sizeof(d->pci), phys);
		else if (ix_sysfs_is_bdf(d->name))
			copy(d->pci, sizeof(d->pci), d->name);
	}
	return (int)c->nports - 1;
}

/* The endpoints below port i, each tied to its memory device. */
static int add_endpoints(struct walk *w, size_t i)
{
	struct ix_cxl *c = w->c;
	struct cxl_endpoint *ep;

	cxl_endpoint_foreach(w->lp[i], ep)
	{
		int e = add_port(w, cxl_endpoint_get_port(ep), (int)i, IX_CXL_ENDPOINT);
		struct cxl_memdev *md = cxl_endpoint_get_memdev(ep);
		const char *name = md ? cxl_memdev_get_devname(md) : NULL;

		if (e < 0)
			return -1;
		for (size_t m = 0; name && m < c->nmemdevs; m++)
			if (!strcmp(c->memdevs[m].name, name)) {
				c->ports[e].memdev = (int)m;
				c->memdevs[m].endpoint = e;
			}
	}
	return 0;
}

static void read_ports(struct cxl_ctx *ctx, struct ix_cxl *c)
{
	struct walk w = { c, NULL };
	struct cxl_bus *bus;
	size_t tops;

	cxl_bus_foreach(ctx, bus)
	{
		struct cxl_port *top = cxl_bus_get_port(bus), *p;

		if (add_port(&w, top, -1, IX_CXL_ROOT) < 0)
			goto out;
		read_regions(top, c);
		cxl_port_foreach_all(top, p)
		{
			struct cxl_port *up = cxl_port_get_parent(p);
			int parent = -1;

			for (size_t k = 0; k < c->nports; k++)
				if (w.lp[k] == up)
					parent = (int)k;
			if (add_port(&w, p, parent, IX_CXL_SWITCH) < 0)
				goto out;
		}
	}
	tops = c->nports;
	for (size_t i = 0; i < tops; i++)
		if (add_endpoints(&w, i) < 0)
			goto out;
	for (size_t i = 0; i < c->nports; i++)
		read_decoders(w.lp[i], (int)i, c);
out:
	free(w.lp);
}

void ix_cxl_read_live(struct ix_cxl *c)
{
	struct cxl_ctx *ctx = NULL;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((rc = cxl_new(&ctx)) < 0 || !ctx) {
		snprintf(c->note, sizeof(c->note), "libcxl could not start (%s)", strerror(-rc));
		return;
	}
	cxl_set_log_fn(ctx, quiet);
	c->tree = true;
	read_memdevs(ctx, c);
	read_ports(ctx, c);
	cxl_unref(ctx);
}

/* A size attribute under a memory device's directory, 0 when none. */
static uint64_t size_of(const char *dir, const char *rel)
{
	char path[PATH_MAX + 32];
	long v;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return ix_sysfs_read_long(path, &v) == 0 && v > 0 ? (uint64_t)v : 0;
}

void ix_cxl_read_tree(const char *root, struct ix_cxl *c)
{
	char dir_path[PATH_MAX];
	struct dirent *e;
	DIR *dir;

	memset(c, 0, sizeof(*c));
	if (!ix_sysfs_path(dir_path, sizeof(dir_path), root, "/sys/bus/cxl/devices") ||
	    !(dir = opendir(dir_path)))
		return;
	snprintf(c->note, sizeof(c->note),
		 "CXL ports, decoders and regions are read on the live system only (libcxl)");
	while ((e = readdir(dir))) {
		char dir_m[PATH_MAX], path[PATH_MAX + 32], real[PATH_MAX];
		struct ix_cxl_memdev *v, *m;
		long val;

		if (strncmp(e->d_name, "mem", 3) != 0 ||
		    (size_t)snprintf(dir_m, sizeof(dir_m), "%s/%s", dir_path, e->d_name) >=
			    sizeof(dir_m) - 32)
			continue;
		if (!(v = grow(c->memdevs, c->nmemdevs, sizeof(*v))))
			break;
		c->memdevs = v;
		m = memset(&v[c->nmemdevs++], 0, sizeof(*m));
		copy(m->name, sizeof(m->name), e->d_name);
		m->endpoint = -1;
		snprintf(path, sizeof(path), "%s/numa_node", dir_m);
		m->numa_node = ix_sysfs_read_long(path, &val) == 0 && val >= 0 ? (int)val : -1;
		snprintf(path, sizeof(path), "%s/firmware_version", dir_m);
		if (ix_sysfs_read(path, m->firmware, sizeof(m->firmware)) < 0)
			m->firmware[0] = '\0';
		snprintf(path, sizeof(path), "%s/serial", dir_m);
		if (ix_sysfs_read_long(path, &val) == 0 && val >= 0) {
			m->serial = (uint64_t)val;
			m->serial_known = true;
		}
		snprintf(path, sizeof(path), "%s/driver", dir_m);
		m->enabled = realpath(path, real) != NULL;
		m->ram_bytes = size_of(dir_m, "ram/size");
		m->pmem_bytes = size_of(dir_m, "pmem/size");
	}
	closedir(dir);
}

void ix_cxl_free(struct ix_cxl *c)
{
	free(c->memdevs);
	free(c->ports);
	free(c->decoders);
	free(c->regions);
	memset(c, 0, sizeof(*c));
}
