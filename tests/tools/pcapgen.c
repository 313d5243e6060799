/*
 * pcapgen: writes crafted capture files for the wire analysis tests and
 * benchmarks. Each scenario is a fixed, deterministic packet sequence
 * (mixed-large uses a seeded generator), so tshark and ixperf can be
 * compared on the same bytes.
 *
 *   pcapgen [--wrap KIND [--outer6] [--session-cut]] SCENARIO OUT.pcap [N]
 *
 * --wrap sends every frame of an Ethernet scenario to a collector, as a
 * switch's mirror session or a GRE tunnel would (KIND: gre, gre-ip,
 * erspan1, erspan2, erspan3), in IPv4 or (--outer6) IPv6. The scenario's
 * snaplen then cuts the inner frame at the same byte: the collector's
 * capture is cut by it, or with --session-cut (ERSPAN) the mirror session
 * cuts its copies and says so in the T bit (type I cannot), and the
 * collector keeps them whole.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#define DLT_ETH   1
#define DLT_SLL   113
#define DLT_IPOIB 242
#define MSS       1448
#define MAXFRAME  9200
#define MAXWRAP   (14 + 40 + 16 + 20) /* Ethernet, IPv6, GRE, ERSPAN III's headers */
#define BASE_SEC  1700000000ull

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_PSH 0x08
#define TH_ACK 0x10

/* How the IP packets are carried. */
enum link {
	L_ETH,       /* Ethernet, VLAN tags as the packet says */
	L_SLL,       /* Linux cooked v1 */
	L_IPOIB,     /* IP over InfiniBand: a 40-byte pseudo header, then its own 4 */
	L_IPOIB_SLL, /* Linux cooked v1 of an IPoIB interface (tcpdump -i ib0) */
	L_VXLAN,     /* Ethernet, IPv4, UDP 4789, VXLAN, the frame */
	L_GENEVE,    /* Ethernet, IPv4, UDP 6081, Geneve with an option, the frame */
};

/* How the frames reach the capture. */
enum wrap {
	W_NONE,
	W_GRE,     /* GRE with key and sequence number, 0x6558: the frame */
	W_GRE_IP,  /* GRE with checksum and key, 0x0800 or 0x86dd: the IP packet */
	W_ERSPAN1, /* GRE 0x88be without a sequence number: the frame, no header */
	W_ERSPAN2, /* GRE 0x88be with a sequence number: the type II header, the frame */
	W_ERSPAN3, /* GRE 0x22eb: type III with its platform subheader, the frame */
};

struct gen {
	pcap_t *pd;
	pcap_dumper_t *dump;
	int dlt;
	enum link link;
	uint8_t outer_ecn; /* overlays: the outer IP header's ECN bits */
	bool ipoib_grh;    /* IPoIB: the pseudo header is a GRH, not a destination */
	uint64_t t_ns;     /* capture time, from BASE_SEC */
	uint64_t t0_us;    /* start of the current scenario */
	size_t snaplen;    /* records are cut to this (0: whole frames) */
	long last_rec;     /* size of the last record written, header included */
	uint64_t count;
	uint64_t limit; /* records to write at most (0: no limit) */
	enum wrap wrap;
	bool outer6;      /* the wrapping's outer header is IPv6 */
	bool session_cut; /* ERSPAN: the session cuts its copies to snaplen */
};

