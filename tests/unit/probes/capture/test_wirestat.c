/* Unit tests for probes/capture/wirestat.c: the TCP sequence analysis counts
 * (as Wireshark gives them), RoCEv2 and ECN counts, the flow table's
 * bound. Packets are raw IPv4 (or IPv6) datagrams built here. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/capture/pkt.h"
#include "probes/capture/wirestat.h"

#define MS  1000000LL /* nanoseconds */
#define MSS 1000u

enum { C2S, S2C };

/* One TCP conversation: client 10.0.0.1:port, server 10.0.0.2:5201. */
struct conv {
	struct ix_wire_ctx *w;
	uint16_t port;
	uint32_t next[2]; /* next sequence number of each side */
	uint16_t win[2];
	int family;
	int64_t t; /* time of the last packet */
};

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* Build and feed one segment; returns the decode status. */
static int segment(struct conv *c, int dir, int64_t t, uint8_t flags, uint32_t seq, uint32_t ack,
		   uint16_t win, uint32_t len)
{
	uint8_t b[1600];
	size_t ip = c->family == 6 ? 40 : 20, tot = ip + 20 + len;
	uint8_t *a = dir == C2S ? (uint8_t *)"\x0a\x00\x00\x01" : (uint8_t *)"\x0a\x00\x00\x02";
	uint8_t *z = dir == C2S ? (uint8_t *)"\x0a\x00\x00\x02" : (uint8_t *)"\x0a\x00\x00\x01";
	uint8_t *tcp = b + ip;

	cr_assert_leq(tot, sizeof(b));
	memset(b, 0, tot);
	if (c->family == 6) {
		b[0] = 0x60;
		put16(b + 4, (uint32_t)(tot - 40));
		b[6] = 6;
		b[7] = 64;
		memcpy(b + 8 + 12, a, 4);
		memcpy(b + 24 + 12, z, 4);
	} else {
		b[0] = 0x45;
		put16(b + 2, (uint32_t)tot);
		b[8] = 64;
		b[9] = 6;
		memcpy(b + 12, a, 4);
		memcpy(b + 16, z, 4);
	}
	put16(tcp, dir == C2S ? c->port : 5201);
	put16(tcp + 2, dir == C2S ? 5201 : c->port);
	put32(tcp + 4, seq);
	put32(tcp + 8, ack);
	tcp[12] = 0x50;
	tcp[13] = flags;
	put16(tcp + 14, win);
	c->t = t;
	return ix_wire_feed(c->w, IX_PKT_DLT_RAW, b, tot, tot, t, NULL);
}

/* Data (len bytes) from dir at its next sequence number, acking the
 * other side; the next sequence number moves on. */
static void data(struct conv *c, int dir, int64_t t, uint32_t len)
{
	segment(c, dir, t, IX_PKT_TH_ACK, c->next[dir], c->next[!dir], c->win[dir], len);
	c->next[dir] += len;
}

/* A pure ACK from dir, of ack (0: everything the other side sent). */
static void ack(struct conv *c, int dir, int64_t t, uint32_t a)
{
	segment(c, dir, t, IX_PKT_TH_ACK, c->next[dir], a ? a : c->next[!dir], c->win[dir], 0);
}

/* A handshake over IP version family with a 2 ms round trip, at t. */
static void open_conv6(struct conv *c, struct ix_wire_ctx *w, int family, uint16_t port, int64_t t)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->port = port;
	c->family = family;
	c->next[C2S] = 1000;
	c->next[S2C] = 0xfffff000u; /* wraps around 2^32 soon */
	c->win[C2S] = 502;
	c->win[S2C] = 509;
	segment(c, C2S, t, IX_PKT_TH_SYN, c->next[C2S]++, 0, 64240, 0);
	segment(c, S2C, t + 1 * MS, IX_PKT_TH_SYN | IX_PKT_TH_ACK, c->next[S2C]++, c->next[C2S],
		65160, 0);
	ack(c, C2S, t + 2 * MS, 0);
}

static void open_conv(struct conv *c, struct ix_wire_ctx *w, uint16_t port, int64_t t)
{
	open_conv6(c, w, 4, port, t);
}

static struct ix_wire_figures figures(const struct ix_wire_ctx *w)
{
	struct ix_wire_figures f;

	memset(&f, 0, sizeof(f));
	ix_wire_get(w, &f);
	return f;
}

