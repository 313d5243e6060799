/* A saved topology (a run's "topology", the result of 'ixperf topo --json')
 * read back into struct ix_topo, as much as the server's tree needs
 * (report/model/topotree.h): the PCI functions with their place, kind,
 * links (with their retimers), AER counts and names, the NUMA nodes, and
 * the interfaces and RDMA ports with their states. Every member is checked; a malformed one
 * is an error naming it ("topology.pci[3].link.gen is -1, ..."). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json/members.h"
#include "report/json/read.h"

#define TOPO_MAX 65536 /* entries of a list read back */

static int pci_type(const char *s, enum ix_pci_type *out)
{
	for (int t = IX_PCI_OTHER; t <= IX_PCI_BRIDGE; t++)
		if (strcmp(s, ix_pci_type_name((enum ix_pci_type)t)) == 0) {
			*out = (enum ix_pci_type)t;
			return 0;
		}
	return -1;
}

static int hex16(json_t *o, const char *where, const char *key, uint16_t *out, struct ix_err *err)
{
	const char *s;
	char *end;
	unsigned long v;

	if (ix_member_str(o, where, key, IX_MEMBER_REQUIRED, &s, err) < 0)
		return -1;
	v = strtoul(s, &end, 16);
	if (strncmp(s, "0x", 2) != 0 || *end || v > 0xffff)
		return ix_fail(err, IX_EXIT_FAIL, "%s.%s: '%.16s' is not a 16-bit hex ID", where,
			       key, s);
	*out = (uint16_t)v;
	return 0;
}

static int small(json_t *o, const char *where, const char *key, int *out, struct ix_err *err)
{
	double v;

	if (ix_member_num(o, where, key, IX_MEMBER_REQUIRED, 0, 1024, &v, err) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

static int read_link(json_t *o, const char *where, struct ix_pci_link *l, struct ix_err *err)
{
	char at[96];
	json_t *rt;
	double n;

	snprintf(at, sizeof(at), "%s.link", where);
	l->present = true;
	if (ix_member_num(o, at, "speed_gts", IX_MEMBER_REQUIRED, 0, 1e3, &l->speed_gts, err) < 0 ||
	    ix_member_num(o, at, "max_speed_gts", IX_MEMBER_REQUIRED, 0, 1e3, &l->max_speed_gts,
			  err) < 0 ||
	    small(o, at, "gen", &l->gen, err) < 0 || small(o, at, "width", &l->width, err) < 0 ||
	    small(o, at, "max_gen", &l->max_gen, err) < 0 ||
	    small(o, at, "max_width", &l->max_width, err) < 0 ||
	    small(o, at, "expected_gen", &l->expected_gen, err) < 0 ||
	    small(o, at, "expected_width", &l->expected_width, err) < 0 ||
	    ix_member_num(o, at, "bps", IX_MEMBER_REQUIRED, 0, 1e15, &l->bps, err) < 0 ||
	    ix_member_num(o, at, "max_bps", IX_MEMBER_REQUIRED, 0, 1e15, &l->max_bps, err) < 0 ||
	    ix_member_bool(o, at, "downtrained", &l->downtrained, err) < 0)
		return -1;
	/* Documents older than the retimers' member lack it: not known. */
	rt = json_object_get(o, "retimers");
	if (rt && !json_is_null(rt)) {
		if (ix_member_num(o, at, "retimers", IX_MEMBER_REQUIRED, 0, 2, &n, err) < 0)
			return -1;
		if (n != (int)n)
			return ix_fail(err, IX_EXIT_FAIL, "%s.retimers is %g, not a whole number",
				       at, n);
		l->retimers = (int)n;
		l->retimers_known = true;
	}
	return 0;
}

static int read_names(json_t *o, const char *where, const char *key, char names[][32], size_t *n,
		      struct ix_err *err)
{
	json_t *a, *v;
	size_t i;
	char at[96];

	if (ix_member_array(o, where, key, IX_PCI_NAMES, &a, err) < 0)
		return -1;
	json_array_foreach(a, i, v)
	{
		snprintf(at, sizeof(at), "%s.%s[%zu]", where, key, i);
		if (ix_member_text(v, at, "", IX_MEMBER_REQUIRED, names[i], 32, err) < 0)
			return -1;
	}
	*n = json_array_size(a);
	return 0;
}

/* The index of the function named by o[key] (a BDF or null: -1). */
static int bdf_of(const struct ix_pci *p, json_t *o, const char *where, const char *key, int *out,
		  struct ix_err *err)
{
	const char *s;

	*out = -1;
	if (ix_member_str(o, where, key, IX_MEMBER_NULLABLE, &s, err) < 0)
		return -1;
	if (!s)
		return 0;
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].bdf, s) == 0) {
			*out = (int)i;
			return 0;
		}
	return ix_fail(err, IX_EXIT_FAIL, "%s.%s: '%.20s' is not one of the PCI functions", where,
		       key, s);
}

