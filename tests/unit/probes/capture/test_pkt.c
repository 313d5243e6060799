/* Unit tests for probes/capture/pkt.c: every link type, VLAN tags, IPv4 options
 * and fragments, IPv6 extension headers, TCP, UDP and the RoCEv2 BTH,
 * truncation at every byte and inconsistent lengths. Packets are built as
 * bytes (pktbuild.h); each decode reads from a buffer of exactly caplen
 * bytes so that a read past it is caught by the sanitizers. (GRE and
 * ERSPAN: test_gre.c.) */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/capture/pkt.h"
#include "tests/unit/probes/capture/pktbuild.h"

static void check_tcp4(const struct ix_pkt *k)
{
	static const uint8_t src[4] = { 10, 1, 2, 3 }, dst[4] = { 10, 4, 5, 6 };

	cr_assert_eq(k->family, 4);
	cr_assert_eq(k->proto, 6);
	cr_assert_eq(memcmp(k->src, src, 4), 0);
	cr_assert_eq(memcmp(k->dst, dst, 4), 0);
	cr_assert_eq(k->sport, 40000);
	cr_assert_eq(k->dport, 5201);
	cr_assert_eq(k->seq, 0x01020304u);
	cr_assert_eq(k->ack, 0xa0b0c0d0u);
	cr_assert_eq(k->window, 29200);
	cr_assert_eq(k->tcp_flags, IX_PKT_TH_ACK | IX_PKT_TH_PSH);
	cr_assert_not(k->roce);
}

Test(pkt, ethernet_ipv4_tcp)
{
	struct buf p = eth_tcp4();
	struct ix_pkt k;

	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
	check_tcp4(&k);
	cr_assert_eq(k.ecn, 2);
	cr_assert_eq(k.ip_len, 140);
	cr_assert_eq(k.payload_len, 100);
	cr_assert_eq(k.l3_off, 14);
	cr_assert_eq(k.l4_off, 34);
	cr_assert_eq(k.vlans, 0);
	cr_assert_not(k.fragment);
}

/* tcpdump -s 96: the segment length comes from the IP header. */
Test(pkt, snaplen_cut_keeps_lengths)
{
	struct buf p = { .n = 0 };
	struct ix_pkt k;

	eth(&p, 0x0800);
	ipv4(&p, 5, 0, 1500, 0x4000, 6);
	tcp(&p, 8, IX_PKT_TH_ACK, 1448);
	cr_assert_eq(p.n, 1514);
	cr_assert_eq(decode_cut(IX_PKT_DLT_EN10MB, &p, 96, 1514, &k), IX_PKT_OK);
	cr_assert_eq(k.payload_len, 1448);
	cr_assert_eq(k.ip_len, 1500);
	/* Options cut by the snaplen do not matter, the fixed header fits. */
	cr_assert_eq(decode_cut(IX_PKT_DLT_EN10MB, &p, 54, 1514, &k), IX_PKT_OK);
	cr_assert_eq(k.payload_len, 1448);
	cr_assert_eq(decode_cut(IX_PKT_DLT_EN10MB, &p, 53, 1514, &k), IX_PKT_MALFORMED);
}

Test(pkt, vlan_tags_stacked)
{
	struct buf p = { .n = 0 };
	struct ix_pkt k;

	eth(&p, 0x88a8);
	put16(&p, 100);
	put16(&p, 0x8100);
	put16(&p, 200);
	put16(&p, 0x0800);
	ipv4(&p, 5, 0, 40, 0, 6);
	tcp(&p, 5, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 0);
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
	check_tcp4(&k);
	cr_assert_eq(k.vlans, 2);
	cr_assert_eq(k.l3_off, 22);
	cr_assert_eq(k.payload_len, 0);
	/* A tag cut in half is malformed. */
	cr_assert_eq(decode_cut(IX_PKT_DLT_EN10MB, &p, 16, p.n, &k), IX_PKT_MALFORMED);
}

