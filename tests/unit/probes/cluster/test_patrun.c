/* Unit tests for probes/cluster/patrun.c without agents: the connections a
 * pattern needs per agent and the estimate of a mesh's own parameters. (The
 * run itself is checked against the kernel's counters in
 * tests/integration/bisection_netns.sh.) */
#include "config.h"

#include <criterion/criterion.h>

#include "probes/cluster/patrun.h"

Test(patrun, lanes_are_the_tests_one_host_starts_at_once)
{
	cr_assert_eq(ix_pattern_lanes(IX_PATTERN_ALL_TO_ALL, 4, false), 3);
	cr_assert_eq(ix_pattern_lanes(IX_PATTERN_ALL_TO_ALL, 100, false), IX_PATTERN_FANOUT);
	cr_assert_eq(ix_pattern_lanes(IX_PATTERN_RING, 4, true), 2);
	cr_assert_eq(ix_pattern_lanes(IX_PATTERN_RING, 2, true), 1);
	cr_assert_eq(ix_pattern_lanes(IX_PATTERN_RING, 4, false), 1);
	cr_assert_eq(ix_pattern_lanes(IX_PATTERN_BISECTION, 8, false), 1);
	cr_assert_eq(ix_pattern_lanes(IX_PATTERN_PERMUTATION, 8, false), 1);
	cr_assert_eq(ix_pattern_lanes(IX_PATTERN_ALL_TO_ALL, 1, false), 1);
}

Test(patrun, estimate_of_a_mesh_counts_the_kinds_asked)
{
	struct ix_mesh_params p = { 0 };
	struct ix_pattern_plan pl;
	struct ix_pattern_estimate e;

	p.bw.duration_s = 2;
	p.bw.warmup_s = 0.5;
	p.lat.duration_s = 1;
	p.lat.warmup_s = 0.1;
	ix_pattern_estimate_mesh(IX_PATTERN_ALL_PAIRS, &p, IX_MESH_BW | IX_MESH_LAT, 4, 0, &pl, &e);
	cr_assert_eq(e.rounds, 3);
	cr_assert_eq(e.tests_per_round, 2);
	cr_assert_float_eq(e.seconds, 3 * (3.6 + 2 * IX_PATTERN_ROUND_OVERHEAD_S), 1e-9);
	p.lat.iters = 1000; /* round trips instead of a time */
	ix_pattern_estimate_mesh(IX_PATTERN_ALL_PAIRS, &p, IX_MESH_LAT, 4, 0, &pl, &e);
	cr_assert_eq(e.tests_per_round, 1);
	cr_assert_float_eq(e.seconds, 3 * (0.1 + 0.02 + IX_PATTERN_ROUND_OVERHEAD_S), 1e-9);
	/* a pattern measures bandwidth whatever the mesh asks */
	ix_pattern_estimate_mesh(IX_PATTERN_PERMUTATION, &p, IX_MESH_LAT, 4, 5, &pl, &e);
	cr_assert_eq(e.rounds, 5);
	cr_assert_float_eq(e.seconds, 5 * (2.5 + IX_PATTERN_ROUND_OVERHEAD_S), 1e-9);
}

Test(patrun, free_of_an_empty_result)
{
	struct ix_pattern_result r = { 0 };

	ix_pattern_result_free(&r);
	cr_assert_null(r.host);
}
