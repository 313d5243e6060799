/* Unit tests for probes/ctl/wire.c: test requests and figures on the wire,
 * refusing hostile input. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/ctl/wire.h"
#include "probes/net/transport.h"
#include "tests/unit/common.h"

static const struct ix_limits lim_default = { .max_duration_s = 3600, .max_streams = 128 };

static struct ix_bw_params good_tcp_bw(void)
{
	struct ix_bw_params p = {
		.path = "tcp",
		.msg_size = 131072,
		.streams = 4,
		.mode = IX_MODE_BIDIR,
		.duration_s = 10.5,
		.warmup_s = 1.5,
		.interval_s = 0.5,
		.congestion = "cubic",
		.window = 262144,
	};
	return p;
}

static struct ix_bw_params good_udp_bw(void)
{
	struct ix_bw_params p = {
		.path = "udp",
		.msg_size = 1472,
		.streams = 2,
		.mode = IX_MODE_REVERSE,
		.bytes = 1000000000,
		.rate_bps = 1000000000,
	};
	return p;
}

static json_t *bw_json(const struct ix_bw_params *p)
{
	return ix_test_json_roundtrip(ix_wire_bw_params(p));
}

/* Parse must fail with code and a message containing part. */
static void bw_refused(json_t *j, const struct ix_limits *lim, int code, const char *part)
{
	struct ix_bw_params out;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_wire_parse_bw(j, lim ? lim : &lim_default, &out, &err), -1,
		     "request accepted (expected '%s')", part ? part : "");
	cr_assert_eq(err.code, code, "code %d, message '%s'", err.code, err.msg);
	if (part)
		cr_assert_not_null(strstr(err.msg, part), "message '%s' lacks '%s'", err.msg, part);
}

static void bw_accepted(json_t *j, const struct ix_limits *lim, struct ix_bw_params *out)
{
	struct ix_err err = { 0 };

	cr_assert_eq(ix_wire_parse_bw(j, lim ? lim : &lim_default, out, &err), 0, "refused: %s",
		     err.msg);
}

/* A good request with one field replaced (value NULL: removed). */
static json_t *bw_with(const struct ix_bw_params *p, const char *key, json_t *value)
{
	json_t *j = bw_json(p);

	if (value)
		json_object_set_new(j, key, value);
	else
		cr_assert_eq(json_object_del(j, key), 0, "no key %s", key);
	return j;
}

static void bw_field_refused(const struct ix_bw_params *p, const char *key, json_t *value, int code,
			     const char *part)
{
	json_t *j = bw_with(p, key, value);

	bw_refused(j, NULL, code, part);
	json_decref(j);
}

static void bw_field_accepted(const struct ix_bw_params *p, const char *key, json_t *value)
{
	json_t *j = bw_with(p, key, value);
	struct ix_bw_params out;

	bw_accepted(j, NULL, &out);
	json_decref(j);
}

/* ---- bandwidth request ------------------------------------------------- */

Test(bw, round_trip_tcp)
{
	struct ix_bw_params p = good_tcp_bw(), q;
	json_t *j = bw_json(&p);

	bw_accepted(j, NULL, &q);
	cr_assert_str_eq(q.path, "tcp");
	cr_assert_eq(q.path, ix_tcp_transport.name, "path must point at the static name");
	cr_assert_eq(q.msg_size, p.msg_size);
	cr_assert_eq(q.streams, p.streams);
	cr_assert_eq(q.mode, p.mode);
	cr_assert_float_eq(q.duration_s, p.duration_s, 1e-12);
	cr_assert_eq(q.bytes, p.bytes);
	cr_assert_float_eq(q.warmup_s, p.warmup_s, 1e-12);
	cr_assert_float_eq(q.interval_s, p.interval_s, 1e-12);
	cr_assert_str_eq(q.congestion, "cubic");
	cr_assert_eq(q.rate_bps, p.rate_bps);
	cr_assert_eq(q.window, p.window);
	json_decref(j);
}

Test(bw, round_trip_udp_by_bytes)
{
	struct ix_bw_params p = good_udp_bw(), q;
	json_t *j = bw_json(&p);

	bw_accepted(j, NULL, &q);
	cr_assert_eq(q.path, ix_udp_transport.name);
	cr_assert_eq(q.msg_size, 1472);
	cr_assert_eq(q.streams, 2);
	cr_assert_eq(q.mode, IX_MODE_REVERSE);
	cr_assert_float_eq(q.duration_s, 0.0, 1e-12);
	cr_assert_eq(q.bytes, 1000000000ull);
	cr_assert_eq(q.rate_bps, 1000000000ull);
	cr_assert_eq(q.window, 0);
	cr_assert_str_eq(q.congestion, "");
	json_decref(j);
}