Test(pkt, vlan_ipv6)
{
	struct buf p = { .n = 0 };
	struct ix_pkt k;

	eth(&p, 0x8100);
	put16(&p, 7);
	put16(&p, 0x86dd);
	ipv6(&p, 0x03, 20 + 10, 6);
	tcp(&p, 5, IX_PKT_TH_SYN, 10);
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
	cr_assert_eq(k.family, 6);
	cr_assert_eq(k.ecn, 3);
	cr_assert_eq(k.vlans, 1);
	cr_assert_eq(k.ip_len, 70);
	cr_assert_eq(k.payload_len, 10);
	cr_assert_eq(memcmp(k.src, v6src, 16), 0);
	cr_assert_eq(memcmp(k.dst, v6dst, 16), 0);
	cr_assert_eq(k.tcp_flags, IX_PKT_TH_SYN);
}

Test(pkt, raw_and_ip_link_types)
{
	struct buf p4 = { .n = 0 }, p6 = { .n = 0 };
	struct ix_pkt k;

	ipv4(&p4, 5, 0, 40, 0, 6);
	tcp(&p4, 5, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 0);
	ipv6(&p6, 0, 8 + 4, 17);
	udp(&p6, 53, 12);
	zeros(&p6, 4);
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &p4, &k), IX_PKT_OK);
	check_tcp4(&k);
	cr_assert_eq(k.l3_off, 0);
	cr_assert_eq(decode(IX_PKT_DLT_RAW_101, &p4, &k), IX_PKT_OK);
	cr_assert_eq(decode(IX_PKT_DLT_IPV4, &p4, &k), IX_PKT_OK);
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &p6, &k), IX_PKT_OK);
	cr_assert_eq(k.family, 6);
	cr_assert_eq(k.proto, 17);
	cr_assert_eq(k.dport, 53);
	cr_assert_eq(k.payload_len, 4);
	cr_assert_eq(decode(IX_PKT_DLT_IPV6, &p6, &k), IX_PKT_OK);
	/* The link type says which version: the other one is malformed. */
	cr_assert_eq(decode(IX_PKT_DLT_IPV4, &p6, &k), IX_PKT_MALFORMED);
	cr_assert_eq(decode(IX_PKT_DLT_IPV6, &p4, &k), IX_PKT_MALFORMED);
	p4.b[0] = 0x55; /* version 5 */
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &p4, &k), IX_PKT_MALFORMED);
}

Test(pkt, linux_cooked_v1_v2)
{
	struct buf p = { .n = 0 }, q = { .n = 0 };
	struct ix_pkt k;

	put16(&p, 4); /* sent by us */
	put16(&p, 1); /* ARPHRD_ETHER */
	put16(&p, 6); /* address length */
	zeros(&p, 8); /* address */
	put16(&p, 0x0800);
	ipv4(&p, 5, 0, 40, 0, 6);
	tcp(&p, 5, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 0);
	cr_assert_eq(decode(IX_PKT_DLT_LINUX_SLL, &p, &k), IX_PKT_OK);
	check_tcp4(&k);
	cr_assert_eq(k.l3_off, 16);

	put16(&q, 0x86dd); /* protocol */
	put16(&q, 0);      /* reserved */
	put32(&q, 3);      /* interface index */
	put16(&q, 1);      /* ARPHRD_ETHER */
	put8(&q, 0);       /* to us */
	put8(&q, 6);
	zeros(&q, 8);
	ipv6(&q, 0, 20, 6);
	tcp(&q, 5, IX_PKT_TH_ACK, 0);
	cr_assert_eq(decode(IX_PKT_DLT_LINUX_SLL2, &q, &k), IX_PKT_OK);
	cr_assert_eq(k.family, 6);
	cr_assert_eq(k.l3_off, 20);
	cr_assert_eq(k.l4_off, 60);

	/* Netlink and non-IP protocols are not ours. */
	q.b[1] = 0x06; /* 0x8606 */
	cr_assert_eq(decode(IX_PKT_DLT_LINUX_SLL2, &q, &k), IX_PKT_OTHER);
	p.b[2] = 824 >> 8;
	p.b[3] = 824 & 0xff;
	cr_assert_eq(decode(IX_PKT_DLT_LINUX_SLL, &p, &k), IX_PKT_OTHER);
	cr_assert_eq(decode_cut(IX_PKT_DLT_LINUX_SLL, &p, 15, p.n, &k), IX_PKT_MALFORMED);
	cr_assert_eq(decode_cut(IX_PKT_DLT_LINUX_SLL2, &q, 19, q.n, &k), IX_PKT_MALFORMED);
}

