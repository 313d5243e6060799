/* Unit tests for probes/capture/rdmastat.c: decoded packets (ix_pkt, as
 * the decoder fills it) of known connections, with known losses, NAKs,
 * retries, READs, congestion marks and silences; the figures must say
 * exactly what was built in. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/capture/ib.h"
#include "probes/capture/pkt.h"
#include "probes/capture/rdmastat.h"

#define US 1000

static const uint8_t host_a[4] = { 10, 0, 0, 1 }, host_b[4] = { 10, 0, 0, 2 };

/* A RoCEv2 packet from a to b (or back) for dest_qp. */
static struct ix_pkt pkt(bool from_a, uint32_t dest_qp, uint8_t opcode, uint32_t psn)
{
	struct ix_pkt p;

	memset(&p, 0, sizeof(p));
	p.family = 4;
	p.proto = 17;
	memcpy(p.src, from_a ? host_a : host_b, 4);
	memcpy(p.dst, from_a ? host_b : host_a, 4);
	p.roce = p.bth = true;
	p.bth_opcode = opcode;
	p.bth_dest_qp = dest_qp;
	p.bth_psn = psn & 0xffffff;
	p.bth_ackreq = true;
	return p;
}

static struct ix_pkt ack(uint32_t psn, uint8_t syndrome)
{
	struct ix_pkt p = pkt(false, 0x11, 0x11, psn);

	p.aeth = true;
	p.aeth_syndrome = syndrome;
	return p;
}

static void feed(struct ix_rdma_ctx *c, struct ix_pkt p, int64_t t_us)
{
	ix_rdma_feed(c, &p, 100, t_us * US);
}

static const struct ix_wire_rdma_flow *flow(const struct ix_wire_rdma *r, bool from_a)
{
	for (uint32_t i = 0; i < r->nflows; i++)
		if (!memcmp(r->flows[i].src, from_a ? host_a : host_b, 4))
			return &r->flows[i];
	cr_assert_fail("no flow from %s", from_a ? "a" : "b");
	return NULL;
}

Test(rdmastat, clean_writes_every_one_acked)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;
	const struct ix_wire_rdma_flow *req, *rsp;

	for (uint32_t i = 0; i < 10; i++) {
		feed(c, pkt(true, 0x22, 0x0a, 100 + i), 10 * i);
		feed(c, ack(100 + i, 0x1f), 10 * i + 5);
	}
	ix_rdma_get(c, &r);
	cr_assert_eq(r.nflows, 2);
	req = flow(&r, true);
	rsp = flow(&r, false);
	cr_assert_eq(req->dest_qp, 0x22);
	cr_assert_eq(rsp->dest_qp, 0x11);
	cr_assert_eq(req->kind, IX_WIRE_ADDR_IP4);
	cr_assert_eq(req->requests, 10);
	cr_assert_eq(req->retransmitted + req->out_of_sequence + req->retries, 0);
	cr_assert_eq(req->nops, 1);
	cr_assert_eq(req->ops[0].opcode, 0x0a);
	cr_assert_eq(req->ops[0].packets, 10);
	cr_assert_eq(rsp->responses, 10);
	cr_assert_eq(rsp->acks, 10);
	cr_assert_eq(&r.flows[rsp->peer], req, "the ACKs' direction is tied to the requests'");
	cr_assert_eq(&r.flows[req->peer], rsp);
	cr_assert_eq(rsp->ack_latency.count, 10);
	cr_assert_eq(rsp->ack_latency.min_ns, 5 * US);
	cr_assert_eq(rsp->ack_latency.max_ns, 5 * US);
	cr_assert_eq(req->gap_max_ns, 10 * US);
	cr_assert_eq(req->first_ns, 0);
	cr_assert_eq(req->last_ns, 90 * US);
	cr_assert_eq(req->bytes, 1000);
	ix_rdma_free(c);
}

/* PSN 3 is lost before the capture point: 4 arrives out of sequence, the
 * responder NAKs with a PSN sequence error, the requester goes back to 3
 * after 200 us and sends 3, 4, 5 again. */
