/* Findings over an InfiniBand subnet (probes/ibfab/ibfab.h). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/ibfab/ibfab.h"

#define LABEL 96

static const char *const kinds[] = {
	[IX_IBF_WIDTH] = "width",
	[IX_IBF_SPEED] = "speed",
	[IX_IBF_NOT_ACTIVE] = "not_active",
	[IX_IBF_ERRORS] = "errors",
	[IX_IBF_LINK_LOST] = "link_lost",
	[IX_IBF_NODE_LOST] = "node_lost",
	[IX_IBF_NO_COUNTERS] = "no_counters",
};

const char *ix_ibfab_kind_name(enum ix_ibfab_kind k)
{
	return (unsigned)k < sizeof(kinds) / sizeof(kinds[0]) ? kinds[k] : "?";
}

void ix_ibfab_findings_free(struct ix_ibfab_findings *fs)
{
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

static int add(struct ix_ibfab_findings *fs, enum ix_ibfab_kind kind, int32_t node, uint32_t port,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int add(struct ix_ibfab_findings *fs, enum ix_ibfab_kind kind, int32_t node, uint32_t port,
	       const char *fmt, ...)
{
	struct ix_ibfab_finding *f;
	va_list ap;

	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 16;
		struct ix_ibfab_finding *v = realloc(fs->v, cap * sizeof(*v));

		if (!v)
			return -1;
		fs->v = v;
		fs->cap = cap;
	}
	f = &fs->v[fs->n++];
	f->kind = kind;
	f->node = node;
	f->port = port;
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	return 0;
}

/* What one end enables and the other supports (enabled where a port
 * does not say what it supports), both ways: what the link should train
 * at. */
static uint8_t can(uint8_t en_a, uint8_t sup_a, uint8_t en_b, uint8_t sup_b)
{
	return (uint8_t)((en_a & (sup_b ? sup_b : en_b)) | (en_b & (sup_a ? sup_a : en_a)));
}

/* One cable, judged from its end a (the lower node index). */
static int check_link(const struct ix_ibfab *f, int32_t na, const struct ix_ibfab_port *a,
		      struct ix_ibfab_findings *out)
{
	const struct ix_ibfab_port *b = ix_ibfab_port(f, a->peer_node, a->peer_port);
	char la[LABEL], lb[LABEL];
	uint8_t w, s, e;
	int rc = 0;

	if (!b)
		return 0;
	ix_ibfab_port_label(f, na, a->num, la, sizeof(la));
	ix_ibfab_port_label(f, a->peer_node, b->num, lb, sizeof(lb));
	w = can(a->width_enabled, a->width_supported, b->width_enabled, b->width_supported);
	if (ix_ibfab_lanes(a->width_active) < ix_ibfab_lanes(w)) {
		const struct ix_ibfab_port *narrow =
			ix_ibfab_lanes(a->width_enabled) < ix_ibfab_lanes(w)   ? a
			: ix_ibfab_lanes(b->width_enabled) < ix_ibfab_lanes(w) ? b
									       : NULL;
		char why[LABEL + 48] = "a lane or the cable is bad";

		if (narrow)
			snprintf(why, sizeof(why), "%s is enabled for %s only",
				 narrow == a ? la : lb, ix_ibfab_width_name(narrow->width_enabled));
		rc |= add(out, IX_IBF_WIDTH, na, a->num,
			  "link %s - %s is %s wide where its ends can train at %s: %s", la, lb,
			  ix_ibfab_width_name(a->width_active), ix_ibfab_width_name(w), why);
	}
	s = can(a->speed_enabled, a->speed_supported, b->speed_enabled, b->speed_supported);
	e = can(a->ext_enabled, a->ext_supported, b->ext_enabled, b->ext_supported);
	if (ix_ibfab_lane_gbps(a->speed_active, a->ext_active) < ix_ibfab_lane_gbps(s, e))
		rc |= add(out, IX_IBF_SPEED, na, a->num,
			  "link %s - %s runs at %s where its ends can train at %s", la, lb,
			  ix_ibfab_speed_name(a->speed_active, a->ext_active),
			  ix_ibfab_speed_name(s, e));
	if (a->state != 4 || b->state != 4) {
		const struct ix_ibfab_port *idle = a->state != 4 ? a : b;

		rc |= add(out, IX_IBF_NOT_ACTIVE, idle == a ? na : a->peer_node, idle->num,
			  "link %s - %s is cabled but %s is %s, not Active: it carries no data "
			  "until the subnet manager brings it up",
			  la, lb, idle == a ? la : lb, ix_ibfab_state_name(idle->state));
	}
	return rc;
}

