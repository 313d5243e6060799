/*
 * InfiniBand transport headers (IBA volume 1, chapter 9; RoCEv2 annex
 * A17). The opcode's top three bits are the transport (RC, UC, RD, UD,
 * CNP, XRC), its low five the operation; together they name the extended
 * headers between the BTH and the payload, in a fixed order.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "probes/capture/ib.h"
#include "probes/capture/pkt.h"

#define LRH_LEN    8
#define GRH_LEN    40
#define BTH_LEN    12
#define ICRC_LEN   4
#define GRH_NXTHDR 0x1b /* the IBA transport follows the GRH */

/* Extended headers, in the order they follow the BTH. */
#define H_RDETH  0x001 /* 4: reliable datagram */
#define H_DETH   0x002 /* 8: datagram (Q_Key, source QP) */
#define H_XRCETH 0x004 /* 4: XRC target SRQ */
#define H_RETH   0x008 /* 16: virtual address, R_Key, DMA length */
#define H_ATOMIC 0x010 /* 28: atomic operands */
#define H_AETH   0x020 /* 4: syndrome, MSN */
#define H_ATMACK 0x040 /* 8: atomic's original data */
#define H_IMM    0x080 /* 4: immediate data */
#define H_IETH   0x100 /* 4: R_Key to invalidate */
#define H_NONE   0x200 /* a reserved operation: none known */

static const struct {
	uint16_t mask;
	const char *name;
} ops[32] = {
	[0x00] = { 0, "Send First" },
	[0x01] = { 0, "Send Middle" },
	[0x02] = { 0, "Send Last" },
	[0x03] = { H_IMM, "Send Last Immediate" },
	[0x04] = { 0, "Send Only" },
	[0x05] = { H_IMM, "Send Only Immediate" },
	[0x06] = { H_RETH, "RDMA Write First" },
	[0x07] = { 0, "RDMA Write Middle" },
	[0x08] = { 0, "RDMA Write Last" },
	[0x09] = { H_IMM, "RDMA Write Last Immediate" },
	[0x0a] = { H_RETH, "RDMA Write Only" },
	[0x0b] = { H_RETH | H_IMM, "RDMA Write Only Immediate" },
	[0x0c] = { H_RETH, "RDMA Read Request" },
	[0x0d] = { H_AETH, "RDMA Read Response First" },
	[0x0e] = { 0, "RDMA Read Response Middle" },
	[0x0f] = { H_AETH, "RDMA Read Response Last" },
	[0x10] = { H_AETH, "RDMA Read Response Only" },
	[0x11] = { H_AETH, "Acknowledge" },
	[0x12] = { H_AETH | H_ATMACK, "Atomic Acknowledge" },
	[0x13] = { H_ATOMIC, "Compare Swap" },
	[0x14] = { H_ATOMIC, "Fetch Add" },
	[0x15] = { H_NONE, NULL },
	[0x16] = { H_IETH, "Send Last Invalidate" },
	[0x17] = { H_IETH, "Send Only Invalidate" },
	[0x18] = { H_NONE, NULL },
	[0x19] = { H_NONE, NULL },
	[0x1a] = { H_NONE, NULL },
	[0x1b] = { H_NONE, NULL },
	[0x1c] = { H_NONE, NULL },
	[0x1d] = { H_NONE, NULL },
	[0x1e] = { H_NONE, NULL },
	[0x1f] = { H_NONE, NULL },
};

static const char *const transports[8] = { "RC", "UC", "RD", "UD", NULL, "XRC", NULL, NULL };

/* READ responses, ACKs and atomic ACKs: what a responder sends. */
static bool is_response(uint8_t op)
{
	return op >= 0x0d && op <= 0x12;
}

/* The extended headers of an opcode; H_NONE when it is not known. */
static uint16_t headers(uint8_t opcode)
{
	uint8_t t = opcode >> 5, op = opcode & 0x1f;
	uint16_t m = ops[op].mask;

	if (m & H_NONE || !transports[t])
		return H_NONE;
	switch (t) {
	case 2: /* RD: RDETH on all, DETH on requests */
		return is_response(op) ? m | H_RDETH : m | H_RDETH | H_DETH;
	case 1: /* UC: sends and writes only */
		return op <= 0x0b ? m : H_NONE;
	case 3: /* UD: sends only */
		return op == 0x04 || op == 0x05 ? m | H_DETH : H_NONE;
	case 5: /* XRC: the target SRQ on requests */
		return is_response(op) ? m : m | H_XRCETH;
	default:
		return m;
	}
}

int ix_ib_role(uint8_t opcode)
{
	uint16_t m;

	if (opcode == IX_PKT_BTH_CNP)
		return IX_IB_CNP;
	m = headers(opcode);
	if (m & H_NONE)
		return IX_IB_UNKNOWN;
	return is_response(opcode & 0x1f) ? IX_IB_RESPONSE : IX_IB_REQUEST;
}

const char *ix_ib_opcode_name(uint8_t opcode, char *buf, size_t len)
{
	if (opcode == IX_PKT_BTH_CNP)
		snprintf(buf, len, "CNP");
	else if (headers(opcode) & H_NONE)
		return NULL;
	else
		snprintf(buf, len, "%s %s", transports[opcode >> 5], ops[opcode & 0x1f].name);
	return buf;
}

