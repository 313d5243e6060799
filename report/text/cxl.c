/* A topology's NUMA nodes with the HMAT figures, and its CXL bus: the
 * memory devices with their links, the ports, decoders and regions. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/fmt/units.h"
#include "report/text/text.h"

static const struct ix_unit_choice bytes_u = { .kind = IX_UNITS_BYTES };

/* "nodes 0,2" of an initiator mask. */
static void initiators(uint64_t mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int n = 0; n < IX_HMAT_MAX_INITIATORS && off < len; n++)
		if (mask >> n & 1) {
			int w = snprintf(buf + off, len - off, "%s%d", off ? "," : "", n);

			off += w > 0 ? (size_t)w : 0;
		}
}

static void hmat_line(FILE *f, int c, const struct ix_hmat *h)
{
	char who[96], rb[32] = "-", wb[32] = "-";

	if (!h->present)
		return;
	initiators(h->initiators, who, sizeof(who));
	if (h->read_mbps)
		ix_fmt_rate((double)h->read_mbps * 8e6, &bytes_u, rb, sizeof(rb));
	if (h->write_mbps)
		ix_fmt_rate((double)h->write_mbps * 8e6, &bytes_u, wb, sizeof(wb));
	fprintf(f,
		"      HMAT class %d (%s) from node%s %s: read %s, %" PRIu64
		" ns; write %s, %" PRIu64 " ns\n",
		c, c ? "CPUs" : "any initiator", strchr(who, ',') ? "s" : "", who[0] ? who : "-",
		rb, h->read_ns, wb, h->write_ns);
}

void ix_text_numa(FILE *f, const struct ix_topo *t)
{
	fprintf(f, "\nNUMA nodes:\n");
	for (size_t i = 0; i < t->nnuma; i++) {
		const struct ix_numa_node *n = &t->numa[i];
		char what[64], mem[32] = "memory unknown";

		if (n->gpu[0])
			snprintf(what, sizeof(what), "none (memory of GPU %s)", n->gpu);
		if (n->memory_known)
			ix_fmt_bytes((double)n->memory_bytes, &bytes_u, mem, sizeof(mem));
		fprintf(f, "  node %-3d cpus %-20s %s\n", n->node,
			n->cpus[0]  ? n->cpus
			: n->gpu[0] ? what
				    : "none (memory only)",
			mem);
		/* Class 1 repeats class 0 where the best initiators are CPUs. */
		hmat_line(f, 0, &n->access[0]);
		if (memcmp(&n->access[0], &n->access[1], sizeof(n->access[0])) != 0)
			hmat_line(f, 1, &n->access[1]);
	}
}

/* "mem+io enabled of mem+io (Flex Bus), 68B flit" */
static void fb_text(struct ix_cxl_flexbus fb, char *buf, size_t len)
{
	char on[32], can[32];

	if (!fb.known) {
		snprintf(buf, len,
			 "not read (no CXL DVSEC in the config space this user may read)");
		return;
	}
	snprintf(buf, len, "%s enabled of %s (%s)%s", ix_cxl_protocols(fb.status, on, sizeof(on)),
		 ix_cxl_protocols(fb.cap, can, sizeof(can)),
		 fb.dvsec == 7 ? "Flex Bus" : "device control",
		 fb.dvsec == 7 && fb.status & IX_FLEXBUS_68B_FLIT ? ", 68B flit" : "");
}

static void memdev_text(FILE *f, const struct ix_topo *t, const struct ix_cxl_memdev *m)
{
	const struct ix_pci_dev *d = m->pci >= 0 ? &t->pci.v[m->pci] : NULL;
	char ram[32], pmem[32], p1[128], p2[128], issue[384];

	snprintf(ram, sizeof(ram), "none");
	snprintf(pmem, sizeof(pmem), "none");
	if (m->ram_bytes)
		ix_fmt_bytes((double)m->ram_bytes, &bytes_u, ram, sizeof(ram));
	if (m->pmem_bytes)
		ix_fmt_bytes((double)m->pmem_bytes, &bytes_u, pmem, sizeof(pmem));
	fprintf(f, "  %-10s on %s%s%s, device numa %d, %s, ram %s, pmem %s, firmware %s\n", m->name,
		m->host[0] ? m->host : "?", m->port[0] ? " below " : "", m->port, m->numa_node,
		m->enabled ? "enabled" : "no driver", ram, pmem,
		m->firmware[0] ? m->firmware : "-");
	if (d && d->link.present)
		fprintf(f, "      PCIe link Gen%d x%d of Gen%d x%d%s\n", d->link.gen, d->link.width,
			d->link.expected_gen, d->link.expected_width,
			d->link.downtrained ? "  DOWNTRAINED" : "");
	fb_text(m->dev_fb, p1, sizeof(p1));
	fb_text(m->port_fb, p2, sizeof(p2));
	fprintf(f, "      CXL: device %s; port %s %s\n", p1, m->port[0] ? m->port : "-", p2);
	if (ix_cxl_link_issue(m, issue, sizeof(issue)))
		fprintf(f, "      PROBLEM: %s\n", issue);
}

