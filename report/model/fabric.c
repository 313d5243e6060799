#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/fabric.h"

#define BAND_CELLS 68  /* the grid's width: four blocks of 16 and their gaps */
#define BLOCK_COLS 16  /* a switch's hosts per row */
#define SPLIT_BW   2.0 /* a gap in the pairs' goodput that splits groups */
#define SPLIT_LAT  1.5 /* the same for latency (a mesh without bandwidth) */

static struct ix_cell cell(const struct ix_fab_input *in, uint32_t a, uint32_t b)
{
	return ix_cells_get(in->cells, a, b);
}

static bool measured(const struct ix_cell *c)
{
	return c->state == IX_CELL_OK && !c->mirrored &&
	       (ix_cell_has_bw(c) || c->lat_p50_ns > 0 || c->lat_lost);
}

/* A cell the fabric counts bad: flagged, or measured below limit (the
 * fraction of the fabric's reference bandwidth). */
static bool fab_bad(const struct ix_cell *c, double limit)
{
	return !c->mirrored && (c->bad || (measured(c) && c->bw_bps > 0 && c->bw_bps < limit));
}

/* ---- where each host hangs: LLDP, then inferred ---- */

static int add_switch(struct ix_fabric *f, const char *name, const char *chassis, bool inferred)
{
	struct ix_fab_switch *s = &f->sw[f->nsw];

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->chassis, sizeof(s->chassis), "%s", chassis);
	s->inferred = inferred;
	return (int)f->nsw++;
}

/* A pair's goodput (the slower direction measured) and latency (the
 * higher p50); false when neither direction is measured. */
static bool pair_figs(const struct ix_fab_input *in, uint32_t a, uint32_t b, double *bw,
		      double *lat)
{
	struct ix_cell x = cell(in, a, b), y = cell(in, b, a);
	bool any = false;

	*bw = 0;
	*lat = 0;
	for (int k = 0; k < 2; k++) {
		const struct ix_cell *c = k ? &y : &x;

		if (!measured(c))
			continue;
		if (c->bw_bps > 0)
			*bw = *bw > 0 ? fmin(*bw, c->bw_bps) : c->bw_bps;
		*lat = fmax(*lat, c->lat_p50_ns);
		any = true;
	}
	return any;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The widest gap (as a ratio) between neighbouring values of v, when it
 * is at least min_ratio: the geometric middle of it; 0 otherwise. */
static double split_at(double *v, size_t n, double min_ratio)
{
	double best = 0, at = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] > 0 && v[i] / v[i - 1] > best) {
			best = v[i] / v[i - 1];
			at = sqrt(v[i] * v[i - 1]);
		}
	return best >= min_ratio ? at : 0;
}

struct infer {
	const struct ix_fab_input *in;
	double split_bw, split_lat;
};

static bool near(const struct infer *c, uint32_t a, uint32_t b)
{
	double bw, lat;

	if (!pair_figs(c->in, a, b, &bw, &lat))
		return false;
	if (c->split_bw > 0)
		return bw >= c->split_bw;
	return c->split_lat <= 0 || (lat > 0 && lat <= c->split_lat);
}

/* Whether the groups are what the split says: most pairs within a group
 * near, most pairs between groups not (a gap among evenly noisy pairs
 * makes groups that are neither, and is no fabric). */
static bool consistent(const struct infer *c, const uint32_t *u, uint32_t nu, const int *sw_of)
{
	uint32_t in = 0, in_near = 0, across = 0, across_near = 0;

	for (uint32_t i = 0; i < nu; i++)
		for (uint32_t j = i + 1; j < nu; j++) {
			double bw, lat;

			if (!pair_figs(c->in, u[i], u[j], &bw, &lat))
				continue;
			if (sw_of[u[i]] == sw_of[u[j]]) {
				in++;
				in_near += near(c, u[i], u[j]);
			} else {
				across++;
				across_near += near(c, u[i], u[j]);
			}
		}
	return across == 0 || (5 * in_near >= 4 * in && 5 * across_near <= across);
}

