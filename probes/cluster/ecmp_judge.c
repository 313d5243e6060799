/* ixperf ecmp's mapping, figures and verdicts (probes/cluster/ecmp.h):
 * pure functions over the result. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/analysis.h"
#include "probes/cluster/ecmp.h"

static uint64_t rise(uint64_t before, uint64_t after)
{
	return after > before ? after - before : 0;
}

static void top2(char *name, uint64_t *best, uint64_t *second, uint64_t v, const char *n)
{
	if (v > *best) {
		*second = *best;
		*best = v;
		snprintf(name, IX_IFNAME_SIZE, "%s", n);
	} else if (v > *second) {
		*second = v;
	}
}

void ix_ecmp_hop_from(struct ix_ecmp_hop *h, const struct ix_ifstat *before, uint32_t nb,
		      const struct ix_ifstat *after, uint32_t na)
{
	memset(h, 0, sizeof(*h));
	h->read = true;
	for (uint32_t i = 0; i < na; i++) {
		const struct ix_ifstat *b = ix_ifstats_find(before, nb, after[i].name);

		if (!b)
			continue;
		top2(h->in, &h->in_bytes, &h->in2_bytes, rise(b->rx_bytes, after[i].rx_bytes),
		     after[i].name);
		top2(h->out, &h->out_bytes, &h->out2_bytes, rise(b->tx_bytes, after[i].tx_bytes),
		     after[i].name);
	}
}

/* "12.3 MB": bytes in a sentence. */
static void bytes_text(uint64_t v, char *buf, size_t len)
{
	if (v >= 1000000000ull)
		snprintf(buf, len, "%.2f GB", (double)v / 1e9);
	else if (v >= 1000000ull)
		snprintf(buf, len, "%.1f MB", (double)v / 1e6);
	else if (v >= 1000ull)
		snprintf(buf, len, "%.1f kB", (double)v / 1e3);
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
}

/* Whether flow f's bytes explain an interface's rise. */
static bool explains(uint64_t rise_bytes, uint64_t flow_bytes)
{
	return flow_bytes > 0 && (double)rise_bytes >= IX_ECMP_EXPLAINS * (double)flow_bytes;
}

/* The interface most flows came in by (in) or left by, among those it
 * explains; "" and 0 when none. */
static uint32_t mode_of(const struct ix_ecmp_result *r, uint32_t s, bool in, char *name)
{
	uint32_t best = 0;

	name[0] = 0;
	for (uint32_t i = 0; i < r->nflows; i++) {
		const struct ix_ecmp_hop *h = &r->flows[i].hop[s];
		const char *n = in ? h->in : h->out;
		uint32_t c = 0;

		if (!h->read || !explains(in ? h->in_bytes : h->out_bytes, r->flows[i].alone_bytes))
			continue;
		for (uint32_t k = 0; k < r->nflows; k++) {
			const struct ix_ecmp_hop *o = &r->flows[k].hop[s];

			if (o->read && strcmp(in ? o->in : o->out, n) == 0 &&
			    explains(in ? o->in_bytes : o->out_bytes, r->flows[k].alone_bytes))
				c++;
		}
		if (c > best) {
			best = c;
			snprintf(name, IX_IFNAME_SIZE, "%s", n);
		}
	}
	return best;
}

static struct ix_ecmp_uplink *uplink_of(struct ix_ecmp_switch *sw, const char *name)
{
	for (uint32_t i = 0; i < sw->nup; i++)
		if (strcmp(sw->up[i].name, name) == 0)
			return &sw->up[i];
	return NULL;
}

static void add_uplink(struct ix_ecmp_switch *sw, const char *name, bool up)
{
	if (sw->nup == IX_ECMP_MAX_UPLINKS || uplink_of(sw, name))
		return;
	memset(&sw->up[sw->nup], 0, sizeof(sw->up[0]));
	snprintf(sw->up[sw->nup].name, IX_IFNAME_SIZE, "%s", name);
	sw->up[sw->nup++].up = up;
}

