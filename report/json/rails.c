/* Rail meshes as JSON: each rail's mesh (a "mesh" result with its rail),
 * then the rails side by side ("rails"). */
#include "config.h"

#include "probes/cluster/rails.h"
#include "report/json/json.h"

static json_t *num_or_null(bool have, double v)
{
	return have ? json_real(v) : json_null();
}

static json_t *node_names(const struct ix_hostlist *nodes, const uint32_t *idx, size_t n)
{
	json_t *a = json_array();
	char name[IX_HOST_NAME_MAX + 64];

	for (size_t i = 0; i < n; i++) {
		ix_host_format(&nodes->v[idx[i]], name, sizeof(name));
		json_array_append_new(a, json_string(name));
	}
	return a;
}

/* What a rail is: its name, how it was found, its interface and RDMA
 * device, which node each host is and which nodes are not on it. */
static json_t *rail_json(const struct ix_rails_result *r, uint32_t k)
{
	const struct ix_rail *rl = &r->rails->rail[k];
	const struct ix_rail_verdict *v = &r->verdict[k];

	return json_pack("{s:i,s:s,s:s,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:I,s:I,s:I}", "index",
			 (int)k, "name", rl->name, "by", r->rails->how, "iface",
			 rl->iface[0] ? json_string(rl->iface) : json_null(), "rdma",
			 rl->rdma[0] ? json_string(rl->rdma) : json_null(), "nodes",
			 node_names(r->nodes, rl->node, rl->hosts.n), "missing",
			 node_names(r->nodes, rl->missing, rl->nmissing), "bad", v->bad, "reason",
			 v->bad ? json_string(v->reason) : json_null(), "median_bw_bps",
			 num_or_null(v->have_bw, v->median_bw_bps), "lat_p50_ns",
			 num_or_null(v->lat_p50_ns > 0, v->lat_p50_ns), "bad_pairs",
			 (json_int_t)v->bad_pairs, "pairs_measured", (json_int_t)v->measured,
			 "pairs_failed", (json_int_t)v->failed);
}

json_t *ix_json_rails(const struct ix_rails_result *r)
{
	json_t *results = json_array(), *rails = json_array(), *nodes = json_array(),
	       *bad = json_array();
	char name[IX_HOST_NAME_MAX + 64];

	for (uint32_t k = 0; k < r->rails->n; k++) {
		json_t *rail = rail_json(r, k);

		json_array_append(rails, rail);
		if (r->verdict[k].bad)
			json_array_append_new(bad, json_string(r->rails->rail[k].name));
		if (r->mesh[k].cells.v) {
			json_t *m = ix_json_mesh(&r->mesh[k]);

			json_object_set(m, "rail", rail);
			json_array_append_new(results, m);
		}
		json_decref(rail);
	}
	for (size_t i = 0; i < r->nodes->n; i++) {
		ix_host_format(&r->nodes->v[i], name, sizeof(name));
		json_array_append_new(nodes, json_pack("{s:s,s:f,s:f,s:i}", "host", name,
						       "bw_out_bps", r->node[i].bw_out_bps,
						       "bw_in_bps", r->node[i].bw_in_bps, "rails",
						       (int)r->node[i].rails));
	}
	json_array_append_new(results,
			      json_pack("{s:s,s:b,s:s,s:o,s:o,s:o,s:o,s:f,s:f,s:o,s:f}", "kind",
					"rails", "complete", r->complete, "by", r->rails->how,
					"rails", rails, "bad_rails", bad, "ref_bw_bps",
					num_or_null(r->ref_bw_bps > 0, r->ref_bw_bps), "ref_lat_ns",
					num_or_null(r->ref_lat_ns > 0, r->ref_lat_ns),
					"bw_fraction", r->rules.bw_fraction, "lat_factor",
					r->rules.lat_factor, "nodes", nodes, "wall_s", r->wall_s));
	return results;
}