/* Zero-copy: a boolean, TCP only; absent (an older client) is off. */
Test(bw, zerocopy_flag)
{
	struct ix_bw_params p = good_tcp_bw(), q;
	json_t *j = bw_with(&p, "zerocopy", json_true());

	bw_accepted(j, NULL, &q);
	cr_assert(q.zerocopy);
	json_decref(j);
	bw_field_refused(&p, "zerocopy", json_string("yes"), IX_EXIT_USAGE, "'zerocopy'");
	p = good_udp_bw();
	bw_field_refused(&p, "zerocopy", json_true(), IX_EXIT_USAGE, "TCP only");
}

/* Data threads: sent only when asked (an older agent is not sent it for
 * nothing); 1 to IX_MAX_STREAMS. */
Test(bw, threads_asked)
{
	struct ix_bw_params p = good_tcp_bw(), q;
	json_t *j = ix_wire_bw_params(&p);

	cr_assert_null(json_object_get(j, "threads"), "automatic: not sent");
	json_decref(j);
	p.threads = 3;
	j = ix_wire_bw_params(&p);
	bw_accepted(j, NULL, &q);
	cr_assert_eq(q.threads, 3);
	json_decref(j);
	p.threads = 0;
	bw_field_refused(&p, "threads", json_integer(0), IX_EXIT_USAGE, "'threads'");
	bw_field_refused(&p, "threads", json_integer(IX_MAX_STREAMS + 1), IX_EXIT_USAGE,
			 "'threads'");
	bw_field_refused(&p, "threads", json_string("2"), IX_EXIT_USAGE, "'threads'");
}

Test(bw, not_an_object)
{
	json_t *arr = json_array();

	bw_refused(NULL, NULL, IX_EXIT_USAGE, "not an object");
	bw_refused(arr, NULL, IX_EXIT_USAGE, "not an object");
	json_decref(arr);
}

Test(bw, missing_fields)
{
	static const char *const keys[] = { "msg_size", "streams",  "mode", "duration", "bytes",
					    "warmup",   "interval", "rate", "window" };
	struct ix_bw_params p = good_tcp_bw();

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		bw_field_refused(&p, keys[i], NULL, IX_EXIT_USAGE, keys[i]);
	bw_field_refused(&p, "path", NULL, IX_EXIT_USAGE, "'path' missing");
	/* the congestion name is optional */
	bw_field_accepted(&p, "congestion", NULL);
}

Test(bw, wrong_types)
{
	struct ix_bw_params p = good_tcp_bw();

	bw_field_refused(&p, "msg_size", json_string("1024"), IX_EXIT_USAGE, "msg_size");
	bw_field_refused(&p, "msg_size", json_real(1024.0), IX_EXIT_USAGE, "msg_size");
	bw_field_refused(&p, "streams", json_real(1.5), IX_EXIT_USAGE, "streams");
	bw_field_refused(&p, "streams", json_true(), IX_EXIT_USAGE, "streams");
	bw_field_refused(&p, "mode", json_string("bidir"), IX_EXIT_USAGE, "mode");
	bw_field_refused(&p, "duration", json_string("10"), IX_EXIT_USAGE, "duration");
	bw_field_refused(&p, "duration", json_null(), IX_EXIT_USAGE, "duration");
	bw_field_refused(&p, "window", json_array(), IX_EXIT_USAGE, "window");
	bw_field_refused(&p, "path", json_integer(5), IX_EXIT_USAGE, "path");
	/* an integer where a number is wanted is fine */
	bw_field_accepted(&p, "duration", json_integer(10));
}

