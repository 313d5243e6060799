/* A mesh's bad pairs on the InfiniBand subnet (report/model/ibblame.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probes/cluster/analysis.h"
#include "report/model/ibblame.h"

#define MAX_PICKS 64 /* cable directions the cover may take */
#define MAX_SLOTS (2 * IX_IBFAB_MAX_HOPS)

struct ctx {
	const struct ix_mesh_result *r;
	const struct ix_ibfab *f;
	struct ix_ibblame *b;
	uint32_t *base; /* per node: its ports' first slot */
	uint32_t nslots;
};

/* ---- hosts to adapters ---- */

static const struct ix_link_limit *link_of(const struct ix_mesh_result *r, uint32_t i)
{
	if (r->nodes && (r->nodes[i].link.iface[0] || r->nodes[i].link.port_guid))
		return &r->nodes[i].link;
	return r->links ? &r->links[i] : NULL;
}

/* Whether name is desc's first word, whole or as the short name of
 * either (up to the first '.'). */
static bool desc_names(const char *desc, const char *name)
{
	size_t w = strcspn(desc, " \t"), nl = strcspn(name, ".");

	if (!name[0] || !w)
		return false;
	if (strlen(name) == w && strncasecmp(desc, name, w) == 0)
		return true;
	if (strcspn(desc, ".") < w)
		w = strcspn(desc, ".");
	return nl == w && strncasecmp(desc, name, w) == 0;
}

/* Whether word is a whole word of desc after its first. */
static bool desc_has_word(const char *desc, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = desc + strcspn(desc, " \t"); wl && *p; p++)
		if (isspace((unsigned char)p[-1]) && strncmp(p, word, wl) == 0 &&
		    (!p[wl] || isspace((unsigned char)p[wl])))
			return true;
	return false;
}

/* The adapter's cabled port, an Active one first; 0 when none. */
static uint32_t cabled_port(const struct ix_ibfab_node *nd)
{
	uint32_t any = 0;

	for (uint32_t p = 1; p <= nd->nports; p++) {
		if (nd->ports[p].peer_node < 0)
			continue;
		if (nd->ports[p].state == 4)
			return p;
		if (!any)
			any = p;
	}
	return any;
}

static void tie_by_name(const struct ix_ibfab *f, const struct ix_host *h,
			const struct ix_link_limit *l, struct ix_ibb_tie *t)
{
	int32_t hit = -1, named = -1;
	uint32_t matches = 0, by_iface = 0;

	for (uint32_t k = 0; k < f->n; k++) {
		const char *desc = f->nodes[k].desc;

		if (f->nodes[k].is_switch ||
		    !(desc_names(desc, h->name) || desc_names(desc, h->node)))
			continue;
		matches++;
		hit = (int32_t)k;
		if (l && l->iface[0] && desc_has_word(desc, l->iface)) {
			by_iface++;
			named = (int32_t)k;
		}
	}
	if (matches > 1 && by_iface == 1)
		hit = named;
	else if (matches > 1) {
		snprintf(t->why, sizeof(t->why),
			 "%u adapters are described as %.64s and none by its interface", matches,
			 h->node[0] ? h->node : h->name);
		return;
	} else if (!matches) {
		snprintf(t->why, sizeof(t->why),
			 "no adapter of the subnet is described as %.64s, and its agent gave no "
			 "port GUID",
			 h->node[0] ? h->node : h->name);
		return;
	}
	t->port = cabled_port(&f->nodes[hit]);
	if (!t->port) {
		snprintf(t->why, sizeof(t->why), "its adapter \"%.64s\" has no cable",
			 f->nodes[hit].desc);
		return;
	}
	t->node = hit;
	snprintf(t->by, sizeof(t->by), "node description");
}

static void tie_hosts(struct ctx *c)
{
	const struct ix_mesh_result *r = c->r;

	for (uint32_t i = 0; i < r->n; i++) {
		struct ix_ibb_tie *t = &c->b->ties[i];
		const struct ix_link_limit *l = link_of(r, i);

		t->node = -1;
		if (l && l->port_guid) {
			t->node = ix_ibfab_by_port_guid(c->f, l->port_guid, &t->port);
			if (t->node >= 0) {
				snprintf(t->by, sizeof(t->by), "port GUID");
				c->b->tied++;
				continue;
			}
		}
		tie_by_name(c->f, &r->hosts->v[i], l, t);
		if (t->node >= 0)
			c->b->tied++;
		else if (l && l->port_guid)
			snprintf(t->why, sizeof(t->why),
				 "its port GUID 0x%016llx is not in the subnet, nor its name",
				 (unsigned long long)l->port_guid);
	}
}

