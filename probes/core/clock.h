/* Monotonic time in nanoseconds, and deadlines built on it. */
#ifndef IX_CLOCK_H
#define IX_CLOCK_H

#include <stdint.h>
#include <time.h>

#define IX_NSEC_PER_SEC 1000000000LL

static inline int64_t ix_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * IX_NSEC_PER_SEC + ts.tv_nsec;
}

static inline int64_t ix_seconds_to_ns(double s)
{
	return (int64_t)(s * 1e9);
}

/* Milliseconds left until deadline (0 when past), for poll(). */
static inline int ix_ms_until(int64_t deadline_ns)
{
	int64_t left = deadline_ns - ix_now_ns();
	if (left <= 0)
		return 0;
	left = (left + 999999) / 1000000;
	return left > 2000000000 ? 2000000000 : (int)left;
}

#endif
