#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probes/ctl/wire.h"
#include "probes/net/zcopy.h"
#include "probes/net/transport.h"

static void set_opt_u64(json_t *o, const char *k, struct ix_opt_u64 v)
{
	if (v.valid)
		json_object_set_new(o, k, json_integer((json_int_t)v.v));
}

static void get_opt_u64(json_t *o, const char *k, struct ix_opt_u64 *v)
{
	json_t *x = json_object_get(o, k);
	if (json_is_integer(x) && json_integer_value(x) >= 0)
		*v = ix_u64((uint64_t)json_integer_value(x));
}

json_t *ix_wire_bw_params(const struct ix_bw_params *p)
{
	json_t *o = json_pack("{s:s,s:I,s:i,s:i,s:f,s:I,s:f,s:f,s:s,s:I,s:I,s:b,s:b}", "path",
			      p->path, "msg_size", (json_int_t)p->msg_size, "streams",
			      (int)p->streams, "mode", (int)p->mode, "duration", p->duration_s,
			      "bytes", (json_int_t)p->bytes, "warmup", p->warmup_s, "interval",
			      p->interval_s, "congestion", p->congestion, "rate",
			      (json_int_t)p->rate_bps, "window", (json_int_t)p->window, "offload",
			      !p->no_offload, "zerocopy", p->zerocopy);

	/* Only when set: an agent that does not know it must not be sent it
	 * for nothing (it would ignore it; the REPORT's ports tell). */
	if (o && p->src_port)
		json_object_set_new(o, "src_port", json_integer(p->src_port));
	if (o && p->threads)
		json_object_set_new(o, "threads", json_integer(p->threads));
	return o;
}

json_t *ix_wire_lat_params(const struct ix_lat_params *p)
{
	return json_pack("{s:s,s:I,s:I,s:f,s:f,s:b,s:f}", "path", p->path, "msg_size",
			 (json_int_t)p->msg_size, "iters", (json_int_t)p->iters, "duration",
			 p->duration_s, "warmup", p->warmup_s, "busy_poll", p->busy_poll, "timeout",
			 p->timeout_s);
}

/* Field readers that refuse missing, mistyped and out-of-range values. */
static int get_u64(json_t *j, const char *k, uint64_t lo, uint64_t hi, uint64_t *out,
		   struct ix_err *err)
{
	json_t *x = json_object_get(j, k);
	json_int_t v;

	if (!json_is_integer(x))
		return ix_fail(err, IX_EXIT_USAGE, "test request: '%s' missing or not an integer",
			       k);
	v = json_integer_value(x);
	if (v < 0 || (uint64_t)v < lo || (uint64_t)v > hi)
		return ix_fail(err, IX_EXIT_USAGE, "test request: '%s' = %lld is out of range", k,
			       (long long)v);
	*out = (uint64_t)v;
	return 0;
}

static int get_f64(json_t *j, const char *k, double lo, double hi, double *out, struct ix_err *err)
{
	json_t *x = json_object_get(j, k);
	double v;

	if (!json_is_number(x))
		return ix_fail(err, IX_EXIT_USAGE, "test request: '%s' missing or not a number", k);
	v = json_number_value(x);
	if (!isfinite(v) || v < lo || v > hi)
		return ix_fail(err, IX_EXIT_USAGE, "test request: '%s' = %g is out of range", k, v);
	*out = v;
	return 0;
}

static int get_path(json_t *j, const char **path, const struct ix_transport **tp,
		    struct ix_err *err)
{
	const char *s = json_string_value(json_object_get(j, "path"));

	if (!s)
		return ix_fail(err, IX_EXIT_USAGE, "test request: 'path' missing");
	*tp = ix_transport_find(s);
	if (!*tp)
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "path '%s' is not supported by this server", s);
	*path = (*tp)->name; /* a static string, not the request's */
	return 0;
}

static int check_duration(const struct ix_limits *lim, double total, struct ix_err *err)
{
	if (lim->max_duration_s > 0 && total > lim->max_duration_s)
		return ix_fail(err, IX_EXIT_USAGE,
			       "requested %.1f s exceeds this server's limit of %.1f s", total,
			       lim->max_duration_s);
	return 0;
}

