/* Wire diagnostics (struct ix_wire_figures) as the "wire" object of the schema. */
#include "config.h"

#include <stdio.h>

#include "report/json/json.h"

static json_t *count(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *qps_json(const struct ix_wire_figures *w)
{
	json_t *arr = json_array();
	uint32_t n = w->nqps < IX_WIRE_MAX_QPS ? w->nqps : IX_WIRE_MAX_QPS;

	for (uint32_t i = 0; i < n; i++)
		json_array_append_new(arr,
				      json_pack("{s:I,s:I,s:I}", "qp", (json_int_t)w->qps[i].qp,
						"packets", (json_int_t)w->qps[i].packets, "ecn_ce",
						(json_int_t)w->qps[i].ecn_ce));
	return arr;
}

json_t *ix_json_wire(const struct ix_wire_figures *w)
{
	json_t *o;

	if (!w->present)
		return json_null();
	o = json_object();
	json_object_set_new(o, "present", json_true());
	json_object_set_new(o, "iface", json_string(w->iface));
	json_object_set_new(o, "filter", w->filter[0] ? json_string(w->filter) : json_null());
	json_object_set_new(o, "packets", count(w->packets));
	json_object_set_new(o, "bytes", count(w->bytes));
	json_object_set_new(o, "dropped", count(w->dropped));
	json_object_set_new(o, "malformed", count(w->malformed));
	json_object_set_new(o, "other", count(w->other));
	json_object_set_new(o, "tcp_packets", count(w->tcp_packets));
	json_object_set_new(o, "tcp_retransmissions", count(w->tcp_retransmissions));
	json_object_set_new(o, "tcp_retransmission_percent",
			    w->tcp_packets ? json_real(100.0 * (double)w->tcp_retransmissions /
						       (double)w->tcp_packets)
					   : json_null());
	json_object_set_new(o, "tcp_dup_acks", count(w->tcp_dup_acks));
	json_object_set_new(o, "tcp_out_of_order", count(w->tcp_out_of_order));
	json_object_set_new(o, "tcp_zero_window", count(w->tcp_zero_window));
	json_object_set_new(o, "udp_packets", count(w->udp_packets));
	json_object_set_new(o, "ecn_ce", count(w->ecn_ce));
	json_object_set_new(o, "overlay_packets", count(w->overlay_packets));
	json_object_set_new(o, "overlay_ecn_ce", count(w->overlay_ecn_ce));
	json_object_set_new(o, "roce_packets", count(w->roce_packets));
	json_object_set_new(o, "roce_ecn_ce", count(w->roce_ecn_ce));
	json_object_set_new(o, "roce_cnp", count(w->roce_cnp));
	json_object_set_new(o, "qps", qps_json(w));
	json_object_set_new(o, "qps_other", count(w->qps_other));
	json_object_set_new(o, "ib_packets", count(w->ib_packets));
	json_object_set_new(o, "rdma",
			    w->rdma.nflows || w->rdma.flows_other ? ix_json_wire_rdma(&w->rdma)
								  : json_null());
	return o;
}
