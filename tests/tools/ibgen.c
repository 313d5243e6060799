/*
 * ibgen: writes crafted RDMA captures for the wire analysis tests, the
 * same exchanges over three link types: RoCEv2 over Ethernet, native
 * InfiniBand (LRH, a GRH on some packets) and ibdump's ERF records.
 * Each holds, on known PSNs and at known times, what the analysis must
 * find: RC WRITEs of three packets with their ACKs, a packet lost before
 * the capture point, the responder's PSN sequence NAK and the requester's
 * go-back-N after 150 us, an ACK timeout (4 ms of silence, then the same
 * PSNs again), READs of 4 KiB over a 1024-byte MTU, an RNR NAK (timer
 * 1.28 ms) and the SEND again after it, a remote access NAK, CNPs,
 * ECN-CE, FECN and BECN marks, and a UD send.
 *
 * roce-bulk writes N packets of RoCEv2 bulk traffic for the benchmark
 * (contrib/bench-wire.sh): 16 connections taking turns, WRITEs of four
 * packets each acknowledged, and in every 997th a packet lost, a PSN
 * sequence NAK and the requester going back; frames cut at 128 bytes as
 * dumpcap -s 128 keeps them.
 *
 *   ibgen roce|ib|erf OUT.pcap
 *   ibgen roce-bulk OUT.pcap N
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#define DLT_ETH  1
#define DLT_ERF  197
#define DLT_IB   247
#define BASE_SEC 1700000000ull
#define PMTU     1024

enum link { L_ROCE, L_IB, L_ERF };

struct gen {
	pcap_dumper_t *dump;
	enum link link;
	uint64_t count;
	uint32_t snap; /* bytes kept of each frame, 0: all */
};

/* One packet: from host a (1) or b (2), to dest_qp. */
struct ibp {
	bool from_a;
	uint8_t opcode;
	uint32_t qp, psn;
	bool ackreq, fecn, becn;
	uint8_t ecn;
	int aeth;         /* syndrome, -1: none */
	uint32_t rethlen; /* with a RETH when nonzero, or for a READ request */
	bool reth;
	bool deth;
	size_t payload;
	bool grh; /* native IB: a GRH */
};

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	put16(p + 1, v);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

/* BTH, extended headers, payload and ICRC at b; returns the length. */
static size_t transport(const struct ibp *x, uint8_t *b)
{
	size_t n = 12;

	memset(b, 0, 12);
	b[0] = x->opcode;
	put16(b + 2, 0xffff);
	b[4] = (uint8_t)((x->fecn ? 0x80 : 0) | (x->becn ? 0x40 : 0));
	put24(b + 5, x->qp);
	b[8] = x->ackreq ? 0x80 : 0;
	put24(b + 9, x->psn);
	if (x->deth) {
		memset(b + n, 0, 8);
		put32(b + n, 0x11111111u);
		put24(b + n + 5, 0x000099);
		n += 8;
	}
	if (x->reth) {
		memset(b + n, 0, 16);
		put32(b + n + 8, 0x1234);
		put32(b + n + 12, x->rethlen);
		n += 16;
	}
	if (x->aeth >= 0) {
		b[n] = (uint8_t)x->aeth;
		put24(b + n + 1, x->psn);
		n += 4;
	}
	memset(b + n, 'p', x->payload);
	n += x->payload;
	memset(b + n, 0, 4); /* ICRC */
	return n + 4;
}