Test(rdmastat, a_loss_a_nak_and_go_back_n)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;
	const struct ix_wire_rdma_flow *req, *rsp;

	feed(c, pkt(true, 0x22, 0x04, 1), 0);
	feed(c, pkt(true, 0x22, 0x04, 2), 10);
	feed(c, ack(2, 0x1f), 15);
	feed(c, pkt(true, 0x22, 0x04, 4), 30);
	feed(c, pkt(true, 0x22, 0x04, 5), 40);
	feed(c, ack(3, 0x60 | IX_IB_NAK_PSN_SEQ), 45);
	feed(c, pkt(true, 0x22, 0x04, 3), 240);
	feed(c, pkt(true, 0x22, 0x04, 4), 250);
	feed(c, pkt(true, 0x22, 0x04, 5), 260);
	feed(c, pkt(true, 0x22, 0x04, 6), 270);
	feed(c, ack(6, 0x1f), 275);
	ix_rdma_get(c, &r);
	req = flow(&r, true);
	rsp = flow(&r, false);
	cr_assert_eq(req->requests, 8);
	cr_assert_eq(req->out_of_sequence, 1, "4 came before 3");
	cr_assert_eq(req->retransmitted, 3, "3, 4 and 5 sent again");
	cr_assert_eq(req->retries, 1, "in one run");
	cr_assert_eq(req->retry_wait.count, 1);
	cr_assert_eq(req->retry_wait.max_ns, 200 * US, "the silence before the run");
	cr_assert_eq(rsp->naks[IX_WIRE_NAK_PSN_SEQ], 1);
	cr_assert_eq(rsp->acks, 2);
	cr_assert_eq(req->gap_max_ns, 200 * US);
	cr_assert_eq(req->gap_end_ns, 240 * US);
	ix_rdma_free(c);
}

/* The requester's ACK timeout: no answer for 4 ms, then the same PSNs. */
Test(rdmastat, a_timeout_retry_is_timed)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;
	const struct ix_wire_rdma_flow *req;

	for (uint32_t i = 0; i < 4; i++)
		feed(c, pkt(true, 0x22, 0x0a, 7 + i), i);
	for (uint32_t i = 0; i < 4; i++)
		feed(c, pkt(true, 0x22, 0x0a, 7 + i), 4003 + i);
	feed(c, pkt(true, 0x22, 0x0a, 8), 5000); /* and once more, later */
	ix_rdma_get(c, &r);
	req = flow(&r, true);
	cr_assert_eq(req->retransmitted, 5);
	cr_assert_eq(req->retries, 1, "one run: nothing new came between");
	cr_assert_eq(req->retry_wait.max_ns, 4000 * US);
	cr_assert_eq(req->out_of_sequence, 0);
	ix_rdma_free(c);
}

Test(rdmastat, rnr_and_naks_by_code)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;
	const struct ix_wire_rdma_flow *rsp;

	feed(c, pkt(true, 0x22, 0x04, 1), 0);
	feed(c, ack(1, 0x20 | 14), 1); /* RNR NAK, 1.28 ms */
	feed(c, ack(1, 0x20 | 3), 2);  /* RNR NAK, 0.03 ms */
	feed(c, ack(1, 0x60 | 1), 3);  /* invalid request */
	feed(c, ack(1, 0x60 | 2), 4);  /* remote access error */
	feed(c, ack(1, 0x60 | 3), 5);  /* remote operational error */
	feed(c, ack(1, 0x60 | 4), 6);  /* invalid RD request */
	feed(c, ack(1, 0x60 | 9), 7);  /* a reserved code */
	feed(c, ack(1, 0x40), 8);      /* a reserved syndrome */
	ix_rdma_get(c, &r);
	rsp = flow(&r, false);
	cr_assert_eq(rsp->rnr_naks, 2);
	cr_assert_eq(rsp->rnr_timer_max_ns, 1280000);
	cr_assert_eq(rsp->naks[IX_WIRE_NAK_PSN_SEQ], 0);
	cr_assert_eq(rsp->naks[IX_WIRE_NAK_INV_REQ], 1);
	cr_assert_eq(rsp->naks[IX_WIRE_NAK_REM_ACCESS], 1);
	cr_assert_eq(rsp->naks[IX_WIRE_NAK_REM_OP], 1);
	cr_assert_eq(rsp->naks[IX_WIRE_NAK_INV_RD_REQ], 1);
	cr_assert_eq(rsp->naks[IX_WIRE_NAK_RESERVED], 2);
	cr_assert_eq(rsp->acks, 0);
	cr_assert_eq(rsp->ack_latency.count, 0, "a NAK is no ACK");
	ix_rdma_free(c);
}

/* READs of 8 KiB over a 4096-byte MTU take two response PSNs each: the
 * next request's PSN skips them, which is no gap. */
