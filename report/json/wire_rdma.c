/* The RDMA transport analysis (struct ix_wire_rdma) as the "rdma" member of
 * the schema's "wire" object: the capture's total, host pairs and
 * connections (rolled up by probes/capture/rdmastat.h) and every direction
 * of a queue pair analysed. */
#include "config.h"

#include <stdio.h>

#include "probes/capture/ib.h"
#include "probes/capture/rdmastat.h"
#include "report/json/json.h"

#define PAIRS_MAX IX_WIRE_RDMA_FLOWS

static json_t *count(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *span_json(const struct ix_wire_span *s)
{
	if (!s->count)
		return json_null();
	return json_pack("{s:I,s:I,s:f,s:I}", "count", (json_int_t)s->count, "min_ns",
			 (json_int_t)s->min_ns, "mean_ns", (double)s->sum_ns / (double)s->count,
			 "max_ns", (json_int_t)s->max_ns);
}

static json_t *naks_json(const uint64_t *naks)
{
	json_t *o = json_object();

	for (int i = 0; i < IX_WIRE_NAK__MAX; i++)
		json_object_set_new(o, ix_rdma_nak_key(i), count(naks[i]));
	return o;
}

/* The counters a direction, a pair and the total share. */
static void counts_json(json_t *o, const struct ix_rdma_sum *s)
{
	json_object_set_new(o, "packets", count(s->packets));
	json_object_set_new(o, "bytes", count(s->bytes));
	json_object_set_new(o, "payload_bytes", count(s->payload));
	json_object_set_new(o, "requests", count(s->requests));
	json_object_set_new(o, "responses", count(s->responses));
	json_object_set_new(o, "retransmitted", count(s->retransmitted));
	json_object_set_new(o, "out_of_sequence", count(s->out_of_sequence));
	json_object_set_new(o, "retries", count(s->retries));
	json_object_set_new(o, "retry_wait", span_json(&s->retry_wait));
	json_object_set_new(o, "acks", count(s->acks));
	json_object_set_new(o, "rnr_naks", count(s->rnr_naks));
	json_object_set_new(o, "rnr_timer_max_ns",
			    s->rnr_naks ? count((uint64_t)s->rnr_timer_max_ns) : json_null());
	json_object_set_new(o, "naks", naks_json(s->naks));
	json_object_set_new(o, "ack_latency", span_json(&s->ack_latency));
	json_object_set_new(o, "ecn_ce", count(s->ecn_ce));
	json_object_set_new(o, "cnp", count(s->cnp));
	json_object_set_new(o, "fecn", count(s->fecn));
	json_object_set_new(o, "becn", count(s->becn));
	json_object_set_new(o, "gap_max_ns", count((uint64_t)s->gap_max_ns));
}

static const char *kind_name(uint8_t kind)
{
	switch (kind) {
	case IX_WIRE_ADDR_IP4:
		return "ipv4";
	case IX_WIRE_ADDR_IP6:
		return "ipv6";
	default:
		return "lid";
	}
}

static json_t *flow_json(const struct ix_wire_rdma_flow *f, uint32_t nflows)
{
	struct ix_rdma_sum s = { 0 };
	json_t *o = json_object(), *ops = json_array();
	char a[64], b[64], name[40];

	ix_rdma_sum_flow(&s, f);
	json_object_set_new(o, "address_kind", json_string(kind_name(f->kind)));
	json_object_set_new(o, "src", json_string(ix_rdma_addr(f->kind, f->src, a, sizeof(a))));
	json_object_set_new(o, "dst", json_string(ix_rdma_addr(f->kind, f->dst, b, sizeof(b))));
	json_object_set_new(o, "dest_qp", count(f->dest_qp));
	json_object_set_new(o, "peer",
			    f->peer >= 0 && (uint32_t)f->peer < nflows ? count((uint64_t)f->peer)
								       : json_null());
	counts_json(o, &s);
	for (uint32_t i = 0; i < f->nops && i < IX_WIRE_RDMA_OPS; i++) {
		const char *n = ix_ib_opcode_name(f->ops[i].opcode, name, sizeof(name));

		json_array_append_new(ops, json_pack("{s:i,s:o,s:I}", "opcode", f->ops[i].opcode,
						     "name", n ? json_string(n) : json_null(),
						     "packets", (json_int_t)f->ops[i].packets));
	}
	json_object_set_new(o, "ops", ops);
	json_object_set_new(o, "ops_other", count(f->ops_other));
	json_object_set_new(o, "first_ns", count((uint64_t)f->first_ns));
	json_object_set_new(o, "last_ns", count((uint64_t)f->last_ns));
	json_object_set_new(o, "gap_end_ns",
			    f->gap_max_ns ? count((uint64_t)f->gap_end_ns) : json_null());
	return o;
}

json_t *ix_json_wire_rdma(const struct ix_wire_rdma *r)
{
	struct ix_rdma_pair pairs[PAIRS_MAX];
	struct ix_rdma_conn conns[IX_WIRE_RDMA_FLOWS];
	struct ix_rdma_sum total;
	uint32_t nf = r->nflows < IX_WIRE_RDMA_FLOWS ? r->nflows : IX_WIRE_RDMA_FLOWS;
	size_t np = ix_rdma_pairs(r, pairs, PAIRS_MAX), nc = ix_rdma_conns(r, conns, nf);
	json_t *o = json_object(), *t = json_object(), *arr = json_array();
	char a[64], b[64];

	ix_rdma_total(r, &total);
	counts_json(t, &total);
	json_object_set_new(o, "total", t);
	for (size_t i = 0; i < np; i++) {
		json_t *p = json_pack("{s:s,s:s,s:s}", "address_kind", kind_name(pairs[i].kind),
				      "a", ix_rdma_addr(pairs[i].kind, pairs[i].a, a, sizeof(a)),
				      "b", ix_rdma_addr(pairs[i].kind, pairs[i].b, b, sizeof(b)));

		json_object_set_new(p, "directions", count(pairs[i].sum.flows));
		counts_json(p, &pairs[i].sum);
		json_array_append_new(arr, p);
	}
	json_object_set_new(o, "host_pairs", arr);
	arr = json_array();
	for (size_t i = 0; i < nc; i++)
		json_array_append_new(
			arr, json_pack("{s:i,s:o}", "requester", conns[i].requester, "responder",
				       conns[i].responder >= 0 ? json_integer(conns[i].responder)
							       : json_null()));
	json_object_set_new(o, "connections", arr);
	arr = json_array();
	for (uint32_t i = 0; i < nf; i++)
		json_array_append_new(arr, flow_json(&r->flows[i], nf));
	json_object_set_new(o, "flows", arr);
	json_object_set_new(o, "flows_other", count(r->flows_other));
	return o;
}