Test(bw, value_ranges)
{
	struct ix_bw_params p = good_tcp_bw();

	bw_field_refused(&p, "msg_size", json_integer(-1), IX_EXIT_USAGE, "out of range");
	bw_field_refused(&p, "bytes", json_integer(-1), IX_EXIT_USAGE, "out of range");
	bw_field_refused(&p, "rate", json_integer(-1000), IX_EXIT_USAGE, "out of range");
	bw_field_refused(&p, "duration", json_real(-1), IX_EXIT_USAGE, "out of range");
	bw_field_refused(&p, "warmup", json_real(-0.5), IX_EXIT_USAGE, "out of range");
	bw_field_refused(&p, "mode", json_integer(-1), IX_EXIT_USAGE, "out of range");
	bw_field_refused(&p, "mode", json_integer(3), IX_EXIT_USAGE, "out of range");
	bw_field_accepted(&p, "window", json_integer(1ll << 31));
	bw_field_refused(&p, "window", json_integer((1ll << 31) + 1), IX_EXIT_USAGE, "window");
}

Test(bw, streams_range)
{
	struct ix_bw_params p = good_tcp_bw(), q;
	struct ix_limits four = { .max_duration_s = 0, .max_streams = 4 };
	struct ix_limits none = { 0 };
	json_t *j;

	bw_field_refused(&p, "streams", json_integer(0), IX_EXIT_USAGE, "streams");
	bw_field_refused(&p, "streams", json_integer(IX_MAX_STREAMS + 1), IX_EXIT_USAGE, "streams");
	bw_field_accepted(&p, "streams", json_integer(IX_MAX_STREAMS));
	bw_field_refused(&p, "streams", json_integer(1ll << 40), IX_EXIT_USAGE, "streams");

	/* the server's own limit */
	j = bw_with(&p, "streams", json_integer(5));
	bw_refused(j, &four, IX_EXIT_USAGE, "streams");
	json_decref(j);
	j = bw_with(&p, "streams", json_integer(4));
	bw_accepted(j, &four, &q);
	cr_assert_eq(q.streams, 4);
	json_decref(j);
	/* max_streams 0: the compiled-in limit */
	j = bw_with(&p, "streams", json_integer(IX_MAX_STREAMS + 1));
	bw_refused(j, &none, IX_EXIT_USAGE, "streams");
	json_decref(j);
}

Test(bw, msg_size_limits_of_the_transport)
{
	struct ix_bw_params udp = good_udp_bw(), tcp = good_tcp_bw();

	cr_assert_eq(ix_udp_transport.min_msg_size, 24);
	bw_field_refused(&udp, "msg_size", json_integer(23), IX_EXIT_USAGE, "msg_size");
	bw_field_accepted(&udp, "msg_size", json_integer(24));
	bw_field_accepted(&udp, "msg_size",
			  json_integer((json_int_t)ix_udp_transport.max_msg_size));
	bw_field_refused(&udp, "msg_size",
			 json_integer((json_int_t)ix_udp_transport.max_msg_size + 1), IX_EXIT_USAGE,
			 "msg_size");
	bw_field_refused(&tcp, "msg_size", json_integer(0), IX_EXIT_USAGE, "msg_size");
	bw_field_accepted(&tcp, "msg_size", json_integer(1));
	bw_field_refused(&tcp, "msg_size",
			 json_integer((json_int_t)ix_tcp_transport.max_msg_size + 1), IX_EXIT_USAGE,
			 "msg_size");
}

Test(bw, unknown_path_is_unavailable)
{
	struct ix_bw_params p = good_tcp_bw();

	bw_field_refused(&p, "path", json_string("carrier-pigeon"), IX_EXIT_UNAVAILABLE,
			 "carrier-pigeon");
	bw_field_refused(&p, "path", json_string(""), IX_EXIT_UNAVAILABLE, NULL);
	bw_field_refused(&p, "path", json_string("TCP"), IX_EXIT_UNAVAILABLE, "TCP");
}

Test(bw, duration_limits)
{
	struct ix_bw_params p = good_tcp_bw(), q;
	struct ix_limits lim = { .max_duration_s = 60, .max_streams = 128 };
	struct ix_limits unlimited = { .max_duration_s = 0, .max_streams = 128 };
	json_t *j;

	/* warm-up counts: 59 + 1.5 > 60 */
	p.duration_s = 59;
	j = bw_json(&p);
	bw_refused(j, &lim, IX_EXIT_USAGE, "limit");
	bw_accepted(j, &unlimited, &q);
	json_decref(j);
	p.duration_s = 58.5;
	j = bw_json(&p);
	bw_accepted(j, &lim, &q);
	json_decref(j);
	/* absolute ceiling, whatever the server's limit */
	p.duration_s = 86401;
	j = bw_json(&p);
	bw_refused(j, &unlimited, IX_EXIT_USAGE, "duration");
	json_decref(j);
	p = good_tcp_bw();
	bw_field_refused(&p, "warmup", json_real(3601), IX_EXIT_USAGE, "warmup");
}

