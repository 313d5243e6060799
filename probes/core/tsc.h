/* A cheap clock for the latency loops: the x86 time-stamp counter scaled
 * to nanoseconds, used only where clock_gettime is slow.
 *
 * Where the kernel's clocksource is the TSC, clock_gettime runs in the
 * vDSO and costs tens of ns: ix_tsc_init leaves the TSC off. Where it is
 * not (hpet or acpi_pm, as in VMs whose TSC the kernel found unsynchronised
 * between CPUs), every reading is a system call and a device read of about
 * a microsecond, inside every latency sample. There the TSC is calibrated
 * against CLOCK_MONOTONIC and read with the number of the CPU it was read
 * on (rdtscp, or sched_getcpu around rdtsc); a reading on another CPU than
 * the last re-anchors it to CLOCK_MONOTONIC, so an interval never compares
 * two CPUs' counters. Readings never go back. */
#ifndef IX_TSC_H
#define IX_TSC_H

#include <stdbool.h>
#include <stdint.h>

struct ix_tsc {
	bool on;
	bool rdtscp;    /* else rdtsc between two sched_getcpu */
	unsigned cpu;   /* where the anchor was read */
	uint64_t tick0; /* the anchor: counter and CLOCK_MONOTONIC */
	int64_t ns0;
	int64_t last; /* the last reading, which the next never undercuts */
	double ns_per_tick;
	int64_t gettime_ns; /* what one clock_gettime cost at init */
	uint64_t anchors;   /* re-anchorings (moves between CPUs) */
};

/* One end of a calibration: CLOCK_MONOTONIC read between two counter
 * readings on one CPU, the tightest of a few tries. The clock's time
 * belongs somewhere in the window: taken at its middle, it is off by at
 * most half the window. */
struct ix_tsc_pair {
	uint64_t tick;   /* the middle of the two counter readings */
	uint64_t window; /* ticks between them */
	int64_t ns;      /* the clock read between them */
	unsigned cpu;
};

/* A calibration's error bound the TSC is used with: its ends' half
 * windows over the interval between them. Three tries of 20 ms each;
 * failing all, the TSC stays off. */
#define IX_TSC_MAX_ERROR 0.001

/* The counter's scale from a calibration's two ends: true, with
 * *ns_per_tick, when both were read on one CPU, the counter went forward,
 * their windows bound the scale's error to IX_TSC_MAX_ERROR and the
 * counter runs between 100 MHz and 20 GHz; false, *ns_per_tick untouched,
 * otherwise. */
bool ix_tsc_scale(const struct ix_tsc_pair *p0, const struct ix_tsc_pair *p1, double *ns_per_tick);

/* Measures clock_gettime; when one call costs at least slow_ns and the CPU
 * has a TSC, calibrates the counter (about 20 ms a try) and turns it on
 * when ix_tsc_scale accepts a try. */
void ix_tsc_init(struct ix_tsc *t, int64_t slow_ns);

/* Nanoseconds on CLOCK_MONOTONIC's scale: from the counter when on, from
 * clock_gettime otherwise. */
int64_t ix_tsc_now(struct ix_tsc *t);

/* "tsc" or "clock_gettime": what ix_tsc_now reads. */
const char *ix_tsc_name(const struct ix_tsc *t);

#endif
