#include "config.h"

#include <stdio.h>

#include "report/units.h"
#include "report/wire.h"

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
	json_object_set_new(o, "roce_packets", count(w->roce_packets));
	json_object_set_new(o, "roce_ecn_ce", count(w->roce_ecn_ce));
	json_object_set_new(o, "roce_cnp", count(w->roce_cnp));
	json_object_set_new(o, "qps", qps_json(w));
	json_object_set_new(o, "qps_other", count(w->qps_other));
	return o;
}

void ix_text_wire(FILE *f, const struct ix_wire_figures *w)
{
	struct ix_unit_choice auto_units = { .kind = IX_UNITS_BYTES };
	char amount[32];
	uint32_t n = w->nqps < IX_WIRE_MAX_QPS ? w->nqps : IX_WIRE_MAX_QPS;

	if (!w->present)
		return;
	ix_fmt_bytes((double)w->bytes, &auto_units, amount, sizeof(amount));
	fprintf(f, "Wire (%s%s%s): %llu packets, %s, %llu dropped, %llu malformed\n", w->iface,
		w->filter[0] ? ", filter " : "", w->filter, (unsigned long long)w->packets, amount,
		(unsigned long long)w->dropped, (unsigned long long)w->malformed);
	fprintf(f,
		"  TCP %llu packets: %llu retransmissions (%.3g%%), %llu dup ACKs, %llu out of "
		"order, %llu zero window\n",
		(unsigned long long)w->tcp_packets, (unsigned long long)w->tcp_retransmissions,
		w->tcp_packets ? 100.0 * (double)w->tcp_retransmissions / (double)w->tcp_packets
			       : 0.0,
		(unsigned long long)w->tcp_dup_acks, (unsigned long long)w->tcp_out_of_order,
		(unsigned long long)w->tcp_zero_window);
	fprintf(f, "  UDP %llu packets; ECN-CE %llu; other %llu\n",
		(unsigned long long)w->udp_packets, (unsigned long long)w->ecn_ce,
		(unsigned long long)w->other);
	if (!w->roce_packets)
		return;
	fprintf(f, "  RoCE %llu packets: %llu ECN-CE, %llu CNPs\n",
		(unsigned long long)w->roce_packets, (unsigned long long)w->roce_ecn_ce,
		(unsigned long long)w->roce_cnp);
	if (!n)
		return;
	fprintf(f, "  %10s %14s %10s\n", "QP", "Packets", "ECN-CE");
	for (uint32_t i = 0; i < n; i++) {
		char qp[16];

		snprintf(qp, sizeof(qp), "0x%06x", w->qps[i].qp);
		fprintf(f, "  %10s %14llu %10llu\n", qp, (unsigned long long)w->qps[i].packets,
			(unsigned long long)w->qps[i].ecn_ce);
	}
	if (w->qps_other)
		fprintf(f, "  %10s %14llu\n", "others", (unsigned long long)w->qps_other);
}
