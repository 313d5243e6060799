/* The topology (probes/host/topo.h) as the "topo" result of the schema. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/json/json.h"

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *bdf_or_null(const struct ix_topo *t, int i)
{
	return i >= 0 ? json_string(t->pci.v[i].bdf) : json_null();
}

static json_t *link_json(const struct ix_pci_link *l)
{
	if (!l->present)
		return json_null();
	return json_pack("{s:f,s:i,s:i,s:f,s:i,s:i,s:f,s:f,s:b,s:i,s:i,s:o}", "speed_gts",
			 l->speed_gts, "gen", l->gen, "width", l->width, "max_speed_gts",
			 l->max_speed_gts, "max_gen", l->max_gen, "max_width", l->max_width, "bps",
			 l->bps, "max_bps", l->max_bps, "downtrained", l->downtrained,
			 "expected_gen", l->expected_gen, "expected_width", l->expected_width,
			 "retimers", l->retimers_known ? json_integer(l->retimers) : json_null());
}

static json_t *names_json(char names[][32], size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(names[i]));
	return a;
}

static json_t *pci_json(const struct ix_topo *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->pci.n; i++) {
		const struct ix_pci_dev *d = &t->pci.v[i];
		char vendor[8], device[8], class[10];

		snprintf(vendor, sizeof(vendor), "0x%04x", d->vendor);
		snprintf(device, sizeof(device), "0x%04x", d->device);
		snprintf(class, sizeof(class), "0x%06x", d->class);
		json_array_append_new(
			a, json_pack("{s:s,s:s,s:s,s:o,s:s,s:o,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o}",
				     "bdf", d->bdf, "vendor", vendor, "device", device, "class",
				     d->class_known ? json_string(class) : json_null(), "type",
				     ix_pci_type_name(d->type), "driver", str_or_null(d->driver),
				     "numa_node",
				     d->numa_node >= 0 ? json_integer(d->numa_node) : json_null(),
				     "parent", bdf_or_null(t, d->parent), "host_bridge",
				     d->host_bridge, "switch", bdf_or_null(t, d->sw), "link",
				     link_json(&d->link), "aer",
				     d->aer_known ? json_pack("{s:I,s:I,s:I}", "correctable",
							      (json_int_t)d->aer_cor, "nonfatal",
							      (json_int_t)d->aer_nonfatal, "fatal",
							      (json_int_t)d->aer_fatal)
						  : json_null(),
				     "netdevs", names_json((char(*)[32])d->netdevs, d->nnetdevs),
				     "rdma", names_json((char(*)[32])d->rdma, d->nrdma)));
	}
	return a;
}

static json_t *numa_json(const struct ix_topo *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->nnuma; i++) {
		const struct ix_numa_node *n = &t->numa[i];

		json_array_append_new(
			a, json_pack("{s:i,s:s,s:b,s:o,s:o,s:[o,o]}", "node", n->node, "cpus",
				     n->cpus, "cpuless", n->cpus[0] == '\0', "memory_bytes",
				     n->memory_known ? json_integer((json_int_t)n->memory_bytes)
						     : json_null(),
				     "gpu_memory_of", n->gpu[0] ? json_string(n->gpu) : json_null(),
				     "hmat", ix_json_hmat(&n->access[0]),
				     ix_json_hmat(&n->access[1])));
	}
	return a;
}

static json_t *ifaces_json(const struct ix_topo *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->nifaces; i++) {
		const struct ix_iface *f = &t->ifaces[i];
		const struct ix_link *l = f->link;

		json_array_append_new(
			a, json_pack("{s:s,s:o,s:o,s:s,s:o,s:o,s:b}", "name", l->name, "speed_bps",
				     l->speed_known ? json_real(l->speed_bps) : json_null(), "mtu",
				     l->mtu_known ? json_integer(l->mtu) : json_null(), "state",
				     l->state, "driver", str_or_null(f->driver), "pci",
				     bdf_or_null(t, f->pci), "virtual", l->is_virtual));
	}
	return a;
}

static json_t *ports_json(const struct ix_topo *t)
{
	json_t *a = json_array();

	for (size_t i = 0; i < t->nports; i++) {
		const struct ix_rdma_port *p = &t->ports[i];
		const struct ix_link *l = p->link;
		json_t *gids = json_array();

		for (size_t k = 0; k < p->ngids; k++)
			json_array_append_new(
				gids, json_pack("{s:i,s:s,s:o,s:o}", "index", (int)p->gids[k].index,
						"gid", p->gids[k].gid, "type",
						str_or_null(p->gids[k].type), "netdev",
						str_or_null(p->gids[k].netdev)));
		json_array_append_new(
			a, json_pack("{s:s,s:i,s:s,s:s,s:o,s:s,s:o,s:o,s:o}", "device", l->dev,
				     "port", (int)l->port, "state", l->state, "phys_state",
				     l->phys_state, "rate_bps",
				     l->speed_known ? json_real(l->speed_bps) : json_null(),
				     "link_layer", l->link_layer, "netdev", str_or_null(l->netdev),
				     "pci", bdf_or_null(t, p->pci), "gids", gids));
	}
	return a;
}

static json_t *paths_json(const struct ix_topo *t)
{
	json_t *devs = json_array(), *labels = json_array(), *m = json_array();

	for (size_t a = 0; a < t->npath; a++) {
		json_t *row = json_array();
		char label[16];

		snprintf(label, sizeof(label), "%s%zu", a < t->ngpus ? "GPU" : "NIC",
			 a < t->ngpus ? a : a - t->ngpus);
		json_array_append_new(devs, json_string(t->pci.v[t->path_dev[a]].bdf));
		json_array_append_new(labels, json_string(label));
		for (size_t b = 0; b < t->npath; b++)
			json_array_append_new(row,
					      json_string(ix_path_name(
						      (enum ix_path)t->paths[a * t->npath + b])));
		json_array_append_new(m, row);
	}
	return json_pack("{s:o,s:o,s:o}", "devices", devs, "labels", labels, "matrix", m);
}

json_t *ix_json_topo(const struct ix_topo *t)
{
	json_t *findings = json_array(), *notes = json_array();

	for (size_t i = 0; i < t->nfindings; i++)
		json_array_append_new(
			findings,
			json_pack("{s:s,s:s,s:s,s:s}", "kind", ix_finding_name(t->findings[i].kind),
				  "severity", t->findings[i].error ? "error" : "warn", "device",
				  t->findings[i].device, "message", t->findings[i].message));
	for (size_t i = 0; i < t->pci.nnotes; i++)
		json_array_append_new(notes, json_string(t->pci.notes[i]));
	return json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "kind", "topo", "numa",
			 numa_json(t), "pci", pci_json(t), "interfaces", ifaces_json(t), "rdma",
			 ports_json(t), "cxl", ix_json_cxl_memdevs(t), "cxl_bus",
			 ix_json_cxl_bus(&t->cxl), "paths", paths_json(t), "findings", findings,
			 "notes", notes);
}