Test(rdmastat, reads_take_their_responses_psns)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;
	const struct ix_wire_rdma_flow *req, *rsp;

	for (uint32_t k = 0; k < 3; k++) {
		uint32_t psn = 50 + 2 * k;
		struct ix_pkt rd = pkt(true, 0x22, 0x0c, psn), first, last;

		rd.reth = true;
		rd.reth_dma_len = 8192;
		feed(c, rd, 100 * k);
		first = ack(psn, 0x1f);
		first.bth_opcode = 0x0d;
		first.bth_payload = 4096;
		feed(c, first, 100 * k + 7);
		last = ack(psn + 1, 0x1f);
		last.bth_opcode = 0x0f;
		last.bth_payload = 4096;
		feed(c, last, 100 * k + 8);
	}
	feed(c, pkt(true, 0x22, 0x04, 57), 400); /* a gap of one after the last READ */
	ix_rdma_get(c, &r);
	req = flow(&r, true);
	rsp = flow(&r, false);
	cr_assert_eq(req->requests, 4);
	cr_assert_eq(req->out_of_sequence, 1, "only the real gap: 56 was never seen");
	cr_assert_eq(rsp->responses, 6);
	cr_assert_eq(rsp->retransmitted + rsp->out_of_sequence, 0);
	cr_assert_eq(rsp->ack_latency.count, 3, "each READ to its first response");
	cr_assert_eq(rsp->ack_latency.max_ns, 7 * US);
	cr_assert_eq(rsp->payload, 6 * 4096);
	ix_rdma_free(c);
}

/* A READ whose responses come twice (the responder ran it again), one
 * that skips a PSN in its middle, and the next READ's first response after
 * the PSN of a SEND between them, which is no gap. */
Test(rdmastat, read_responses_sent_again)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;
	static const struct {
		uint8_t op;
		uint32_t psn;
	} rs[] = {
		{ 0x0d, 10 }, { 0x0e, 11 }, { 0x0f, 12 }, { 0x0d, 10 }, { 0x0e, 11 },
		{ 0x0f, 12 }, { 0x0d, 13 }, { 0x0e, 15 }, { 0x0f, 16 }, { 0x10, 18 },
	};

	for (size_t i = 0; i < sizeof(rs) / sizeof(rs[0]); i++)
		feed(c, pkt(false, 0x11, rs[i].op, rs[i].psn), (int64_t)i);
	ix_rdma_get(c, &r);
	cr_assert_eq(flow(&r, false)->retransmitted, 3);
	cr_assert_eq(flow(&r, false)->out_of_sequence, 1, "15 after 13 in one READ's responses");
	ix_rdma_free(c);
}

Test(rdmastat, psns_wrap_around)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;

	feed(c, pkt(true, 0x22, 0x04, 0xfffffe), 0);
	feed(c, pkt(true, 0x22, 0x04, 0xffffff), 1);
	feed(c, pkt(true, 0x22, 0x04, 0), 2);
	feed(c, pkt(true, 0x22, 0x04, 1), 3);
	feed(c, pkt(true, 0x22, 0x04, 0xffffff), 4);
	ix_rdma_get(c, &r);
	cr_assert_eq(flow(&r, true)->out_of_sequence, 0);
	cr_assert_eq(flow(&r, true)->retransmitted, 1, "0xffffff again, after 1");
	ix_rdma_free(c);
}

Test(rdmastat, congestion_marks)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;
	struct ix_pkt p = pkt(true, 0x22, 0x04, 1), q = pkt(true, 0x22, 0x04, 2);

	p.ecn = IX_PKT_ECN_CE;
	p.bth_fecn = true;
	q.outer_ecn = IX_PKT_ECN_CE;
	q.bth_becn = true;
	feed(c, p, 0);
	feed(c, q, 1);
	feed(c, pkt(false, 0x11, IX_PKT_BTH_CNP, 0), 2);
	ix_rdma_get(c, &r);
	cr_assert_eq(flow(&r, true)->ecn_ce, 2, "inner or outer");
	cr_assert_eq(flow(&r, true)->fecn, 1);
	cr_assert_eq(flow(&r, true)->becn, 1);
	cr_assert_eq(flow(&r, false)->cnp, 1);
	cr_assert_eq(flow(&r, false)->requests + flow(&r, false)->responses, 0);
	ix_rdma_free(c);
}

Test(rdmastat, native_infiniband_by_lids)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;
	struct ix_pkt p;

	memset(&p, 0, sizeof(p));
	p.ib = p.bth = true;
	p.slid = 9;
	p.dlid = 5;
	p.bth_opcode = 0x04;
	p.bth_dest_qp = 0x33;
	ix_rdma_feed(c, &p, 64, 0);
	p.grh = true;
	p.src[0] = 0xfe;
	ix_rdma_feed(c, &p, 64, 1);
	ix_rdma_get(c, &r);
	cr_assert_eq(r.nflows, 1, "by LIDs, with a GRH or not");
	cr_assert_eq(r.flows[0].kind, IX_WIRE_ADDR_LID);
	cr_assert_eq(r.flows[0].src[1], 9);
	cr_assert_eq(r.flows[0].dst[1], 5);
	cr_assert_eq(r.flows[0].packets, 2);
	ix_rdma_free(c);
}

