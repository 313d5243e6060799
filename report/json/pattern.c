/* A traffic pattern's result: its tests, each host's figures and judgement,
 * the verdict (schema: pattern_result). */
#include "config.h"

#include "probes/core/link.h"
#include "report/json/json.h"

static json_t *host_name(const struct ix_pattern_result *r, uint32_t i)
{
	char buf[IX_HOST_NAME_MAX + 16];

	ix_host_format(&r->hosts->v[i], buf, sizeof(buf));
	return json_string(buf);
}

static const char *basis_key(enum ix_pattern_basis b)
{
	return b == IX_BASIS_LINE_RATE ? "line_rate" : b == IX_BASIS_MEDIAN ? "median" : NULL;
}

static json_t *node_json(const struct ix_pattern_result *r, uint32_t i)
{
	const struct ix_pattern_host *h = &r->host[i];
	bool judged = h->basis != IX_BASIS_NONE;
	json_t *o = json_pack(
		"{s:o,s:f,s:f,s:I,s:I,s:o,s:o,s:o,s:o,s:b,s:b,s:i,s:i,s:o,s:o}", "host",
		host_name(r, i), "sent_bps", h->tx_bps, "received_bps", h->rx_bps, "sent_bytes",
		(json_int_t)h->tx_bytes, "received_bytes", (json_int_t)h->rx_bytes, "figure_bps",
		judged ? json_real(h->figure_bps) : json_null(), "against",
		judged ? json_string(basis_key(h->basis)) : json_null(), "against_bps",
		judged ? json_real(h->basis_bps) : json_null(), "percent",
		judged && h->share >= 0 ? json_real(h->share) : json_null(), "bad", h->bad,
		"sat_out", h->sat_out, "tests", (int)h->tests, "failed", (int)h->failed, "link",
		ix_link_json(&h->link), "error", h->error[0] ? json_string(h->error) : json_null());

	json_object_set_new(o, "counters",
			    h->counters_read ? ix_ctr_sum_json(&h->counters) : json_null());
	return o;
}

json_t *ix_json_pattern(const struct ix_pattern_result *r)
{
	const struct ix_mesh_params *p = &r->params;
	json_t *hosts = json_array(), *nodes = json_array(), *tests = json_array(), *res;
	json_t *halves = json_null();

	for (uint32_t i = 0; i < r->n; i++) {
		json_array_append_new(hosts, host_name(r, i));
		json_array_append_new(nodes, node_json(r, i));
	}
	for (uint32_t i = 0; i < r->ntests; i++) {
		const struct ix_pattern_test *t = &r->tests[i];

		json_array_append_new(
			tests, json_pack("{s:i,s:o,s:o,s:b,s:o,s:I,s:o}", "round", (int)t->stage,
					 "from", host_name(r, t->a), "to", host_name(r, t->b), "ok",
					 t->ok, "bps", t->ok ? json_real(t->bps) : json_null(),
					 "bytes", (json_int_t)t->bytes, "error",
					 t->ok ? json_null() : json_string(t->error)));
	}
	if (r->pattern == IX_PATTERN_BISECTION) {
		json_t *order = json_array();

		for (uint32_t i = 0; r->order && i < r->n; i++)
			json_array_append_new(order, json_integer(r->order[i]));
		halves = json_pack("{s:s,s:s,s:s,s:o,s:f}", "split", r->split, "a", r->side[0], "b",
				   r->side[1], "order", order, "cut_bps", r->cut_bps);
	}
	res = json_pack("{s:s,s:s,s:o,s:i,s:o,s:b,s:{s:s,s:I,s:i,s:f,s:f,s:f}}", "kind", "pattern",
			"pattern", ix_pattern_name(r->pattern), "hosts", hosts, "rounds",
			(int)r->rounds, "seed",
			r->pattern == IX_PATTERN_PERMUTATION ? json_integer((json_int_t)r->seed)
							     : json_null(),
			"both_directions", p->both_directions, "params", "path",
			p->bw.path ? p->bw.path : "tcp", "msg_size", (json_int_t)p->bw.msg_size,
			"streams", (int)p->bw.streams, "duration_s", p->bw.duration_s, "warmup_s",
			p->bw.warmup_s, "bad_fraction",
			p->rules.bw_fraction > 0 ? p->rules.bw_fraction : 0.7);
	json_object_set_new(res, "tests", tests);
	json_object_set_new(res, "nodes", nodes);
	json_object_set_new(res, "halves", halves);
	json_object_set_new(res, "median_bps", json_real(r->median_bps));
	json_object_set_new(res, "bad_hosts", json_integer(r->bad_hosts));
	json_object_set_new(res, "tests_failed", json_integer((json_int_t)r->tests_failed));
	json_object_set_new(res, "counters_read", json_boolean(r->counters_any));
	json_object_set_new(res, "verdict", json_string(r->verdict));
	json_object_set_new(res, "estimate_s",
			    r->estimate_s > 0 ? json_real(r->estimate_s) : json_null());
	json_object_set_new(res, "wall_s", json_real(r->wall_s));
	json_object_set_new(res, "complete", json_boolean(r->complete));
	return res;
}
