/*
 * Packet decoders over captured bytes: link layer (Ethernet with stacked
 * VLAN tags, Linux cooked v1/v2, BSD loopback, raw IP, IP over InfiniBand,
 * native InfiniBand, ERF records), IPv4 and IPv6 with extension headers,
 * TCP, UDP, the VXLAN and Geneve overlays, GRE and ERSPAN (the inner packet
 * is decoded) and the InfiniBand transport of RoCEv2 (ib.c). Every read is
 * bounded by caplen; lengths from the headers are checked against each
 * other and against the length on the wire, never trusted.
 *
 * GRE (IP protocol 47, RFC 2784 and 2890) is read in version 0, its C, K
 * and S flags giving the header's length: protocol 0x6558 carries an
 * Ethernet frame, 0x0800 and 0x86dd an IP packet. ERSPAN, a switch's
 * mirror copy sent to a collector (draft-foschiano-erspan), is GRE
 * protocol 0x88be: type I without a GRE sequence number (the frame right
 * after the GRE header), type II with one (an 8-byte header, version 1);
 * or protocol 0x22eb, type III (a 12-byte header, version 2, and an 8-byte
 * platform subheader when its O flag is set; an Ethernet frame or an IP
 * packet by its frame type). Any other GRE is a packet of another kind.
 * gre.c reads those headers; the packet inside is decoded here.
 * The frame inside is what the outer packet carried: the bytes past the
 * outer IP length are not its own. A mirror session may cut its copies
 * short, as a snaplen cuts a capture: the inner IP length may then run past
 * the copy, and the frame's length is taken from it.
 */
#include "config.h"

#include <string.h>

#include "probes/capture/pkt.h"

#define ETH_P_IPV4   0x0800
#define ETH_P_IPV6   0x86dd
#define ETH_P_8021Q  0x8100
#define ETH_P_8021AD 0x88a8
#define ETH_P_QINQ   0x9100 /* pre-standard stacked tag */
#define ETH_P_ARP    0x0806
#define ETH_P_TEB    0x6558 /* transparent Ethernet bridging: a frame inside */

#define ARPHRD_NETLINK 824

#define IP_TCP 6
#define IP_UDP 17

#define TCP_HDR        20
#define UDP_HDR        8
#define VXLAN_HDR      8
#define GENEVE_HDR     8
#define ETH_HDR        14
#define IPOIB_HDR      4
#define IPOIB_PSEUDO   40 /* a GRH, or the destination's address, before the header */
#define ERF_HDR        16
#define ERF_EXT        8
#define ERF_INFINIBAND 21
#define ERF_ETH        2
#define ERF_IPV4       22
#define ERF_IPV6       23
#define IP4_HDR        20
#define IP6_HDR        40
#define MAX_EXTS       16 /* IPv6 extension headers followed before giving up */

static int decode_ethertype(const uint8_t *d, size_t caplen, size_t wire, size_t off, uint16_t et,
			    struct ix_pkt *o);
static int decode_ip_version(const uint8_t *d, size_t caplen, size_t avail, size_t off,
			     struct ix_pkt *o);

/* An Ethernet frame at off, the wire carrying it to wire. */
static int decode_frame(const uint8_t *d, size_t caplen, size_t wire, size_t off, struct ix_pkt *o)
{
	uint16_t et;

	if (off > caplen || off > wire || caplen - off < ETH_HDR || wire - off < ETH_HDR)
		return IX_PKT_MALFORMED;
	et = ix_pkt_rd16(d + off + 12);
	if (et < 0x0600) /* 802.3 length: LLC, not IP */
		return IX_PKT_OTHER;
	return decode_ethertype(d, caplen, wire, off + ETH_HDR, et, o);
}

/* The packet inside a VXLAN or Geneve header at off, len bytes of UDP
 * payload. The inner headers replace the outer ones in o; the outer ECN
 * is kept. One overlay deep: a tunnel inside a tunnel stays UDP. */