static int read_dev(json_t *o, const char *where, struct ix_pci_dev *d, struct ix_err *err)
{
	const char *type;
	json_t *link, *aer;
	double numa;
	uint64_t v;

	d->numa_node = -1;
	if (ix_member_text(o, where, "bdf", IX_MEMBER_REQUIRED, d->bdf, sizeof(d->bdf), err) < 0 ||
	    hex16(o, where, "vendor", &d->vendor, err) < 0 ||
	    hex16(o, where, "device", &d->device, err) < 0 ||
	    ix_member_str(o, where, "type", IX_MEMBER_REQUIRED, &type, err) < 0 ||
	    ix_member_text(o, where, "driver", IX_MEMBER_NULLABLE, d->driver, sizeof(d->driver),
			   err) < 0 ||
	    ix_member_text(o, where, "host_bridge", IX_MEMBER_REQUIRED, d->host_bridge,
			   sizeof(d->host_bridge), err) < 0 ||
	    read_names(o, where, "netdevs", d->netdevs, &d->nnetdevs, err) < 0 ||
	    read_names(o, where, "rdma", d->rdma, &d->nrdma, err) < 0)
		return -1;
	if (pci_type(type, &d->type) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "%s.type: '%.24s' is not a kind of PCI function",
			       where, type);
	if (!ix_pci_parse_bdf(d->bdf, &d->addr))
		return ix_fail(err, IX_EXIT_FAIL, "%s.bdf: '%s' is not a PCI address", where,
			       d->bdf);
	link = json_object_get(o, "numa_node");
	if (link && !json_is_null(link)) {
		if (ix_member_num(o, where, "numa_node", IX_MEMBER_REQUIRED, 0, 4095, &numa, err) <
		    0)
			return -1;
		d->numa_node = (int)numa;
	}
	link = json_object_get(o, "link");
	if (link && !json_is_null(link) && read_link(link, where, &d->link, err) < 0)
		return -1;
	aer = json_object_get(o, "aer");
	if (aer && !json_is_null(aer)) {
		char at[96];

		snprintf(at, sizeof(at), "%s.aer", where);
		if (ix_member_count(aer, at, "correctable", IX_MEMBER_REQUIRED, UINT64_MAX, &v,
				    err) < 0)
			return -1;
		d->aer_cor = v;
		if (ix_member_count(aer, at, "nonfatal", IX_MEMBER_REQUIRED, UINT64_MAX, &v, err) <
		    0)
			return -1;
		d->aer_nonfatal = v;
		if (ix_member_count(aer, at, "fatal", IX_MEMBER_REQUIRED, UINT64_MAX, &v, err) < 0)
			return -1;
		d->aer_fatal = v;
		d->aer_known = true;
	}
	return 0;
}

