/* Unit tests for report/text/wire.c and wire_rdma.c: a capture's block of
 * text, its overlay and InfiniBand lines, and the RDMA transport's lines
 * (the capture's, one per connection, one per host pair when there are
 * several), exactly. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"

static char *render(const struct ix_wire_figures *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	ix_text_wire(f, w);
	fclose(f);
	return buf;
}

static void dir(struct ix_wire_rdma_flow *f, uint8_t from, uint8_t to, uint32_t qp, int peer)
{
	memset(f, 0, sizeof(*f));
	f->kind = IX_WIRE_ADDR_IP4;
	f->src[0] = f->dst[0] = 10;
	f->src[3] = from;
	f->dst[3] = to;
	f->dest_qp = qp;
	f->peer = peer;
}

static void capture(struct ix_wire_figures *w)
{
	struct ix_wire_rdma_flow *q = &w->rdma.flows[0], *a = &w->rdma.flows[1];

	memset(w, 0, sizeof(*w));
	w->present = true;
	snprintf(w->iface, sizeof(w->iface), "eth0");
	w->packets = w->udp_packets = w->roce_packets = 26;
	w->bytes = 26000;
	w->overlay_packets = 26;
	w->overlay_ecn_ce = 2;
	w->ecn_ce = 2;
	w->rdma.nflows = 2;
	dir(q, 1, 2, 0x22, 1);
	q->packets = q->requests = 12;
	q->retransmitted = 2;
	q->retries = 1;
	q->retry_wait = (struct ix_wire_span){ 1, 200000, 200000, 200000 };
	q->out_of_sequence = 1;
	q->nops = 1;
	q->ops[0] = (struct ix_wire_rdma_op){ 0x0a, 12 };
	q->ecn_ce = 2;
	q->gap_max_ns = 200000;
	dir(a, 2, 1, 0x11, 0);
	a->packets = 14;
	a->responses = a->acks = 10;
	a->naks[IX_WIRE_NAK_PSN_SEQ] = 1;
	a->rnr_naks = 1;
	a->rnr_timer_max_ns = 1280000;
	a->ack_latency = (struct ix_wire_span){ 10, 5000, 7000, 60000 };
	a->cnp = 2;
	a->becn = 2;
	a->gap_max_ns = 30000;
}

Test(text_wire, rdma_lines)
{
	struct ix_wire_figures w;
	char *out;

	capture(&w);
	out = render(&w);
	cr_assert(strstr(out, "  Overlay (VXLAN, Geneve, GRE, ERSPAN) 26 packets, analysed inside: "
			      "2 outer ECN-CE\n"),
		  "%s", out);
	cr_assert(strstr(out,
			 "  RDMA transport, 2 directions in 1 connections: 12 requests, 2 "
			 "retransmitted in 1 run (waited up to 200 us), 1 out of sequence; 10 "
			 "ACKs, 1 NAKs (PSN sequence error 1), 1 RNR NAKs (timer up to 1.28 ms); "
			 "ACK latency 6.00 us mean (5.00 us-7.00 us, 10); ECN-CE 2, CNPs 2, FECN "
			 "0, BECN 2; longest silence 200 us\n"),
		  "%s", out);
	cr_assert(strstr(out, "  10.0.0.1 QP 0x000011 -> 10.0.0.2 QP 0x000022 [RC RDMA Write Only "
			      "12]: 12 requests, "),
		  "%s", out);
	cr_assert_null(strstr(out, "between"), "one host pair: no line of its own");
	free(out);
}

Test(text_wire, several_pairs_and_unanswered_directions)
{
	struct ix_wire_figures w;
	char *out;

	capture(&w);
	w.rdma.nflows = 3;
	dir(&w.rdma.flows[2], 1, 3, 0x99, -1);
	w.rdma.flows[2].packets = 1;
	w.rdma.flows_other = 5;
	out = render(&w);
	cr_assert(strstr(out, "  RDMA transport, 3 directions in 2 connections (and 5 packets of "
			      "directions beyond them): "),
		  "%s", out);
	cr_assert(strstr(out, "  10.0.0.1 -> 10.0.0.3 QP 0x000099 (no answer seen): 0 requests"),
		  "%s", out);
	cr_assert(strstr(out, "  between 10.0.0.1 and 10.0.0.2: 12 requests"), "%s", out);
	cr_assert(strstr(out, "  between 10.0.0.1 and 10.0.0.3: 0 requests"), "%s", out);
	free(out);
}

Test(text_wire, no_rdma_no_lines)
{
	struct ix_wire_figures w;
	char *out;

	memset(&w, 0, sizeof(w));
	w.present = true;
	w.ib_packets = 0;
	out = render(&w);
	cr_assert_null(strstr(out, "RDMA"), "%s", out);
	cr_assert_null(strstr(out, "InfiniBand"), "%s", out);
	cr_assert_null(strstr(out, "Overlay"), "%s", out);
	free(out);
}