/* An IP packet to build: addresses, transport header fields, sizes. */
struct pkt {
	int family; /* 4 or 6 */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint8_t proto;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
	size_t paylen;
	uint8_t ecn;
	int vlans;          /* 802.1Q tags (the outer one 802.1ad when 2) */
	bool v6_dstopt;     /* an IPv6 destination options header before TCP */
	const uint8_t *bth; /* 12 bytes after UDP (RoCEv2) */
};

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint16_t csum(const uint8_t *p, size_t n, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Link header for the generator's link type; returns its length. */
static size_t put_link(const struct gen *g, uint8_t *b, int family, int vlans)
{
	static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 1 }, mac_b[6] = { 0x02, 0, 0, 0, 0, 2 };
	uint16_t et = family == 6 ? 0x86dd : 0x0800;
	size_t off;
	int i;

	if (g->link == L_IPOIB) {
		/* Wireshark's form of the link type: a GRH (source QPN and
		 * GIDs), or zeros then the destination's QPN and GID. */
		memset(b, 0, 40);
		if (g->ipoib_grh) {
			b[0] = 0x60;
			put32(b + 4, 0x00000049u);
			put16(b + 8, 0xfe80);
			b[23] = 1;
		}
		put32(b + 20, 0x00000048u);
		put16(b + 24, 0xfe80);
		b[39] = 2;
		put16(b + 40, et);
		put16(b + 42, 0);
		return 44;
	}
	if (g->link == L_VXLAN || g->link == L_GENEVE) {
		/* Outer headers, their lengths set once the frame is built
		 * (outer_lengths); then the inner Ethernet header. */
		size_t hl = g->link == L_VXLAN ? 8 : 12;

		memset(b, 0, 14 + 20 + 8 + hl);
		memcpy(b, mac_b, 6);
		memcpy(b + 6, mac_a, 6);
		put16(b + 12, 0x0800);
		b[14] = 0x45;
		b[15] = g->outer_ecn;
		b[22] = 64;
		b[23] = 17;
		put32(b + 26, 0xc0a80001u);
		put32(b + 30, 0xc0a80002u);
		put16(b + 34, 49152);
		put16(b + 36, g->link == L_VXLAN ? 4789 : 6081);
		if (g->link == L_VXLAN) {
			b[42] = 0x08; /* VNI valid */
		} else {
			b[42] = 1; /* version 0, one 4-byte word of options */
			put16(b + 44, 0x6558);
			put16(b + 50, 0x0102); /* the option: class, type, length 0 */
			b[52] = 0x03;
		}
		put32(b + 46, 7001u << 8); /* VNI 7001 */
		off = 14 + 20 + 8 + hl;
		memcpy(b + off, mac_b, 6);
		memcpy(b + off + 6, mac_a, 6);
		put16(b + off + 12, et);
		return off + 14;
	}
	if (g->dlt == DLT_SLL) {
		memset(b, 0, 16);
		put16(b, 0);                                   /* to us */
		put16(b + 2, g->link == L_IPOIB_SLL ? 32 : 1); /* ARPHRD_INFINIBAND, _ETHER */
		put16(b + 4, g->link == L_IPOIB_SLL ? 20 : 6); /* address length */
		memcpy(b + 6, mac_a, 6);
		put16(b + 14, et);
		return 16;
	}
	memcpy(b, mac_b, 6);
	memcpy(b + 6, mac_a, 6);
	off = 12;
	for (i = 0; i < vlans; i++) {
		put16(b + off, vlans == 2 && i == 0 ? 0x88a8 : 0x8100);
		put16(b + off + 2, (uint32_t)(100 + i * 10));
		off += 4;
	}
	put16(b + off, et);
	return off + 2;
}

/* An overlay's outer IPv4 and UDP lengths, for a frame of n bytes. */
static void outer_lengths(const struct gen *g, uint8_t *b, size_t n)
{
	if (g->link != L_VXLAN && g->link != L_GENEVE)
		return;
	put16(b + 16, (uint32_t)(n - 14));
	put16(b + 24, 0);
	put16(b + 24, csum(b + 14, 20, 0));
	put16(b + 38, (uint32_t)(n - 34));
}

/* Build the frame for p into b; returns its length. */
static size_t build(const struct gen *g, const struct pkt *p, uint8_t *b)
{
	size_t l2 = put_link(g, b, p->family, p->vlans), iph, ext = 0, l4, tot, i;
	uint8_t *ip = b + l2, *t;
	uint32_t sum;

	iph = p->family == 6 ? 40 : 20;
	if (p->family == 6 && p->v6_dstopt)
		ext = 8;
	l4 = p->proto == 6 ? 20 : 8;
	if (p->bth)
		l4 += 12;
	tot = iph + ext + l4 + p->paylen;
	t = ip + iph + ext;
	memset(ip, 0, iph + ext + l4);
	for (i = 0; i < p->paylen; i++)
		t[l4 + i] = (uint8_t)('a' + i % 26);
	if (p->family == 4) {
		ip[0] = 0x45;
		ip[1] = p->ecn;
		put16(ip + 2, (uint32_t)tot);
		put16(ip + 4, (uint32_t)(g->count & 0xffff));
		put16(ip + 6, 0x4000); /* DF */
		ip[8] = 64;
		ip[9] = p->proto;
		memcpy(ip + 12, p->src, 4);
		memcpy(ip + 16, p->dst, 4);
		put16(ip + 10, csum(ip, 20, 0));
	} else {
		put32(ip, 0x60000000u | (uint32_t)p->ecn << 20);
		put16(ip + 4, (uint32_t)(tot - 40));
		ip[6] = ext ? 60 : p->proto;
		ip[7] = 64;
		memcpy(ip + 8, p->src, 16);
		memcpy(ip + 24, p->dst, 16);
		if (ext) {
			ip[40] = p->proto;
			ip[41] = 0;
			ip[42] = 1; /* PadN filling the 6 bytes */
			ip[43] = 4;
		}
	}
	put16(t, p->sport);
	put16(t + 2, p->dport);
	if (p->proto == 6) {
		put32(t + 4, p->seq);
		put32(t + 8, p->ack);
		t[12] = 5 << 4;
		t[13] = p->flags;
		put16(t + 14, p->win);
	} else {
		put16(t + 4, (uint32_t)(l4 + p->paylen));
		if (p->bth)
			memcpy(t + 8, p->bth, 12);
	}
	/* Transport checksum over the pseudo-header. */
	if (p->family == 4) {
		sum = (uint32_t)(p->src[0] << 8 | p->src[1]) +
		      (uint32_t)(p->src[2] << 8 | p->src[3]) +
		      (uint32_t)(p->dst[0] << 8 | p->dst[1]) +
		      (uint32_t)(p->dst[2] << 8 | p->dst[3]);
	} else {
		sum = 0;
		for (i = 0; i < 16; i += 2)
			sum += (uint32_t)(p->src[i] << 8 | p->src[i + 1]) +
			       (uint32_t)(p->dst[i] << 8 | p->dst[i + 1]);
	}
	sum += p->proto + (uint32_t)(l4 + p->paylen);
	put16(t + (p->proto == 6 ? 16 : 6), csum(t, l4 + p->paylen, sum));
	outer_lengths(g, b, l2 + tot);
	return l2 + tot;
}

