/* Unit tests for probes/capture/gre.c, and the decoding of what GRE and
 * ERSPAN carry (pkt.c): every ERSPAN type and GRE with its optional
 * fields, over IPv4 and IPv6, a TCP and a RoCEv2 packet inside decoded as
 * the direct packet; copies cut by the mirror session; GRE of other kinds;
 * headers cut short at every byte, never read past caplen. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/capture/pkt.h"
#include "tests/unit/probes/capture/pktbuild.h"

/* Ethernet, IPv4, UDP to 4791, an RC SEND (a BTH, 64 bytes, the ICRC),
 * marked CE. */
static struct buf eth_roce4(void)
{
	struct buf p = { .n = 0 };

	eth(&p, 0x0800);
	ipv4(&p, 5, 0x03, 20 + 8 + 12 + 64 + 4, 0x4000, 17);
	udp(&p, 4791, 8 + 12 + 64 + 4);
	bth(&p, 0x04, 0, 0x012345, 0x00abcd);
	zeros(&p, 64 + 4);
	return p;
}

/* How a frame travels to a collector: GRE or ERSPAN. */
enum wrap {
	W_GRE,        /* key and sequence number, 0x6558: the frame */
	W_GRE_C,      /* checksum only, 0x6558 */
	W_GRE_IP,     /* key, 0x0800 or 0x86dd: the IP packet, no link header */
	W_ERSPAN1,    /* 0x88be without a sequence number: the frame right after GRE */
	W_ERSPAN2,    /* 0x88be, sequence number, the type II header */
	W_ERSPAN3,    /* 0x22eb, sequence number, the type III header */
	W_ERSPAN3_O,  /* the same with the platform subheader */
	W_ERSPAN3_IP, /* type III of frame type 2: the IP packet */
	W__N,
};

static bool wrap_is_ip(enum wrap w)
{
	return w == W_GRE_IP || w == W_ERSPAN3_IP;
}

/* What wrap() puts before the inner bytes, outer Ethernet included. */
static size_t wrap_hdr(enum wrap w, bool v6)
{
	static const size_t gre[W__N] = { 12, 8, 8, 4, 8 + 8, 8 + 12, 8 + 20, 8 + 12 };

	return 14 + (v6 ? 40 : 20) + gre[w];
}

/* The inner frame f wrapped as w, over IPv4 (its ECN bits tos) or IPv6:
 * carried is how many of f's bytes the outer packet holds, cut (ERSPAN
 * II and III) the T bit. */
static struct buf wrap(enum wrap w, bool v6, uint8_t tos, const struct buf *f, size_t carried,
		       bool cut)
{
	struct buf p = { .n = 0 };
	size_t skip = wrap_is_ip(w) ? 14 : 0, inner = carried - skip;
	size_t gre_len = wrap_hdr(w, v6) - 14 - (v6 ? 40 : 20);
	uint16_t et = wrap_is_ip(w) ? ix_pkt_rd16(f->b + 12) : 0x6558;
	uint16_t t_session = (uint16_t)((cut ? 0x0400 : 0) | 0x2a5); /* COS 0, session 677 */

	eth(&p, v6 ? 0x86dd : 0x0800);
	if (v6)
		ipv6(&p, tos, (uint16_t)(gre_len + inner), 47);
	else
		ipv4(&p, 5, tos, (uint16_t)(20 + gre_len + inner), 0, 47);
	switch (w) {
	case W_GRE:
		put32(&p, 0x30006558u);
		put32(&p, 0xfeed0001u); /* key */
		put32(&p, 77);          /* sequence number */
		break;
	case W_GRE_C:
		put32(&p, 0x80006558u);
		put32(&p, 0); /* checksum (not checked), reserved */
		break;
	case W_GRE_IP:
		put16(&p, 0x2000);
		put16(&p, et);
		put32(&p, 7001);
		break;
	case W_ERSPAN1:
		put32(&p, 0x000088beu);
		break;
	case W_ERSPAN2:
		put32(&p, 0x100088beu);
		put32(&p, 78);
		put16(&p, 0x1000 | 100); /* version 1, VLAN 100 */
		put16(&p, t_session);
		put32(&p, 5); /* index */
		break;
	default: /* type III */
		put32(&p, 0x100022ebu);
		put32(&p, 79);
		put16(&p, 0x2000 | 100); /* version 2, VLAN 100 */
		put16(&p, t_session);
		put32(&p, 0x12345678);                    /* timestamp */
		put16(&p, 0);                             /* security group tag */
		put8(&p, w == W_ERSPAN3_IP ? 0x08 : 0);   /* P 0, frame type 2 or 0, hardware ID */
		put8(&p, w == W_ERSPAN3_O ? 0x07 : 0x06); /* granularity 3, O */
		if (w == W_ERSPAN3_O) {
			put32(&p, 0x0c000001u); /* platform 3: port ID, timestamp */
			put32(&p, 0x9abcdef0u);
		}
		break;
	}
	cr_assert_eq(p.n, wrap_hdr(w, v6));
	put(&p, f->b + skip, inner);
	return p;
}

