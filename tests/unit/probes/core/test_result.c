/* Unit tests for probes/core/result.c: CPU seconds per GB moved, the
 * figure that compares tools whatever the rate. */
#include "config.h"

#include <criterion/criterion.h>

#include "probes/core/probe.h"

/* 10 GB received in a 9 s window of a 10 s test; 5 CPU seconds. */
Test(result, cpu_per_gb_is_pro_rata_of_the_window)
{
	struct ix_bw_params p = { .path = "tcp", .streams = 1, .mode = IX_MODE_FORWARD };
	struct ix_bw_result r;
	struct ix_cpu c = { .valid = true, .user_s = 2, .system_s = 3, .wall_s = 10 };

	ix_bw_result_init(&r, &p);
	r.streams[0].receiver =
		(struct ix_stream_end){ .valid = true, .bytes = 10000000000ull, .seconds = 9 };
	r.streams[0].sender = r.streams[0].receiver;
	cr_assert_float_eq(ix_bw_cpu_per_gb(&r, &c), 5 * 0.9 / 10, 1e-9);
	/* A window longer than the wall clock (clocks apart): all of it. */
	c.wall_s = 8;
	cr_assert_float_eq(ix_bw_cpu_per_gb(&r, &c), 5.0 / 10, 1e-9);
	/* Unknown CPU, or nothing moved: no figure. */
	c.valid = false;
	cr_assert_eq(ix_bw_cpu_per_gb(&r, &c), -1);
	c.valid = true;
	r.streams[0].receiver.bytes = 0;
	r.streams[0].sender.bytes = 0;
	cr_assert_eq(ix_bw_cpu_per_gb(&r, &c), -1);
	ix_bw_result_free(&r);
}