static size_t frame(const struct gen *g, const struct ibp *x, uint8_t *b)
{
	uint8_t t[PMTU + 128];
	size_t tl = transport(x, t), n = 0;

	if (g->link == L_ROCE) {
		static const uint8_t ma[6] = { 2, 0, 0, 0, 0, 1 }, mb[6] = { 2, 0, 0, 0, 0, 2 };

		memcpy(b, x->from_a ? mb : ma, 6);
		memcpy(b + 6, x->from_a ? ma : mb, 6);
		put16(b + 12, 0x0800);
		memset(b + 14, 0, 28);
		b[14] = 0x45;
		b[15] = x->ecn;
		put16(b + 16, (uint32_t)(20 + 8 + tl));
		put16(b + 20, 0x4000);
		b[22] = 64;
		b[23] = 17;
		put32(b + 26, x->from_a ? 0x0a000001u : 0x0a000002u);
		put32(b + 30, x->from_a ? 0x0a000002u : 0x0a000001u);
		put16(b + 34, 49152);
		put16(b + 36, 4791);
		put16(b + 38, (uint32_t)(8 + tl));
		memcpy(b + 42, t, tl);
		return 42 + tl;
	}
	if (g->link == L_ERF) {
		memset(b, 0, 16);
		b[8] = 21; /* InfiniBand */
		n = 16;
	}
	{
		uint8_t *l = b + n;
		size_t hl = 8 + (x->grh ? 40 : 0);

		memset(l, 0, hl);
		l[1] = x->grh ? 3 : 2;
		put16(l + 2, x->from_a ? 2 : 1); /* DLID: b is LID 2, a LID 1 */
		put16(l + 4, (uint32_t)((hl + tl) / 4));
		put16(l + 6, x->from_a ? 1 : 2);
		if (x->grh) {
			l[8] = 0x60;
			put16(l + 12, (uint32_t)tl);
			l[14] = 0x1b;
			l[15] = 64;
			put16(l + 16, 0xfe80);
			l[31] = x->from_a ? 1 : 2;
			put16(l + 32, 0xfe80);
			l[47] = x->from_a ? 2 : 1;
		}
		memcpy(l + hl, t, tl);
		memset(l + hl + tl, 0, 2); /* VCRC */
		n += hl + tl + 2;
		if (g->link == L_ERF) {
			put16(b + 10, (uint32_t)n);
			put16(b + 14, (uint32_t)(n - 16));
		}
		return n;
	}
}

static void emit(struct gen *g, uint64_t t_us, const struct ibp *x)
{
	uint8_t b[PMTU + 256];
	struct pcap_pkthdr h;
	size_t n = frame(g, x, b);

	h.ts.tv_sec = (time_t)(BASE_SEC + t_us / 1000000u);
	h.ts.tv_usec = (suseconds_t)(t_us % 1000000u);
	h.len = (bpf_u_int32)n;
	h.caplen = g->snap && g->snap < n ? g->snap : (bpf_u_int32)n;
	pcap_dump((u_char *)g->dump, &h, b);
	g->count++;
}

static struct ibp req(bool from_a, uint8_t opcode, uint32_t qp, uint32_t psn, size_t payload)
{
	struct ibp x;

	memset(&x, 0, sizeof(x));
	x.from_a = from_a;
	x.opcode = opcode;
	x.qp = qp;
	x.psn = psn;
	x.payload = payload;
	x.aeth = -1;
	return x;
}

static struct ibp answer(bool from_a, uint8_t opcode, uint32_t qp, uint32_t psn, int syndrome)
{
	struct ibp x = req(from_a, opcode, qp, psn, 0);

	x.aeth = syndrome;
	return x;
}

/* A WRITE of three MTU-sized packets from a's QP 0x11 to b's QP 0x22 at
 * psn, acknowledged at once unless lose says which packet never passed. */
static void write3(struct gen *g, uint64_t t, uint32_t psn, int lose, bool acked)
{
	struct ibp first = req(true, 0x06, 0x22, psn, PMTU),
		   mid = req(true, 0x07, 0x22, psn + 1, PMTU),
		   last = req(true, 0x08, 0x22, psn + 2, PMTU);

	first.reth = true;
	first.rethlen = 3 * PMTU;
	last.ackreq = true;
	if (lose != 0)
		emit(g, t, &first);
	if (lose != 1)
		emit(g, t + 2, &mid);
	if (lose != 2)
		emit(g, t + 4, &last);
	if (acked)
		emit(g, t + 9,
		     &(struct ibp){ .from_a = false,
				    .opcode = 0x11,
				    .qp = 0x11,
				    .psn = psn + 2,
				    .aeth = 0x1f });
}

