/* A pattern's figures per host, judged, and its verdict (patrun.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/patrun.h"

#define NAMED_MAX 4 /* hosts named in a sentence, then "and N more" */

/* Per host, the median over its stages of what it sent and received in
 * each (the sum of its tests in that stage). */
static int stage_medians(struct ix_pattern_result *r)
{
	uint32_t n = r->n, stages = r->rounds ? r->rounds : 1;
	double *tx = calloc((size_t)stages * n, sizeof(*tx));
	double *rx = calloc((size_t)stages * n, sizeof(*rx));
	uint8_t *in = calloc((size_t)stages * n, 1);
	double *v = calloc(stages, sizeof(*v));

	if (!tx || !rx || !in || !v) {
		free(tx);
		free(rx);
		free(in);
		free(v);
		return -1;
	}
	for (uint32_t i = 0; i < r->ntests; i++) {
		const struct ix_pattern_test *t = &r->tests[i];
		size_t at = (size_t)(t->stage < stages ? t->stage : 0) * n;

		if (t->a >= n || t->b >= n)
			continue;
		r->host[t->a].tests++;
		r->host[t->b].tests++;
		if (!t->ok) {
			r->host[t->a].failed++;
			r->host[t->b].failed++;
			continue;
		}
		tx[at + t->a] += t->bps;
		rx[at + t->b] += t->bps;
		in[at + t->a] |= 1;
		in[at + t->b] |= 2;
		r->host[t->a].tx_bytes += t->bytes;
		r->host[t->b].rx_bytes += t->bytes;
	}
	for (uint32_t h = 0; h < n; h++) {
		for (int dir = 0; dir < 2; dir++) {
			size_t k = 0;

			for (uint32_t s = 0; s < stages; s++)
				if (in[(size_t)s * n + h] & (1 << dir))
					v[k++] =
						dir ? rx[(size_t)s * n + h] : tx[(size_t)s * n + h];
			if (dir)
				r->host[h].rx_bps = ix_median(v, k);
			else
				r->host[h].tx_bps = ix_median(v, k);
		}
	}
	free(tx);
	free(rx);
	free(in);
	free(v);
	return 0;
}

static bool measured(const struct ix_pattern_host *h)
{
	return !h->sat_out && h->tests > h->failed;
}

/* Each host's figure and its basis; the pattern's median. */
static int judge_hosts(struct ix_pattern_result *r)
{
	double *v = calloc(r->n ? r->n : 1, sizeof(*v)), f = r->params.rules.bw_fraction;
	size_t k = 0;

	if (!v)
		return -1;
	if (!(f > 0))
		f = 0.7;
	for (uint32_t i = 0; i < r->n; i++) {
		struct ix_pattern_host *h = &r->host[i];

		h->figure_bps = h->tx_bps < h->rx_bps ? h->tx_bps : h->rx_bps;
		if (measured(h))
			v[k++] = h->figure_bps;
	}
	r->median_bps = ix_median(v, k);
	r->bad_hosts = 0;
	for (uint32_t i = 0; i < r->n; i++) {
		struct ix_pattern_host *h = &r->host[i];
		double ceil = ix_link_ceiling(&h->link);

		h->basis = IX_BASIS_NONE;
		h->share = -1;
		h->bad = false;
		if (!measured(h))
			continue;
		h->basis = ceil > 0 ? IX_BASIS_LINE_RATE : IX_BASIS_MEDIAN;
		h->basis_bps = ceil > 0 ? ceil : r->median_bps;
		if (h->basis_bps > 0)
			h->share = 100.0 * h->figure_bps / h->basis_bps;
		h->bad = h->figure_bps < f * h->basis_bps;
		r->bad_hosts += h->bad;
	}
	free(v);
	return 0;
}

/* "198.18.0.1:5201, 198.18.0.2:5201 and 2 more" of the hosts picked. */
static void host_names(const struct ix_pattern_result *r, const uint32_t *idx, uint32_t k,
		       char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < k && i < NAMED_MAX && off + 2 < len; i++) {
		char name[IX_HOST_NAME_MAX + 64];

		ix_host_format(&r->hosts->v[idx[i]], name, sizeof(name));
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", name);
		off = off < len ? off : len - 1;
	}
	if (k > NAMED_MAX && off + 2 < len)
		snprintf(buf + off, len - off, " and %u more", k - NAMED_MAX);
}