/* ---- pairs to cables ---- */

static uint32_t slot_of(const struct ctx *c, int32_t node, uint32_t port)
{
	return c->base[node] + port;
}

static void add_slots(const struct ctx *c, const struct ix_ibfab_hop *h, uint32_t nh,
		      uint32_t *slots, uint32_t *ns)
{
	for (uint32_t k = 0; k < nh; k++) {
		uint32_t s = slot_of(c, h[k].node, h[k].port), j = 0;

		while (j < *ns && slots[j] != s)
			j++;
		if (j == *ns && *ns < MAX_SLOTS)
			slots[(*ns)++] = s;
	}
}

static uint16_t lid_of(const struct ctx *c, uint32_t host)
{
	const struct ix_ibb_tie *t = &c->b->ties[host];

	return c->f->nodes[t->node].ports[t->port].lid;
}

/* Whether the cell a -> b counts, and how: 0 skip, 1 good, 2 bad. */
static int cell_kind(const struct ix_mesh_result *r, uint32_t a, uint32_t b, bool *back)
{
	const struct ix_cell *cl = &r->cells[(size_t)a * r->n + b];

	if (a == b || (cl->state != IX_CELL_OK && cl->state != IX_CELL_FAILED) ||
	    (r->node_error && (r->node_error[a] || r->node_error[b])))
		return 0;
	*back = cl->state == IX_CELL_FAILED || ix_cell_has_lat(cl) || cl->lat_lost;
	return cl->state == IX_CELL_FAILED || cl->bad ? 2 : 1;
}

/* The cable directions of a's test towards b: 0, or -1 with why kept. */
static int walk(struct ctx *c, uint32_t a, uint32_t b, bool back, uint32_t *slots, uint32_t *ns)
{
	struct ix_ibfab_hop hops[IX_IBFAB_MAX_HOPS];
	const struct ix_ibb_tie *ta = &c->b->ties[a], *tb = &c->b->ties[b];
	char why[300];
	uint32_t nh;

	*ns = 0;
	if (ta->node < 0 || tb->node < 0) {
		snprintf(why, sizeof(why), "%.64s is not tied to the subnet: %.160s",
			 ta->node < 0 ? c->r->hosts->v[a].name : c->r->hosts->v[b].name,
			 ta->node < 0 ? ta->why : tb->why);
		goto fail;
	}
	if (ix_ibfab_path(c->f, ta->node, ta->port, lid_of(c, b), hops, &nh, why, sizeof(why)) < 0)
		goto fail;
	add_slots(c, hops, nh, slots, ns);
	if (back) {
		if (ix_ibfab_path(c->f, tb->node, tb->port, lid_of(c, a), hops, &nh, why,
				  sizeof(why)) < 0)
			goto fail;
		add_slots(c, hops, nh, slots, ns);
	}
	return 0;
fail:
	if (!c->b->unplaced_why[0])
		snprintf(c->b->unplaced_why, sizeof(c->b->unplaced_why), "%.64s -> %.64s: %.100s",
			 c->r->hosts->v[a].name, c->r->hosts->v[b].name, why);
	return -1;
}

/* The bad cells with their cable directions, and each direction's counts. */
struct tally {
	uint32_t *bad, *good;  /* per slot */
	uint32_t *off, *slots; /* per bad cell: its slots at slots[off[i] .. off[i + 1]) */
	bool *done;
	size_t nbad, cap, nslot, capslot;
};

