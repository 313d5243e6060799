/* Wire diagnostics as a compact block of text. */
#include "config.h"

#include <stdio.h>

#include "report/fmt/units.h"
#include "report/text/text.h"

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
	if (w->overlay_packets)
		fprintf(f,
			"  Overlay (VXLAN, Geneve, GRE, ERSPAN) %llu packets, analysed inside: "
			"%llu outer "
			"ECN-CE\n",
			(unsigned long long)w->overlay_packets,
			(unsigned long long)w->overlay_ecn_ce);
	if (w->ib_packets)
		fprintf(f, "  InfiniBand %llu packets\n", (unsigned long long)w->ib_packets);
	ix_text_wire_rdma(f, &w->rdma);
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
