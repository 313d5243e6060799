/* The subnet model (probes/ibfab/ibfab.h): nodes, ports, and the names
 * and rates of the PortInfo encodings. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/ibfab/ibfab.h"

void ix_ibfab_init(struct ix_ibfab *f)
{
	memset(f, 0, sizeof(*f));
}

void ix_ibfab_free(struct ix_ibfab *f)
{
	for (uint32_t i = 0; i < f->n; i++) {
		free(f->nodes[i].ports);
		free(f->nodes[i].lft);
	}
	free(f->nodes);
	memset(f, 0, sizeof(*f));
}

struct ix_ibfab_node *ix_ibfab_add(struct ix_ibfab *f, uint64_t guid, bool is_switch,
				   const char *desc, uint8_t nports)
{
	struct ix_ibfab_node *n;

	if (f->n == f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 16;
		struct ix_ibfab_node *v = realloc(f->nodes, cap * sizeof(*v));

		if (!v)
			return NULL;
		f->nodes = v;
		f->cap = cap;
	}
	n = &f->nodes[f->n];
	memset(n, 0, sizeof(*n));
	n->ports = calloc((size_t)nports + 1, sizeof(*n->ports));
	if (!n->ports)
		return NULL;
	n->guid = guid;
	n->is_switch = is_switch;
	n->nports = nports;
	snprintf(n->desc, sizeof(n->desc), "%s", desc ? desc : "");
	for (uint32_t p = 0; p <= nports; p++) {
		n->ports[p].num = (uint8_t)p;
		n->ports[p].peer_node = -1;
	}
	f->n++;
	return n;
}

int32_t ix_ibfab_find(const struct ix_ibfab *f, uint64_t guid)
{
	for (uint32_t i = 0; i < f->n; i++)
		if (f->nodes[i].guid == guid)
			return (int32_t)i;
	return -1;
}

struct ix_ibfab_port *ix_ibfab_port(const struct ix_ibfab *f, int32_t n, uint32_t p)
{
	if (n < 0 || (uint32_t)n >= f->n || p > f->nodes[n].nports)
		return NULL;
	return &f->nodes[n].ports[p];
}

static const struct {
	const char *name;
	bool error;
} ctrs[IX_IBC_N] = {
	[IX_IBC_SYMBOL_ERRORS] = { "SymbolErrorCounter", true },
	[IX_IBC_LINK_RECOVERS] = { "LinkErrorRecoveryCounter", true },
	[IX_IBC_LINK_DOWNED] = { "LinkDownedCounter", true },
	[IX_IBC_RCV_ERRORS] = { "PortRcvErrors", true },
	[IX_IBC_RCV_REMOTE_PHYS] = { "PortRcvRemotePhysicalErrors", true },
	/* packets a switch could not route: a routing matter, not the link's */
	[IX_IBC_RCV_SWITCH_RELAY] = { "PortRcvSwitchRelayErrors", false },
	[IX_IBC_XMIT_DISCARDS] = { "PortXmitDiscards", true },
	[IX_IBC_XMIT_CONSTRAINT] = { "PortXmitConstraintErrors", true },
	[IX_IBC_RCV_CONSTRAINT] = { "PortRcvConstraintErrors", true },
	[IX_IBC_LOCAL_INTEGRITY] = { "LocalLinkIntegrityErrors", true },
	[IX_IBC_EXCESS_OVERRUN] = { "ExcessiveBufferOverrunErrors", true },
	/* subnet management packets dropped: the SM's retries cover them */
	[IX_IBC_VL15_DROPPED] = { "VL15Dropped", false },
	/* time a port had data and no credit: congestion, not a fault */
	[IX_IBC_XMIT_WAIT] = { "PortXmitWait", false },
	[IX_IBC_XMIT_DATA] = { "PortXmitData", false },
	[IX_IBC_RCV_DATA] = { "PortRcvData", false },
	[IX_IBC_XMIT_PKTS] = { "PortXmitPkts", false },
	[IX_IBC_RCV_PKTS] = { "PortRcvPkts", false },
};

const char *ix_ibfab_ctr_name(enum ix_ibfab_ctr c)
{
	return (unsigned)c < IX_IBC_N ? ctrs[c].name : "?";
}