/* The headers alone: where the inner packet starts and what it is, for
 * every kind, and malformed while the capture ends inside them (the
 * platform subheader is skipped, not read), each parse reading from a copy
 * of exactly caplen bytes. */
Test(gre, parse_every_kind)
{
	struct buf f = eth_tcp4();

	for (int w = 0; w < W__N; w++)
		for (int v6 = 0; v6 < 2; v6++) {
			struct buf p = wrap(w, v6, 0, &f, f.n, w == W_ERSPAN3);
			size_t off = 14 + (v6 ? 40 : 20), end = wrap_hdr(w, v6), n;
			struct ix_gre g;

			for (n = off; n <= end; n++) {
				uint8_t *copy = malloc(n);
				int st;

				cr_assert_not_null(copy);
				memcpy(copy, p.b, n);
				st = ix_gre_parse(copy, n, off, p.n - off, &g);
				free(copy);
				cr_assert_eq(st,
					     n < (w == W_ERSPAN3_O ? end - 8 : end)
						     ? IX_PKT_MALFORMED
						     : IX_PKT_OK,
					     "wrap %d cut at %zu: %d", w, n, st);
			}
			cr_assert_eq(ix_gre_parse(p.b, p.n, off, p.n - off, &g), IX_PKT_OK);
			cr_assert_eq(g.inner, end);
			cr_assert_eq(g.ip, wrap_is_ip(w));
			cr_assert_eq(g.key, w == W_GRE ? 0xfeed0001u : w == W_GRE_IP ? 7001 : 0);
			cr_assert_eq(g.erspan, w < W_ERSPAN1    ? 0
					       : w == W_ERSPAN1 ? 1
					       : w == W_ERSPAN2 ? 2
								: 3);
			cr_assert_eq(g.session, w >= W_ERSPAN2 ? 677 : 0);
			cr_assert_eq(g.cut, w == W_ERSPAN1 || w == W_ERSPAN3);
			/* The IP payload ends inside the headers. */
			cr_assert_eq(ix_gre_parse(p.b, p.n, off, end - off - 1, &g),
				     IX_PKT_MALFORMED);
		}
}

/* The inner packet decoded from a wrapped one is the direct one's, its
 * offsets moved by shift. */
static void same_inner(const struct ix_pkt *d, const struct ix_pkt *w, size_t shift)
{
	cr_assert_eq(w->family, d->family);
	cr_assert_eq(w->proto, d->proto);
	cr_assert_eq(w->ecn, d->ecn);
	cr_assert_eq(memcmp(w->src, d->src, 16), 0);
	cr_assert_eq(memcmp(w->dst, d->dst, 16), 0);
	cr_assert_eq(w->ip_len, d->ip_len);
	cr_assert_eq(w->sport, d->sport);
	cr_assert_eq(w->dport, d->dport);
	cr_assert_eq(w->payload_len, d->payload_len);
	cr_assert_eq(w->seq, d->seq);
	cr_assert_eq(w->ack, d->ack);
	cr_assert_eq(w->window, d->window);
	cr_assert_eq(w->tcp_flags, d->tcp_flags);
	cr_assert_eq(w->roce, d->roce);
	cr_assert_eq(w->bth, d->bth);
	cr_assert_eq(w->bth_opcode, d->bth_opcode);
	cr_assert_eq(w->bth_dest_qp, d->bth_dest_qp);
	cr_assert_eq(w->bth_psn, d->bth_psn);
	cr_assert_eq(w->bth_ackreq, d->bth_ackreq);
	cr_assert_eq(w->bth_payload, d->bth_payload);
	cr_assert_eq(w->bth_cut, d->bth_cut);
	cr_assert_eq(w->fragment, d->fragment);
	cr_assert_eq(w->vlans, d->vlans);
	cr_assert_eq(w->l3_off, d->l3_off + shift);
	cr_assert_eq(w->l4_off, d->l4_off + shift);
}

/* A TCP and a RoCEv2 packet through every kind of GRE and ERSPAN, over
 * IPv4 and IPv6: the same fields as the direct packet, the outer ECN
 * kept for GRE only, and malformed until the headers fit. */
