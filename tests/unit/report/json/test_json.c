/* Unit tests for report/json/json.c: the JSON documents of bandwidth and latency
 * results and their envelope, checked after a dump/load round trip. */
#include "config.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "probes/core/probe.h"
#include "report/json/json.h"
#include "tests/unit/common.h"

/* Follow a path like "summary.forward.bytes" or "streams.1.sender". */
static json_t *at(json_t *j, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && j; tok = strtok_r(NULL, ".", &save)) {
		if (json_is_array(j))
			j = json_array_get(j, strtoul(tok, NULL, 10));
		else
			j = json_object_get(j, tok);
	}
	cr_assert_not_null(j, "no member %s", path);
	return j;
}

static const char *str_at(json_t *j, const char *path)
{
	json_t *x = at(j, path);

	cr_assert(json_is_string(x), "%s is not a string", path);
	return json_string_value(x);
}

static json_int_t int_at(json_t *j, const char *path)
{
	json_t *x = at(j, path);

	cr_assert(json_is_integer(x), "%s is not an integer", path);
	return json_integer_value(x);
}

static double num_at(json_t *j, const char *path)
{
	json_t *x = at(j, path);

	cr_assert(json_is_number(x), "%s is not a number", path);
	return json_number_value(x);
}

static void null_at(json_t *j, const char *path)
{
	cr_assert(json_is_null(at(j, path)), "%s is not null", path);
}

/* ---- bandwidth ---------------------------------------------------------- */

/* A bidirectional TCP test with one stream each way:
 *   stream 0 forward: 1 000 000 bytes in 2 s received (4 Mbit/s), sender
 *                     saw 5 retransmits and 100 us RTT;
 *   stream 1 reverse: 500 000 bytes in 4 s received (1 Mbit/s);
 *   one interval of 1 s. */
static void make_bidir(struct ix_bw_result *r)
{
	struct ix_bw_params p = {
		.path = "tcp",
		.msg_size = 131072,
		.streams = 1,
		.mode = IX_MODE_BIDIR,
		.duration_s = 10,
		.warmup_s = 1,
		.interval_s = 1,
		.window = 262144,
	};
	struct ix_interval *iv;

	ix_bw_result_init(r, &p);
	cr_assert_eq(r->nstreams, 2);
	cr_assert_not_null(r->streams);
	snprintf(r->remote_host, sizeof(r->remote_host), "server.example");
	snprintf(r->congestion_used, sizeof(r->congestion_used), "cubic");
	r->complete = true;

	r->streams[0].id = 0;
	r->streams[0].dir = IX_DIR_FORWARD;
	r->streams[0].sender = (struct ix_stream_end){ .valid = true,
						       .bytes = 1000000,
						       .seconds = 2.0,
						       .retransmits = ix_u64(5),
						       .rtt_us = ix_u64(100),
						       .cwnd_bytes = ix_u64(0) };
	r->streams[0].receiver =
		(struct ix_stream_end){ .valid = true, .bytes = 1000000, .seconds = 2.0 };
	r->streams[1].id = 1;
	r->streams[1].dir = IX_DIR_REVERSE;
	r->streams[1].sender =
		(struct ix_stream_end){ .valid = true, .bytes = 600000, .seconds = 4.0 };
	r->streams[1].receiver =
		(struct ix_stream_end){ .valid = true, .bytes = 500000, .seconds = 4.0 };

	iv = ix_bw_result_interval(r, 0);
	cr_assert_not_null(iv);
	cr_assert_eq(iv->nstreams, 2);
	iv->streams[0].have_rx = true;
	iv->streams[0].rx_bytes = 125000; /* 1 Mbit in 1 s */
	iv->streams[0].lost = ix_u64(0);
	iv->streams[1].have_tx = true;
	iv->streams[1].tx_bytes = 1000;
	iv->streams[1].retransmits = ix_u64(2);
	iv->streams[1].rtt_us = ix_u64(80);

	r->cpu_local =
		(struct ix_cpu){ .valid = true, .user_s = 1.0, .system_s = 0.5, .wall_s = 3.0 };
}