/* Where the IP packet of an Ethernet frame of len bytes starts (past its
 * VLAN tags), and its type; 0 when the frame is too short. */
static size_t ip_start(const uint8_t *b, size_t len, uint16_t *et)
{
	size_t off = 12;

	while (off + 2 <= len) {
		*et = (uint16_t)(b[off] << 8 | b[off + 1]);
		if (*et != 0x8100 && *et != 0x88a8)
			return off + 2;
		off += 4;
	}
	return 0;
}

/* The outer headers for frame b (of which cap bytes are captured, wire
 * bytes long) into o; *carried: the bytes of b the outer packet holds.
 * Returns the headers' length. */
static size_t wrap_headers(const struct gen *g, const uint8_t *b, size_t cap, size_t wire,
			   uint8_t *o, size_t *skip, size_t *carried)
{
	static const uint8_t mac_c[6] = { 0x02, 0, 0, 0, 0, 0xc },
			     mac_s[6] = { 0x02, 0, 0, 0, 0, 5 };
	bool erspan = g->wrap >= W_ERSPAN1, cut = g->session_cut && erspan && cap < wire;
	size_t ih = g->outer6 ? 40 : 20, gh = 4, n, i;
	uint16_t proto = 0x6558, et = 0;
	uint8_t *ip = o + 14, *gre = ip + ih, *e;

	*skip = 0;
	if (g->wrap == W_GRE_IP && (*skip = ip_start(b, cap, &et)) != 0)
		proto = et;
	*carried = (cut ? cap : wire) - *skip;
	gh += g->wrap <= W_GRE_IP ? 8 : g->wrap == W_ERSPAN1 ? 0 : 4; /* key, sequence, checksum */
	gh += g->wrap == W_ERSPAN2 ? 8 : g->wrap == W_ERSPAN3 ? 12 + 8 : 0;
	n = 14 + ih + gh;
	memset(o, 0, n);
	memcpy(o, mac_c, 6);
	memcpy(o + 6, mac_s, 6);
	put16(o + 12, g->outer6 ? 0x86dd : 0x0800);
	if (g->outer6) {
		static const uint8_t pre[8] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0xff, 0, 0 };

		put32(ip, 0x60000000u);
		put16(ip + 4, (uint32_t)(gh + *carried));
		ip[6] = 47;
		ip[7] = 64;
		memcpy(ip + 8, pre, 8);
		ip[23] = 1;
		memcpy(ip + 24, pre, 8);
		ip[39] = 2;
	} else {
		ip[0] = 0x45;
		put16(ip + 2, (uint32_t)(ih + gh + *carried));
		put16(ip + 4, (uint32_t)(g->count & 0xffff));
		put16(ip + 6, 0x4000);
		ip[8] = 64;
		ip[9] = 47;
		put32(ip + 12, 0xc0a8fe01u);
		put32(ip + 16, 0xc0a8fe02u);
		put16(ip + 10, csum(ip, 20, 0));
	}
	put16(gre + 2, g->wrap <= W_GRE_IP ? proto : g->wrap == W_ERSPAN3 ? 0x22eb : 0x88be);
	e = gre + 4;
	if (g->wrap == W_GRE_IP) {
		gre[0] = 0xa0; /* C, K; the checksum is set last */
		e += 4;
	} else if (g->wrap != W_ERSPAN1) {
		gre[0] = g->wrap == W_GRE ? 0x30 : 0x10; /* (K,) S */
	}
	if (gre[0] & 0x20) {
		put32(e, 7001); /* key */
		e += 4;
	}
	if (gre[0] & 0x10) {
		put32(e, (uint32_t)g->count); /* sequence number */
		e += 4;
	}
	if (g->wrap == W_ERSPAN2 || g->wrap == W_ERSPAN3) {
		put16(e, g->wrap == W_ERSPAN2 ? 0x1000 : 0x2000); /* version 1 or 2, VLAN 0 */
		put16(e + 2, (cut ? 0x0400u : 0) | 42);           /* T, session 42 */
		if (g->wrap == W_ERSPAN2) {
			put32(e + 4, 1); /* index */
		} else {
			put32(e + 4, (uint32_t)(g->t_ns / 100000u)); /* granularity 0: 100 us */
			e[11] = 0x01;                                /* O */
			e[12] = 0x0c;                                /* platform 3 */
			put16(e + 14, 1);                            /* its port ID */
		}
	}
	if (g->wrap == W_GRE_IP) {
		uint32_t sum = 0;

		/* Over the GRE packet; past what is captured the bytes of b
		 * are those the caller built. */
		for (i = 0; i + 1 < gh; i += 2)
			sum += (uint32_t)(gre[i] << 8 | gre[i + 1]);
		put16(gre + 4, csum(b + *skip, *carried, sum));
	}
	return n;
}

