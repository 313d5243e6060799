/* What a packet capture said about a test, as a result carries it
 * (probes/capture/ fills it; report/ renders it). Counts are those
 * Wireshark's TCP analysis gives and, for RoCEv2, ECN-CE, CNPs and
 * packets per QP. */
#ifndef IX_WIREFIG_H
#define IX_WIREFIG_H

#include <stdbool.h>
#include <stdint.h>

#define IX_WIRE_MAX_QPS 64 /* QPs counted one by one; the rest in qps_other */

struct ix_wire_qp {
	uint32_t qp; /* destination QP number (24 bits) */
	uint64_t packets;
	uint64_t ecn_ce;
};

struct ix_wire_figures {
	bool present;       /* a capture was attached */
	char iface[64];     /* interface or file name */
	char filter[256];   /* BPF filter, "" for none */
	uint64_t packets;   /* handed to the decoder */
	uint64_t bytes;     /* on the wire (original lengths) */
	uint64_t malformed; /* truncated or inconsistent headers */
	uint64_t other;     /* well formed but neither TCP nor UDP over IP */
	uint64_t dropped;   /* by the kernel or the interface (live captures) */
	uint64_t tcp_packets;
	uint64_t tcp_retransmissions; /* includes fast and spurious ones */
	uint64_t tcp_dup_acks;
	uint64_t tcp_out_of_order;
	uint64_t tcp_zero_window;
	uint64_t udp_packets;
	uint64_t ecn_ce; /* IP packets marked Congestion Experienced */
	uint64_t roce_packets;
	uint64_t roce_ecn_ce;
	uint64_t roce_cnp;
	uint32_t nqps;
	struct ix_wire_qp qps[IX_WIRE_MAX_QPS];
	uint64_t qps_other; /* RoCE packets of QPs beyond the table */
	uint64_t tcp_flows; /* TCP conversations seen */
	uint64_t
		tcp_flows_evicted; /* forgotten to bound memory (their later packets start afresh) */
};

#endif