int ix_wire_parse_bw(json_t *j, const struct ix_limits *lim, struct ix_bw_params *p,
		     struct ix_err *err)
{
	const struct ix_transport *tp;
	uint64_t streams, mode;
	const char *cc;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_USAGE, "test request: 'bw' is not an object");
	if (get_path(j, &p->path, &tp, err) < 0 ||
	    get_u64(j, "msg_size", tp->min_msg_size, tp->max_msg_size, &p->msg_size, err) < 0 ||
	    get_u64(j, "streams", 1, lim->max_streams ? lim->max_streams : IX_MAX_STREAMS, &streams,
		    err) < 0 ||
	    get_u64(j, "mode", IX_MODE_FORWARD, IX_MODE_BIDIR, &mode, err) < 0 ||
	    get_f64(j, "duration", 0, 86400, &p->duration_s, err) < 0 ||
	    get_u64(j, "bytes", 0, UINT64_MAX >> 2, &p->bytes, err) < 0 ||
	    get_f64(j, "warmup", 0, 3600, &p->warmup_s, err) < 0 ||
	    get_f64(j, "interval", 0, 3600, &p->interval_s, err) < 0 ||
	    get_u64(j, "rate", 0, UINT64_MAX >> 2, &p->rate_bps, err) < 0 ||
	    get_u64(j, "window", 0, 1ull << 31, &p->window, err) < 0)
		return -1;
	p->streams = (uint32_t)streams;
	p->mode = (enum ix_mode)mode;
	/* Absent (an older client): offload on, the default. */
	if (json_object_get(j, "offload") && !json_is_boolean(json_object_get(j, "offload")))
		return ix_fail(err, IX_EXIT_USAGE, "test request: 'offload' is not a boolean");
	p->no_offload = json_is_false(json_object_get(j, "offload"));
	if (json_object_get(j, "zerocopy") && !json_is_boolean(json_object_get(j, "zerocopy")))
		return ix_fail(err, IX_EXIT_USAGE, "test request: 'zerocopy' is not a boolean");
	p->zerocopy = json_is_true(json_object_get(j, "zerocopy"));
	if (json_object_get(j, "src_port")) {
		uint64_t sp, last = streams * (mode == IX_MODE_BIDIR ? 2 : 1);

		if (get_u64(j, "src_port", 1024, 65535, &sp, err) < 0)
			return -1;
		if (sp + last - 1 > 65535)
			return ix_fail(err, IX_EXIT_USAGE,
				       "test request: source ports %llu to %llu go past 65535",
				       (unsigned long long)sp, (unsigned long long)(sp + last - 1));
		p->src_port = (uint16_t)sp;
	}
	if (json_object_get(j, "threads")) {
		uint64_t th;

		if (get_u64(j, "threads", 1, IX_MAX_STREAMS, &th, err) < 0)
			return -1;
		p->threads = (uint32_t)th;
	}
	if (p->zerocopy && strcmp(p->path, "tcp") != 0)
		return ix_fail(err, IX_EXIT_USAGE, "test request: 'zerocopy' is for TCP only");
	if (p->duration_s <= 0 && p->bytes == 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "test request: neither duration nor bytes given");
	if (p->interval_s > 0 && p->interval_s < 0.05)
		return ix_fail(err, IX_EXIT_USAGE, "test request: interval below 0.05 s");
	if (lim->max_rate_bps && p->rate_bps > lim->max_rate_bps)
		return ix_fail(
			err, IX_EXIT_USAGE,
			"requested %llu bit/s per stream exceeds this server's limit of %llu",
			(unsigned long long)p->rate_bps, (unsigned long long)lim->max_rate_bps);
	if (lim->max_rate_bps && p->rate_bps == 0)
		p->rate_bps = lim->max_rate_bps; /* unpaced: paced at the limit */
	if ((tp->caps & IX_CAP_NEEDS_RATE) && p->rate_bps == 0)
		return ix_fail(err, IX_EXIT_USAGE, "test request: path '%s' needs a rate",
			       tp->name);
	cc = json_string_value(json_object_get(j, "congestion"));
	if (!cc && json_object_get(j, "congestion"))
		return ix_fail(err, IX_EXIT_USAGE, "test request: 'congestion' is not a string");
	if (cc) {
		if (strlen(cc) >= sizeof(p->congestion) ||
		    strspn(cc, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(cc))
			return ix_fail(err, IX_EXIT_USAGE,
				       "test request: bad congestion control name");
		memcpy(p->congestion, cc, strlen(cc) + 1);
	}
	if (p->duration_s > 0 && check_duration(lim, p->duration_s + p->warmup_s, err) < 0)
		return -1;
	return 0;
}

