/*
 * Packet decoders over captured bytes: link layer (Ethernet with stacked
 * VLAN tags, Linux cooked v1/v2, BSD loopback, raw IP), IPv4 and IPv6 with
 * extension headers, TCP, UDP and the RoCEv2 Base Transport Header. Every
 * read is bounded by caplen; lengths from the headers are checked against
 * each other and against the length on the wire, never trusted.
 */
#include "config.h"

#include <string.h>

#include "probes/capture/pkt.h"

#define ETH_P_IPV4   0x0800
#define ETH_P_IPV6   0x86dd
#define ETH_P_8021Q  0x8100
#define ETH_P_8021AD 0x88a8
#define ETH_P_QINQ   0x9100 /* pre-standard stacked tag */

#define ARPHRD_NETLINK 824

#define IP_TCP 6
#define IP_UDP 17

#define TCP_HDR  20
#define UDP_HDR  8
#define BTH_LEN  12
#define IP4_HDR  20
#define IP6_HDR  40
#define MAX_EXTS 16 /* IPv6 extension headers followed before giving up */

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t rd24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
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
		o->sport = rd16(p);
		o->dport = rd16(p + 2);
		o->seq = rd32(p + 4);
		o->ack = rd32(p + 8);
		o->tcp_flags = p[13];
		o->window = rd16(p + 14);
		o->payload_len = hl <= l4len ? (uint32_t)(l4len - hl) : 0;
		return IX_PKT_OK;
	}
	if (o->proto == IP_UDP) {
		size_t ulen;

		if (l4len < UDP_HDR || have < UDP_HDR)
			return IX_PKT_MALFORMED;
		o->l4_off = (uint32_t)off;
		o->sport = rd16(p);
		o->dport = rd16(p + 2);
		ulen = rd16(p + 4);
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
			const uint8_t *b = p + UDP_HDR;

			if (o->payload_len < BTH_LEN || have < UDP_HDR + BTH_LEN)
				return IX_PKT_MALFORMED;
			o->roce = true;
			o->bth_opcode = b[0];
			o->bth_fecn = (b[4] & 0x80) != 0;
			o->bth_becn = (b[4] & 0x40) != 0;
			o->bth_dest_qp = rd24(b + 5);
			o->bth_psn = rd24(b + 9);
		}
		return IX_PKT_OK;
	}
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
	tot = rd16(p + 2);
	if (tot == 0) /* segmentation offload: the length is the frame's */
		tot = avail;
	if (tot < ihl || tot > avail)
		return IX_PKT_MALFORMED;
	o->family = 4;
	o->l3_off = (uint32_t)off;
	o->ecn = p[1] & 3;
	o->proto = p[9];
	o->ip_len = (uint32_t)(tot > UINT32_MAX ? UINT32_MAX : tot);
	memcpy(o->src, p + 12, 4);
	memcpy(o->dst, p + 16, 4);
	frag = rd16(p + 6);
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
	tot = IP6_HDR + (size_t)rd16(p + 4);
	if (tot == IP6_HDR && nh != 59) /* jumbogram or offload: the frame's length */
		tot = avail;
	if (tot > avail)
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
			fo = rd16(d + pos + 2);
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
	while (et == ETH_P_8021Q || et == ETH_P_8021AD || et == ETH_P_QINQ) {
		if (caplen - off < 4)
			return IX_PKT_MALFORMED;
		et = rd16(d + off + 2);
		off += 4;
		if (o->vlans < UINT8_MAX)
			o->vlans++;
	}
	if (et == ETH_P_IPV4)
		return decode_ipv4(d, caplen, wire - off, off, o);
	if (et == ETH_P_IPV6)
		return decode_ipv6(d, caplen, wire - off, off, o);
	return IX_PKT_OTHER;
}

/* BSD loopback: a 4-byte address family, host order (NULL) or network
 * order (LOOP). IPv6 has several numbers depending on the system. */
static int decode_loopback(const uint8_t *d, size_t caplen, size_t wire, bool network_order,
			   struct ix_pkt *o)
{
	uint32_t fam;

	if (caplen < 4)
		return IX_PKT_MALFORMED;
	fam = rd32(d);
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
		if (caplen < 14)
			return IX_PKT_MALFORMED;
		et = rd16(data + 12);
		if (et < 0x0600) /* 802.3 length: LLC, not IP */
			return IX_PKT_OTHER;
		return decode_ethertype(data, caplen, wire, 14, et, out);
	case IX_PKT_DLT_LINUX_SLL:
		if (caplen < 16)
			return IX_PKT_MALFORMED;
		et = rd16(data + 14);
		if (rd16(data + 2) == ARPHRD_NETLINK || et < 0x0600)
			return IX_PKT_OTHER;
		return decode_ethertype(data, caplen, wire, 16, et, out);
	case IX_PKT_DLT_LINUX_SLL2:
		if (caplen < 20)
			return IX_PKT_MALFORMED;
		et = rd16(data);
		if (rd16(data + 8) == ARPHRD_NETLINK || et < 0x0600)
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
	default:
		return IX_PKT_OTHER;
	}
}