Test(bw, top_level_and_params)
{
	struct ix_bw_result r;
	json_t *j;

	make_bidir(&r);
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert_str_eq(str_at(j, "kind"), "bw");
	cr_assert_str_eq(str_at(j, "server"), "server.example");
	cr_assert(json_is_true(at(j, "complete")));
	null_at(j, "error");
	cr_assert_str_eq(str_at(j, "params.path"), "tcp");
	cr_assert_str_eq(str_at(j, "params.mode"), "bidir");
	cr_assert_eq(int_at(j, "params.msg_size"), 131072);
	cr_assert_eq(int_at(j, "params.streams"), 1);
	cr_assert_float_eq(num_at(j, "params.duration_s"), 10.0, 1e-9);
	cr_assert_eq(int_at(j, "params.bytes"), 0);
	cr_assert_float_eq(num_at(j, "params.warmup_s"), 1.0, 1e-9);
	cr_assert_float_eq(num_at(j, "params.interval_s"), 1.0, 1e-9);
	cr_assert_str_eq(str_at(j, "params.congestion"), "cubic");
	null_at(j, "params.rate_bps"); /* 0: no cap */
	cr_assert_eq(int_at(j, "params.window"), 262144);
	null_at(j, "params.window_granted"); /* no end reported its buffer */
	json_decref(j);
	ix_bw_result_free(&r);
}

/* The kernel granted less than --window asked: the smallest buffer an end
 * reported stands next to the request; without --window it is null. */
