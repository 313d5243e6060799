/* Unit tests for report/plan/keys_mem.c: the settings of a probe = mem
 * check, its expectations and defaults, and the values refused. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include <criterion/criterion.h>

#include "report/plan/plan.h"
#include "tests/unit/report/plan/plan_test.h"

Test(plan_keys_mem, settings)
{
	struct ix_plan p;
	const struct ix_check *c;
	const struct ix_expect *e;

	good("[m]\nprobe = mem\ninitiators = 0\nnodes = 0,2-3\ntests = read,latency\n"
	     "threads = 4\nsize = 128Mi\nlatency_size = 1Gi\ntime = 250ms\nhugepages = no\n"
	     "slack = 10%\nsysfs = /saved\nmin_read = 20GB/s\nmin_write = 10GB/s\n"
	     "max_lat = 150ns\nmax_slow = 1\n",
	     &p);
	c = &p.checks[0];
	cr_assert_eq(c->probe, IX_CHECK_MEM);
	cr_assert_str_eq(ix_check_probe_name(c->probe), "mem");
	cr_assert_eq(c->mem.initiators, 1);
	cr_assert_eq(c->mem.targets, 0xd);
	cr_assert_eq(c->mem.tests, IX_MEM_T_READ | IX_MEM_T_LATENCY);
	cr_assert_eq(c->mem.threads, 4);
	cr_assert_eq(c->mem.buf_bytes, 128u << 20);
	cr_assert_eq(c->mem.lat_bytes, 1u << 30);
	cr_assert_float_eq(c->mem.time_s, 0.25, 1e-9);
	cr_assert(c->mem.no_huge);
	cr_assert_float_eq(c->mem.slack, 0.10, 1e-9);
	cr_assert_str_eq(c->mem.sysfs, "/saved");
	cr_assert_str_eq(c->bw.path, "memory");
	e = expect_of(c, "min_read");
	cr_assert_not_null(e);
	cr_assert_str_eq(e->figure, "read_bits_per_second");
	cr_assert_float_eq(e->limit, 20e9 * 8, 1, "GB/s read as bytes: %g", e->limit);
	cr_assert_str_eq(expect_of(c, "min_write")->figure, "write_bits_per_second");
	e = expect_of(c, "max_lat");
	cr_assert_str_eq(e->figure, "latency_ns");
	cr_assert_float_eq(e->limit, 150, 1e-9);
	cr_assert_float_eq(expect_of(c, "max_slow")->limit, 1, 1e-12);
	ix_plan_free(&p);
}

Test(plan_keys_mem, defaults_and_slow_fails_unless_allowed)
{
	struct ix_plan p;
	const struct ix_check *c;
	const struct ix_expect *s;

	good("[m]\nprobe = mem\n", &p);
	c = &p.checks[0];
	cr_assert_eq(c->mem.tests, IX_MEM_T_ALL);
	cr_assert_float_eq(c->mem.time_s, 0.5, 1e-12);
	cr_assert_float_eq(c->mem.slack, 0.25, 1e-12);
	cr_assert_eq(c->mem.initiators, 0, "every initiator");
	cr_assert_not(c->mem.no_huge);
	cr_assert_str_eq(c->mem.sysfs, "", "this machine's /sys");
	s = expect_of(c, "max_slow");
	cr_assert_not_null(s, "a mem check allows no SLOW pair by default");
	cr_assert_float_eq(s->limit, 0, 1e-12);
	cr_assert_str_eq(s->text, "0 (default)");
	cr_assert_eq(ix_plan_local_agents(&p, 8), 0, "a mem check needs no agent");
	ix_plan_free(&p);
	good("[m]\nprobe = mem\nslack = 0%\n", &p);
	cr_assert_float_eq(p.checks[0].mem.slack, 0, 1e-12, "0% is strict, not the default");
	ix_plan_free(&p);
}

Test(plan_keys_mem, refused)
{
	refused("[m]\nprobe = mem\ninitiators = x\n", "t.ini:3: bad value for initiators");
	refused("[m]\nprobe = mem\nnodes = 64\n", "nodes 0 to 63 only");
	refused("[m]\nprobe = mem\ntests = read,bogus\n", "'bogus' is not one of read, write");
	refused("[m]\nprobe = mem\nthreads = 0\n", "bad value for threads");
	refused("[m]\nprobe = mem\nsize = 4Ki\n", "bad value for size");
	refused("[m]\nprobe = mem\nlatency_size = big\n", "bad value for latency_size");
	refused("[m]\nprobe = mem\ntime = 2m\n", "bad value for time");
	refused("[m]\nprobe = mem\nhugepages = maybe\n", "bad value 'maybe' for hugepages");
	refused("[m]\nprobe = mem\nslack = 25\n", "bad value for slack");
	refused("[m]\nprobe = mem\nmin_bw = 1G\n", "'min_bw' does not apply to a mem check");
	refused("[m]\nprobe = mem\nmax_wrong = 0\n", "'max_wrong' does not apply to a mem check");
	refused("[m]\nprobe = bw\nmin_read = 1G\n", "'min_read' does not apply to a bw check");
	refused("[m]\nprobe = gpu\ninitiators = 0\n", "'initiators' does not apply to a gpu check");
	refused("[m]\nprobe = memory\n",
		"unknown probe 'memory' (bw, lat, mesh, incast, gpu, coll, mem,");
}