static void counts(const struct ix_wire_ctx *w, uint64_t retrans, uint64_t dup, uint64_t ooo,
		   uint64_t zw)
{
	struct ix_wire_figures f = figures(w);

	cr_assert_eq(f.tcp_retransmissions, retrans, "retransmissions %llu, expected %llu",
		     (unsigned long long)f.tcp_retransmissions, (unsigned long long)retrans);
	cr_assert_eq(f.tcp_dup_acks, dup, "dup acks %llu, expected %llu",
		     (unsigned long long)f.tcp_dup_acks, (unsigned long long)dup);
	cr_assert_eq(f.tcp_out_of_order, ooo, "out of order %llu, expected %llu",
		     (unsigned long long)f.tcp_out_of_order, (unsigned long long)ooo);
	cr_assert_eq(f.tcp_zero_window, zw, "zero windows %llu, expected %llu",
		     (unsigned long long)f.tcp_zero_window, (unsigned long long)zw);
}

Test(wirestat, clean_transfer_counts_nothing)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct ix_wire_figures f;
	struct conv c;
	int i;

	cr_assert_not_null(w);
	open_conv(&c, w, 40000, 0);
	for (i = 0; i < 50; i++) {
		data(&c, C2S, 10 * MS + i * MS, MSS);
		data(&c, S2C, 10 * MS + i * MS + 100, 10); /* crosses 2^32 on the way */
		ack(&c, C2S, 10 * MS + i * MS + 200, 0);
	}
	segment(&c, C2S, 100 * MS, IX_PKT_TH_FIN | IX_PKT_TH_ACK, c.next[C2S]++, c.next[S2C], 502,
		0);
	segment(&c, S2C, 101 * MS, IX_PKT_TH_FIN | IX_PKT_TH_ACK, c.next[S2C]++, c.next[C2S], 509,
		0);
	ack(&c, C2S, 102 * MS, 0);
	counts(w, 0, 0, 0, 0);
	f = figures(w);
	cr_assert_eq(f.packets, 3 + 150 + 3);
	cr_assert_eq(f.tcp_packets, 156);
	cr_assert_eq(f.tcp_flows, 1);
	cr_assert_eq(f.bytes, 156 * 40 + 50 * (MSS + 10));
	cr_assert_eq(f.malformed + f.other + f.udp_packets, 0);
	ix_wire_free(w);
}

Test(wirestat, timeout_retransmission)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;
	uint32_t lost;

	open_conv(&c, w, 40000, 0);
	data(&c, C2S, 10 * MS, MSS);
	ack(&c, S2C, 11 * MS, 0);
	lost = c.next[C2S];
	data(&c, C2S, 20 * MS, MSS);
	segment(&c, C2S, 220 * MS, IX_PKT_TH_ACK, lost, c.next[S2C], 502, MSS);
	ack(&c, S2C, 221 * MS, 0);
	counts(w, 1, 0, 0, 0);
	ix_wire_free(w);
}

Test(wirestat, fast_retransmission_after_dup_acks)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;
	uint32_t lost;
	int i;

	open_conv(&c, w, 40000, 0);
	data(&c, C2S, 10 * MS, MSS);
	ack(&c, S2C, 11 * MS, 0);
	lost = c.next[C2S];
	for (i = 0; i < 4; i++)
		data(&c, C2S, 20 * MS + i * 10000, MSS);
	for (i = 0; i < 3; i++)
		ack(&c, S2C, 21 * MS + i * 10000, lost);
	counts(w, 0, 3, 0, 0);
	segment(&c, C2S, 22 * MS, IX_PKT_TH_ACK, lost, c.next[S2C], 502, MSS);
	counts(w, 1, 3, 0, 0);
	ack(&c, S2C, 23 * MS, 0);
	counts(w, 1, 3, 0, 0);
	ix_wire_free(w);
}

Test(wirestat, spurious_retransmission_counts)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;
	uint32_t first;

	open_conv(&c, w, 40000, 0);
	first = c.next[C2S];
	data(&c, C2S, 10 * MS, MSS);
	ack(&c, S2C, 11 * MS, 0);
	/* Sent again although acknowledged. */
	segment(&c, C2S, 12 * MS, IX_PKT_TH_ACK, first, c.next[S2C], 502, MSS);
	counts(w, 1, 0, 0, 0);
	ix_wire_free(w);
}