static int decode_overlay(const uint8_t *d, size_t caplen, size_t off, size_t len, int kind,
			  struct ix_pkt *o)
{
	const uint8_t *p = d + off;
	size_t hl = kind == IX_PKT_OVERLAY_VXLAN ? VXLAN_HDR : GENEVE_HDR, end = off + len;
	uint16_t et = ETH_P_TEB;
	uint8_t ecn = o->ecn, vlans = o->vlans;

	if (len < hl || caplen - off < hl)
		return IX_PKT_MALFORMED;
	if (kind == IX_PKT_OVERLAY_VXLAN) {
		if (!(p[0] & 0x08)) /* no valid VNI: not VXLAN as RFC 7348 has it */
			return IX_PKT_OK;
	} else {
		if (p[0] >> 6 != 0) /* an unknown Geneve version: leave it as UDP */
			return IX_PKT_OK;
		hl += (size_t)(p[0] & 0x3f) * 4;
		et = ix_pkt_rd16(p + 2);
		if (len < hl)
			return IX_PKT_MALFORMED;
	}
	memset(o, 0, sizeof(*o));
	o->overlay = (uint8_t)kind;
	o->outer_ecn = ecn;
	o->vlans = vlans;
	o->vni = ix_pkt_rd24(p + 4);
	if (et == ETH_P_TEB)
		return decode_frame(d, caplen, end, off + hl, o);
	return decode_ethertype(d, caplen, end, off + hl, et, o);
}

/* The packet inside a GRE header at off, len bytes of IP payload (gre.c
 * reads the GRE and ERSPAN headers). The inner headers replace the outer
 * ones in o as in an overlay; GRE of another kind keeps them, marked as
 * GRE. */
static int decode_gre(const uint8_t *d, size_t caplen, size_t off, size_t len, struct ix_pkt *o)
{
	size_t end = off + len, in;
	struct ix_gre g;
	uint8_t ecn = o->ecn, vlans = o->vlans;
	int st = ix_gre_parse(d, caplen, off, len, &g);

	if (st == IX_PKT_OTHER)
		o->overlay = IX_PKT_OVERLAY_GRE;
	if (st != IX_PKT_OK)
		return st;
	memset(o, 0, sizeof(*o));
	o->overlay = g.erspan ? IX_PKT_OVERLAY_ERSPAN : IX_PKT_OVERLAY_GRE;
	o->outer_ecn = g.erspan ? 0 : ecn; /* a mirror's path is not the traffic's */
	o->vlans = vlans;
	o->vni = g.key;
	o->erspan = g.erspan;
	o->erspan_session = g.session;
	o->mirror_cut = g.cut;
	in = g.inner;
	if (caplen > end) /* what follows the outer packet is not the frame's */
		caplen = end;
	st = g.ip ? decode_ip_version(d, caplen, end - in, in, o)
		  : decode_frame(d, caplen, end, in, o);
	if (o->erspan) {
		uint64_t n = end - in;

		if (o->mirror_cut && o->family && (uint64_t)o->l3_off - in + o->ip_len > n)
			n = (uint64_t)o->l3_off - in + o->ip_len;
		o->mirror_len = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	}
	return st;
}

