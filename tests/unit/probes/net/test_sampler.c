/* Unit tests for probes/net/sampler.c: per-interval retransmits come from
 * the sender's running totals and leave the sending thread's warm-up
 * baseline alone. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/net/sampler.h"

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
