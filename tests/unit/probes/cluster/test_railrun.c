/* Unit tests for probes/cluster/railrun.c: the rails' verdicts and each
 * node's all-rail throughput over rail meshes built here (the run itself,
 * over agents, is in tests/integration/rails_netns.sh). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/rails.h"

static const struct ix_mesh_rules rules = { .bw_fraction = 0.7,
					    .lat_factor = 2,
					    .lat_percentile = 50 };

/* A rail of n nodes (node i on it as host i) whose every ordered pair
 * measured bw (0 with zero) and lat; failed pairs fail. */
static void rail_mesh(struct ix_mesh_result *m, uint32_t n, double bw, double lat, bool zero,
		      bool failed)
{
	memset(m, 0, sizeof(*m));
	m->n = n;
	m->nodes = calloc(n, sizeof(*m->nodes));
	cr_assert(ix_cells_init(&m->cells, n, IX_CELLS_FULL) == 0 && m->nodes);
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++) {
			struct ix_cell c = { .state = failed ? IX_CELL_FAILED : IX_CELL_OK };

			if (a == b)
				continue;
			c.bw_bps = zero ? 0 : (float)bw;
			c.bw_zero = zero;
			c.lat_p50_ns = (float)lat;
			ix_cells_set(&m->cells, a, b, &c);
			m->pairs_measured += !failed;
			m->pairs_failed += failed;
		}
	m->pairs_planned = (uint64_t)n * (n - 1);
	m->complete = !failed;
	cr_assert_eq(ix_mesh_analyze(&m->cells, &rules, &m->findings), 0);
	for (uint32_t i = 0; i < n; i++) {
		m->nodes[i].have_bw_out = m->nodes[i].have_bw_in = !failed;
		m->nodes[i].bw_out_bps = m->nodes[i].bw_in_bps = failed || zero ? 0 : bw;
		m->nodes[i].measured = failed ? 0 : 2 * (n - 1);
	}
}

static struct ix_hostlist nodes;
static struct ix_rails rails;
static struct ix_rails_result res;

/* k rails over the same 3 nodes. */
static void setup_rails(uint32_t k)
{
	struct ix_err err = { 0 };

	memset(&rails, 0, sizeof(rails));
	memset(&res, 0, sizeof(res));
	memset(&nodes, 0, sizeof(nodes));
	cr_assert_eq(ix_hostlist_parse("node[1-3]", 5301, &nodes, &err), 0);
	rails.n = k;
	snprintf(rails.how, sizeof(rails.how), "subnet");
	for (uint32_t r = 0; r < k; r++) {
		snprintf(rails.rail[r].name, sizeof(rails.rail[r].name), "10.%u.0.0/24", r + 1);
		rails.rail[r].node = calloc(3, sizeof(uint32_t));
		for (uint32_t i = 0; i < 3; i++)
			rails.rail[r].node[i] = i;
	}
	res.rails = &rails;
	res.nodes = &nodes;
	res.node = calloc(3, sizeof(*res.node));
}

static void teardown(void)
{
	ix_rails_result_free(&res);
	ix_rails_free(&rails);
	ix_hostlist_free(&nodes);
}

Test(railrun, a_slow_rail_is_named_against_the_faster_one, .fini = teardown)
{
	setup_rails(2);
	rail_mesh(&res.mesh[0], 3, 400e6, 50e3, false, false);
	rail_mesh(&res.mesh[1], 3, 80e6, 60e3, false, false);
	ix_rails_judge(&res, &rules);
	/* uniform within each rail: no bad pair, the rail is what is bad */
	cr_assert_eq(res.mesh[1].findings.bad_pairs, 0);
	cr_assert_eq(res.bad_rails, 1);
	cr_assert_not(res.verdict[0].bad);
	cr_assert(res.verdict[1].bad);
	cr_assert_float_eq(res.ref_bw_bps, 400e6, 1);
	cr_assert_str_eq(res.verdict[1].reason,
			 "median 80.0 Mbit/s is 20% of the rails' 400.0 Mbit/s", "%s",
			 res.verdict[1].reason);
	cr_assert(res.complete);
	/* every node's NICs summed */
	for (int i = 0; i < 3; i++) {
		cr_assert_float_eq(res.node[i].bw_out_bps, 480e6, 1);
		cr_assert_eq(res.node[i].rails, 2);
	}
}

Test(railrun, healthy_rails_pass_and_the_reference_is_their_upper_median, .fini = teardown)
{
	setup_rails(4);
	rail_mesh(&res.mesh[0], 3, 100e9, 5e3, false, false);
	rail_mesh(&res.mesh[1], 3, 96e9, 5e3, false, false);
	rail_mesh(&res.mesh[2], 3, 98e9, 5.5e3, false, false);
	rail_mesh(&res.mesh[3], 3, 99e9, 5e3, false, false);
	ix_rails_judge(&res, &rules);
	cr_assert_eq(res.bad_rails, 0);
	cr_assert_float_eq(res.ref_bw_bps, 99e9, 1e5); /* cells hold floats */
	cr_assert_float_eq(res.ref_lat_ns, 5e3, 1);
}

Test(railrun, latency_floors_dead_and_failed_rails, .fini = teardown)
{
	struct ix_mesh_rules floor = rules;

	setup_rails(4);
	rail_mesh(&res.mesh[0], 3, 100e9, 5e3, false, false);
	rail_mesh(&res.mesh[1], 3, 100e9, 25e3, false, false); /* slow to answer */
	rail_mesh(&res.mesh[2], 3, 0, 5e3, true, false);       /* moved nothing */
	rail_mesh(&res.mesh[3], 3, 100e9, 5e3, false, true);   /* every pair failed */
	floor.min_bw_bps = 1e9;
	ix_rails_judge(&res, &floor);
	cr_assert_eq(res.bad_rails, 3);
	cr_assert_not(res.verdict[0].bad);
	cr_assert(strstr(res.verdict[1].reason, "latency p50 25.0 us is 5.0 x the rails' 5.0 us"),
		  "%s", res.verdict[1].reason);
	cr_assert(strstr(res.verdict[2].reason, "median 0.0 bit/s") ||
			  strstr(res.verdict[2].reason, "median 0"),
		  "%s", res.verdict[2].reason);
	cr_assert(strstr(res.verdict[2].reason, "below the floor of 1.00 Gbit/s"), "%s",
		  res.verdict[2].reason);
	cr_assert(strstr(res.verdict[2].reason, "6 of its 6 measured pairs are bad"), "%s",
		  res.verdict[2].reason);
	cr_assert_str_eq(res.verdict[3].reason, "no pair was measured");
	cr_assert_not(res.complete);
}

Test(railrun, a_rail_that_could_not_run_says_why, .fini = teardown)
{
	setup_rails(2);
	rail_mesh(&res.mesh[0], 3, 1e9, 5e3, false, false);
	snprintf(res.error[1], sizeof(res.error[1]), "out of memory for a 3-host mesh");
	ix_rails_judge(&res, &rules);
	cr_assert_eq(res.bad_rails, 1);
	cr_assert_str_eq(res.verdict[1].reason,
			 "it could not run: out of memory for a 3-host mesh");
	cr_assert_not(res.complete);
	cr_assert_eq(res.node[0].rails, 1);
}