Test(wirestat, out_of_order_within_rtt)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;
	uint32_t s;

	/* The handshake RTT is 2 ms: a hole filled 1 ms later is reordering. */
	open_conv(&c, w, 40000, 0);
	s = c.next[C2S];
	segment(&c, C2S, 10 * MS, IX_PKT_TH_ACK, s + MSS, c.next[S2C], 502, MSS);
	segment(&c, C2S, 11 * MS, IX_PKT_TH_ACK, s, c.next[S2C], 502, MSS);
	counts(w, 0, 0, 1, 0);
	/* Filled 3 ms later, beyond the RTT: a retransmission. */
	s += 2 * MSS;
	segment(&c, C2S, 20 * MS, IX_PKT_TH_ACK, s + MSS, c.next[S2C], 502, MSS);
	segment(&c, C2S, 23 * MS, IX_PKT_TH_ACK, s, c.next[S2C], 502, MSS);
	counts(w, 1, 0, 1, 0);
	ix_wire_free(w);
}

Test(wirestat, out_of_order_without_handshake_uses_3ms)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;

	memset(&c, 0, sizeof(c));
	c.w = w;
	c.port = 40001;
	c.family = 4;
	segment(&c, C2S, 0, IX_PKT_TH_ACK, 5000, 1, 502, MSS);
	segment(&c, C2S, 1 * MS, IX_PKT_TH_ACK, 7000, 1, 502, MSS);
	segment(&c, C2S, 3 * MS, IX_PKT_TH_ACK, 6000, 1, 502, MSS); /* 2 ms: reordered */
	segment(&c, C2S, 4 * MS, IX_PKT_TH_ACK, 9000, 1, 502, MSS);
	segment(&c, C2S, 8 * MS, IX_PKT_TH_ACK, 8000, 1, 502, MSS); /* 4 ms: resent */
	counts(w, 1, 0, 1, 0);
	ix_wire_free(w);
}

Test(wirestat, zero_window_probe_and_update)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;

	open_conv(&c, w, 40000, 0);
	data(&c, C2S, 10 * MS, MSS);
	c.win[S2C] = 0;
	ack(&c, S2C, 11 * MS, 0); /* zero window */
	segment(&c, C2S, 200 * MS, IX_PKT_TH_ACK, c.next[C2S], c.next[S2C], 502, 1); /* probe */
	ack(&c, S2C, 201 * MS, 0); /* probe ACK, still zero: a zero window */
	counts(w, 0, 0, 0, 2);
	c.win[S2C] = 509;
	ack(&c, S2C, 400 * MS, 0);    /* window update, not a duplicate */
	ack(&c, S2C, 401 * MS, 0);    /* this one repeats it: duplicate */
	data(&c, C2S, 402 * MS, MSS); /* the probe's byte again: new data */
	counts(w, 0, 1, 0, 2);
	ix_wire_free(w);
}

Test(wirestat, keepalive_is_not_a_retransmission)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;

	open_conv(&c, w, 40000, 0);
	data(&c, C2S, 10 * MS, MSS);
	ack(&c, S2C, 11 * MS, 0);
	/* Keep-alive with one garbage byte, its ACK, then one without data. */
	segment(&c, C2S, 60000 * MS, IX_PKT_TH_ACK, c.next[C2S] - 1, c.next[S2C], 502, 1);
	ack(&c, S2C, 60001 * MS, 0);
	segment(&c, C2S, 120000 * MS, IX_PKT_TH_ACK, c.next[C2S] - 1, c.next[S2C], 502, 0);
	ack(&c, S2C, 120001 * MS, 0);
	counts(w, 0, 0, 0, 0);
	ix_wire_free(w);
}

Test(wirestat, duplicate_ack_rules)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;

	open_conv(&c, w, 40000, 0);
	data(&c, C2S, 10 * MS, MSS);
	ack(&c, S2C, 11 * MS, 0);
	ack(&c, S2C, 12 * MS, 0); /* the same ACK, window, sequence: duplicate */
	counts(w, 0, 1, 0, 0);
	/* Not duplicates: another window, data, a FIN, a RST, another ACK. */
	segment(&c, S2C, 13 * MS, IX_PKT_TH_ACK, c.next[S2C], c.next[C2S], 600, 0);
	data(&c, S2C, 14 * MS, 10);
	segment(&c, S2C, 15 * MS, IX_PKT_TH_ACK | IX_PKT_TH_RST, c.next[S2C], c.next[C2S], 509, 0);
	ack(&c, S2C, 16 * MS, c.next[C2S] - 1);
	counts(w, 0, 1, 0, 0);
	/* A zero window repeated is not a duplicate ACK either. */
	c.win[S2C] = 0;
	ack(&c, S2C, 17 * MS, 0);
	ack(&c, S2C, 18 * MS, 0);
	counts(w, 0, 1, 0, 2);
	ix_wire_free(w);
}