/* Flow f's uplink at switch s, or why it has none. */
static void map_flow(struct ix_ecmp_result *r, uint32_t s, struct ix_ecmp_flow *f)
{
	struct ix_ecmp_switch *sw = &r->sw[s];
	struct ix_ecmp_hop *h = &f->hop[s];
	const char *sw_name = r->hosts ? r->hosts->v[sw->host].name : "the switch";
	const char *cand = sw->first_hop ? h->out : h->in;
	uint64_t cb = sw->first_hop ? h->out_bytes : h->in_bytes;
	uint64_t c2 = sw->first_hop ? h->out2_bytes : h->in2_bytes;
	const char *verb = sw->first_hop ? "sent" : "received";
	struct ix_ecmp_uplink *u;
	char fb[32], got[32];

	h->uplink[0] = 0;
	bytes_text(f->alone_bytes, fb, sizeof(fb));
	bytes_text(cb, got, sizeof(got));
	if (!f->alone_ok) {
		snprintf(h->why, sizeof(h->why), "the flow did not run alone");
	} else if (!h->read) {
		snprintf(h->why, sizeof(h->why), "%.64s's counters were not read", sw_name);
	} else if (f->alone_bytes == 0) {
		snprintf(h->why, sizeof(h->why), "the flow moved nothing alone");
	} else if (!explains(cb, f->alone_bytes)) {
		snprintf(h->why, sizeof(h->why),
			 "no interface of %.64s %s 80%% of its %s (the most: %s, %s)", sw_name,
			 verb, fb, cand[0] ? cand : "none", got);
	} else if ((double)c2 >= IX_ECMP_AMBIGUOUS * (double)f->alone_bytes) {
		snprintf(h->why, sizeof(h->why),
			 "two interfaces of %.64s %s over half of its %s: other traffic crosses "
			 "the switch, or the flow was split",
			 sw_name, verb, fb);
	} else if (!(u = uplink_of(sw, cand))) {
		snprintf(h->why, sizeof(h->why), "it %s %s, which is not an uplink",
			 sw->first_hop ? "left by" : "came in by", cand);
	} else {
		snprintf(h->uplink, sizeof(h->uplink), "%s", cand);
		h->uplink_bytes = cb;
		h->why[0] = 0;
		u->flows++;
		sw->mapped++;
	}
}

void ix_ecmp_map_switch(struct ix_ecmp_result *r, uint32_t s, const struct ix_ifstat *ifs,
			uint32_t n)
{
	struct ix_ecmp_switch *sw = &r->sw[s];
	char in[IX_IFNAME_SIZE], out[IX_IFNAME_SIZE];
	uint32_t cin = mode_of(r, s, true, in), cout = mode_of(r, s, false, out);

	/* A's leaf: every flow comes in by A's port; B's: leaves by B's. */
	sw->first_hop = cin >= cout;
	snprintf(sw->edge, sizeof(sw->edge), "%s", sw->first_hop ? in : out);
	sw->nup = 0;
	sw->mapped = 0;
	if (r->params.nuplinks) {
		for (uint32_t i = 0; i < r->params.nuplinks; i++) {
			const struct ix_ifstat *st = ix_ifstats_find(ifs, n, r->params.uplinks[i]);

			add_uplink(sw, r->params.uplinks[i], st && st->up);
		}
	} else {
		for (uint32_t i = 0; i < n; i++)
			if (!ifs[i].control && ifs[i].up && strcmp(ifs[i].name, sw->edge) != 0)
				add_uplink(sw, ifs[i].name, true);
	}
	for (uint32_t i = 0; i < r->nflows; i++)
		map_flow(r, s, &r->flows[i]);
}

/* Whether each uplink moved, at once, what its mapped flows carried: no
 * less than 90% of their payload, and no more than their payload over the
 * measured window stretched to the warm-up and 15% of headers and
 * retransmissions, each give or take 2% of the whole and a megabyte (the
 * control connections, other traffic). More than that on every uplink
 * alike (retransmissions of a starved or lossy path, a longer window) is
 * not a path that changed: each uplink's share of the bytes then stays
 * within 5 points of its flows' share, and the paths count as kept. */
