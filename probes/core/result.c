/* Result structs: allocation and the summaries every renderer shows. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/core/probe.h"

const char *ix_dir_name(enum ix_dir d)
{
	return d == IX_DIR_FORWARD ? "forward" : "reverse";
}

const char *ix_mode_name(enum ix_mode m)
{
	switch (m) {
	case IX_MODE_FORWARD:
		return "forward";
	case IX_MODE_REVERSE:
		return "reverse";
	default:
		return "bidir";
	}
}

void ix_bw_result_init(struct ix_bw_result *r, const struct ix_bw_params *p)
{
	memset(r, 0, sizeof(*r));
	r->params = *p;
	snprintf(r->path, sizeof(r->path), "%s", p->path);
	r->params.path = r->path;
	r->nstreams = p->streams * (p->mode == IX_MODE_BIDIR ? 2 : 1);
	r->streams = calloc(r->nstreams, sizeof(*r->streams));
}

void ix_bw_result_free(struct ix_bw_result *r)
{
	for (size_t i = 0; i < r->nintervals; i++)
		free(r->intervals[i].streams);
	free(r->intervals);
	free(r->streams);
	ix_ctr_set_free(&r->ctr_local);
	ix_ctr_set_free(&r->ctr_remote);
	memset(r, 0, sizeof(*r));
}

struct ix_interval *ix_bw_result_interval(struct ix_bw_result *r, size_t k)
{
	while (r->nintervals <= k) {
		struct ix_interval *iv;
		double step = r->params.interval_s;

		if (r->nintervals == r->cap_intervals) {
			size_t ncap = r->cap_intervals ? r->cap_intervals * 2 : 16;
			struct ix_interval *n = realloc(r->intervals, ncap * sizeof(*n));
			if (!n)
				return NULL;
			r->intervals = n;
			r->cap_intervals = ncap;
		}
		iv = &r->intervals[r->nintervals];
		memset(iv, 0, sizeof(*iv));
		iv->start_s = step * (double)r->nintervals;
		iv->end_s = iv->start_s + step;
		iv->warmup = iv->end_s <= r->params.warmup_s + 1e-9;
		iv->nstreams = r->nstreams;
		iv->streams = calloc(r->nstreams ? r->nstreams : 1, sizeof(*iv->streams));
		if (!iv->streams)
			return NULL;
		r->nintervals++;
	}
	return &r->intervals[k];
}

void ix_bw_summarize(const struct ix_bw_result *r, enum ix_dir dir, struct ix_dir_summary *s)
{
	uint64_t sent_pk = 0, recv_pk = 0, lost = 0, ooo = 0, dup = 0, retr = 0;
	bool have_pk = false, have_retr = false, have_lost = false, have_ooo = false,
	     have_dup = false;
	double jitter = 0, tx_bps = 0;
	unsigned njit = 0;

	memset(s, 0, sizeof(*s));
	for (uint32_t i = 0; i < r->nstreams; i++) {
		const struct ix_stream_result *st = &r->streams[i];
		const struct ix_stream_end *rx = &st->receiver, *tx = &st->sender;

		if (st->dir != dir)
			continue;
		s->present = true;
		if (rx->valid) {
			s->bytes += rx->bytes;
			if (rx->seconds > s->seconds)
				s->seconds = rx->seconds;
			if (rx->seconds > 0)
				s->bits_per_second += (double)rx->bytes * 8.0 / rx->seconds;
			if (rx->packets.valid) {
				recv_pk += rx->packets.v;
				have_pk = true;
			}
			if (rx->lost.valid) {
				lost += rx->lost.v;
				have_lost = true;
			}
			if (rx->out_of_order.valid) {
				ooo += rx->out_of_order.v;
				have_ooo = true;
			}
			if (rx->duplicates.valid) {
				dup += rx->duplicates.v;
				have_dup = true;
			}
			if (rx->jitter_ns.valid) {
				jitter += rx->jitter_ns.v;
				njit++;
			}
		}
		if (tx->valid) {
			if (tx->seconds > 0)
				tx_bps += (double)tx->bytes * 8.0 / tx->seconds;
			if (tx->packets.valid)
				sent_pk += tx->packets.v;
			if (tx->retransmits.valid) {
				retr += tx->retransmits.v;
				have_retr = true;
			}
		}
	}
	s->sender_bits_per_second = tx_bps;
	if (have_retr)
		s->retransmits = ix_u64(retr);
	if (have_pk) {
		s->packets_received = ix_u64(recv_pk);
		s->packets_sent = ix_u64(sent_pk);
	}
	if (have_lost) {
		s->lost = ix_u64(lost);
		if (recv_pk + lost > 0)
			s->loss_percent = ix_f64(100.0 * (double)lost / (double)(recv_pk + lost));
	}
	if (have_ooo)
		s->out_of_order = ix_u64(ooo);
	if (have_dup)
		s->duplicates = ix_u64(dup);
	if (njit)
		s->jitter_ns = ix_f64(jitter / njit);
}

void ix_lat_result_init(struct ix_lat_result *r, const struct ix_lat_params *p)
{
	memset(r, 0, sizeof(*r));
	r->params = *p;
	snprintf(r->path, sizeof(r->path), "%s", p->path);
	r->params.path = r->path;
	ix_samples_init(&r->samples);
}

void ix_lat_result_free(struct ix_lat_result *r)
{
	ix_samples_free(&r->samples);
	ix_ctr_set_free(&r->ctr_local);
	ix_ctr_set_free(&r->ctr_remote);
	memset(r, 0, sizeof(*r));
}

double ix_bw_cpu_per_gb(const struct ix_bw_result *r, const struct ix_cpu *c)
{
	uint64_t bytes = 0;
	double window = 0, share;

	for (int d = 0; d < 2; d++) {
		struct ix_dir_summary s;

		ix_bw_summarize(r, (enum ix_dir)d, &s);
		if (!s.present)
			continue;
		bytes += s.bytes;
		if (s.seconds > window)
			window = s.seconds;
	}
	if (!c->valid || !(c->wall_s > 0) || !bytes || !(window > 0))
		return -1;
	share = window < c->wall_s ? window / c->wall_s : 1.0;
	return (c->user_s + c->system_s) * share / ((double)bytes / 1e9);
}