static void emit_raw(struct gen *g, const uint8_t *b, size_t len, size_t wirelen)
{
	uint8_t w[MAXWRAP + MAXFRAME];
	struct pcap_pkthdr h;
	size_t cap = g->snaplen && len > g->snaplen ? g->snaplen : len;

	if (g->limit && g->count >= g->limit)
		return;
	if (g->wrap) {
		size_t skip, carried, n = wrap_headers(g, b, cap, wirelen, w, &skip, &carried);

		cap -= skip;
		memcpy(w + n, b + skip, cap);
		b = w;
		wirelen = n + carried;
		cap = n + (cap < carried ? cap : carried);
	}
	h.ts.tv_sec = (time_t)(BASE_SEC + g->t_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(g->t_ns % 1000000000u / 1000u);
	h.len = (bpf_u_int32)wirelen;
	h.caplen = (bpf_u_int32)cap;
	pcap_dump((u_char *)g->dump, &h, b);
	g->last_rec = 16 + (long)h.caplen;
	g->count++;
}

/* Emit p at time t_us (microseconds since the scenario's start). */
static void emit(struct gen *g, uint64_t t_us, const struct pkt *p)
{
	uint8_t b[MAXFRAME];
	size_t n = build(g, p, b);

	g->t_ns = (g->t0_us + t_us) * 1000u;
	emit_raw(g, b, n, n);
}

static void addr4(uint8_t *a, uint8_t x, uint8_t y, uint8_t z, uint8_t w)
{
	memset(a, 0, 16);
	a[0] = x;
	a[1] = y;
	a[2] = z;
	a[3] = w;
}

static void addr6(uint8_t *a, uint16_t last)
{
	static const uint8_t pre[8] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0 };

	memset(a, 0, 16);
	memcpy(a, pre, 8);
	put16(a + 14, last);
}

/* A TCP conversation: the client's and server's view of sequence space. */
struct conn {
	struct pkt c2s, s2c;
	uint32_t cseq, sseq; /* next sequence number of each side */
	uint16_t cwin, swin;
};

static void conn_init(struct conn *k, int family, uint16_t cport, uint32_t ciss, uint32_t siss,
		      int vlans)
{
	memset(k, 0, sizeof(*k));
	k->c2s.family = k->s2c.family = family;
	if (family == 4) {
		addr4(k->c2s.src, 10, 0, 0, 1);
		addr4(k->c2s.dst, 10, 0, 0, 2);
	} else {
		addr6(k->c2s.src, 1);
		addr6(k->c2s.dst, 2);
	}
	memcpy(k->s2c.src, k->c2s.dst, 16);
	memcpy(k->s2c.dst, k->c2s.src, 16);
	k->c2s.sport = k->s2c.dport = cport;
	k->c2s.dport = k->s2c.sport = 5201;
	k->c2s.proto = k->s2c.proto = 6;
	k->c2s.vlans = k->s2c.vlans = vlans;
	k->cseq = ciss;
	k->sseq = siss;
	k->cwin = 502;
	k->swin = 509;
}

/* Client to server: len bytes at the client's sequence number seq
 * (0: the next one), advancing the client's next sequence number. */
static void c_send(struct gen *g, struct conn *k, uint64_t t, uint8_t flags, uint32_t seq,
		   size_t len)
{
	k->c2s.seq = seq ? seq : k->cseq;
	k->c2s.ack = (flags & TH_ACK) ? k->sseq : 0;
	k->c2s.flags = flags;
	k->c2s.win = (flags & TH_SYN) ? 64240 : k->cwin;
	k->c2s.paylen = len;
	emit(g, t, &k->c2s);
	if (!seq || seq == k->cseq)
		k->cseq = k->c2s.seq + (uint32_t)len + ((flags & (TH_SYN | TH_FIN)) ? 1 : 0);
}

