/* The time-stamp counter as a clock (probes/core/tsc.h). */
#include "config.h"

#include <stddef.h>

#include "probes/core/clock.h"
#include "probes/core/tsc.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <sched.h>
#include <x86intrin.h>

static bool have_tsc(bool *rdtscp)
{
	unsigned a, b, c, d;

	*rdtscp = __get_cpuid(0x80000001u, &a, &b, &c, &d) && ((d >> 27) & 1u);
	return __get_cpuid(1, &a, &b, &c, &d) && ((d >> 4) & 1u);
}

/* The counter and the CPU it was read on: rdtscp gives both (Linux keeps
 * the CPU number in TSC_AUX's low 12 bits); without it, the CPU before and
 * after an ordered rdtsc, again until they agree. */
static uint64_t ticks(const struct ix_tsc *t, unsigned *cpu)
{
	unsigned aux;
	uint64_t k;
	int c0, c1;

	if (t->rdtscp) {
		k = __rdtscp(&aux);
		*cpu = aux & 0xfffu;
		return k;
	}
	do {
		c0 = sched_getcpu();
		_mm_lfence();
		k = __rdtsc();
		_mm_lfence();
		c1 = sched_getcpu();
	} while (c0 != c1);
	*cpu = (unsigned)c0;
	return k;
}
#else
static bool have_tsc(bool *rdtscp)
{
	*rdtscp = false;
	return false;
}

static uint64_t ticks(const struct ix_tsc *t, unsigned *cpu)
{
	(void)t;
	*cpu = 0;
	return 0;
}
#endif

static int64_t gettime_cost(void)
{
	int64_t best = INT64_MAX;

	/* The cheapest of a few short runs: a preemption inflates one run. */
	for (int run = 0; run < 5; run++) {
		int64_t t0 = ix_now_ns(), t1;

		for (int i = 0; i < 8; i++)
			(void)ix_now_ns();
		t1 = ix_now_ns();
		if ((t1 - t0) / 9 < best)
			best = (t1 - t0) / 9;
	}
	return best;
}

/* Counter and clock read back to back on one CPU, the clock between two
 * counter readings; of a few tries the tightest pair, so a preemption
 * between the readings does not skew the calibration. */
static bool pair(const struct ix_tsc *t, struct ix_tsc_pair *p)
{
	p->window = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		unsigned c0, c1;
		uint64_t a = ticks(t, &c0);
		int64_t n = ix_now_ns();
		uint64_t b = ticks(t, &c1);

		if (c0 != c1 || b < a || b - a >= p->window)
			continue;
		p->window = b - a;
		p->tick = a + (b - a) / 2;
		p->ns = n;
		p->cpu = c0;
	}
	return p->window != UINT64_MAX;
}

bool ix_tsc_scale(const struct ix_tsc_pair *p0, const struct ix_tsc_pair *p1, double *ns_per_tick)
{
	double span, scale;

	if (p0->cpu != p1->cpu || p1->tick <= p0->tick || p1->ns <= p0->ns)
		return false;
	span = (double)(p1->tick - p0->tick);
	/* Each end's clock reading is off its tick by at most half its window. */
	if ((double)p0->window / 2 + (double)p1->window / 2 > IX_TSC_MAX_ERROR * span)
		return false;
	scale = (double)(p1->ns - p0->ns) / span;
	/* A counter between 100 MHz and 20 GHz, or none worth using. */
	if (scale < 0.05 || scale > 10)
		return false;
	*ns_per_tick = scale;
	return true;
}

/* A preemption inside every try of one end widens its window past what
 * bounds the scale: that try is dropped, not used. */
static bool calibrate(struct ix_tsc *t)
{
	for (int tries = 0; tries < 3; tries++) {
		struct ix_tsc_pair p0, p1;

		if (!pair(t, &p0))
			continue;
		while (ix_now_ns() - p0.ns < 20000000)
			;
		if (!pair(t, &p1) || !ix_tsc_scale(&p0, &p1, &t->ns_per_tick))
			continue;
		t->tick0 = p1.tick;
		t->ns0 = p1.ns;
		t->cpu = p1.cpu;
		return true;
	}
	return false;
}

void ix_tsc_init(struct ix_tsc *t, int64_t slow_ns)
{
	*t = (struct ix_tsc){ 0 };
	t->gettime_ns = gettime_cost();
	if (t->gettime_ns < slow_ns || !have_tsc(&t->rdtscp))
		return;
	t->on = calibrate(t);
	t->last = t->ns0;
}

int64_t ix_tsc_now(struct ix_tsc *t)
{
	struct ix_tsc_pair p;
	unsigned cpu;
	uint64_t k;
	int64_t ns;

	if (!t->on)
		return ix_now_ns();
	k = ticks(t, &cpu);
	if (cpu != t->cpu || k < t->tick0) {
		t->anchors++;
		if (pair(t, &p)) {
			t->tick0 = p.tick;
			t->ns0 = p.ns;
			t->cpu = p.cpu;
		} else { /* moved again: anchor here */
			t->tick0 = k;
			t->ns0 = ix_now_ns();
			t->cpu = cpu;
		}
		k = t->tick0;
	}
	ns = t->ns0 + (int64_t)((double)(k - t->tick0) * t->ns_per_tick);
	if (ns < t->last)
		ns = t->last;
	t->last = ns;
	return ns;
}

const char *ix_tsc_name(const struct ix_tsc *t)
{
	return t->on ? "tsc" : "clock_gettime";
}
