/*
 * GRE (RFC 2784, with RFC 2890's key and sequence number) in version 0:
 * 4 bytes of flags, version and protocol, then 4 bytes for each of the C
 * (checksum and reserved), K (key) and S (sequence number) flags. ERSPAN
 * (draft-foschiano-erspan), a switch's mirror copies sent to a collector:
 * GRE protocol 0x88be, type I without a GRE sequence number (the frame
 * follows GRE at once) or type II with one (8 bytes: version 1, VLAN, COS,
 * encapsulation, T, session ID; index); or protocol 0x22eb, type III (12
 * bytes: version 2, VLAN, COS, BSO, T, session ID; timestamp; security
 * group tag, P, frame type, hardware ID, D, granularity, O) and an 8-byte
 * platform subheader when O is set.
 */
#include "config.h"

#include <string.h>

#include "probes/capture/pkt.h"

#define GRE_HDR     4
#define GRE_C       0x8000
#define GRE_R       0x4000 /* RFC 1701's routing, not in RFC 2784 */
#define GRE_K       0x2000
#define GRE_S       0x1000
#define GRE_VER     0x0007
#define ERSPAN2_HDR 8
#define ERSPAN3_HDR 12
#define ERSPAN3_SUB 8    /* type III's platform subheader, when O is set */
#define ERSPAN_T    0x04 /* in the third byte of II and III: the copy was cut */

#define P_TEB     0x6558 /* transparent Ethernet bridging: a frame inside */
#define P_IPV4    0x0800
#define P_IPV6    0x86dd
#define P_ERSPAN  0x88be /* types I and II */
#define P_ERSPAN3 0x22eb /* type III */

/* The ERSPAN II or III header at off, len bytes before the end of the GRE
 * payload: its type, session and T bit in g; its length in *hl. */
static int erspan_header(const uint8_t *d, size_t caplen, size_t off, size_t len, struct ix_gre *g,
			 size_t *hl)
{
	const uint8_t *e = d + off;
	uint8_t type = g->proto == P_ERSPAN ? 2 : 3;

	*hl = type == 2 ? ERSPAN2_HDR : ERSPAN3_HDR;
	if (len < *hl || caplen - off < *hl)
		return IX_PKT_MALFORMED;
	if (e[0] >> 4 != type - 1) /* its version: 1 for II, 2 for III */
		return IX_PKT_OTHER;
	if (type == 3) {
		uint8_t ft = (e[10] >> 2) & 0x1f; /* frame type: 0 Ethernet, 2 IP */

		if (ft != 0 && ft != 2)
			return IX_PKT_OTHER;
		g->ip = ft == 2;
		if (e[11] & 0x01) /* O: the platform subheader */
			*hl += ERSPAN3_SUB;
		if (len < *hl)
			return IX_PKT_MALFORMED;
	}
	g->erspan = type;
	g->session = ix_pkt_rd16(e + 2) & 0x3ff;
	g->cut = e[2] & ERSPAN_T;
	return IX_PKT_OK;
}

int ix_gre_parse(const uint8_t *d, size_t caplen, size_t off, size_t len, struct ix_gre *g)
{
	const uint8_t *p = d + off;
	size_t have = off <= caplen ? caplen - off : 0, hl = GRE_HDR, eh = 0;
	uint16_t flags;
	int st = IX_PKT_OK;

	memset(g, 0, sizeof(*g));
	if (len < GRE_HDR || have < GRE_HDR)
		return IX_PKT_MALFORMED;
	flags = ix_pkt_rd16(p);
	g->proto = ix_pkt_rd16(p + 2);
	if (flags & (GRE_R | GRE_VER)) /* another layout: RFC 1701's, PPTP's */
		return IX_PKT_OTHER;
	hl += (flags & GRE_C ? 4u : 0u) + (flags & GRE_K ? 4u : 0u) + (flags & GRE_S ? 4u : 0u);
	if (len < hl || have < hl)
		return IX_PKT_MALFORMED;
	if (flags & GRE_K)
		g->key = ix_pkt_rd32(p + hl - (flags & GRE_S ? 8 : 4));
	switch (g->proto) {
	case P_TEB:
		break;
	case P_IPV4:
	case P_IPV6:
		g->ip = true;
		break;
	case P_ERSPAN:
	case P_ERSPAN3:
		if (g->proto == P_ERSPAN && !(flags & GRE_S)) {
			g->erspan = 1; /* type I: no header of its own, nothing to say a cut */
			g->cut = true;
			break;
		}
		st = erspan_header(d, caplen, off + hl, len - hl, g, &eh);
		break;
	default:
		st = IX_PKT_OTHER;
	}
	g->inner = off + hl + eh;
	return st;
}
