/* The CXL bus of a topology (probes/host/cxl.h) as the "cxl" and
 * "cxl_bus" members of the "topo" result. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/json/json.h"

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *names(const char v[][IX_CXL_NAME], size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *protocols(uint16_t bits)
{
	json_t *a = json_array();

	if (bits & IX_FLEXBUS_MEM)
		json_array_append_new(a, json_string("mem"));
	if (bits & IX_FLEXBUS_IO)
		json_array_append_new(a, json_string("io"));
	if (bits & IX_FLEXBUS_CACHE)
		json_array_append_new(a, json_string("cache"));
	return a;
}

static json_t *flexbus(const struct ix_cxl_flexbus *fb)
{
	if (!fb->known)
		return json_null();
	return json_pack("{s:s,s:o,s:o,s:o}", "source", fb->dvsec == 7 ? "flexbus" : "device",
			 "capable", protocols(fb->cap), "enabled", protocols(fb->status), "flit68",
			 fb->dvsec == 7 ? json_boolean(fb->status & IX_FLEXBUS_68B_FLIT)
					: json_null());
}

static json_t *memdev(const struct ix_topo *t, const struct ix_cxl_memdev *m)
{
	const struct ix_cxl *c = &t->cxl;
	char issue[384];

	return json_pack(
		"{s:s,s:o,s:o,s:o,s:o,s:o,s:I,s:I,s:b,s:o,s:{s:o,s:o},s:o}", "name", m->name, "pci",
		m->pci >= 0 ? json_string(t->pci.v[m->pci].bdf) : str_or_null(m->host), "port",
		str_or_null(m->port), "numa_node",
		m->numa_node >= 0 ? json_integer(m->numa_node) : json_null(), "firmware",
		str_or_null(m->firmware), "serial",
		m->serial_known ? json_integer((json_int_t)m->serial) : json_null(), "ram_bytes",
		(json_int_t)m->ram_bytes, "pmem_bytes", (json_int_t)m->pmem_bytes, "enabled",
		m->enabled, "endpoint",
		m->endpoint >= 0 ? json_string(c->ports[m->endpoint].name) : json_null(), "flexbus",
		"device", flexbus(&m->dev_fb), "port", flexbus(&m->port_fb), "issue",
		ix_cxl_link_issue(m, issue, sizeof(issue)) ? json_string(issue) : json_null());
}

json_t *ix_json_cxl_memdevs(const struct ix_topo *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->cxl.nmemdevs; i++)
		json_array_append_new(a, memdev(t, &t->cxl.memdevs[i]));
	return a;
}

/* An address or size libcxl did not read (all ones): null. */
static json_t *base_or_null(uint64_t v)
{
	return v == UINT64_MAX ? json_null() : json_integer((json_int_t)v);
}

static json_t *ports(const struct ix_cxl *c)
{
	json_t *a = json_array();

	for (size_t i = 0; i < c->nports; i++) {
		const struct ix_cxl_port *p = &c->ports[i];
		json_t *dports = json_array();

		for (size_t k = 0; k < p->ndports; k++)
			json_array_append_new(dports,
					      json_pack("{s:s,s:o}", "name", p->dports[k].name,
							"pci", str_or_null(p->dports[k].pci)));
		json_array_append_new(
			a, json_pack("{s:s,s:s,s:o,s:i,s:o,s:b,s:o,s:o}", "name", p->name, "kind",
				     ix_cxl_port_kind_name(p->kind), "parent",
				     p->parent >= 0 ? json_string(c->ports[p->parent].name)
						    : json_null(),
				     "depth", p->depth, "host", str_or_null(p->host), "enabled",
				     p->enabled, "memdev",
				     p->memdev >= 0 ? json_string(c->memdevs[p->memdev].name)
						    : json_null(),
				     "dports", dports));
	}
	return a;
}

static json_t *decoders(const struct ix_cxl *c)
{
	json_t *a = json_array();

	for (size_t i = 0; i < c->ndecoders; i++) {
		const struct ix_cxl_decoder *d = &c->decoders[i];
		json_t *caps = json_array();

		if (d->ram)
			json_array_append_new(caps, json_string("ram"));
		if (d->pmem)
			json_array_append_new(caps, json_string("pmem"));
		json_array_append_new(
			a, json_pack("{s:s,s:s,s:o,s:I,s:o,s:o,s:o,s:o,s:o,s:b,s:i,s:i,s:o,s:o}",
				     "name", d->name, "port", c->ports[d->port].name, "base",
				     base_or_null(d->base), "size", (json_int_t)d->size, "dpa_base",
				     base_or_null(d->dpa_base), "dpa_size",
				     base_or_null(d->dpa_size), "mode", str_or_null(d->mode),
				     "target_type", str_or_null(d->target_type), "capabilities",
				     caps, "locked", d->locked, "ways", (int)d->ways, "granularity",
				     (int)d->granularity, "targets", names(d->targets, d->ntargets),
				     "region", str_or_null(d->region)));
	}
	return a;
}

static json_t *regions(const struct ix_cxl *c)
{
	json_t *a = json_array();

	for (size_t i = 0; i < c->nregions; i++) {
		const struct ix_cxl_region *r = &c->regions[i];

		json_array_append_new(
			a, json_pack("{s:s,s:s,s:o,s:I,s:i,s:i,s:b,s:b,s:o}", "name", r->name,
				     "decoder", r->decoder, "base", base_or_null(r->base), "size",
				     (json_int_t)r->size, "ways", (int)r->ways, "granularity",
				     (int)r->granularity, "committed", r->committed, "enabled",
				     r->enabled, "targets", names(r->targets, r->ntargets)));
	}
	return a;
}

json_t *ix_json_cxl_bus(const struct ix_cxl *c)
{
	return json_pack("{s:b,s:o,s:o,s:o,s:o}", "read", c->tree, "note", str_or_null(c->note),
			 "ports", ports(c), "decoders", decoders(c), "regions", regions(c));
}