Test(pkt, bsd_loopback_both_orders)
{
	struct buf le = { .n = 0 }, be = { .n = 0 }, v6 = { .n = 0 };
	static const uint8_t af_le[4] = { 2, 0, 0, 0 }, af6_le[4] = { 30, 0, 0, 0 };
	struct ix_pkt k;

	put(&le, af_le, 4);
	ipv4(&le, 5, 0, 40, 0, 6);
	tcp(&le, 5, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 0);
	put32(&be, 2);
	ipv4(&be, 5, 0, 40, 0, 6);
	tcp(&be, 5, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 0);
	put(&v6, af6_le, 4);
	ipv6(&v6, 0, 20, 6);
	tcp(&v6, 5, IX_PKT_TH_ACK, 0);
	cr_assert_eq(decode(IX_PKT_DLT_NULL, &le, &k), IX_PKT_OK);
	check_tcp4(&k);
	cr_assert_eq(decode(IX_PKT_DLT_NULL, &be, &k), IX_PKT_OK);
	cr_assert_eq(decode(IX_PKT_DLT_LOOP, &be, &k), IX_PKT_OK);
	cr_assert_eq(k.l3_off, 4);
	cr_assert_eq(decode(IX_PKT_DLT_NULL, &v6, &k), IX_PKT_OK);
	cr_assert_eq(k.family, 6);
	/* LOOP is always network order: a little-endian 2 is unknown. */
	cr_assert_eq(decode(IX_PKT_DLT_LOOP, &le, &k), IX_PKT_OTHER);
	cr_assert_eq(decode_cut(IX_PKT_DLT_NULL, &le, 3, le.n, &k), IX_PKT_MALFORMED);
}

Test(pkt, ipv4_options_and_ecn)
{
	struct buf p = { .n = 0 };
	struct ix_pkt k;

	eth(&p, 0x0800);
	ipv4(&p, 7, 0xb8 | 3, 28 + 20 + 5, 0, 6);
	tcp(&p, 6, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 5);
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
	check_tcp4(&k);
	cr_assert_eq(k.ecn, 3);
	cr_assert_eq(k.l4_off, 14 + 28);
	cr_assert_eq(k.payload_len, 1); /* 24-byte TCP header in a 25-byte segment */
}

Test(pkt, ipv4_fragments)
{
	struct buf first = { .n = 0 }, later = { .n = 0 };
	struct ix_pkt k;

	ipv4(&first, 5, 0, 20 + 20 + 8, 0x2000, 6); /* MF, offset 0 */
	tcp(&first, 5, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 8);
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &first, &k), IX_PKT_OK);
	check_tcp4(&k);
	cr_assert_eq(k.fragment, true);

	ipv4(&later, 5, 1, 20 + 16, 0x0003, 6); /* offset 24 bytes, last */
	zeros(&later, 16);
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &later, &k), IX_PKT_OTHER);
	cr_assert_eq(k.family, 4);
	cr_assert_eq(k.proto, 6);
	cr_assert_eq(k.ecn, 1);
	cr_assert_eq(k.src[0], 10);
	cr_assert_eq(k.dst[3], 6);
	cr_assert_eq(k.sport, 0, "no transport header in a later fragment");
}

Test(pkt, ipv6_extension_headers)
{
	struct buf p = { .n = 0 };
	struct ix_pkt k;

	ipv6(&p, 0, 8 + 24 + 16 + 20, 0);
	put8(&p, 43); /* hop-by-hop, 8 bytes, then routing */
	put8(&p, 0);
	zeros(&p, 6);
	put8(&p, 60); /* routing, 24 bytes, then destination options */
	put8(&p, 2);
	zeros(&p, 22);
	put8(&p, 6); /* destination options, 16 bytes, then TCP */
	put8(&p, 1);
	zeros(&p, 14);
	tcp(&p, 5, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 0);
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &p, &k), IX_PKT_OK);
	cr_assert_eq(k.sport, 40000);
	cr_assert_eq(k.proto, 6);
	cr_assert_eq(k.l4_off, 40 + 48);
	cr_assert_eq(k.payload_len, 0);
	/* An extension header longer than the datagram. */
	p.b[40 + 8 + 1] = 9;
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &p, &k), IX_PKT_MALFORMED);
}