/* Server to client acknowledging ack (0: everything the client sent). */
static void s_send(struct gen *g, struct conn *k, uint64_t t, uint8_t flags, uint32_t ack,
		   size_t len)
{
	k->s2c.seq = k->sseq;
	k->s2c.ack = ack ? ack : k->cseq;
	k->s2c.flags = flags;
	k->s2c.win = (flags & TH_SYN) ? 65160 : k->swin;
	k->s2c.paylen = len;
	emit(g, t, &k->s2c);
	k->sseq += (uint32_t)len + ((flags & (TH_SYN | TH_FIN)) ? 1 : 0);
}

/* Three-way handshake and close, gap microseconds between packets. */
static void handshake(struct gen *g, struct conn *k, uint64_t t, uint64_t gap)
{
	c_send(g, k, t, TH_SYN, 0, 0);
	s_send(g, k, t + gap, TH_SYN | TH_ACK, 0, 0);
	c_send(g, k, t + 2 * gap, TH_ACK, 0, 0);
}

static void close_conn(struct gen *g, struct conn *k, uint64_t t, uint64_t gap)
{
	c_send(g, k, t, TH_FIN | TH_ACK, 0, 0);
	s_send(g, k, t + gap, TH_FIN | TH_ACK, 0, 0);
	c_send(g, k, t + 2 * gap, TH_ACK, 0, 0);
}

/* A clean exchange: requests and responses, every segment acknowledged. */
static void scen_tcp_clean(struct gen *g, int family, int vlans)
{
	struct conn k;
	uint64_t t = 0;
	int i;

	conn_init(&k, family, 40000, 1000, 50000, vlans);
	k.c2s.v6_dstopt = family == 6;
	handshake(g, &k, t, 1000);
	t = 10000;
	for (i = 0; i < 20; i++, t += 5000) {
		c_send(g, &k, t, TH_PSH | TH_ACK, 0, MSS);
		c_send(g, &k, t + 10, TH_PSH | TH_ACK, 0, 200);
		s_send(g, &k, t + 1000, TH_PSH | TH_ACK, 0, 100);
		c_send(g, &k, t + 2000, TH_ACK, 0, 0);
	}
	close_conn(g, &k, t, 1000);
}

/* Every anomaly the analysis counts, once or a few times each. */
static void scen_tcp_retrans(struct gen *g, int family, int vlans)
{
	struct conn k;
	uint64_t t = 0;
	uint32_t lost, s11;
	int i;

	conn_init(&k, family, 40001, 0x10000000u, 0x20000000u, vlans);
	handshake(g, &k, t, 1000);

	/* Data, acknowledged every two segments. */
	t = 10000;
	for (i = 0; i < 4; i++)
		c_send(g, &k, t + (uint64_t)i * 100, TH_ACK, 0, MSS);
	s_send(g, &k, t + 1000, TH_ACK, 0, 0);

	/* Timeout retransmission: a segment lost past the capture point,
	 * sent again 200 ms later and then acknowledged. */
	t = 20000;
	lost = k.cseq;
	c_send(g, &k, t, TH_PSH | TH_ACK, 0, MSS);
	c_send(g, &k, 220000, TH_PSH | TH_ACK, lost, MSS);
	s_send(g, &k, 221000, TH_ACK, 0, 0);

	/* Fast retransmission: the first of four segments is lost, the
	 * three others each draw a duplicate ACK, the sender resends at once. */
	t = 300000;
	lost = k.cseq;
	for (i = 0; i < 4; i++)
		c_send(g, &k, t + (uint64_t)i * 100, TH_ACK, 0, MSS);
	for (i = 0; i < 3; i++)
		s_send(g, &k, t + 600 + (uint64_t)i * 100, TH_ACK, lost, 0);
	c_send(g, &k, t + 1000, TH_ACK, lost, MSS);
	s_send(g, &k, t + 1500, TH_ACK, 0, 0);

	/* Out of order: the later segment is seen 1 ms before the earlier. */
	t = 400000;
	s11 = k.cseq;
	k.c2s.seq = s11 + MSS;
	k.cseq = s11 + MSS;
	c_send(g, &k, t, TH_ACK, 0, MSS);
	c_send(g, &k, t + 1000, TH_ACK, s11, MSS);
	s_send(g, &k, t + 1500, TH_ACK, 0, 0);

	/* Zero window: the receiver closes its window, the sender probes
	 * with one byte, the receiver repeats it, then reopens. */
	t = 500000;
	c_send(g, &k, t, TH_PSH | TH_ACK, 0, MSS);
	k.swin = 0;
	s_send(g, &k, t + 1000, TH_ACK, 0, 0);
	c_send(g, &k, t + 200000, TH_ACK, 0, 1); /* zero window probe */
	k.cseq--;                                /* the probe byte is not taken */
	s_send(g, &k, t + 201000, TH_ACK, 0, 0); /* probe ACK, still zero */
	k.swin = 509;
	s_send(g, &k, t + 400000, TH_ACK, 0, 0); /* window update */
	c_send(g, &k, t + 401000, TH_PSH | TH_ACK, 0, MSS);
	s_send(g, &k, t + 402000, TH_ACK, 0, 0);

	/* Keep-alive after an idle minute and its ACK: neither counts. */
	t = 60000000;
	c_send(g, &k, t, TH_ACK, k.cseq - 1, 0);
	s_send(g, &k, t + 1000, TH_ACK, 0, 0);

	/* A window update from the client: not a duplicate ACK. */
	k.cwin = 1000;
	c_send(g, &k, t + 2000, TH_ACK, 0, 0);

	close_conn(g, &k, t + 10000, 1000);
}

