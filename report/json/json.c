#include "config.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "probes/core/link.h"
#include "probes/core/stats.h"
#include "probes/net/zcopy.h"
#include "report/json/json.h"

json_t *ix_json_opt_u64(struct ix_opt_u64 v)
{
	return v.valid ? json_integer((json_int_t)v.v) : json_null();
}

json_t *ix_json_opt_f64(struct ix_opt_f64 v)
{
	return v.valid ? json_real(v.v) : json_null();
}

json_t *ix_json_envelope(const char *command, int argc, char **argv)
{
	char host[256] = "", when[32];
	time_t now = time(NULL);
	struct tm tm;
	json_t *args = json_array();

	gethostname(host, sizeof(host) - 1);
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (int i = 0; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	return json_pack("{s:i,s:{s:s,s:s},s:s,s:s,s:o,s:s}", "schema_version",
			 IX_JSON_SCHEMA_VERSION, "tool", "name", PACKAGE_NAME, "version",
			 PACKAGE_VERSION, "host", host, "time", when, "command_line", args,
			 "command", command);
}

json_t *ix_json_document(const char *command, int argc, char **argv, json_t *results,
			 const char *error)
{
	json_t *doc = ix_json_envelope(command, argc, argv);

	json_object_set_new(doc, "complete", json_boolean(error == NULL));
	json_object_set_new(doc, "error", error ? json_string(error) : json_null());
	json_object_set_new(doc, "results", results);
	return doc;
}

static json_t *cpu_json(const struct ix_cpu *c)
{
	json_t *o;

	if (!c->valid)
		return json_null();
	o = json_pack("{s:f,s:f,s:f,s:f}", "user_s", c->user_s, "system_s", c->system_s, "wall_s",
		      c->wall_s, "percent",
		      c->wall_s > 0 ? 100.0 * (c->user_s + c->system_s) / c->wall_s : 0.0);
	if (o && c->threads)
		json_object_set_new(o, "threads", json_integer(c->threads));
	return o;
}

/* A bw end's CPU, with its seconds per GB moved. */
static json_t *bw_cpu_json(const struct ix_bw_result *r, const struct ix_cpu *c)
{
	json_t *o = cpu_json(c);
	double per_gb = ix_bw_cpu_per_gb(r, c);

	if (json_is_object(o))
		json_object_set_new(o, "seconds_per_gb",
				    per_gb >= 0 ? json_real(per_gb) : json_null());
	return o;
}

static json_t *end_json(const struct ix_stream_end *e)
{
	json_t *o;

	if (!e->valid)
		return json_null();
	o = json_pack("{s:I,s:f,s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "bytes",
		      (json_int_t)e->bytes, "seconds", e->seconds, "bits_per_second",
		      e->seconds > 0 ? (double)e->bytes * 8.0 / e->seconds : 0.0, "packets",
		      ix_json_opt_u64(e->packets), "lost", ix_json_opt_u64(e->lost), "out_of_order",
		      ix_json_opt_u64(e->out_of_order), "duplicates",
		      ix_json_opt_u64(e->duplicates), "jitter_ns", ix_json_opt_f64(e->jitter_ns),
		      "retransmits", ix_json_opt_u64(e->retransmits), "rtt_us",
		      ix_json_opt_u64(e->rtt_us), "rttvar_us", ix_json_opt_u64(e->rttvar_us),
		      "cwnd_bytes", ix_json_opt_u64(e->cwnd_bytes));
	if (o && e->io[0])
		json_object_set_new(
			o, "io", json_pack("{s:s,s:i}", "kind", e->io, "batch", (int)e->io_batch));
	if (o && e->zerocopy.asked)
		json_object_set_new(o, "zerocopy", ix_zc_json(&e->zerocopy));
	return o;
}

static json_t *summary_json(const struct ix_bw_result *r, enum ix_dir d)
{
	/* The path's ceiling: the lower of the two ends'. */
	double ceil = ix_link_ceiling(ix_link_lower(&r->link, &r->link_remote));
	struct ix_dir_summary s;
	json_t *o;

	ix_bw_summarize(r, d, &s);
	if (!s.present)
		return json_null();
	o = json_pack(
		"{s:I,s:f,s:f,s:o,s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "bytes",
		(json_int_t)s.bytes, "seconds", s.seconds, "bits_per_second", s.bits_per_second,
		"percent_of_link",
		r->link.bps > 0 ? json_real(100.0 * s.bits_per_second / r->link.bps) : json_null(),
		"sender_bits_per_second", s.sender_bits_per_second, "retransmits",
		ix_json_opt_u64(s.retransmits), "packets_sent", ix_json_opt_u64(s.packets_sent),
		"packets_received", ix_json_opt_u64(s.packets_received), "lost",
		ix_json_opt_u64(s.lost), "loss_percent", ix_json_opt_f64(s.loss_percent),
		"out_of_order", ix_json_opt_u64(s.out_of_order), "duplicates",
		ix_json_opt_u64(s.duplicates), "jitter_ns", ix_json_opt_f64(s.jitter_ns));
	if (ceil > 0)
		json_object_set_new(o, "percent_of_ceiling",
				    json_real(100.0 * s.bits_per_second / ceil));
	return o;
}

static json_t *intervals_json(const struct ix_bw_result *r)
{
	json_t *arr = json_array();

	for (size_t k = 0; k < r->nintervals; k++) {
		const struct ix_interval *iv = &r->intervals[k];
		double len = iv->end_s - iv->start_s;
		json_t *st = json_array();
		uint64_t sum[2] = { 0, 0 };

		for (uint32_t i = 0; i < iv->nstreams; i++) {
			const struct ix_interval_stream *e = &iv->streams[i];
			enum ix_dir d = r->streams[i].dir;

			sum[d] += e->rx_bytes;
			json_array_append_new(
				st,
				json_pack("{s:i,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "id", (int)i,
					  "direction", ix_dir_name(d), "bytes",
					  e->have_rx ? json_integer((json_int_t)e->rx_bytes)
						     : json_null(),
					  "bits_per_second",
					  e->have_rx ? json_real((double)e->rx_bytes * 8.0 / len)
						     : json_null(),
					  "sent_bytes",
					  e->have_tx ? json_integer((json_int_t)e->tx_bytes)
						     : json_null(),
					  "retransmits", ix_json_opt_u64(e->retransmits), "rtt_us",
					  ix_json_opt_u64(e->rtt_us), "cwnd_bytes",
					  ix_json_opt_u64(e->cwnd_bytes), "lost",
					  ix_json_opt_u64(e->lost)));
		}
		json_array_append_new(
			arr, json_pack("{s:f,s:f,s:b,s:o,s:f,s:f}", "start", iv->start_s, "end",
				       iv->end_s, "warmup", iv->warmup, "streams", st,
				       "forward_bits_per_second", (double)sum[0] * 8.0 / len,
				       "reverse_bits_per_second", (double)sum[1] * 8.0 / len));
	}
	return arr;
}

json_t *ix_json_bw(const struct ix_bw_result *r)
{
	const struct ix_bw_params *p = &r->params;
	json_t *streams = json_array(), *o;

	for (uint32_t i = 0; i < r->nstreams; i++)
		json_array_append_new(streams,
				      json_pack("{s:i,s:s,s:o,s:o}", "id", (int)r->streams[i].id,
						"direction", ix_dir_name(r->streams[i].dir),
						"sender", end_json(&r->streams[i].sender),
						"receiver", end_json(&r->streams[i].receiver)));
	o = json_pack(
		"{s:s,s:s,s:s,s:b,s:o,s:{s:s,s:I,s:i,s:s,s:f,s:I,s:f,s:f,s:o,s:o,s:o,s:o,s:b,s:b},"
		"s:{s:"
		"o,s:"
		"o},"
		"s:o,"
		"s:o,s:{s:o,s:o}}",
		"kind", "bw", "server", r->remote_host, "server_version", r->remote_version,
		"complete", r->complete, "error", r->complete ? json_null() : json_string(r->error),
		"params", "path", r->path, "msg_size", (json_int_t)p->msg_size, "streams",
		(int)p->streams, "mode", ix_mode_name(p->mode), "duration_s", p->duration_s,
		"bytes", (json_int_t)p->bytes, "warmup_s", p->warmup_s, "interval_s", p->interval_s,
		"congestion", r->congestion_used[0] ? json_string(r->congestion_used) : json_null(),
		"rate_bps", p->rate_bps ? json_integer((json_int_t)p->rate_bps) : json_null(),
		"window", p->window ? json_integer((json_int_t)p->window) : json_null(),
		"window_granted", ix_json_opt_u64(ix_bw_window_granted(r)), "offload",
		!p->no_offload, "zerocopy", p->zerocopy, "summary", "forward",
		summary_json(r, IX_DIR_FORWARD), "reverse", summary_json(r, IX_DIR_REVERSE),
		"streams", streams, "intervals", intervals_json(r), "cpu", "local",
		bw_cpu_json(r, &r->cpu_local), "remote", bw_cpu_json(r, &r->cpu_remote));
	json_object_set_new(json_object_get(o, "params"), "threads",
			    p->threads ? json_integer(p->threads) : json_null());
	json_object_set_new(o, "link", ix_link_json(&r->link));
	json_object_set_new(o, "link_remote", ix_link_json(&r->link_remote));
	json_object_set_new(o, "counters", ix_json_counters_pair(&r->ctr_local, &r->ctr_remote));
	if (r->wire.present)
		json_object_set_new(o, "wire", ix_json_wire(&r->wire));
	return o;
}

static json_t *hist_json(const struct ix_hist *h)
{
	json_t *b = json_array();
	uint64_t lo, hi;

	for (size_t i = 0; i < IX_HIST_BUCKETS; i++) {
		if (!h->count[i])
			continue;
		ix_hist_bounds(i, &lo, &hi);
		json_array_append_new(b,
				      json_pack("{s:I,s:I,s:I}", "lo_ns", (json_int_t)lo, "hi_ns",
						(json_int_t)hi, "count", (json_int_t)h->count[i]));
	}
	return json_pack("{s:s,s:i,s:o}", "scheme", "log-linear", "sub_buckets", IX_HIST_SUB,
			 "buckets", b);
}

json_t *ix_json_counters_pair(const struct ix_ctr_set *local, const struct ix_ctr_set *remote)
{
	return json_pack("{s:o,s:o}", "local", ix_ctr_json(local), "remote", ix_ctr_json(remote));
}

json_t *ix_json_lat_stats(const struct ix_lat_stats *s)
{
	if (!s->valid)
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:f,s:f,s:I,s:I,s:I,s:I,s:I,s:b}", "count",
			 (json_int_t)s->count, "min_ns", (json_int_t)s->min, "max_ns",
			 (json_int_t)s->max, "mean_ns", s->mean, "stdev_ns", s->stdev, "p50_ns",
			 (json_int_t)s->p50, "p90_ns", (json_int_t)s->p90, "p99_ns",
			 (json_int_t)s->p99, "p99_9_ns", (json_int_t)s->p999, "p99_99_ns",
			 (json_int_t)s->p9999, "exact", s->exact);
}