Test(pkt, ipv6_fragment_header)
{
	struct buf first = { .n = 0 }, later = { .n = 0 }, ah = { .n = 0 };
	struct ix_pkt k;

	ipv6(&first, 0, 8 + 8 + 20, 44);
	put8(&first, 17);
	put8(&first, 0);
	put16(&first, 0x0001); /* offset 0, more fragments */
	put32(&first, 99);
	udp(&first, 4791, 200);
	zeros(&first, 20);
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &first, &k), IX_PKT_OK);
	cr_assert_eq(k.proto, 17);
	cr_assert_eq(k.fragment, true);
	cr_assert_not(k.roce, "no BTH is read from a fragment");
	cr_assert_eq(k.payload_len, 20);

	ipv6(&later, 0, 8 + 16, 44);
	put8(&later, 17);
	put8(&later, 0);
	put16(&later, 0x00a8); /* offset 168 */
	put32(&later, 99);
	zeros(&later, 16);
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &later, &k), IX_PKT_OTHER);
	cr_assert_eq(k.family, 6);
	cr_assert_eq(k.proto, 17);
	cr_assert_eq(memcmp(k.dst, v6dst, 16), 0);

	/* Authentication header and no-next-header are other traffic. */
	ipv6(&ah, 0, 16, 51);
	zeros(&ah, 16);
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &ah, &k), IX_PKT_OTHER);
	cr_assert_eq(k.proto, 51);
	ah.b[6] = 59;
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &ah, &k), IX_PKT_OTHER);
}

Test(pkt, roce_bth_fields)
{
	struct buf p = { .n = 0 };
	struct ix_pkt k;

	eth(&p, 0x0800);
	ipv4(&p, 5, 3, 20 + 8 + 12 + 16 + 4, 0x4000, 17);
	udp(&p, 4791, 8 + 12 + 16 + 4);
	bth(&p, 0x81, 0xc0, 0xabcdef, 0x123456);
	zeros(&p, 20);
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
	cr_assert_eq(k.proto, 17);
	cr_assert_eq(k.roce, true);
	cr_assert_eq(k.ecn, 3);
	cr_assert_eq(k.bth_opcode, IX_PKT_BTH_CNP);
	cr_assert_eq(k.bth_dest_qp, 0xabcdefu);
	cr_assert_eq(k.bth_psn, 0x123456u);
	cr_assert_eq(k.bth_fecn, true);
	cr_assert_eq(k.bth_becn, true);
	cr_assert_eq(k.payload_len, 12 + 16 + 4);

	/* The BTH cut by the snaplen, or by the UDP length, is malformed. */
	cr_assert_eq(decode_cut(IX_PKT_DLT_EN10MB, &p, 14 + 20 + 8 + 11, p.n, &k),
		     IX_PKT_MALFORMED);
	cr_assert_eq(decode_cut(IX_PKT_DLT_EN10MB, &p, 14 + 20 + 8 + 12, p.n, &k), IX_PKT_OK);
	p.b[14 + 20 + 4] = 0;
	p.b[14 + 20 + 5] = 8 + 6;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
	/* Another port: plain UDP. */
	p.b[14 + 20 + 5] = 8 + 12 + 16 + 4;
	p.b[14 + 20 + 3] = 0x00; /* 4791 = 0x12b7 -> 0x1200 */
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
	cr_assert_not(k.roce);
	cr_assert_eq(k.dport, 0x1200);
}

Test(pkt, other_traffic)
{
	struct buf arp = { .n = 0 }, llc = { .n = 0 }, icmp = { .n = 0 };
	struct ix_pkt k;

	eth(&arp, 0x0806);
	zeros(&arp, 28);
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &arp, &k), IX_PKT_OTHER);
	cr_assert_eq(k.family, 0);
	eth(&llc, 46); /* an 802.3 length */
	zeros(&llc, 46);
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &llc, &k), IX_PKT_OTHER);
	eth(&icmp, 0x0800);
	ipv4(&icmp, 5, 3, 28, 0, 1);
	zeros(&icmp, 8);
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &icmp, &k), IX_PKT_OTHER);
	cr_assert_eq(k.family, 4);
	cr_assert_eq(k.proto, 1);
	cr_assert_eq(k.ecn, 3);
	cr_assert_eq(decode(147, &icmp, &k), IX_PKT_OTHER, "unknown link type");
	cr_assert_eq(ix_pkt_decode(IX_PKT_DLT_EN10MB, NULL, 0, 0, &k), IX_PKT_MALFORMED);
}