static int keep_bad(struct tally *t, const uint32_t *s, uint32_t ns)
{
	if (t->nbad + 1 >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		uint32_t *o = realloc(t->off, (cap + 1) * sizeof(*t->off));

		if (!o)
			return -1;
		t->off = o;
		t->cap = cap;
	}
	if (t->nslot + ns > t->capslot) {
		size_t cap = (t->capslot ? t->capslot * 2 : 2048) + ns;
		uint32_t *p = realloc(t->slots, cap * sizeof(*p));

		if (!p)
			return -1;
		t->slots = p;
		t->capslot = cap;
	}
	t->off[t->nbad] = (uint32_t)t->nslot;
	memcpy(t->slots + t->nslot, s, ns * sizeof(*s));
	t->nslot += ns;
	t->nbad++;
	t->off[t->nbad] = (uint32_t)t->nslot;
	return 0;
}

static int tally_cells(struct ctx *c, struct tally *t)
{
	const struct ix_mesh_result *r = c->r;
	uint32_t slots[MAX_SLOTS], ns;

	for (uint32_t a = 0; a < r->n; a++)
		for (uint32_t b = 0; b < r->n; b++) {
			bool back = false;
			int k = cell_kind(r, a, b, &back);

			if (!k)
				continue;
			if (walk(c, a, b, back, slots, &ns) < 0) {
				c->b->unplaced++;
				continue;
			}
			for (uint32_t j = 0; j < ns; j++)
				(k == 2 ? t->bad : t->good)[slots[j]]++;
			if (k == 1) {
				c->b->pairs_good++;
				continue;
			}
			c->b->pairs_bad++;
			if (keep_bad(t, slots, ns) < 0)
				return -1;
		}
	return 0;
}

/* The greedy cover: up to MAX_PICKS directions, each explaining two bad
 * pairs or more that none before it did. */
static uint32_t cover(const struct ctx *c, struct tally *t, uint32_t *picks)
{
	uint32_t *cnt = calloc(c->nslots, sizeof(*cnt)), np = 0;

	if (!cnt)
		return 0;
	while (np < MAX_PICKS) {
		uint32_t best = UINT32_MAX;

		memset(cnt, 0, c->nslots * sizeof(*cnt));
		for (size_t i = 0; i < t->nbad; i++)
			for (uint32_t j = t->off[i]; !t->done[i] && j < t->off[i + 1]; j++)
				cnt[t->slots[j]]++;
		for (uint32_t s = 0; s < c->nslots; s++) {
			if (cnt[s] < 2 || t->bad[s] <= t->good[s])
				continue;
			if (best == UINT32_MAX || cnt[s] > cnt[best] ||
			    (cnt[s] == cnt[best] && t->good[s] < t->good[best]))
				best = s;
		}
		if (best == UINT32_MAX)
			break;
		picks[np++] = best;
		for (size_t i = 0; i < t->nbad; i++)
			for (uint32_t j = t->off[i]; !t->done[i] && j < t->off[i + 1]; j++)
				if (t->slots[j] == best)
					t->done[i] = true;
	}
	free(cnt);
	return np;
}

/* ---- cables to elements ---- */

static struct ix_ibfab_hop hop_of(const struct ctx *c, uint32_t s)
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
static uint32_t cables_of(const struct ctx *c, const struct tally *t, const uint32_t *picks,
			  uint32_t np, struct cab *cabs)
{
	uint32_t nc = 0;

	for (uint32_t i = 0; i < np; i++) {
		struct ix_ibfab_hop h = hop_of(c, picks[i]);
		const struct ix_ibfab_port *pt = ix_ibfab_port(c->f, h.node, h.port);
		struct ix_ibfab_hop o = { pt->peer_node, pt->peer_port };
		uint32_t k = 0, rev = slot_of(c, o.node, o.port);
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
		if (t->bad[rev] >= 2 && t->bad[rev] > t->good[rev])
			cabs[k].dir[!d] = true;
	}
	return nc;
}

static bool is_adapter(const struct ctx *c, int32_t n)
{
	return !c->f->nodes[n].is_switch;
}

static void add_cable(struct ix_ibb_element *e, const struct cab *k)
{
	for (int d = 0; d < 2; d++)
		if (k->dir[d] && e->ncables < IX_IBB_MAX_CABLES)
			e->cables[e->ncables++] = k->end[d];
}

static const char *dirs_text(const struct ctx *c, const struct cab *k, char *buf, size_t len)
{
	if (k->dir[0] && k->dir[1])
		return "both ways";
	snprintf(buf, len, "towards \"%.64s\"", c->f->nodes[k->end[k->dir[0] ? 1 : 0].node].desc);
	return buf;
}