/* Bisection: each half named by its hosts' switches where every host of
 * it has one ("leaf1"), else by its hosts. */
static void name_sides(struct ix_pattern_result *r)
{
	uint32_t half = r->n / 2;

	r->side_switches = true;
	for (int s = 0; s < 2; s++) {
		const uint32_t *idx = r->order + (s ? half : 0);
		char *out = r->side[s];
		size_t off = 0, cap = sizeof(r->side[s]);
		bool all = true;

		out[0] = '\0';
		for (uint32_t i = 0; i < half && all; i++)
			all = r->host[idx[i]].link.neighbor.source[0] != '\0';
		for (uint32_t i = 0; all && i < half && off + 2 < cap; i++) {
			const struct ix_neighbor *nb = &r->host[idx[i]].link.neighbor;
			const char *name = nb->name[0] ? nb->name : nb->chassis;
			bool seen = false;

			for (uint32_t j = 0; j < i && !seen; j++) {
				const struct ix_neighbor *o = &r->host[idx[j]].link.neighbor;
				seen = strcmp(o->chassis, nb->chassis) == 0;
			}
			if (seen)
				continue;
			off += (size_t)snprintf(out + off, cap - off, "%s%s", off ? "+" : "", name);
			off = off < cap ? off : cap - 1;
		}
		if (!all)
			host_names(r, idx, half, out, cap);
		r->side_switches &= all;
	}
}

/* "about half", "about a third of", "about a quarter of", else "47% of"
 * (their links). */
static void fraction_words(double share, char *buf, size_t len)
{
	double ratio = share > 0 ? 100.0 / share : 0;
	long whole = lround(ratio);

	if (whole >= 2 && whole <= 4 && fabs(ratio - (double)whole) < 0.25 * (double)whole)
		snprintf(buf, len, "about %s",
			 whole == 2   ? "half"
			 : whole == 3 ? "a third of"
				      : "a quarter of");
	else
		snprintf(buf, len, "%.0f%% of", share);
}

/* "; fabric counters moved: at HOST: 40 drops; ..." for the hosts whose
 * counters moved (NAMED_MAX at most). */
static void counters_clause(const struct ix_pattern_result *r, char *buf, size_t len)
{
	size_t off = strlen(buf);
	uint32_t named = 0, more = 0;

	for (uint32_t i = 0; i < r->n; i++) {
		char name[IX_HOST_NAME_MAX + 64], what[256];

		if (!r->host[i].counters_read ||
		    ix_ctr_sum_sentence(&r->host[i].counters, what, sizeof(what)) == 0)
			continue;
		if (named == NAMED_MAX) {
			more++;
			continue;
		}
		ix_host_format(&r->hosts->v[i], name, sizeof(name));
		off += (size_t)snprintf(buf + off, len - off, "%s at %s: %s",
					named ? ";" : "; fabric counters moved:", name, what);
		off = off < len ? off : len - 1;
		named++;
	}
	if (more && off + 2 < len)
		snprintf(buf + off, len - off, " (and at %u more hosts)", more);
	else if (!named && r->counters_any && off + 2 < len)
		snprintf(buf + off, len - off, "; no fabric counter moved at any host");
}

/* The pattern's median share and whether every host is judged against its
 * line rate. */
static double median_share(const struct ix_pattern_result *r, bool *line)
{
	double *v = calloc(r->n ? r->n : 1, sizeof(*v)), m;
	size_t k = 0;

	*line = true;
	for (uint32_t i = 0; v && i < r->n; i++) {
		if (r->host[i].basis == IX_BASIS_NONE)
			continue;
		*line &= r->host[i].basis == IX_BASIS_LINE_RATE;
		v[k++] = r->host[i].share;
	}
	m = v ? ix_median(v, k) : 0;
	free(v);
	*line &= k > 0;
	return m;
}

/* Bisection: what crossed the cut (every host's sending, summed) as a
 * percent of what the hosts' links could send across it; 0 unknown. */
