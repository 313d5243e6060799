/* ixperf ecmp as JSON (the "ecmp" result of the schema). */
#include "config.h"

#include "probes/cluster/ecmp.h"
#include "report/json/json.h"

static json_t *host_of(const struct ix_hostlist *h, uint32_t i)
{
	char buf[IX_HOST_NAME_MAX + 16];

	ix_host_format(&h->v[i], buf, sizeof(buf));
	return json_string(buf);
}

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *num_if(bool known, double v)
{
	return known ? json_real(v) : json_null();
}

static json_t *int_if(bool known, uint64_t v)
{
	return known ? json_integer((json_int_t)v) : json_null();
}

static json_t *hops_json(const struct ix_ecmp_result *r, const struct ix_ecmp_flow *f)
{
	json_t *a = json_array();

	for (uint32_t s = 0; s < r->nswitches; s++) {
		const struct ix_ecmp_hop *h = &f->hop[s];

		json_array_append_new(a,
				      json_pack("{s:o,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "switch",
						host_of(r->hosts, r->sw[s].host), "read", h->read,
						"in", str_or_null(h->read ? h->in : NULL),
						"in_bytes", int_if(h->read, h->in_bytes), "out",
						str_or_null(h->read ? h->out : NULL), "out_bytes",
						int_if(h->read, h->out_bytes), "uplink",
						str_or_null(h->uplink), "uplink_bytes",
						int_if(h->uplink[0], h->uplink_bytes), "why",
						str_or_null(h->uplink[0] ? NULL : h->why)));
	}
	return a;
}