/* A host near no group is a slow host, not a switch of its own: it joins
 * the largest group. Then the groups are renumbered ("group 1", ...). */
static int merge_lone(struct ix_fabric *f, const uint32_t *u, uint32_t nu, int first, int *sw_of)
{
	uint32_t ng = f->nsw - (uint32_t)first, *count = calloc(ng + 1, sizeof(*count));
	int *map = calloc(ng + 1, sizeof(*map)), big = 0, next = first;

	if (!count || !map) {
		free(count);
		free(map);
		return -1;
	}
	for (uint32_t i = 0; i < nu; i++)
		count[sw_of[u[i]] - first]++;
	for (uint32_t g = 1; g < ng; g++)
		if (count[g] > count[big])
			big = (int)g;
	for (uint32_t g = 0; g < ng; g++)
		map[g] = count[g] > 1 || count[big] <= 1 || (int)g == big ? next++ : -1;
	for (uint32_t i = 0; i < nu; i++) {
		int g = sw_of[u[i]] - first;

		sw_of[u[i]] = map[g] >= 0 ? map[g] : map[big];
	}
	f->nsw = (uint32_t)next;
	for (int g = first; g < next; g++)
		snprintf(f->sw[g].name, sizeof(f->sw[g].name), "group %d", g - first + 1);
	free(count);
	free(map);
	return 0;
}

/* Group the hosts of u[0..nu) (those without a neighbour): split the
 * pairs at the widest gap in their goodput (or latency, when the mesh
 * measured no bandwidth), then put each host with the first group it is
 * near to most of, or in a group of its own. */
static int infer_groups(struct ix_fabric *f, const struct ix_fab_input *in, const uint32_t *u,
			uint32_t nu, int *sw_of)
{
	size_t cap = (size_t)nu * (nu - 1) / 2 + 1, nb = 0, nl = 0;
	double *bw = malloc(cap * sizeof(*bw)), *lat = malloc(cap * sizeof(*lat));
	struct infer c = { .in = in };
	int first = (int)f->nsw;
	uint32_t *members, *nearby;

	if (!bw || !lat) {
		free(bw);
		free(lat);
		return -1;
	}
	for (uint32_t i = 0; i < nu; i++)
		for (uint32_t j = i + 1; j < nu; j++) {
			double b, l;

			if (!pair_figs(in, u[i], u[j], &b, &l))
				continue;
			if (b > 0)
				bw[nb++] = b;
			if (l > 0)
				lat[nl++] = l;
		}
	c.split_bw = split_at(bw, nb, SPLIT_BW);
	if (nb == 0)
		c.split_lat = split_at(lat, nl, SPLIT_LAT);
	f->split_bps = c.split_bw;
	free(bw);
	free(lat);
	/* Per group so far: its members, and those near host i. */
	members = calloc(nu + 1, sizeof(*members));
	nearby = calloc(nu + 1, sizeof(*nearby));
	if (!members || !nearby) {
		free(members);
		free(nearby);
		return -1;
	}
	for (uint32_t i = 0; i < nu; i++) {
		int best = -1;

		memset(nearby, 0, (nu + 1) * sizeof(*nearby));
		for (uint32_t j = 0; j < i; j++)
			nearby[sw_of[u[j]] - first] += near(&c, u[i], u[j]);
		for (int g = first; g < (int)f->nsw && best < 0; g++)
			if (2 * nearby[g - first] > members[g - first])
				best = g;
		if (best < 0)
			best = add_switch(f, "", "", true);
		sw_of[u[i]] = best;
		members[best - first]++;
	}
	free(members);
	free(nearby);
	f->inferred = true;
	if (merge_lone(f, u, nu, first, sw_of) < 0)
		return -1;
	if (f->nsw == (uint32_t)first + 1 || !consistent(&c, u, nu, sw_of)) {
		/* One group: the mesh shows no set of hosts apart. */
		for (uint32_t i = 0; i < nu; i++)
			sw_of[u[i]] = first;
		f->nsw = (uint32_t)first + 1;
		f->split_bps = 0;
	}
	return 0;
}