static void roce_bth(uint8_t *b, uint8_t opcode, uint32_t qp, uint32_t psn, bool becn)
{
	memset(b, 0, 12);
	b[0] = opcode;
	b[1] = 0x40; /* M, TVer 0 */
	put16(b + 2, 0xffff);
	b[4] = becn ? 0x40 : 0;
	b[5] = (uint8_t)(qp >> 16);
	b[6] = (uint8_t)(qp >> 8);
	b[7] = (uint8_t)qp;
	b[8] = 0x80; /* AckReq */
	b[9] = (uint8_t)(psn >> 16);
	b[10] = (uint8_t)(psn >> 8);
	b[11] = (uint8_t)psn;
}

/* RoCEv2 traffic on 4 QPs: SEND-only packets (ECT(0), every 7th
 * CE-marked by the fabric) and CNPs back from the receiver. */
static void scen_roce(struct gen *g)
{
	static const uint32_t qps[4] = { 0x000011, 0x000022, 0x012345, 0xfffffe };
	uint8_t bth[12];
	struct pkt p, cnp;
	uint32_t psn[4] = { 0, 100, 200, 300 };
	int i;

	memset(&p, 0, sizeof(p));
	p.family = 4;
	addr4(p.src, 192, 168, 1, 1);
	addr4(p.dst, 192, 168, 1, 2);
	p.proto = 17;
	p.dport = 4791;
	p.paylen = 1024 + 4; /* payload and ICRC */
	p.bth = bth;
	cnp = p;
	memcpy(cnp.src, p.dst, 16);
	memcpy(cnp.dst, p.src, 16);
	cnp.paylen = 16 + 4; /* CNP: 16 reserved bytes and ICRC */
	cnp.ecn = 2;
	for (i = 0; i < 200; i++) {
		int q = i % 4;

		p.sport = (uint16_t)(49152 + q);
		p.ecn = i % 7 == 6 ? 3 : 2;
		roce_bth(bth, 0x04, qps[q], psn[q]++, false); /* RC SEND only */
		emit(g, (uint64_t)i * 10, &p);
		if (p.ecn == 3) {
			cnp.sport = p.sport;
			roce_bth(bth, 0x81, qps[(q + 1) % 4], 0, true);
			emit(g, (uint64_t)i * 10 + 5, &cnp);
		}
	}
}

/* Frames that must be counted as malformed, between valid ones. */
static void scen_malformed(struct gen *g)
{
	uint8_t b[MAXFRAME], bth[12];
	struct conn k;
	struct pkt u;
	size_t n, l2 = 14;

	conn_init(&k, 4, 40002, 1, 1, 0);
	handshake(g, &k, 0, 1000);

	/* Truncated IPv4 header: 10 bytes of it. */
	k.c2s.seq = k.cseq;
	k.c2s.flags = TH_ACK;
	k.c2s.paylen = 100;
	n = build(g, &k.c2s, b);
	emit_raw(g, b, l2 + 10, l2 + 10);
	/* Bad IHL (3 words). */
	n = build(g, &k.c2s, b);
	b[l2] = 0x43;
	emit_raw(g, b, n, n);
	/* TCP data offset of 60 bytes in a 40-byte segment. */
	k.c2s.paylen = 20;
	n = build(g, &k.c2s, b);
	b[l2 + 20 + 12] = 0xf0;
	emit_raw(g, b, n, n);
	/* IP total length smaller than its header. */
	n = build(g, &k.c2s, b);
	b[l2 + 2] = 0;
	b[l2 + 3] = 12;
	emit_raw(g, b, n, n);
	/* A 3-byte frame. */
	emit_raw(g, b, 3, 3);
	/* RoCEv2 with a 6-byte BTH. */
	memset(&u, 0, sizeof(u));
	u.family = 4;
	addr4(u.src, 192, 168, 1, 1);
	addr4(u.dst, 192, 168, 1, 2);
	u.proto = 17;
	u.sport = 49152;
	u.dport = 4791;
	u.paylen = 6;
	n = build(g, &u, b);
	emit_raw(g, b, n, n);
	/* A valid RoCE packet cut by the snaplen inside its BTH. */
	u.bth = bth;
	u.paylen = 100;
	roce_bth(bth, 0x04, 7, 1, false);
	n = build(g, &u, b);
	emit_raw(g, b, l2 + 20 + 8 + 6, n);
	/* And the connection goes on. */
	k.c2s.paylen = 0;
	c_send(g, &k, 5000, TH_PSH | TH_ACK, 0, 100);
	s_send(g, &k, 6000, TH_ACK, 0, 0);
	close_conn(g, &k, 7000, 1000);
}

