/*
 * Packet decoders: plain functions over captured bytes, no libpcap. A
 * decoder never reads past caplen; what does not fit is malformed.
 */
#ifndef IX_PKT_H
#define IX_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ix_pkt_status {
	IX_PKT_OK = 0,         /* IP with a TCP or UDP header decoded */
	IX_PKT_OTHER = 1,      /* well formed, but not TCP/UDP over IP */
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

/* TCP flags as in the header's 13th byte. */
#define IX_PKT_TH_FIN 0x01
#define IX_PKT_TH_SYN 0x02
#define IX_PKT_TH_RST 0x04
#define IX_PKT_TH_PSH 0x08
#define IX_PKT_TH_ACK 0x10
#define IX_PKT_TH_URG 0x20
#define IX_PKT_TH_ECE 0x40
#define IX_PKT_TH_CWR 0x80

#define IX_PKT_ROCE_PORT 4791 /* RoCEv2 UDP destination port */
#define IX_PKT_BTH_CNP   0x81 /* BTH opcode of a Congestion Notification Packet */
#define IX_PKT_ECN_CE    3    /* IP ECN codepoint Congestion Experienced */

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
	/* RoCEv2: UDP to port 4791 with a Base Transport Header */
	bool roce;
	uint8_t bth_opcode;
	uint32_t bth_dest_qp;    /* 24 bits */
	uint32_t bth_psn;        /* 24 bits */
	bool bth_fecn, bth_becn; /* BTH congestion notification bits */
	/* First fragment of a fragmented datagram: ports are decoded, but
	 * payload_len is that of the fragment, not of the segment. */
	bool fragment;
	uint8_t vlans;   /* VLAN tags crossed (802.1Q/802.1ad) */
	uint32_t l3_off; /* offset of the IP header in the captured bytes */
	uint32_t l4_off; /* offset of the TCP/UDP header; 0 when none */
};

/* Decode one captured packet: linktype is pcap's DLT_* number, caplen the
 * bytes at data, wirelen the packet's length on the wire (the IP length
 * may exceed caplen when the capture was cut by its snaplen). out is
 * cleared first, then filled as far as decoding went. Returns an enum
 * ix_pkt_status. */
int ix_pkt_decode(int linktype, const uint8_t *data, size_t caplen, size_t wirelen,
		  struct ix_pkt *out);

#endif
