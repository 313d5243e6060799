/*
 * RDMA transport analysis. Each direction of a queue pair keeps the PSN
 * it expects next, for the requests it carries and for the READ responses
 * it carries, and the times of its last requests by PSN. A request whose
 * PSN is behind the expected one was sent again (the requester went back
 * after a NAK or its ACK timeout); one ahead of it means packets between
 * never passed the capture point. After a READ request the next PSN is
 * the READ's own plus one per response packet: the path MTU, learned
 * from the payload of first and middle packets, says how many; before it
 * is known, any MTU the IBA allows is accepted.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/capture/ib.h"
#include "probes/capture/pkt.h"
#include "probes/capture/rdmastat.h"

#define RING     64 /* recent requests remembered per direction, for ACK latency */
#define PSN_MASK 0xffffffu

struct sent {
	uint32_t psn;
	int64_t ts;
};

/* What a direction remembers beyond its figures. */
struct seq {
	bool req_seen, resp_seen, in_retry;
	uint32_t req_next, resp_next;
	bool read_open; /* the last request was a READ: its responses take PSNs */
	uint32_t read_psn, read_len;
	struct sent ring[RING];
	uint32_t nring; /* requests recorded, the ring holds the last RING */
};

struct ix_rdma_ctx {
	struct ix_wire_rdma out;
	struct seq seq[IX_WIRE_RDMA_FLOWS];
	uint32_t pmtu; /* learned from a full packet's payload; 0: not yet */
};

struct ix_rdma_ctx *ix_rdma_new(void)
{
	return calloc(1, sizeof(struct ix_rdma_ctx));
}

void ix_rdma_free(struct ix_rdma_ctx *c)
{
	free(c);
}

void ix_rdma_get(const struct ix_rdma_ctx *c, struct ix_wire_rdma *out)
{
	*out = c->out;
}

/* a - b in the 24-bit PSN space, as a signed distance. */
static int32_t psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(((a - b) & PSN_MASK) << 8) >> 8;
}

static void key_of(const struct ix_pkt *p, struct ix_wire_rdma_flow *k)
{
	memset(k, 0, sizeof(*k));
	if (p->roce) {
		k->kind = p->family == 6 ? IX_WIRE_ADDR_IP6 : IX_WIRE_ADDR_IP4;
		memcpy(k->src, p->src, p->family == 6 ? 16 : 4);
		memcpy(k->dst, p->dst, p->family == 6 ? 16 : 4);
	} else { /* every LRH has them: a GRH's GIDs would split a pair */
		k->kind = IX_WIRE_ADDR_LID;
		k->src[0] = (uint8_t)(p->slid >> 8);
		k->src[1] = (uint8_t)p->slid;
		k->dst[0] = (uint8_t)(p->dlid >> 8);
		k->dst[1] = (uint8_t)p->dlid;
	}
	k->dest_qp = p->bth_dest_qp;
}

static bool same_dir(const struct ix_wire_rdma_flow *a, const struct ix_wire_rdma_flow *b)
{
	return a->kind == b->kind && a->dest_qp == b->dest_qp && !memcmp(a->src, b->src, 16) &&
	       !memcmp(a->dst, b->dst, 16);
}

static int find(struct ix_rdma_ctx *c, const struct ix_pkt *p)
{
	struct ix_wire_rdma_flow k;
	uint32_t i;

	key_of(p, &k);
	for (i = 0; i < c->out.nflows; i++)
		if (same_dir(&c->out.flows[i], &k))
			return (int)i;
	if (c->out.nflows == IX_WIRE_RDMA_FLOWS)
		return -1;
	k.peer = -1;
	c->out.flows[i] = k;
	c->out.nflows++;
	return (int)i;
}

static void count_op(struct ix_wire_rdma_flow *f, uint8_t opcode)
{
	for (uint32_t i = 0; i < f->nops; i++)
		if (f->ops[i].opcode == opcode) {
			f->ops[i].packets++;
			return;
		}
	if (f->nops == IX_WIRE_RDMA_OPS) {
		f->ops_other++;
		return;
	}
	f->ops[f->nops].opcode = opcode;
	f->ops[f->nops++].packets = 1;
}

/* A time between two packets; a capture whose timestamps go back (files
 * merged, clocks stepped) gives 0, never a negative time. */