static void scenario(struct gen *g)
{
	uint64_t t = 0;
	uint32_t psn = 1000;
	struct ibp x;
	int i;

	/* Ten clean WRITEs, the last few marked on the way. */
	for (i = 0; i < 10; i++, t += 20, psn += 3)
		write3(g, t, psn, -1, true);
	/* The middle packet of a WRITE lost: the last arrives out of
	 * sequence, b NAKs with a PSN sequence error on the lost PSN, a
	 * goes back 150 us later and sends both again. */
	write3(g, t, psn, 1, false);
	emit(g, t + 6,
	     &(struct ibp){
		     .from_a = false, .opcode = 0x11, .qp = 0x11, .psn = psn + 1, .aeth = 0x60 });
	write3(g, t + 156, psn, 0, true);
	t += 300;
	psn += 3;
	/* No answer at all: after 4 ms of silence the same WRITE again. */
	write3(g, t, psn, -1, false);
	write3(g, t + 4004, psn, -1, true);
	t += 4100;
	psn += 3;
	/* b's QP 0x33 READs 4 KiB at a time from a's QP 0x44: four response
	 * PSNs each (1024-byte MTU), the next READ after them. */
	for (i = 0; i < 3; i++, t += 50) {
		uint32_t p = 5000 + 4 * (uint32_t)i;

		x = req(false, 0x0c, 0x44, p, 0);
		x.reth = true;
		x.rethlen = 4096;
		x.ackreq = true;
		emit(g, t, &x);
		emit(g, t + 11,
		     &(struct ibp){ .from_a = true,
				    .opcode = 0x0d,
				    .qp = 0x33,
				    .psn = p,
				    .aeth = 0x1f,
				    .payload = PMTU });
		emit(g, t + 12,
		     &(struct ibp){ .from_a = true,
				    .opcode = 0x0e,
				    .qp = 0x33,
				    .psn = p + 1,
				    .aeth = -1,
				    .payload = PMTU });
		emit(g, t + 13,
		     &(struct ibp){ .from_a = true,
				    .opcode = 0x0e,
				    .qp = 0x33,
				    .psn = p + 2,
				    .aeth = -1,
				    .payload = PMTU });
		emit(g, t + 14,
		     &(struct ibp){ .from_a = true,
				    .opcode = 0x0f,
				    .qp = 0x33,
				    .psn = p + 3,
				    .aeth = 0x1f,
				    .payload = PMTU });
	}
	/* A SEND that finds no receive: RNR NAK with its 1.28 ms timer, the
	 * SEND again once it ran out, then a remote access error. */
	x = req(false, 0x04, 0x44, 5012, 64);
	x.ackreq = true;
	emit(g, t, &x);
	emit(g, t + 5,
	     &(struct ibp){
		     .from_a = true, .opcode = 0x11, .qp = 0x33, .psn = 5012, .aeth = 0x20 | 14 });
	emit(g, t + 1290, &x);
	emit(g, t + 1295,
	     &(struct ibp){
		     .from_a = true, .opcode = 0x11, .qp = 0x33, .psn = 5012, .aeth = 0x1f });
	x = req(false, 0x0a, 0x44, 5013, 64);
	x.reth = true;
	x.rethlen = 64;
	x.ackreq = true;
	emit(g, t + 1400, &x);
	emit(g, t + 1405,
	     &(struct ibp){
		     .from_a = true, .opcode = 0x11, .qp = 0x33, .psn = 5013, .aeth = 0x62 });
	t += 1500;
	/* Congestion: CE-marked WRITEs (FECN on native IB), CNPs back (BECN). */
	for (i = 0; i < 4; i++, t += 20, psn++) {
		struct ibp f = req(true, 0x0a, 0x22, psn, 256);

		f.reth = true;
		f.rethlen = 256;
		f.ackreq = true;
		f.ecn = 3;
		f.fecn = true;
		emit(g, t, &f);
		x = answer(false, 0x11, 0x11, psn, 0x1f);
		x.becn = true;
		emit(g, t + 5, &x);
		emit(g, t + 6,
		     &(struct ibp){ .from_a = false,
				    .opcode = 0x81,
				    .qp = 0x11,
				    .psn = 0,
				    .aeth = -1,
				    .grh = true });
	}
	/* A UD send with its DETH. */
	x = req(true, 0x64, 0x000001, 7, 32);
	x.deth = true;
	emit(g, t, &x);
}

