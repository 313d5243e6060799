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

/* The RDMA transport analysis (probes/capture/rdmastat.h): per direction
 * of a queue pair, i.e. the packets from one address to another for one
 * destination QP. A connection is two directions tied together: the
 * requester's (to the responder's QP) and the responder's (ACKs, READ
 * responses, NAKs, to the requester's QP). */
#define IX_WIRE_RDMA_FLOWS 32 /* directions analysed one by one; the rest counted */
#define IX_WIRE_RDMA_OPS   12 /* opcodes counted one by one per direction */

enum ix_wire_addr_kind {
	IX_WIRE_ADDR_LID = 1, /* native InfiniBand: the LRH's 16-bit LIDs, GRH or not */
	IX_WIRE_ADDR_IP4 = 4, /* RoCEv2 over IPv4 */
	IX_WIRE_ADDR_IP6 = 6, /* RoCEv2 over IPv6 */
};

/* NAK codes as counted: the IBA's five, then any reserved one. */
enum ix_wire_nak {
	IX_WIRE_NAK_PSN_SEQ = 0,
	IX_WIRE_NAK_INV_REQ,
	IX_WIRE_NAK_REM_ACCESS,
	IX_WIRE_NAK_REM_OP,
	IX_WIRE_NAK_INV_RD_REQ,
	IX_WIRE_NAK_RESERVED,
	IX_WIRE_NAK__MAX
};

struct ix_wire_rdma_op {
	uint8_t opcode;
	uint64_t packets;
};

/* Times in ns; count 0 when none was measured. */
struct ix_wire_span {
	uint64_t count;
	int64_t min_ns, max_ns, sum_ns;
};

struct ix_wire_rdma_flow {
	uint8_t kind;             /* enum ix_wire_addr_kind */
	uint8_t src[16], dst[16]; /* IP addresses, or LIDs in the first 2 bytes */
	uint32_t dest_qp;
	int32_t peer; /* index of the direction that answers this one; -1: none seen */
	uint64_t packets;
	uint64_t bytes;   /* on the wire */
	uint64_t payload; /* after the transport headers */
	uint32_t nops;
	struct ix_wire_rdma_op ops[IX_WIRE_RDMA_OPS];
	uint64_t ops_other; /* packets of opcodes beyond the table */
	uint64_t requests;  /* SEND, WRITE, READ request, atomics (RC, UC, XRC) */
	uint64_t responses; /* ACKs, READ responses, atomic ACKs */
	/* The requests' PSN sequence (and the READ responses'): a PSN that
	 * does not advance is a retransmission, one that skips ahead an
	 * out-of-sequence arrival (the packets between never passed here). */
	uint64_t retransmitted;
	uint64_t out_of_sequence;
	uint64_t retries; /* runs of retransmissions (go-back-N episodes) */
	struct ix_wire_span
		retry_wait; /* silence before each run: the ACK timeout or the NAK's turn */
	/* What the responder said, in this direction. */
	uint64_t acks;
	uint64_t rnr_naks;
	int64_t rnr_timer_max_ns; /* the longest RNR NAK timer asked for */
	uint64_t naks[IX_WIRE_NAK__MAX];
	struct ix_wire_span
		ack_latency; /* request to the ACK or first READ response naming its PSN */
	uint64_t ecn_ce;     /* IP CE (either header of an overlay) */
	uint64_t cnp;
	uint64_t fecn, becn; /* BTH congestion bits */
	int64_t first_ns, last_ns;
	int64_t gap_max_ns; /* the longest silence between two packets (a stall) */
	int64_t gap_end_ns; /* when it ended */
};

struct ix_wire_rdma {
	uint32_t nflows;
	struct ix_wire_rdma_flow flows[IX_WIRE_RDMA_FLOWS];
	uint64_t flows_other; /* packets of directions beyond the table */
};

struct ix_wire_figures {
	bool present;       /* a capture was attached */
	char iface[64];     /* interface or file name */
	char filter[256];   /* BPF filter, "" for none */
	uint64_t packets;   /* handed to the decoder */
	uint64_t bytes;     /* on the wire (original lengths; ERSPAN: the mirrored frames') */
	uint64_t malformed; /* truncated or inconsistent headers */
	uint64_t other;     /* well formed but neither TCP nor UDP over IP */
	uint64_t dropped;   /* by the kernel or the interface (live captures) */
	uint64_t tcp_packets;
	uint64_t tcp_retransmissions; /* includes fast and spurious ones */
	uint64_t tcp_dup_acks;
	uint64_t tcp_out_of_order;
	uint64_t tcp_zero_window;
	uint64_t udp_packets;
	uint64_t
		ecn_ce; /* IP packets marked Congestion Experienced (either header of an overlay) */
	uint64_t overlay_packets; /* VXLAN, Geneve, GRE, ERSPAN: analysed by their inner packet */
	uint64_t overlay_ecn_ce;  /* of those, the outer IP header marked CE */
	uint64_t roce_packets;
	uint64_t roce_ecn_ce;
	uint64_t roce_cnp;
	uint32_t nqps;
	struct ix_wire_qp qps[IX_WIRE_MAX_QPS];
	uint64_t qps_other;       /* RoCE packets of QPs beyond the table */
	uint64_t ib_packets;      /* native InfiniBand (LRH) with a BTH */
	struct ix_wire_rdma rdma; /* the transport analysis of RoCEv2 and native InfiniBand */
	uint64_t tcp_flows;       /* TCP conversations seen */
	uint64_t
		tcp_flows_evicted; /* forgotten to bound memory (their later packets start afresh) */
};

#endif