Test(pkt, inconsistent_headers)
{
	struct buf p;
	struct ix_pkt k;

	/* IHL below 5. */
	p = eth_tcp4();
	p.b[14] = 0x43;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
	/* Total length smaller than the header. */
	p = eth_tcp4();
	p.b[16] = 0;
	p.b[17] = 12;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
	/* Total length beyond what the wire carried. */
	p = eth_tcp4();
	p.b[16] = 0x05;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
	/* TCP data offset below 5, and beyond the segment. */
	p = eth_tcp4();
	p.b[14 + 20 + 12] = 0x40;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
	p.b[14 + 20 + 12] = 0xf0;
	p.b[17] = 20 + 40;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
	/* A segment too short for a TCP header. */
	p = eth_tcp4();
	p.b[17] = 20 + 19;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_MALFORMED);
	/* Ethernet padding after the datagram is fine. */
	p = eth_tcp4();
	p.b[17] = 20 + 20 + 50;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
	cr_assert_eq(k.payload_len, 50);
	/* A total length of 0 (segmentation offload) takes the frame's. */
	p = eth_tcp4();
	p.b[16] = 0;
	p.b[17] = 0;
	cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
	cr_assert_eq(k.payload_len, 100);
	/* A 3-byte frame. */
	cr_assert_eq(decode_cut(IX_PKT_DLT_EN10MB, &p, 3, 3, &k), IX_PKT_MALFORMED);
}

Test(pkt, udp_lengths)
{
	struct buf p = { .n = 0 };
	struct ix_pkt k;

	ipv4(&p, 5, 0, 20 + 8 + 10, 0, 17);
	udp(&p, 9, 8 + 10);
	zeros(&p, 10);
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &p, &k), IX_PKT_OK);
	cr_assert_eq(k.payload_len, 10);
	p.b[25] = 8 + 11; /* longer than the datagram */
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &p, &k), IX_PKT_MALFORMED);
	p.b[25] = 7;
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &p, &k), IX_PKT_MALFORMED);
	p.b[25] = 0; /* 0 is for IPv6 jumbograms only */
	cr_assert_eq(decode(IX_PKT_DLT_RAW, &p, &k), IX_PKT_MALFORMED);
}

Test(pkt, truncation_at_every_byte)
{
	struct buf a = eth_tcp4(), b = { .n = 0 }, c = { .n = 0 }, d = { .n = 0 };

	truncate_everywhere(IX_PKT_DLT_EN10MB, &a, 14 + 20 + 20);

	eth(&b, 0x8100);
	put16(&b, 5);
	put16(&b, 0x86dd);
	ipv6(&b, 0, 8 + 32 + 50, 60);
	put8(&b, 6);
	put8(&b, 0);
	zeros(&b, 6);
	tcp(&b, 8, IX_PKT_TH_ACK, 50);
	truncate_everywhere(IX_PKT_DLT_EN10MB, &b, 18 + 40 + 8 + 20);

	ipv4(&c, 5, 0, 20 + 8 + 12 + 4, 0, 17);
	udp(&c, 4791, 8 + 12 + 4);
	bth(&c, 0x04, 0, 0x42, 7); /* RC Send Only: no extended header */
	zeros(&c, 4);
	truncate_everywhere(IX_PKT_DLT_RAW, &c, 20 + 8 + 12);

	put16(&d, 0x0800);
	put16(&d, 0);
	put32(&d, 1);
	put16(&d, 1);
	put8(&d, 4);
	put8(&d, 6);
	zeros(&d, 8);
	ipv4(&d, 6, 0, 24 + 20 + 30, 0, 6);
	tcp(&d, 5, IX_PKT_TH_ACK | IX_PKT_TH_PSH, 30);
	truncate_everywhere(IX_PKT_DLT_LINUX_SLL2, &d, 20 + 24 + 20);
}

