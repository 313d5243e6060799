/* Unit tests for probes/mem/nodes.c: nodes, CPU-less ones and HMAT classes
 * read from a sysfs tree made here; CPU, node and test lists; measured against
 * advertised. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "probes/mem/mem.h"
#include "tests/unit/common.h"

/* node0: CPUs 0-1, 2 GiB, HMAT class 0 and 1: 10 ns, 10240 MB/s, from
 * node 0; node1: no CPUs, 1 GiB, class 0: 30 ns, 5120 MB/s, from node 0.
 * node3: a directory with garbage. */
static void tree(char *dir, size_t len)
{
	char d[512];

	snprintf(dir, len, "/tmp/ixmem.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	for (int n = 0; n < 2; n++) {
		const char *lat = n ? "30" : "10", *bw = n ? "5120" : "10240";
		char mi[128];

		snprintf(d, sizeof(d), "%s/sys/devices/system/node/node%d", dir, n);
		ix_test_mkdirs(d);
		ix_test_put(d, "cpulist", n ? "" : "0-1");
		snprintf(mi, sizeof(mi), "Node %d MemTotal:  %d kB\nNode %d MemFree:  %d kB", n,
			 n ? 1048576 : 2097152, n, n ? 1000000 : 2000000);
		ix_test_put(d, "meminfo", mi);
		for (int c = 0; c < 2 - n; c++) {
			char a[600];

			snprintf(a, sizeof(a), "%s/access%d/initiators/node0", d, c);
			ix_test_mkdirs(a);
			snprintf(a, sizeof(a), "%s/access%d/initiators", d, c);
			ix_test_put(a, "read_latency", lat);
			ix_test_put(a, "write_latency", lat);
			ix_test_put(a, "read_bandwidth", bw);
			ix_test_put(a, "write_bandwidth", bw);
		}
	}
	snprintf(d, sizeof(d), "%s/sys/devices/system/node/node3", dir);
	ix_test_mkdirs(d);
	ix_test_put(d, "cpulist", "zz");
	snprintf(d, sizeof(d), "%s/sys/devices/system/node/nodeX", dir);
	ix_test_mkdirs(d);
}

static void rm_tree(const char *dir)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(nodes, cpu_less_nodes_and_hmat_classes)
{
	static struct ix_mem_result r;
	struct ix_err err = { 0 };
	char dir[64];
	const struct ix_mem_node *n0, *n1, *n3;

	tree(dir, sizeof(dir));
	cr_assert_eq(ix_mem_nodes(dir, &r, &err), 0, "%s", err.msg);
	cr_assert_eq(r.nnodes, 3, "node0, node1, node3; nodeX is no node");
	n0 = ix_mem_node(&r, 0);
	n1 = ix_mem_node(&r, 1);
	n3 = ix_mem_node(&r, 3);
	cr_assert(n0 && n1 && n3);
	cr_assert_eq(n0->ncpus, 2);
	cr_assert_str_eq(n0->cpus, "0-1");
	cr_assert_eq(n0->mem_bytes, 2097152ull * 1024);
	cr_assert_eq(n0->free_bytes, 2000000ull * 1024);
	cr_assert_eq(n1->ncpus, 0, "CPU-less");
	cr_assert(n1->access[0].present);
	cr_assert_not(n1->access[1].present);
	cr_assert_eq(n1->access[0].read_ns, 30);
	cr_assert_eq(n1->access[0].read_mbps, 5120);
	cr_assert_eq(n1->access[0].initiators, 1, "from node 0");
	cr_assert(n0->access[1].present);
	cr_assert_eq(n3->ncpus, 0, "a garbage cpulist counts no CPU");
	cr_assert_not(n3->mem_known);
	rm_tree(dir);
}