/* Port i and, below it, the ports whose parent it is: a tree. */
static void port_text(FILE *f, const struct ix_cxl *c, size_t i, int depth)
{
	const struct ix_cxl_port *p = &c->ports[i];

	/* A root port has no driver of its own: enabled says nothing there. */
	fprintf(f, "  %*s%-12s %-11s %-14s%s", 2 * depth, "", p->name,
		ix_cxl_port_kind_name(p->kind), p->host,
		p->enabled || p->kind == IX_CXL_ROOT ? "" : " (not enabled)");
	if (p->ndports)
		fprintf(f, " dports:");
	for (size_t k = 0; k < p->ndports; k++)
		fprintf(f, " %s", p->dports[k].pci[0] ? p->dports[k].pci : p->dports[k].name);
	fprintf(f, "\n");
	for (size_t k = 0; k < c->nports && depth < 16; k++)
		if (c->ports[k].parent == (int)i && k != i)
			port_text(f, c, k, depth + 1);
}

static void decoder_text(FILE *f, const struct ix_cxl *c, const struct ix_cxl_decoder *d)
{
	char size[32] = "-", base[24] = "-";

	if (d->size)
		ix_fmt_bytes((double)d->size, &bytes_u, size, sizeof(size));
	if (d->size && d->base != UINT64_MAX)
		snprintf(base, sizeof(base), "0x%" PRIx64, d->base);
	/* An endpoint's decoder: its mode; others: what they may decode. */
	fprintf(f, "  %-14s %-10s %-18s %10s  %s ways %u gran %u", d->name, c->ports[d->port].name,
		base, size,
		d->mode[0]          ? d->mode
		: d->ram && d->pmem ? "ram+pmem"
		: d->ram            ? "ram"
		: d->pmem           ? "pmem"
				    : "-",
		d->ways, d->granularity);
	if (d->ntargets)
		fprintf(f, " targets");
	for (size_t k = 0; k < d->ntargets; k++)
		fprintf(f, " %s", d->targets[k]);
	fprintf(f, "%s%s%s\n", d->region[0] ? " region " : "", d->region,
		d->locked ? " locked" : "");
}

void ix_text_cxl(FILE *f, const struct ix_topo *t)
{
	const struct ix_cxl *c = &t->cxl;

	if (!c->nmemdevs && !c->nports)
		return;
	fprintf(f, "\nCXL memory devices:\n");
	for (size_t i = 0; i < c->nmemdevs; i++)
		memdev_text(f, t, &c->memdevs[i]);
	if (!c->tree) {
		fprintf(f, "  (%s)\n", c->note);
		return;
	}
	fprintf(f, "CXL ports:\n");
	for (size_t i = 0; i < c->nports; i++)
		if (c->ports[i].parent < 0)
			port_text(f, c, i, 0);
	fprintf(f, "CXL decoders:\n");
	for (size_t i = 0; i < c->ndecoders; i++)
		decoder_text(f, c, &c->decoders[i]);
	if (!c->ndecoders)
		fprintf(f, "  none\n");
	fprintf(f, "CXL regions:\n");
	for (size_t i = 0; i < c->nregions; i++) {
		const struct ix_cxl_region *r = &c->regions[i];
		char size[32];

		ix_fmt_bytes((double)r->size, &bytes_u, size, sizeof(size));
		fprintf(f, "  %-10s of %-14s 0x%" PRIx64 " %s ways %u gran %u %s%s", r->name,
			r->decoder, r->base, size, r->ways, r->granularity,
			r->committed ? "committed" : "not committed",
			r->enabled ? ", enabled" : "");
		for (size_t k = 0; k < r->ntargets; k++)
			fprintf(f, " %s", r->targets[k]);
		fprintf(f, "\n");
	}
	if (!c->nregions)
		fprintf(f, "  none (no memory of a CXL device is mapped through a region)\n");
}
