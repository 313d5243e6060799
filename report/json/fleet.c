/* Every node's inventory and the odd ones out (probes/cluster/fleet.h)
 * as the "fleet" object of the schema. */
#include "config.h"

#include "probes/ctl/invwire.h"
#include "report/json/json.h"

json_t *ix_json_fleet(const struct ix_fleet_result *r)
{
	json_t *nodes = json_array(), *odd = json_array(), *finds = json_array();

	for (uint32_t i = 0; i < r->n; i++) {
		const struct ix_fleet_node *nd = &r->nodes[i];

		json_array_append_new(nodes,
				      json_pack("{s:s,s:o,s:b,s:o}", "host", nd->host, "error",
						nd->ok ? json_null() : json_string(nd->error),
						"odd", ix_fleet_node_odd(r, i), "inventory",
						nd->ok ? ix_inv_reply(&nd->inv) : json_null()));
		for (uint32_t k = 0; nd->ok && k < nd->inv.nfindings; k++) {
			const struct ix_inv_finding *f = &nd->inv.findings[k];

			json_array_append_new(finds,
					      json_pack("{s:s,s:s,s:s,s:s,s:s}", "host", nd->host,
							"kind", f->kind, "severity",
							f->error ? "error" : "warning", "device",
							f->device, "message", f->message));
		}
	}
	for (uint32_t k = 0; k < r->nodd; k++) {
		const struct ix_fleet_odd *o = &r->odd[k];

		json_array_append_new(odd, json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:i}", "host",
						     r->nodes[o->node].host, "field", o->field,
						     "device", o->device, "value", o->value,
						     "majority", o->majority, "agree",
						     (int)o->agree, "of", (int)o->of));
	}
	return json_pack("{s:s,s:i,s:i,s:i,s:f,s:o,s:o,s:o}", "kind", "fleet", "answered",
			 (int)r->answered, "odd_nodes", (int)r->odd_nodes, "findings_total",
			 (int)r->findings, "wall_s", r->wall_s, "nodes", nodes, "odd_ones_out", odd,
			 "findings", finds);
}
