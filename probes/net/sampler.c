#include "config.h"

#include <string.h>

#include "probes/core/clock.h"
#include "probes/net/sampler.h"

void ix_sampler_init(struct ix_sampler *sm, double interval_s, int64_t t_start, uint32_t n)
{
	memset(sm, 0, sizeof(*sm));
	sm->interval_s = interval_s;
	sm->t_start = t_start;
	sm->n = n;
}

int64_t ix_sampler_next(const struct ix_sampler *sm)
{
	if (sm->interval_s <= 0)
		return 0;
	return sm->t_start + ix_seconds_to_ns(sm->interval_s * (double)(sm->next_k + 1));
}

void ix_sampler_take(struct ix_sampler *sm, struct ix_stream *s, struct ix_interval_stream *out)
{
	for (uint32_t i = 0; i < sm->n; i++) {
		struct ix_interval_stream *e = &out[i];
		uint64_t bytes = atomic_load_explicit(&s[i].c.bytes, memory_order_relaxed);

		memset(e, 0, sizeof(*e));
		if (s[i].sending) {
			e->have_tx = true;
			e->tx_bytes = bytes - sm->prev_bytes[i];
			if (s[i].tp->sender_info) {
				struct ix_stream_end end = { 0 };

				/* Totals since the connection opened: the
				 * sending thread's warm-up baseline is left to
				 * the summary, so nothing here races with it. */
				s[i].tp->sender_info(&s[i], &end);
				if (end.retransmits.valid) {
					uint64_t t = end.retransmits.v, p = sm->prev_retrans[i];
					e->retransmits = ix_u64(t >= p ? t - p : 0);
					sm->prev_retrans[i] = t;
				}
				e->rtt_us = end.rtt_us;
				e->cwnd_bytes = end.cwnd_bytes;
			}
		} else {
			e->have_rx = true;
			e->rx_bytes = bytes - sm->prev_bytes[i];
			if (s[i].tp->caps & IX_CAP_DATAGRAM) {
				uint64_t g = atomic_load(&s[i].c.gaps);
				e->lost = ix_u64(g >= sm->prev_gaps[i] ? g - sm->prev_gaps[i] : 0);
				sm->prev_gaps[i] = g;
			}
		}
		sm->prev_bytes[i] = bytes;
	}
	sm->next_k++;
}

static void put_opt(json_t *o, const char *k, struct ix_opt_u64 v)
{
	if (v.valid)
		json_object_set_new(o, k, json_integer((json_int_t)v.v));
}

json_t *ix_interval_to_wire(uint64_t k, const struct ix_interval_stream *e, uint32_t n)
{
	json_t *arr = json_array();

	for (uint32_t i = 0; i < n; i++) {
		json_t *o = json_pack("{s:i}", "id", (int)i);
		if (e[i].have_tx)
			json_object_set_new(o, "tx_bytes", json_integer((json_int_t)e[i].tx_bytes));
		if (e[i].have_rx)
			json_object_set_new(o, "rx_bytes", json_integer((json_int_t)e[i].rx_bytes));
		put_opt(o, "retransmits", e[i].retransmits);
		put_opt(o, "rtt_us", e[i].rtt_us);
		put_opt(o, "cwnd_bytes", e[i].cwnd_bytes);
		put_opt(o, "lost", e[i].lost);
		json_array_append_new(arr, o);
	}
	return json_pack("{s:I,s:o}", "k", (json_int_t)k, "streams", arr);
}

int ix_interval_merge(struct ix_bw_result *r, uint64_t k, const struct ix_interval_stream *e,
		      uint32_t n)
{
	struct ix_interval *iv = ix_bw_result_interval(r, k);

	if (!iv || n > iv->nstreams)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct ix_interval_stream *d = &iv->streams[i];
		if (e[i].have_tx) {
			d->have_tx = true;
			d->tx_bytes = e[i].tx_bytes;
			d->retransmits = e[i].retransmits;
			d->rtt_us = e[i].rtt_us;
			d->cwnd_bytes = e[i].cwnd_bytes;
		}
		if (e[i].have_rx) {
			d->have_rx = true;
			d->rx_bytes = e[i].rx_bytes;
			d->lost = e[i].lost;
		}
	}
	return 0;
}

static bool get_u(json_t *o, const char *k, uint64_t *v)
{
	json_t *x = json_object_get(o, k);
	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return false;
	*v = (uint64_t)json_integer_value(x);
	return true;
}

int ix_interval_merge_wire(struct ix_bw_result *r, json_t *body)
{
	struct ix_interval_stream e[2 * IX_MAX_STREAMS];
	json_t *arr = json_object_get(body, "streams"), *o;
	uint64_t k, v;
	size_t i;

	/* The server ticks with the client: it cannot be more than a few
	 * intervals ahead, and sends none when none were asked for. */
	if (r->params.interval_s <= 0 || !get_u(body, "k", &k) || k > r->nintervals + 4 ||
	    !json_is_array(arr) || json_array_size(arr) != r->nstreams)
		return -1;
	memset(e, 0, sizeof(e));
	json_array_foreach(arr, i, o)
	{
		e[i].have_tx = get_u(o, "tx_bytes", &e[i].tx_bytes);
		e[i].have_rx = get_u(o, "rx_bytes", &e[i].rx_bytes);
		if (get_u(o, "retransmits", &v))
			e[i].retransmits = ix_u64(v);
		if (get_u(o, "rtt_us", &v))
			e[i].rtt_us = ix_u64(v);
		if (get_u(o, "cwnd_bytes", &v))
			e[i].cwnd_bytes = ix_u64(v);
		if (get_u(o, "lost", &v))
			e[i].lost = ix_u64(v);
	}
	return ix_interval_merge(r, k, e, r->nstreams);
}
