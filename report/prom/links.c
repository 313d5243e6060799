/* The live monitor's links as Prometheus metrics: one family at a time,
 * one sample per link in it (the format wants a family's samples
 * together). A figure not read is left out, never written as 0. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/prom/prom.h"

#define NPRIO 9 /* priorities 0-7, and "link": a counter that names none */

/* A link's labels and room for one more. */
struct labels {
	struct ix_prom_label v[IX_PROM_LABELS_MAX];
	size_t n;
	char port[16];
};

size_t ix_prom_link_labels(const struct ix_link *l, struct ix_prom_label *v, char *port,
			   size_t plen)
{
	if (l->kind == IX_LINK_NET) {
		v[0] = (struct ix_prom_label){ "interface", l->name };
		return 1;
	}
	snprintf(port, plen, "%u", l->port);
	v[0] = (struct ix_prom_label){ "device", l->dev };
	v[1] = (struct ix_prom_label){ "port", port };
	return 2;
}

static void link_labels(const struct ix_link *l, struct labels *out)
{
	out->n = ix_prom_link_labels(l, out->v, out->port, sizeof(out->port));
}

static const struct counter {
	const char *name, *help;
	uint32_t bit;
	size_t off;
} counters[] = {
	{ "ixperf_receive_bytes_total", "Bytes received (InfiniBand: port_rcv_data x 4).",
	  IX_LINK_RX_BYTES, offsetof(struct ix_link, rx_bytes) },
	{ "ixperf_transmit_bytes_total", "Bytes sent (InfiniBand: port_xmit_data x 4).",
	  IX_LINK_TX_BYTES, offsetof(struct ix_link, tx_bytes) },
	{ "ixperf_receive_packets_total", "Packets received.", IX_LINK_RX_PACKETS,
	  offsetof(struct ix_link, rx_packets) },
	{ "ixperf_transmit_packets_total", "Packets sent.", IX_LINK_TX_PACKETS,
	  offsetof(struct ix_link, tx_packets) },
	{ "ixperf_receive_errors_total", "Receive errors (InfiniBand: port_rcv_errors).",
	  IX_LINK_RX_ERRORS, offsetof(struct ix_link, rx_errors) },
	{ "ixperf_transmit_errors_total", "Transmit errors.", IX_LINK_TX_ERRORS,
	  offsetof(struct ix_link, tx_errors) },
	{ "ixperf_receive_drops_total", "Packets dropped on receive.", IX_LINK_RX_DROPPED,
	  offsetof(struct ix_link, rx_dropped) },
	{ "ixperf_transmit_drops_total",
	  "Packets dropped on transmit (InfiniBand: port_xmit_discards).", IX_LINK_TX_DROPPED,
	  offsetof(struct ix_link, tx_dropped) },
	{ "ixperf_symbol_errors_total", "InfiniBand symbol errors.", IX_LINK_SYMBOL_ERRORS,
	  offsetof(struct ix_link, symbol_errors) },
	{ "ixperf_link_downed_total", "InfiniBand link downs.", IX_LINK_LINK_DOWNED,
	  offsetof(struct ix_link, link_downed) },
};

static void write_counters(FILE *f, const struct ix_top_model *m)
{
	struct labels lb;

	for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
		const struct counter *k = &counters[c];
		bool head = false;

		for (size_t i = 0; i < m->cur.n; i++) {
			const struct ix_link *l = &m->cur.v[i];

			if (!(l->known & k->bit))
				continue;
			if (!head)
				ix_prom_family(f, k->name, IX_PROM_COUNTER, k->help);
			head = true;
			link_labels(l, &lb);
			ix_prom_sample_u64(f, k->name, lb.v, lb.n,
					   *(const uint64_t *)((const char *)l + k->off));
		}
	}
}

/* The gauges of link i: false when not known. */
enum gauge { G_UP, G_SPEED, G_MTU, G_RX, G_TX, G_UTIL, G_N };

static bool gauge_of(const struct ix_top_model *m, size_t i, enum gauge g, double *v)
{
	const struct ix_link *l = &m->cur.v[i];
	const struct ix_link_rate *r = m->rates ? &m->rates[i] : NULL;

	switch (g) {
	case G_UP: /* "unknown" (loopback, some virtual devices) says nothing */
		*v = !strcmp(l->state, "up") || !strcmp(l->state, "ACTIVE");
		return l->state[0] != '\0' && strcmp(l->state, "unknown") != 0;
	case G_SPEED:
		*v = l->speed_bps / 8;
		return l->speed_known;
	case G_MTU:
		*v = l->mtu;
		return l->mtu_known;
	case G_RX:
		*v = r ? r->rx_bps / 8 : 0;
		return r && (r->known & IX_LINK_RX_BYTES);
	case G_TX:
		*v = r ? r->tx_bps / 8 : 0;
		return r && (r->known & IX_LINK_TX_BYTES);
	case G_UTIL:
		*v = r ? r->util : 0;
		return r && r->util_known;
	default:
		return false;
	}
}