/* Deterministic pseudo-random numbers (xorshift64*). */
static uint64_t rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* One bulk flow of mixed-large. */
struct bulk {
	struct conn k;
	uint32_t lost;  /* sequence number of a segment lost downstream; 0: none */
	int since_ack;  /* segments since the last ACK */
	int dups;       /* duplicate ACKs sent for the hole */
	uint64_t sent;  /* segments in this connection */
	uint64_t limit; /* close and reopen after this many */
	uint16_t port;
	bool open;
};

static void bulk_open(struct gen *g, struct bulk *f, uint64_t *rs, uint64_t t, int family)
{
	f->port = (uint16_t)(f->port + 1 < 1024 ? 1024 : f->port + 1);
	conn_init(&f->k, family, f->port, (uint32_t)rng(rs), (uint32_t)rng(rs), 0);
	f->k.c2s.src[3] = f->k.s2c.dst[3] = (uint8_t)(f->port & 0xff);
	f->lost = 0;
	f->since_ack = 0;
	f->dups = 0;
	f->sent = 0;
	f->limit = 2000 + rng(rs) % 20000;
	f->open = true;
	handshake(g, &f->k, t, 1);
}

/* N packets of bulk TCP flows (a quarter over IPv6), captured with a
 * 96-byte snaplen like tcpdump -s 96: about one segment in 1000 is lost
 * and fast-retransmitted after three duplicate ACKs, as many arrive out
 * of order. Time advances about 1 us a packet (10 Gb/s of full frames). */
static void scen_mixed_large(struct gen *g, uint64_t n)
{
	enum { NFLOWS = 64 };
	struct bulk *fl = calloc(NFLOWS, sizeof(*fl));
	uint64_t rs = 0x1234567887654321ull, t = 0;
	int i;

	if (!fl)
		exit(1);
	g->snaplen = 96;
	g->limit = n;
	for (i = 0; i < NFLOWS; i++)
		fl[i].port = (uint16_t)(20000 + i * 500);
	while (g->count < n) {
		struct bulk *f = &fl[rng(&rs) % NFLOWS];
		uint64_t r = rng(&rs);

		t += 1 + (r >> 60 == 0 ? 5 : 0);
		if (!f->open) {
			bulk_open(g, f, &rs, t, (r & 3) == 0 ? 6 : 4);
			t += 2;
		} else if (f->sent >= f->limit && !f->lost) {
			close_conn(g, &f->k, t, 1);
			f->open = false;
			t += 2;
		} else if (f->lost && f->dups >= 3) { /* fast retransmission, then all acked */
			c_send(g, &f->k, t, TH_ACK, f->lost, MSS);
			s_send(g, &f->k, t + 1, TH_ACK, 0, 0);
			f->lost = 0;
			f->dups = 0;
			f->since_ack = 0;
			t += 1;
		} else if ((r >> 8) % 1000 == 1 && !f->lost) {
			uint32_t s = f->k.cseq; /* two segments swapped */

			f->k.cseq = s + MSS;
			c_send(g, &f->k, t, TH_ACK, 0, MSS);
			c_send(g, &f->k, t + 1, TH_ACK, s, MSS);
			f->sent += 2;
			s_send(g, &f->k, t + 2, TH_ACK, 0, 0);
			f->since_ack = 0;
			t += 2;
		} else {
			if ((r >> 8) % 1000 == 0 && !f->lost)
				f->lost = f->k.cseq; /* this one will not arrive */
			c_send(g, &f->k, t, TH_ACK, 0, MSS);
			f->sent++;
			if (f->lost) {
				s_send(g, &f->k, t + 1, TH_ACK, f->lost, 0);
				f->dups++;
				t += 1;
			} else if (++f->since_ack == 2) {
				s_send(g, &f->k, t + 1, TH_ACK, 0, 0);
				f->since_ack = 0;
				t += 1;
			}
		}
	}
	free(fl);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: pcapgen [--wrap KIND [--outer6] [--session-cut]] SCENARIO OUT.pcap [N]\n"
		"scenarios: tcp-clean tcp-retrans roce vlan-v6 malformed sll\n"
		"           mixed-large N truncated-file ipoib ipoib-sll vxlan geneve\n"
		"wrap KIND: gre gre-ip erspan1 erspan2 erspan3 (Ethernet scenarios)\n");
	return 2;
}

