/* Unit tests for probes/net/sampler.c: per-interval retransmits come from
 * the sender's running totals and leave the sending thread's warm-up
 * baseline alone; intervals travel on the wire and both ends' merge into
 * one, refusing malformed bodies. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/net/sampler.h"
#include "tests/unit/common.h"

/* A sender whose stack reports fake_total retransmits so far. When
 * fake_mark is set, the sending thread reaches its warm-up mark during the
 * sample and records that baseline, as tcp.c does. */
static uint64_t fake_total, fake_mark;

static void fake_info(struct ix_stream *s, struct ix_stream_end *e)
{
	if (fake_mark)
		s->warm_retrans = fake_mark;
	e->retransmits = ix_u64(fake_total);
}

static const struct ix_transport fake_tp = {
	.name = "fake",
	.caps = IX_CAP_RETRANS,
	.sender_info = fake_info,
};

static uint64_t take(struct ix_sampler *sm, struct ix_stream *s)
{
	struct ix_interval_stream e;

	ix_sampler_take(sm, s, &e);
	cr_assert(e.have_tx && e.retransmits.valid);
	return e.retransmits.v;
}

Test(sampler, retransmits_per_interval_keep_the_warmup_baseline)
{
	struct ix_sampler sm;
	struct ix_stream s;

	ix_stream_init(&s, 0, IX_DIR_FORWARD, true);
	s.tp = &fake_tp;
	ix_sampler_init(&sm, 1.0, 0, 1);

	/* First tick on the warm-up mark: the baseline written meanwhile
	 * must survive the sample. */
	fake_total = 3;
	fake_mark = 3;
	cr_assert_eq(take(&sm, &s), 3);
	cr_assert_eq(s.warm_retrans, 3, "warm-up baseline lost: %llu",
		     (unsigned long long)s.warm_retrans);

	fake_mark = 0;
	fake_total = 10;
	cr_assert_eq(take(&sm, &s), 7);
	cr_assert_eq(take(&sm, &s), 0);
	cr_assert_eq(s.warm_retrans, 3);
}

/* Totals never shrink; if a reading ever did, the interval shows 0, not
 * a wrapped count. */
Test(sampler, retransmits_never_wrap)
{
	struct ix_sampler sm;
	struct ix_stream s;

	ix_stream_init(&s, 0, IX_DIR_FORWARD, true);
	s.tp = &fake_tp;
	ix_sampler_init(&sm, 1.0, 0, 1);
	fake_mark = 0;
	fake_total = 5;
	cr_assert_eq(take(&sm, &s), 5);
	fake_total = 4;
	cr_assert_eq(take(&sm, &s), 0);
}

/* The ticks of the interval schedule: none without intervals, then one
 * an interval after the start. */
Test(sampler, schedule)
{
	struct ix_sampler sm;

	ix_sampler_init(&sm, 0, 1000, 2);
	cr_assert_eq(ix_sampler_next(&sm), 0, "no intervals: no tick");
	ix_sampler_init(&sm, 0.5, 1000, 2);
	cr_assert_eq(ix_sampler_next(&sm), 1000 + 500000000ll);
	sm.next_k = 3;
	cr_assert_eq(ix_sampler_next(&sm), 1000 + 2000000000ll);
}

/* ---- interval merge ---------------------------------------------------- */

static void two_stream_result(struct ix_bw_result *r)
{
	struct ix_bw_params p = { .path = "tcp",
				  .msg_size = 1000,
				  .streams = 1,
				  .mode = IX_MODE_BIDIR,
				  .duration_s = 10,
				  .interval_s = 1 };

	ix_bw_result_init(r, &p);
	cr_assert_eq(r->nstreams, 2);
	r->streams[0].dir = IX_DIR_FORWARD;
	r->streams[1].id = 1;
	r->streams[1].dir = IX_DIR_REVERSE;
}

static json_t *parse_text(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);

	cr_assert_not_null(j, "%s: %s", text, jerr.text);
	return j;
}