Test(gre, gre_and_erspan_carry_the_direct_packet)
{
	struct buf inner[2] = { eth_tcp4(), eth_roce4() };
	static const size_t headers[2] = { 14 + 20 + 20, 14 + 20 + 8 + 12 };

	for (int w = 0; w < W__N; w++)
		for (int v6 = 0; v6 < 2; v6++)
			for (int i = 0; i < 2; i++) {
				const struct buf *f = &inner[i];
				struct buf p = wrap(w, v6, 0x03, f, f->n, false);
				size_t shift = wrap_hdr(w, v6) - (wrap_is_ip(w) ? 14 : 0);
				struct ix_pkt d, k;
				bool mirror = w >= W_ERSPAN1;

				cr_assert_eq(decode(IX_PKT_DLT_EN10MB, f, &d), IX_PKT_OK);
				cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK,
					     "wrap %d v6 %d inner %d", w, v6, i);
				same_inner(&d, &k, shift);
				cr_assert_eq(k.overlay,
					     mirror ? IX_PKT_OVERLAY_ERSPAN : IX_PKT_OVERLAY_GRE);
				cr_assert_eq(k.outer_ecn, mirror ? 0 : IX_PKT_ECN_CE,
					     "a mirror's outer header is not the traffic's");
				cr_assert_eq(k.erspan, !mirror          ? 0
						       : w == W_ERSPAN1 ? 1
						       : w == W_ERSPAN2 ? 2
									: 3);
				cr_assert_eq(k.erspan_session, w >= W_ERSPAN2 ? 677 : 0);
				cr_assert_eq(k.vni, w == W_GRE      ? 0xfeed0001u
						    : w == W_GRE_IP ? 7001
								    : 0);
				cr_assert_eq(k.mirror_cut, w == W_ERSPAN1);
				cr_assert_eq(k.mirror_len,
					     mirror ? f->n - (wrap_is_ip(w) ? 14 : 0) : 0);
				truncate_everywhere(IX_PKT_DLT_EN10MB, &p, shift + headers[i]);
			}
}

/* A mirror session that cuts its copies (the T bit; type I cannot say):
 * decoded as a capture cut by its snaplen, the frame's length taken from
 * its IP header. Without the T bit the IP length beyond the copy is
 * inconsistent. */
Test(gre, erspan_cut_copies)
{
	struct buf f = { .n = 0 }, r = eth_roce4();
	struct ix_pkt d, k;

	eth(&f, 0x0800);
	ipv4(&f, 5, 0, 1500, 0x4000, 6);
	tcp(&f, 8, IX_PKT_TH_ACK, 1448);
	cr_assert_eq(decode_cut(IX_PKT_DLT_EN10MB, &f, 96, f.n, &d), IX_PKT_OK);
	for (int w = W_ERSPAN1; w <= W_ERSPAN3_O; w++)
		for (int v6 = 0; v6 < 2; v6++) {
			struct buf p = wrap(w, v6, 0, &f, 96, true);

			cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK, "wrap %d", w);
			same_inner(&d, &k, wrap_hdr(w, v6));
			cr_assert_eq(k.payload_len, 1448);
			cr_assert(k.mirror_cut);
			cr_assert_eq(k.mirror_len, 1514, "the frame's length, from its IP header");
			if (w != W_ERSPAN1) {
				p = wrap(w, v6, 0, &f, 96, false);
				cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
			}
			/* Cut inside the BTH: malformed, as by a snaplen. */
			p = wrap(w, v6, 0, &r, 14 + 20 + 8 + 11, true);
			cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
			p = wrap(w, v6, 0, &r, 14 + 20 + 8 + 12, true);
			cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
			cr_assert(k.roce);
			cr_assert_eq(k.bth_dest_qp, 0x012345u);
		}
	/* GRE is a tunnel, not a mirror: its packets are whole. */
	{
		struct buf p = wrap(W_GRE, false, 0, &f, 96, false);

		cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
	}
}

/* The bytes after the outer IP packet (a trailer, padding) are not the
 * frame's: a copy cut inside the BTH stays cut. */
Test(gre, erspan_frame_ends_with_the_outer_packet)
{
	struct buf r = eth_roce4();
	struct buf p = wrap(W_ERSPAN2, false, 0, &r, 14 + 20 + 8 + 6, true);
	struct ix_pkt k;

	zeros(&p, 64);
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
	p = wrap(W_GRE, false, 0, &r, r.n, false);
	p.b[14 + 3] -= 20; /* the outer IP length ends inside the inner packet */
	zeros(&p, 20);
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
}