int ix_wire_parse_lat(json_t *j, const struct ix_limits *lim, struct ix_lat_params *p,
		      struct ix_err *err)
{
	const struct ix_transport *tp;
	json_t *bp;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_USAGE, "test request: 'lat' is not an object");
	if (get_path(j, &p->path, &tp, err) < 0 ||
	    get_u64(j, "msg_size", tp->min_lat_size, tp->max_msg_size, &p->msg_size, err) < 0 ||
	    get_u64(j, "iters", 0, UINT64_MAX >> 2, &p->iters, err) < 0 ||
	    get_f64(j, "duration", 0, 86400, &p->duration_s, err) < 0 ||
	    get_f64(j, "warmup", 0, 3600, &p->warmup_s, err) < 0 ||
	    get_f64(j, "timeout", 0.001, 60, &p->timeout_s, err) < 0)
		return -1;
	bp = json_object_get(j, "busy_poll");
	if (!json_is_boolean(bp))
		return ix_fail(err, IX_EXIT_USAGE, "test request: 'busy_poll' missing");
	p->busy_poll = json_is_true(bp);
	if (p->duration_s > 0 && check_duration(lim, p->duration_s + p->warmup_s, err) < 0)
		return -1;
	return 0;
}

json_t *ix_wire_read_params(const struct ix_read_params *p)
{
	return json_pack("{s:s,s:I,s:I,s:I,s:f}", "path", p->path, "sru", (json_int_t)p->sru,
			 "rounds", (json_int_t)p->rounds, "warmup_rounds",
			 (json_int_t)p->warmup_rounds, "timeout", p->timeout_s);
}

int ix_wire_parse_read(json_t *j, const struct ix_limits *lim, struct ix_read_params *p,
		       struct ix_err *err)
{
	const struct ix_transport *tp;
	uint64_t rounds, warm;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_USAGE, "test request: 'block' is not an object");
	if (get_path(j, &p->path, &tp, err) < 0 ||
	    get_u64(j, "sru", 1, 1ull << 30, &p->sru, err) < 0 ||
	    get_u64(j, "rounds", 1, 10000000, &rounds, err) < 0 ||
	    get_u64(j, "warmup_rounds", 0, 10000000, &warm, err) < 0 ||
	    get_f64(j, "timeout", 0.01, 600, &p->timeout_s, err) < 0)
		return -1;
	if (!(tp->caps & IX_CAP_BLOCKS))
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "path '%s' cannot serve synchronised reads (tcp can)", tp->name);
	p->rounds = (uint32_t)rounds;
	p->warmup_rounds = (uint32_t)warm;
	(void)lim;
	return 0;
}