Test(wirestat, both_directions_share_a_flow)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct ix_wire_figures f;
	struct conv a, b;

	open_conv(&a, w, 40000, 0);
	open_conv(&b, w, 40001, 0);
	data(&a, C2S, 10 * MS, MSS);
	data(&b, C2S, 10 * MS, MSS);
	ack(&a, S2C, 11 * MS, 0);
	ack(&b, S2C, 11 * MS, 0);
	/* b's duplicate ACK and a's timeout retransmission do not mix. */
	ack(&b, S2C, 12 * MS, 0);
	segment(&a, C2S, 300 * MS, IX_PKT_TH_ACK, a.next[C2S] - MSS, a.next[S2C], 502, MSS);
	counts(w, 1, 1, 0, 0);
	f = figures(w);
	cr_assert_eq(f.tcp_flows, 2);
	ix_wire_free(w);
}

Test(wirestat, ipv6_conversation)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;
	uint32_t lost;

	open_conv6(&c, w, 6, 40000, 0);
	lost = c.next[C2S];
	data(&c, C2S, 10 * MS, MSS);
	segment(&c, C2S, 300 * MS, IX_PKT_TH_ACK, lost, c.next[S2C], 502, MSS);
	counts(w, 1, 0, 0, 0);
	cr_assert_eq(figures(w).tcp_packets, 5);
	ix_wire_free(w);
}

Test(wirestat, port_reuse_starts_afresh)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct conv c;
	int i;

	open_conv(&c, w, 40000, 0);
	for (i = 0; i < 50; i++)
		data(&c, C2S, 10 * MS + i * 1000, MSS);
	ack(&c, S2C, 11 * MS, 0);
	/* A new connection on the same ports, with a lower ISN: its data is
	 * not a retransmission of the old one's. */
	c.next[C2S] = 10;
	segment(&c, C2S, 5000 * MS, IX_PKT_TH_SYN, c.next[C2S]++, 0, 64240, 0);
	segment(&c, S2C, 5001 * MS, IX_PKT_TH_SYN | IX_PKT_TH_ACK, c.next[S2C]++, c.next[C2S],
		65160, 0);
	ack(&c, C2S, 5002 * MS, 0);
	data(&c, C2S, 5010 * MS, MSS);
	counts(w, 0, 0, 0, 0);
	/* The same SYN again (same ISN) is a retransmission. */
	segment(&c, C2S, 6000 * MS, IX_PKT_TH_SYN, 10, 0, 64240, 0);
	counts(w, 1, 0, 0, 0);
	ix_wire_free(w);
}

Test(wirestat, fragment_is_counted_not_analysed)
{
	struct ix_wire_ctx *w = ix_wire_new();
	uint8_t b[60];
	int i;

	memset(b, 0, sizeof(b));
	b[0] = 0x45;
	b[3] = 60;
	b[6] = 0x20; /* more fragments */
	b[9] = 6;
	b[12] = 10;
	b[16] = 10;
	b[20 + 12] = 0x50;
	b[20 + 13] = IX_PKT_TH_ACK;
	for (i = 0; i < 3; i++) /* the same segment three times */
		cr_assert_eq(ix_wire_feed(w, IX_PKT_DLT_RAW, b, 60, 60, i * MS, NULL), IX_PKT_OK);
	counts(w, 0, 0, 0, 0); /* their window of 0 would count if analysed */
	cr_assert_eq(figures(w).tcp_packets, 3);
	cr_assert_eq(figures(w).tcp_flows, 0);
	ix_wire_free(w);
}

/* RoCEv2 over IPv4 to dest QP qp, opcode op, with the ECN bits ecn. */
static int roce(struct ix_wire_ctx *w, uint32_t qp, uint8_t op, uint8_t ecn, struct ix_pkt *out)
{
	uint8_t b[20 + 8 + 12 + 4];

	memset(b, 0, sizeof(b));
	b[0] = 0x45;
	b[1] = ecn;
	b[3] = sizeof(b);
	b[9] = 17;
	b[12] = 192;
	b[16] = 192;
	put16(b + 22, 4791);
	put16(b + 24, 8 + 12 + 4);
	b[28] = op;
	b[33] = (uint8_t)(qp >> 16);
	put16(b + 34, qp & 0xffff);
	return ix_wire_feed(w, IX_PKT_DLT_RAW, b, sizeof(b), sizeof(b), 0, out);
}

