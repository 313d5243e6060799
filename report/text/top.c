/* The live monitor's models ("ixperf top") as plain text snapshots. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/fmt/units.h"
#include "report/text/text.h"

static void fmt_opt_rate(bool known, double bps, char *buf, size_t len)
{
	if (known)
		ix_fmt_rate(bps, NULL, buf, len);
	else
		snprintf(buf, len, "-");
}

/* Errors or drops per second: the sum of the known figures. */
static void fmt_events(const struct ix_link_rate *r, uint32_t b1, double v1, uint32_t b2, double v2,
		       uint32_t b3, double v3, char *buf, size_t len)
{
	double sum = 0;
	bool any = false;

	if (r->known & b1) {
		sum += v1;
		any = true;
	}
	if (r->known & b2) {
		sum += v2;
		any = true;
	}
	if (b3 && (r->known & b3)) {
		sum += v3;
		any = true;
	}
	if (any)
		snprintf(buf, len, "%.1f", sum);
	else
		snprintf(buf, len, "-");
}

/* The fabric counters that moved, per second, and the driver's names of
 * the ones that moved most; "-" when unknown, "none" when nothing moved. */
static void fmt_fabric(const struct ix_link_fabric *fb, char *buf, size_t len)
{
	char names[160];
	size_t n;

	if (!fb->valid) {
		snprintf(buf, len, "-");
		return;
	}
	n = ix_link_fabric_text(fb, ", ", buf, len);
	if (!n) {
		snprintf(buf, len, "none");
		return;
	}
	if (ix_link_fabric_names(fb, 3, names, sizeof(names)) && n + 4 < len)
		snprintf(buf + n, len - n, " (%s%s)", names, fb->nmoved > 3 ? ", ..." : "");
}

void ix_text_links(FILE *f, const struct ix_top_model *m)
{
	fprintf(f, "%-16s %-8s %-12s %6s %-13s %-13s %7s %8s %8s  %s\n", "INTERFACE", "STATE",
		"SPEED", "MTU", "RX", "TX", "UTIL", "ERR/s", "DROP/s", "FABRIC");
	for (size_t i = 0; i < m->cur.n; i++) {
		const struct ix_link *l = &m->cur.v[i];
		const struct ix_link_rate *r = &m->rates[i];
		char speed[32], mtu[16], rx[32], tx[32], util[16], errs[32], drops[32], fab[512];

		fmt_opt_rate(l->speed_known, l->speed_bps, speed, sizeof(speed));
		if (l->mtu_known)
			snprintf(mtu, sizeof(mtu), "%u", l->mtu);
		else
			snprintf(mtu, sizeof(mtu), "-");
		fmt_opt_rate(r->known & IX_LINK_RX_BYTES, r->rx_bps, rx, sizeof(rx));
		fmt_opt_rate(r->known & IX_LINK_TX_BYTES, r->tx_bps, tx, sizeof(tx));
		if (r->util_known)
			snprintf(util, sizeof(util), "%.1f%%", r->util * 100.0);
		else
			snprintf(util, sizeof(util), "-");
		fmt_events(r, IX_LINK_RX_ERRORS, r->rx_errors_ps, IX_LINK_TX_ERRORS,
			   r->tx_errors_ps, IX_LINK_SYMBOL_ERRORS, r->symbol_errors_ps, errs,
			   sizeof(errs));
		fmt_events(r, IX_LINK_RX_DROPPED, r->rx_dropped_ps, IX_LINK_TX_DROPPED,
			   r->tx_dropped_ps, 0, 0, drops, sizeof(drops));
		fmt_fabric(&m->fabric[i], fab, sizeof(fab));
		fprintf(f, "%-16s %-8s %-12s %6s %-13s %-13s %7s %8s %8s  %s\n", l->name,
			l->state[0] ? l->state : "-", speed, mtu, rx, tx, util, errs, drops, fab);
	}
}

void ix_text_talkers(FILE *f, const struct ix_talkers_view *v, size_t top_n)
{
	size_t max = top_n ? top_n : v->n * v->n, k;
	struct ix_talkers_pair *top = calloc(max ? max : 1, sizeof(*top));

	if (!top) {
		fprintf(f, "(out of memory)\n");
		return;
	}
	k = ix_talkers_top(v, top, max);
	fprintf(f, "%-40s %-40s %-13s %s\n", "SOURCE", "DESTINATION", "RATE", "TOTAL");
	for (size_t i = 0; i < k; i++) {
		char rate[32], total[32];

		fmt_opt_rate(v->rate_known, top[i].rate * 8.0, rate, sizeof(rate));
		ix_fmt_bytes((double)top[i].bytes, NULL, total, sizeof(total));
		fprintf(f, "%-40s %-40s %-13s %s\n", v->hosts[top[i].src].addr,
			v->hosts[top[i].dst].addr, rate, total);
	}
	if (v->other_packets)
		fprintf(f,
			"(%llu packets, %llu bytes of hosts past the table's bound counted as "
			"\"other\")\n",
			(unsigned long long)v->other_packets, (unsigned long long)v->other_bytes);
	free(top);
}
