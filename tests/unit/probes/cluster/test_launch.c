/* Unit tests for probes/cluster/launch.c: Slurm's task layout and ports,
 * the environment a task is recognised by, and each task's own address
 * and device from --task-bind and --task-rdma-dev lists. */
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

/* A negative count reads as 2^64 - 1 to strtoull: "1,-1,28" put task 1 on
 * node 2 once the sum wrapped around. Signs, blanks and counts that
 * overflow the product are refused. */
Test(slurm_layout, signs_and_overflowing_counts_are_refused)
{
	const char *bad[] = { "1,-1,28",
			      "-1",
			      "+2",
			      " 2",
			      "2(x-1)",
			      "2(x+3)",
			      "2(x 3)",
			      "3(x6148914691236517206),1",
			      "4(x4611686018427387905),1",
			      "18446744073709551615,2" };
	struct ix_err err = { 0 };
	uint32_t n, l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		cr_assert_eq(ix_launch_slurm_place(bad[i], 1, &n, &l, &err), -1, "'%s': node %u",
			     bad[i], n);
		cr_assert(strstr(err.msg, "SLURM_STEP_TASKS_PER_NODE"), "%s", err.msg);
	}
	place("4096", 4095, 0, 4095);
	place("1(x4096)", 4095, 4095, 0);
	cr_assert_eq(ix_launch_slurm_place("4097", 0, &n, &l, &err), -1);
	cr_assert(strstr(err.msg, "more than 4096 tasks"), "%s", err.msg);
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

/* ---- a task's own address and device (--task-bind, --task-rdma-dev) ---- */

static void pick(const char *list, uint32_t local, const char *want)
{
	struct ix_err err = { 0 };
	char out[64] = "";

	cr_assert_eq(ix_launch_list_pick(list, local, out, sizeof(out), &err), 0, "%s", err.msg);
	cr_assert_str_eq(out, want, "'%s' local rank %u: '%s', not '%s'", list, local, out, want);
}

Test(task_lists, local_rank_i_takes_entry_i_mod_n)
{
	pick("mlx5_0", 0, "mlx5_0");
	pick("mlx5_0", 5, "mlx5_0");
	pick("a,b,c", 0, "a");
	pick("a,b,c", 2, "c");
	pick("a,b,c", 4, "b");
	pick("10.0.0.1,eth1", 3, "eth1");
}

Test(task_lists, empty_or_long_entries_are_refused_by_name)
{
	struct ix_err err = { 0 };
	char out[8];

	cr_assert_eq(ix_launch_list_pick("a,,c", 1, out, sizeof(out), &err), -1);
	cr_assert(strstr(err.msg, "'a,,c' has an empty entry"), "%s", err.msg);
	cr_assert_eq(ix_launch_list_pick("a,", 1, out, sizeof(out), &err), -1);
	cr_assert_eq(ix_launch_list_pick("a,much-too-long", 1, out, sizeof(out), &err), -1);
	cr_assert(strstr(err.msg, "'much-too-long' is too long"), "%s", err.msg);
}

Test(task_lists, addresses_of_this_host_and_interfaces_resolve)
{
	struct ix_err err = { 0 };
	char addr[64];

	cr_assert_eq(ix_launch_local_addr("127.0.0.1", addr, sizeof(addr), &err), 0, "%s", err.msg);
	cr_assert_str_eq(addr, "127.0.0.1");
	/* All of 127/8 is this host's on Linux: tasks on one node can each
	 * take their own. */
	cr_assert_eq(ix_launch_local_addr("127.0.1.2", addr, sizeof(addr), &err), 0, "%s", err.msg);
	cr_assert_str_eq(addr, "127.0.1.2");
	/* An interface: its first IPv4 address. */
	cr_assert_eq(ix_launch_local_addr("lo", addr, sizeof(addr), &err), 0, "%s", err.msg);
	cr_assert_str_eq(addr, "127.0.0.1");
}

Test(task_lists, unknown_interfaces_and_foreign_addresses_are_named)
{
	struct ix_err err = { 0 };
	char addr[64];

	cr_assert_eq(ix_launch_local_addr("nosuchif0", addr, sizeof(addr), &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "'nosuchif0' is neither an IP address nor an interface"), "%s",
		  err.msg);
	/* TEST-NET-1 (RFC 5737): no host has it. */
	cr_assert_eq(ix_launch_local_addr("192.0.2.1", addr, sizeof(addr), &err), -1);
	cr_assert(strstr(err.msg, "192.0.2.1 is not an address of this host"), "%s", err.msg);
	cr_assert_eq(ix_launch_local_addr("no-such-interface-name", addr, sizeof(addr), &err), -1);
	cr_assert(strstr(err.msg, "neither an IP address nor an interface"), "%s", err.msg);
}

Test(detect, slurm_environment_cannot_publish_a_task_address)
{
	struct ix_launch l;
	struct ix_err err = { 0 };

	clear_env();
	slurm_env("0", "4");
	cr_assert_eq(ix_launch_detect(&l, &err), 1, "%s", err.msg);
	cr_assert_not(l.be->publishes_self, "its nodes and ports are derived, not exchanged");
	cr_assert(ix_launch_pmix.publishes_self);
	ix_launch_finish(&l);
	clear_env();
}