Test(nodes, no_node_directory)
{
	static struct ix_mem_result r;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_mem_nodes("/nonexistent-ixperf", &r, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert_not_null(strstr(err.msg, "no NUMA nodes"), "%s", err.msg);
}

Test(lists, cpulists_and_nodelists)
{
	int c[8];
	uint64_t m;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_mem_cpulist("0-2,5,7-7", c, 8), 5);
	cr_assert_eq(c[0], 0);
	cr_assert_eq(c[2], 2);
	cr_assert_eq(c[3], 5);
	cr_assert_eq(c[4], 7);
	cr_assert_eq(ix_mem_cpulist("", c, 8), 0);
	cr_assert_eq(ix_mem_cpulist("3-1", c, 8), -1, "backwards");
	cr_assert_eq(ix_mem_cpulist("0-9", c, 8), -1, "more than room");
	cr_assert_eq(ix_mem_cpulist("1;2", c, 8), -1);
	cr_assert_eq(ix_mem_nodelist("0,2-3", &m, &err), 0);
	cr_assert_eq(m, 0xd);
	cr_assert_eq(ix_mem_nodelist("all", &m, &err), 0);
	cr_assert_eq(m, 0);
	cr_assert_eq(ix_mem_nodelist("64", &m, &err), -1);
	cr_assert_not_null(strstr(err.msg, "nodes 0 to 63"), "%s", err.msg);
	cr_assert_eq(ix_mem_nodelist("x", &m, &err), -1);
	cr_assert_not_null(strstr(err.msg, "'x' is not a list of NUMA nodes"), "%s", err.msg);
}

/* The tests of --tests and a plan's tests key: one parser for both. */
Test(lists, tests)
{
	unsigned t;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_mem_tests_parse("read,latency", &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t, IX_MEM_T_READ | IX_MEM_T_LATENCY);
	cr_assert_eq(ix_mem_tests_parse("all", &t, &err), 0);
	cr_assert_eq(t, IX_MEM_T_ALL);
	cr_assert_eq(ix_mem_tests_parse("nt_write,loaded,", &t, &err), 0);
	cr_assert_eq(t, IX_MEM_T_NTWRITE | IX_MEM_T_LOADED);
	cr_assert_eq(ix_mem_tests_parse("read,reads", &t, &err), -1);
	cr_assert_str_eq(err.msg,
			 "'reads' is not one of read, write, nt_write, copy, latency, loaded, all");
	cr_assert_eq(ix_mem_tests_parse("", &t, &err), -1);
	cr_assert_str_eq(err.msg, "no test named");
}

/* Ratios against the class that lists the initiator (class 1 before 0);
 * past the slack a pair is slow; a pair no class lists has no figure. */
Test(compare, ratios_and_slow_pairs)
{
	static struct ix_mem_result r;
	struct ix_mem_cell cells[3] = { 0 };
	struct ix_err err = { 0 };
	char dir[64];

	tree(dir, sizeof(dir));
	cr_assert_eq(ix_mem_nodes(dir, &r, &err), 0, "%s", err.msg);
	rm_tree(dir);
	r.params.slack = 0.25;
	r.cells = cells;
	r.ncells = 3;
	/* 0 -> 0: 9.5 GB/s read of 10.24, nt 10 GB/s, 12 ns of 10: fine. */
	cells[0] = (struct ix_mem_cell){ .initiator = 0,
					 .target = 0,
					 .measured = true,
					 .bw = { 9.5e9, 5e9, 10e9, 4e9 },
					 .lat_ns = 12 };
	/* 0 -> 1: 2 GB/s of 5.12: slow. */
	cells[1] = (struct ix_mem_cell){ .initiator = 0,
					 .target = 1,
					 .measured = true,
					 .bw = { 2e9, 1e9, -1, 1e9 },
					 .lat_ns = 31 };
	/* 3 -> 1: node 1 lists no such initiator. */
	cells[2] = (struct ix_mem_cell){ .initiator = 3,
					 .target = 1,
					 .measured = true,
					 .bw = { 1e9, 1e9, 1e9, 1e9 },
					 .lat_ns = 100 };
	ix_mem_compare(&r);
	cr_assert_eq(cells[0].hmat_class, 1);
	cr_assert_float_eq(cells[0].ratio_read, 9.5e9 / 10.24e9, 1e-9);
	cr_assert_float_eq(cells[0].ratio_write, 10e9 / 10.24e9, 1e-9, "against nt stores");
	cr_assert_float_eq(cells[0].ratio_lat, 1.2, 1e-9);
	cr_assert_not(cells[0].slow);
	cr_assert_eq(cells[1].hmat_class, 0);
	cr_assert_float_eq(cells[1].ratio_write, 1e9 / 5.12e9, 1e-9, "plain stores, no nt");
	cr_assert(cells[1].slow);
	cr_assert_eq(cells[2].hmat_class, -1);
	cr_assert_lt(cells[2].ratio_read, 0);
	cr_assert_not(cells[2].slow);
}