static void check_kept(struct ix_ecmp_result *r, struct ix_ecmp_switch *sw)
{
	const struct ix_bw_params *bw = &r->params.bw;
	double stretch = bw->duration_s > 0 ? (bw->warmup_s + bw->duration_s) / bw->duration_s : 1;
	double total = 0, total_flow = 0;

	sw->paths_kept = true;
	sw->drift[0] = 0;
	for (uint32_t u = 0; u < sw->nup; u++) {
		total += (double)sw->up[u].together_if_bytes;
		total_flow += (double)sw->up[u].together_flow_bytes;
	}
	for (uint32_t u = 0; u < sw->nup && sw->together_read; u++) {
		const struct ix_ecmp_uplink *up = &sw->up[u];
		double flow = (double)up->together_flow_bytes, got = (double)up->together_if_bytes;
		double slack = 0.02 * total + 1e6;
		bool as_shared =
			total > 0 && total_flow > 0 && got / total <= flow / total_flow + 0.05;
		char a[32], b[32], name[IX_IFNAME_SIZE];

		if (got >= 0.9 * flow - slack &&
		    (got <= 1.15 * stretch * flow + slack || as_shared))
			continue;
		sw->paths_kept = false;
		bytes_text(up->together_if_bytes, a, sizeof(a));
		bytes_text(up->together_flow_bytes, b, sizeof(b));
		snprintf(name, sizeof(name), "%s", up->name);
		snprintf(sw->drift, sizeof(sw->drift),
			 "at once, %s moved %s while the flows mapped to it carried %s", name, a,
			 b);
		return;
	}
}

void ix_ecmp_together_switch(struct ix_ecmp_result *r, uint32_t s, const struct ix_ifstat *before,
			     uint32_t nb, const struct ix_ifstat *after, uint32_t na)
{
	struct ix_ecmp_switch *sw = &r->sw[s];

	sw->together_read = before && after;
	for (uint32_t u = 0; u < sw->nup; u++) {
		struct ix_ecmp_uplink *up = &sw->up[u];
		const struct ix_ifstat *b = before ? ix_ifstats_find(before, nb, up->name) : NULL;
		const struct ix_ifstat *a = after ? ix_ifstats_find(after, na, up->name) : NULL;

		up->together_flow_bytes = 0;
		for (uint32_t i = 0; i < r->nflows; i++)
			if (r->flows[i].ok && strcmp(r->flows[i].hop[s].uplink, up->name) == 0)
				up->together_flow_bytes += r->flows[i].bytes;
		up->together_if_bytes = 0;
		if (a && b)
			up->together_if_bytes = sw->first_hop ? rise(b->tx_bytes, a->tx_bytes)
							      : rise(b->rx_bytes, a->rx_bytes);
		else
			sw->together_read = false;
	}
	check_kept(r, sw);
}

static void spread_of(const double *v, uint32_t n, struct ix_ecmp_spread *sp)
{
	double var = 0;

	memset(sp, 0, sizeof(*sp));
	sp->n = n;
	if (n == 0)
		return;
	sp->min = sp->max = v[0];
	for (uint32_t i = 0; i < n; i++) {
		sp->sum += v[i];
		sp->min = v[i] < sp->min ? v[i] : sp->min;
		sp->max = v[i] > sp->max ? v[i] : sp->max;
	}
	sp->mean = sp->sum / n;
	for (uint32_t i = 0; i < n; i++)
		var += (v[i] - sp->mean) * (v[i] - sp->mean);
	sp->cv = sp->mean > 0 ? sqrt(var / n) / sp->mean : 0;
	sp->median = ix_median(v, n);
	sp->jain = ix_jain_index(v, n);
}

/* The figures of the flows of switch s on uplink name (on: true) or on the
 * other uplinks (false), alone or at once, into v; how many. */
static uint32_t rates_on(const struct ix_ecmp_result *r, uint32_t s, const char *name, bool on,
			 bool alone, double *v)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < r->nflows; i++) {
		const struct ix_ecmp_flow *f = &r->flows[i];
		const char *u = f->hop[s].uplink;

		if (!u[0] || (strcmp(u, name) == 0) != on || !(alone ? f->alone_ok : f->ok))
			continue;
		v[n++] = alone ? f->alone_bps : f->bps;
	}
	return n;
}

/* Their median; 0 when none. */
static double median_on(const struct ix_ecmp_result *r, uint32_t s, const char *name, bool on,
			bool alone, uint32_t *count)
{
	double v[IX_ECMP_MAX_FLOWS];

	*count = rates_on(r, s, name, on, alone, v);
	return ix_median(v, *count);
}

