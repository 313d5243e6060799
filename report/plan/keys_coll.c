/* The settings of a probe = coll check (ixperf-plan(5)), as ixperf coll
 * takes them: each value checked here, at its line. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "probes/coll/coll.h"
#include "report/fmt/units.h"
#include "report/plan/parse.h"
#include "report/plan/plan.h"

static int text(struct ix_plan_parse *ps, const char *k, const char *v, char *dst, size_t len)
{
	if (strlen(v) >= len)
		return ix_plan_bad(ps, "'%s' is too long for %s", v, k);
	memcpy(dst, v, strlen(v) + 1);
	return 1;
}

static int bytes(struct ix_plan_parse *ps, const char *k, const char *v, uint64_t *out)
{
	struct ix_err perr = { 0 };

	if (ix_parse_size(v, out, &perr) < 0 || *out == 0)
		return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg[0] ? perr.msg : v);
	return 1;
}

int ix_plan_coll_key(struct ix_plan_parse *ps, struct ix_check *c, const char *k, const char *v)
{
	struct ix_err perr = { 0 };
	enum ix_coll_op op;
	enum ix_coll_dtype dt;
	enum ix_coll_redop ro;
	uint64_t u;
	double d;

	if (!strcmp(k, "collective")) {
		if (ix_coll_op_parse(v, &op, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		if (c->coll_redop[0] && !ix_coll_op_reduces(op))
			return ix_plan_bad(ps, "%s takes no reduction (reduction = %s)", v,
					   c->coll_redop);
		return text(ps, k, v, c->coll_op, sizeof(c->coll_op));
	}
	if (!strcmp(k, "datatype")) {
		if (ix_coll_dtype_parse(v, &dt, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		return text(ps, k, v, c->coll_dtype, sizeof(c->coll_dtype));
	}
	if (!strcmp(k, "reduction")) {
		if (ix_coll_redop_parse(v, &ro, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		if (c->coll_op[0] && ix_coll_op_parse(c->coll_op, &op, NULL) == 0 &&
		    !ix_coll_op_reduces(op))
			return ix_plan_bad(ps, "%s takes no reduction (reduction = %s)", c->coll_op,
					   v);
		return text(ps, k, v, c->coll_redop, sizeof(c->coll_redop));
	}
	if (!strcmp(k, "library")) {
		if (strcmp(v, "nccl") && strcmp(v, "rccl"))
			return ix_plan_bad(ps, "bad value '%s' for %s (nccl or rccl)", v, k);
		return text(ps, k, v, c->coll_lib, sizeof(c->coll_lib));
	}
	if (!strcmp(k, "library_path"))
		return text(ps, k, v, c->coll_lib_path, sizeof(c->coll_lib_path));
	if (!strcmp(k, "min_bytes") || !strcmp(k, "max_bytes")) {
		if (!bytes(ps, k, v, k[1] == 'i' ? &c->coll_minbytes : &c->coll_maxbytes))
			return 0;
		if (c->coll_minbytes && c->coll_maxbytes && c->coll_minbytes > c->coll_maxbytes)
			return ix_plan_bad(ps, "min_bytes %llu is more than max_bytes %llu",
					   (unsigned long long)c->coll_minbytes,
					   (unsigned long long)c->coll_maxbytes);
		return 1;
	}
	if (!strcmp(k, "iters") && c->probe == IX_CHECK_COLL) {
		if (ix_parse_uint(v, 1, IX_COLL_MAX_ITERS, &u, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		c->gpu_iterations = (uint32_t)u;
		return 1;
	}
	if (!strcmp(k, "step_factor")) {
		if (ix_parse_uint(v, 2, 1024, &u, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		c->coll_factor = u;
		return 1;
	}
	if (!strcmp(k, "warmup_iters")) {
		if (ix_parse_uint(v, 0, IX_COLL_MAX_ITERS, &u, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		c->coll_warmup = u ? (uint32_t)u : UINT32_MAX;
		return 1;
	}
	if (!strcmp(k, "timeout")) {
		if (ix_parse_seconds(v, &d, &perr) < 0 || d <= 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k,
					   perr.msg[0] ? perr.msg : v);
		c->coll_timeout_s = d;
		return 1;
	}
	return -1;
}