Test(interval, wire_round_trip)
{
	struct ix_bw_result r;
	struct ix_interval_stream e[2] = {
		{ .have_rx = true, .rx_bytes = 125000, .lost = ix_u64(2) },
		{ .have_tx = true,
		  .tx_bytes = 9000,
		  .retransmits = ix_u64(1),
		  .rtt_us = ix_u64(70),
		  .cwnd_bytes = ix_u64(14480) },
	};
	json_t *j;
	struct ix_interval *iv;

	two_stream_result(&r);
	j = ix_test_json_roundtrip(ix_interval_to_wire(3, e, 2));
	cr_assert_eq(json_integer_value(json_object_get(j, "k")), 3);
	cr_assert_eq(ix_interval_merge_wire(&r, j), 0);
	cr_assert_eq(r.nintervals, 4, "intervals up to k are created");
	iv = &r.intervals[3];
	cr_assert_float_eq(iv->start_s, 3.0, 1e-12);
	cr_assert_float_eq(iv->end_s, 4.0, 1e-12);
	cr_assert_eq(iv->nstreams, 2);
	cr_assert(iv->streams[0].have_rx);
	cr_assert_not(iv->streams[0].have_tx);
	cr_assert_eq(iv->streams[0].rx_bytes, 125000);
	cr_assert(iv->streams[0].lost.valid);
	cr_assert_eq(iv->streams[0].lost.v, 2);
	cr_assert(iv->streams[1].have_tx);
	cr_assert_not(iv->streams[1].have_rx);
	cr_assert_eq(iv->streams[1].tx_bytes, 9000);
	cr_assert_eq(iv->streams[1].retransmits.v, 1);
	cr_assert_eq(iv->streams[1].rtt_us.v, 70);
	cr_assert_eq(iv->streams[1].cwnd_bytes.v, 14480);
	cr_assert_not(r.intervals[1].streams[0].have_rx, "skipped intervals stay empty");
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(interval, both_ends_merge_into_one_interval)
{
	struct ix_bw_result r;
	struct ix_interval_stream local[2] = { { .have_tx = true, .tx_bytes = 500 },
					       { .have_rx = true, .rx_bytes = 700 } };
	struct ix_interval_stream remote[2] = { { .have_rx = true, .rx_bytes = 480 },
						{ .have_tx = true, .tx_bytes = 710 } };
	json_t *j;
	struct ix_interval *iv;

	two_stream_result(&r);
	cr_assert_eq(ix_interval_merge(&r, 0, local, 2), 0);
	j = ix_test_json_roundtrip(ix_interval_to_wire(0, remote, 2));
	cr_assert_eq(ix_interval_merge_wire(&r, j), 0);
	cr_assert_eq(r.nintervals, 1);
	iv = &r.intervals[0];
	cr_assert(iv->streams[0].have_tx && iv->streams[0].have_rx);
	cr_assert_eq(iv->streams[0].tx_bytes, 500);
	cr_assert_eq(iv->streams[0].rx_bytes, 480);
	cr_assert(iv->streams[1].have_tx && iv->streams[1].have_rx);
	cr_assert_eq(iv->streams[1].tx_bytes, 710);
	cr_assert_eq(iv->streams[1].rx_bytes, 700);
	json_decref(j);
	ix_bw_result_free(&r);
}

Test(interval, refuses_wrong_stream_count)
{
	struct ix_bw_result r;
	struct ix_interval_stream e[3] = { { .have_rx = true, .rx_bytes = 1 },
					   { .have_rx = true, .rx_bytes = 2 },
					   { .have_rx = true, .rx_bytes = 3 } };
	json_t *one, *three;

	two_stream_result(&r);
	one = ix_interval_to_wire(0, e, 1);
	three = ix_interval_to_wire(0, e, 3);
	cr_assert_eq(ix_interval_merge_wire(&r, one), -1);
	cr_assert_eq(ix_interval_merge_wire(&r, three), -1);
	cr_assert_eq(r.nintervals, 0, "a refused body creates nothing");
	/* the local merge refuses more entries than the result has */
	cr_assert_eq(ix_interval_merge(&r, 0, e, 3), -1);
	json_decref(one);
	json_decref(three);
	ix_bw_result_free(&r);
}

/* Parse text and merge it into r; returns the merge's result. */
static int merge_text(struct ix_bw_result *r, const char *text)
{
	json_t *j = parse_text(text);
	int rc = ix_interval_merge_wire(r, j);

	json_decref(j);
	return rc;
}

Test(interval, refuses_malformed_bodies)
{
	struct ix_bw_result r;

	two_stream_result(&r);
	cr_assert_eq(merge_text(&r, "{\"k\": -1, \"streams\": [{\"id\": 0}, {\"id\": 1}]}"), -1);
	cr_assert_eq(merge_text(&r, "{\"k\": \"0\", \"streams\": [{\"id\": 0}, {\"id\": 1}]}"), -1);
	cr_assert_eq(merge_text(&r, "{\"k\": 1.0, \"streams\": [{\"id\": 0}, {\"id\": 1}]}"), -1);
	cr_assert_eq(merge_text(&r, "{\"streams\": [{\"id\": 0}, {\"id\": 1}]}"), -1);
	cr_assert_eq(merge_text(&r, "{\"k\": 10000001, \"streams\": [{}, {}]}"), -1);
	cr_assert_eq(merge_text(&r, "{\"k\": 0, \"streams\": {\"0\": {}, \"1\": {}}}"), -1);
	cr_assert_eq(merge_text(&r, "{\"k\": 0}"), -1);
	cr_assert_eq(r.nintervals, 0, "a refused body creates nothing");
	ix_bw_result_free(&r);
}

Test(interval, ignores_bad_figures_inside_entries)
{
	struct ix_bw_result r;
	json_t *j;

	two_stream_result(&r);
	j = parse_text("{\"k\": 0, \"streams\": [{\"rx_bytes\": -5, \"lost\": \"x\"}, "
		       "\"not an object\"]}");
	cr_assert_eq(ix_interval_merge_wire(&r, j), 0);
	cr_assert_eq(r.nintervals, 1);
	cr_assert_not(r.intervals[0].streams[0].have_rx);
	cr_assert_not(r.intervals[0].streams[0].lost.valid);
	cr_assert_not(r.intervals[0].streams[1].have_rx);
	cr_assert_not(r.intervals[0].streams[1].have_tx);
	json_decref(j);
	ix_bw_result_free(&r);
}