/* The transport header at off; l4len is what the IP header says follows. */
static int decode_l4(const uint8_t *d, size_t caplen, size_t off, size_t l4len, struct ix_pkt *o)
{
	const uint8_t *p = d + off;
	size_t have = off <= caplen ? caplen - off : 0;

	if (o->proto == IP_TCP) {
		size_t hl;

		if (l4len < TCP_HDR || have < TCP_HDR)
			return IX_PKT_MALFORMED;
		hl = (size_t)(p[12] >> 4) * 4;
		if (hl < TCP_HDR || (hl > l4len && !o->fragment))
			return IX_PKT_MALFORMED;
		o->l4_off = (uint32_t)off;
		o->sport = ix_pkt_rd16(p);
		o->dport = ix_pkt_rd16(p + 2);
		o->seq = ix_pkt_rd32(p + 4);
		o->ack = ix_pkt_rd32(p + 8);
		o->tcp_flags = p[13];
		o->window = ix_pkt_rd16(p + 14);
		o->payload_len = hl <= l4len ? (uint32_t)(l4len - hl) : 0;
		return IX_PKT_OK;
	}
	if (o->proto == IP_UDP) {
		size_t ulen;

		if (l4len < UDP_HDR || have < UDP_HDR)
			return IX_PKT_MALFORMED;
		o->l4_off = (uint32_t)off;
		o->sport = ix_pkt_rd16(p);
		o->dport = ix_pkt_rd16(p + 2);
		ulen = ix_pkt_rd16(p + 4);
		if (o->fragment) {
			/* The datagram continues in later fragments. */
			o->payload_len = (uint32_t)(l4len - UDP_HDR);
			return IX_PKT_OK;
		}
		/* 0 is allowed in IPv6 jumbograms only: take the IP length. */
		if (ulen == 0 && o->family == 6)
			ulen = l4len;
		if (ulen < UDP_HDR || ulen > l4len)
			return IX_PKT_MALFORMED;
		o->payload_len = (uint32_t)(ulen - UDP_HDR);
		if (o->dport == IX_PKT_ROCE_PORT) {
			int rc = ix_ib_decode_bth(d, caplen, off + UDP_HDR, o->payload_len, o);

			o->roce = rc == IX_PKT_OK;
			return rc;
		}
		if ((o->dport == IX_PKT_VXLAN_PORT || o->dport == IX_PKT_GENEVE_PORT) &&
		    !o->overlay)
			return decode_overlay(d, caplen, off + UDP_HDR, o->payload_len,
					      o->dport == IX_PKT_VXLAN_PORT ? IX_PKT_OVERLAY_VXLAN
									    : IX_PKT_OVERLAY_GENEVE,
					      o);
		return IX_PKT_OK;
	}
	if (o->proto == IX_PKT_IPPROTO_GRE && !o->overlay && !o->fragment)
		return decode_gre(d, caplen, off, l4len, o);
	return IX_PKT_OTHER;
}

/* IPv4 at off; avail is what the wire carried from off on. */
static int decode_ipv4(const uint8_t *d, size_t caplen, size_t avail, size_t off, struct ix_pkt *o)
{
	const uint8_t *p = d + off;
	size_t ihl, tot;
	uint16_t frag;

	if (caplen - off < IP4_HDR || p[0] >> 4 != 4)
		return IX_PKT_MALFORMED;
	ihl = (size_t)(p[0] & 0x0f) * 4;
	if (ihl < IP4_HDR || caplen - off < ihl)
		return IX_PKT_MALFORMED;
	tot = ix_pkt_rd16(p + 2);
	if (tot == 0) /* segmentation offload: the length is the frame's */
		tot = avail;
	if (tot < ihl || (tot > avail && !o->mirror_cut))
		return IX_PKT_MALFORMED;
	o->family = 4;
	o->l3_off = (uint32_t)off;
	o->ecn = p[1] & 3;
	o->proto = p[9];
	o->ip_len = (uint32_t)(tot > UINT32_MAX ? UINT32_MAX : tot);
	memcpy(o->src, p + 12, 4);
	memcpy(o->dst, p + 16, 4);
	frag = ix_pkt_rd16(p + 6);
	if (frag & 0x1fff) /* not the first fragment: no transport header */
		return IX_PKT_OTHER;
	if (frag & 0x2000)
		o->fragment = true;
	return decode_l4(d, caplen, off + ihl, tot - ihl, o);
}