Test(bw, window_granted_next_to_window)
{
	struct ix_bw_result r;
	json_t *j;

	make_bidir(&r);
	r.streams[0].sender.sock_buffer = ix_u64(425984);
	r.streams[1].receiver.sock_buffer = ix_u64(524288);
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert_eq(int_at(j, "params.window"), 262144);
	cr_assert_eq(int_at(j, "params.window_granted"), 425984);
	json_decref(j);

	r.params.window = 0;
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	null_at(j, "params.window");
	null_at(j, "params.window_granted");
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(bw, summary_forward_and_reverse)
{
	struct ix_bw_result r;
	json_t *j;

	make_bidir(&r);
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert_eq(int_at(j, "summary.forward.bytes"), 1000000);
	cr_assert_float_eq(num_at(j, "summary.forward.seconds"), 2.0, 1e-9);
	cr_assert_float_eq(num_at(j, "summary.forward.bits_per_second"), 1000000.0 * 8 / 2.0, 1e-6);
	cr_assert_float_eq(num_at(j, "summary.forward.sender_bits_per_second"), 4e6, 1e-6);
	cr_assert_eq(int_at(j, "summary.forward.retransmits"), 5);
	null_at(j, "summary.forward.packets_sent");
	null_at(j, "summary.forward.packets_received");
	null_at(j, "summary.forward.lost");
	null_at(j, "summary.forward.loss_percent");
	null_at(j, "summary.forward.out_of_order");
	null_at(j, "summary.forward.duplicates");
	null_at(j, "summary.forward.jitter_ns");

	cr_assert_eq(int_at(j, "summary.reverse.bytes"), 500000);
	cr_assert_float_eq(num_at(j, "summary.reverse.seconds"), 4.0, 1e-9);
	cr_assert_float_eq(num_at(j, "summary.reverse.bits_per_second"), 500000.0 * 8 / 4.0, 1e-6);
	cr_assert_float_eq(num_at(j, "summary.reverse.sender_bits_per_second"), 600000.0 * 8 / 4.0,
			   1e-6);
	null_at(j, "summary.reverse.retransmits");
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(bw, streams_with_optional_fields)
{
	struct ix_bw_result r;
	json_t *j;

	make_bidir(&r);
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert_eq(json_array_size(at(j, "streams")), 2);
	cr_assert_eq(int_at(j, "streams.0.id"), 0);
	cr_assert_str_eq(str_at(j, "streams.0.direction"), "forward");
	cr_assert_str_eq(str_at(j, "streams.1.direction"), "reverse");
	cr_assert_eq(int_at(j, "streams.0.sender.bytes"), 1000000);
	cr_assert_float_eq(num_at(j, "streams.0.sender.bits_per_second"), 4e6, 1e-6);
	cr_assert_eq(int_at(j, "streams.0.sender.retransmits"), 5);
	cr_assert_eq(int_at(j, "streams.0.sender.rtt_us"), 100);
	/* valid zero is a number, not null */
	cr_assert_eq(int_at(j, "streams.0.sender.cwnd_bytes"), 0);
	null_at(j, "streams.0.sender.rttvar_us");
	null_at(j, "streams.0.sender.packets");
	null_at(j, "streams.0.receiver.retransmits");
	null_at(j, "streams.0.receiver.jitter_ns");
	cr_assert_eq(int_at(j, "streams.1.receiver.bytes"), 500000);
	cr_assert_float_eq(num_at(j, "streams.1.receiver.seconds"), 4.0, 1e-9);
	cr_assert_float_eq(num_at(j, "streams.1.receiver.bits_per_second"), 1e6, 1e-6);
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(bw, intervals)
{
	struct ix_bw_result r;
	json_t *j;

	make_bidir(&r);
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert_eq(json_array_size(at(j, "intervals")), 1);
	cr_assert_float_eq(num_at(j, "intervals.0.start"), 0.0, 1e-9);
	cr_assert_float_eq(num_at(j, "intervals.0.end"), 1.0, 1e-9);
	cr_assert(json_is_true(at(j, "intervals.0.warmup")), "first second is the warm-up");
	cr_assert_float_eq(num_at(j, "intervals.0.forward_bits_per_second"), 1e6, 1e-6);
	cr_assert_float_eq(num_at(j, "intervals.0.reverse_bits_per_second"), 0.0, 1e-9);
	cr_assert_eq(json_array_size(at(j, "intervals.0.streams")), 2);
	cr_assert_eq(int_at(j, "intervals.0.streams.0.id"), 0);
	cr_assert_str_eq(str_at(j, "intervals.0.streams.0.direction"), "forward");
	cr_assert_eq(int_at(j, "intervals.0.streams.0.bytes"), 125000);
	cr_assert_float_eq(num_at(j, "intervals.0.streams.0.bits_per_second"), 1e6, 1e-6);
	null_at(j, "intervals.0.streams.0.sent_bytes");
	cr_assert_eq(int_at(j, "intervals.0.streams.0.lost"), 0);
	null_at(j, "intervals.0.streams.0.retransmits");
	cr_assert_str_eq(str_at(j, "intervals.0.streams.1.direction"), "reverse");
	null_at(j, "intervals.0.streams.1.bytes");
	null_at(j, "intervals.0.streams.1.bits_per_second");
	cr_assert_eq(int_at(j, "intervals.0.streams.1.sent_bytes"), 1000);
	cr_assert_eq(int_at(j, "intervals.0.streams.1.retransmits"), 2);
	cr_assert_eq(int_at(j, "intervals.0.streams.1.rtt_us"), 80);
	null_at(j, "intervals.0.streams.1.cwnd_bytes");
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(bw, later_intervals_are_not_warmup)
{
	struct ix_bw_result r;
	json_t *j;

	make_bidir(&r);
	cr_assert_not_null(ix_bw_result_interval(&r, 2));
	cr_assert_eq(r.nintervals, 3);
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert_eq(json_array_size(at(j, "intervals")), 3);
	cr_assert_float_eq(num_at(j, "intervals.2.start"), 2.0, 1e-9);
	cr_assert_float_eq(num_at(j, "intervals.2.end"), 3.0, 1e-9);
	cr_assert(json_is_false(at(j, "intervals.1.warmup")));
	cr_assert(json_is_false(at(j, "intervals.2.warmup")));
	null_at(j, "intervals.2.streams.0.bytes");
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(bw, cpu)
{
	struct ix_bw_result r;
	json_t *j;

	make_bidir(&r);
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert_float_eq(num_at(j, "cpu.local.user_s"), 1.0, 1e-9);
	cr_assert_float_eq(num_at(j, "cpu.local.system_s"), 0.5, 1e-9);
	cr_assert_float_eq(num_at(j, "cpu.local.wall_s"), 3.0, 1e-9);
	cr_assert_float_eq(num_at(j, "cpu.local.percent"), 50.0, 1e-9);
	null_at(j, "cpu.remote");
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(bw, incomplete_carries_error)
{
	struct ix_bw_result r;
	json_t *j;

	make_bidir(&r);
	r.complete = false;
	snprintf(r.error, sizeof(r.error), "server went away");
	r.congestion_used[0] = '\0';
	r.params.window = 0;
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert(json_is_false(at(j, "complete")));
	cr_assert_str_eq(str_at(j, "error"), "server went away");
	null_at(j, "params.congestion");
	null_at(j, "params.window");
	json_decref(j);
	ix_bw_result_free(&r);
}

/* A forward UDP test: packets, loss, duplicates and jitter on the receiver side. */
Test(bw, udp_forward_loss_and_jitter)
{
	struct ix_bw_params p = { .path = "udp",
				  .msg_size = 1472,
				  .streams = 2,
				  .mode = IX_MODE_FORWARD,
				  .duration_s = 5,
				  .rate_bps = 100000000 };
	struct ix_bw_result r;
	json_t *j;

	ix_bw_result_init(&r, &p);
	cr_assert_eq(r.nstreams, 2);
	r.complete = true;
	for (uint32_t i = 0; i < 2; i++) {
		r.streams[i].id = i;
		r.streams[i].dir = IX_DIR_FORWARD;
		r.streams[i].sender = (struct ix_stream_end){
			.valid = true, .bytes = 1472000, .seconds = 5, .packets = ix_u64(1000)
		};
		r.streams[i].receiver =
			(struct ix_stream_end){ .valid = true,
						.bytes = 1457280,
						.seconds = 5,
						.packets = ix_u64(990),
						.lost = ix_u64(10),
						.out_of_order = ix_u64(i),
						.duplicates = ix_u64(i + 1),
						.jitter_ns = ix_f64(1000.0 * (i + 1)) };
	}
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert_str_eq(str_at(j, "params.mode"), "forward");
	cr_assert_str_eq(str_at(j, "params.path"), "udp");
	cr_assert_eq(int_at(j, "params.rate_bps"), 100000000);
	null_at(j, "params.window");
	null_at(j, "summary.reverse");
	cr_assert_eq(int_at(j, "summary.forward.bytes"), 2 * 1457280);
	cr_assert_float_eq(num_at(j, "summary.forward.bits_per_second"), 2 * 1457280.0 * 8 / 5,
			   1e-6);
	cr_assert_eq(int_at(j, "summary.forward.packets_sent"), 2000);
	cr_assert_eq(int_at(j, "summary.forward.packets_received"), 1980);
	cr_assert_eq(int_at(j, "summary.forward.lost"), 20);
	cr_assert_float_eq(num_at(j, "summary.forward.loss_percent"), 1.0, 1e-9);
	cr_assert_eq(int_at(j, "summary.forward.out_of_order"), 1);
	cr_assert_eq(int_at(j, "summary.forward.duplicates"), 3, "duplicates are summed");
	cr_assert_float_eq(num_at(j, "summary.forward.jitter_ns"), 1500.0, 1e-9);
	null_at(j, "summary.forward.retransmits");
	cr_assert_eq(int_at(j, "streams.1.receiver.lost"), 10);
	cr_assert_eq(int_at(j, "streams.1.receiver.duplicates"), 2);
	null_at(j, "streams.1.sender.duplicates");
	cr_assert_float_eq(num_at(j, "streams.1.receiver.jitter_ns"), 2000.0, 1e-9);
	cr_assert_eq(json_array_size(at(j, "intervals")), 0);
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(bw, invalid_ends_are_null)
{
	struct ix_bw_params p = { .path = "tcp",
				  .msg_size = 1000,
				  .streams = 1,
				  .mode = IX_MODE_REVERSE,
				  .duration_s = 1 };
	struct ix_bw_result r;
	json_t *j;

	ix_bw_result_init(&r, &p);
	r.streams[0].dir = IX_DIR_REVERSE;
	j = ix_test_json_roundtrip(ix_json_bw(&r));
	cr_assert_str_eq(str_at(j, "params.mode"), "reverse");
	null_at(j, "streams.0.sender");
	null_at(j, "streams.0.receiver");
	null_at(j, "summary.forward");
	cr_assert_eq(int_at(j, "summary.reverse.bytes"), 0);
	cr_assert_float_eq(num_at(j, "summary.reverse.bits_per_second"), 0.0, 1e-12);
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(opt, optional_values)
{
	json_t *a = ix_json_opt_u64(ix_u64(7)), *b = ix_json_opt_u64((struct ix_opt_u64){ 0 });
	json_t *c = ix_json_opt_f64(ix_f64(2.5)), *d = ix_json_opt_f64((struct ix_opt_f64){ 0 });

	cr_assert(json_is_integer(a));
	cr_assert_eq(json_integer_value(a), 7);
	cr_assert(json_is_null(b));
	cr_assert(json_is_real(c));
	cr_assert_float_eq(json_real_value(c), 2.5, 1e-12);
	cr_assert(json_is_null(d));
	json_decref(a);
	json_decref(c);
}

/* ---- latency ------------------------------------------------------------ */

static void make_lat(struct ix_lat_result *r, uint64_t n)
{
	struct ix_lat_params p = { .path = "udp",
				   .msg_size = 64,
				   .iters = n,
				   .warmup_s = 0.5,
				   .busy_poll = true,
				   .timeout_s = 1 };

	ix_lat_result_init(r, &p);
	cr_assert_not_null(r->samples.hist);
	snprintf(r->remote_host, sizeof(r->remote_host), "peer");
	r->complete = true;
	r->seconds = 1.25;
	r->lost = 3;
	for (uint64_t i = 1; i <= n; i++)
		cr_assert_eq(ix_samples_add(&r->samples, i * 1000), 0);
	ix_stats_compute(&r->samples, &r->stats);
}

Test(lat, document)
{
	struct ix_lat_result r;
	json_t *j;

	make_lat(&r, 100);
	j = ix_test_json_roundtrip(ix_json_lat(&r));
	cr_assert_str_eq(str_at(j, "kind"), "lat");
	cr_assert_str_eq(str_at(j, "server"), "peer");
	cr_assert(json_is_true(at(j, "complete")));
	null_at(j, "error");
	cr_assert_str_eq(str_at(j, "metric"), "rtt/2");
	cr_assert_str_eq(str_at(j, "unit"), "ns");
	cr_assert_str_eq(str_at(j, "params.path"), "udp");
	cr_assert_eq(int_at(j, "params.msg_size"), 64);
	cr_assert_eq(int_at(j, "params.iters"), 100);
	cr_assert_float_eq(num_at(j, "params.warmup_s"), 0.5, 1e-12);
	cr_assert(json_is_true(at(j, "params.busy_poll")));
	cr_assert_float_eq(num_at(j, "params.timeout_s"), 1.0, 1e-12);
	cr_assert_eq(int_at(j, "samples"), 100);
	cr_assert_eq(int_at(j, "lost"), 3);
	cr_assert_float_eq(num_at(j, "seconds"), 1.25, 1e-12);
	null_at(j, "cpu.local");
	null_at(j, "cpu.remote");
	json_decref(j);
	ix_lat_result_free(&r);
}

Test(lat, stats)
{
	struct ix_lat_result r;
	json_t *j;

	make_lat(&r, 100);
	j = ix_test_json_roundtrip(ix_json_lat(&r));
	cr_assert_eq(int_at(j, "stats.count"), 100);
	cr_assert_eq(int_at(j, "stats.min_ns"), 1000);
	cr_assert_eq(int_at(j, "stats.max_ns"), 100000);
	cr_assert_float_eq(num_at(j, "stats.mean_ns"), 50500.0, 1e-6);
	cr_assert_float_eq(num_at(j, "stats.stdev_ns"), 1000.0 * sqrt(100.0 * 101.0 / 12.0), 1e-6);
	cr_assert_eq(int_at(j, "stats.p50_ns"), 50000);
	cr_assert_eq(int_at(j, "stats.p90_ns"), 90000);
	cr_assert_eq(int_at(j, "stats.p99_ns"), 99000);
	cr_assert_eq(int_at(j, "stats.p99_9_ns"), 100000);
	cr_assert_eq(int_at(j, "stats.p99_99_ns"), 100000);
	cr_assert(json_is_true(at(j, "stats.exact")));
	json_decref(j);
	ix_lat_result_free(&r);
}

Test(lat, histogram_counts_every_sample)
{
	struct ix_lat_result r;
	json_t *j, *buckets, *b;
	json_int_t total = 0, prev_hi = -1;
	size_t i;

	make_lat(&r, 1000);
	j = ix_test_json_roundtrip(ix_json_lat(&r));
	cr_assert_str_eq(str_at(j, "histogram.scheme"), "log-linear");
	cr_assert_eq(int_at(j, "histogram.sub_buckets"), IX_HIST_SUB);
	buckets = at(j, "histogram.buckets");
	cr_assert(json_is_array(buckets));
	cr_assert_gt(json_array_size(buckets), 0);
	json_array_foreach(buckets, i, b)
	{
		json_int_t lo = int_at(b, "lo_ns"), hi = int_at(b, "hi_ns"), c = int_at(b, "count");

		cr_assert_lt(lo, hi);
		cr_assert_gt(c, 0, "empty buckets are left out");
		cr_assert_geq(lo, prev_hi, "buckets out of order");
		prev_hi = hi;
		total += c;
	}
	cr_assert_eq(total, 1000);
	cr_assert_eq(int_at(j, "samples"), 1000);
	/* the first sample, 1000 ns, sits in [992, 1024) */
	cr_assert_eq(int_at(buckets, "0.lo_ns"), 992);
	cr_assert_eq(int_at(buckets, "0.hi_ns"), 1024);
	cr_assert_eq(int_at(buckets, "0.count"), 1);
	json_decref(j);
	ix_lat_result_free(&r);
}

Test(lat, no_samples)
{
	struct ix_lat_params p = { .path = "tcp", .msg_size = 1, .duration_s = 2, .timeout_s = 1 };
	struct ix_lat_result r;
	json_t *j;

	ix_lat_result_init(&r, &p);
	ix_stats_compute(&r.samples, &r.stats);
	snprintf(r.error, sizeof(r.error), "no replies");
	r.cpu_remote = (struct ix_cpu){ .valid = true, .user_s = 0.1, .wall_s = 0.0 };
	j = ix_test_json_roundtrip(ix_json_lat(&r));
	null_at(j, "stats");
	cr_assert(json_is_false(at(j, "complete")));
	cr_assert_str_eq(str_at(j, "error"), "no replies");
	cr_assert(json_is_false(at(j, "params.busy_poll")));
	cr_assert_float_eq(num_at(j, "params.duration_s"), 2.0, 1e-12);
	cr_assert_eq(int_at(j, "samples"), 0);
	cr_assert_eq(json_array_size(at(j, "histogram.buckets")), 0);
	/* wall time 0: percent reported as 0 rather than dividing by zero */
	cr_assert_float_eq(num_at(j, "cpu.remote.percent"), 0.0, 1e-12);
	json_decref(j);
	ix_lat_result_free(&r);
}

/* ---- envelope ----------------------------------------------------------- */

Test(envelope, fields)
{
	char *argv[] = { "ixperf", "bw", "-t", "5", "--json", "h\xc3\xa9te" };
	int argc = (int)(sizeof(argv) / sizeof(argv[0]));
	time_t before = time(NULL), after, when;
	json_t *j, *cl;
	const char *t;
	regex_t re;
	struct tm tm;

	j = ix_test_json_roundtrip(ix_json_envelope("bw", argc, argv));
	after = time(NULL);
	cr_assert_eq(int_at(j, "schema_version"), 1);
	cr_assert_eq(int_at(j, "schema_version"), IX_JSON_SCHEMA_VERSION);
	cr_assert_str_eq(str_at(j, "tool.name"), "ixperf");
	cr_assert_str_eq(str_at(j, "tool.version"), PACKAGE_VERSION);
	cr_assert_str_eq(str_at(j, "command"), "bw");
	cr_assert(json_is_string(at(j, "host")));

	cl = at(j, "command_line");
	cr_assert(json_is_array(cl));
	cr_assert_eq(json_array_size(cl), (size_t)argc);
	for (int i = 0; i < argc; i++)
		cr_assert_str_eq(json_string_value(json_array_get(cl, (size_t)i)), argv[i]);

	t = str_at(j, "time");
	cr_assert_eq(regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$",
			     REG_EXTENDED | REG_NOSUB),
		     0);
	cr_assert_eq(regexec(&re, t, 0, NULL, 0), 0, "time '%s' is not ISO 8601 UTC", t);
	regfree(&re);
	memset(&tm, 0, sizeof(tm));
	cr_assert_not_null(strptime(t, "%Y-%m-%dT%H:%M:%SZ", &tm));
	when = timegm(&tm);
	cr_assert_geq(when, before, "time %s is before the call", t);
	cr_assert_leq(when, after, "time %s is after the call", t);
	json_decref(j);
}

Test(envelope, empty_argv)
{
	json_t *j = ix_test_json_roundtrip(ix_json_envelope("lat", 0, NULL));

	cr_assert_eq(json_array_size(at(j, "command_line")), 0);
	cr_assert_str_eq(str_at(j, "command"), "lat");
	json_decref(j);
}

Test(document, complete_and_failed)
{
	char *argv[] = { "ixperf", "lat", "node07" };
	json_t *ok = ix_test_json_roundtrip(ix_json_document("lat", 3, argv, json_array(), NULL));
	json_t *bad = ix_test_json_roundtrip(
		ix_json_document("lat", 3, argv, json_array(), "server gone"));

	cr_assert(json_is_true(json_object_get(ok, "complete")));
	cr_assert(json_is_null(json_object_get(ok, "error")));
	cr_assert(json_is_array(json_object_get(ok, "results")));
	cr_assert_str_eq(json_string_value(json_object_get(ok, "command")), "lat");
	cr_assert(json_is_false(json_object_get(bad, "complete")));
	cr_assert_str_eq(json_string_value(json_object_get(bad, "error")), "server gone");
	json_decref(ok);
	json_decref(bad);
}