static int assign(struct ix_fabric *f, const struct ix_fab_input *in, int *sw_of)
{
	uint32_t *u = malloc(((size_t)in->n + 1) * sizeof(*u)), nu = 0;
	int rc = 0;

	if (!u)
		return -1;
	for (uint32_t i = 0; i < in->n; i++) {
		const struct ix_neighbor *nb = in->nbrs ? &in->nbrs[i] : NULL;
		int g = -1;

		if (!nb || !nb->source[0] || !nb->chassis[0]) {
			u[nu++] = i;
			continue;
		}
		for (uint32_t s = 0; s < f->nsw && g < 0; s++)
			if (strcmp(f->sw[s].chassis, nb->chassis) == 0)
				g = (int)s;
		if (g < 0)
			g = add_switch(f, nb->name[0] ? nb->name : nb->chassis, nb->chassis, false);
		sw_of[i] = g;
		if (strcmp(nb->source, "ib") == 0)
			f->ib_hosts++;
		else
			f->lldp_hosts++;
	}
	if (nu)
		rc = infer_groups(f, in, u, nu, sw_of);
	free(u);
	return rc;
}

/* ---- figures through each edge ---- */

struct acc {
	float *out, *in, *lat; /* scratch: their medians reorder them */
	size_t nout, nin, nlat;
	uint32_t pairs, bad;
};

static void acc_add(struct acc *a, const struct ix_cell *c, bool bad, bool out)
{
	if (!measured(c))
		return;
	a->pairs++;
	a->bad += bad;
	if (ix_cell_has_bw(c)) { /* a pair measured at 0 counts at 0 */
		if (out)
			a->out[a->nout++] = c->bw_bps;
		else
			a->in[a->nin++] = c->bw_bps;
	}
	if (c->lat_p50_ns > 0)
		a->lat[a->nlat++] = c->lat_p50_ns;
}

static void acc_done(struct acc *a, struct ix_fab_edge *e)
{
	e->out_bps = ix_median_float(a->out, a->nout);
	e->in_bps = ix_median_float(a->in, a->nin);
	e->lat_ns = ix_median_float(a->lat, a->nlat);
	e->pairs = a->pairs;
	e->bad = a->bad;
	a->nout = a->nin = a->nlat = 0;
	a->pairs = a->bad = 0;
}

/* The host edges (all of a host's cells) and the uplinks (the cells
 * between a switch's hosts and the others). */
static void uplink_figures(struct ix_fabric *f, const struct ix_fab_input *in, const int *sw_of,
			   double limit, struct acc *a)
{
	for (uint32_t s = 0; s < f->nsw; s++) {
		for (uint32_t h = 0; h < in->n; h++)
			for (uint32_t o = 0; o < in->n; o++)
				if (sw_of[h] == (int)s && sw_of[o] != (int)s) {
					struct ix_cell x = cell(in, h, o), y = cell(in, o, h);

					acc_add(a, &x, fab_bad(&x, limit), true);
					acc_add(a, &y, fab_bad(&y, limit), false);
				}
		acc_done(a, &f->sw[s].uplink);
	}
}

/* Whether the pair of h and o crosses an uplink found bad. */
static bool across_bad(const struct ix_fabric *f, const int *sw_of, uint32_t h, uint32_t o)
{
	return sw_of[o] != sw_of[h] && (f->sw[sw_of[h]].uplink.health == IX_FAB_BAD ||
					f->sw[sw_of[o]].uplink.health == IX_FAB_BAD);
}

/* A host's edge: its cells, less those across a bad uplink (they are the
 * uplink's; their bad ones are counted as explained). */
