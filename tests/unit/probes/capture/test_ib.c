/* Unit tests for probes/capture/ib.c: the extended headers every opcode
 * names, lengths that do not hold them, a capture cut inside them, the
 * opcodes' roles and names, the AETH syndrome and RNR timer, and native
 * InfiniBand's LRH and GRH. Packets are byte arrays built here; each
 * decode reads from a buffer of exactly caplen bytes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/capture/ib.h"
#include "probes/capture/pkt.h"

/* A BTH with opcode, QP 0x000abc, PSN 0x123456, ACK request, pad count
 * pad, then ext bytes of extended headers (filled with their index) and
 * pay bytes of payload, pad bytes and a 4-byte ICRC. Returns its length. */
static size_t bth_packet(uint8_t *b, uint8_t opcode, size_t ext, size_t pay, uint8_t pad)
{
	size_t n = 12;

	memset(b, 0, 12);
	b[0] = opcode;
	b[1] = (uint8_t)(pad << 4);
	b[2] = 0xff;
	b[3] = 0xff;
	b[4] = 0x80; /* FECN */
	b[5] = 0x00;
	b[6] = 0x0a;
	b[7] = 0xbc;
	b[8] = 0x80;
	b[9] = 0x12;
	b[10] = 0x34;
	b[11] = 0x56;
	for (size_t i = 0; i < ext; i++)
		b[n++] = (uint8_t)i;
	memset(b + n, 0xaa, pay + pad + 4);
	return n + pay + pad + 4;
}

static int decode_bth(const uint8_t *b, size_t caplen, size_t tlen, struct ix_pkt *k)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);
	int st;

	cr_assert_not_null(copy);
	memcpy(copy, b, caplen);
	memset(k, 0, sizeof(*k));
	st = ix_ib_decode_bth(copy, caplen, 0, tlen, k);
	free(copy);
	return st;
}

Test(ib, extended_headers_by_opcode)
{
	static const struct {
		uint8_t opcode;
		size_t ext;
		bool reth, aeth, deth;
		size_t reth_at, aeth_at, deth_at; /* offsets within the extended headers */
	} cases[] = {
		{ 0x04, 0, false, false, false, 0, 0, 0 },  /* RC Send Only */
		{ 0x05, 4, false, false, false, 0, 0, 0 },  /* ... Immediate */
		{ 0x06, 16, true, false, false, 0, 0, 0 },  /* RC RDMA Write First */
		{ 0x0b, 20, true, false, false, 0, 0, 0 },  /* RC RDMA Write Only Immediate */
		{ 0x0c, 16, true, false, false, 0, 0, 0 },  /* RC RDMA Read Request */
		{ 0x0d, 4, false, true, false, 0, 0, 0 },   /* RC RDMA Read Response First */
		{ 0x0e, 0, false, false, false, 0, 0, 0 },  /* ... Middle */
		{ 0x11, 4, false, true, false, 0, 0, 0 },   /* RC Acknowledge */
		{ 0x12, 12, false, true, false, 0, 0, 0 },  /* RC Atomic Acknowledge */
		{ 0x13, 28, false, false, false, 0, 0, 0 }, /* RC Compare Swap */
		{ 0x17, 4, false, false, false, 0, 0, 0 },  /* RC Send Only Invalidate */
		{ 0x64, 8, false, false, true, 0, 0, 0 },   /* UD Send Only */
		{ 0x65, 12, false, false, true, 0, 0, 0 },  /* UD Send Only Immediate */
		{ 0xa4, 4, false, false, false, 0, 0, 0 },  /* XRC Send Only */
		{ 0xa6, 20, true, false, false, 4, 0, 0 },  /* XRC RDMA Write First */
		{ 0x4c, 28, true, false, true, 12, 0, 4 },  /* RD RDMA Read Request */
		{ 0x51, 8, false, true, false, 0, 4, 0 },   /* RD Acknowledge */
	};
	uint8_t b[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ix_pkt k;
		size_t n = bth_packet(b, cases[i].opcode, cases[i].ext, 100, 2);

		cr_assert_eq(decode_bth(b, n, n, &k), IX_PKT_OK, "opcode 0x%02x", cases[i].opcode);
		cr_assert(k.bth);
		cr_assert_eq(k.bth_opcode, cases[i].opcode);
		cr_assert_eq(k.bth_dest_qp, 0xabc);
		cr_assert_eq(k.bth_psn, 0x123456);
		cr_assert(k.bth_ackreq && k.bth_fecn && !k.bth_becn);
		cr_assert_eq(k.bth_pkey, 0xffff);
		cr_assert_eq(k.bth_padcnt, 2);
		cr_assert_eq(k.bth_payload, 100, "opcode 0x%02x: payload %u", cases[i].opcode,
			     k.bth_payload);
		cr_assert_eq(k.reth, cases[i].reth, "opcode 0x%02x", cases[i].opcode);
		cr_assert_eq(k.aeth, cases[i].aeth, "opcode 0x%02x", cases[i].opcode);
		cr_assert_eq(k.deth, cases[i].deth, "opcode 0x%02x", cases[i].opcode);
		if (k.reth) /* the DMA length: the RETH's last 4 bytes */
			cr_assert_eq(k.reth_dma_len,
				     (uint32_t)(cases[i].reth_at + 12) << 24 |
					     (uint32_t)(cases[i].reth_at + 13) << 16 |
					     (uint32_t)(cases[i].reth_at + 14) << 8 |
					     (uint32_t)(cases[i].reth_at + 15));
		if (k.aeth) {
			cr_assert_eq(k.aeth_syndrome, cases[i].aeth_at);
			cr_assert_eq(k.aeth_msn, (uint32_t)(cases[i].aeth_at + 1) << 16 |
							 (uint32_t)(cases[i].aeth_at + 2) << 8 |
							 (uint32_t)(cases[i].aeth_at + 3));
		}
		if (k.deth)
			cr_assert_eq(k.deth_src_qp, (uint32_t)(cases[i].deth_at + 5) << 16 |
							    (uint32_t)(cases[i].deth_at + 6) << 8 |
							    (uint32_t)(cases[i].deth_at + 7));
	}
}

