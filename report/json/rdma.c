/* The JSON of rdma_bw and rdma_lat results. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "probes/core/link.h"
#include "report/json/json.h"

/* Each QP's bytes at the requester: every completed message's. */
static json_t *qp_bytes(const struct ix_rdma_result *r)
{
	json_t *a;

	if (!r->bw.nqps)
		return json_null();
	a = json_array();
	for (uint32_t q = 0; q < r->bw.nqps; q++)
		json_array_append_new(
			a, json_integer((json_int_t)(r->bw.qp_messages[q] * r->params.msg_size)));
	return a;
}

static json_t *dir_json(const struct ix_rdma_dir_figures *d)
{
	if (!d->valid)
		return json_null();
	return json_pack("{s:I,s:I,s:f,s:f,s:o,s:f}", "messages", (json_int_t)d->messages, "bytes",
			 (json_int_t)d->bytes, "seconds", (double)d->ns / 1e9, "bits_per_second",
			 d->bits_per_second, "peak_bits_per_second",
			 ix_json_opt_f64(d->peak_bits_per_second), "message_rate", d->mpps * 1e6);
}

json_t *ix_json_rdma(const struct ix_rdma_result *r)
{
	json_t *o =
		json_pack("{s:s,s:s,s:s,s:b,s:o,s:o}", "kind", r->latency ? "rdma_lat" : "rdma_bw",
			  "server", r->remote_host, "server_version", r->remote_version, "complete",
			  r->complete, "error", r->complete ? json_null() : json_string(r->error),
			  "params", ix_rdma_params_json(&r->params));

	json_object_set_new(o, "path_mtu",
			    r->path_mtu > 0 ? json_integer(ix_rdma_mtu_bytes(r->path_mtu))
					    : json_null());
	json_object_set_new(o, "local", ix_rdma_port_info_json(&r->local));
	json_object_set_new(o, "remote", ix_rdma_port_info_json(&r->remote));
	json_object_set_new(o, "counters", ix_json_counters_pair(&r->ctr_local, &r->ctr_remote));
	if (r->wire.present)
		json_object_set_new(o, "wire", ix_json_wire(&r->wire));
	if (r->latency) {
		json_object_set_new(o, "metric", json_string(r->lat.one_way ? "rtt/2" : "rtt"));
		json_object_set_new(o, "unit", json_string("ns"));
		json_object_set_new(o, "samples", json_integer((json_int_t)r->lat.iters));
		json_object_set_new(o, "seconds", json_real((double)r->lat.ns / 1e9));
		json_object_set_new(o, "clock",
				    r->lat.clock ? json_string(r->lat.clock) : json_null());
		json_object_set_new(o, "stats", ix_json_lat_stats(&r->lat.stats));
	} else {
		/* The path's ceiling: the lower of both ends'. */
		double ceil = ix_link_ceiling(ix_link_lower(&r->local.link, &r->remote.link));
		struct ix_rdma_summary s;

		ix_rdma_summarize(r, &s);
		json_object_set_new(o, "rdma",
				    s.valid ? json_pack("{s:I,s:I,s:f,s:f,s:o,s:f}", "messages",
							(json_int_t)s.messages, "bytes",
							(json_int_t)s.bytes, "seconds", s.seconds,
							"bits_per_second", s.bits_per_second,
							"peak_bits_per_second",
							ix_json_opt_f64(s.peak_bits_per_second),
							"message_rate", s.mpps * 1e6)
					    : json_null());
		if (s.valid && ceil > 0)
			json_object_set_new(json_object_get(o, "rdma"), "percent_of_ceiling",
					    json_real(100.0 * s.bits_per_second / ceil));
		json_object_set_new(o, "requester",
				    json_pack("{s:o,s:o,s:o}", "tx", dir_json(&r->bw.tx), "rx",
					      dir_json(&r->bw.rx), "qp_bytes", qp_bytes(r)));
		json_object_set_new(o, "responder",
				    json_pack("{s:b,s:o,s:o}", "complete", r->remote_complete, "tx",
					      dir_json(&r->remote_tx), "rx",
					      dir_json(&r->remote_rx)));
	}
	return o;
}
