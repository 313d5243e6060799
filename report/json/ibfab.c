/* The "ib_fabric" result (report/json/json.h): an InfiniBand subnet, its
 * cabled ports with their counters, and the findings. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "probes/ibfab/ibfab.h"
#include "report/json/json.h"
#include "report/model/ibblame.h"

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

static json_t *end_json(const struct ix_ibfab *f, int32_t n, uint32_t p)
{
	return json_pack("{s:o,s:i,s:s}", "guid", guid_json(f->nodes[n].guid), "port", (int)p,
			 "node", f->nodes[n].desc);
}

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *ties_json(const struct ix_ibblame *b, const struct ix_mesh_result *r,
			 const struct ix_ibfab *routes)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < b->hosts; i++) {
		const struct ix_ibb_tie *t = &b->ties[i];
		json_t *o = json_pack("{s:s}", "host", r->hosts->v[i].name);

		if (t->node >= 0) {
			json_object_set_new(o, "adapter", end_json(routes, t->node, t->port));
			json_object_set_new(o, "port_guid",
					    guid_json(routes->nodes[t->node].ports[t->port].guid));
			json_object_set_new(o, "by", json_string(t->by));
			json_object_set_new(o, "error", json_null());
		} else {
			json_object_set_new(o, "adapter", json_null());
			json_object_set_new(o, "port_guid", json_null());
			json_object_set_new(o, "by", json_null());
			json_object_set_new(o, "error", json_string(t->why));
		}
		json_array_append_new(a, o);
	}
	return a;
}

json_t *ix_json_ibblame(const struct ix_ibblame *b, const struct ix_mesh_result *r,
			const struct ix_ibfab *routes)
{
	json_t *els = json_array();

	for (uint32_t i = 0; i < b->n; i++) {
		const struct ix_ibb_element *e = &b->v[i];
		json_t *cables = json_array();

		for (uint32_t k = 0; k < e->ncables; k++) {
			const struct ix_ibfab_hop *h = &e->cables[k];
			const struct ix_ibfab_port *pt = ix_ibfab_port(routes, h->node, h->port);

			json_array_append_new(
				cables,
				json_pack("{s:o,s:o}", "from", end_json(routes, h->node, h->port),
					  "to", end_json(routes, pt->peer_node, pt->peer_port)));
		}
		json_array_append_new(els, json_pack("{s:s,s:s,s:s,s:i,s:i,s:o}", "kind",
						     ix_ibb_kind_name(e->kind), "what", e->what,
						     "evidence", e->evidence, "bad", (int)e->bad,
						     "good", (int)e->good, "cables", cables));
	}
	return json_pack("{s:o,s:i,s:i,s:{s:I,s:I,s:I,s:o},s:b,s:o,s:o,s:I,s:o}", "hosts",
			 ties_json(b, r, routes), "tied", (int)b->tied, "switches_routed",
			 (int)b->switches_routed, "pairs", "bad", (json_int_t)b->pairs_bad, "good",
			 (json_int_t)b->pairs_good, "unplaced", (json_int_t)b->unplaced,
			 "unplaced_why", str_or_null(b->unplaced_why), "counters", b->counters,
			 "counters_why", str_or_null(b->counters ? NULL : b->counters_why),
			 "elements", els, "unexplained", (json_int_t)b->unexplained, "caveat",
			 str_or_null(b->caveat));
}
