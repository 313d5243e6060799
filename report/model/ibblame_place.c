/* A mesh's pairs placed on the InfiniBand subnet, hosts tied to their
 * adapters and the cable directions that explain the bad pairs picked
 * (report/model/ibblame.h). */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probes/cluster/analysis.h"
#include "report/model/ibblame_int.h"

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

static void tie_hosts(struct ix_ibb_ctx *c)
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

/* Whether the mesh's tests could have crossed an InfiniBand subnet: over
 * RDMA, or over IP on a host whose link is an InfiniBand port (IPoIB). */
static void path_caveat(const struct ix_mesh_result *r, struct ix_ibblame *b)
{
	const char *path = r->params.bw.path ? r->params.bw.path : "tcp";

	if (strcmp(path, "rdma") == 0)
		return;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct ix_link_limit *l = link_of(r, i);

		if (l && (l->port_guid || strcmp(l->source, "infiniband rate") == 0))
			return;
	}
	snprintf(b->caveat, sizeof(b->caveat),
		 "the mesh ran over %.8s and no host's link is an InfiniBand port: its pairs "
		 "may not have crossed this subnet",
		 path);
}

/* ---- pairs to cables ---- */

static void add_slots(const struct ix_ibb_ctx *c, const struct ix_ibfab_hop *h, uint32_t nh,
		      uint32_t *slots, uint32_t *ns)
{
	for (uint32_t k = 0; k < nh; k++) {
		uint32_t s = ix_ibb_slot(c, h[k].node, h[k].port), j = 0;

		while (j < *ns && slots[j] != s)
			j++;
		if (j == *ns && *ns < MAX_SLOTS)
			slots[(*ns)++] = s;
	}
}

static uint16_t lid_of(const struct ix_ibb_ctx *c, uint32_t host)
{
	const struct ix_ibb_tie *t = &c->b->ties[host];

	return c->f->nodes[t->node].ports[t->port].lid;
}

unsigned ix_ibb_cell_tests(const struct ix_mesh_result *r, uint32_t a, uint32_t b)
{
	struct ix_cell cl = ix_cells_get(&r->cells, a, b);
	unsigned m = 0;

	if (a == b || (cl.state != IX_CELL_OK && cl.state != IX_CELL_FAILED) ||
	    (r->node_error && (r->node_error[a] || r->node_error[b])))
		return 0;
	if (cl.state == IX_CELL_FAILED)
		return IX_IBB_BW | IX_IBB_BW_BAD | IX_IBB_LAT | IX_IBB_LAT_BAD;
	if (ix_cell_has_bw(&cl))
		m |= IX_IBB_BW | (cl.bad & IX_BAD_BW ? IX_IBB_BW_BAD : 0);
	if (ix_cell_has_lat(&cl) || cl.lat_lost)
		m |= IX_IBB_LAT | (cl.bad & IX_BAD_LAT ? IX_IBB_LAT_BAD : 0);
	return m;
}

