/*
 * Wire diagnostics over decoded packets. TCP conversations live in an
 * open-addressing hash table (linear probing, keyed by the 4-tuple in a
 * canonical order so both directions share an entry) and each direction
 * keeps the few values Wireshark's sequence analysis looks at, so the
 * counts of retransmissions, duplicate ACKs, out-of-order segments and
 * zero windows agree with tshark's tcp.analysis.* fields for the same
 * capture. The rules are applied in Wireshark's order: a packet that
 * matches an early rule skips the later ones.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probes/capture/pkt.h"
#include "probes/capture/rdmastat.h"
#include "probes/capture/wirestat.h"

/* Flow table bounds: it grows by doubling up to MAX_SLOTS and is kept at
 * most half full (65536 conversations in 23 MiB); past that the stalest
 * of a few entries makes room. */
#define MIN_SLOTS  1024u
#define MAX_SLOTS  (1u << 17)
#define EVICT_SCAN 8

#define QP_SLOTS 128u /* index over the per-QP table, twice its size */

/* Sequence analysis results of one segment (Wireshark's TCP_A_* flags). */
#define A_RETRANS      0x0001
#define A_LOST         0x0002
#define A_ACK_LOST     0x0004
#define A_KEEPALIVE    0x0008
#define A_DUPACK       0x0010
#define A_ZW           0x0020
#define A_ZWP          0x0040
#define A_ZWP_ACK      0x0080
#define A_KEEPALIVE_AK 0x0100
#define A_OOO          0x0200
#define A_FAST_RETRANS 0x0400
#define A_WIN_UPDATE   0x0800
#define A_SPURIOUS     0x4000

#define UNSEEN_ACKED    UINT32_MAX
#define MAX_UNACKED     10000    /* Wireshark's TCP_MAX_UNACKED_SEGMENTS */
#define FAST_RETRANS_NS 20000000 /* a fast retransmission follows dup ACKs within 20 ms */
#define OOO_DEFAULT_NS  3000000  /* out-of-order window when no handshake RTT is known */

/* Closed conversations, the first to go when the table is full. */
#define SEEN_FIN 0x01
#define SEEN_RST 0x02

/* Sequence space comparisons, modulo 2^32. */
#define LT_SEQ(x, y) ((int32_t)((x) - (y)) < 0)
#define GT_SEQ(x, y) ((int32_t)((y) - (x)) < 0)
#define LE_SEQ(x, y) ((int32_t)((x) - (y)) <= 0)

/* One direction of a conversation. */
struct half {
	uint32_t nextseq;         /* highest sequence number + length seen; 0: none yet */
	uint32_t maxseqtobeacked; /* end of the contiguous data seen */
	uint32_t lastack;         /* ACK number of the last segment */
	uint32_t window;          /* raw window of the last segment; UINT32_MAX before one */
	uint32_t unacked;         /* segments Wireshark would hold unacknowledged (estimate) */
	uint32_t lastlen;         /* length of the last segment with data */
	uint32_t base_seq;        /* ISN (or the first sequence number - 1) */
	int64_t nextseq_ts;       /* when nextseq last moved */
	int64_t lastack_ts;       /* time of the last segment */
	uint32_t dupacks;         /* consecutive duplicate ACKs; UNSEEN_ACKED after an ACK of unseen
				   * data, which (unsigned, as in Wireshark) also passes ">= 2" */
	uint16_t lastflags;       /* analysis flags of the last segment */
	bool base_set;
};

struct flow_key {
	uint8_t a[16], b[16]; /* lower (address, port) first */
	uint16_t pa, pb;
	uint8_t family;
	uint8_t pad[3];
};

struct flow {
	struct flow_key key;
	uint32_t hash;
	uint8_t used;
	uint8_t seen;      /* SEEN_FIN, SEEN_RST */
	int64_t mru_syn;   /* time of the latest SYN; 0: none */
	int64_t first_rtt; /* SYN to first ACK; 0: unknown */
	int64_t last_ts;
	struct half h[2];
};

struct ix_wire_ctx {
	struct ix_wire_figures f;
	struct flow *slots;
	uint32_t nslots; /* a power of 2 */
	uint32_t nflows;
	uint32_t cursor;            /* where the next eviction scan starts */
	uint8_t qp_index[QP_SLOTS]; /* 1 + index into f.qps; 0: empty */
	struct ix_rdma_ctx *rdma;   /* the transport analysis of packets with a BTH */
};