static void span_add(struct ix_wire_span *s, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	if (!s->count || ns < s->min_ns)
		s->min_ns = ns;
	if (!s->count || ns > s->max_ns)
		s->max_ns = ns;
	s->sum_ns += ns;
	s->count++;
}

/* First and middle packets carry exactly the path MTU. */
static void learn_mtu(struct ix_rdma_ctx *c, const struct ix_pkt *p)
{
	uint8_t op = p->bth_opcode & 0x1f;

	if ((op == 0x00 || op == 0x01 || op == 0x06 || op == 0x07 || op == 0x0d || op == 0x0e) &&
	    p->bth_payload >= 256 && p->bth_payload > c->pmtu && !p->bth_cut)
		c->pmtu = p->bth_payload;
}

/* The responses of an open READ took the PSNs up to psn: a path MTU the
 * IBA allows (the learned one, once known) splits its length that way. */
static bool after_read(const struct ix_rdma_ctx *c, const struct seq *s, uint32_t psn)
{
	int32_t span = psn_diff(psn, s->read_psn);

	for (uint32_t mtu = 256; mtu <= 4096; mtu *= 2) {
		uint32_t want = s->read_len ? (s->read_len + mtu - 1) / mtu : 1;

		if ((!c->pmtu || c->pmtu == mtu) && span == (int32_t)want)
			return true;
	}
	return false;
}

static void request(struct ix_rdma_ctx *c, struct ix_wire_rdma_flow *f, struct seq *s,
		    const struct ix_pkt *p, int64_t ts)
{
	uint32_t psn = p->bth_psn;

	f->requests++;
	if (s->req_seen) {
		int32_t d = psn_diff(psn, s->req_next);

		if (d < 0) {
			f->retransmitted++;
			if (!s->in_retry) {
				f->retries++;
				span_add(&f->retry_wait, ts - f->last_ns);
				s->in_retry = true;
			}
		} else {
			if (d > 0 && !(s->read_open && after_read(c, s, psn)))
				f->out_of_sequence++;
			s->in_retry = false;
			s->read_open = false;
			s->req_next = (psn + 1) & PSN_MASK;
		}
	} else {
		s->req_seen = true;
		s->req_next = (psn + 1) & PSN_MASK;
	}
	if ((p->bth_opcode & 0x1f) == 0x0c && p->reth && !s->in_retry) {
		s->read_open = true;
		s->read_psn = psn;
		s->read_len = p->reth_dma_len;
	}
	s->ring[s->nring++ % RING] = (struct sent){ psn, ts };
}

/* The time the request with this PSN was last sent, in direction r. */
static bool sent_at(const struct seq *r, uint32_t psn, int64_t *ts)
{
	uint32_t n = r->nring < RING ? r->nring : RING;

	for (uint32_t i = 0; i < n; i++) {
		const struct sent *e = &r->ring[(r->nring - 1 - i) % RING];

		if (e->psn == psn) {
			*ts = e->ts;
			return true;
		}
	}
	return false;
}

/* The direction whose requests this response answers: from where it
 * goes, to where it comes from, having sent the PSN it names. */
static int answered(const struct ix_rdma_ctx *c, int self, uint32_t psn)
{
	const struct ix_wire_rdma_flow *f = &c->out.flows[self];
	int64_t ts;

	if (f->peer >= 0)
		return f->peer;
	for (uint32_t i = 0; i < c->out.nflows; i++) {
		const struct ix_wire_rdma_flow *g = &c->out.flows[i];

		if ((int)i != self && g->kind == f->kind && !memcmp(g->src, f->dst, 16) &&
		    !memcmp(g->dst, f->src, 16) && sent_at(&c->seq[i], psn, &ts))
			return (int)i;
	}
	return -1;
}

