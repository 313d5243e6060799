/* The sentences of an incast sweep and of a figure at its link's ceiling:
 * what the figures show, over plain arrays (declared in analysis.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probes/cluster/analysis.h"

/*
 * One sentence on an incast sweep. base is the point with the fewest senders,
 * worst the one with the lowest goodput among the others, ratio = worst / base:
 *  - fewer than 2 points: the sweep needs at least two sender counts;
 *  - no goodput at base: nothing to compare against;
 *  - ratio < 0.5 with stalled rounds at worst: incast collapse by TCP
 *    retransmission timeouts, switch buffers too shallow for the fan-in;
 *  - ratio < 0.5 without stalls: the receiver or its link is saturated or
 *    losing packets (with worst's retransmit count);
 *  - ratio < 0.9: mild degradation, not a collapse;
 *  - otherwise goodput holds from base to the largest sender count.
 */
/* What the hosts' counters saw at the worst step, after the verdict:
 * pauses, ECN marks and CNPs are the switch's evidence, drops and
 * retransmissions the hosts'. */
static void counter_evidence(const struct ix_incast_point *p, bool degraded, char *buf, size_t len)
{
	char rx[512], tx[512];
	size_t off = strlen(buf);

	if (!p->counters || off + 4 >= len)
		return;
	ix_ctr_sum_sentence(&p->at_receiver, rx, sizeof(rx));
	ix_ctr_sum_sentence(&p->at_senders, tx, sizeof(tx));
	if (!rx[0] && !tx[0] && !degraded)
		return; /* a healthy step with quiet counters: nothing to add */
	if (!rx[0] && !tx[0])
		snprintf(buf + off, len - off,
			 "; no fabric counter moved at the hosts (no pause, ECN mark, CNP or drop "
			 "there): the loss is past their ports");
	else
		snprintf(buf + off, len - off, "; fabric counters at N=%u: receiver %s, senders %s",
			 p->senders, rx[0] ? rx : "none moved", tx[0] ? tx : "none moved");
}

void ix_incast_diagnose(const struct ix_incast_point *pts, size_t n, char *buf, size_t len)
{
	const struct ix_incast_point *base, *worst = NULL;
	uint32_t max_senders;
	double ratio, pct;

	if (!buf || len == 0)
		return;
	if (!pts || n < 2) {
		snprintf(buf, len,
			 "the incast sweep needs at least two sender counts to diagnose (got %zu)",
			 pts ? n : 0);
		return;
	}
	base = &pts[0];
	max_senders = pts[0].senders;
	for (size_t i = 1; i < n; i++) {
		if (pts[i].senders < base->senders)
			base = &pts[i];
		if (pts[i].senders > max_senders)
			max_senders = pts[i].senders;
	}
	for (size_t i = 0; i < n; i++)
		if (&pts[i] != base && (!worst || pts[i].goodput_bps < worst->goodput_bps))
			worst = &pts[i];
	if (!(base->goodput_bps > 0)) {
		snprintf(buf, len,
			 "no goodput was measured at N=%u, the smallest fan-in: nothing to compare "
			 "the larger fan-ins against",
			 base->senders);
		return;
	}
	ratio = worst->goodput_bps / base->goodput_bps;
	pct = ratio * 100;
	if (ratio < 0.5 && worst->stalled_rounds > 0)
		snprintf(buf, len,
			 "goodput at N=%u is %.0f%% of N=%u with %llu of %llu rounds stalled: "
			 "consistent with TCP retransmission timeouts (incast collapse); the "
			 "receiver's switch port buffers are likely too shallow for this fan-in",
			 worst->senders, pct, base->senders,
			 (unsigned long long)worst->stalled_rounds,
			 (unsigned long long)worst->rounds);
	else if (ratio < 0.5)
		snprintf(buf, len,
			 "goodput drops to %.0f%% of N=%u at N=%u without stalled rounds: the "
			 "receiver or its link is saturated or losing packets (check retransmits: "
			 "%llu)",
			 pct, base->senders, worst->senders,
			 (unsigned long long)worst->retransmits);
	else if (ratio < 0.9)
		snprintf(buf, len,
			 "goodput at N=%u is %.0f%% of N=%u: mild degradation with fan-in, not a "
			 "collapse (%llu of %llu rounds stalled, %llu retransmits)",
			 worst->senders, pct, base->senders,
			 (unsigned long long)worst->stalled_rounds,
			 (unsigned long long)worst->rounds, (unsigned long long)worst->retransmits);
	else
		snprintf(buf, len,
			 "goodput holds from N=%u to N=%u (at least %.0f%% of N=%u): no incast "
			 "collapse at these fan-ins",
			 base->senders, max_senders, pct, base->senders);
	counter_evidence(worst, ratio < 0.9, buf, len);
}

bool ix_link_verdict(const struct ix_link_limit *l, double bps, char *buf, size_t len)
{
	char v[32], c[32], line[32];
	int n;

	if (!buf || !len)
		return false;
	buf[0] = '\0';
	/* Well above the ceiling, the traffic took another way (a bond, a
	 * second port) and the link is not what held it. */
	if (!l || strcmp(l->bottleneck, "pcie") != 0 || !l->pcie.known || !(l->ceiling_bps > 0) ||
	    !(bps >= IX_AT_CEILING * l->ceiling_bps) || bps > IX_ABOVE_CEILING * l->ceiling_bps)
		return false;
	ix_rate_text(bps, v, sizeof(v));
	ix_rate_text(l->ceiling_bps, c, sizeof(c));
	n = snprintf(buf, len, "%s is %.0f%% of its NIC's PCIe Gen%d x%d link (%s)", v,
		     100.0 * bps / l->ceiling_bps, l->pcie.gen, l->pcie.width, c);
	if (n < 0 || (size_t)n >= len)
		return true;
	if (l->pcie.downtrained)
		snprintf(buf + n, len - (size_t)n, ", trained below its Gen%d x%d capability",
			 l->pcie.expected_gen, l->pcie.expected_width);
	else if (l->bps > 0) {
		ix_rate_text(l->bps, line, sizeof(line));
		snprintf(buf + n, len - (size_t)n, ", below the line rate of %s", line);
	}
	return true;
}

void ix_incast_ceiling_clause(const struct ix_incast_point *pts, size_t n,
			      const struct ix_link_limit *receiver, char *buf, size_t len)
{
	const struct ix_incast_point *best = NULL;
	char why[256];
	size_t off;

	if (!buf || !len || !pts)
		return;
	for (size_t i = 0; i < n; i++)
		if (!best || pts[i].goodput_bps > best->goodput_bps)
			best = &pts[i];
	if (!best || !ix_link_verdict(receiver, best->goodput_bps, why, sizeof(why)))
		return;
	off = strlen(buf);
	/* "its NIC's" reads as the receiver's here. */
	if (off + 4 < len)
		snprintf(buf + off, len - off, "; at N=%u the receiver's %s", best->senders, why);
}