static int decode_ipv6(const uint8_t *d, size_t caplen, size_t avail, size_t off, struct ix_pkt *o)
{
	const uint8_t *p = d + off;
	size_t tot, pos, end;
	uint8_t nh;
	int i;

	if (caplen - off < IP6_HDR || p[0] >> 4 != 6)
		return IX_PKT_MALFORMED;
	nh = p[6];
	tot = IP6_HDR + (size_t)ix_pkt_rd16(p + 4);
	if (tot == IP6_HDR && nh != 59) /* jumbogram or offload: the frame's length */
		tot = avail;
	if (tot > avail && !o->mirror_cut)
		return IX_PKT_MALFORMED;
	o->family = 6;
	o->l3_off = (uint32_t)off;
	o->ecn = (p[1] >> 4) & 3;
	o->ip_len = (uint32_t)(tot > UINT32_MAX ? UINT32_MAX : tot);
	memcpy(o->src, p + 8, 16);
	memcpy(o->dst, p + 24, 16);
	pos = off + IP6_HDR;
	end = off + tot;
	for (i = 0; i < MAX_EXTS; i++) {
		size_t len;

		o->proto = nh;
		if (nh == 0 || nh == 43 || nh == 60) { /* hop-by-hop, routing, dest. options */
			if (end - pos < 2 || caplen < pos + 2)
				return IX_PKT_MALFORMED;
			len = ((size_t)d[pos + 1] + 1) * 8;
		} else if (nh == 44) { /* fragment */
			uint16_t fo;

			if (end - pos < 8 || caplen < pos + 8)
				return IX_PKT_MALFORMED;
			len = 8;
			fo = ix_pkt_rd16(d + pos + 2);
			if (fo & 0xfff8) {
				o->proto = d[pos];
				return IX_PKT_OTHER;
			}
			if (fo & 1)
				o->fragment = true;
		} else {
			return decode_l4(d, caplen, pos, end - pos, o);
		}
		if (end - pos < len)
			return IX_PKT_MALFORMED;
		nh = d[pos];
		pos += len;
	}
	o->proto = nh;
	return IX_PKT_OTHER;
}

static int decode_ip_version(const uint8_t *d, size_t caplen, size_t avail, size_t off,
			     struct ix_pkt *o)
{
	if (off >= caplen)
		return IX_PKT_MALFORMED;
	switch (d[off] >> 4) {
	case 4:
		return decode_ipv4(d, caplen, avail, off, o);
	case 6:
		return decode_ipv6(d, caplen, avail, off, o);
	default:
		return IX_PKT_MALFORMED;
	}
}

/* What follows an Ethernet type field at off: VLAN tags, then IP. */
static int decode_ethertype(const uint8_t *d, size_t caplen, size_t wire, size_t off, uint16_t et,
			    struct ix_pkt *o)
{
	if (off > wire || off > caplen)
		return IX_PKT_MALFORMED;
	while (et == ETH_P_8021Q || et == ETH_P_8021AD || et == ETH_P_QINQ) {
		if (caplen - off < 4)
			return IX_PKT_MALFORMED;
		et = ix_pkt_rd16(d + off + 2);
		off += 4;
		if (o->vlans < UINT8_MAX)
			o->vlans++;
	}
	if (off > wire)
		return IX_PKT_MALFORMED;
	if (et == ETH_P_IPV4)
		return decode_ipv4(d, caplen, wire - off, off, o);
	if (et == ETH_P_IPV6)
		return decode_ipv6(d, caplen, wire - off, off, o);
	return IX_PKT_OTHER;
}

/* IP over InfiniBand as the link type has it (and Wireshark reads it): a
 * 40-byte pseudo header (the GRH, or the destination's QPN and GID), then
 * RFC 4391's 4 bytes: the type and 2 reserved. (tcpdump on a Linux IPoIB
 * interface writes Linux cooked captures instead.) */
static int decode_ipoib(const uint8_t *d, size_t caplen, size_t wire, struct ix_pkt *o)
{
	if (caplen < IPOIB_PSEUDO + IPOIB_HDR)
		return IX_PKT_MALFORMED;
	return decode_ethertype(d, caplen, wire, IPOIB_PSEUDO + IPOIB_HDR,
				ix_pkt_rd16(d + IPOIB_PSEUDO), o);
}

/* An ERF record (ibdump writes them): a 16-byte header, extension headers
 * while their top bit says so, then the packet its type names. */
