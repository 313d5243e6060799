/*
 * Wire diagnostics: what a packet capture says about a test. Counts are
 * those Wireshark's TCP analysis gives (tcp.analysis.retransmission,
 * duplicate_ack, out_of_order, zero_window) and, for RoCEv2 (UDP 4791),
 * ECN-CE marked packets, CNPs (BTH opcode 0x81) and packets per QP.
 * Plain functions over bytes: no libpcap here, so they test offline.
 */
#ifndef IX_WIRESTAT_H
#define IX_WIRESTAT_H

#include <stdbool.h>
#include <stddef.h>
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

struct ix_pkt;
struct ix_wire_ctx; /* flow table and counters */

struct ix_wire_ctx *ix_wire_new(void);
void ix_wire_free(struct ix_wire_ctx *c);
/* Decode one captured packet (linktype: pcap's DLT_* number), count it.
 * ts_ns is its capture time. out (may be NULL) receives the decoded
 * headers. Returns an enum ix_pkt_status. */
int ix_wire_feed(struct ix_wire_ctx *c, int linktype, const uint8_t *data, size_t caplen,
		 size_t wirelen, int64_t ts_ns, struct ix_pkt *out);
/* The counts so far (present, iface, filter and dropped left untouched). */
void ix_wire_get(const struct ix_wire_ctx *c, struct ix_wire_figures *out);

#endif