Test(rdmastat, bounded_tables)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;

	for (uint32_t q = 0; q < IX_WIRE_RDMA_FLOWS + 5; q++)
		feed(c, pkt(true, q, 0x04, 1), q);
	for (uint32_t op = 0; op <= 0x17; op++) /* 24 opcodes on one direction */
		feed(c, pkt(true, 0, (uint8_t)op, 2 + op), 100 + op);
	ix_rdma_get(c, &r);
	cr_assert_eq(r.nflows, IX_WIRE_RDMA_FLOWS);
	cr_assert_eq(r.flows_other, 5);
	cr_assert_eq(r.flows[0].nops, IX_WIRE_RDMA_OPS);
	cr_assert_eq(r.flows[0].packets, 25);
	cr_assert_eq(r.flows[0].ops_other, 25 - 1 - (IX_WIRE_RDMA_OPS - 1) - 1);
	ix_rdma_free(c);
}

/* Two connections between a and b (one each way), one from a third host:
 * the pairs, the connections and the total add up. */
Test(rdmastat, roll_ups)
{
	static const uint8_t host_c[4] = { 10, 0, 0, 3 };
	struct ix_rdma_ctx *c = ix_rdma_new();
	struct ix_wire_rdma r;
	struct ix_rdma_sum total;
	struct ix_rdma_pair pairs[4];
	struct ix_rdma_conn conns[8];
	struct ix_pkt p;
	char buf[64];
	size_t n;

	feed(c, pkt(true, 0x22, 0x04, 1), 0);  /* a's requests to b's QP 0x22 */
	feed(c, ack(1, 0x1f), 1);              /* b's ACK to a's QP 0x11 */
	feed(c, pkt(false, 0x44, 0x04, 9), 2); /* b's requests to a's QP 0x44 */
	p = pkt(true, 0x55, 0x11, 9);          /* a's ACK to b's QP 0x55 */
	p.aeth = true;
	feed(c, p, 3);
	p = pkt(true, 0x66, 0x64, 0); /* a UD send to host c */
	memcpy(p.dst, host_c, 4);
	feed(c, p, 4);
	ix_rdma_get(c, &r);
	cr_assert_eq(r.nflows, 5);
	ix_rdma_total(&r, &total);
	cr_assert_eq(total.flows, 5);
	cr_assert_eq(total.packets, 5);
	cr_assert_eq(total.acks, 2);
	cr_assert_eq(total.requests, 2, "a UD send is no RC request");
	n = ix_rdma_pairs(&r, pairs, 4);
	cr_assert_eq(n, 2);
	cr_assert_eq(pairs[0].sum.flows, 4, "a and b, both ways");
	cr_assert_eq(pairs[1].sum.flows, 1);
	cr_assert_str_eq(ix_rdma_addr(pairs[1].kind, pairs[1].b, buf, sizeof(buf)), "10.0.0.3");
	cr_assert_eq(ix_rdma_pairs(&r, pairs, 1), 1, "bounded by max");
	n = ix_rdma_conns(&r, conns, 8);
	cr_assert_eq(n, 3);
	cr_assert_eq(r.flows[conns[0].requester].dest_qp, 0x22);
	cr_assert_eq(r.flows[conns[0].responder].dest_qp, 0x11);
	cr_assert_eq(r.flows[conns[1].requester].dest_qp, 0x44, "b requests, a answers");
	cr_assert_eq(r.flows[conns[1].responder].dest_qp, 0x55);
	cr_assert_eq(r.flows[conns[2].requester].dest_qp, 0x66);
	cr_assert_eq(conns[2].responder, -1, "a UD send has no answer");
	cr_assert_eq(ix_rdma_naks(&total), 0);
	cr_assert_str_eq(ix_rdma_nak_key(IX_WIRE_NAK_REM_ACCESS), "remote_access");
	memset(buf, 0, sizeof(buf));
	cr_assert_str_eq(
		ix_rdma_addr(IX_WIRE_ADDR_LID, (const uint8_t[16]){ 0x01, 0x02 }, buf, sizeof(buf)),
		"LID 258");
	ix_rdma_free(c);
}