static void host_figures(struct ix_fabric *f, const struct ix_fab_input *in, const int *sw_of,
			 double limit, struct acc *a)
{
	for (uint32_t p = 0; p < f->n; p++) {
		struct ix_fab_edge *e = &f->host[p].edge;
		uint32_t h = f->host[p].node;

		for (uint32_t o = 0; o < in->n; o++) {
			struct ix_cell x = cell(in, h, o), y = cell(in, o, h);

			if (o == h)
				continue;
			if (across_bad(f, sw_of, h, o)) {
				e->explained += (measured(&x) && fab_bad(&x, limit)) +
						(measured(&y) && fab_bad(&y, limit));
				continue;
			}
			acc_add(a, &x, fab_bad(&x, limit), true);
			acc_add(a, &y, fab_bad(&y, limit), false);
		}
		acc_done(a, e);
	}
}

/* ---- blame ---- */

static double share_of(const struct ix_fab_edge *e)
{
	return e->pairs ? (double)e->bad / e->pairs : 0;
}

/* Whether every host of switch s sees most of its cells towards other
 * switches bad, leaving out those towards a switch in skip; *bad counts
 * the bad cells left in. */
static bool all_hosts_cut(const struct ix_fabric *f, const struct ix_fab_input *in,
			  const int *sw_of, double limit, uint32_t s, const bool *skip,
			  uint32_t *bad_left)
{
	uint32_t seen = 0;
	bool cut = true;

	*bad_left = 0;
	for (uint32_t k = 0; k < f->sw[s].count; k++) {
		uint32_t h = f->host[f->sw[s].first + k].node, pairs = 0, bad = 0;

		for (uint32_t o = 0; o < in->n; o++) {
			if (sw_of[o] == (int)s || skip[sw_of[o]])
				continue;
			for (int d = 0; d < 2; d++) {
				struct ix_cell c = d ? cell(in, o, h) : cell(in, h, o);

				if (measured(&c)) {
					pairs++;
					bad += fab_bad(&c, limit);
				}
			}
		}
		*bad_left += bad;
		if (pairs == 0)
			continue;
		cut = cut && 2 * bad > pairs;
		seen++;
	}
	return cut && seen > 0;
}

static void blame_uplinks(struct ix_fabric *f, const struct ix_fab_input *in, const int *sw_of,
			  double limit, bool *skip)
{
	const bool *none = skip + f->n;            /* n more, all false */
	bool *cut_alone = skip + 2 * (size_t)f->n; /* and n: each uplink cut on its own */
	uint32_t left;

	for (uint32_t o = 0; o < f->nsw; o++)
		cut_alone[o] =
			f->sw[o].count >= 2 && all_hosts_cut(f, in, sw_of, limit, o, none, &left);
	for (uint32_t s = 0; s < f->nsw; s++) {
		struct ix_fab_edge *e = &f->sw[s].uplink;
		bool cut;

		if (e->bad == 0)
			continue;
		/* Set aside the pairs towards a switch whose uplink is worse. */
		for (uint32_t o = 0; o < f->nsw; o++)
			skip[o] =
				o != s && share_of(&f->sw[o].uplink) > share_of(e) && cut_alone[o];
		cut = all_hosts_cut(f, in, sw_of, limit, s, skip, &left);
		if (f->sw[s].count >= 2 && cut) {
			e->health = IX_FAB_BAD;
			snprintf(e->why, sizeof(e->why),
				 "%u of %u pairs across it bad, at every host below it", e->bad,
				 e->pairs);
		} else if (left) {
			e->health = IX_FAB_WARN;
			snprintf(e->why, sizeof(e->why), "%u of %u pairs across it bad", left,
				 e->pairs);
		}
	}
}