json_t *ix_wire_read_figures(const struct ix_read_figures *f)
{
	const struct ix_lat_stats *r = &f->round;
	json_t *o = json_pack("{s:b,s:s,s:i,s:I,s:I,s:f,s:f,s:I,s:I,s:I}", "complete", f->complete,
			      "error", f->error, "senders", (int)f->senders, "rounds",
			      (json_int_t)f->rounds, "bytes", (json_int_t)f->bytes, "seconds",
			      f->seconds, "goodput_bps", f->goodput_bps, "rto_rounds",
			      (json_int_t)f->rto_rounds, "slow_rounds", (json_int_t)f->slow_rounds,
			      "stalled_rounds", (json_int_t)f->stalled_rounds);

	set_opt_u64(o, "retransmits", f->retransmits);
	if (f->counters)
		json_object_set_new(o, "counters",
				    json_pack("{s:o,s:o}", "senders",
					      ix_ctr_sum_json(&f->at_senders), "receiver",
					      ix_ctr_sum_json(&f->at_receiver)));
	if (r->valid)
		json_object_set_new(o, "round_ns",
				    json_pack("{s:I,s:I,s:I,s:I,s:f}", "min", (json_int_t)r->min,
					      "p50", (json_int_t)r->p50, "p99", (json_int_t)r->p99,
					      "max", (json_int_t)r->max, "mean", r->mean));
	return o;
}

int ix_wire_parse_read_figures(json_t *j, struct ix_read_figures *f)
{
	json_t *r = json_object_get(j, "round_ns");
	uint64_t v;
	struct ix_err e;

	memset(f, 0, sizeof(*f));
	if (!json_is_object(j))
		return -1;
	f->complete = json_is_true(json_object_get(j, "complete"));
	snprintf(f->error, sizeof(f->error), "%s",
		 json_string_value(json_object_get(j, "error")) ?: "");
	if (get_u64(j, "senders", 0, IX_MAX_FANIN, &v, &e) < 0)
		return -1;
	f->senders = (uint32_t)v;
	if (get_u64(j, "rounds", 0, UINT64_MAX >> 2, &f->rounds, &e) < 0 ||
	    get_u64(j, "bytes", 0, UINT64_MAX >> 2, &f->bytes, &e) < 0 ||
	    get_f64(j, "seconds", 0, 1e9, &f->seconds, &e) < 0 ||
	    get_f64(j, "goodput_bps", 0, 1e18, &f->goodput_bps, &e) < 0 ||
	    get_u64(j, "rto_rounds", 0, UINT64_MAX >> 2, &f->rto_rounds, &e) < 0 ||
	    get_u64(j, "slow_rounds", 0, UINT64_MAX >> 2, &f->slow_rounds, &e) < 0 ||
	    get_u64(j, "stalled_rounds", 0, UINT64_MAX >> 2, &f->stalled_rounds, &e) < 0)
		return -1;
	get_opt_u64(j, "retransmits", &f->retransmits);
	if (json_object_get(j, "counters")) {
		json_t *c = json_object_get(j, "counters");

		if (ix_ctr_sum_parse(json_object_get(c, "senders"), &f->at_senders) < 0 ||
		    ix_ctr_sum_parse(json_object_get(c, "receiver"), &f->at_receiver) < 0)
			return -1;
		f->counters = true;
	}
	if (json_is_object(r)) {
		f->round.valid = true;
		f->round.count = f->rounds;
		if (get_u64(r, "min", 0, UINT64_MAX >> 2, &f->round.min, &e) < 0 ||
		    get_u64(r, "p50", 0, UINT64_MAX >> 2, &f->round.p50, &e) < 0 ||
		    get_u64(r, "p99", 0, UINT64_MAX >> 2, &f->round.p99, &e) < 0 ||
		    get_u64(r, "max", 0, UINT64_MAX >> 2, &f->round.max, &e) < 0 ||
		    get_f64(r, "mean", 0, 1e18, &f->round.mean, &e) < 0)
			return -1;
	}
	return 0;
}

