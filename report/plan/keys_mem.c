/* The settings of a probe = mem check (ixperf-plan(5)), as ixperf mem
 * takes them: each value checked here, at its line. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "probes/mem/mem.h"
#include "report/fmt/units.h"
#include "report/plan/parse.h"
#include "report/plan/plan.h"

int ix_plan_mem_key(struct ix_plan_parse *ps, struct ix_check *c, const char *k, const char *v)
{
	struct ix_err perr = { 0 };
	uint64_t u;
	double d;
	bool b;

	if (c->probe != IX_CHECK_MEM)
		return -1;
	if (!strcmp(k, "initiators") || !strcmp(k, "nodes")) {
		if (ix_mem_nodelist(v, k[0] == 'i' ? &c->mem.initiators : &c->mem.targets, &perr) <
		    0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		return 1;
	}
	if (!strcmp(k, "tests")) {
		if (ix_mem_tests_parse(v, &c->mem.tests, &perr) < 0)
			return ix_plan_bad(ps, "bad value for tests: %s", perr.msg);
		return 1;
	}
	if (!strcmp(k, "threads")) {
		if (ix_parse_uint(v, 1, 1024, &u, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		c->mem.threads = (uint32_t)u;
		return 1;
	}
	if (!strcmp(k, "size") || !strcmp(k, "latency_size")) {
		if (ix_parse_size(v, &u, &perr) < 0 || u < (1u << 20) || u > (1ull << 40))
			return ix_plan_bad(ps, "bad value for %s: %s", k,
					   perr.msg[0] ? perr.msg : "1Mi to 1Ti");
		if (k[0] == 's')
			c->mem.buf_bytes = u;
		else
			c->mem.lat_bytes = u;
		return 1;
	}
	if (!strcmp(k, "time")) {
		if (ix_parse_seconds(v, &d, &perr) < 0 || d < 0.01 || d > 60)
			return ix_plan_bad(ps, "bad value for %s: %s", k,
					   perr.msg[0] ? perr.msg : "0.01 to 60 s");
		c->mem.time_s = d;
		return 1;
	}
	if (!strcmp(k, "hugepages")) {
		if (!ix_plan_bool(v, &b))
			return ix_plan_bad(ps, "bad value '%s' for %s (yes or no)", v, k);
		c->mem.no_huge = !b;
		return 1;
	}
	if (!strcmp(k, "slack")) {
		if (ix_plan_percent(v, &d, &perr) < 0 || d > 10)
			return ix_plan_bad(ps, "bad value for %s: %s", k,
					   perr.msg[0] ? perr.msg : "0% to 1000%");
		c->mem.slack = d;
		c->mem_have_slack = true;
		return 1;
	}
	return -1;
}