struct ix_wire_ctx *ix_wire_new(void)
{
	struct ix_wire_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->slots = calloc(MIN_SLOTS, sizeof(*c->slots));
	c->rdma = ix_rdma_new();
	if (!c->slots || !c->rdma) {
		ix_rdma_free(c->rdma);
		free(c->slots);
		free(c);
		return NULL;
	}
	c->nslots = MIN_SLOTS;
	return c;
}

void ix_wire_free(struct ix_wire_ctx *c)
{
	if (!c)
		return;
	ix_rdma_free(c->rdma);
	free(c->slots);
	free(c);
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static uint32_t key_hash(const struct flow_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint64_t h = 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i < sizeof(*k); i += 8)
		h = mix64(h ^ load64(p + i));
	return (uint32_t)h;
}

/* The canonical key of a packet's conversation; returns its direction
 * (0 when the source is the key's first endpoint). */
static int make_key(const struct ix_pkt *p, struct flow_key *k)
{
	int c = memcmp(p->src, p->dst, 16);

	memset(k, 0, sizeof(*k));
	k->family = p->family;
	if (c < 0 || (c == 0 && p->sport <= p->dport)) {
		memcpy(k->a, p->src, 16);
		memcpy(k->b, p->dst, 16);
		k->pa = p->sport;
		k->pb = p->dport;
		return 0;
	}
	memcpy(k->a, p->dst, 16);
	memcpy(k->b, p->src, 16);
	k->pa = p->dport;
	k->pb = p->sport;
	return 1;
}

static void flow_init(struct flow *f)
{
	memset(&f->seen, 0, sizeof(*f) - offsetof(struct flow, seen));
	f->h[0].window = UINT32_MAX;
	f->h[1].window = UINT32_MAX;
}