Test(wirestat, roce_counts_per_qp)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct ix_wire_figures f;
	struct ix_pkt p;
	uint32_t i;

	for (i = 0; i < 10; i++)
		roce(w, 0x11, 0x04, i < 3 ? 3 : 2, NULL);
	for (i = 0; i < 4; i++)
		roce(w, 0xfedcba, IX_PKT_BTH_CNP, 1, NULL);
	cr_assert_eq(roce(w, 0x11, 0x04, 0, &p), IX_PKT_OK);
	cr_assert_eq(p.roce, true, "out receives the decoded packet");
	cr_assert_eq(p.bth_dest_qp, 0x11);
	f = figures(w);
	cr_assert_eq(f.roce_packets, 15);
	cr_assert_eq(f.udp_packets, 15);
	cr_assert_eq(f.roce_ecn_ce, 3);
	cr_assert_eq(f.ecn_ce, 3);
	cr_assert_eq(f.roce_cnp, 4);
	cr_assert_eq(f.nqps, 2);
	cr_assert_eq(f.qps[0].qp, 0x11);
	cr_assert_eq(f.qps[0].packets, 11);
	cr_assert_eq(f.qps[0].ecn_ce, 3);
	cr_assert_eq(f.qps[1].qp, 0xfedcba);
	cr_assert_eq(f.qps[1].packets, 4);
	cr_assert_eq(f.qps[1].ecn_ce, 0);
	cr_assert_eq(f.qps_other, 0);
	ix_wire_free(w);
}

Test(wirestat, roce_qps_beyond_the_table)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct ix_wire_figures f;
	uint32_t i;

	for (i = 0; i < IX_WIRE_MAX_QPS + 36; i++)
		roce(w, 1000 + i * 256, 0x04, 3, NULL);
	for (i = 0; i < IX_WIRE_MAX_QPS; i++) /* known QPs again */
		roce(w, 1000 + i * 256, 0x04, 0, NULL);
	f = figures(w);
	cr_assert_eq(f.nqps, IX_WIRE_MAX_QPS);
	cr_assert_eq(f.qps_other, 36);
	for (i = 0; i < IX_WIRE_MAX_QPS; i++) {
		cr_assert_eq(f.qps[i].qp, 1000 + i * 256);
		cr_assert_eq(f.qps[i].packets, 2);
		cr_assert_eq(f.qps[i].ecn_ce, 1);
	}
	cr_assert_eq(f.roce_ecn_ce, IX_WIRE_MAX_QPS + 36);
	ix_wire_free(w);
}

/* A RoCEv2 frame (158 bytes, ECT(0)) through GRE or mirrored by ERSPAN
 * type II, the outer IPv4 header marked CE; cut: the session kept its
 * first 54 bytes (the T bit). */
static int tunnelled_roce(struct ix_wire_ctx *w, bool erspan, bool cut)
{
	enum { FRAME = 14 + 20 + 8 + 12 + 104 };
	uint8_t b[20 + 16 + FRAME];
	size_t hl = erspan ? 20 + 16 : 20 + 8, n = hl + (cut ? 54 : FRAME);
	uint8_t *f = b + hl, *ip = f + 14;

	memset(b, 0, sizeof(b));
	b[0] = 0x45;
	b[1] = 3;
	put16(b + 2, (uint32_t)n);
	b[9] = 47;
	put32(b + 20, erspan ? 0x100088beu : 0x10006558u); /* S, ERSPAN or a frame */
	put32(b + 24, 1);
	if (erspan) {
		put16(b + 28, 0x1000); /* version 1 */
		put16(b + 30, cut ? 0x0401 : 0x0001);
	}
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	ip[1] = 2;
	put16(ip + 2, FRAME - 14);
	ip[9] = 17;
	put16(ip + 22, 4791);
	put16(ip + 24, 8 + 12 + 104);
	ip[28] = 0x04;
	ip[35] = 0x11;
	return ix_wire_feed(w, IX_PKT_DLT_RAW, b, n, n, 0, NULL);
}

/* An ERSPAN copy counts as the mirrored frame would in a direct capture:
 * its length, not the mirror session's outer CE mark; GRE is a tunnel
 * whose outer header is the traffic's. */