/* GRE that is not decoded is a GRE packet of another kind; headers too
 * short for their flags or their ERSPAN header are malformed. */
Test(gre, gre_other_and_malformed)
{
	struct buf f = eth_tcp4(), p;
	struct ix_pkt k;
	size_t g = 14 + 20; /* the GRE header */

	p = wrap(W_GRE, false, 0x03, &f, f.n, false);
	p.b[g + 2] = 0x88; /* PPP (0x880b) */
	p.b[g + 3] = 0x0b;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OTHER);
	cr_assert_eq(k.overlay, IX_PKT_OVERLAY_GRE);
	cr_assert_eq(k.proto, IX_PKT_IPPROTO_GRE);
	cr_assert_eq(k.family, 4);
	cr_assert_eq(k.ecn, 3, "the outer header's fields");
	p = wrap(W_GRE, false, 0, &f, f.n, false);
	p.b[g + 1] = 0x01; /* version 1 (PPTP) */
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OTHER);
	cr_assert_eq(k.overlay, IX_PKT_OVERLAY_GRE);
	p = wrap(W_GRE, false, 0, &f, f.n, false);
	p.b[g] |= 0x40; /* RFC 1701 routing */
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OTHER);
	p = wrap(W_ERSPAN2, false, 0, &f, f.n, false);
	p.b[g + 8] = 0x20; /* a type II header of version 2 */
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OTHER);
	cr_assert_eq(k.overlay, IX_PKT_OVERLAY_GRE);
	p = wrap(W_ERSPAN3, false, 0, &f, f.n, false);
	p.b[g + 8 + 10] = 0x04; /* frame type 1 */
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OTHER);

	/* GRE inside VXLAN stays GRE; VXLAN inside GRE stays UDP. */
	p = overlay(false);
	p.b[14 + 20 + 8 + 8 + 14 + 9] = 47;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OTHER);
	cr_assert_eq(k.overlay, IX_PKT_OVERLAY_VXLAN);
	{
		struct buf v = overlay(false);

		p = wrap(W_GRE, false, 0, &v, v.n, false);
		cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
		cr_assert_eq(k.overlay, IX_PKT_OVERLAY_GRE);
		cr_assert_eq(k.dport, IX_PKT_VXLAN_PORT);
	}

	/* Lengths: the outer IP length ends inside the GRE header, inside
	 * what its flags add, inside the ERSPAN header or its subheader,
	 * inside the inner Ethernet header. */
	static const struct {
		enum wrap w;
		size_t keep; /* bytes after the outer IP header */
	} cuts[] = { { W_GRE, 3 },          { W_GRE, 11 },      { W_GRE_C, 7 },
		     { W_ERSPAN1, 4 + 13 }, { W_ERSPAN2, 15 },  { W_ERSPAN3, 19 },
		     { W_ERSPAN3_O, 27 },   { W_ERSPAN3_O, 28 } };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		p = wrap(cuts[i].w, false, 0, &f, f.n, false);
		p.b[14 + 2] = 0;
		p.b[14 + 3] = (uint8_t)(20 + cuts[i].keep);
		cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED, "cut %zu", i);
		cr_assert_eq(decode_cut(IX_PKT_DLT_EN10MB, &p, 14 + 20 + cuts[i].keep,
					14 + 20 + cuts[i].keep, &k),
			     IX_PKT_MALFORMED, "cut %zu", i);
	}
	/* A fragment's GRE is not decoded. */
	p = wrap(W_GRE, false, 0, &f, f.n, false);
	p.b[14 + 6] = 0x20; /* more fragments */
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OTHER);
	cr_assert_eq(k.proto, IX_PKT_IPPROTO_GRE);
}

/* Random bytes in the GRE and ERSPAN headers and the frame inside. */
Test(gre, random_bytes_in_gre)
{
	struct buf f = eth_roce4(), p;
	uint64_t s = 0x2545f4914f6cdd1dull;
	struct ix_pkt k;
	int i;

	for (i = 0; i < 20000; i++) {
		size_t hdr, j;
		int st;

		p = wrap(i % W__N, i & 8, 0, &f, f.n, i & 16);
		hdr = 14 + 20 + (i & 8 ? 20 : 0);
		for (j = 0; j < 3; j++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			p.b[hdr + s % (p.n - hdr)] = (uint8_t)(s >> 32);
		}
		st = decode_cut(IX_PKT_DLT_EN10MB, &p, (size_t)(s >> 40) % (p.n + 1), p.n, &k);
		cr_assert(st == IX_PKT_OK || st == IX_PKT_OTHER || st == IX_PKT_MALFORMED);
	}
}