bool ix_ibfab_ctr_is_error(enum ix_ibfab_ctr c)
{
	return (unsigned)c < IX_IBC_N && ctrs[c].error;
}

unsigned ix_ibfab_lanes(uint8_t w)
{
	return (w & 8) ? 12 : (w & 4) ? 8 : (w & 2) ? 4 : (w & 16) ? 2 : (w & 1) ? 1 : 0;
}

const char *ix_ibfab_width_name(uint8_t w)
{
	switch (ix_ibfab_lanes(w)) {
	case 12:
		return "12X";
	case 8:
		return "8X";
	case 4:
		return "4X";
	case 2:
		return "2X";
	case 1:
		return "1X";
	default:
		return "?";
	}
}

double ix_ibfab_lane_gbps(uint8_t s, uint8_t e)
{
	if (e & 8)
		return 100;
	if (e & 4)
		return 50;
	if (e & 2)
		return 25;
	if (e & 1)
		return 14.0625 * 64 / 66;
	return (s & 4) ? 8 : (s & 2) ? 4 : (s & 1) ? 2 : 0;
}

const char *ix_ibfab_speed_name(uint8_t s, uint8_t e)
{
	if (e & 8)
		return "NDR";
	if (e & 4)
		return "HDR";
	if (e & 2)
		return "EDR";
	if (e & 1)
		return "FDR";
	return (s & 4) ? "QDR" : (s & 2) ? "DDR" : (s & 1) ? "SDR" : "?";
}

double ix_ibfab_port_gbps(const struct ix_ibfab_port *p)
{
	return ix_ibfab_lanes(p->width_active) * ix_ibfab_lane_gbps(p->speed_active, p->ext_active);
}

const char *ix_ibfab_port_label(const struct ix_ibfab *f, int32_t n, uint32_t p, char *buf,
				size_t len)
{
	const struct ix_ibfab_node *nd = n >= 0 && (uint32_t)n < f->n ? &f->nodes[n] : NULL;

	if (!nd)
		snprintf(buf, len, "?/%u", p);
	else if (nd->desc[0])
		snprintf(buf, len, "\"%.64s\"/%u", nd->desc, p);
	else
		snprintf(buf, len, "0x%016llx/%u", (unsigned long long)nd->guid, p);
	return buf;
}

void ix_ibfab_take_first(struct ix_ibfab *f, const struct ix_ibfab *first)
{
	for (uint32_t i = 0; i < f->n; i++) {
		int32_t j = ix_ibfab_find(first, f->nodes[i].guid);

		for (uint32_t p = 0; j >= 0 && p <= f->nodes[i].nports; p++) {
			const struct ix_ibfab_port *was = ix_ibfab_port(first, j, p);

			if (was)
				f->nodes[i].ports[p].ctr[0] = was->ctr[0];
		}
	}
}

const char *ix_ibfab_state_name(uint8_t state)
{
	static const char *const names[] = { "?", "Down", "Init", "Armed", "Active" };

	return state < 5 ? names[state] : "?";
}

bool ix_ibfab_cable_here(const struct ix_ibfab *f, uint32_t n, uint32_t p)
{
	const struct ix_ibfab_port *pt = ix_ibfab_port(f, (int32_t)n, p);

	return pt && pt->peer_node >= 0 &&
	       ((uint32_t)pt->peer_node > n || ((uint32_t)pt->peer_node == n && pt->peer_port > p));
}

void ix_ibfab_counts(const struct ix_ibfab *f, uint32_t *switches, uint32_t *cables)
{
	*switches = *cables = 0;
	for (uint32_t i = 0; i < f->n; i++) {
		*switches += f->nodes[i].is_switch;
		for (uint32_t p = 1; p <= f->nodes[i].nports; p++)
			*cables += ix_ibfab_cable_here(f, i, p);
	}
}

uint64_t ix_ibfab_moved(const struct ix_ibfab_port *p, enum ix_ibfab_ctr k)
{
	const struct ix_ibfab_counters *c0 = &p->ctr[0], *c1 = &p->ctr[1];

	if (!c0->valid || !c1->valid || (unsigned)k >= IX_IBC_N)
		return 0;
	return c1->v[k] >= c0->v[k] ? c1->v[k] - c0->v[k] : c1->v[k];
}