static double cut_share(const struct ix_pattern_result *r)
{
	double sent = 0, cap = 0;

	for (uint32_t i = 0; i < r->n; i++) {
		if (r->host[i].basis != IX_BASIS_LINE_RATE)
			continue;
		sent += r->host[i].tx_bps;
		cap += r->host[i].basis_bps;
	}
	return cap > 0 ? 100.0 * sent / cap : 0;
}

static void verdict(struct ix_pattern_result *r)
{
	char *buf = r->verdict, rate[32], names[512], words[32];
	size_t len = sizeof(r->verdict), off;
	double f = r->params.rules.bw_fraction > 0 ? r->params.rules.bw_fraction : 0.7;
	uint32_t judged = 0, *bad = calloc(r->n ? r->n : 1, sizeof(*bad)), nbad = 0;
	const char *name = ix_pattern_name(r->pattern);
	bool line;
	double share = median_share(r, &line);

	for (uint32_t i = 0; i < r->n; i++) {
		judged += r->host[i].basis != IX_BASIS_NONE;
		if (r->host[i].bad && bad)
			bad[nbad++] = i;
	}
	if (!judged) {
		snprintf(buf, len, "%s: nothing measured", name);
		free(bad);
		return;
	}
	ix_rate_text(r->median_bps, rate, sizeof(rate));
	if (line)
		off = (size_t)snprintf(buf, len, "%s %.0f%% of line rate per host (median %s)",
				       name, share, rate);
	else
		off = (size_t)snprintf(buf, len,
				       "%s median %s per host (judged against the median: "
				       "not every host's line rate is known)",
				       name, rate);
	off = off < len ? off : len - 1;
	if (r->pattern == IX_PATTERN_BISECTION && nbad == judged && line && cut_share(r) > 0) {
		share = cut_share(r); /* the uplinks carry the sum, whoever got more of it */
		fraction_words(share, words, sizeof(words));
		if (r->side_switches)
			off += (size_t)snprintf(buf + off, len - off,
						": the pairs across %s/%s uplinks run at %s their "
						"hosts' links (oversubscribed about %.0f:1)",
						r->side[0], r->side[1], words, 100.0 / share);
		else
			off += (size_t)snprintf(
				buf + off, len - off,
				": the pairs across the cut between (%s) and (%s) run "
				"at %s their hosts' links: the uplinks between the "
				"halves are oversubscribed about %.0f:1 (no switch "
				"known: the halves are the host list's)",
				r->side[0], r->side[1], words, 100.0 / share);
	} else if (nbad == judged && nbad > 1) {
		off += (size_t)snprintf(buf + off, len - off,
					": every host below %.2g x its %s: what they share holds "
					"them, not one host",
					f, line ? "line rate" : "pattern's median");
	} else if (nbad) {
		host_names(r, bad, nbad, names, sizeof(names));
		off += (size_t)snprintf(buf + off, len - off, ": %u host(s) below %.2g x %s: %s",
					nbad, f, line ? "their line rate" : "the median", names);
	} else {
		off += (size_t)snprintf(buf + off, len - off, ": every host at %.2g x %s or above",
					f, line ? "its line rate" : "the median");
	}
	if (off + 2 < len)
		counters_clause(r, buf, len);
	off = strlen(buf);
	if (r->tests_failed && off + 2 < len) /* figures in doubt: said */
		snprintf(buf + off, len - off,
			 "; %llu of %u tests failed: the figures are of those that ran",
			 (unsigned long long)r->tests_failed, r->ntests);
	free(bad);
}

int ix_pattern_judge(struct ix_pattern_result *r)
{
	r->tests_failed = 0;
	r->cut_bps = 0;
	for (uint32_t i = 0; i < r->n; i++) {
		struct ix_pattern_host *h = &r->host[i];

		h->tests = h->failed = 0;
		h->tx_bytes = h->rx_bytes = 0;
	}
	for (uint32_t i = 0; i < r->ntests; i++) {
		r->tests_failed += !r->tests[i].ok;
		if (r->pattern == IX_PATTERN_BISECTION && r->tests[i].ok)
			r->cut_bps += r->tests[i].bps;
	}
	if (stage_medians(r) < 0 || judge_hosts(r) < 0)
		return -1;
	if (r->pattern == IX_PATTERN_BISECTION && r->order)
		name_sides(r);
	verdict(r);
	r->complete = r->ntests > 0 && r->tests_failed == 0;
	return 0;
}