Test(ib, lengths_that_do_not_hold_the_headers)
{
	uint8_t b[256];
	struct ix_pkt k;
	size_t n = bth_packet(b, 0x06, 16, 0, 0); /* RC RDMA Write First */

	cr_assert_eq(decode_bth(b, n, 12 + 15, &k), IX_PKT_MALFORMED, "tlen short of the RETH");
	cr_assert_eq(decode_bth(b, 11, n, &k), IX_PKT_MALFORMED, "capture short of the BTH");
	cr_assert_eq(decode_bth(b, 12 + 10, n, &k), IX_PKT_OK, "capture cut in the RETH");
	cr_assert(k.bth_cut && !k.reth);
	cr_assert_eq(k.bth_psn, 0x123456);
	/* Headers and ICRC but no room for the pad: no payload, not negative. */
	n = bth_packet(b, 0x04, 0, 0, 3);
	cr_assert_eq(decode_bth(b, n, 12 + 4, &k), IX_PKT_OK);
	cr_assert_eq(k.bth_payload, 0);
}

Test(ib, reserved_vendor_and_cnp_opcodes)
{
	static const uint8_t unknown[] = { 0x15, 0x1f, 0x2c, 0x6c, 0x80, 0xc0, 0xff };
	uint8_t b[64];
	char name[40];
	struct ix_pkt k;

	for (size_t i = 0; i < sizeof(unknown); i++) {
		size_t n = bth_packet(b, unknown[i], 0, 8, 0);

		cr_assert_eq(decode_bth(b, n, n, &k), IX_PKT_OK, "opcode 0x%02x", unknown[i]);
		cr_assert(!k.reth && !k.aeth && !k.deth && k.bth_payload == 0);
		cr_assert_eq(ix_ib_role(unknown[i]), IX_IB_UNKNOWN, "opcode 0x%02x", unknown[i]);
		cr_assert_null(ix_ib_opcode_name(unknown[i], name, sizeof(name)));
	}
	cr_assert_eq(ix_ib_role(IX_PKT_BTH_CNP), IX_IB_CNP);
	cr_assert_str_eq(ix_ib_opcode_name(IX_PKT_BTH_CNP, name, sizeof(name)), "CNP");
}

Test(ib, roles_and_names)
{
	static const struct {
		uint8_t opcode;
		int role;
		const char *name;
	} cases[] = {
		{ 0x00, IX_IB_REQUEST, "RC Send First" },
		{ 0x0a, IX_IB_REQUEST, "RC RDMA Write Only" },
		{ 0x0c, IX_IB_REQUEST, "RC RDMA Read Request" },
		{ 0x10, IX_IB_RESPONSE, "RC RDMA Read Response Only" },
		{ 0x11, IX_IB_RESPONSE, "RC Acknowledge" },
		{ 0x12, IX_IB_RESPONSE, "RC Atomic Acknowledge" },
		{ 0x14, IX_IB_REQUEST, "RC Fetch Add" },
		{ 0x2a, IX_IB_REQUEST, "UC RDMA Write Only" },
		{ 0x64, IX_IB_REQUEST, "UD Send Only" },
		{ 0xb1, IX_IB_RESPONSE, "XRC Acknowledge" },
	};
	char name[40];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(ix_ib_role(cases[i].opcode), cases[i].role, "0x%02x", cases[i].opcode);
		cr_assert_str_eq(ix_ib_opcode_name(cases[i].opcode, name, sizeof(name)),
				 cases[i].name);
	}
}

