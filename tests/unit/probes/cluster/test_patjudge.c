/* Unit tests for probes/cluster/patjudge.c: each host's figures from its
 * tests, judged against its line rate or the median, and the verdict that
 * names what holds them (a bisection's uplinks, one slow host, counters). */
#include "config.h"

#include <criterion/criterion.h>

#include "tests/unit/report/patfix.h"

Test(patjudge, bisection_below_line_rate_names_the_cut_and_oversubscription)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;

	pat_bisection(&r, &hl, false);
	cr_assert_eq(ix_pattern_judge(&r), 0);
	for (uint32_t i = 0; i < 4; i++) {
		cr_assert_float_eq(r.host[i].tx_bps, 90e6, 1);
		cr_assert_float_eq(r.host[i].rx_bps, 90e6, 1);
		cr_assert_eq(r.host[i].basis, IX_BASIS_LINE_RATE);
		cr_assert_float_eq(r.host[i].share, 45, 1e-9);
		cr_assert(r.host[i].bad);
	}
	cr_assert_float_eq(r.cut_bps, 360e6, 1);
	cr_assert_eq(r.bad_hosts, 4);
	cr_assert(r.complete);
	cr_assert_str_eq(r.verdict,
			 "bisection 45% of line rate per host (median 90.0 Mbit/s): the pairs "
			 "across the cut between (h1:5201, h2:5201) and (h3:5201, h4:5201) run at "
			 "about half their hosts' links: the uplinks between the halves are "
			 "oversubscribed about 2:1 (no switch known: the halves are the host "
			 "list's); no fabric counter moved at any host");
	ix_pattern_result_free(&r);
}

Test(patjudge, bisection_with_switches_names_their_uplinks)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;

	pat_bisection(&r, &hl, true);
	r.counters_any = false;
	cr_assert_eq(ix_pattern_judge(&r), 0);
	cr_assert(r.side_switches);
	cr_assert_str_eq(r.side[0], "leaf1");
	cr_assert_str_eq(r.side[1], "leaf2");
	cr_assert_str_eq(r.verdict,
			 "bisection 45% of line rate per host (median 90.0 Mbit/s): the pairs "
			 "across leaf1/leaf2 uplinks run at about half their hosts' links "
			 "(oversubscribed about 2:1)");
	ix_pattern_result_free(&r);
}

Test(patjudge, one_slow_host_in_a_ring_is_named_with_its_counters)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;

	pat_init(&r, &hl, IX_PATTERN_RING, 4);
	for (uint32_t i = 0; i < 4; i++)
		pat_link(&r, i, 200e6, "");
	pat_test(&r, 0, 0, 1, 190e6);
	pat_test(&r, 0, 1, 2, 190e6);
	pat_test(&r, 0, 2, 3, 50e6); /* host 3 sends slowly: host 4 receives slowly */
	pat_test(&r, 0, 3, 0, 190e6);
	r.counters_any = true;
	r.host[2].counters_read = true;
	r.host[2].counters.v[IX_CC_DISCARD] = 40;
	r.host[2].counters.has = 1u << IX_CC_DISCARD;
	cr_assert_eq(ix_pattern_judge(&r), 0);
	cr_assert_eq(r.bad_hosts, 2);
	cr_assert(r.host[2].bad && r.host[3].bad && !r.host[0].bad && !r.host[1].bad);
	cr_assert_str_eq(r.verdict, "ring 60% of line rate per host (median 120.0 Mbit/s): 2 "
				    "host(s) below 0.7 x their line rate: h3:5201, h4:5201; fabric "
				    "counters moved: at h3:5201: 40 drops");
	ix_pattern_result_free(&r);
}

Test(patjudge, without_line_rates_the_median_is_the_measure)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;

	pat_init(&r, &hl, IX_PATTERN_RING, 3);
	pat_test(&r, 0, 0, 1, 100e6);
	pat_test(&r, 0, 1, 2, 100e6);
	pat_test(&r, 0, 2, 0, 100e6);
	cr_assert_eq(ix_pattern_judge(&r), 0);
	cr_assert_eq(r.host[0].basis, IX_BASIS_MEDIAN);
	cr_assert_float_eq(r.host[0].basis_bps, 100e6, 1);
	cr_assert_eq(r.bad_hosts, 0);
	cr_assert_str_eq(r.verdict, "ring median 100.0 Mbit/s per host (judged against the "
				    "median: not every host's line rate is known): every host at "
				    "0.7 x the median or above");
	ix_pattern_result_free(&r);
}

Test(patjudge, stages_are_medians_failed_tests_counted_odd_host_sits_out)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;

	pat_init(&r, &hl, IX_PATTERN_PERMUTATION, 2);
	r.rounds = 3;
	pat_test(&r, 0, 0, 1, 100e6);
	pat_test(&r, 0, 1, 0, 100e6);
	pat_test(&r, 1, 0, 1, 300e6);
	pat_test(&r, 1, 1, 0, 300e6);
	pat_test(&r, 2, 0, 1, 200e6);
	pat_test(&r, 2, 1, 0, -1); /* failed */
	cr_assert_eq(ix_pattern_judge(&r), 0);
	cr_assert_float_eq(r.host[0].tx_bps, 200e6, 1);
	cr_assert_float_eq(r.host[0].rx_bps, 200e6, 1); /* the median of 100 and 300 */
	cr_assert_eq(r.host[0].failed, 1);
	cr_assert_eq(r.tests_failed, 1);
	cr_assert_not(r.complete);
	cr_assert(strstr(r.verdict, "; 1 of 6 tests failed: the figures are of those that ran"),
		  "%s", r.verdict);
	ix_pattern_result_free(&r);

	pat_init(&r, &hl, IX_PATTERN_BISECTION, 3);
	r.host[2].sat_out = true;
	pat_test(&r, 0, 0, 1, 100e6);
	pat_test(&r, 0, 1, 0, 100e6);
	cr_assert_eq(ix_pattern_judge(&r), 0);
	cr_assert_eq(r.host[2].basis, IX_BASIS_NONE);
	cr_assert_not(r.host[2].bad);
	ix_pattern_result_free(&r);
}

Test(patjudge, nothing_measured_says_so)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;

	pat_init(&r, &hl, IX_PATTERN_RING, 2);
	pat_test(&r, 0, 0, 1, -1);
	pat_test(&r, 0, 1, 0, -1);
	cr_assert_eq(ix_pattern_judge(&r), 0);
	cr_assert_str_eq(r.verdict, "ring: nothing measured");
	cr_assert_eq(r.bad_hosts, 0);
	ix_pattern_result_free(&r);
}

/* Flows that share the uplinks unevenly: the oversubscription is what
 * crossed the cut in all against the hosts' links, not the median host. */
Test(patjudge, bisection_oversubscription_is_the_cut_s_total)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;

	pat_bisection(&r, &hl, true);
	r.ntests = 0;
	r.counters_any = false;
	pat_test(&r, 0, 0, 2, 130e6);
	pat_test(&r, 0, 2, 0, 20e6);
	pat_test(&r, 0, 1, 3, 20e6);
	pat_test(&r, 0, 3, 1, 20e6);
	cr_assert_eq(ix_pattern_judge(&r), 0);
	cr_assert_eq(r.bad_hosts, 4);
	cr_assert_str_eq(r.verdict, "bisection 10% of line rate per host (median 20.0 Mbit/s): the "
				    "pairs across leaf1/leaf2 uplinks run at about a quarter of "
				    "their hosts' links (oversubscribed about 4:1)");
	ix_pattern_result_free(&r);
}
