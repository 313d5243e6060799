#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/top.h"
#include "report/units.h"

/* A counter or rate, null when its bit is not in known. */
static json_t *opt_u64(uint32_t known, uint32_t bit, uint64_t v)
{
	return (known & bit) ? json_integer((json_int_t)v) : json_null();
}

static json_t *opt_f64(bool valid, double v)
{
	return valid ? json_real(v) : json_null();
}

static json_t *opt_str(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *counters_json(const struct ix_link *l)
{
	uint32_t k = l->known;

	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "rx_bytes",
			 opt_u64(k, IX_LINK_RX_BYTES, l->rx_bytes), "tx_bytes",
			 opt_u64(k, IX_LINK_TX_BYTES, l->tx_bytes), "rx_packets",
			 opt_u64(k, IX_LINK_RX_PACKETS, l->rx_packets), "tx_packets",
			 opt_u64(k, IX_LINK_TX_PACKETS, l->tx_packets), "rx_errors",
			 opt_u64(k, IX_LINK_RX_ERRORS, l->rx_errors), "tx_errors",
			 opt_u64(k, IX_LINK_TX_ERRORS, l->tx_errors), "rx_dropped",
			 opt_u64(k, IX_LINK_RX_DROPPED, l->rx_dropped), "tx_dropped",
			 opt_u64(k, IX_LINK_TX_DROPPED, l->tx_dropped), "symbol_errors",
			 opt_u64(k, IX_LINK_SYMBOL_ERRORS, l->symbol_errors), "link_downed",
			 opt_u64(k, IX_LINK_LINK_DOWNED, l->link_downed));
}

static json_t *rates_json(const struct ix_link_rate *r)
{
	uint32_t k = r->known;

	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b}", "rx_bps",
			 opt_f64(k & IX_LINK_RX_BYTES, r->rx_bps), "tx_bps",
			 opt_f64(k & IX_LINK_TX_BYTES, r->tx_bps), "rx_pps",
			 opt_f64(k & IX_LINK_RX_PACKETS, r->rx_pps), "tx_pps",
			 opt_f64(k & IX_LINK_TX_PACKETS, r->tx_pps), "rx_errors_per_s",
			 opt_f64(k & IX_LINK_RX_ERRORS, r->rx_errors_ps), "tx_errors_per_s",
			 opt_f64(k & IX_LINK_TX_ERRORS, r->tx_errors_ps), "rx_dropped_per_s",
			 opt_f64(k & IX_LINK_RX_DROPPED, r->rx_dropped_ps), "tx_dropped_per_s",
			 opt_f64(k & IX_LINK_TX_DROPPED, r->tx_dropped_ps), "symbol_errors_per_s",
			 opt_f64(k & IX_LINK_SYMBOL_ERRORS, r->symbol_errors_ps),
			 "link_downed_per_s", opt_f64(k & IX_LINK_LINK_DOWNED, r->link_downed_ps),
			 "utilization", opt_f64(r->util_known, r->util), "reset", r->reset);
}

static json_t *link_json(const struct ix_link *l, const struct ix_link_rate *r)
{
	bool ib = l->kind == IX_LINK_IB;

	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:b,s:o,s:o,s:o,s:o}",
			 "name", l->name, "kind", ib ? "ib" : "net", "device", l->dev, "port",
			 ib ? json_integer(l->port) : json_null(), "state", opt_str(l->state),
			 "phys_state", opt_str(l->phys_state), "link_layer", opt_str(l->link_layer),
			 "address", opt_str(l->address), "netdev", opt_str(l->netdev), "ifindex",
			 l->ifindex ? json_integer(l->ifindex) : json_null(), "virtual",
			 l->is_virtual, "loopback", l->is_loopback, "mtu",
			 l->mtu_known ? json_integer(l->mtu) : json_null(), "speed_bps",
			 opt_f64(l->speed_known, l->speed_bps), "counters", counters_json(l),
			 "rates", rates_json(r));
}

json_t *ix_json_links(const struct ix_top_model *m)
{
	json_t *links = json_array();

	for (size_t i = 0; i < m->cur.n; i++)
		json_array_append_new(links, link_json(&m->cur.v[i], &m->rates[i]));
	return json_pack("{s:I,s:o,s:o}", "samples", (json_int_t)m->samples, "interval_s",
			 opt_f64(m->samples > 1 && m->cur_ns > m->prev_ns,
				 (double)(m->cur_ns - m->prev_ns) / 1e9),
			 "links", links);
}

json_t *ix_json_talkers(const struct ix_talkers_view *v)
{
	json_t *hosts = json_array(), *pairs = json_array();
	bool rk = v->rate_known;

	for (size_t i = 0; i < v->n; i++) {
		const struct ix_talkers_host *h = &v->hosts[i];

		json_array_append_new(
			hosts, json_pack("{s:o,s:o,s:b,s:I,s:I,s:o,s:o}", "address",
					 h->other ? json_null() : json_string(h->addr), "family",
					 h->other ? json_null() : json_integer(h->family), "other",
					 h->other, "tx_bytes", (json_int_t)h->tx_bytes, "rx_bytes",
					 (json_int_t)h->rx_bytes, "tx_bytes_per_second",
					 opt_f64(rk, h->tx_rate), "rx_bytes_per_second",
					 opt_f64(rk, h->rx_rate)));
	}
	for (size_t s = 0; s < v->n; s++) {
		for (size_t d = 0; d < v->n; d++) {
			size_t k = s * v->n + d;

			if (!v->bytes[k])
				continue;
			json_array_append_new(
				pairs, json_pack("{s:I,s:I,s:I,s:o}", "src", (json_int_t)s, "dst",
						 (json_int_t)d, "bytes", (json_int_t)v->bytes[k],
						 "bytes_per_second", opt_f64(rk, v->rate[k])));
		}
	}
	return json_pack("{s:o,s:I,s:I,s:I,s:I,s:o,s:o}", "period_s", opt_f64(rk, v->period_s),
			 "packets", (json_int_t)v->packets, "bytes", (json_int_t)v->total_bytes,
			 "other_packets", (json_int_t)v->other_packets, "other_bytes",
			 (json_int_t)v->other_bytes, "hosts", hosts, "pairs", pairs);
}

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

void ix_text_links(FILE *f, const struct ix_top_model *m)
{
	fprintf(f, "%-16s %-8s %-12s %6s %-13s %-13s %7s %8s %8s\n", "INTERFACE", "STATE", "SPEED",
		"MTU", "RX", "TX", "UTIL", "ERR/s", "DROP/s");
	for (size_t i = 0; i < m->cur.n; i++) {
		const struct ix_link *l = &m->cur.v[i];
		const struct ix_link_rate *r = &m->rates[i];
		char speed[32], mtu[16], rx[32], tx[32], util[16], errs[32], drops[32];

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
		fprintf(f, "%-16s %-8s %-12s %6s %-13s %-13s %7s %8s %8s\n", l->name,
			l->state[0] ? l->state : "-", speed, mtu, rx, tx, util, errs, drops);
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