/* The mesh host tied to adapter n, else its description's first word. */
static void host_name(const struct ctx *c, int32_t n, char *buf, size_t len)
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

static void name_cable(const struct ctx *c, const struct cab *k, char *buf, size_t len)
{
	char a[96], b[96], d[96];

	snprintf(buf, len, "%s - %s, %s",
		 ix_ibfab_port_label(c->f, k->end[0].node, k->end[0].port, a, sizeof(a)),
		 ix_ibfab_port_label(c->f, k->end[1].node, k->end[1].port, b, sizeof(b)),
		 dirs_text(c, k, d, sizeof(d)));
}

/* Switch s's cables to other switches. */
static uint32_t switch_links(const struct ctx *c, int32_t s)
{
	const struct ix_ibfab_node *nd = &c->f->nodes[s];
	uint32_t m = 0;

	for (uint32_t p = 1; p <= nd->nports; p++)
		m += nd->ports[p].peer_node >= 0 && c->f->nodes[nd->ports[p].peer_node].is_switch;
	return m;
}

static bool has_adapters(const struct ctx *c, int32_t s)
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
static int32_t busiest(const struct ctx *c, const struct cab *cabs, uint32_t nc, uint32_t *most)
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

static void group_switches(struct ctx *c, struct cab *cabs, uint32_t nc)
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

static void group(struct ctx *c, const struct tally *t, const uint32_t *picks, uint32_t np)
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
	const struct ix_cell *cl = &r->cells[(size_t)a * r->n + b];
	char v[32] = "";

	if (cl->state == IX_CELL_FAILED)
		snprintf(v, sizeof(v), "failed");
	else if (cl->bw_zero)
		snprintf(v, sizeof(v), "moved nothing");
	else if (cl->bad & IX_BAD_BW)
		ix_rate_text(cl->bw_bps, v, sizeof(v));
	else if (cl->lat_lost)
		snprintf(v, sizeof(v), "no round trip");
	else
		snprintf(v, sizeof(v), "p50 %.1f us", cl->lat_p50_ns / 1e3);
	snprintf(buf, len, "%.64s -> %.64s: %s", r->hosts->v[a].name, r->hosts->v[b].name, v);
}

/* The counters that moved at port (node n of the routes, port p) as ctrs
 * read them, appended to buf; how many. */
