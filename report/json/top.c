/* The live monitor's models ("ixperf top") as JSON: unknown figures are
 * null, never 0. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/json/json.h"

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

/* "source:name" -> value, for each of the n counters of v. */
static json_t *ctr_object(const struct ix_ctr *v, size_t n)
{
	json_t *o = json_object();
	char key[IX_CTR_NAME_MAX + 16];

	for (size_t i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "%s:%s",
			 ix_ctr_source_name((enum ix_ctr_source)v[i].source), v[i].name);
		json_object_set_new(o, key, json_integer((json_int_t)(v[i].value & INT64_MAX)));
	}
	return o;
}

/* The fabric counters over the interval: the rates of the classes that
 * moved, the counters that moved most; null when unknown. */
static json_t *fabric_json(const struct ix_link_fabric *f, const struct ix_ctr_set *snap, bool all)
{
	json_t *o, *srcs, *rates = json_object(), *moved = json_object();
	char key[IX_CTR_NAME_MAX + 16];

	if (!f->valid) {
		json_decref(rates);
		json_decref(moved);
		return json_null();
	}
	srcs = json_array();
	for (int i = 0; i < IX_SRC_N; i++)
		if (f->sources & (1u << i))
			json_array_append_new(srcs, json_string(ix_ctr_source_name(i)));
	for (int k = 1; k < IX_CC_N; k++)
		if (f->has & (1u << k))
			json_object_set_new(rates, ix_ctr_class_key(k), json_real(f->rate[k]));
	for (size_t i = 0; i < f->ntop; i++) {
		snprintf(key, sizeof(key), "%s:%s",
			 ix_ctr_source_name((enum ix_ctr_source)f->top[i].source), f->top[i].name);
		json_object_set_new(moved, key,
				    json_integer((json_int_t)(f->top[i].delta & INT64_MAX)));
	}
	o = json_pack("{s:o,s:o,s:o,s:I,s:b}", "sources", srcs, "rates", rates, "moved", moved,
		      "moved_count", (json_int_t)f->nmoved, "truncated", f->truncated);
	if (all && snap)
		json_object_set_new(o, "read", ctr_object(snap->v, snap->n));
	return o;
}

static json_t *link_json(const struct ix_top_model *m, size_t i)
{
	const struct ix_link *l = &m->cur.v[i];
	const struct ix_link_rate *r = &m->rates[i];
	bool ib = l->kind == IX_LINK_IB;
	json_t *o;

	o = json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:b,s:o,s:o,s:o,s:o}", "name",
		      l->name, "kind", ib ? "ib" : "net", "device", l->dev, "port",
		      ib ? json_integer(l->port) : json_null(), "state", opt_str(l->state),
		      "phys_state", opt_str(l->phys_state), "link_layer", opt_str(l->link_layer),
		      "address", opt_str(l->address), "netdev", opt_str(l->netdev), "ifindex",
		      l->ifindex ? json_integer(l->ifindex) : json_null(), "virtual", l->is_virtual,
		      "loopback", l->is_loopback, "mtu",
		      l->mtu_known ? json_integer(l->mtu) : json_null(), "speed_bps",
		      opt_f64(l->speed_known, l->speed_bps), "counters", counters_json(l), "rates",
		      rates_json(r));
	json_object_set_new(o, "fabric",
			    m->fabric ? fabric_json(&m->fabric[i], m->snaps ? &m->snaps[i] : NULL,
						    m->fabric_all)
				      : json_null());
	return o;
}

json_t *ix_json_links(const struct ix_top_model *m)
{
	json_t *links = json_array();

	for (size_t i = 0; i < m->cur.n; i++)
		json_array_append_new(links, link_json(m, i));
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