static int read_pci(json_t *topo, struct ix_topo *t, struct ix_err *err)
{
	json_t *a, *o;
	size_t i;
	char at[64];

	if (ix_member_array(topo, "topology", "pci", TOPO_MAX, &a, err) < 0)
		return -1;
	t->pci.v = calloc(json_array_size(a) + 1, sizeof(*t->pci.v));
	if (!t->pci.v)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(a, i, o)
	{
		snprintf(at, sizeof(at), "topology.pci[%zu]", i);
		if (read_dev(o, at, &t->pci.v[i], err) < 0)
			return -1;
		t->pci.n = i + 1;
	}
	/* Parents and switches once every function is known. */
	json_array_foreach(a, i, o)
	{
		snprintf(at, sizeof(at), "topology.pci[%zu]", i);
		if (bdf_of(&t->pci, o, at, "parent", &t->pci.v[i].parent, err) < 0 ||
		    bdf_of(&t->pci, o, at, "switch", &t->pci.v[i].sw, err) < 0)
			return -1;
		if (t->pci.v[i].parent == (int)i)
			return ix_fail(err, IX_EXIT_FAIL, "%s.parent is the function itself", at);
	}
	/* Depths, and a parent loop refused. */
	for (i = 0; i < t->pci.n; i++) {
		int d = 0;

		for (int p = t->pci.v[i].parent; p >= 0; p = t->pci.v[p].parent)
			if (++d > (int)t->pci.n)
				return ix_fail(err, IX_EXIT_FAIL,
					       "topology.pci[%zu]: its parents form a loop", i);
		t->pci.v[i].depth = d;
		t->pci.v[i].below_host_bridge = t->pci.v[i].parent < 0;
	}
	return 0;
}

static int read_numa(json_t *topo, struct ix_topo *t, struct ix_err *err)
{
	json_t *a, *o;
	size_t i;
	char at[64];
	double node;

	if (ix_member_array(topo, "topology", "numa", 4096, &a, err) < 0)
		return -1;
	t->numa = calloc(json_array_size(a) + 1, sizeof(*t->numa));
	if (!t->numa)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(a, i, o)
	{
		snprintf(at, sizeof(at), "topology.numa[%zu]", i);
		if (ix_member_num(o, at, "node", IX_MEMBER_REQUIRED, 0, 4095, &node, err) < 0 ||
		    ix_member_text(o, at, "cpus", IX_MEMBER_REQUIRED, t->numa[i].cpus,
				   sizeof(t->numa[i].cpus), err) < 0)
			return -1;
		t->numa[i].node = (int)node;
		t->nnuma = i + 1;
	}
	return 0;
}

/* Interfaces and RDMA ports: a link each, with its name and state. */
static int read_ports(json_t *topo, struct ix_topo *t, struct ix_err *err)
{
	json_t *ifs, *rd, *o;
	size_t i, n;
	char at[64];

	if (ix_member_array(topo, "topology", "interfaces", TOPO_MAX, &ifs, err) < 0 ||
	    ix_member_array(topo, "topology", "rdma", TOPO_MAX, &rd, err) < 0)
		return -1;
	n = json_array_size(ifs) + json_array_size(rd);
	t->links.v = calloc(n + 1, sizeof(*t->links.v));
	t->ifaces = calloc(json_array_size(ifs) + 1, sizeof(*t->ifaces));
	t->ports = calloc(json_array_size(rd) + 1, sizeof(*t->ports));
	if (!t->links.v || !t->ifaces || !t->ports)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(ifs, i, o)
	{
		struct ix_link *l = &t->links.v[t->links.n];

		snprintf(at, sizeof(at), "topology.interfaces[%zu]", i);
		if (ix_member_text(o, at, "name", IX_MEMBER_REQUIRED, l->name, sizeof(l->name),
				   err) < 0 ||
		    ix_member_text(o, at, "state", IX_MEMBER_REQUIRED, l->state, sizeof(l->state),
				   err) < 0 ||
		    bdf_of(&t->pci, o, at, "pci", &t->ifaces[i].pci, err) < 0)
			return -1;
		l->kind = IX_LINK_NET;
		t->ifaces[i].link = l;
		t->links.n++;
		t->nifaces = i + 1;
	}
	json_array_foreach(rd, i, o)
	{
		struct ix_link *l = &t->links.v[t->links.n];
		double port;

		snprintf(at, sizeof(at), "topology.rdma[%zu]", i);
		if (ix_member_text(o, at, "device", IX_MEMBER_REQUIRED, l->dev, sizeof(l->dev),
				   err) < 0 ||
		    ix_member_num(o, at, "port", IX_MEMBER_REQUIRED, 1, 255, &port, err) < 0 ||
		    ix_member_text(o, at, "state", IX_MEMBER_REQUIRED, l->state, sizeof(l->state),
				   err) < 0 ||
		    bdf_of(&t->pci, o, at, "pci", &t->ports[i].pci, err) < 0)
			return -1;
		l->kind = IX_LINK_IB;
		l->port = (unsigned)port;
		snprintf(l->name, sizeof(l->name), "%.40s/%u", l->dev, l->port);
		t->ports[i].link = l;
		t->links.n++;
		t->nports = i + 1;
	}
	return 0;
}

