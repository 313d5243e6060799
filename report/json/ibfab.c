/* The "ib_fabric" result (report/json/json.h): an InfiniBand subnet, its
 * cabled ports with their counters, and the findings. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "probes/ibfab/ibfab.h"
#include "report/json/json.h"

static json_t *guid_json(uint64_t g)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%016" PRIx64, g);
	return json_string(s);
}

static json_t *counters_json(const struct ix_ibfab_counters *c)
{
	json_t *o;

	if (!c->valid)
		return json_null();
	o = json_object();
	for (int k = 0; k < IX_IBC_N; k++)
		json_object_set_new(o, ix_ibfab_ctr_name((enum ix_ibfab_ctr)k),
				    json_integer((json_int_t)c->v[k]));
	return o;
}

/* What moved between the reads (a cleared counter counts from 0). */
static json_t *moved_json(const struct ix_ibfab_port *p)
{
	json_t *o;

	if (!p->ctr[0].valid || !p->ctr[1].valid)
		return json_null();
	o = json_object();
	for (int k = 0; k < IX_IBC_N; k++)
		json_object_set_new(
			o, ix_ibfab_ctr_name((enum ix_ibfab_ctr)k),
			json_integer((json_int_t)ix_ibfab_moved(p, (enum ix_ibfab_ctr)k)));
	return o;
}

static json_t *port_json(const struct ix_ibfab *f, const struct ix_ibfab_port *p, int reads)
{
	const struct ix_ibfab_counters *last = &p->ctr[reads > 1 ? 1 : 0];
	const struct ix_ibfab_node *peer =
		p->peer_node >= 0 && (uint32_t)p->peer_node < f->n ? &f->nodes[p->peer_node] : NULL;
	json_t *o = json_pack(
		"{s:i,s:o,s:i,s:s,s:i,s:{s:s,s:i,s:i,s:i},s:{s:s,s:i,s:i,s:i,s:i,s:i,s:i},s:f}",
		"port", p->num, "guid", guid_json(p->guid), "lid", p->lid, "state",
		ix_ibfab_state_name(p->state), "phys_state", p->phys, "width", "active",
		ix_ibfab_width_name(p->width_active), "active_bits", p->width_active,
		"enabled_bits", p->width_enabled, "supported_bits", p->width_supported, "speed",
		"active", ix_ibfab_speed_name(p->speed_active, p->ext_active), "active_bits",
		p->speed_active, "enabled_bits", p->speed_enabled, "supported_bits",
		p->speed_supported, "ext_active_bits", p->ext_active, "ext_enabled_bits",
		p->ext_enabled, "ext_supported_bits", p->ext_supported, "rate_gbps",
		ix_ibfab_port_gbps(p));

	json_object_set_new(
		o, "peer",
		peer ? json_pack("{s:o,s:i}", "guid", guid_json(peer->guid), "port", p->peer_port)
		     : json_null());
	json_object_set_new(o, "counters", counters_json(last));
	json_object_set_new(o, "moved", reads > 1 ? moved_json(p) : json_null());
	json_object_set_new(o, "counters_error",
			    last->valid || !last->error[0] ? json_null()
							   : json_string(last->error));
	json_object_set_new(o, "counters_extended", json_boolean(last->extended));
	return o;
}

json_t *ix_json_ibfab(const struct ix_ibfab *f, const struct ix_ibfab_findings *fs, int reads)
{
	json_t *nodes = json_array(), *finds = json_array();
	uint32_t sw, links;

	ix_ibfab_counts(f, &sw, &links);
	for (uint32_t i = 0; i < f->n; i++) {
		const struct ix_ibfab_node *nd = &f->nodes[i];
		json_t *ports = json_array();

		for (uint32_t p = 1; p <= nd->nports; p++) {
			const struct ix_ibfab_port *pt = &nd->ports[p];

			if (pt->peer_node < 0)
				continue; /* no cable: nothing to say */
			json_array_append_new(ports, port_json(f, pt, reads));
		}
		json_array_append_new(nodes, json_pack("{s:o,s:s,s:s,s:i,s:i,s:o}", "guid",
						       guid_json(nd->guid), "type",
						       nd->is_switch ? "switch" : "adapter", "desc",
						       nd->desc, "lid", nd->lid, "ports_total",
						       nd->nports, "ports", ports));
	}
	for (size_t i = 0; fs && i < fs->n; i++) {
		const struct ix_ibfab_finding *x = &fs->v[i];

		json_array_append_new(
			finds,
			json_pack("{s:s,s:o,s:i,s:s}", "kind", ix_ibfab_kind_name(x->kind), "node",
				  x->node >= 0 ? guid_json(f->nodes[x->node].guid) : json_null(),
				  "port", x->port, "text", x->text));
	}
	return json_pack("{s:s,s:b,s:s,s:i,s:i,s:i,s:i,s:o,s:o}", "kind", "ib_fabric", "complete",
			 1, "via", f->via, "reads", reads, "switches", sw, "adapters",
			 (int)(f->n - sw), "links", links, "nodes", nodes, "findings", finds);
}
