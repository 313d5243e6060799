/* Unit tests for probes/cluster/incast.c: the thresholds an incast is
 * given, judged at every step that ran (the sweep itself needs agents and
 * is tested in tests/integration/incast_netns.sh). */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/multi.h"

#define GBIT 1e9

/* A stream sweep 1, 2, 4 with these goodputs and fairness indexes. */
static void sweep(struct ix_incast_result *r, struct ix_incast_step *st, const double *bps,
		  const double *jain)
{
	static const uint32_t n[] = { 1, 2, 4 };

	memset(r, 0, sizeof(*r));
	memset(st, 0, 3 * sizeof(*st));
	r->params.mode = IX_INCAST_STREAM;
	r->steps = st;
	r->nsteps = 3;
	for (int i = 0; i < 3; i++) {
		st[i].ok = true;
		st[i].point.senders = n[i];
		st[i].point.goodput_bps = bps[i];
		st[i].nflows = n[i];
		st[i].jain = jain[i];
	}
}

Test(judge, no_threshold_judges_nothing)
{
	const double bps[] = { 9 * GBIT, 1 * GBIT, 0.1 * GBIT }, jain[] = { 1, 0.5, 0.3 };
	struct ix_incast_result r;
	struct ix_incast_step st[3];

	sweep(&r, st, bps, jain);
	ix_incast_judge(&r);
	cr_expect_not(r.judged);
	cr_expect_eq(r.nfailed, 0);
}

Test(judge, every_step_is_held_to_the_goodput)
{
	const double bps[] = { 9.4 * GBIT, 9.2 * GBIT, 3.1 * GBIT }, jain[] = { 1, 0.99, 0.98 };
	struct ix_incast_result r;
	struct ix_incast_step st[3];

	sweep(&r, st, bps, jain);
	r.params.limits.min_goodput_bps = 5 * GBIT;
	ix_incast_judge(&r);
	cr_expect(r.judged);
	cr_assert_eq(r.nfailed, 1);
	cr_expect_str_eq(r.failed[0], "N=4: goodput 3.10 Gbit/s < 5.00 Gbit/s");
	/* held everywhere: judged, nothing missed */
	r.params.limits.min_goodput_bps = 3 * GBIT;
	ix_incast_judge(&r);
	cr_expect(r.judged);
	cr_expect_eq(r.nfailed, 0);
}

Test(judge, fairness_from_two_senders_and_failed_steps_left_out)
{
	const double bps[] = { 9 * GBIT, 9 * GBIT, 0 }, jain[] = { 0.2, 0.6, 0.1 };
	struct ix_incast_result r;
	struct ix_incast_step st[3];

	sweep(&r, st, bps, jain);
	st[2].ok = false; /* an error, not a measure */
	r.params.limits.min_jain = 0.9;
	r.params.limits.min_goodput_bps = 1 * GBIT;
	ix_incast_judge(&r);
	cr_assert_eq(r.nfailed, 1, "one sender has no fairness; the failed step is not judged");
	cr_expect_str_eq(r.failed[0], "N=2: Jain fairness 0.600 < 0.900");
}

Test(judge, stalled_rounds_in_read_mode)
{
	const double bps[] = { 9 * GBIT, 9 * GBIT, 9 * GBIT }, jain[] = { 1, 1, 1 };
	struct ix_incast_result r;
	struct ix_incast_step st[3];

	sweep(&r, st, bps, jain);
	r.params.mode = IX_INCAST_READ;
	st[1].point.stalled_rounds = 3;
	r.params.limits.have_max_stalled = true;
	r.params.limits.max_stalled = 0;
	r.params.limits.min_jain = 0.99; /* stream mode only: not judged here */
	ix_incast_judge(&r);
	cr_assert_eq(r.nfailed, 1);
	cr_expect_str_eq(r.failed[0], "N=2: 3 stalled rounds > 0");
}