/* Error counters that moved at one port between the two reads. */
static int check_counters(const struct ix_ibfab *f, int32_t n, const struct ix_ibfab_port *p,
			  struct ix_ibfab_findings *out)
{
	const struct ix_ibfab_counters *c0 = &p->ctr[0], *c1 = &p->ctr[1];
	char l[LABEL], moved[160] = "";
	size_t used = 0;

	ix_ibfab_port_label(f, n, p->num, l, sizeof(l));
	/* a read that was asked and failed (one never asked has no reason) */
	if ((!c0->valid && c0->error[0]) || (!c1->valid && c1->error[0]))
		return add(out, IX_IBF_NO_COUNTERS, n, p->num,
			   "the counters of %s could not be read: %s: its errors are unknown", l,
			   !c0->valid && c0->error[0] ? c0->error : c1->error);
	if (!c0->valid || !c1->valid)
		return 0;
	for (int k = 0; k < IX_IBC_N; k++) {
		uint64_t d = ix_ibfab_moved(p, (enum ix_ibfab_ctr)k);
		int w;

		if (!ix_ibfab_ctr_is_error((enum ix_ibfab_ctr)k) || !d)
			continue;
		w = snprintf(moved + used, sizeof(moved) - used, "%s%s +%" PRIu64, used ? ", " : "",
			     ix_ibfab_ctr_name((enum ix_ibfab_ctr)k), d);
		if (w < 0 || (size_t)w >= sizeof(moved) - used)
			break;
		used += (size_t)w;
	}
	if (!used)
		return 0;
	return add(out, IX_IBF_ERRORS, n, p->num, "%s: %s between the reads", l, moved);
}

/* What the reference had that f lacks: nodes, then cables. */
static int check_lost(const struct ix_ibfab *f, const struct ix_ibfab *ref,
		      struct ix_ibfab_findings *out)
{
	int rc = 0;

	for (uint32_t i = 0; i < ref->n; i++) {
		const struct ix_ibfab_node *rn = &ref->nodes[i];

		if (ix_ibfab_find(f, rn->guid) >= 0)
			continue;
		rc |= add(out, IX_IBF_NODE_LOST, -1, 0,
			  "%s \"%.64s\" (0x%016" PRIx64 ") was in the subnet and is gone",
			  rn->is_switch ? "switch" : "adapter", rn->desc, rn->guid);
	}
	for (uint32_t i = 0; i < ref->n; i++) {
		const struct ix_ibfab_node *rn = &ref->nodes[i];
		int32_t n = ix_ibfab_find(f, rn->guid);

		for (uint32_t p = 1; n >= 0 && p <= rn->nports; p++) {
			const struct ix_ibfab_port *rp = &rn->ports[p], *now;
			const struct ix_ibfab_node *rpeer;
			int32_t peer;
			char la[LABEL], lb[LABEL];

			if (rp->peer_node < 0 || (uint32_t)rp->peer_node < i)
				continue; /* no cable, or judged from its other end */
			rpeer = &ref->nodes[rp->peer_node];
			peer = ix_ibfab_find(f, rpeer->guid);
			if (peer < 0)
				continue; /* the node is gone: said above */
			now = ix_ibfab_port(f, n, p);
			if (now && now->peer_node == peer && now->peer_port == rp->peer_port)
				continue;
			ix_ibfab_port_label(f, n, p, la, sizeof(la));
			ix_ibfab_port_label(f, peer, rp->peer_port, lb, sizeof(lb));
			rc |= add(out, IX_IBF_LINK_LOST, n, p,
				  "cable %s - %s is gone (%s is %s now)", la, lb, la,
				  !now                  ? "missing"
				  : now->peer_node >= 0 ? "cabled elsewhere"
							: ix_ibfab_state_name(now->state));
		}
	}
	return rc;
}

int ix_ibfab_check(const struct ix_ibfab *f, const struct ix_ibfab *ref,
		   struct ix_ibfab_findings *out, struct ix_err *err)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (ref)
		rc |= check_lost(f, ref, out);
	for (uint32_t i = 0; i < f->n; i++) {
		const struct ix_ibfab_node *nd = &f->nodes[i];

		for (uint32_t p = 1; p <= nd->nports; p++) {
			const struct ix_ibfab_port *pt = &nd->ports[p];

			if (pt->peer_node < 0)
				continue;
			if (ix_ibfab_cable_here(f, i, p))
				rc |= check_link(f, (int32_t)i, pt, out);
			rc |= check_counters(f, (int32_t)i, pt, out);
		}
	}
	if (rc < 0) {
		ix_ibfab_findings_free(out);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory for the subnet's findings");
	}
	return 0;
}