#define BULK_CONNS 16
#define BULK_LOSS  997 /* one WRITE in this many loses a packet */

/* One WRITE of four packets on connection c at psn, its second packet lost
 * (and sent again after the NAK) when lose. */
static void bulk_write(struct gen *g, uint64_t *t, uint32_t c, uint32_t psn, bool lose)
{
	struct ibp p[4];
	uint32_t qp_a = 0x100 + c, qp_b = 0x200 + c;

	for (uint32_t i = 0; i < 4; i++)
		p[i] = req(true, i == 0 ? 0x06 : i == 3 ? 0x08 : 0x07, qp_b, psn + i, PMTU);
	p[0].reth = true;
	p[0].rethlen = 4 * PMTU;
	p[3].ackreq = true;
	for (uint32_t i = 0; i < 4; i++)
		if (!(lose && i == 1))
			emit(g, (*t)++, &p[i]);
	if (lose) {
		emit(g, (*t)++,
		     &(struct ibp){ .from_a = false,
				    .opcode = 0x11,
				    .qp = qp_a,
				    .psn = psn + 1,
				    .aeth = 0x60 });
		*t += 20;
		for (uint32_t i = 1; i < 4; i++)
			emit(g, (*t)++, &p[i]);
	}
	emit(g, (*t)++,
	     &(struct ibp){
		     .from_a = false, .opcode = 0x11, .qp = qp_a, .psn = psn + 3, .aeth = 0x1f });
}

static void bulk(struct gen *g, uint64_t n)
{
	uint32_t psn[BULK_CONNS];
	uint64_t t = 0, k = 0;

	for (uint32_t c = 0; c < BULK_CONNS; c++)
		psn[c] = c * 100000u;
	g->snap = 128;
	while (g->count < n) {
		uint32_t c = (uint32_t)(k % BULK_CONNS);

		bulk_write(g, &t, c, psn[c], ++k % BULK_LOSS == 0);
		psn[c] = (psn[c] + 4) & 0xffffff;
	}
}

int main(int argc, char **argv)
{
	struct gen g;
	pcap_t *pd;
	uint64_t n = 0;
	bool is_bulk = argc == 4 && strcmp(argv[1], "roce-bulk") == 0;
	int dlt;

	if (is_bulk) {
		char *end;

		n = strtoull(argv[3], &end, 10);
		if (*end || n == 0) {
			fprintf(stderr, "ibgen: N must be a positive integer, not '%s'\n", argv[3]);
			return 2;
		}
	} else if (argc != 3 ||
		   (strcmp(argv[1], "roce") && strcmp(argv[1], "ib") && strcmp(argv[1], "erf"))) {
		fprintf(stderr,
			"usage: ibgen roce|ib|erf OUT.pcap\n       ibgen roce-bulk OUT.pcap N\n");
		return 2;
	}
	memset(&g, 0, sizeof(g));
	g.link = argv[1][0] == 'r' ? L_ROCE : argv[1][0] == 'i' ? L_IB : L_ERF;
	dlt = g.link == L_ROCE ? DLT_ETH : g.link == L_IB ? DLT_IB : DLT_ERF;
	pd = pcap_open_dead(dlt, 65535);
	if (!pd)
		return 1;
	g.dump = pcap_dump_open(pd, argv[2]);
	if (!g.dump) {
		fprintf(stderr, "ibgen: %s\n", pcap_geterr(pd));
		pcap_close(pd);
		return 1;
	}
	if (is_bulk)
		bulk(&g, n);
	else
		scenario(&g);
	pcap_dump_close(g.dump);
	pcap_close(pd);
	return 0;
}