static int moved_at(const struct ctx *c, const struct ix_ibfab *ctrs, int32_t n, uint32_t p,
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

static void evidence(struct ctx *c, const struct ix_ibfab *ctrs, struct ix_ibb_element *e,
		     const uint32_t *example)
{
	char ex[200], ctr[400] = "", pairs[96];
	int moved = 0;

	cell_text(c->r, example[0], example[1], ex, sizeof(ex));
	for (uint32_t i = 0; ctrs && i < e->ncables; i++) {
		const struct ix_ibfab_port *pt =
			ix_ibfab_port(c->f, e->cables[i].node, e->cables[i].port);

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
}

/* Second pass: each element's pairs, the bad ones it explains, an example;
 * the bad pairs none explains. */
static void count_elements(struct ctx *c, const struct ix_ibfab *ctrs)
{
	const struct ix_mesh_result *r = c->r;
	uint32_t slots[MAX_SLOTS], ns, example[IX_IBB_MAX_ELEMENTS][2];
	int8_t *elem = malloc(c->nslots);
	bool seen[IX_IBB_MAX_ELEMENTS] = { false };

	if (!elem)
		return;
	memset(elem, -1, c->nslots);
	for (uint32_t i = 0; i < c->b->n; i++)
		for (uint32_t k = 0; k < c->b->v[i].ncables; k++)
			elem[slot_of(c, c->b->v[i].cables[k].node, c->b->v[i].cables[k].port)] =
				(int8_t)i;
	for (uint32_t a = 0; a < r->n; a++)
		for (uint32_t b = 0; b < r->n; b++) {
			bool back = false, hit[IX_IBB_MAX_ELEMENTS] = { false }, any = false;
			int kind = cell_kind(r, a, b, &back);

			if (!kind || walk(c, a, b, back, slots, &ns) < 0)
				continue;
			for (uint32_t j = 0; j < ns; j++)
				if (elem[slots[j]] >= 0)
					hit[elem[slots[j]]] = true;
			for (uint32_t i = 0; i < c->b->n; i++) {
				if (!hit[i])
					continue;
				any = true;
				if (kind == 1) {
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
			if (kind == 2 && !any)
				c->b->unexplained++;
		}
	for (uint32_t i = 0; i < c->b->n; i++)
		if (seen[i])
			evidence(c, ctrs, &c->b->v[i], example[i]);
	free(elem);
}

int ix_ibblame_build(const struct ix_mesh_result *r, const struct ix_ibfab *routes,
		     const struct ix_ibfab *ctrs, const char *why_no_counters,
		     struct ix_ibblame *out, struct ix_err *err)
{
	struct ctx c = { r, routes, out, NULL, 0 };
	struct tally t = { 0 };
	uint32_t picks[MAX_PICKS], np;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->hosts = r->n;
	out->counters = ctrs && !(why_no_counters && why_no_counters[0]);
	snprintf(out->counters_why, sizeof(out->counters_why), "%s",
		 out->counters                           ? ""
		 : why_no_counters && why_no_counters[0] ? why_no_counters
							 : "the subnet was read once");
	for (uint32_t i = 0; i < routes->n; i++)
		out->switches_routed += routes->nodes[i].nlft > 0;
	out->ties = calloc(r->n ? r->n : 1, sizeof(*out->ties));
	c.base = malloc(((size_t)routes->n + 1) * sizeof(*c.base));
	if (!out->ties || !c.base)
		goto oom;
	for (uint32_t i = 0; i < routes->n; i++) {
		c.base[i] = c.nslots;
		c.nslots += routes->nodes[i].nports + 1u;
	}
	t.bad = calloc(c.nslots ? c.nslots : 1, sizeof(*t.bad));
	t.good = calloc(c.nslots ? c.nslots : 1, sizeof(*t.good));
	if (!t.bad || !t.good)
		goto oom;
	tie_hosts(&c);
	if (r->cells && routes->n && tally_cells(&c, &t) < 0)
		goto oom;
	t.done = calloc(t.nbad ? t.nbad : 1, sizeof(*t.done));
	if (!t.done)
		goto oom;
	np = cover(&c, &t, picks);
	group(&c, &t, picks, np);
	count_elements(&c, out->counters ? ctrs : NULL);
	rc = 0;
	goto out;
oom:
	ix_ibblame_free(out);
	ix_fail(err, IX_EXIT_FAIL, "out of memory joining the mesh with the subnet");
out:
	free(c.base);
	free(t.bad);
	free(t.good);
	free(t.off);
	free(t.slots);
	free(t.done);
	return rc;
}

void ix_ibblame_free(struct ix_ibblame *b)
{
	free(b->ties);
	memset(b, 0, sizeof(*b));
}

const char *ix_ibb_kind_name(enum ix_ibb_kind k)
{
	static const char *const names[] = { "host_cable", "link", "uplinks", "switch", "cables" };

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

void ix_ibblame_neighbors(const struct ix_ibblame *b, const struct ix_ibfab *routes,
			  struct ix_neighbor *nbrs)
{
	for (uint32_t i = 0; i < b->hosts; i++) {
		const struct ix_ibb_tie *t = &b->ties[i];
		const struct ix_ibfab_port *pt =
			t->node >= 0 ? ix_ibfab_port(routes, t->node, t->port) : NULL;
		const struct ix_ibfab_node *sw;

		memset(&nbrs[i], 0, sizeof(nbrs[i]));
		if (!pt || pt->peer_node < 0)
			continue;
		sw = &routes->nodes[pt->peer_node];
		snprintf(nbrs[i].source, sizeof(nbrs[i].source), "ib");
		snprintf(nbrs[i].chassis, sizeof(nbrs[i].chassis), "ib 0x%016llx",
			 (unsigned long long)sw->guid);
		snprintf(nbrs[i].name, sizeof(nbrs[i].name), "%.63s", sw->desc);
		snprintf(nbrs[i].port, sizeof(nbrs[i].port), "%u", pt->peer_port);
	}
}