static void response(struct ix_rdma_ctx *c, int i, const struct ix_pkt *p, int64_t ts)
{
	struct ix_wire_rdma_flow *f = &c->out.flows[i];
	struct seq *s = &c->seq[i];
	uint8_t op = p->bth_opcode & 0x1f;
	bool acked = false;
	int q;

	f->responses++;
	/* READ responses take the READ's PSNs: behind the expected one, the
	 * responder sent them again; a first (or only) one may skip ahead
	 * (the requests between were not READs), a middle or last one may
	 * not. */
	if (op >= 0x0d && op <= 0x10) {
		if (s->resp_seen) {
			int32_t d = psn_diff(p->bth_psn, s->resp_next);

			if (d < 0)
				f->retransmitted++;
			else if (d > 0 && (op == 0x0e || op == 0x0f))
				f->out_of_sequence++;
			if (d >= 0)
				s->resp_next = (p->bth_psn + 1) & PSN_MASK;
		} else {
			s->resp_seen = true;
			s->resp_next = (p->bth_psn + 1) & PSN_MASK;
		}
	}
	if (p->aeth) {
		uint8_t v = IX_IB_AETH_VALUE(p->aeth_syndrome);

		switch (IX_IB_AETH_KIND(p->aeth_syndrome)) {
		case IX_IB_AETH_ACK:
			f->acks++;
			acked = true;
			break;
		case IX_IB_AETH_RNR_NAK:
			f->rnr_naks++;
			if (ix_ib_rnr_timer_ns(v) > f->rnr_timer_max_ns)
				f->rnr_timer_max_ns = ix_ib_rnr_timer_ns(v);
			break;
		case IX_IB_AETH_NAK:
			f->naks[v < IX_WIRE_NAK_RESERVED ? v : IX_WIRE_NAK_RESERVED]++;
			break;
		default:
			f->naks[IX_WIRE_NAK_RESERVED]++;
			break;
		}
	}
	/* An ACK, or the first packet of a READ's responses, names the PSN
	 * of the request it answers. */
	if ((acked && op != 0x0f) && (q = answered(c, i, p->bth_psn)) >= 0) {
		int64_t sent;

		f->peer = q;
		if (c->out.flows[q].peer < 0)
			c->out.flows[q].peer = i;
		if (sent_at(&c->seq[q], p->bth_psn, &sent) && ts >= sent)
			span_add(&f->ack_latency, ts - sent);
	}
}

void ix_rdma_feed(struct ix_rdma_ctx *c, const struct ix_pkt *p, uint64_t wirelen, int64_t ts)
{
	struct ix_wire_rdma_flow *f;
	int i = find(c, p), role;
	uint8_t t = p->bth_opcode >> 5;

	if (i < 0) {
		c->out.flows_other++;
		return;
	}
	f = &c->out.flows[i];
	f->packets++;
	f->bytes += wirelen;
	f->payload += p->bth_payload;
	count_op(f, p->bth_opcode);
	if ((p->family && p->ecn == IX_PKT_ECN_CE) || p->outer_ecn == IX_PKT_ECN_CE)
		f->ecn_ce++;
	f->fecn += p->bth_fecn;
	f->becn += p->bth_becn;
	if (f->packets == 1) {
		f->first_ns = ts;
	} else if (ts - f->last_ns > f->gap_max_ns) {
		f->gap_max_ns = ts - f->last_ns;
		f->gap_end_ns = ts;
	}
	learn_mtu(c, p);
	role = ix_ib_role(p->bth_opcode);
	if (role == IX_IB_CNP)
		f->cnp++;
	else if (role == IX_IB_REQUEST && (t == 0 || t == 1 || t == 5)) /* RC, UC, XRC */
		request(c, f, &c->seq[i], p, ts);
	else if (role == IX_IB_RESPONSE)
		response(c, i, p, ts);
	f->last_ns = ts;
}

/* ---- roll-ups ---- */

static void span_merge(struct ix_wire_span *s, const struct ix_wire_span *x)
{
	if (!x->count)
		return;
	if (!s->count || x->min_ns < s->min_ns)
		s->min_ns = x->min_ns;
	if (!s->count || x->max_ns > s->max_ns)
		s->max_ns = x->max_ns;
	s->sum_ns += x->sum_ns;
	s->count += x->count;
}