static const struct {
	const char *name, *help;
} gauges[G_N] = {
	[G_UP] = { "ixperf_link_up",
		   "1 when the link is up (operstate up, InfiniBand port ACTIVE), else 0; absent "
		   "when the state is unknown." },
	[G_SPEED] = { "ixperf_link_speed_bytes_per_second",
		      "Link speed as the driver reports it, in bytes per second (bit/s / 8); "
		      "absent when down or unknown." },
	[G_MTU] = { "ixperf_link_mtu_bytes", "MTU of the network device." },
	[G_RX] = { "ixperf_receive_bytes_per_second",
		   "Bytes received per second over the last sampling interval." },
	[G_TX] = { "ixperf_transmit_bytes_per_second",
		   "Bytes sent per second over the last sampling interval." },
	[G_UTIL] = { "ixperf_link_utilization_ratio",
		     "The busier direction's rate over the link speed, last interval (0-1)." },
};

static void write_gauges(FILE *f, const struct ix_top_model *m)
{
	struct labels lb;
	double v;

	for (int g = 0; g < G_N; g++) {
		bool head = false;

		for (size_t i = 0; i < m->cur.n; i++) {
			if (!gauge_of(m, i, (enum gauge)g, &v))
				continue;
			if (!head)
				ix_prom_family(f, gauges[g].name, IX_PROM_GAUGE, gauges[g].help);
			head = true;
			link_labels(&m->cur.v[i], &lb);
			ix_prom_sample(f, gauges[g].name, lb.v, lb.n, v);
		}
	}
}

/* A link's fabric counters summed by class: within each source, then the
 * largest source (two sources often count the same events). Pause frames
 * also by priority. present: the classes some counter was read in, zero
 * or not. */
struct fab {
	uint32_t present;
	uint64_t v[IX_CC_N];
	uint16_t prio_present[2]; /* [0] received, [1] sent; 1 << priority */
	uint64_t prio[2][NPRIO];
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void fab_sum(const struct ix_ctr_set *s, struct fab *out)
{
	uint64_t per[IX_SRC_N][IX_CC_N] = { { 0 } }, prio[IX_SRC_N][2][NPRIO] = { { { 0 } } };

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; s && s->valid && i < s->n; i++) {
		const struct ix_ctr *c = &s->v[i];
		int p, dir = c->cls == IX_CC_PAUSE_TX;

		if (c->source >= IX_SRC_N || c->cls == IX_CC_NONE || c->cls >= IX_CC_N)
			continue;
		out->present |= 1u << c->cls;
		per[c->source][c->cls] = add_sat(per[c->source][c->cls], c->value);
		if (c->cls != IX_CC_PAUSE_RX && c->cls != IX_CC_PAUSE_TX)
			continue;
		p = ix_prom_priority(c->name);
		p = p < 0 ? NPRIO - 1 : p;
		out->prio_present[dir] |= (uint16_t)(1u << p);
		prio[c->source][dir][p] = add_sat(prio[c->source][dir][p], c->value);
	}
	for (int src = 0; src < IX_SRC_N; src++) {
		for (int k = 1; k < IX_CC_N; k++)
			if (per[src][k] > out->v[k])
				out->v[k] = per[src][k];
		for (int d = 0; d < 2; d++)
			for (int p = 0; p < NPRIO; p++)
				if (prio[src][d][p] > out->prio[d][p])
					out->prio[d][p] = prio[src][d][p];
	}
}

static const struct {
	const char *name, *help;
	enum ix_ctr_class cls;
} classed[] = {
	{ "ixperf_ecn_marked_packets_total", "Packets received with an ECN congestion mark.",
	  IX_CC_ECN },
	{ "ixperf_cnp_sent_total",
	  "Congestion notification packets sent (congestion seen at this port).", IX_CC_CNP_SENT },
	{ "ixperf_cnp_handled_total",
	  "Congestion notification packets received and handled (the peer saw congestion).",
	  IX_CC_CNP_HANDLED },
	{ "ixperf_retransmissions_total",
	  "Transport retransmissions and ACK timeouts (RDMA hw_counters).", IX_CC_RETRANS },
};

/* Classes under ixperf_fabric_events_total{class}. */
static const enum ix_ctr_class events[] = { IX_CC_DISCARD,   IX_CC_SEQ_ERR, IX_CC_RNR,
					    IX_CC_XMIT_WAIT, IX_CC_ERROR,   IX_CC_LINK };