/* The cable directions of a's test towards b: 0, or -1 with why kept. */
int ix_ibb_walk(struct ix_ibb_ctx *c, uint32_t a, uint32_t b, bool back, uint32_t *slots,
		uint32_t *nout, uint32_t *ns)
{
	struct ix_ibfab_hop hops[IX_IBFAB_MAX_HOPS];
	const struct ix_ibb_tie *ta = &c->b->ties[a], *tb = &c->b->ties[b];
	char why[300];
	uint32_t nh;

	*ns = *nout = 0;
	if (ta->node < 0 || tb->node < 0) {
		snprintf(why, sizeof(why), "%.64s is not tied to the subnet: %.160s",
			 ta->node < 0 ? c->r->hosts->v[a].name : c->r->hosts->v[b].name,
			 ta->node < 0 ? ta->why : tb->why);
		goto fail;
	}
	if (ix_ibfab_path(c->f, ta->node, ta->port, lid_of(c, b), hops, &nh, why, sizeof(why)) < 0)
		goto fail;
	add_slots(c, hops, nh, slots, ns);
	*nout = *ns;
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

static int keep_bad(struct ix_ibb_tally *t, const uint32_t *s, uint32_t ns)
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

static void count_tests(struct ix_ibb_tally *t, unsigned m, const uint32_t *slots, uint32_t nout,
			uint32_t ns)
{
	for (uint32_t j = 0; m & IX_IBB_BW && j < nout; j++)
		(m & IX_IBB_BW_BAD ? t->bw_bad : t->bw_good)[slots[j]]++;
	for (uint32_t j = 0; m & IX_IBB_LAT && j < ns; j++)
		(m & IX_IBB_LAT_BAD ? t->lat_bad : t->lat_good)[slots[j]]++;
}

static int tally_cells(struct ix_ibb_ctx *c, struct ix_ibb_tally *t)
{
	const struct ix_mesh_result *r = c->r;
	uint32_t slots[MAX_SLOTS], nout, ns;

	for (uint32_t a = 0; a < r->n; a++)
		for (uint32_t b = 0; b < r->n; b++) {
			unsigned m = ix_ibb_cell_tests(r, a, b);

			if (!m)
				continue;
			if (ix_ibb_walk(c, a, b, m & IX_IBB_LAT, slots, &nout, &ns) < 0) {
				c->b->unplaced++;
				continue;
			}
			count_tests(t, m, slots, nout, ns);
			if (!(m & IX_IBB_BAD)) {
				c->b->pairs_good++;
				continue;
			}
			c->b->pairs_bad++;
			if (keep_bad(t, slots, ix_ibb_blamed(m, nout, ns)) < 0)
				return -1;
		}
	return 0;
}

/* The greedy cover: up to MAX_PICKS directions, each explaining two bad
 * pairs or more that none before it did. */
static uint32_t cover(const struct ix_ibb_ctx *c, struct ix_ibb_tally *t, uint32_t *picks)
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
			if (cnt[s] < 2 || !ix_ibb_suspect(t, s))
				continue;
			if (best == UINT32_MAX || cnt[s] > cnt[best] ||
			    (cnt[s] == cnt[best] &&
			     t->bw_good[s] + t->lat_good[s] < t->bw_good[best] + t->lat_good[best]))
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

int ix_ibblame_build(const struct ix_ibblame_input *in, struct ix_ibblame *out, struct ix_err *err)
{
	const struct ix_mesh_result *r = in->mesh;
	const struct ix_ibfab *routes = in->routes;
	const char *why_no_counters = in->why_no_counters;
	struct ix_ibb_ctx c = { r, routes, out, NULL, 0, in };
	struct ix_ibb_tally t = { 0 };
	uint32_t picks[MAX_PICKS], np;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->hosts = r->n;
	out->counters = in->ctrs && !(why_no_counters && why_no_counters[0]);
	snprintf(out->counters_why, sizeof(out->counters_why), "%s",
		 out->counters                           ? ""
		 : why_no_counters && why_no_counters[0] ? why_no_counters
							 : "the subnet was read once");
	for (uint32_t i = 0; i < routes->n; i++)
		out->switches_routed += routes->nodes[i].nlft > 0;
	path_caveat(r, out);
	out->ties = calloc(r->n ? r->n : 1, sizeof(*out->ties));
	c.base = malloc(((size_t)routes->n + 1) * sizeof(*c.base));
	if (!out->ties || !c.base)
		goto oom;
	for (uint32_t i = 0; i < routes->n; i++) {
		c.base[i] = c.nslots;
		c.nslots += routes->nodes[i].nports + 1u;
	}
	t.bw_bad = calloc(c.nslots ? c.nslots : 1, 4 * sizeof(*t.bw_bad));
	if (!t.bw_bad)
		goto oom;
	t.bw_good = t.bw_bad + c.nslots;
	t.lat_bad = t.bw_good + c.nslots;
	t.lat_good = t.lat_bad + c.nslots;
	tie_hosts(&c);
	if (r->cells.v && routes->n && tally_cells(&c, &t) < 0)
		goto oom;
	t.done = calloc(t.nbad ? t.nbad : 1, sizeof(*t.done));
	if (!t.done)
		goto oom;
	np = cover(&c, &t, picks);
	ix_ibb_group(&c, &t, picks, np);
	ix_ibb_count(&c);
	rc = 0;
	goto out;
oom:
	ix_ibblame_free(out);
	ix_fail(err, IX_EXIT_FAIL, "out of memory joining the mesh with the subnet");
out:
	free(c.base);
	free(t.bw_bad);
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