static void blame_hosts(struct ix_fabric *f, const struct ix_fab_input *in)
{
	for (uint32_t p = 0; p < f->n; p++) {
		struct ix_fab_edge *e = &f->host[p].edge;
		char moved[96];

		if (in->ctrs) {
			e->ctrs = in->ctrs[f->host[p].node];
			ix_ctr_sum_add(&f->sw[f->host[p].sw].uplink.ctrs, &e->ctrs);
		}
		if (e->bad == 0 && ix_ctr_sum_sentence(&e->ctrs, moved, sizeof(moved))) {
			e->health = IX_FAB_WARN;
			snprintf(e->why, sizeof(e->why), "counters moved: %s", moved);
		}
		if (e->bad == 0)
			continue;
		e->health = e->bad >= 2 && 2 * e->bad > e->pairs ? IX_FAB_BAD : IX_FAB_WARN;
		snprintf(e->why, sizeof(e->why), "%u of %u pairs bad%s", e->bad, e->pairs,
			 e->explained ? " that no bad uplink explains" : "");
	}
}

/* ---- layout ---- */

static void layout(struct ix_fabric *f)
{
	int x = 0, y = 0, band = 0;

	f->width = 0;
	for (uint32_t s = 0; s < f->nsw; s++) {
		struct ix_fab_switch *w = &f->sw[s];

		w->cols = w->count < BLOCK_COLS ? (int)w->count : BLOCK_COLS;
		if (w->cols < 1)
			w->cols = 1;
		w->rows = ((int)w->count + w->cols - 1) / w->cols;
		if (x > 0 && x + w->cols > BAND_CELLS) {
			x = 0;
			y += band + 2;
			band = 0;
		}
		w->x = x;
		w->y = y;
		for (uint32_t k = 0; k < w->count; k++) {
			f->host[w->first + k].x = x + (int)k % w->cols;
			f->host[w->first + k].y = y + 1 + (int)k / w->cols;
		}
		if (w->rows + 1 > band)
			band = w->rows + 1;
		x += w->cols + 1;
		if (x - 1 > f->width)
			f->width = x - 1;
	}
	f->height = y + band;
}

/* The goodput a pair gets without an uplink: the median of the pairs
 * within a switch (two or more), else of all pairs. */
/* The cells the reference is taken over: measured with a bandwidth, and
 * (within) between hosts of one switch. */
struct ref_pick {
	const int *sw_of;
	bool within;
};

static bool ref_keep(const struct ix_cell *c, uint32_t a, uint32_t b, const void *arg)
{
	const struct ref_pick *p = arg;

	return measured(c) && c->bw_bps > 0 && (!p->within || p->sw_of[a] == p->sw_of[b]);
}

/* The reference goodput: the median of the pairs within a switch when
 * there are two at least, else of all pairs. */
static int reference(struct ix_fabric *f, const struct ix_fab_input *in, const int *sw_of)
{
	uint64_t count = 0;

	for (int pass = 0; pass < 2 && count < 2; pass++) {
		struct ref_pick p = { sw_of, pass == 0 };

		f->ref_bps = ix_cells_percentile(in->cells, false, ref_keep, &p, 50, &count);
		if (isnan(f->ref_bps))
			return -1;
		f->ref_within = pass == 0 && count >= 2;
	}
	return 0;
}

int ix_fabric_build(const struct ix_fab_input *in, struct ix_fabric *f)
{
	size_t n = in->n ? in->n : 1;
	int *sw_of = malloc(n * sizeof(*sw_of));
	double frac = in->bw_fraction > 0 ? in->bw_fraction : 0.7;
	/* An edge's cells: a host's 2(n - 1), an uplink's k(n - k) each way. */
	size_t most = n * n / 4 + 2 * n;
	struct acc a = { .out = malloc(most * sizeof(float)),
			 .in = malloc(most * sizeof(float)),
			 .lat = malloc(2 * most * sizeof(float)) };
	bool *skip = calloc(3 * n, sizeof(*skip));
	uint32_t pos = 0;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	f->n = in->n;
	f->sw = calloc(n, sizeof(*f->sw));
	f->host = calloc(n, sizeof(*f->host));
	f->at = calloc(n, sizeof(*f->at));
	if (!sw_of || !a.out || !a.in || !a.lat || !skip || !f->sw || !f->host || !f->at ||
	    assign(f, in, sw_of) < 0)
		goto out;
	for (uint32_t s = 0; s < f->nsw; s++) {
		f->sw[s].first = pos;
		for (uint32_t h = 0; h < in->n; h++)
			if (sw_of[h] == (int)s) {
				struct ix_fab_host *x = &f->host[pos];

				x->node = h;
				x->sw = (int)s;
				if (in->nbrs && in->nbrs[h].source[0])
					snprintf(x->port, sizeof(x->port), "%s", in->nbrs[h].port);
				f->at[h] = pos++;
				f->sw[s].count++;
			}
	}
	if (reference(f, in, sw_of) < 0)
		goto out;
	uplink_figures(f, in, sw_of, frac * f->ref_bps, &a);
	blame_uplinks(f, in, sw_of, frac * f->ref_bps, skip);
	host_figures(f, in, sw_of, frac * f->ref_bps, &a);
	blame_hosts(f, in);
	layout(f);
	rc = 0;
out:
	free(sw_of);
	free(a.out);
	free(a.in);
	free(a.lat);
	free(skip);
	if (rc < 0)
		ix_fabric_free(f);
	return rc;
}