Test(bw, neither_duration_nor_bytes)
{
	struct ix_bw_params p = good_tcp_bw(); /* bytes 0 */

	bw_field_refused(&p, "duration", json_integer(0), IX_EXIT_USAGE,
			 "neither duration nor bytes");
}

Test(bw, interval_floor)
{
	struct ix_bw_params p = good_tcp_bw();

	bw_field_refused(&p, "interval", json_real(0.01), IX_EXIT_USAGE, "interval");
	bw_field_accepted(&p, "interval", json_real(0.05));
	bw_field_accepted(&p, "interval", json_integer(0));
}

Test(bw, udp_needs_a_rate)
{
	struct ix_bw_params p = good_udp_bw();

	bw_field_refused(&p, "rate", json_integer(0), IX_EXIT_USAGE, "needs a rate");
	bw_field_accepted(&p, "rate", json_integer(1));
	/* TCP: 0 means uncapped */
	p = good_tcp_bw();
	bw_field_accepted(&p, "rate", json_integer(0));
}

Test(bw, congestion_names)
{
	struct ix_bw_params p = good_tcp_bw();

	bw_field_refused(&p, "congestion", json_string("bbr;rm"), IX_EXIT_USAGE, "congestion");
	bw_field_refused(&p, "congestion", json_string("bbr rm -rf"), IX_EXIT_USAGE, "congestion");
	bw_field_refused(&p, "congestion", json_string("$(reboot)"), IX_EXIT_USAGE, "congestion");
	bw_field_refused(&p, "congestion", json_string("../cubic"), IX_EXIT_USAGE, "congestion");
	bw_field_refused(&p, "congestion", json_string("BBR"), IX_EXIT_USAGE, "congestion");
	/* IX_CC_NAME_MAX - 1 characters fit, one more does not */
	bw_field_accepted(&p, "congestion", json_string("abcdefghijklmno"));
	bw_field_refused(&p, "congestion", json_string("abcdefghijklmnop"), IX_EXIT_USAGE,
			 "congestion");
	bw_field_accepted(&p, "congestion", json_string("bbr2_x-y"));
	bw_field_accepted(&p, "congestion", json_string(""));
}

/* ---- latency request --------------------------------------------------- */

static struct ix_lat_params good_lat(void)
{
	struct ix_lat_params p = {
		.path = "udp",
		.msg_size = 64,
		.duration_s = 5,
		.warmup_s = 1,
		.busy_poll = true,
		.timeout_s = 0.5,
	};
	return p;
}

static void lat_refused(json_t *j, const struct ix_limits *lim, int code, const char *part)
{
	struct ix_lat_params out;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_wire_parse_lat(j, lim ? lim : &lim_default, &out, &err), -1,
		     "request accepted (expected '%s')", part ? part : "");
	cr_assert_eq(err.code, code, "code %d, message '%s'", err.code, err.msg);
	if (part)
		cr_assert_not_null(strstr(err.msg, part), "message '%s' lacks '%s'", err.msg, part);
}

static void lat_field(const char *key, json_t *value, bool ok, int code, const char *part)
{
	struct ix_lat_params p = good_lat(), out;
	struct ix_err err = { 0 };
	json_t *j = ix_test_json_roundtrip(ix_wire_lat_params(&p));

	if (value)
		json_object_set_new(j, key, value);
	else
		cr_assert_eq(json_object_del(j, key), 0);
	if (ok)
		cr_assert_eq(ix_wire_parse_lat(j, &lim_default, &out, &err), 0, "%s=...: %s", key,
			     err.msg);
	else
		lat_refused(j, NULL, code, part);
	json_decref(j);
}

Test(lat, round_trip)
{
	struct ix_lat_params p = good_lat(), q;
	struct ix_err err = { 0 };
	json_t *j = ix_test_json_roundtrip(ix_wire_lat_params(&p));

	cr_assert_eq(ix_wire_parse_lat(j, &lim_default, &q, &err), 0, "%s", err.msg);
	cr_assert_eq(q.path, ix_udp_transport.name);
	cr_assert_eq(q.msg_size, 64);
	cr_assert_eq(q.iters, 0);
	cr_assert_float_eq(q.duration_s, 5.0, 1e-12);
	cr_assert_float_eq(q.warmup_s, 1.0, 1e-12);
	cr_assert(q.busy_poll);
	cr_assert_float_eq(q.timeout_s, 0.5, 1e-12);
	json_decref(j);
}

