/*
 * Packet decoders: plain functions over captured bytes, no libpcap (the
 * InfiniBand transport's are in ib.c, the GRE and ERSPAN headers' in
 * gre.c, declared at the end). A decoder never reads past caplen; what
 * does not fit is malformed.
 */
#ifndef IX_PKT_H
#define IX_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ix_pkt_status {
	IX_PKT_OK = 0,         /* TCP or UDP over IP, or an InfiniBand BTH, decoded */
	IX_PKT_OTHER = 1,      /* well formed, but none of those */
	IX_PKT_MALFORMED = -1, /* truncated or inconsistent */
};

/* Link types by their pcap DLT_* numbers (pcap.h is not needed here). */
#define IX_PKT_DLT_NULL       0
#define IX_PKT_DLT_EN10MB     1
#define IX_PKT_DLT_RAW        12  /* DLT_RAW on most systems */
#define IX_PKT_DLT_RAW_101    101 /* LINKTYPE_RAW as stored in files */
#define IX_PKT_DLT_LOOP       108
#define IX_PKT_DLT_LINUX_SLL  113
#define IX_PKT_DLT_IPV4       228
#define IX_PKT_DLT_IPV6       229
#define IX_PKT_DLT_LINUX_SLL2 276
#define IX_PKT_DLT_ERF        197 /* Endace ERF records: ibdump's InfiniBand captures */
#define IX_PKT_DLT_IPOIB      242 /* IP over InfiniBand (RFC 4391), Linux's pseudo header or not */
#define IX_PKT_DLT_INFINIBAND 247 /* native InfiniBand: LRH, GRH, BTH */

/* TCP flags as in the header's 13th byte. */
#define IX_PKT_TH_FIN 0x01
#define IX_PKT_TH_SYN 0x02
#define IX_PKT_TH_RST 0x04
#define IX_PKT_TH_PSH 0x08
#define IX_PKT_TH_ACK 0x10
#define IX_PKT_TH_URG 0x20
#define IX_PKT_TH_ECE 0x40
#define IX_PKT_TH_CWR 0x80

#define IX_PKT_ROCE_PORT   4791 /* RoCEv2 UDP destination port */
#define IX_PKT_VXLAN_PORT  4789 /* VXLAN (RFC 7348): an Ethernet frame inside */
#define IX_PKT_GENEVE_PORT 6081 /* Geneve (RFC 8926): Ethernet or IP inside */
#define IX_PKT_IPPROTO_GRE 47   /* GRE (RFC 2784, 2890): Ethernet, IP or ERSPAN inside */
#define IX_PKT_BTH_CNP     0x81 /* BTH opcode of a Congestion Notification Packet */
#define IX_PKT_ECN_CE      3    /* IP ECN codepoint Congestion Experienced */

enum ix_pkt_overlay {
	IX_PKT_OVERLAY_NONE = 0,
	IX_PKT_OVERLAY_VXLAN = 1,
	IX_PKT_OVERLAY_GENEVE = 2,
	IX_PKT_OVERLAY_GRE = 3,    /* a tunnel: an Ethernet frame or an IP packet */
	IX_PKT_OVERLAY_ERSPAN = 4, /* a switch's mirror copy of a frame, in GRE */
};