static json_t *flows_json(const struct ix_ecmp_result *r)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < r->nflows; i++) {
		const struct ix_ecmp_flow *f = &r->flows[i];
		bool ran = r->nswitches > 0, rdma = r->params.rdma;
		json_t *o, *alone;

		o = json_pack("{s:i,s:i,s:o,s:o,s:o,s:b,s:o,s:o,s:o}", "index", (int)i, "sport",
			      (int)f->sport, "dport", int_if(f->ok, f->dport), "alone",
			      !ran ? json_null()
				   : json_pack("{s:b,s:o,s:o,s:o,s:o}", "ok", f->alone_ok, "bps",
					       num_if(f->alone_ok, f->alone_bps), "bytes",
					       int_if(f->alone_ok, f->alone_bytes), "dport",
					       int_if(f->alone_ok, f->alone_dport), "error",
					       str_or_null(f->alone_ok ? NULL : f->alone_error)),
			      "hops", hops_json(r, f), "ok", f->ok, "bps", num_if(f->ok, f->bps),
			      "bytes", int_if(f->ok, f->bytes), "seconds",
			      num_if(f->ok, f->seconds));
		/* rdma: the QP behind the flow, and its port where not known. */
		if (rdma && !f->sport)
			json_object_set_new(o, "sport", json_null());
		json_object_set_new(o, "qpn", int_if(rdma && f->qpn, f->qpn));
		json_object_set_new(o, "remote_qpn", int_if(rdma && f->qpn, f->remote_qpn));
		json_object_set_new(o, "flow_label", int_if(rdma && f->qpn, f->flow_label));
		if ((alone = json_object_get(o, "alone")) && json_is_object(alone)) {
			json_object_set_new(alone, "start_s",
					    num_if(rdma && f->alone_ok, f->alone_start_s));
			json_object_set_new(alone, "end_s",
					    num_if(rdma && f->alone_ok, f->alone_end_s));
		}
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *switches_json(const struct ix_ecmp_result *r)
{
	json_t *a = json_array();

	for (uint32_t s = 0; s < r->nswitches; s++) {
		const struct ix_ecmp_switch *sw = &r->sw[s];
		json_t *ups = json_array();

		for (uint32_t u = 0; u < sw->nup; u++) {
			const struct ix_ecmp_uplink *up = &sw->up[u];

			json_array_append_new(
				ups,
				json_pack("{s:s,s:b,s:i,s:o,s:o,s:f,s:I,s:o,s:b}", "name", up->name,
					  "up", up->up, "flows", (int)up->flows, "alone_median_bps",
					  num_if(up->flows && r->alone_done, up->alone_median_bps),
					  "together_median_bps",
					  num_if(up->flows && r->together_ok,
						 up->together_median_bps),
					  "together_sum_bps", up->together_sum_bps,
					  "together_flow_bytes",
					  (json_int_t)up->together_flow_bytes, "together_if_bytes",
					  int_if(sw->together_read, up->together_if_bytes),
					  "blamed", up->blamed));
		}
		json_t *o = json_pack("{s:o,s:b,s:o,s:o,s:b,s:i,s:o,s:s,s:s,s:o}", "host",
				      host_of(r->hosts, sw->host), "ok", sw->ok, "error",
				      str_or_null(sw->ok ? NULL : sw->error), "edge",
				      str_or_null(sw->edge), "first_hop", sw->first_hop, "mapped",
				      (int)sw->mapped, "uplinks", ups, "state",
				      ix_ecmp_state_name(sw->state), "verdict", sw->verdict,
				      "evidence", str_or_null(sw->evidence));

		json_object_set_new(o, "paths_kept",
				    sw->together_read ? json_boolean(sw->paths_kept) : json_null());
		json_object_set_new(o, "drift", str_or_null(sw->drift));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *spread_json(const struct ix_ecmp_spread *s)
{
	if (s->n == 0)
		return json_null();
	return json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "flows", (int)s->n, "min_bps", s->min,
			 "median_bps", s->median, "max_bps", s->max, "mean_bps", s->mean, "sum_bps",
			 s->sum, "cv", s->cv, "jain", s->jain);
}

static json_t *params_json(const struct ix_ecmp_params *p)
{
	json_t *ups = p->nuplinks ? json_array() : json_null(), *o;

	for (uint32_t i = 0; i < p->nuplinks; i++)
		json_array_append_new(ups, json_string(p->uplinks[i]));
	o = json_pack("{s:s,s:i,s:i,s:I,s:f,s:f,s:f,s:o,s:o}", "path", p->bw.path, "flows",
		      (int)p->bw.streams, "src_port", (int)p->bw.src_port, "msg_size",
		      (json_int_t)p->bw.msg_size, "duration_s", p->bw.duration_s, "warmup_s",
		      p->bw.warmup_s, "alone_s", p->alone_s, "rate_bps",
		      int_if(p->bw.rate_bps > 0, p->bw.rate_bps), "uplinks", ups);
	json_object_set_new(o, "lead_s", num_if(p->rdma, p->lead_s));
	json_object_set_new(o, "gap_s", num_if(p->rdma, p->gap_s));
	return o;
}

json_t *ix_json_ecmp(const struct ix_ecmp_result *r)
{
	json_t *o = json_pack(
		"{s:s,s:b,s:o,s:o,s:o,s:o,s:o,s:{s:o,s:o,s:o},s:o,s:s,s:s,s:o}", "kind", "ecmp",
		"complete", r->complete, "from", host_of(r->hosts, 0), "to", host_of(r->hosts, 1),
		"params", params_json(&r->params), "switches", switches_json(r), "flows",
		flows_json(r), "pair", "ok", json_boolean(r->together_ok), "bps",
		num_if(r->together_ok, r->pair_bps), "bytes", int_if(r->together_ok, r->pair_bytes),
		"spread", spread_json(&r->spread), "state", ix_ecmp_state_name(r->state), "verdict",
		r->verdict, "note", str_or_null(r->note));

	/* rdma: how the QPs' source ports are known, and when they were
	 * connected. */
	json_object_set_new(o, "sport_how", str_or_null(r->params.rdma ? r->sport_how : NULL));
	json_object_set_new(o, "ready_s", num_if(r->params.rdma && r->sport_how, r->ready_s));
	return o;
}