static int decode_erf(const uint8_t *d, size_t caplen, size_t wire, struct ix_pkt *o)
{
	size_t off = ERF_HDR;
	uint8_t type, more;
	int i;

	if (caplen < ERF_HDR)
		return IX_PKT_MALFORMED;
	type = d[8];
	more = type & 0x80;
	for (i = 0; more; i++) {
		if (i == 16 || caplen - off < ERF_EXT)
			return IX_PKT_MALFORMED;
		more = d[off] & 0x80;
		off += ERF_EXT;
	}
	switch (type & 0x7f) {
	case ERF_INFINIBAND:
		return ix_ib_decode_lrh(d, caplen, wire, off, o);
	case ERF_ETH: /* 2 bytes of offset and padding before the frame */
		return decode_frame(d, caplen, wire, off + 2, o);
	case ERF_IPV4:
	case ERF_IPV6:
		return decode_ip_version(d, caplen, wire - off, off, o);
	default:
		return IX_PKT_OTHER;
	}
}

/* BSD loopback: a 4-byte address family, host order (NULL) or network
 * order (LOOP). IPv6 has several numbers depending on the system. */
static int decode_loopback(const uint8_t *d, size_t caplen, size_t wire, bool network_order,
			   struct ix_pkt *o)
{
	uint32_t fam;

	if (caplen < 4)
		return IX_PKT_MALFORMED;
	fam = ix_pkt_rd32(d);
	if (!network_order && (fam & 0xffff0000u))
		fam = (uint32_t)d[3] << 24 | (uint32_t)d[2] << 16 | (uint32_t)d[1] << 8 | d[0];
	if (fam == 2)
		return decode_ipv4(d, caplen, wire - 4, 4, o);
	if (fam == 10 || fam == 24 || fam == 28 || fam == 30)
		return decode_ipv6(d, caplen, wire - 4, 4, o);
	return IX_PKT_OTHER;
}

int ix_pkt_decode(int linktype, const uint8_t *data, size_t caplen, size_t wirelen,
		  struct ix_pkt *out)
{
	size_t wire = wirelen < caplen ? caplen : wirelen;
	uint16_t et;

	memset(out, 0, sizeof(*out));
	if (!data)
		return IX_PKT_MALFORMED;
	switch (linktype) {
	case IX_PKT_DLT_EN10MB:
		return decode_frame(data, caplen, wire, 0, out);
	case IX_PKT_DLT_LINUX_SLL:
		if (caplen < 16)
			return IX_PKT_MALFORMED;
		et = ix_pkt_rd16(data + 14);
		if (ix_pkt_rd16(data + 2) == ARPHRD_NETLINK || et < 0x0600)
			return IX_PKT_OTHER;
		return decode_ethertype(data, caplen, wire, 16, et, out);
	case IX_PKT_DLT_LINUX_SLL2:
		if (caplen < 20)
			return IX_PKT_MALFORMED;
		et = ix_pkt_rd16(data);
		if (ix_pkt_rd16(data + 8) == ARPHRD_NETLINK || et < 0x0600)
			return IX_PKT_OTHER;
		return decode_ethertype(data, caplen, wire, 20, et, out);
	case IX_PKT_DLT_NULL:
		return decode_loopback(data, caplen, wire, false, out);
	case IX_PKT_DLT_LOOP:
		return decode_loopback(data, caplen, wire, true, out);
	case IX_PKT_DLT_RAW:
	case IX_PKT_DLT_RAW_101:
		return decode_ip_version(data, caplen, wire, 0, out);
	case IX_PKT_DLT_IPV4:
		if (caplen < 1 || data[0] >> 4 != 4)
			return IX_PKT_MALFORMED;
		return decode_ipv4(data, caplen, wire, 0, out);
	case IX_PKT_DLT_IPV6:
		if (caplen < 1 || data[0] >> 4 != 6)
			return IX_PKT_MALFORMED;
		return decode_ipv6(data, caplen, wire, 0, out);
	case IX_PKT_DLT_IPOIB:
		return decode_ipoib(data, caplen, wire, out);
	case IX_PKT_DLT_INFINIBAND:
		return ix_ib_decode_lrh(data, caplen, wire, 0, out);
	case IX_PKT_DLT_ERF:
		return decode_erf(data, caplen, wire, out);
	default:
		return IX_PKT_OTHER;
	}
}