/* Their lowest and highest. */
static void range_on(const struct ix_ecmp_result *r, uint32_t s, const char *name, bool on,
		     bool alone, double *lo, double *hi)
{
	double v[IX_ECMP_MAX_FLOWS];
	uint32_t n = rates_on(r, s, name, on, alone, v);

	*lo = n ? v[0] : 0;
	*hi = n ? v[0] : 0;
	for (uint32_t i = 1; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

static int by_flows(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* "8 flows over 2 of 2 uplinks (5 and 3)" */
static void spread_sentence(const struct ix_ecmp_switch *sw, uint32_t nflows, char *buf, size_t len)
{
	uint32_t c[IX_ECMP_MAX_UPLINKS], used = 0;
	size_t o;

	for (uint32_t u = 0; u < sw->nup; u++)
		if (sw->up[u].flows)
			c[used++] = sw->up[u].flows;
	qsort(c, used, sizeof(c[0]), by_flows);
	o = (size_t)snprintf(buf, len, "%u flows over %u of %u uplinks (", sw->mapped, used,
			     sw->nup);
	for (uint32_t i = 0; i < used && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u",
				      i == 0          ? ""
				      : i + 1 == used ? " and "
						      : ", ",
				      c[i]);
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, ")");
	if (sw->mapped < nflows && o < len)
		snprintf(buf + o, len - o, "; %u of %u flows not mapped", nflows - sw->mapped,
			 nflows);
}

/* Four rates as text, for one sentence. */
static void rate_texts(char t[4][32], double a, double b, double c, double d)
{
	const double v[4] = { a, b, c, d };

	for (int i = 0; i < 4; i++)
		ix_rate_text(v[i], t[i], sizeof(t[i]));
}

/* The slowest uplink of switch s, when its flows ran below
 * IX_ECMP_SLOW_RATIO x those of the others: alone where they ran alone
 * (each path's own speed, whatever the number of flows sharing it), else
 * at once. */
static void blame(struct ix_ecmp_result *r, uint32_t s)
{
	struct ix_ecmp_switch *sw = &r->sw[s];
	const char *sw_name = r->hosts->v[sw->host].name;
	bool alone = r->alone_done;
	double worst = 1;
	int w = -1;
	char t[4][32];

	for (uint32_t u = 0; u < sw->nup; u++) {
		uint32_t n_on, n_off;
		double on = median_on(r, s, sw->up[u].name, true, alone, &n_on);
		double off = median_on(r, s, sw->up[u].name, false, alone, &n_off);

		if (n_on && n_off && off > 0 && on / off < IX_ECMP_SLOW_RATIO && on / off < worst) {
			worst = on / off;
			w = (int)u;
		}
	}
	if (w < 0)
		return;
	struct ix_ecmp_uplink *up = &sw->up[w];
	uint32_t n_on, n_off, t_on, t_off;
	double on_lo, on_hi, off_lo, off_hi;

	/* A slow uplink slows every flow it carries: when some of its flows
	 * ran as fast as one on the others, the medians' gap is the scatter
	 * of the figures (a starved host, a noisy neighbour), not the path. */
	range_on(r, s, up->name, true, alone, &on_lo, &on_hi);
	range_on(r, s, up->name, false, alone, &off_lo, &off_hi);
	if (on_hi >= off_lo) {
		rate_texts(t, on_lo, on_hi, off_lo, off_hi);
		size_t o = strlen(sw->verdict);
		snprintf(sw->verdict + o, sizeof(sw->verdict) - o,
			 "; no uplink blamed: the flows' figures %s overlap (%s: %s to %s; the "
			 "others: %s to %s), too scattered to tell a slow path",
			 alone ? "alone" : "at once", up->name, t[0], t[1], t[2], t[3]);
		return;
	}
	double on = median_on(r, s, up->name, true, alone, &n_on);
	double off = median_on(r, s, up->name, false, alone, &n_off);
	double ton = median_on(r, s, up->name, true, false, &t_on);
	double toff = median_on(r, s, up->name, false, false, &t_off);

	up->blamed = true;
	sw->state = IX_ECMP_SLOW;
	rate_texts(t, on, off, ton, toff);
	size_t o = strlen(sw->verdict);
	snprintf(sw->verdict + o, sizeof(sw->verdict) - o,
		 "; blame: uplink %s of %.64s (and the spine behind it): its flows ran at %.2f x "
		 "the others' median",
		 up->name, sw_name, worst);
	snprintf(sw->evidence, sizeof(sw->evidence),
		 "%s: its %u flow(s) %s ran at a median of %s, %.2f x the %s of the %u flow(s) on "
		 "the other uplinks; at once, %s per flow against %s",
		 up->name, n_on, alone ? "alone" : "at once", t[0], worst, t[1], n_off, t[2], t[3]);
}

/* The flows at once did not take the uplinks they took alone: the mapping
 * holds for the flows alone only. A polarisation or a spread of the flows
 * at once is then not shown; a slow uplink (judged on the flows alone)
 * still is. */
static void doubt(struct ix_ecmp_switch *sw)
{
	char was[IX_ECMP_VERDICT_MAX];

	snprintf(was, sizeof(was), "%s", sw->verdict);
	if (sw->state != IX_ECMP_SLOW)
		sw->state = IX_ECMP_UNKNOWN;
	snprintf(sw->verdict, sizeof(sw->verdict),
		 "%s%.200s; but the flows did not keep these uplinks at once (%s): the hash is not "
		 "over the 5-tuple alone (a Linux router reuses the sender's socket hash) or a "
		 "path changed",
		 sw->state == IX_ECMP_SLOW ? "" : "alone: ", was, sw->drift);
}

static void judge_switch(struct ix_ecmp_result *r, uint32_t s)
{
	struct ix_ecmp_switch *sw = &r->sw[s];
	const char *sw_name = r->hosts->v[sw->host].name;
	const char *pa = r->hosts->v[0].name, *pb = r->hosts->v[1].name;
	uint32_t used = 0, only = 0;

	sw->evidence[0] = 0;
	for (uint32_t u = 0; u < sw->nup; u++) {
		uint32_t n;

		sw->up[u].blamed = false;
		sw->up[u].alone_median_bps = median_on(r, s, sw->up[u].name, true, true, &n);
		sw->up[u].together_median_bps = median_on(r, s, sw->up[u].name, true, false, &n);
		sw->up[u].together_sum_bps = 0;
		for (uint32_t i = 0; i < r->nflows; i++)
			if (r->flows[i].ok &&
			    strcmp(r->flows[i].hop[s].uplink, sw->up[u].name) == 0)
				sw->up[u].together_sum_bps += r->flows[i].bps;
		if (sw->up[u].flows) {
			used++;
			only = u;
		}
	}
	if (!sw->ok) {
		sw->state = IX_ECMP_UNKNOWN;
		snprintf(sw->verdict, sizeof(sw->verdict), "%.64s: uplinks unknown: %s", sw_name,
			 sw->error[0] ? sw->error : "its counters were not read");
	} else if (sw->mapped == 0) {
		sw->state = IX_ECMP_UNKNOWN;
		snprintf(sw->verdict, sizeof(sw->verdict),
			 "%.64s: uplinks unknown: no flow's bytes were found on one of its %u "
			 "uplink(s) (see each flow)",
			 sw_name, sw->nup);
	} else if (sw->nup < 2) {
		sw->state = IX_ECMP_UNKNOWN;
		snprintf(sw->verdict, sizeof(sw->verdict),
			 "%.64s has %u uplink: nothing for a hash to spread over", sw_name,
			 sw->nup);
	} else if (used == 1 && sw->mapped == r->nflows) {
		sw->state = IX_ECMP_POLARISED;
		snprintf(sw->verdict, sizeof(sw->verdict),
			 "the flows between %.64s and %.64s share 1 of %u uplinks: ECMP hash "
			 "polarised (all %u on %s of %.64s; a hash over the ports puts %u flows on "
			 "one uplink by chance %.2g%% of the time)",
			 pa, pb, sw->nup, r->nflows, sw->up[only].name, sw_name, r->nflows,
			 100.0 * pow((double)sw->nup, 1.0 - (double)r->nflows));
	} else if (used == 1) {
		sw->state = IX_ECMP_UNKNOWN;
		snprintf(sw->verdict, sizeof(sw->verdict),
			 "%u of %u flows mapped, all on %s of %.64s; the others not: polarisation "
			 "not established",
			 sw->mapped, r->nflows, sw->up[only].name, sw_name);
	} else {
		sw->state = IX_ECMP_SPREAD;
		spread_sentence(sw, r->nflows, sw->verdict, sizeof(sw->verdict));
		blame(r, s);
	}
	if (sw->together_read && !sw->paths_kept && sw->state != IX_ECMP_UNKNOWN)
		doubt(sw);
}

/* Without switches: figures that hint at how the flows were placed. */
static void note_of(struct ix_ecmp_result *r, const double *v, uint32_t n)
{
	double s[IX_ECMP_MAX_FLOWS];
	double best = 0;
	uint32_t cut = 0;
	struct ix_ecmp_spread lo, hi;
	char a[32], b[32];

	r->note[0] = 0;
	if (n < 2)
		return;
	if (r->spread.cv < 0.03) {
		snprintf(
			r->note, sizeof(r->note),
			"the %u flows got the same bandwidth within %.1f%% (CV %.3f): flows "
			"sharing "
			"one bottleneck do, as when the hash puts them all on one uplink; --switch "
			"shows where they went",
			n,
			100 * (r->spread.max - r->spread.min) /
				(r->spread.max > 0 ? r->spread.max : 1),
			r->spread.cv);
		return;
	}
	memcpy(s, v, n * sizeof(*v));
	for (uint32_t i = 1; i < n; i++) /* insertion sort: n <= 64 */
		for (uint32_t k = i; k > 0 && s[k - 1] > s[k]; k--) {
			double t = s[k];
			s[k] = s[k - 1];
			s[k - 1] = t;
		}
	for (uint32_t i = 0; i + 1 < n; i++)
		if (s[i] > 0 && s[i + 1] / s[i] > best) {
			best = s[i + 1] / s[i];
			cut = i + 1;
		}
	if (best < 1.3)
		return;
	spread_of(s, cut, &lo);
	spread_of(s + cut, n - cut, &hi);
	if (lo.cv > 0.15 || hi.cv > 0.15)
		return;
	ix_rate_text(lo.median, a, sizeof(a));
	ix_rate_text(hi.median, b, sizeof(b));
	snprintf(r->note, sizeof(r->note),
		 "two groups: %u flow(s) near %s and %u near %s, as flows split unevenly over two "
		 "paths get; --switch shows where they went",
		 cut, a, n - cut, b);
}

static int severity(enum ix_ecmp_state s)
{
	static const int rank[] = { [IX_ECMP_UNKNOWN] = 0,
				    [IX_ECMP_SPREAD] = 1,
				    [IX_ECMP_SLOW] = 2,
				    [IX_ECMP_POLARISED] = 3,
				    [IX_ECMP_FAILED] = 4 };
	return rank[s];
}

void ix_ecmp_judge(struct ix_ecmp_result *r)
{
	double v[IX_ECMP_MAX_FLOWS];
	uint32_t n = 0;
	int worst = -1;

	for (uint32_t i = 0; i < r->nflows; i++)
		if (r->flows[i].ok)
			v[n++] = r->flows[i].bps;
	spread_of(v, n, &r->spread);
	r->state = IX_ECMP_UNKNOWN;
	r->verdict[0] = 0;
	for (uint32_t s = 0; s < r->nswitches; s++) {
		judge_switch(r, s);
		if (worst < 0 || severity(r->sw[s].state) > severity(r->sw[worst].state))
			worst = (int)s;
	}
	if (worst >= 0) {
		r->state = r->sw[worst].state;
		snprintf(r->verdict, sizeof(r->verdict), "%s", r->sw[worst].verdict);
	} else {
		snprintf(r->verdict, sizeof(r->verdict),
			 "uplinks unknown: no --switch to read, and the spread alone does not show "
			 "how the hash placed the flows");
	}
	if (r->nswitches == 0)
		note_of(r, v, n);
	if (!r->together_ok && r->state != IX_ECMP_POLARISED && r->state != IX_ECMP_SLOW) {
		r->state = IX_ECMP_FAILED;
		snprintf(r->verdict, sizeof(r->verdict), "the flows at once failed: %.400s",
			 r->together_error[0] ? r->together_error : "no report");
	}
}

const char *ix_ecmp_state_name(enum ix_ecmp_state s)
{
	static const char *const names[] = { [IX_ECMP_UNKNOWN] = "unknown",
					     [IX_ECMP_SPREAD] = "spread",
					     [IX_ECMP_POLARISED] = "polarised",
					     [IX_ECMP_SLOW] = "slow_uplink",
					     [IX_ECMP_FAILED] = "failed" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}