Test(lat, round_trip_by_iterations)
{
	struct ix_lat_params p = good_lat(), q;
	struct ix_err err = { 0 };
	json_t *j;

	p.path = "tcp";
	p.iters = 100000;
	p.duration_s = 0;
	p.busy_poll = false;
	j = ix_test_json_roundtrip(ix_wire_lat_params(&p));
	cr_assert_eq(ix_wire_parse_lat(j, &lim_default, &q, &err), 0, "%s", err.msg);
	cr_assert_eq(q.path, ix_tcp_transport.name);
	cr_assert_eq(q.iters, 100000);
	cr_assert_not(q.busy_poll);
	json_decref(j);
}

Test(lat, not_an_object)
{
	json_t *s = json_string("lat");

	lat_refused(s, NULL, IX_EXIT_USAGE, "not an object");
	lat_refused(NULL, NULL, IX_EXIT_USAGE, "not an object");
	json_decref(s);
}

Test(lat, missing_fields)
{
	static const char *const keys[] = { "msg_size", "iters", "duration", "warmup", "timeout" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		lat_field(keys[i], NULL, false, IX_EXIT_USAGE, keys[i]);
	lat_field("path", NULL, false, IX_EXIT_USAGE, "path");
	lat_field("busy_poll", NULL, false, IX_EXIT_USAGE, "busy_poll");
}

Test(lat, wrong_types)
{
	lat_field("msg_size", json_string("64"), false, IX_EXIT_USAGE, "msg_size");
	lat_field("iters", json_real(2.5), false, IX_EXIT_USAGE, "iters");
	lat_field("timeout", json_string("1"), false, IX_EXIT_USAGE, "timeout");
	lat_field("busy_poll", json_integer(1), false, IX_EXIT_USAGE, "busy_poll");
	lat_field("busy_poll", json_string("true"), false, IX_EXIT_USAGE, "busy_poll");
}

Test(lat, ranges)
{
	lat_field("msg_size", json_integer(0), false, IX_EXIT_USAGE, "msg_size");
	/* UDP pings carry an 8-byte tag */
	cr_assert_eq(ix_udp_transport.min_lat_size, 8);
	lat_field("msg_size", json_integer(7), false, IX_EXIT_USAGE, "msg_size");
	lat_field("msg_size", json_integer(8), true, 0, NULL);
	lat_field("msg_size", json_integer((json_int_t)ix_udp_transport.max_msg_size), true, 0,
		  NULL);
	lat_field("msg_size", json_integer((json_int_t)ix_udp_transport.max_msg_size + 1), false,
		  IX_EXIT_USAGE, "msg_size");
	lat_field("timeout", json_real(0.0005), false, IX_EXIT_USAGE, "timeout");
	lat_field("timeout", json_real(61), false, IX_EXIT_USAGE, "timeout");
	lat_field("iters", json_integer(-5), false, IX_EXIT_USAGE, "iters");
	lat_field("duration", json_real(-1), false, IX_EXIT_USAGE, "duration");
	lat_field("duration", json_real(86401), false, IX_EXIT_USAGE, "duration");
}

Test(lat, unknown_path_is_unavailable)
{
	lat_field("path", json_string("carrier-pigeon"), false, IX_EXIT_UNAVAILABLE,
		  "carrier-pigeon");
}

Test(lat, duration_limit)
{
	struct ix_lat_params p = good_lat(), q;
	struct ix_limits lim = { .max_duration_s = 5.5, .max_streams = 1 };
	struct ix_err err = { 0 };
	json_t *j;

	j = ix_test_json_roundtrip(ix_wire_lat_params(&p)); /* 5 s + 1 s warm-up */
	lat_refused(j, &lim, IX_EXIT_USAGE, "limit");
	json_decref(j);
	p.warmup_s = 0.5;
	j = ix_test_json_roundtrip(ix_wire_lat_params(&p));
	cr_assert_eq(ix_wire_parse_lat(j, &lim, &q, &err), 0, "%s", err.msg);
	json_decref(j);
}

/* ---- stream ends and CPU ------------------------------------------------ */

Test(stream_end, round_trip_with_some_optional_fields)
{
	struct ix_stream_end e = {
		.valid = true,
		.bytes = 123456789012ull,
		.seconds = 2.5,
		.packets = ix_u64(1000),
		.lost = ix_u64(0), /* valid zero must survive */
		.jitter_ns = ix_f64(12.5),
		.rtt_us = ix_u64(250),
		.cwnd_bytes = ix_u64(65536),
	}, f;
	json_t *j = ix_test_json_roundtrip(ix_wire_stream_end(&e));

	/* Invalid figures are left out, not sent as 0. */
	cr_assert_null(json_object_get(j, "retransmits"));
	cr_assert_null(json_object_get(j, "out_of_order"));
	cr_assert_null(json_object_get(j, "rttvar_us"));
	cr_assert_null(json_object_get(j, "duplicates"));
	cr_assert_null(json_object_get(j, "sock_buffer"));
	cr_assert_not_null(json_object_get(j, "lost"));

	memset(&f, 0xa5, sizeof(f));
	cr_assert_eq(ix_wire_parse_stream_end(j, &f), 0);
	cr_assert(f.valid);
	cr_assert_eq(f.bytes, e.bytes);
	cr_assert_float_eq(f.seconds, 2.5, 1e-12);
	cr_assert(f.packets.valid);
	cr_assert_eq(f.packets.v, 1000);
	cr_assert(f.lost.valid);
	cr_assert_eq(f.lost.v, 0);
	cr_assert(f.jitter_ns.valid);
	cr_assert_float_eq(f.jitter_ns.v, 12.5, 1e-12);
	cr_assert(f.rtt_us.valid);
	cr_assert_eq(f.rtt_us.v, 250);
	cr_assert(f.cwnd_bytes.valid);
	cr_assert_eq(f.cwnd_bytes.v, 65536);
	cr_assert_not(f.retransmits.valid);
	cr_assert_not(f.out_of_order.valid);
	cr_assert_not(f.rttvar_us.valid);
	cr_assert_not(f.duplicates.valid, "absent (an older peer) is not valid, not 0");
	cr_assert_not(f.sock_buffer.valid);
	json_decref(j);
}

/* Among them the UDP receiver's duplicates and the socket buffer the
 * kernel granted (--window), so the agent's end reaches the client. */
Test(stream_end, the_other_optional_fields)
{
	struct ix_stream_end e = {
		.valid = true,
		.bytes = 0,
		.seconds = 0,
		.out_of_order = ix_u64(3),
		.duplicates = ix_u64(2),
		.sock_buffer = ix_u64(425984),
		.retransmits = ix_u64(17),
		.rttvar_us = ix_u64(40),
	}, f;
	json_t *j = ix_test_json_roundtrip(ix_wire_stream_end(&e));

	cr_assert_eq(ix_wire_parse_stream_end(j, &f), 0);
	cr_assert_eq(f.bytes, 0);
	cr_assert(f.out_of_order.valid);
	cr_assert_eq(f.out_of_order.v, 3);
	cr_assert(f.duplicates.valid);
	cr_assert_eq(f.duplicates.v, 2);
	cr_assert(f.sock_buffer.valid);
	cr_assert_eq(f.sock_buffer.v, 425984);
	cr_assert(f.retransmits.valid);
	cr_assert_eq(f.retransmits.v, 17);
	cr_assert(f.rttvar_us.valid);
	cr_assert_eq(f.rttvar_us.v, 40);
	cr_assert_not(f.packets.valid);
	cr_assert_not(f.lost.valid);
	cr_assert_not(f.jitter_ns.valid);
	cr_assert_not(f.rtt_us.valid);
	cr_assert_not(f.cwnd_bytes.valid);
	json_decref(j);
}

static int parse_end_text(const char *text, struct ix_stream_end *e)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);
	int rc;

	cr_assert_not_null(j, "%s: %s", text, jerr.text);
	rc = ix_wire_parse_stream_end(j, e);
	json_decref(j);
	return rc;
}