static size_t hlen(uint16_t bit)
{
	switch (bit) {
	case H_RDETH:
	case H_XRCETH:
	case H_AETH:
	case H_IMM:
	case H_IETH:
		return 4;
	case H_DETH:
	case H_ATMACK:
		return 8;
	case H_RETH:
		return 16;
	case H_ATOMIC:
		return 28;
	default:
		return 0;
	}
}

int ix_ib_decode_bth(const uint8_t *d, size_t caplen, size_t off, size_t tlen, struct ix_pkt *o)
{
	const uint8_t *b = d + off;
	size_t have = off <= caplen ? caplen - off : 0, pos = BTH_LEN, ext = 0;
	uint16_t m;

	if (tlen < BTH_LEN || have < BTH_LEN)
		return IX_PKT_MALFORMED;
	o->bth = true;
	o->bth_opcode = b[0];
	o->bth_se = (b[1] & 0x80) != 0;
	o->bth_padcnt = (b[1] >> 4) & 3;
	o->bth_pkey = ix_pkt_rd16(b + 2);
	o->bth_fecn = (b[4] & 0x80) != 0;
	o->bth_becn = (b[4] & 0x40) != 0;
	o->bth_dest_qp = ix_pkt_rd24(b + 5);
	o->bth_ackreq = (b[8] & 0x80) != 0;
	o->bth_psn = ix_pkt_rd24(b + 9);
	if (o->bth_opcode == IX_PKT_BTH_CNP)
		return IX_PKT_OK; /* 16 reserved bytes, no payload */
	m = headers(o->bth_opcode);
	if (m & H_NONE)
		return IX_PKT_OK; /* a vendor or reserved opcode: its layout is unknown */
	for (uint16_t bit = H_RDETH; bit < H_NONE; bit <<= 1)
		if (m & bit)
			ext += hlen(bit);
	if (tlen < BTH_LEN + ext)
		return IX_PKT_MALFORMED;
	{
		size_t tail = BTH_LEN + ext + o->bth_padcnt + ICRC_LEN;

		o->bth_payload = tlen > tail ? (uint32_t)(tlen - tail) : 0;
	}
	if (have < BTH_LEN + ext) {
		o->bth_cut = true;
		return IX_PKT_OK;
	}
	for (uint16_t bit = H_RDETH; bit < H_NONE; bit <<= 1) {
		if (!(m & bit))
			continue;
		if (bit == H_DETH) {
			o->deth = true;
			o->deth_src_qp = ix_pkt_rd24(b + pos + 5);
		} else if (bit == H_RETH) {
			o->reth = true;
			o->reth_dma_len = ix_pkt_rd32(b + pos + 12);
		} else if (bit == H_AETH) {
			o->aeth = true;
			o->aeth_syndrome = b[pos];
			o->aeth_msn = ix_pkt_rd24(b + pos + 1);
		}
		pos += hlen(bit);
	}
	return IX_PKT_OK;
}

int ix_ib_decode_lrh(const uint8_t *d, size_t caplen, size_t wire, size_t off, struct ix_pkt *o)
{
	const uint8_t *p = d + off;
	size_t len, pos;
	uint8_t lnh;

	if (off > caplen || caplen - off < LRH_LEN)
		return IX_PKT_MALFORMED;
	lnh = p[1] & 3;
	/* PktLen: 4-byte words from the LRH to the ICRC's end (the VCRC's
	 * two bytes follow it). */
	len = (size_t)(ix_pkt_rd16(p + 4) & 0x7ff) * 4;
	if (len < LRH_LEN || len > wire - off)
		return IX_PKT_MALFORMED;
	o->ib = true;
	o->sl = p[1] >> 4;
	o->dlid = ix_pkt_rd16(p + 2);
	o->slid = ix_pkt_rd16(p + 6);
	pos = LRH_LEN;
	if (lnh == 3) {
		if (len < LRH_LEN + GRH_LEN || caplen - off < LRH_LEN + GRH_LEN)
			return IX_PKT_MALFORMED;
		if (p[pos] >> 4 != 6 || p[pos + 6] != GRH_NXTHDR)
			return IX_PKT_OTHER;
		o->grh = true;
		memcpy(o->src, p + pos + 8, 16);
		memcpy(o->dst, p + pos + 24, 16);
		pos += GRH_LEN;
	} else if (lnh != 2) {
		return IX_PKT_OTHER; /* raw, or IPv6 not over the IBA transport */
	}
	return ix_ib_decode_bth(d, caplen, off + pos, len - pos, o);
}

int64_t ix_ib_rnr_timer_ns(uint8_t value)
{
	/* The IBA's RNR NAK timer field, in units of 10 us (0: 655.36 ms). */
	static const uint32_t tens_of_us[32] = {
		65536, 1,    2,    3,    4,    6,     8,     12,    16,    24,    32,
		48,    64,   96,   128,  192,  256,   384,   512,   768,   1024,  1536,
		2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
	};

	return (int64_t)tens_of_us[value & 0x1f] * 10000;
}
