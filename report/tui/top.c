/* 'ixperf top' on the terminal: the links table with sparklines, under a
 * link whose fabric counters moved a line of their rates (drops, errors,
 * pause frames, CNPs and retransmissions highlighted), and the busiest
 * pairs of the capture below it. The models come from
 * probes/host/links.c and probes/capture/talkers.c; this file only places them. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/fmt/units.h"
#include "report/tui/top.h"
#include "report/tui/tui.h"

static const struct ix_unit_choice bits = { .kind = IX_UNITS_BITS };

static void rate_text(bool known, double bps, char *buf, size_t len)
{
	if (known)
		ix_fmt_rate(bps, &bits, buf, len);
	else
		snprintf(buf, len, "-");
}

static void speed_text(const struct ix_link *l, char *buf, size_t len)
{
	if (!l->speed_known)
		snprintf(buf, len, "-");
	else if (l->speed_bps >= 1e9)
		snprintf(buf, len, "%gG", l->speed_bps / 1e9);
	else
		snprintf(buf, len, "%gM", l->speed_bps / 1e6);
}

static bool link_up(const struct ix_link *l)
{
	return strcmp(l->state, "up") == 0 || strcmp(l->state, "ACTIVE") == 0 ||
	       strcmp(l->state, "unknown") == 0;
}

/* One link's row; returns the columns left for the sparklines. */
static void link_row(struct ix_tui *t, int y, const struct ix_top_model *m, size_t i)
{
	const struct ix_link *l = &m->cur.v[i];
	const struct ix_link_rate *r = &m->rates[i];
	char rx[32], tx[32], sp[16], mtu[16], util[16], errs[32], line[160];
	double e = 0, hist[IX_LINKS_HISTORY];
	bool ek = (r->known & (IX_LINK_RX_ERRORS | IX_LINK_RX_DROPPED)) != 0;
	int x, spark;

	rate_text(r->known & IX_LINK_RX_BYTES, r->rx_bps, rx, sizeof(rx));
	rate_text(r->known & IX_LINK_TX_BYTES, r->tx_bps, tx, sizeof(tx));
	speed_text(l, sp, sizeof(sp));
	snprintf(mtu, sizeof(mtu), l->mtu_known ? "%u" : "-", l->mtu);
	if (r->util_known)
		snprintf(util, sizeof(util), "%5.1f%%", 100 * r->util);
	else
		snprintf(util, sizeof(util), "    -");
	e = r->rx_errors_ps + r->tx_errors_ps + r->rx_dropped_ps + r->tx_dropped_ps +
	    r->symbol_errors_ps + r->link_downed_ps;
	snprintf(errs, sizeof(errs), ek ? "%.0f" : "-", e);
	snprintf(line, sizeof(line), "%-16.16s", l->name);
	x = ix_tui_text(t, y, 0, IX_ROLE_PLAIN, line);
	snprintf(line, sizeof(line), " %-8.8s", l->state);
	x += ix_tui_text(t, y, x, link_up(l) ? IX_ROLE_GOOD : IX_ROLE_WARN, line);
	snprintf(line, sizeof(line), " %6s %6s %12s %12s %6s ", sp, mtu, rx, tx, util);
	x += ix_tui_text(t, y, x, IX_ROLE_PLAIN, line);
	snprintf(line, sizeof(line), "%7s ", errs);
	x += ix_tui_text(t, y, x, e > 0 ? IX_ROLE_FAILED : IX_ROLE_PLAIN, line);
	/* rx and tx history side by side, scaled to the link speed when known. */
	spark = (t->w - x - 3) / 2;
	if (spark < 4)
		return;
	for (int dir = 0; dir < 2; dir++) {
		size_t n = ix_links_history_get(
			&m->hist[i], dir == 1, hist,
			(size_t)spark < IX_LINKS_HISTORY ? (size_t)spark : IX_LINKS_HISTORY);
		char s[4 * IX_LINKS_HISTORY + 1];
		double max = l->speed_known ? l->speed_bps : 0;

		if (t->utf8)
			ix_sparkline(hist, n, max, s, sizeof(s));
		else
			ix_sparkline_ascii(hist, n, max, s, sizeof(s));
		ix_tui_text(t, y, x + dir * (spark + 1), dir ? IX_ROLE_WARN : IX_ROLE_GOOD, s);
	}
}