void ix_rdma_sum_flow(struct ix_rdma_sum *s, const struct ix_wire_rdma_flow *f)
{
	s->flows++;
	s->packets += f->packets;
	s->bytes += f->bytes;
	s->payload += f->payload;
	s->requests += f->requests;
	s->responses += f->responses;
	s->retransmitted += f->retransmitted;
	s->out_of_sequence += f->out_of_sequence;
	s->retries += f->retries;
	span_merge(&s->retry_wait, &f->retry_wait);
	s->acks += f->acks;
	s->rnr_naks += f->rnr_naks;
	if (f->rnr_timer_max_ns > s->rnr_timer_max_ns)
		s->rnr_timer_max_ns = f->rnr_timer_max_ns;
	for (int i = 0; i < IX_WIRE_NAK__MAX; i++)
		s->naks[i] += f->naks[i];
	span_merge(&s->ack_latency, &f->ack_latency);
	s->ecn_ce += f->ecn_ce;
	s->cnp += f->cnp;
	s->fecn += f->fecn;
	s->becn += f->becn;
	if (f->gap_max_ns > s->gap_max_ns)
		s->gap_max_ns = f->gap_max_ns;
}

void ix_rdma_total(const struct ix_wire_rdma *r, struct ix_rdma_sum *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < r->nflows && i < IX_WIRE_RDMA_FLOWS; i++)
		ix_rdma_sum_flow(out, &r->flows[i]);
}

uint64_t ix_rdma_naks(const struct ix_rdma_sum *s)
{
	uint64_t n = 0;

	for (int i = 0; i < IX_WIRE_NAK__MAX; i++)
		n += s->naks[i];
	return n;
}

size_t ix_rdma_pairs(const struct ix_wire_rdma *r, struct ix_rdma_pair *out, size_t max)
{
	size_t n = 0;

	for (uint32_t i = 0; i < r->nflows && i < IX_WIRE_RDMA_FLOWS; i++) {
		const struct ix_wire_rdma_flow *f = &r->flows[i];
		bool fwd = memcmp(f->src, f->dst, 16) <= 0;
		const uint8_t *a = fwd ? f->src : f->dst, *b = fwd ? f->dst : f->src;
		size_t k;

		for (k = 0; k < n; k++)
			if (out[k].kind == f->kind && !memcmp(out[k].a, a, 16) &&
			    !memcmp(out[k].b, b, 16))
				break;
		if (k == n) {
			if (n == max)
				continue;
			memset(&out[n], 0, sizeof(out[n]));
			out[n].kind = f->kind;
			memcpy(out[n].a, a, 16);
			memcpy(out[n].b, b, 16);
			n++;
		}
		ix_rdma_sum_flow(&out[k].sum, f);
	}
	return n;
}

size_t ix_rdma_conns(const struct ix_wire_rdma *r, struct ix_rdma_conn *out, size_t max)
{
	uint32_t nf = r->nflows < IX_WIRE_RDMA_FLOWS ? r->nflows : IX_WIRE_RDMA_FLOWS;
	size_t n = 0;

	for (uint32_t i = 0; i < nf && n < max; i++) {
		const struct ix_wire_rdma_flow *f = &r->flows[i];
		int p = f->peer >= 0 && (uint32_t)f->peer < nf ? f->peer : -1;

		if (p >= 0 && (uint32_t)p < i && r->flows[p].peer == (int32_t)i)
			continue; /* listed with its peer */
		if (p >= 0 && r->flows[p].requests > f->requests)
			out[n++] = (struct ix_rdma_conn){ p, (int)i };
		else
			out[n++] = (struct ix_rdma_conn){ (int)i, p };
	}
	return n;
}

const char *ix_rdma_addr(uint8_t kind, const uint8_t *a, char *buf, size_t len)
{
	char t[INET6_ADDRSTRLEN];

	if (kind == IX_WIRE_ADDR_LID)
		snprintf(buf, len, "LID %u", (unsigned)(a[0] << 8 | a[1]));
	else if (inet_ntop(kind == IX_WIRE_ADDR_IP4 ? AF_INET : AF_INET6, a, t, sizeof(t)))
		snprintf(buf, len, "%s", t);
	else
		snprintf(buf, len, "?");
	return buf;
}

const char *ix_rdma_nak_key(int nak)
{
	static const char *const keys[IX_WIRE_NAK__MAX] = {
		"psn_sequence",       "invalid_request",    "remote_access",
		"remote_operational", "invalid_rd_request", "reserved",
	};

	return nak >= 0 && nak < IX_WIRE_NAK__MAX ? keys[nak] : "?";
}