Test(wirestat, erspan_counts_the_mirrored_frame)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct ix_wire_figures f;

	cr_assert_eq(tunnelled_roce(w, true, false), IX_PKT_OK);
	cr_assert_eq(tunnelled_roce(w, true, true), IX_PKT_OK);
	f = figures(w);
	cr_assert_eq(f.bytes, 2 * 158);
	cr_assert_eq(f.roce_packets, 2);
	cr_assert_eq(f.ecn_ce, 0);
	cr_assert_eq(f.roce_ecn_ce, 0);
	cr_assert_eq(f.overlay_packets, 2);
	cr_assert_eq(f.overlay_ecn_ce, 0);
	cr_assert_eq(f.rdma.nflows, 1);
	cr_assert_eq(f.rdma.flows[0].bytes, 2 * 158);
	cr_assert_eq(f.rdma.flows[0].payload, 2 * 100);
	cr_assert_eq(tunnelled_roce(w, false, false), IX_PKT_OK);
	f = figures(w);
	cr_assert_eq(f.bytes, 2 * 158 + 20 + 8 + 158);
	cr_assert_eq(f.ecn_ce, 1);
	cr_assert_eq(f.roce_ecn_ce, 1);
	cr_assert_eq(f.overlay_packets, 3);
	cr_assert_eq(f.overlay_ecn_ce, 1);
	cr_assert_eq(tunnelled_roce(w, false, true), IX_PKT_MALFORMED, "a tunnel does not cut");
	ix_wire_free(w);
}

Test(wirestat, malformed_other_and_get_leaves_capture_fields)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct ix_wire_figures f;
	uint8_t icmp[28] = { 0x45, 3, 0, 28, [9] = 1 };
	uint8_t junk[3] = { 1, 2, 3 };

	cr_assert_eq(ix_wire_feed(w, IX_PKT_DLT_RAW, icmp, 28, 28, 0, NULL), IX_PKT_OTHER);
	cr_assert_eq(ix_wire_feed(w, IX_PKT_DLT_EN10MB, junk, 3, 60, 0, NULL), IX_PKT_MALFORMED);
	cr_assert_eq(ix_wire_feed(w, IX_PKT_DLT_EN10MB, NULL, 0, 0, 0, NULL), IX_PKT_MALFORMED);
	memset(&f, 0, sizeof(f));
	f.present = true;
	snprintf(f.iface, sizeof(f.iface), "eth0");
	f.dropped = 7;
	ix_wire_get(w, &f);
	cr_assert_eq(f.packets, 3);
	cr_assert_eq(f.bytes, 28 + 60);
	cr_assert_eq(f.other, 1);
	cr_assert_eq(f.malformed, 2);
	cr_assert_eq(f.ecn_ce, 1, "ICMP marked CE counts too");
	cr_assert_eq(f.present, true);
	cr_assert_str_eq(f.iface, "eth0");
	cr_assert_eq(f.dropped, 7);
	ix_wire_free(w);
	ix_wire_free(NULL);
}

/* More conversations than the table holds: the oldest are forgotten, the
 * count goes on, and a forgotten one starts again without false alarms. */
Test(wirestat, flow_table_is_bounded)
{
	struct ix_wire_ctx *w = ix_wire_new();
	struct ix_wire_figures f;
	struct conv c;
	uint32_t i, n = 100000;

	memset(&c, 0, sizeof(c));
	c.w = w;
	c.family = 4;
	for (i = 0; i < n; i++) {
		uint8_t b[40];

		memset(b, 0, sizeof(b));
		b[0] = 0x45;
		b[3] = 40;
		b[9] = 6;
		b[12] = 10;
		b[13] = (uint8_t)(i >> 16);
		put16(b + 14, i & 0xffff);
		b[16] = 10;
		b[19] = 2;
		put16(b + 20, 1024 + i % 60000);
		put16(b + 22, 80);
		b[32] = 0x50;
		b[33] = IX_PKT_TH_SYN;
		put16(b + 34, 1000);
		ix_wire_feed(w, IX_PKT_DLT_RAW, b, 40, 40, (int64_t)i * 1000, NULL);
	}
	f = figures(w);
	cr_assert_eq(f.tcp_flows, n);
	cr_assert_eq(f.tcp_flows_evicted, n - 65536);
	cr_assert_eq(f.tcp_packets, n);
	counts(w, 0, 0, 0, 0);
	ix_wire_free(w);
}