Test(stream_end, hostile_input)
{
	struct ix_stream_end e;

	cr_assert_eq(parse_end_text("{\"seconds\": 1.0}", &e), -1);
	cr_assert_not(e.valid);
	cr_assert_eq(parse_end_text("{\"bytes\": 10}", &e), -1);
	cr_assert_eq(parse_end_text("{\"bytes\": -10, \"seconds\": 1}", &e), -1);
	cr_assert_eq(parse_end_text("{\"bytes\": 10, \"seconds\": -1}", &e), -1);
	cr_assert_eq(parse_end_text("{\"bytes\": \"10\", \"seconds\": 1}", &e), -1);
	cr_assert_eq(parse_end_text("{\"bytes\": 10.5, \"seconds\": 1}", &e), -1);
	cr_assert_eq(parse_end_text("{\"bytes\": 10, \"seconds\": \"1\"}", &e), -1);
	cr_assert_eq(parse_end_text("[10, 1]", &e), -1);
	/* bad optional fields are dropped, the rest is kept */
	cr_assert_eq(parse_end_text("{\"bytes\": 10, \"seconds\": 1, \"lost\": -3, "
				    "\"packets\": \"7\", \"jitter_ns\": \"x\", \"rtt_us\": 1.5}",
				    &e),
		     0);
	cr_assert(e.valid);
	cr_assert_eq(e.bytes, 10);
	cr_assert_not(e.lost.valid);
	cr_assert_not(e.packets.valid);
	cr_assert_not(e.jitter_ns.valid);
	cr_assert_not(e.rtt_us.valid);
	/* an integer is a fine number of seconds */
	cr_assert_eq(parse_end_text("{\"bytes\": 10, \"seconds\": 2}", &e), 0);
	cr_assert_float_eq(e.seconds, 2.0, 1e-12);
}