static bool grow(struct ix_wire_ctx *c)
{
	uint32_t n = c->nslots * 2, mask = n - 1, i, j;
	struct flow *s = calloc(n, sizeof(*s));

	if (!s)
		return false;
	for (i = 0; i < c->nslots; i++) {
		if (!c->slots[i].used)
			continue;
		for (j = c->slots[i].hash & mask; s[j].used; j = (j + 1) & mask)
			;
		s[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = s;
	c->nslots = n;
	return true;
}

/* Remove slot i, shifting later members of its probe run back so that
 * lookups never meet a hole. */
static void remove_slot(struct ix_wire_ctx *c, uint32_t i)
{
	uint32_t mask = c->nslots - 1, j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (!c->slots[j].used)
			break;
		k = c->slots[j].hash & mask;
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue; /* j is still reachable from its home slot */
		c->slots[i] = c->slots[j];
		i = j;
	}
	c->slots[i].used = 0;
	c->nflows--;
}

/* Make room in a full table: the stalest of the next few entries goes,
 * closed conversations first. */
static void evict_one(struct ix_wire_ctx *c)
{
	uint32_t mask = c->nslots - 1, i = c->cursor & mask, seen = 0, victim = UINT32_MAX;
	int64_t best = INT64_MAX;

	while (seen < EVICT_SCAN) {
		struct flow *f = &c->slots[i];

		if (f->used) {
			int64_t age = f->seen ? INT64_MIN + f->last_ts / 2 : f->last_ts;

			if (victim == UINT32_MAX || age < best) {
				best = age;
				victim = i;
			}
			seen++;
		}
		i = (i + 1) & mask;
	}
	c->cursor = i;
	remove_slot(c, victim);
	c->f.tcp_flows_evicted++;
}

/* The conversation of key k, created (and *created set) when new. */
static struct flow *flow_lookup(struct ix_wire_ctx *c, const struct flow_key *k, int64_t ts,
				bool *created)
{
	uint32_t h = key_hash(k), mask = c->nslots - 1, i;
	struct flow *f;

	*created = false;
	for (i = h & mask; c->slots[i].used; i = (i + 1) & mask) {
		f = &c->slots[i];
		if (f->hash == h && memcmp(&f->key, k, sizeof(*k)) == 0)
			return f;
	}
	*created = true;
	if (c->nflows + 1 > c->nslots / 2) {
		if (c->nslots < MAX_SLOTS && grow(c))
			return flow_lookup(c, k, ts, created);
		evict_one(c); /* at the bound, or out of memory to grow */
		mask = c->nslots - 1;
		for (i = h & mask; c->slots[i].used; i = (i + 1) & mask)
			;
	}
	f = &c->slots[i];
	f->key = *k;
	f->hash = h;
	f->used = 1;
	flow_init(f);
	f->last_ts = ts;
	c->nflows++;
	c->f.tcp_flows++;
	return f;
}

/* Wireshark's tcp_analyze_sequence_number() rules for one segment, in
 * the same order; returns the A_* flags. */
static unsigned analyze(struct flow *f, int dir, const struct ix_pkt *p, int64_t ts)
{
	struct half *fw = &f->h[dir], *rv = &f->h[!dir];
	uint32_t seq = p->seq, ack = p->ack, seglen = p->payload_len, win = p->window;
	uint8_t fl = p->tcp_flags;
	bool ctl = (fl & (IX_PKT_TH_SYN | IX_PKT_TH_FIN | IX_PKT_TH_RST)) != 0;
	bool synfin = (fl & (IX_PKT_TH_SYN | IX_PKT_TH_FIN)) != 0;
	uint32_t nextseq;
	unsigned a = 0;

	/* Zero window probe: one byte at the next sequence number into a
	 * closed window. It neither moves nextseq nor is a zero window. */
	if (seglen == 1 && seq == fw->nextseq && rv->window == 0) {
		a |= A_ZWP;
		goto acks_done;
	}
	if (win == 0 && !ctl)
		a |= A_ZW;
	if (fw->nextseq && GT_SEQ(seq, fw->nextseq) && !(fl & IX_PKT_TH_RST))
		a |= A_LOST;
	/* Keep-alive: 0 or 1 byte, one before the next sequence number. */
	if (seglen <= 1 && seq == fw->nextseq - 1 && !ctl)
		a |= A_KEEPALIVE;
	if (seglen == 0 && win && win != fw->window && seq == fw->nextseq && ack == fw->lastack &&
	    !ctl)
		a |= A_WIN_UPDATE;
	if (seglen == 0 && win && win == fw->window && seq == fw->nextseq && ack == fw->lastack &&
	    (rv->lastflags & A_KEEPALIVE) && !ctl) {
		a |= A_KEEPALIVE_AK;
		goto acks_done;
	}
	if (seglen == 0 && win == 0 && win == fw->window && seq == fw->nextseq &&
	    ack == fw->lastack && (rv->lastflags & A_ZWP) && !ctl) {
		a |= A_ZWP_ACK;
		goto acks_done;
	}
	/* Duplicate ACK: no data, same ACK and window, nothing new sent. */
	if (seglen == 0 && win && win == fw->window && seq == fw->nextseq && ack == fw->lastack &&
	    !ctl) {
		fw->dupacks = fw->dupacks == UNSEEN_ACKED ? 1 : fw->dupacks + 1;
		a |= A_DUPACK;
	}
acks_done:
	if (ack != fw->lastack)
		fw->dupacks = 0;

	/* An ACK beyond what was seen the other way: segments went missing
	 * from the capture. Flagged once per hole. */
	if (rv->maxseqtobeacked && GT_SEQ(ack, rv->maxseqtobeacked) && (fl & IX_PKT_TH_ACK)) {
		if (LT_SEQ(rv->maxseqtobeacked, rv->nextseq)) {
			rv->maxseqtobeacked = rv->nextseq;
			a |= A_ACK_LOST;
		} else {
			if (rv->dupacks == 0)
				a |= A_ACK_LOST;
			rv->dupacks = UNSEEN_ACKED;
		}
	}

	/* Data (or SYN/FIN) that does not advance the sequence number:
	 * spurious, fast retransmission, out-of-order or retransmission. */
	if ((seglen > 0 || synfin) && !(a & A_KEEPALIVE)) {
		bool behind = fw->nextseq && LT_SEQ(seq, fw->nextseq);
		uint64_t t, ooo_ns;

		/* New data right after a possible zero window probe byte. */
		if (seglen > 1 && fw->nextseq - 1 == seq)
			behind = false;
		if (seglen > 0 && rv->lastack && LE_SEQ(seq + seglen, rv->lastack)) {
			a |= A_SPURIOUS; /* all of it was acknowledged already */
			goto retrans_done;
		}
		t = (uint64_t)(ts - rv->lastack_ts);
		if (behind && rv->dupacks >= 2 && rv->lastack == seq && t < FAST_RETRANS_NS) {
			a |= A_FAST_RETRANS;
			goto retrans_done;
		}
		t = (uint64_t)(ts - fw->nextseq_ts);
		ooo_ns = f->first_rtt ? (uint64_t)f->first_rtt : OOO_DEFAULT_NS;
		if (behind && t < ooo_ns && fw->nextseq != seq + seglen + (synfin ? 1 : 0)) {
			a |= A_OOO;
			goto retrans_done;
		}
		if (behind)
			a |= A_RETRANS;
	}
retrans_done:
	/* Wireshark lists at most MAX_UNACKED segments a direction, and a
	 * SYN or FIN beyond that does not take its sequence number. */
	nextseq = seq + seglen;
	if ((seglen > 0 || synfin) && fw->unacked < MAX_UNACKED) {
		fw->unacked++;
		if (synfin)
			nextseq++;
	}
	if (seglen)
		fw->lastlen = seglen;
	if ((GT_SEQ(nextseq, fw->nextseq) || !fw->nextseq) && !(a & A_ZWP)) {
		fw->nextseq = nextseq;
		fw->nextseq_ts = ts;
	}
	if ((seq == fw->maxseqtobeacked || !fw->maxseqtobeacked) && !(a & A_ZWP))
		fw->maxseqtobeacked = fw->nextseq;
	fw->window = win;
	fw->lastack = ack;
	fw->lastack_ts = ts;
	fw->lastflags = (uint16_t)a;

	/* This ACK removes the other side's segments it covers: all of them
	 * at or past its nextseq, else about what is left in flight. */
	if (rv->unacked) {
		if (!LT_SEQ(ack, rv->nextseq)) {
			rv->unacked = 0;
		} else if (rv->lastlen) {
			uint32_t left = (rv->nextseq - ack + rv->lastlen - 1) / rv->lastlen;

			if (left < rv->unacked)
				rv->unacked = left;
		}
	}
	return a;
}

/* Per-conversation bookkeeping around the analysis, as Wireshark does it
 * in dissect_tcp(): port reuse, the ISNs, the handshake RTT. */
static void tcp_packet(struct ix_wire_ctx *c, const struct ix_pkt *p, int64_t ts)
{
	struct flow_key k;
	int dir = make_key(p, &k);
	bool first;
	struct flow *f = flow_lookup(c, &k, ts, &first);
	uint8_t fl = p->tcp_flags;
	struct half *fw;
	unsigned a;

	fw = &f->h[dir];
	if ((fl & (IX_PKT_TH_SYN | IX_PKT_TH_ACK)) == IX_PKT_TH_SYN && fw->base_set) {
		if (p->seq != fw->base_seq) {
			flow_init(f); /* a new connection on the same ports */
			first = false;
		} else {
			/* The same SYN again: a RST may have moved nextseq. */
			fw->nextseq = fw->maxseqtobeacked;
		}
	}
	/* A SYN-ACK with another ISN: the reply to a new connection. */
	if ((fl & (IX_PKT_TH_SYN | IX_PKT_TH_ACK)) == (IX_PKT_TH_SYN | IX_PKT_TH_ACK) &&
	    fw->base_set)
		fw->base_seq = p->seq;
	f->last_ts = ts;
	if (!fw->base_set) {
		fw->base_seq = (fl & IX_PKT_TH_SYN) ? p->seq : p->seq - 1;
		fw->base_set = true;
	}
	/* The peer's ISN, as far as this ACK tells. */
	if ((fl & IX_PKT_TH_ACK) && !f->h[!dir].base_set) {
		f->h[!dir].base_seq = p->ack - 1;
		f->h[!dir].base_set = true;
	}

	a = analyze(f, dir, p, ts);
	if (a & (A_RETRANS | A_FAST_RETRANS | A_SPURIOUS))
		c->f.tcp_retransmissions++;
	if (a & A_DUPACK)
		c->f.tcp_dup_acks++;
	if (a & A_OOO)
		c->f.tcp_out_of_order++;
	if (a & A_ZW)
		c->f.tcp_zero_window++;

	if (!first) {
		if ((fl & (IX_PKT_TH_FIN | IX_PKT_TH_ACK)) == (IX_PKT_TH_FIN | IX_PKT_TH_ACK))
			f->seen |= SEEN_FIN;
		if (fl & IX_PKT_TH_RST)
			f->seen |= SEEN_RST;
	}
	if ((fl & (IX_PKT_TH_SYN | IX_PKT_TH_ACK)) == IX_PKT_TH_SYN)
		f->mru_syn = ts;
	if ((fl & (IX_PKT_TH_SYN | IX_PKT_TH_ACK)) == IX_PKT_TH_ACK && f->mru_syn && !f->first_rtt)
		f->first_rtt = ts - f->mru_syn;
}

static void roce_packet(struct ix_wire_ctx *c, const struct ix_pkt *p)
{
	uint32_t i = (p->bth_dest_qp * 2654435761u) >> 25; /* 7 bits: QP_SLOTS */
	bool ce = p->ecn == IX_PKT_ECN_CE || p->outer_ecn == IX_PKT_ECN_CE;
	struct ix_wire_qp *q = NULL;

	c->f.roce_packets++;
	if (ce)
		c->f.roce_ecn_ce++;
	if (p->bth_opcode == IX_PKT_BTH_CNP)
		c->f.roce_cnp++;
	for (;; i = (i + 1) & (QP_SLOTS - 1)) {
		uint8_t x = c->qp_index[i];

		if (x == 0) {
			if (c->f.nqps >= IX_WIRE_MAX_QPS)
				break;
			q = &c->f.qps[c->f.nqps++];
			q->qp = p->bth_dest_qp;
			c->qp_index[i] = (uint8_t)c->f.nqps;
			break;
		}
		if (c->f.qps[x - 1].qp == p->bth_dest_qp) {
			q = &c->f.qps[x - 1];
			break;
		}
	}
	if (!q) {
		c->f.qps_other++;
		return;
	}
	q->packets++;
	if (ce)
		q->ecn_ce++;
}

int ix_wire_feed(struct ix_wire_ctx *c, int linktype, const uint8_t *data, size_t caplen,
		 size_t wirelen, int64_t ts_ns, struct ix_pkt *out)
{
	struct ix_pkt local, *p = out ? out : &local;
	int st = ix_pkt_decode(linktype, data, caplen, wirelen, p);
	uint64_t len = wirelen < caplen ? caplen : wirelen;

	c->f.packets++;
	if (st == IX_PKT_MALFORMED) {
		c->f.bytes += len;
		c->f.malformed++;
		return st;
	}
	if (p->mirror_len) /* an ERSPAN copy: the mirrored frame, as a direct capture has it */
		len = p->mirror_len;
	c->f.bytes += len;
	if ((p->family && p->ecn == IX_PKT_ECN_CE) || p->outer_ecn == IX_PKT_ECN_CE)
		c->f.ecn_ce++;
	if (p->overlay) {
		c->f.overlay_packets++;
		if (p->outer_ecn == IX_PKT_ECN_CE)
			c->f.overlay_ecn_ce++;
	}
	if (st == IX_PKT_OTHER) {
		c->f.other++;
		return st;
	}
	if (p->ib) {
		c->f.ib_packets++;
	} else if (p->proto == 6) {
		c->f.tcp_packets++;
		/* Fragments: the segment length is unknown, as for Wireshark. */
		if (!p->fragment)
			tcp_packet(c, p, ts_ns);
	} else {
		c->f.udp_packets++;
		if (p->roce)
			roce_packet(c, p);
	}
	if (p->bth)
		ix_rdma_feed(c->rdma, p, len, ts_ns);
	return st;
}

void ix_wire_get(const struct ix_wire_ctx *c, struct ix_wire_figures *out)
{
	const struct ix_wire_figures *f = &c->f;

	out->packets = f->packets;
	out->bytes = f->bytes;
	out->malformed = f->malformed;
	out->other = f->other;
	out->tcp_packets = f->tcp_packets;
	out->tcp_retransmissions = f->tcp_retransmissions;
	out->tcp_dup_acks = f->tcp_dup_acks;
	out->tcp_out_of_order = f->tcp_out_of_order;
	out->tcp_zero_window = f->tcp_zero_window;
	out->udp_packets = f->udp_packets;
	out->ecn_ce = f->ecn_ce;
	out->overlay_packets = f->overlay_packets;
	out->overlay_ecn_ce = f->overlay_ecn_ce;
	out->roce_packets = f->roce_packets;
	out->roce_ecn_ce = f->roce_ecn_ce;
	out->roce_cnp = f->roce_cnp;
	out->nqps = f->nqps;
	memcpy(out->qps, f->qps, sizeof(out->qps));
	out->qps_other = f->qps_other;
	out->ib_packets = f->ib_packets;
	ix_rdma_get(c->rdma, &out->rdma);
	out->tcp_flows = f->tcp_flows;
	out->tcp_flows_evicted = f->tcp_flows_evicted;
}
