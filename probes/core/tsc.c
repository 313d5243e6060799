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
static bool pair(const struct ix_tsc *t, uint64_t *tick, int64_t *ns, unsigned *cpu)
{
	uint64_t gap = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		unsigned c0, c1;
		uint64_t a = ticks(t, &c0);
		int64_t n = ix_now_ns();
		uint64_t b = ticks(t, &c1);

		if (c0 != c1 || b < a || b - a >= gap)
			continue;
		gap = b - a;
		*tick = a + (b - a) / 2;
		*ns = n;
		*cpu = c0;
	}
	return gap != UINT64_MAX;
}

static bool calibrate(struct ix_tsc *t)
{
	for (int tries = 0; tries < 3; tries++) {
		uint64_t k0, k1;
		int64_t n0, n1;
		unsigned c0, c1;

		if (!pair(t, &k0, &n0, &c0))
			continue;
		while (ix_now_ns() - n0 < 20000000)
			;
		if (!pair(t, &k1, &n1, &c1) || c0 != c1 || k1 <= k0)
			continue;
		t->ns_per_tick = (double)(n1 - n0) / (double)(k1 - k0);
		/* A counter between 100 MHz and 20 GHz, or none worth using. */
		if (t->ns_per_tick < 0.05 || t->ns_per_tick > 10)
			return false;
		t->tick0 = k1;
		t->ns0 = n1;
		t->cpu = c1;
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
	unsigned cpu;
	uint64_t k;
	int64_t ns;

	if (!t->on)
		return ix_now_ns();
	k = ticks(t, &cpu);
	if (cpu != t->cpu || k < t->tick0) {
		t->anchors++;
		if (!pair(t, &t->tick0, &t->ns0, &t->cpu)) { /* moved again: anchor here */
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
