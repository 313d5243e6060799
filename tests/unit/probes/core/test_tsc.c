/* Unit tests for probes/core/tsc.c: off where clock_gettime is cheap,
 * calibrated to CLOCK_MONOTONIC's scale when on, never going back, and
 * re-anchored when the thread is on another CPU; a calibration whose
 * windows are too wide to bound its error is refused. */
#include "config.h"

#include <stdlib.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/core/tsc.h"

static bool tsc_here(void)
{
	struct ix_tsc t;

	ix_tsc_init(&t, 0);
	return t.on;
}

/* A TSC reading with CLOCK_MONOTONIC's time at it: the middle of two
 * monotonic readings around it taken within 100 us of each other. A
 * preemption between the reads makes a wider pair, which is taken again,
 * so a loaded machine cannot skew the pair by more than 50 us. */
static void paired(struct ix_tsc *t, int64_t *mono, int64_t *tsc)
{
	for (int i = 0; i < 10000; i++) {
		int64_t a = ix_now_ns(), b;

		*tsc = ix_tsc_now(t);
		b = ix_now_ns();
		*mono = a + (b - a) / 2;
		if (b - a < 100000)
			return;
	}
	cr_assert_fail("no two monotonic readings within 100 us in 10,000 tries");
}

Test(tsc, off_when_clock_gettime_is_cheap_enough)
{
	struct ix_tsc t;
	int64_t a, b, c;

	ix_tsc_init(&t, INT64_MAX);
	cr_assert_not(t.on);
	cr_assert_str_eq(ix_tsc_name(&t), "clock_gettime");
	cr_assert_gt(t.gettime_ns, 0);
	a = ix_now_ns();
	b = ix_tsc_now(&t);
	c = ix_now_ns();
	cr_assert(a <= b && b <= c, "off, it reads CLOCK_MONOTONIC");
}

Test(tsc, on_it_keeps_monotonic_time_and_never_goes_back)
{
	struct ix_tsc t;
	int64_t prev, m0, m1, k0, k1;
	double ratio;

	if (!tsc_here())
		cr_skip_test("not x86-64 with a TSC: the TSC clock stays off");
	ix_tsc_init(&t, 0);
	cr_assert_str_eq(ix_tsc_name(&t), "tsc");
	prev = ix_tsc_now(&t);
	for (int i = 0; i < 100000; i++) {
		int64_t n = ix_tsc_now(&t);

		cr_assert_geq(n, prev, "reading %d went back", i);
		prev = n;
	}
	/* One interval read by both clocks. The calibration's error: the
	 * tightest of five counter-clock-counter readings bounds each end's
	 * skew to a few microseconds over 20 ms, and ix_tsc_scale refuses a
	 * scale off by more than IX_TSC_MAX_ERROR (0.1%), however loaded the
	 * machine or slow its emulated clocks. The test's ends are paired
	 * within 100 us, each off by at most 50 us: 0.1% of 100 ms. Both
	 * together stay under 0.2%; 1% leaves five times that. */
	paired(&t, &m0, &k0);
	while (ix_now_ns() - m0 < 100000000)
		;
	paired(&t, &m1, &k1);
	ratio = (double)(k1 - k0) / (double)(m1 - m0);
	cr_assert(ratio > 0.99 && ratio < 1.01,
		  "100 ms on CLOCK_MONOTONIC read %.5f of it on the TSC", ratio);
	/* Anchored to CLOCK_MONOTONIC: the same scale and origin. */
	paired(&t, &m0, &k0);
	cr_assert_lt(llabs(k0 - m0), 20000000);
}

Test(tsc, another_cpu_re_anchors)
{
	struct ix_tsc t;
	int64_t a, b;

	if (!tsc_here())
		cr_skip_test("not x86-64 with a TSC: the TSC clock stays off");
	ix_tsc_init(&t, 0);
	a = ix_tsc_now(&t);
	t.cpu = 0xfffff; /* no CPU has this number: as if the thread moved */
	b = ix_tsc_now(&t);
	cr_assert_eq(t.anchors, 1);
	cr_assert_neq(t.cpu, 0xfffff);
	cr_assert_geq(b, a);
	paired(&t, &a, &b);
	cr_assert_lt(llabs(b - a), 20000000);
}

/* Two ends of a 20 ms calibration of a 3 GHz counter on CPU 2, each read
 * within w ticks. */
static void ends(struct ix_tsc_pair *p0, struct ix_tsc_pair *p1, uint64_t w0, uint64_t w1)
{
	*p0 = (struct ix_tsc_pair){ .tick = 1000000000, .window = w0, .ns = 5000000, .cpu = 2 };
	*p1 = (struct ix_tsc_pair){
		.tick = 1000000000 + 60000000, .window = w1, .ns = 25000000, .cpu = 2
	};
}

Test(tsc, scale_from_tight_ends)
{
	struct ix_tsc_pair p0, p1;
	double s = 0;

	ends(&p0, &p1, 90, 120); /* 30 and 40 ns: clock_gettime in the vDSO */
	cr_assert(ix_tsc_scale(&p0, &p1, &s));
	cr_assert_float_eq(s, 1.0 / 3, 1e-12);
}

Test(tsc, scale_refused_when_the_windows_do_not_bound_it)
{
	struct ix_tsc_pair p0, p1;
	double s = 42;

	/* 0.1% of 60,000,000 ticks: half windows summing to 60,000 pass. */
	ends(&p0, &p1, 60000, 60000);
	cr_assert(ix_tsc_scale(&p0, &p1, &s));
	cr_assert_float_eq(s, 1.0 / 3, 1e-12);
	/* One tick wider, or one end preempted for 1 ms, is refused and
	 * leaves the scale alone. */
	s = 42;
	ends(&p0, &p1, 60000, 60002);
	cr_assert_not(ix_tsc_scale(&p0, &p1, &s));
	ends(&p0, &p1, 90, 3000000);
	cr_assert_not(ix_tsc_scale(&p0, &p1, &s));
	ends(&p0, &p1, UINT64_MAX, 90);
	cr_assert_not(ix_tsc_scale(&p0, &p1, &s));
	cr_assert_float_eq(s, 42, 0);
}

Test(tsc, scale_refused_across_cpus_backwards_or_out_of_range)
{
	struct ix_tsc_pair p0, p1;
	double s = 42;

	ends(&p0, &p1, 90, 90);
	p1.cpu = 3;
	cr_assert_not(ix_tsc_scale(&p0, &p1, &s), "two CPUs' counters");
	ends(&p0, &p1, 90, 90);
	p1.tick = p0.tick;
	cr_assert_not(ix_tsc_scale(&p0, &p1, &s), "the counter stood still");
	ends(&p0, &p1, 90, 90);
	p1.tick = p0.tick - 1;
	cr_assert_not(ix_tsc_scale(&p0, &p1, &s), "the counter went back");
	ends(&p0, &p1, 90, 90);
	p1.ns = p0.ns;
	cr_assert_not(ix_tsc_scale(&p0, &p1, &s), "the clock stood still");
	ends(&p0, &p1, 90, 90);
	p1.ns = p0.ns + 60000000 * 11; /* 11 ns a tick: under 100 MHz */
	cr_assert_not(ix_tsc_scale(&p0, &p1, &s), "a counter under 100 MHz");
	ends(&p0, &p1, 90, 90);
	p1.ns = p0.ns + 60000000 / 25; /* 0.04 ns a tick: over 20 GHz */
	cr_assert_not(ix_tsc_scale(&p0, &p1, &s), "a counter over 20 GHz");
	cr_assert_float_eq(s, 42, 0);
}
