/* The RDMA transport analysis as lines of text: the capture's total, then
 * a line per connection (requester and responder) and, with more than one
 * host pair, a line per pair. */
#include "config.h"

#include <stdio.h>

#include "probes/capture/ib.h"
#include "probes/capture/rdmastat.h"
#include "report/fmt/units.h"
#include "report/text/text.h"

#define LINES_MAX 16 /* connections and pairs shown; the rest counted */

static const char *const nak_names[IX_WIRE_NAK__MAX] = {
	"PSN sequence error",       "invalid request",    "remote access error",
	"remote operational error", "invalid RD request", "reserved",
};

static void span(FILE *f, const char *what, const struct ix_wire_span *s)
{
	char mean[32], lo[32], hi[32];

	if (!s->count)
		return;
	ix_fmt_ns((double)s->sum_ns / (double)s->count, mean, sizeof(mean));
	ix_fmt_ns((double)s->min_ns, lo, sizeof(lo));
	ix_fmt_ns((double)s->max_ns, hi, sizeof(hi));
	fprintf(f, "; %s %s mean (%s-%s, %llu)", what, mean, lo, hi, (unsigned long long)s->count);
}

/* The sequence, the answers, the marks and the longest silence. */
static void figures(FILE *f, const struct ix_rdma_sum *s)
{
	char t[32];
	uint64_t naks = ix_rdma_naks(s);

	fprintf(f, "%llu requests, %llu retransmitted", (unsigned long long)s->requests,
		(unsigned long long)s->retransmitted);
	if (s->retries) {
		ix_fmt_ns((double)s->retry_wait.max_ns, t, sizeof(t));
		fprintf(f, " in %llu run%s (waited up to %s)", (unsigned long long)s->retries,
			s->retries == 1 ? "" : "s", t);
	}
	fprintf(f, ", %llu out of sequence; %llu ACKs, %llu NAKs",
		(unsigned long long)s->out_of_sequence, (unsigned long long)s->acks,
		(unsigned long long)naks);
	for (int i = 0, first = 1; naks && i < IX_WIRE_NAK__MAX; i++)
		if (s->naks[i]) {
			fprintf(f, "%s%s %llu", first ? " (" : ", ", nak_names[i],
				(unsigned long long)s->naks[i]);
			first = 0;
		}
	fprintf(f, "%s, %llu RNR NAKs", naks ? ")" : "", (unsigned long long)s->rnr_naks);
	if (s->rnr_naks) {
		ix_fmt_ns((double)s->rnr_timer_max_ns, t, sizeof(t));
		fprintf(f, " (timer up to %s)", t);
	}
	span(f, "ACK latency", &s->ack_latency);
	if (s->ecn_ce || s->cnp || s->fecn || s->becn)
		fprintf(f, "; ECN-CE %llu, CNPs %llu, FECN %llu, BECN %llu",
			(unsigned long long)s->ecn_ce, (unsigned long long)s->cnp,
			(unsigned long long)s->fecn, (unsigned long long)s->becn);
	ix_fmt_ns((double)s->gap_max_ns, t, sizeof(t));
	fprintf(f, "; longest silence %s\n", t);
}

static void ops(FILE *f, const struct ix_wire_rdma_flow *d)
{
	char name[40];

	if (!d->nops && !d->ops_other)
		return;
	fprintf(f, " [");
	for (uint32_t i = 0; i < d->nops && i < IX_WIRE_RDMA_OPS; i++) {
		const char *n = ix_ib_opcode_name(d->ops[i].opcode, name, sizeof(name));

		if (n)
			fprintf(f, "%s%s %llu", i ? ", " : "", n,
				(unsigned long long)d->ops[i].packets);
		else
			fprintf(f, "%sopcode 0x%02x %llu", i ? ", " : "", d->ops[i].opcode,
				(unsigned long long)d->ops[i].packets);
	}
	if (d->ops_other)
		fprintf(f, ", others %llu", (unsigned long long)d->ops_other);
	fprintf(f, "]");
}

static void connection(FILE *f, const struct ix_wire_rdma *r, const struct ix_rdma_conn *c)
{
	const struct ix_wire_rdma_flow *q = &r->flows[c->requester];
	struct ix_rdma_sum s = { 0 };
	char a[64], b[64];

	ix_rdma_sum_flow(&s, q);
	if (c->responder >= 0) {
		ix_rdma_sum_flow(&s, &r->flows[c->responder]);
		fprintf(f, "  %s QP 0x%06x -> %s QP 0x%06x",
			ix_rdma_addr(q->kind, q->src, a, sizeof(a)), r->flows[c->responder].dest_qp,
			ix_rdma_addr(q->kind, q->dst, b, sizeof(b)), q->dest_qp);
	} else {
		fprintf(f, "  %s -> %s QP 0x%06x (no answer seen)",
			ix_rdma_addr(q->kind, q->src, a, sizeof(a)),
			ix_rdma_addr(q->kind, q->dst, b, sizeof(b)), q->dest_qp);
	}
	ops(f, q);
	fprintf(f, ": ");
	figures(f, &s);
}

void ix_text_wire_rdma(FILE *f, const struct ix_wire_rdma *r)
{
	struct ix_rdma_conn conns[IX_WIRE_RDMA_FLOWS];
	struct ix_rdma_pair pairs[IX_WIRE_RDMA_FLOWS];
	struct ix_rdma_sum total;
	uint32_t nf = r->nflows < IX_WIRE_RDMA_FLOWS ? r->nflows : IX_WIRE_RDMA_FLOWS;
	size_t nc = ix_rdma_conns(r, conns, nf), np = ix_rdma_pairs(r, pairs, IX_WIRE_RDMA_FLOWS);
	char a[64], b[64];

	if (!nf && !r->flows_other)
		return;
	ix_rdma_total(r, &total);
	fprintf(f, "  RDMA transport, %u directions in %zu connections", nf, nc);
	if (r->flows_other)
		fprintf(f, " (and %llu packets of directions beyond them)",
			(unsigned long long)r->flows_other);
	fprintf(f, ": ");
	figures(f, &total);
	for (size_t i = 0; i < nc && i < LINES_MAX; i++)
		connection(f, r, &conns[i]);
	if (nc > LINES_MAX)
		fprintf(f, "  ... and %zu more connections\n", nc - LINES_MAX);
	for (size_t i = 0; np > 1 && i < np && i < LINES_MAX; i++) {
		fprintf(f, "  between %s and %s: ",
			ix_rdma_addr(pairs[i].kind, pairs[i].a, a, sizeof(a)),
			ix_rdma_addr(pairs[i].kind, pairs[i].b, b, sizeof(b)));
		figures(f, &pairs[i].sum);
	}
}