json_t *ix_json_lat(const struct ix_lat_result *r)
{
	json_t *stats = ix_json_lat_stats(&r->stats), *o;

	o = json_pack(
		"{s:s,s:s,s:s,s:b,s:o,s:{s:s,s:I,s:I,s:f,s:f,s:b,s:f},s:s,s:s,s:I,s:I,s:f,s:o,s:o,"
		"s:{s:o,s:o}}",
		"kind", "lat", "server", r->remote_host, "server_version", r->remote_version,
		"complete", r->complete, "error", r->complete ? json_null() : json_string(r->error),
		"params", "path", r->path, "msg_size", (json_int_t)r->params.msg_size, "iters",
		(json_int_t)r->params.iters, "duration_s", r->params.duration_s, "warmup_s",
		r->params.warmup_s, "busy_poll", r->params.busy_poll, "timeout_s",
		r->params.timeout_s, "metric", "rtt/2", "unit", "ns", "samples",
		(json_int_t)r->samples.seen, "lost", (json_int_t)r->lost, "seconds", r->seconds,
		"stats", stats, "histogram", hist_json(r->samples.hist), "cpu", "local",
		cpu_json(&r->cpu_local), "remote", cpu_json(&r->cpu_remote));
	json_object_set_new(o, "counters", ix_json_counters_pair(&r->ctr_local, &r->ctr_remote));
	if (r->wire.present)
		json_object_set_new(o, "wire", ix_json_wire(&r->wire));
	return o;
}