int ix_fabric_of_mesh(const struct ix_mesh_result *r, struct ix_fabric *out)
{
	struct ix_neighbor *nb = calloc(r->n ? r->n : 1, sizeof(*nb));
	struct ix_fab_input in = { .n = r->n,
				   .cells = &r->cells,
				   .nbrs = nb,
				   .bw_fraction = r->params.rules.bw_fraction };
	int rc;

	if (!nb) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	struct ix_ctr_sum *ctrs = r->counters_read ? calloc(r->n ? r->n : 1, sizeof(*ctrs)) : NULL;

	for (uint32_t i = 0; i < r->n && r->nodes; i++) {
		nb[i] = r->nodes[i].link.neighbor;
		if (ctrs)
			ctrs[i] = r->nodes[i].counters;
	}
	in.ctrs = ctrs;
	rc = ix_fabric_build(&in, out);
	free(ctrs);
	free(nb);
	return rc;
}

bool ix_fabric_worth_drawing(const struct ix_fabric *f)
{
	return f->n >= 3 && (f->lldp_hosts > 0 || f->ib_hosts > 0 || f->nsw > 1);
}

void ix_fabric_free(struct ix_fabric *f)
{
	free(f->sw);
	free(f->host);
	free(f->at);
	memset(f, 0, sizeof(*f));
}

const char *ix_fabric_source(const struct ix_fabric *f)
{
	static const char *const names[2][2][2] = {
		/* [lldp][ib][inferred] */
		{ { "LLDP", "inferred from the mesh" },
		  { "the InfiniBand subnet", "the InfiniBand subnet and inferred from the mesh" } },
		{ { "LLDP", "LLDP and inferred from the mesh" },
		  { "LLDP and the InfiniBand subnet",
		    "LLDP, the InfiniBand subnet and inferred from the mesh" } },
	};

	return names[f->lldp_hosts > 0][f->ib_hosts > 0][f->inferred];
}

double ix_fab_share(const struct ix_fabric *f, const struct ix_fab_edge *e)
{
	double v;

	if (e->out_bps <= 0 && e->in_bps <= 0)
		return -1;
	if (f->ref_bps <= 0)
		return 1;
	v = e->out_bps > 0 && e->in_bps > 0 ? fmin(e->out_bps, e->in_bps)
					    : fmax(e->out_bps, e->in_bps);
	v /= f->ref_bps;
	return v > 1 ? 1 : v;
}

enum ix_fab_health ix_fabric_worst(const struct ix_fabric *f, uint32_t *count)
{
	enum ix_fab_health w = IX_FAB_OK;
	uint32_t c = 0;

	for (uint32_t i = 0; i < f->nsw + f->n; i++) {
		enum ix_fab_health h =
			i < f->nsw ? f->sw[i].uplink.health : f->host[i - f->nsw].edge.health;

		if (h > w) {
			w = h;
			c = 0;
		}
		c += h == w;
	}
	if (count)
		*count = c;
	return w;
}