/* The fabric line under a link: each class that moved in its role, then
 * the driver's names of the counters that moved most. */
static void fabric_row(struct ix_tui *t, int y, const struct ix_link_fabric *f)
{
	char c[64], names[160], line[192];
	int x = 17;

	for (int k = 1; k < IX_CC_N && x < t->w; k++) {
		enum ix_ctr_class cls = (enum ix_ctr_class)k;

		if (!ix_link_fabric_clause(f, cls, c, sizeof(c)))
			continue;
		x += ix_tui_text(t, y, x, ix_link_fabric_alarm(cls) ? IX_ROLE_FAILED : IX_ROLE_WARN,
				 c);
		x += ix_tui_text(t, y, x, IX_ROLE_PLAIN, "  ");
	}
	if (x < t->w && ix_link_fabric_names(f, 3, names, sizeof(names))) {
		snprintf(line, sizeof(line), "(%s)", names);
		ix_tui_text(t, y, x, IX_ROLE_DIM, line);
	}
}

/* Whether a link has a fabric line: some class moved. */
static bool has_fabric_row(const struct ix_top_model *m, size_t i)
{
	return m->fabric && m->fabric[i].valid && m->fabric[i].has != 0;
}

static int talkers(struct ix_tui *t, int y, const struct ix_talkers_view *v, int rows)
{
	struct ix_talkers_pair pairs[64];
	size_t n = ix_talkers_top(v, pairs, rows > 0 && rows < 64 ? (size_t)rows : 64);
	char line[256], rate[32], bytes[32];

	for (size_t i = 0; i < n; i++) {
		const struct ix_talkers_pair *p = &pairs[i];

		ix_fmt_rate(p->rate * 8, &bits, rate, sizeof(rate));
		ix_fmt_bytes((double)p->bytes, NULL, bytes, sizeof(bytes));
		snprintf(line, sizeof(line), "%-40s -> %-40s %12s %12s", v->hosts[p->src].addr,
			 v->hosts[p->dst].addr, v->rate_known ? rate : "-", bytes);
		ix_tui_text(t, y + (int)i, 0, IX_ROLE_PLAIN, line);
	}
	if (!n)
		ix_tui_text(t, y, 0, IX_ROLE_DIM, "no packets captured yet");
	return n ? (int)n : 1;
}

void ix_tui_top_draw(struct ix_tui *t, const struct ix_tui_top *s)
{
	const struct ix_top_model *m = s->model;
	char line[512];
	int y = 2, sparkw;

	ix_tui_begin(t, true);
	ix_tui_text(t, 0, 0, IX_ROLE_TITLE, s->title);
	sparkw = (t->w - 77) / 2;
	snprintf(line, sizeof(line), "%-16s %-8s %6s %6s %12s %12s %6s %7s  %-*s %s", "LINK",
		 "STATE", "SPEED", "MTU", "RX", "TX", "UTIL", "ERR/s", sparkw > 4 ? sparkw : 0,
		 sparkw > 4 ? "rx history" : "", sparkw > 4 ? "tx history" : "");
	ix_tui_text(t, 1, 0, IX_ROLE_DIM, line);
	for (size_t i = s->first; i < m->cur.n && y < t->h - (s->talkers ? 6 : 1); i++, y++) {
		link_row(t, y, m, i);
		if (has_fabric_row(m, i) && y + 1 < t->h - (s->talkers ? 6 : 1))
			fabric_row(t, ++y, &m->fabric[i]);
	}
	if (!m->cur.n)
		ix_tui_text(t, y++, 0, IX_ROLE_DIM, "no links to show (try --all)");
	if (s->talkers) {
		y++;
		snprintf(line, sizeof(line), "%-40s    %-40s %12s %12s", "SOURCE", "DESTINATION",
			 "RATE", "BYTES");
		ix_tui_text(t, y++, 0, IX_ROLE_DIM, line);
		talkers(t, y, s->talkers, t->h - y - 1);
	}
	ix_tui_text(t, t->h - 1, 0, IX_ROLE_DIM, s->keys);
	ix_tui_end(t);
}