/* IP over InfiniBand: the 40-byte pseudo header, then type and reserved. */
Test(pkt, ipoib_link_type)
{
	struct buf p = { .n = 0 }, tcp4 = eth_tcp4();
	struct ix_pkt k;

	zeros(&p, 40);
	put16(&p, 0x0800);
	put16(&p, 0);
	put(&p, tcp4.b + 14, tcp4.n - 14);
	cr_assert_eq(decode(IX_PKT_DLT_IPOIB, &p, &k), IX_PKT_OK);
	check_tcp4(&k);
	truncate_everywhere(IX_PKT_DLT_IPOIB, &p, 44 + 20 + 20);
	p.b[41] = 0x06; /* ARP */
	cr_assert_eq(decode(IX_PKT_DLT_IPOIB, &p, &k), IX_PKT_OTHER);
}

/* ERF records: an Ethernet one (2 bytes of padding first), one with an
 * extension header, and an unknown type. */
Test(pkt, erf_records)
{
	struct buf p = { .n = 0 }, tcp4 = eth_tcp4();
	struct ix_pkt k;

	zeros(&p, 8);
	put8(&p, 0x82); /* Ethernet, an extension header follows */
	zeros(&p, 7);
	put8(&p, 0x01); /* the extension header: the last one */
	zeros(&p, 7);
	zeros(&p, 2);
	put(&p, tcp4.b, tcp4.n);
	cr_assert_eq(decode(IX_PKT_DLT_ERF, &p, &k), IX_PKT_OK);
	check_tcp4(&k);
	truncate_everywhere(IX_PKT_DLT_ERF, &p, 24 + 2 + 14 + 20 + 20);
	p.b[8] = 0x7e;
	cr_assert_eq(decode(IX_PKT_DLT_ERF, &p, &k), IX_PKT_OTHER);
	p.b[8] = 0x82;
	p.b[16] = 0x80; /* the chain runs past the record's 24 bytes */
	cr_assert_eq(decode_cut(IX_PKT_DLT_ERF, &p, 24, 24, &k), IX_PKT_MALFORMED);
}

Test(pkt, vxlan_and_geneve)
{
	for (int g = 0; g < 2; g++) {
		struct buf p = overlay(g);
		struct ix_pkt k;

		cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
		check_tcp4(&k);
		cr_assert_eq(k.overlay, g ? IX_PKT_OVERLAY_GENEVE : IX_PKT_OVERLAY_VXLAN);
		cr_assert_eq(k.outer_ecn, IX_PKT_ECN_CE);
		cr_assert_eq(k.ecn, 2, "the inner header's ECN");
		cr_assert_eq(k.vni, 7001);
		truncate_everywhere(IX_PKT_DLT_EN10MB, &p, p.n - 100);
	}
	{
		struct buf p = overlay(false);
		struct ix_pkt k;

		p.b[42] = 0; /* no valid VNI: not VXLAN, plain UDP */
		cr_assert_eq(decode(IX_PKT_DLT_EN10MB, &p, &k), IX_PKT_OK);
		cr_assert_eq(k.proto, 17);
		cr_assert_eq(k.overlay, IX_PKT_OVERLAY_NONE);
	}
}

/* Random bytes on every link type: any status, no crash, no overread. */
Test(pkt, random_bytes)
{
	static const int dlts[] = { 0, 1, 12, 101, 108, 113, 197, 228, 229, 242, 247, 276 };
	uint64_t s = 0x9e3779b97f4a7c15ull;
	struct buf p;
	struct ix_pkt k;
	int i, counts[3] = { 0, 0, 0 };
	size_t j;

	for (i = 0; i < 20000; i++) {
		int st;

		p = eth_tcp4();
		for (j = 0; j < 4; j++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			p.b[s % p.n] = (uint8_t)(s >> 32);
		}
		st = decode_cut(dlts[i % 9], &p, (size_t)(s >> 40) % (p.n + 1), p.n, &k);
		cr_assert(st == IX_PKT_OK || st == IX_PKT_OTHER || st == IX_PKT_MALFORMED);
		counts[st + 1]++;
	}
	cr_assert_gt(counts[0], 0);
	cr_assert_gt(counts[1], 0);
}
