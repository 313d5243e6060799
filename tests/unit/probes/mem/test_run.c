/* Unit tests for probes/mem/run.c on this machine's own memory: node 0
 * from node 0 with small buffers and short windows, every test; a node
 * without the room is named, not measured; an early stop is marked. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/mem/kern.h"
#include "probes/mem/mem.h"
#include "tests/unit/common.h"

static struct ix_mem_params small(void)
{
	struct ix_mem_params p = {
		.initiators = 1, /* node 0 */
		.targets = 1,
		.buf_bytes = 4u << 20,
		.lat_bytes = 8u << 20,
		.time_s = 0.05,
		.tests = IX_MEM_T_ALL,
		.slack = 0.25,
		.sysfs = "",
	};
	return p;
}

static void need_numa(void)
{
	struct stat st;

	if (stat("/sys/devices/system/node/node0", &st) != 0)
		cr_skip_test("this kernel shows no NUMA node (CONFIG_NUMA off)");
}

Test(run, node0_from_node0_every_test, .timeout = 60)
{
	static struct ix_mem_result r;
	struct ix_mem_params p = small();
	struct ix_err err = { 0 };
	const struct ix_mem_cell *c;

	need_numa();
	cr_assert_eq(ix_mem_run(&p, &r, NULL, &err), 0, "%s", err.msg);
	cr_assert(r.complete);
	cr_assert_eq(r.ncells, 1);
	c = &r.cells[0];
	cr_assert(c->measured, "%s", c->why);
	cr_assert_eq(c->initiator, 0);
	cr_assert_eq(c->target, 0);
	cr_assert_geq(c->threads, 1);
	cr_assert_gt(c->bw[IX_MEM_READ], 1e8, "read %.0f B/s", c->bw[IX_MEM_READ]);
	cr_assert_gt(c->bw[IX_MEM_WRITE], 1e8);
	cr_assert_gt(c->bw[IX_MEM_COPY], 1e8);
	if (ix_mem_have_nt())
		cr_assert_gt(c->bw[IX_MEM_NTWRITE], 1e8);
	cr_assert_gt(c->lat_ns, 0.1);
	cr_assert_lt(c->lat_ns, 1e5);
	/* The kernel answers move_pages on a NUMA kernel: all on node 0. */
	cr_assert_float_eq(c->placed, 1.0, 1e-9, "placed %.3f", c->placed);
	cr_assert_eq(c->pages.page_bytes, (uint64_t)sysconf(_SC_PAGESIZE));
	cr_assert(c->pages.huge_asked);
	if (c->threads > 1) {
		cr_assert_eq(c->ncurve, IX_MEM_CURVE_MAX, "%s", c->why);
		cr_assert_eq(c->curve[0].load_Bps, 0, "the idle point first");
		for (uint32_t i = 1; i < c->ncurve; i++) {
			cr_assert_gt(c->curve[i].load_Bps, 0, "point %u", i);
			cr_assert_gt(c->curve[i].lat_ns, 0, "point %u", i);
		}
	} else {
		cr_assert_not_null(strstr(c->why, "none left to load"), "%s", c->why);
	}
	ix_mem_result_free(&r);
}

/* Only what was asked: latency alone fills no bandwidth. */
Test(run, only_the_tests_asked, .timeout = 60)
{
	static struct ix_mem_result r;
	struct ix_mem_params p = small();
	struct ix_err err = { 0 };

	need_numa();
	p.tests = IX_MEM_T_LATENCY;
	p.no_huge = true;
	cr_assert_eq(ix_mem_run(&p, &r, NULL, &err), 0, "%s", err.msg);
	cr_assert(r.cells[0].measured, "%s", r.cells[0].why);
	for (int k = 0; k < IX_MEM_NKINDS; k++)
		cr_assert_lt(r.cells[0].bw[k], 0, "%s ran", ix_mem_kind_name((enum ix_mem_kind)k));
	cr_assert_gt(r.cells[0].lat_ns, 0);
	cr_assert_eq(r.cells[0].ncurve, 0);
	cr_assert_not(r.cells[0].pages.huge_asked);
	cr_assert_eq(r.cells[0].pages.huge_bytes, 0, "--no-hugepages: base pages");
	ix_mem_result_free(&r);
}

/* A saved tree whose node 0 has 10 MiB free: not measured, saying why
 * (binding more than a node holds would wake the OOM killer). */
Test(run, a_node_without_room_is_named, .timeout = 60)
{
	static struct ix_mem_result r;
	struct ix_mem_params p = small();
	struct ix_err err = { 0 };
	char dir[] = "/tmp/ixmemrun.XXXXXX", d[256], cmd[300];

	need_numa();
	cr_assert_not_null(mkdtemp(dir));
	snprintf(d, sizeof(d), "%s/sys/devices/system/node/node0", dir);
	ix_test_mkdirs(d);
	ix_test_put(d, "cpulist", "0");
	ix_test_put(d, "meminfo", "Node 0 MemTotal: 1048576 kB\nNode 0 MemFree: 10240 kB");
	p.sysfs = dir;
	cr_assert_eq(ix_mem_run(&p, &r, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(r.ncells, 1);
	cr_assert_not(r.cells[0].measured);
	cr_assert_not_null(strstr(r.cells[0].why, "node 0 has 10 MiB free"), "%s", r.cells[0].why);
	ix_mem_result_free(&r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* Stopped before it starts: nothing measured, the result incomplete. */
Test(run, stopped_is_incomplete, .timeout = 60)
{
	static struct ix_mem_result r;
	struct ix_mem_params p = small();
	struct ix_err err = { 0 };
	atomic_int stop;

	need_numa();
	atomic_init(&stop, 1);
	cr_assert_eq(ix_mem_run(&p, &r, &stop, &err), 0, "%s", err.msg);
	cr_assert_not(r.complete);
	cr_assert_not_null(strstr(r.error, "interrupted"));
	cr_assert_not(r.cells[0].measured);
	ix_mem_result_free(&r);
}