/* "mem" "io" "cache" of a Flex Bus member's list into bits. */
static int read_protocols(json_t *o, const char *at, const char *key, uint16_t *bits,
			  struct ix_err *err)
{
	json_t *a, *v;
	size_t i;

	*bits = 0;
	if (ix_member_array(o, at, key, 8, &a, err) < 0)
		return -1;
	json_array_foreach(a, i, v)
	{
		const char *s = json_string_value(v);

		if (s && !strcmp(s, "mem"))
			*bits |= IX_FLEXBUS_MEM;
		else if (s && !strcmp(s, "io"))
			*bits |= IX_FLEXBUS_IO;
		else if (s && !strcmp(s, "cache"))
			*bits |= IX_FLEXBUS_CACHE;
		else
			return ix_fail(err, IX_EXIT_FAIL,
				       "%s.%s[%zu] is not a CXL protocol (mem, io or cache)", at,
				       key, i);
	}
	return 0;
}

static int read_flexbus(json_t *fb, const char *at, const char *end, struct ix_cxl_flexbus *out,
			struct ix_err *err)
{
	json_t *o = fb ? json_object_get(fb, end) : NULL;
	char where[96];

	memset(out, 0, sizeof(*out));
	if (!o || json_is_null(o))
		return 0;
	snprintf(where, sizeof(where), "%s.flexbus.%s", at, end);
	if (!json_is_object(o))
		return ix_member_bad_type(err, where, "", "an object", o);
	out->known = true;
	return read_protocols(o, where, "capable", &out->cap, err) < 0 ||
			       read_protocols(o, where, "enabled", &out->status, err) < 0
		       ? -1
		       : 0;
}

/* The CXL memory devices: what the tree shows of them. */
static int read_cxl(json_t *topo, struct ix_topo *t, struct ix_err *err)
{
	json_t *a, *o;
	size_t i;
	char at[48];

	if (ix_member_array(topo, "topology", "cxl", 4096, &a, err) < 0)
		return -1;
	if (!(t->cxl.memdevs = calloc(json_array_size(a) + 1, sizeof(*t->cxl.memdevs))))
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(a, i, o)
	{
		struct ix_cxl_memdev *m = &t->cxl.memdevs[i];
		json_t *fb = json_is_object(o) ? json_object_get(o, "flexbus") : NULL;

		snprintf(at, sizeof(at), "topology.cxl[%zu]", i);
		m->endpoint = -1;
		if (ix_member_text(o, at, "name", IX_MEMBER_REQUIRED, m->name, sizeof(m->name),
				   err) < 0 ||
		    ix_member_text(o, at, "pci", IX_MEMBER_NULLABLE, m->host, sizeof(m->host),
				   err) < 0 ||
		    ix_member_text(o, at, "port", IX_MEMBER_NULLABLE, m->port, sizeof(m->port),
				   err) < 0 ||
		    ix_member_text(o, at, "firmware", IX_MEMBER_NULLABLE, m->firmware,
				   sizeof(m->firmware), err) < 0 ||
		    read_flexbus(fb, at, "device", &m->dev_fb, err) < 0 ||
		    read_flexbus(fb, at, "port", &m->port_fb, err) < 0)
			return -1;
		m->pci = ix_pci_find(&t->pci, m->host);
		t->cxl.nmemdevs = i + 1;
	}
	return 0;
}

int ix_json_read_topo(json_t *topo, struct ix_topo *out, struct ix_err *err)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(topo))
		return ix_member_bad_type(err, "topology", "", "an object", topo);
	if (read_pci(topo, out, err) < 0 || read_numa(topo, out, err) < 0 ||
	    read_ports(topo, out, err) < 0 || read_cxl(topo, out, err) < 0) {
		ix_topo_free(out);
		return -1;
	}
	return 0;
}