Test(ib, aeth_syndromes_and_rnr_timers)
{
	cr_assert_eq(IX_IB_AETH_KIND(0x1f), IX_IB_AETH_ACK);
	cr_assert_eq(IX_IB_AETH_KIND(0x2e), IX_IB_AETH_RNR_NAK);
	cr_assert_eq(IX_IB_AETH_VALUE(0x2e), 14);
	cr_assert_eq(IX_IB_AETH_KIND(0x60), IX_IB_AETH_NAK);
	cr_assert_eq(IX_IB_AETH_VALUE(0x60), IX_IB_NAK_PSN_SEQ);
	cr_assert_eq(IX_IB_AETH_VALUE(0x62), IX_IB_NAK_REM_ACCESS);
	cr_assert_eq(IX_IB_AETH_KIND(0x40), IX_IB_AETH_RESERVED);
	cr_assert_eq(IX_IB_AETH_KIND(0x9f), IX_IB_AETH_ACK, "bit 7 is reserved");
	cr_assert_eq(ix_ib_rnr_timer_ns(0), 655360000);
	cr_assert_eq(ix_ib_rnr_timer_ns(1), 10000);
	cr_assert_eq(ix_ib_rnr_timer_ns(14), 1280000);
	cr_assert_eq(ix_ib_rnr_timer_ns(31), 491520000);
}

/* Native InfiniBand: an LRH (LNH 2, or 3 with a GRH), the BTH, an ACK. */
static size_t ib_packet(uint8_t *b, bool grh, uint8_t nxthdr)
{
	size_t n = 8, words;

	memset(b, 0, 8);
	b[0] = 0x00;
	b[1] = (uint8_t)(0x30 | (grh ? 3 : 2)); /* SL 3 */
	b[2] = 0x00;
	b[3] = 0x05; /* DLID 5 */
	b[6] = 0x00;
	b[7] = 0x09; /* SLID 9 */
	if (grh) {
		memset(b + n, 0, 40);
		b[n] = 0x60;
		b[n + 6] = nxthdr;
		b[n + 8] = 0xfe;
		b[n + 9] = 0x80;
		b[n + 23] = 9;
		b[n + 24] = 0xfe;
		b[n + 25] = 0x80;
		b[n + 39] = 5;
		n += 40;
	}
	n += bth_packet(b + n, 0x11, 4, 0, 0); /* RC Acknowledge */
	b[n - 4 - 4] = 0x61;                   /* AETH: NAK, invalid request */
	words = n / 4;
	b[4] = (uint8_t)(words >> 8);
	b[5] = (uint8_t)words;
	b[n] = 0x12; /* the VCRC */
	b[n + 1] = 0x34;
	return n + 2;
}

static int decode_ib(const uint8_t *b, size_t caplen, size_t wire, struct ix_pkt *k)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);
	int st;

	cr_assert_not_null(copy);
	memcpy(copy, b, caplen);
	st = ix_pkt_decode(IX_PKT_DLT_INFINIBAND, copy, caplen, wire, k);
	free(copy);
	return st;
}

Test(ib, native_lrh_and_grh)
{
	uint8_t b[128];
	struct ix_pkt k;
	size_t n = ib_packet(b, false, 0);

	cr_assert_eq(decode_ib(b, n, n, &k), IX_PKT_OK);
	cr_assert(k.ib && k.bth && !k.roce && !k.grh);
	cr_assert_eq(k.family, 0);
	cr_assert_eq(k.slid, 9);
	cr_assert_eq(k.dlid, 5);
	cr_assert_eq(k.sl, 3);
	cr_assert(k.aeth);
	cr_assert_eq(k.aeth_syndrome, 0x61);
	for (size_t c = 0; c < 8 + 12; c++)
		cr_assert_eq(decode_ib(b, c, n, &k), IX_PKT_MALFORMED, "cut at %zu", c);
	b[5]++; /* PktLen a word beyond the packet */
	cr_assert_eq(decode_ib(b, n, n, &k), IX_PKT_MALFORMED, "PktLen beyond the wire");

	n = ib_packet(b, true, 0x1b);
	cr_assert_eq(decode_ib(b, n, n, &k), IX_PKT_OK);
	cr_assert(k.grh);
	cr_assert_eq(k.src[0], 0xfe);
	cr_assert_eq(k.src[15], 9);
	cr_assert_eq(k.dst[15], 5);
	cr_assert_eq(k.bth_opcode, 0x11);
	n = ib_packet(b, true, 0x11);
	cr_assert_eq(decode_ib(b, n, n, &k), IX_PKT_OTHER,
		     "a GRH whose next header is not the IBA's");
	b[1] = 0x30; /* LNH 0: raw */
	cr_assert_eq(decode_ib(b, n, n, &k), IX_PKT_OTHER);
}

/* ibdump's records: ERF type 21, the IB packet after the header. */
Test(ib, erf_infiniband_record)
{
	uint8_t b[160];
	struct ix_pkt k;
	size_t n;

	memset(b, 0, 16);
	b[8] = 21;
	n = 16 + ib_packet(b + 16, false, 0);
	cr_assert_eq(ix_pkt_decode(IX_PKT_DLT_ERF, b, n, n, &k), IX_PKT_OK);
	cr_assert(k.ib && k.aeth);
	cr_assert_eq(k.slid, 9);
}