static void write_pause(FILE *f, const struct ix_top_model *m, const struct fab *fb)
{
	static const char *const name[2] = { "ixperf_pause_frames_received_total",
					     "ixperf_pause_frames_sent_total" };
	static const char *const prio[NPRIO] = { "0", "1", "2", "3", "4", "5", "6", "7", "link" };
	struct labels lb;

	for (int d = 0; d < 2; d++) {
		bool head = false;

		for (size_t i = 0; i < m->cur.n; i++) {
			for (int p = 0; p < NPRIO; p++) {
				if (!(fb[i].prio_present[d] & (1u << p)))
					continue;
				if (!head)
					ix_prom_family(
						f, name[d], IX_PROM_COUNTER,
						d ? "Pause frames sent, by priority (PFC); "
						    "priority=\"link\": counters naming no "
						    "priority (802.3x pause, and on some drivers "
						    "every pause frame)."
						  : "Pause frames received, by priority (PFC); "
						    "priority=\"link\": counters naming no "
						    "priority (802.3x pause, and on some drivers "
						    "every pause frame).");
				head = true;
				link_labels(&m->cur.v[i], &lb);
				lb.v[lb.n] = (struct ix_prom_label){ "priority", prio[p] };
				ix_prom_sample_u64(f, name[d], lb.v, lb.n + 1, fb[i].prio[d][p]);
			}
		}
	}
}

static void write_fabric(FILE *f, const struct ix_top_model *m)
{
	struct fab *fb = m->cur.n ? calloc(m->cur.n, sizeof(*fb)) : NULL;
	struct labels lb;
	bool head = false;

	if (!fb)
		return;
	for (size_t i = 0; i < m->cur.n; i++)
		fab_sum(m->snaps ? &m->snaps[i] : NULL, &fb[i]);
	write_pause(f, m, fb);
	for (size_t c = 0; c < sizeof(classed) / sizeof(classed[0]); c++) {
		head = false;
		for (size_t i = 0; i < m->cur.n; i++) {
			if (!(fb[i].present & (1u << classed[c].cls)))
				continue;
			if (!head)
				ix_prom_family(f, classed[c].name, IX_PROM_COUNTER,
					       classed[c].help);
			head = true;
			link_labels(&m->cur.v[i], &lb);
			ix_prom_sample_u64(f, classed[c].name, lb.v, lb.n, fb[i].v[classed[c].cls]);
		}
	}
	head = false;
	for (size_t i = 0; i < m->cur.n; i++) {
		for (size_t e = 0; e < sizeof(events) / sizeof(events[0]); e++) {
			if (!(fb[i].present & (1u << events[e])))
				continue;
			if (!head)
				ix_prom_family(f, "ixperf_fabric_events_total", IX_PROM_COUNTER,
					       "Fabric counters (netdev, ethtool, qdisc, RDMA "
					       "hw_counters, port counters) summed by class: "
					       "discards, sequence_errors, rnr_naks, xmit_wait "
					       "(ticks), errors, link_events; the largest source's "
					       "sum where two count the same.");
			head = true;
			link_labels(&m->cur.v[i], &lb);
			lb.v[lb.n] = (struct ix_prom_label){ "class", ix_ctr_class_key(events[e]) };
			ix_prom_sample_u64(f, "ixperf_fabric_events_total", lb.v, lb.n + 1,
					   fb[i].v[events[e]]);
		}
	}
	free(fb);
}

/* An RDMA port's network device, as an info metric. */
static void write_info(FILE *f, const struct ix_top_model *m)
{
	bool head = false;
	struct labels lb;

	for (size_t i = 0; i < m->cur.n; i++) {
		const struct ix_link *l = &m->cur.v[i];

		if (l->kind != IX_LINK_IB)
			continue;
		if (!head)
			ix_prom_family(f, "ixperf_rdma_port_info", IX_PROM_GAUGE,
				       "An RDMA port and its network device (RoCE, IPoIB); "
				       "always 1.");
		head = true;
		link_labels(l, &lb);
		lb.v[lb.n++] =
			(struct ix_prom_label){ "interface", l->netdev[0] ? l->netdev : NULL };
		ix_prom_sample(f, "ixperf_rdma_port_info", lb.v, lb.n, 1);
	}
}

void ix_prom_links(FILE *f, const struct ix_top_model *m, const struct ix_pci *pci)
{
	write_counters(f, m);
	write_gauges(f, m);
	write_fabric(f, m);
	write_info(f, m);
	if (pci)
		ix_prom_pcie(f, m, pci);
}
