/* Unit tests for probes/cluster/launch.c: Slurm's task layout and ports,
 * and the environment a task is recognised by. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/launch.h"

static void place(const char *tpn, uint32_t rank, uint32_t node, uint32_t local)
{
	struct ix_err err = { 0 };
	uint32_t n = 99, l = 99;

	cr_assert_eq(ix_launch_slurm_place(tpn, rank, &n, &l, &err), 0, "%s", err.msg);
	cr_assert_eq(n, node, "%s rank %u: node %u, not %u", tpn, rank, n, node);
	cr_assert_eq(l, local, "%s rank %u: local %u, not %u", tpn, rank, l, local);
}

Test(slurm_layout, tasks_are_numbered_node_by_node)
{
	place("4", 0, 0, 0);
	place("4", 3, 0, 3);
	place("2(x3),1", 0, 0, 0);
	place("2(x3),1", 1, 0, 1);
	place("2(x3),1", 2, 1, 0);
	place("2(x3),1", 5, 2, 1);
	place("2(x3),1", 6, 3, 0);
	place("1,3", 1, 1, 0);
	place("1,3", 3, 1, 2);
}

Test(slurm_layout, malformed_or_short_layouts_are_refused_by_name)
{
	const char *bad[] = { "", "x", "2(x)", "2(3)", "0", "2(x3", "2,,1", "2,a" };
	struct ix_err err = { 0 };
	uint32_t n, l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		cr_assert_eq(ix_launch_slurm_place(bad[i], 0, &n, &l, &err), -1, "'%s'", bad[i]);
		cr_assert(strstr(err.msg, "SLURM_STEP_TASKS_PER_NODE"), "%s", err.msg);
	}
	cr_assert_eq(ix_launch_slurm_place("2(x2)", 4, &n, &l, &err), -1);
	cr_assert(strstr(err.msg, "task 4 is not in"), "%s", err.msg);
}

Test(slurm_layout, ports_are_neighbours_on_a_node_and_differ_by_step)
{
	uint16_t a = ix_launch_slurm_port(1234, 0, 0), b = ix_launch_slurm_port(1234, 0, 3);

	cr_assert_eq(b, a + 3);
	cr_assert_geq(a, 20000);
	cr_assert_lt(a + 9, 60000);
	cr_assert_eq(a, ix_launch_slurm_port(1234, 0, 0), "the same on every task");
	cr_assert_neq(a, ix_launch_slurm_port(1234, 1, 0));
	cr_assert_neq(a, ix_launch_slurm_port(1235, 0, 0));
}

static void clear_env(void)
{
	const char *v[] = {
		"PMIX_NAMESPACE",       "PMIX_RANK",    "SLURM_PROCID",      "SLURM_STEP_NODELIST",
		"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_JOB_ID",      "SLURM_STEP_ID",
		"SLURM_LOCALID",        "SLURM_NODEID", "SLURM_DISTRIBUTION"
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		unsetenv(v[i]);
}

static void slurm_env(const char *rank, const char *ntasks)
{
	setenv("SLURM_PROCID", rank, 1);
	setenv("SLURM_STEP_NODELIST", "node[1-2]", 1);
	setenv("SLURM_STEP_NUM_TASKS", ntasks, 1);
	setenv("SLURM_STEP_TASKS_PER_NODE", "2(x2)", 1);
	setenv("SLURM_JOB_ID", "77", 1);
	setenv("SLURM_STEP_ID", "0", 1);
	setenv("SLURM_LOCALID", "1", 1);
	setenv("SLURM_NODEID", "1", 1);
}

Test(detect, outside_a_launch_or_in_a_job_of_one_nothing_is_launched)
{
	struct ix_launch l;
	struct ix_err err = { 0 };

	clear_env();
	cr_assert_eq(ix_launch_detect(&l, &err), 0);
	slurm_env("0", "1");
	cr_assert_eq(ix_launch_detect(&l, &err), 0, "one task: an ordinary run");
	clear_env();
}

Test(detect, slurm_environment_without_pmix)
{
	struct ix_launch l;
	struct ix_launch_ep all[4];
	struct ix_token token = { 0 };
	struct ix_err err = { 0 };

	clear_env();
	slurm_env("3", "4");
	cr_assert_eq(ix_launch_detect(&l, &err), 1, "%s", err.msg);
	cr_assert_str_eq(l.be->name, "slurm-env");
	cr_assert_eq(l.rank, 3);
	cr_assert_eq(l.size, 4);
	cr_assert_eq(l.local_rank, 1);
	cr_assert_eq(l.be->port(&l), ix_launch_slurm_port(77, 0, 1));
	/* No token: refused, saying how to give one. */
	unsetenv("IXPERF_TOKEN");
	cr_assert_eq(ix_launch_exchange(&l, NULL, &token, all, 1, &err), -1);
	cr_assert(strstr(err.msg, "IXPERF_TOKEN"), "%s", err.msg);
	setenv("IXPERF_TOKEN", "short", 1);
	cr_assert_eq(ix_launch_exchange(&l, NULL, &token, all, 1, &err), -1);
	cr_assert(strstr(err.msg, "5 characters"), "%s", err.msg);
	setenv("IXPERF_TOKEN", "0123456789abcdef0123456789abcdef", 1);
	cr_assert_eq(ix_launch_exchange(&l, NULL, &token, all, 1, &err), 0, "%s", err.msg);
	cr_assert(token.set);
	cr_assert_eq(token.len, 32);
	cr_assert_str_eq(all[0].addr, "node1");
	cr_assert_str_eq(all[1].addr, "node1");
	cr_assert_str_eq(all[2].addr, "node2");
	cr_assert_eq(all[1].port, ix_launch_slurm_port(77, 0, 1));
	cr_assert_eq(all[3].port, ix_launch_slurm_port(77, 0, 1));
	cr_assert_eq(all[2].port, ix_launch_slurm_port(77, 0, 0));
	ix_launch_finish(&l);
	unsetenv("IXPERF_TOKEN");
	clear_env();
}

Test(detect, a_cyclic_distribution_is_refused_without_pmix)
{
	struct ix_launch l;
	struct ix_err err = { 0 };

	clear_env();
	slurm_env("0", "4");
	setenv("SLURM_DISTRIBUTION", "cyclic", 1);
	cr_assert_eq(ix_launch_detect(&l, &err), -1);
	cr_assert(strstr(err.msg, "block distribution, not 'cyclic'"), "%s", err.msg);
	clear_env();
}