struct ix_pkt {
	uint8_t family;           /* 4 or 6; 0 when not IP */
	uint8_t proto;            /* IPPROTO_TCP, IPPROTO_UDP, or the IP protocol */
	uint8_t ecn;              /* the IP header's 2 ECN bits */
	uint8_t src[16], dst[16]; /* addresses; IPv4 in the first 4 bytes */
	uint32_t ip_len;          /* IP datagram length from its header */
	uint16_t sport, dport;
	uint32_t payload_len; /* L4 payload bytes (per the IP length) */
	/* TCP */
	uint32_t seq, ack;
	uint16_t window; /* raw, unscaled */
	uint8_t tcp_flags;
	/* InfiniBand transport: a Base Transport Header, in RoCEv2 (UDP to
	 * port 4791) or native (an LRH; with a GRH the GIDs are in src and
	 * dst, family stays 0). Its extended headers as the opcode names
	 * them (ib.c). */
	bool roce;           /* RoCEv2 */
	bool ib;             /* native InfiniBand */
	bool bth;            /* a BTH decoded, either way */
	bool grh;            /* native: a Global Route Header */
	uint16_t slid, dlid; /* native: local identifiers */
	uint8_t sl;          /* native: service level */
	uint8_t bth_opcode;
	bool bth_ackreq;         /* A: the requester asks for an ACK */
	bool bth_se;             /* solicited event */
	uint8_t bth_padcnt;      /* pad bytes before the ICRC */
	uint16_t bth_pkey;       /* partition key */
	uint32_t bth_dest_qp;    /* 24 bits */
	uint32_t bth_psn;        /* 24 bits */
	bool bth_fecn, bth_becn; /* BTH congestion notification bits */
	bool bth_cut;            /* the capture ends inside the extended headers */
	bool aeth;               /* ACK extended header: ACK, READ response, atomic ACK */
	uint8_t aeth_syndrome;   /* ACK, RNR NAK (with its timer) or NAK (with its code) */
	uint32_t aeth_msn;       /* message sequence number (24 bits) */
	bool reth;               /* RDMA extended header: WRITE first/only, READ request */
	uint32_t reth_dma_len;   /* bytes the operation moves */
	bool deth;               /* datagram extended header (UD) */
	uint32_t deth_src_qp;    /* 24 bits */
	uint32_t bth_payload;    /* bytes after the transport headers, less pad and ICRC */
	/* An overlay crossed (VXLAN, Geneve, GRE, ERSPAN): the fields above
	 * are the inner packet's; the outer IP header's ECN is kept, but not
	 * an ERSPAN one's (the mirror session's path, not the traffic's). A
	 * GRE packet whose payload is not decoded keeps its outer fields,
	 * proto IX_PKT_IPPROTO_GRE. */
	uint8_t overlay;   /* enum ix_pkt_overlay */
	uint8_t outer_ecn; /* the outer IP header's 2 ECN bits */
	uint32_t vni;      /* VXLAN, Geneve: network identifier (24 bits); GRE: key (0: none) */
	uint8_t erspan;    /* ERSPAN type: 1, 2 or 3 */
	uint16_t erspan_session; /* ERSPAN II and III: the session ID (10 bits) */
	/* ERSPAN: the session may have cut the frame short (II and III: their
	 * T bit; I has no header to say so, and is taken as possibly cut).
	 * The inner IP length may then run past what was carried, as it does
	 * past caplen in a capture cut by its snaplen. */
	bool mirror_cut;
	uint32_t mirror_len; /* ERSPAN: the mirrored frame's length (when cut: to its IP end) */
	/* First fragment of a fragmented datagram: ports are decoded, but
	 * payload_len is that of the fragment, not of the segment. */
	bool fragment;
	uint8_t vlans;   /* VLAN tags crossed (802.1Q/802.1ad) */
	uint32_t l3_off; /* offset of the IP header in the captured bytes */
	uint32_t l4_off; /* offset of the TCP/UDP header; 0 when none */
};

/* Big-endian fields of captured bytes. */
static inline uint16_t ix_pkt_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t ix_pkt_rd24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t ix_pkt_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Decode one captured packet: linktype is pcap's DLT_* number, caplen the
 * bytes at data, wirelen the packet's length on the wire (the IP length
 * may exceed caplen when the capture was cut by its snaplen). out is
 * cleared first, then filled as far as decoding went. Returns an enum
 * ix_pkt_status. */
int ix_pkt_decode(int linktype, const uint8_t *data, size_t caplen, size_t wirelen,
		  struct ix_pkt *out);

/* The InfiniBand transport (ib.c). The BTH at off (caplen bytes
 * captured); tlen is what the enclosing header says runs from the BTH to
 * the end of the ICRC. Fills the bth_*, aeth*, reth*, deth* fields of o
 * and sets o->bth. Returns IX_PKT_OK or IX_PKT_MALFORMED. */
int ix_ib_decode_bth(const uint8_t *d, size_t caplen, size_t off, size_t tlen, struct ix_pkt *o);
/* Native InfiniBand at off: the LRH, a GRH when its LNH says so, then the
 * BTH. wire is the packet's length as captured on the wire from 0. */
int ix_ib_decode_lrh(const uint8_t *d, size_t caplen, size_t wire, size_t off, struct ix_pkt *o);

/* GRE and ERSPAN (gre.c): the GRE header at off, len bytes of IP payload
 * (caplen bytes captured from the start of d), and the ERSPAN header after
 * it when its protocol names one: where the packet inside starts and what
 * it is; the decoders above decode it. Returns IX_PKT_OK with g filled,
 * IX_PKT_OTHER for GRE whose payload is not an Ethernet frame, an IP
 * packet or a known ERSPAN type (another protocol, RFC 1701 routing,
 * PPTP's version 1, an unknown ERSPAN version or frame type),
 * IX_PKT_MALFORMED for headers that len or caplen cut short. */
struct ix_gre {
	uint16_t proto;   /* GRE's protocol type */
	uint32_t key;     /* the K flag's key; 0 without one */
	uint8_t erspan;   /* ERSPAN type 1, 2 or 3; 0: a tunnel, not a mirror copy */
	uint16_t session; /* ERSPAN II and III: the session ID (10 bits) */
	bool cut;         /* ERSPAN: the copy may be cut short (II, III: T; I: always) */
	bool ip;          /* an IP packet inside; else an Ethernet frame */
	size_t inner;     /* offset of the packet or frame inside */
};
int ix_gre_parse(const uint8_t *d, size_t caplen, size_t off, size_t len, struct ix_gre *g);

#endif
