/*
 * The RDMA transport analysis over decoded packets with a BTH (RoCEv2 or
 * native InfiniBand): per direction of a queue pair, the operations by
 * opcode, the requests' PSN sequence (retransmissions, out-of-sequence
 * arrivals, the wait before each retry), what the responder said (ACKs,
 * RNR NAKs with their timers, NAKs by code), ACK latency, congestion
 * marks and the longest silence. Directions are tied into connections by
 * the PSNs the responses name. Plain functions: no libpcap here.
 */
#ifndef IX_RDMASTAT_H
#define IX_RDMASTAT_H

#include <stdint.h>

#include "probes/core/wirefig.h"

struct ix_pkt;
struct ix_rdma_ctx;

struct ix_rdma_ctx *ix_rdma_new(void);
void ix_rdma_free(struct ix_rdma_ctx *c);
/* One packet ix_pkt_decode gave a BTH (p->bth), its length on the wire
 * and its capture time. */
void ix_rdma_feed(struct ix_rdma_ctx *c, const struct ix_pkt *p, uint64_t wirelen, int64_t ts_ns);
/* The figures so far. */
void ix_rdma_get(const struct ix_rdma_ctx *c, struct ix_wire_rdma *out);

/* Roll-ups of the directions' figures, for every renderer: the capture's
 * total, per host pair (either direction), per connection. */
struct ix_rdma_sum {
	uint32_t flows;
	uint64_t packets, bytes, payload, requests, responses;
	uint64_t retransmitted, out_of_sequence, retries;
	struct ix_wire_span retry_wait;
	uint64_t acks, rnr_naks;
	int64_t rnr_timer_max_ns;
	uint64_t naks[IX_WIRE_NAK__MAX];
	struct ix_wire_span ack_latency;
	uint64_t ecn_ce, cnp, fecn, becn;
	int64_t gap_max_ns;
};
void ix_rdma_sum_flow(struct ix_rdma_sum *s, const struct ix_wire_rdma_flow *f);
void ix_rdma_total(const struct ix_wire_rdma *r, struct ix_rdma_sum *out);
uint64_t ix_rdma_naks(const struct ix_rdma_sum *s); /* every NAK, RNR NAKs aside */

struct ix_rdma_pair {
	uint8_t kind;         /* enum ix_wire_addr_kind */
	uint8_t a[16], b[16]; /* a sorts before b */
	struct ix_rdma_sum sum;
};
/* The host pairs, in the order first seen; at most max. */
size_t ix_rdma_pairs(const struct ix_wire_rdma *r, struct ix_rdma_pair *out, size_t max);

/* A connection: the requester's direction and the responder's (-1 when
 * nothing answered it: UD, UC, or answers the capture missed). */
struct ix_rdma_conn {
	int requester, responder;
};
size_t ix_rdma_conns(const struct ix_wire_rdma *r, struct ix_rdma_conn *out, size_t max);

/* An address as text: dotted IPv4, IPv6 or GID, "LID n". */
const char *ix_rdma_addr(uint8_t kind, const uint8_t *a, char *buf, size_t len);
/* The NAK code's name in the figures ("psn_sequence", ...). */
const char *ix_rdma_nak_key(int nak);

#endif