/* --wrap and its options; returns the index of SCENARIO, or -1. */
static int wrap_options(struct gen *g, int argc, char **argv)
{
	static const char *const kinds[] = { "gre", "gre-ip", "erspan1", "erspan2", "erspan3" };
	int i;

	for (i = 1; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--outer6") == 0) {
			g->outer6 = true;
		} else if (strcmp(argv[i], "--session-cut") == 0) {
			g->session_cut = true;
		} else if (strcmp(argv[i], "--wrap") == 0 && i + 1 < argc) {
			enum wrap w = W_NONE;
			size_t k;

			for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
				if (strcmp(argv[i + 1], kinds[k]) == 0)
					w = (enum wrap)(W_GRE + k);
			if (!w)
				return -1;
			g->wrap = w;
			i++;
		} else {
			return -1;
		}
	}
	if ((g->outer6 && !g->wrap) || (g->session_cut && g->wrap < W_ERSPAN1))
		return -1;
	return i;
}

int main(int argc, char **argv)
{
	struct gen g;
	const char *sc;
	uint64_t n = 100000;
	bool chop = false;
	int a;

	memset(&g, 0, sizeof(g));
	a = wrap_options(&g, argc, argv);
	if (a < 0 || argc - a < 2)
		return usage();
	argc -= a - 1;
	argv += a - 1;
	sc = argv[1];
	if (argc > 3) {
		char *end;

		errno = 0;
		n = strtoull(argv[3], &end, 10);
		if (errno || *end || n == 0)
			return usage();
	}
	g.dlt = strcmp(sc, "sll") == 0 || strcmp(sc, "ipoib-sll") == 0 ? DLT_SLL : DLT_ETH;
	g.link = strcmp(sc, "sll") == 0 ? L_SLL : L_ETH;
	if (strcmp(sc, "ipoib") == 0) {
		g.dlt = DLT_IPOIB;
		g.link = L_IPOIB;
	} else if (strcmp(sc, "ipoib-sll") == 0) {
		g.link = L_IPOIB_SLL;
	} else if (strcmp(sc, "vxlan") == 0 || strcmp(sc, "geneve") == 0) {
		g.link = sc[0] == 'v' ? L_VXLAN : L_GENEVE;
	}
	if (g.wrap && (g.dlt != DLT_ETH || g.link != L_ETH))
		return usage(); /* the wrapping carries Ethernet frames */
	g.pd = pcap_open_dead(g.dlt, 262144);
	if (!g.pd)
		return 1;
	g.dump = pcap_dump_open(g.pd, argv[2]);
	if (!g.dump) {
		fprintf(stderr, "pcapgen: %s\n", pcap_geterr(g.pd));
		return 1;
	}
	if (strcmp(sc, "tcp-clean") == 0) {
		scen_tcp_clean(&g, 4, 0);
	} else if (strcmp(sc, "tcp-retrans") == 0) {
		scen_tcp_retrans(&g, 4, 0);
	} else if (strcmp(sc, "roce") == 0) {
		scen_roce(&g);
	} else if (strcmp(sc, "vlan-v6") == 0) {
		scen_tcp_clean(&g, 6, 2);
		g.t0_us = 100000000;
		scen_tcp_retrans(&g, 6, 1);
	} else if (strcmp(sc, "malformed") == 0) {
		scen_malformed(&g);
	} else if (strcmp(sc, "sll") == 0) {
		scen_tcp_retrans(&g, 4, 0);
		g.t0_us = 100000000;
		scen_tcp_clean(&g, 6, 0);
	} else if (strcmp(sc, "mixed-large") == 0) {
		scen_mixed_large(&g, n);
	} else if (g.link >= L_IPOIB) {
		/* The anomalies through the link or the overlay; an overlay's
		 * second conversation has its outer header marked CE. */
		scen_tcp_retrans(&g, 4, 0);
		g.t0_us = 100000000;
		g.outer_ecn = g.link >= L_VXLAN ? 3 : 0;
		g.ipoib_grh = true;
		scen_tcp_clean(&g, 6, 0);
	} else if (strcmp(sc, "truncated-file") == 0) {
		scen_tcp_clean(&g, 4, 0);
		chop = true;
	} else {
		pcap_dump_close(g.dump);
		pcap_close(g.pd);
		unlink(argv[2]);
		return usage();
	}
	pcap_dump_close(g.dump);
	pcap_close(g.pd);
	if (chop) {
		FILE *fp = fopen(argv[2], "rb");
		long size;

		if (!fp || fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0) {
			perror(argv[2]);
			return 1;
		}
		fclose(fp);
		if (truncate(argv[2], size - g.last_rec / 2) != 0) {
			perror(argv[2]);
			return 1;
		}
	}
	return 0;
}