/* A sender's zero-copy figures travel with its stream end (their JSON:
 * test_zcopy.c); a malformed object is dropped like the other options. */
Test(stream_end, zerocopy_travels)
{
	struct ix_stream_end e = { .valid = true, .zerocopy = { .asked = true, .sends = 9 } }, f;
	json_t *j = ix_test_json_roundtrip(ix_wire_stream_end(&e));

	cr_assert_eq(ix_wire_parse_stream_end(j, &f), 0);
	cr_assert(f.zerocopy.asked && f.zerocopy.sends == 9);
	json_decref(j);
	cr_assert_eq(parse_end_text("{\"bytes\": 1, \"seconds\": 1, \"zerocopy\": [1]}", &f), 0);
	cr_assert_not(f.zerocopy.asked);
}

Test(cpu, round_trip_and_invalid)
{
	struct ix_cpu c = { .valid = true, .user_s = 1.25, .system_s = 0.5, .wall_s = 3 }, d;
	struct ix_cpu none = { 0 };
	json_t *j = ix_test_json_roundtrip(ix_wire_cpu(&c)), *n = ix_wire_cpu(&none), *zero;

	ix_wire_parse_cpu(j, &d);
	cr_assert(d.valid);
	cr_assert_float_eq(d.user_s, 1.25, 1e-12);
	cr_assert_float_eq(d.system_s, 0.5, 1e-12);
	cr_assert_float_eq(d.wall_s, 3.0, 1e-12);
	cr_assert(json_is_null(n));
	ix_wire_parse_cpu(n, &d);
	cr_assert_not(d.valid);
	zero = json_pack("{s:f,s:f,s:f}", "user_s", 1.0, "system_s", 1.0, "wall_s", 0.0);
	ix_wire_parse_cpu(zero, &d);
	cr_assert_not(d.valid, "zero wall time is not a measurement");
	json_decref(j);
	json_decref(n);
	json_decref(zero);
}

/* The data threads an end ran travel with its CPU time; a count beyond
 * what any test runs is not believed. */
Test(cpu, threads_travel)
{
	struct ix_cpu c = { .valid = true, .user_s = 1, .system_s = 1, .wall_s = 2, .threads = 2 };
	struct ix_cpu d;
	json_t *j = ix_test_json_roundtrip(ix_wire_cpu(&c)), *bad;

	ix_wire_parse_cpu(j, &d);
	cr_assert_eq(d.threads, 2);
	json_decref(j);
	c.threads = 0;
	j = ix_wire_cpu(&c);
	cr_assert_null(json_object_get(j, "threads"), "not known: not sent");
	json_decref(j);
	bad = json_pack("{s:f,s:f,s:f,s:i}", "user_s", 1.0, "system_s", 1.0, "wall_s", 2.0,
			"threads", 100000);
	ix_wire_parse_cpu(bad, &d);
	cr_assert(d.valid);
	cr_assert_eq(d.threads, 0);
	json_decref(bad);
}
