/*
 * Packets built as bytes for the decoder tests (test_pkt.c, test_gre.c),
 * and decode calls that read them from a copy of exactly caplen bytes, so
 * that a read past it is caught by the sanitizers.
 */
#ifndef IX_TESTS_UNIT_CAPTURE_PKTBUILD_H
#define IX_TESTS_UNIT_CAPTURE_PKTBUILD_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/capture/pkt.h"

/* A packet under construction. */
struct buf {
	uint8_t b[2048];
	size_t n;
};

static inline void put(struct buf *p, const void *d, size_t n)
{
	cr_assert_leq(p->n + n, sizeof(p->b));
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static inline void put8(struct buf *p, uint8_t v)
{
	put(p, &v, 1);
}

static inline void put16(struct buf *p, uint16_t v)
{
	uint8_t x[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	put(p, x, 2);
}

static inline void put32(struct buf *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p, (uint16_t)v);
}

static inline void zeros(struct buf *p, size_t n)
{
	cr_assert_leq(p->n + n, sizeof(p->b));
	memset(p->b + p->n, 0, n);
	p->n += n;
}

static inline void eth(struct buf *p, uint16_t type)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };

	put(p, macs, 12);
	put16(p, type);
}

/* IPv4 header: ihl in words (options zero-filled), total length tot. */
static inline void ipv4(struct buf *p, uint8_t ihl, uint8_t tos, uint16_t tot, uint16_t frag,
			uint8_t proto)
{
	static const uint8_t src[4] = { 10, 1, 2, 3 }, dst[4] = { 10, 4, 5, 6 };

	put8(p, (uint8_t)(0x40 | ihl));
	put8(p, tos);
	put16(p, tot);
	put16(p, 0x1234);
	put16(p, frag);
	put8(p, 64);
	put8(p, proto);
	put16(p, 0);
	put(p, src, 4);
	put(p, dst, 4);
	zeros(p, (size_t)(ihl - 5) * 4);
}

static const uint8_t v6src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t v6dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static inline void ipv6(struct buf *p, uint8_t tclass, uint16_t plen, uint8_t nh)
{
	put32(p, 0x60000000u | (uint32_t)tclass << 20 | 0x12345);
	put16(p, plen);
	put8(p, nh);
	put8(p, 64);
	put(p, v6src, 16);
	put(p, v6dst, 16);
}

static inline void tcp(struct buf *p, uint8_t doff, uint8_t flags, size_t paylen)
{
	put16(p, 40000);
	put16(p, 5201);
	put32(p, 0x01020304);
	put32(p, 0xa0b0c0d0);
	put8(p, (uint8_t)(doff << 4));
	put8(p, flags);
	put16(p, 29200);
	put32(p, 0);
	zeros(p, (size_t)(doff - 5) * 4 + paylen);
}

static inline void udp(struct buf *p, uint16_t dport, uint16_t len)
{
	put16(p, 49152);
	put16(p, dport);
	put16(p, len);
	put16(p, 0);
}

static inline void bth(struct buf *p, uint8_t opcode, uint8_t fb, uint32_t qp, uint32_t psn)
{
	put8(p, opcode);
	put8(p, 0x40);
	put16(p, 0xffff);
	put8(p, fb);
	put8(p, (uint8_t)(qp >> 16));
	put16(p, (uint16_t)qp);
	put8(p, 0x80);
	put8(p, (uint8_t)(psn >> 16));
	put16(p, (uint16_t)psn);
}

/* Decode the first caplen bytes, from a copy of exactly that size. */
static inline int decode_cut(int dlt, const struct buf *p, size_t caplen, size_t wirelen,
			     struct ix_pkt *out)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);
	int st;

	cr_assert_not_null(copy);
	memcpy(copy, p->b, caplen);
	st = ix_pkt_decode(dlt, copy, caplen, wirelen, out);
	free(copy);
	return st;
}

static inline int decode(int dlt, const struct buf *p, struct ix_pkt *out)
{
	return decode_cut(dlt, p, p->n, p->n, out);
}

/* Ethernet, IPv4, TCP with 100 bytes of data. */
static inline struct buf eth_tcp4(void)
{
	struct buf p = { .n = 0 };

	eth(&p, 0x0800);
	ipv4(&p, 5, 0x02, 20 + 20 + 100, 0x4000, 6);
	tcp(&p, 5, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 100);
	return p;
}

/* Cut a valid packet at every length: malformed until the headers fit,
 * then OK with the same fields, and never a read past caplen. */
static inline void truncate_everywhere(int dlt, const struct buf *p, size_t headers_end)
{
	struct ix_pkt full, k;
	size_t n;

	cr_assert_eq(decode(dlt, p, &full), IX_PKT_OK);
	for (n = 0; n <= p->n; n++) {
		int st = decode_cut(dlt, p, n, p->n, &k);

		if (n < headers_end) {
			cr_assert_eq(st, IX_PKT_MALFORMED, "cut at %zu of %zu: %d", n, p->n, st);
		} else {
			cr_assert_eq(st, IX_PKT_OK, "cut at %zu of %zu: %d", n, p->n, st);
			cr_assert_eq(k.payload_len, full.payload_len);
			cr_assert_eq(k.seq, full.seq);
			cr_assert_eq(k.bth_dest_qp, full.bth_dest_qp);
		}
	}
}

/* TCP inside VXLAN or Geneve (with a 4-byte option): the inner packet is
 * decoded, the outer ECN kept. */
static inline struct buf overlay(bool geneve)
{
	struct buf p = { .n = 0 }, tcp4 = eth_tcp4();
	uint16_t inner = (uint16_t)(tcp4.n + (geneve ? 12 : 8));

	eth(&p, 0x0800);
	ipv4(&p, 5, 0x03, (uint16_t)(20 + 8 + inner), 0, 17);
	udp(&p, geneve ? IX_PKT_GENEVE_PORT : IX_PKT_VXLAN_PORT, (uint16_t)(8 + inner));
	if (geneve) {
		put8(&p, 1); /* version 0, one word of options */
		put8(&p, 0);
		put16(&p, 0x6558);
		put32(&p, 0x001b5900); /* VNI 7001 */
		put32(&p, 0x01020300);
	} else {
		put8(&p, 0x08);
		zeros(&p, 3);
		put32(&p, 0x001b5900);
	}
	put(&p, tcp4.b, tcp4.n);
	return p;
}

#endif