json_t *ix_wire_stream_end(const struct ix_stream_end *e)
{
	json_t *o = json_pack("{s:I,s:f}", "bytes", (json_int_t)e->bytes, "seconds", e->seconds);

	set_opt_u64(o, "packets", e->packets);
	set_opt_u64(o, "lost", e->lost);
	set_opt_u64(o, "out_of_order", e->out_of_order);
	set_opt_u64(o, "duplicates", e->duplicates);
	if (e->jitter_ns.valid)
		json_object_set_new(o, "jitter_ns", json_real(e->jitter_ns.v));
	set_opt_u64(o, "retransmits", e->retransmits);
	set_opt_u64(o, "rtt_us", e->rtt_us);
	set_opt_u64(o, "rttvar_us", e->rttvar_us);
	set_opt_u64(o, "cwnd_bytes", e->cwnd_bytes);
	set_opt_u64(o, "sock_buffer", e->sock_buffer);
	if (e->io[0])
		json_object_set_new(
			o, "io", json_pack("{s:s,s:i}", "kind", e->io, "batch", (int)e->io_batch));
	if (e->zerocopy.asked)
		json_object_set_new(o, "zerocopy", ix_zc_json(&e->zerocopy));
	return o;
}

int ix_wire_parse_stream_end(json_t *j, struct ix_stream_end *e)
{
	json_t *b = json_object_get(j, "bytes"), *s = json_object_get(j, "seconds"), *x;

	memset(e, 0, sizeof(*e));
	if (!json_is_integer(b) || json_integer_value(b) < 0 || !json_is_number(s) ||
	    !isfinite(json_number_value(s)) || json_number_value(s) < 0)
		return -1;
	e->valid = true;
	e->bytes = (uint64_t)json_integer_value(b);
	e->seconds = json_number_value(s);
	get_opt_u64(j, "packets", &e->packets);
	get_opt_u64(j, "lost", &e->lost);
	get_opt_u64(j, "out_of_order", &e->out_of_order);
	get_opt_u64(j, "duplicates", &e->duplicates);
	x = json_object_get(j, "jitter_ns");
	if (json_is_number(x) && isfinite(json_number_value(x)))
		e->jitter_ns = ix_f64(json_number_value(x));
	get_opt_u64(j, "retransmits", &e->retransmits);
	get_opt_u64(j, "rtt_us", &e->rtt_us);
	get_opt_u64(j, "rttvar_us", &e->rttvar_us);
	get_opt_u64(j, "cwnd_bytes", &e->cwnd_bytes);
	get_opt_u64(j, "sock_buffer", &e->sock_buffer);
	x = json_object_get(json_object_get(j, "io"), "kind");
	if (json_is_string(x) &&
	    (strcmp(json_string_value(x), "gso") == 0 || strcmp(json_string_value(x), "gro") == 0 ||
	     strcmp(json_string_value(x), "mmsg") == 0)) {
		json_t *k = json_object_get(json_object_get(j, "io"), "batch");

		snprintf(e->io, sizeof(e->io), "%s", json_string_value(x));
		if (json_is_integer(k) && json_integer_value(k) >= 0 &&
		    json_integer_value(k) <= 1 << 20)
			e->io_batch = (uint32_t)json_integer_value(k);
	}
	/* Like the other optional fields: dropped (zeroed) when malformed. */
	x = json_object_get(j, "zerocopy");
	if (x)
		ix_zc_parse(x, &e->zerocopy);
	return 0;
}

json_t *ix_wire_cpu(const struct ix_cpu *c)
{
	json_t *o;

	if (!c->valid)
		return json_null();
	o = json_pack("{s:f,s:f,s:f}", "user_s", c->user_s, "system_s", c->system_s, "wall_s",
		      c->wall_s);
	if (o && c->threads)
		json_object_set_new(o, "threads", json_integer(c->threads));
	return o;
}

void ix_wire_parse_cpu(json_t *j, struct ix_cpu *c)
{
	json_int_t t;

	memset(c, 0, sizeof(*c));
	if (!json_is_object(j))
		return;
	c->user_s = json_number_value(json_object_get(j, "user_s"));
	c->system_s = json_number_value(json_object_get(j, "system_s"));
	c->wall_s = json_number_value(json_object_get(j, "wall_s"));
	c->valid = isfinite(c->user_s) && isfinite(c->system_s) && isfinite(c->wall_s) &&
		   c->wall_s > 0;
	t = json_integer_value(json_object_get(j, "threads"));
	c->threads = t > 0 && t <= 2 * IX_MAX_STREAMS ? (uint32_t)t : 0;
}
