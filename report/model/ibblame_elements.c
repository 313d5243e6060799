/* Elements of a mesh's blame on the subnet (report/model/ibblame.h): the
 * picked cable directions named as the smallest element they share, each
 * with its pairs and evidence. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/analysis.h"
#include "report/model/ibblame_int.h"

/* ---- cables to elements ---- */

static struct ix_ibfab_hop hop_of(const struct ix_ibb_ctx *c, uint32_t s)
{
	uint32_t lo = 0, hi = c->f->n - 1;

	while (lo < hi) { /* the last node whose base is <= s */
		uint32_t mid = (lo + hi + 1) / 2;

		if (c->base[mid] <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (struct ix_ibfab_hop){ (int32_t)lo, (uint8_t)(s - c->base[lo]) };
}

/* A cable with the directions the cover took on it. */
struct cab {
	struct ix_ibfab_hop end[2]; /* end[0] the lower slot */
	bool dir[2];                /* taken: leaving end[0], leaving end[1] */
	bool used;
};

/* The cables of the picked directions. The other direction of a cable is
 * taken too where most of its own pairs are bad (pairs with a latency
 * figure cross both): the cable is then blamed both ways, and one way only
 * where the pairs the other way are good. */
static uint32_t cables_of(const struct ix_ibb_ctx *c, const struct ix_ibb_tally *t,
			  const uint32_t *picks, uint32_t np, struct cab *cabs)
{
	uint32_t nc = 0;

	for (uint32_t i = 0; i < np; i++) {
		struct ix_ibfab_hop h = hop_of(c, picks[i]);
		const struct ix_ibfab_port *pt = ix_ibfab_port(c->f, h.node, h.port);
		struct ix_ibfab_hop o = { pt->peer_node, pt->peer_port };
		uint32_t k = 0, rev = ix_ibb_slot(c, o.node, o.port);
		int d = picks[i] < rev ? 0 : 1;

		if (d) { /* end[0] is the lower slot: the far end */
			o = h;
			h = (struct ix_ibfab_hop){ pt->peer_node, pt->peer_port };
		}
		while (k < nc && (cabs[k].end[0].node != h.node || cabs[k].end[0].port != h.port))
			k++;
		if (k == nc) {
			memset(&cabs[nc], 0, sizeof(cabs[nc]));
			cabs[nc].end[0] = h;
			cabs[nc].end[1] = o;
			nc++;
		}
		cabs[k].dir[d] = true;
		if (t->bw_bad[rev] + t->lat_bad[rev] >= 2 && ix_ibb_suspect(t, rev))
			cabs[k].dir[!d] = true;
	}
	return nc;
}

static bool is_adapter(const struct ix_ibb_ctx *c, int32_t n)
{
	return !c->f->nodes[n].is_switch;
}

static void add_cable(struct ix_ibb_element *e, const struct cab *k)
{
	for (int d = 0; d < 2; d++)
		if (k->dir[d] && e->ncables < IX_IBB_MAX_CABLES)
			e->cables[e->ncables++] = k->end[d];
}

static const char *dirs_text(const struct ix_ibb_ctx *c, const struct cab *k, char *buf, size_t len)
{
	if (k->dir[0] && k->dir[1])
		return "both ways";
	snprintf(buf, len, "towards \"%.64s\"", c->f->nodes[k->end[k->dir[0] ? 1 : 0].node].desc);
	return buf;
}

/* The mesh host tied to adapter n, else its description's first word. */
static void host_name(const struct ix_ibb_ctx *c, int32_t n, char *buf, size_t len)
{
	const char *d = c->f->nodes[n].desc;

	for (uint32_t i = 0; i < c->r->n; i++)
		if (c->b->ties[i].node == n) {
			snprintf(buf, len, "%.79s", c->r->hosts->v[i].name);
			return;
		}
	snprintf(buf, len, "%.*s", (int)strcspn(d, " \t"), d);
}

static struct ix_ibb_element *new_element(struct ix_ibblame *b, enum ix_ibb_kind kind)
{
	struct ix_ibb_element *e;

	if (b->n == IX_IBB_MAX_ELEMENTS)
		return NULL;
	e = &b->v[b->n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	return e;
}

static void name_cable(const struct ix_ibb_ctx *c, const struct cab *k, char *buf, size_t len)
{
	char a[96], b[96], d[96];

	snprintf(buf, len, "%s - %s, %s",
		 ix_ibfab_port_label(c->f, k->end[0].node, k->end[0].port, a, sizeof(a)),
		 ix_ibfab_port_label(c->f, k->end[1].node, k->end[1].port, b, sizeof(b)),
		 dirs_text(c, k, d, sizeof(d)));
}

/* Switch s's cables to other switches. */
static uint32_t switch_links(const struct ix_ibb_ctx *c, int32_t s)
{
	const struct ix_ibfab_node *nd = &c->f->nodes[s];
	uint32_t m = 0;

	for (uint32_t p = 1; p <= nd->nports; p++)
		m += nd->ports[p].peer_node >= 0 && c->f->nodes[nd->ports[p].peer_node].is_switch;
	return m;
}

static bool has_adapters(const struct ix_ibb_ctx *c, int32_t s)
{
	const struct ix_ibfab_node *nd = &c->f->nodes[s];

	for (uint32_t p = 1; p <= nd->nports; p++)
		if (nd->ports[p].peer_node >= 0 && !c->f->nodes[nd->ports[p].peer_node].is_switch)
			return true;
	return false;
}

static bool touches(const struct cab *k, int32_t n)
{
	return k->end[0].node == n || k->end[1].node == n;
}

/* The switch that the most unused switch-to-switch cables touch. */
static int32_t busiest(const struct ix_ibb_ctx *c, const struct cab *cabs, uint32_t nc,
		       uint32_t *most)
{
	int32_t best = -1;

	*most = 0;
	for (uint32_t i = 0; i < nc; i++)
		for (int e = 0; !cabs[i].used && e < 2; e++) {
			int32_t s = cabs[i].end[e].node;
			uint32_t k = 0;

			for (uint32_t j = 0; j < nc; j++)
				k += !cabs[j].used && touches(&cabs[j], s);
			if (k > *most || (k == *most && best >= 0 && s < best)) {
				*most = k;
				best = s;
			}
		}
	return best;
}

static void group_switches(struct ix_ibb_ctx *c, struct cab *cabs, uint32_t nc)
{
	uint32_t k;
	int32_t s;

	while ((s = busiest(c, cabs, nc, &k)) >= 0 && k > 0) {
		uint32_t m = switch_links(c, s);
		const char *d = c->f->nodes[s].desc;
		struct ix_ibb_element *e;

		if (k == 1) { /* what is left shares no switch: one cable each */
			for (uint32_t i = 0; i < nc; i++) {
				char nm[300];

				if (cabs[i].used || !(e = new_element(c->b, IX_IBB_LINK)))
					continue;
				name_cable(c, &cabs[i], nm, sizeof(nm));
				snprintf(e->what, sizeof(e->what), "the link %.180s", nm);
				add_cable(e, &cabs[i]);
				cabs[i].used = true;
			}
			return;
		}
		e = new_element(c->b, k == m ? (has_adapters(c, s) ? IX_IBB_UPLINKS : IX_IBB_SWITCH)
					     : IX_IBB_CABLES);
		if (!e)
			return;
		if (e->kind == IX_IBB_UPLINKS)
			snprintf(e->what, sizeof(e->what), "the uplinks of \"%.64s\" (all %u)", d,
				 m);
		else if (e->kind == IX_IBB_SWITCH)
			snprintf(e->what, sizeof(e->what), "switch \"%.64s\" (all its %u cables)",
				 d, m);
		else
			snprintf(e->what, sizeof(e->what),
				 "%u of the %u cables of \"%.64s\" to other switches", k, m, d);
		for (uint32_t i = 0; i < nc; i++)
			if (!cabs[i].used && touches(&cabs[i], s)) {
				add_cable(e, &cabs[i]);
				cabs[i].used = true;
			}
	}
}

void ix_ibb_group(struct ix_ibb_ctx *c, const struct ix_ibb_tally *t, const uint32_t *picks,
		  uint32_t np)
{
	struct cab cabs[MAX_PICKS];
	uint32_t nc = cables_of(c, t, picks, np, cabs);

	for (uint32_t i = 0; i < nc; i++) {
		struct cab *k = &cabs[i];
		int h = is_adapter(c, k->end[0].node) ? 0 : is_adapter(c, k->end[1].node) ? 1 : -1;
		struct ix_ibb_element *e;
		char host[80], nm[300];

		if (h < 0 || !(e = new_element(c->b, IX_IBB_HOST_CABLE)))
			continue;
		host_name(c, k->end[h].node, host, sizeof(host));
		name_cable(c, k, nm, sizeof(nm));
		snprintf(e->what, sizeof(e->what), "%.64s's cable (%.120s)", host, nm);
		add_cable(e, k);
		k->used = true;
	}
	group_switches(c, cabs, nc);
}

/* ---- evidence ---- */

static void cell_text(const struct ix_mesh_result *r, uint32_t a, uint32_t b, char *buf, size_t len)
{
	struct ix_cell cl = ix_cells_get(&r->cells, a, b);
	char v[32] = "";

	if (cl.state == IX_CELL_FAILED)
		snprintf(v, sizeof(v), "failed");
	else if (cl.bw_zero)
		snprintf(v, sizeof(v), "moved nothing");
	else if (cl.bad & IX_BAD_BW)
		ix_rate_text(cl.bw_bps, v, sizeof(v));
	else if (cl.lat_lost)
		snprintf(v, sizeof(v), "no round trip");
	else
		snprintf(v, sizeof(v), "p50 %.1f us", cl.lat_p50_ns / 1e3);
	snprintf(buf, len, "%.64s -> %.64s: %s", r->hosts->v[a].name, r->hosts->v[b].name, v);
}

/* The counters that moved at port (node n of the routes, port p) as ctrs
 * read them, appended to buf; how many. */
static int moved_at(const struct ix_ibb_ctx *c, const struct ix_ibfab *ctrs, int32_t n, uint32_t p,
		    char *buf, size_t len)
{
	int32_t j = ix_ibfab_find(ctrs, c->f->nodes[n].guid);
	const struct ix_ibfab_port *pt = j >= 0 ? ix_ibfab_port(ctrs, j, p) : NULL;
	int moved = 0;
	char lbl[96];

	for (int k = 0; pt && k < IX_IBC_N; k++) {
		uint64_t v = ix_ibfab_moved(pt, (enum ix_ibfab_ctr)k);
		size_t at = strlen(buf);

		if (!v || !(ix_ibfab_ctr_is_error((enum ix_ibfab_ctr)k) || k == IX_IBC_XMIT_WAIT))
			continue;
		snprintf(buf + at, len - at, "%s%s %s +%llu", moved || at ? ", " : "",
			 ix_ibfab_port_label(ctrs, j, p, lbl, sizeof(lbl)),
			 ix_ibfab_ctr_name((enum ix_ibfab_ctr)k), (unsigned long long)v);
		moved++;
	}
	return moved;
}

/* The subnet's findings at the port (node n of the routes, port p),
 * appended to buf. */
static void found_at(const struct ix_ibb_ctx *c, int32_t n, uint32_t p, char *buf, size_t len)
{
	const struct ix_ibfab *j = c->in->judged;
	const struct ix_ibfab_findings *fs = c->in->findings;

	for (size_t i = 0; j && fs && i < fs->n; i++) {
		const struct ix_ibfab_finding *x = &fs->v[i];
		size_t at = strlen(buf);

		if (x->node < 0 || (uint32_t)x->node >= j->n || x->port != p ||
		    j->nodes[x->node].guid != c->f->nodes[n].guid || strstr(buf, x->text))
			continue;
		snprintf(buf + at, len - at, "%s%s", at ? "; " : "", x->text);
	}
}

static void evidence(struct ix_ibb_ctx *c, const struct ix_ibfab *ctrs, struct ix_ibb_element *e,
		     const uint32_t *example)
{
	char ex[200], ctr[400] = "", pairs[96], found[400] = "";
	size_t at;
	int moved = 0;

	cell_text(c->r, example[0], example[1], ex, sizeof(ex));
	for (uint32_t i = 0; i < e->ncables; i++) {
		const struct ix_ibfab_port *pt =
			ix_ibfab_port(c->f, e->cables[i].node, e->cables[i].port);

		found_at(c, e->cables[i].node, e->cables[i].port, found, sizeof(found));
		found_at(c, pt->peer_node, pt->peer_port, found, sizeof(found));
		if (!ctrs)
			continue;
		moved += moved_at(c, ctrs, e->cables[i].node, e->cables[i].port, ctr, sizeof(ctr));
		moved += moved_at(c, ctrs, pt->peer_node, pt->peer_port, ctr, sizeof(ctr));
	}
	if (e->good)
		snprintf(pairs, sizeof(pairs), "%u bad pairs cross it and %u good ones", e->bad,
			 e->good);
	else
		snprintf(pairs, sizeof(pairs), "%u bad pairs cross it and no good pair does",
			 e->bad);
	if (!ctrs) /* the header says why */
		snprintf(e->evidence, sizeof(e->evidence), "%s (e.g. %s)", pairs, ex);
	else if (moved)
		snprintf(e->evidence, sizeof(e->evidence), "%s (e.g. %s); moved over the mesh: %s",
			 pairs, ex, ctr);
	else
		snprintf(e->evidence, sizeof(e->evidence),
			 "%s (e.g. %s); no error counter moved at its ends over the mesh", pairs,
			 ex);
	at = strlen(e->evidence);
	if (found[0])
		snprintf(e->evidence + at, sizeof(e->evidence) - at, "; the subnet's findings: %s",
			 found);
}

/* Second pass: each element's pairs, the bad ones it explains, an example;
 * the bad pairs none explains. */
void ix_ibb_count(struct ix_ibb_ctx *c)
{
	const struct ix_ibfab *ctrs = c->b->counters ? c->in->ctrs : NULL;
	const struct ix_mesh_result *r = c->r;
	uint32_t slots[MAX_SLOTS], example[IX_IBB_MAX_ELEMENTS][2];
	int8_t *elem = malloc(c->nslots);
	bool seen[IX_IBB_MAX_ELEMENTS] = { false };

	if (!elem)
		return;
	memset(elem, -1, c->nslots);
	for (uint32_t i = 0; i < c->b->n; i++)
		for (uint32_t k = 0; k < c->b->v[i].ncables; k++)
			elem[ix_ibb_slot(c, c->b->v[i].cables[k].node, c->b->v[i].cables[k].port)] =
				(int8_t)i;
	for (uint32_t a = 0; a < r->n; a++)
		for (uint32_t b = 0; b < r->n; b++) {
			bool hit[IX_IBB_MAX_ELEMENTS] = { false }, any = false;
			unsigned m = ix_ibb_cell_tests(r, a, b);
			uint32_t nout, ns, upto;

			if (!m || ix_ibb_walk(c, a, b, m & IX_IBB_LAT, slots, &nout, &ns) < 0)
				continue;
			/* a bad pair through the slots it blames, a good one
			 * through the cables its data crossed */
			upto = m & IX_IBB_BAD ? ix_ibb_blamed(m, nout, ns) : nout;
			for (uint32_t j = 0; j < upto; j++)
				if (elem[slots[j]] >= 0)
					hit[elem[slots[j]]] = true;
			for (uint32_t i = 0; i < c->b->n; i++) {
				if (!hit[i])
					continue;
				any = true;
				if (!(m & IX_IBB_BAD)) {
					c->b->v[i].good++;
					continue;
				}
				c->b->v[i].bad++;
				c->b->v[i].explained++;
				if (!seen[i]) {
					seen[i] = true;
					example[i][0] = a;
					example[i][1] = b;
				}
			}
			if (m & IX_IBB_BAD && !any)
				c->b->unexplained++;
		}
	for (uint32_t i = 0; i < c->b->n; i++)
		if (seen[i])
			evidence(c, ctrs, &c->b->v[i], example[i]);
	free(elem);
}
