/*
 * The state of a plan file's parse, shared by plan.c (the file, its
 * sections, the defaults), keys.c (the keys of a check) and keys_coll.c
 * (those of a coll check); no other file includes it.
 */
#ifndef IX_PLAN_PARSE_H
#define IX_PLAN_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "probes/core/err.h"

struct ix_plan;
struct ix_check;

struct ix_plan_parse {
	struct ix_plan *plan;
	const char *file;
	int line;
	struct ix_err *err;
	bool failed;
	const char *text; /* string input */
	size_t off;
	FILE *f;
};

/* An error at the current line, "FILE:LINE: ..." in ps->err; the parse
 * stops. Returns 0, inih's "stop". */
int ix_plan_bad(struct ix_plan_parse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Key k = v of check c: 1 taken, 0 refused (ix_plan_bad said why), -1 not
 * a key of checks. */
int ix_plan_check_key(struct ix_plan_parse *ps, struct ix_check *c, const char *k, const char *v);

/* The settings of a probe = coll check (keys_coll.c): 1 taken, 0 refused,
 * -1 not one of them. */
int ix_plan_coll_key(struct ix_plan_parse *ps, struct ix_check *c, const char *k, const char *v);

/* The settings of a probe = mem check (keys_mem.c): 1 taken, 0 refused,
 * -1 not one of them (or not a mem check). */
int ix_plan_mem_key(struct ix_plan_parse *ps, struct ix_check *c, const char *k, const char *v);

/* yes/true/1/on and no/false/0/off (keys.c). */
bool ix_plan_bool(const char *v, bool *out);
/* "10%" as a fraction, 0.1 (keys.c); -1 with err. */
int ix_plan_percent(const char *v, double *frac, struct ix_err *err);

/* A mesh check fails on a bad pair unless it says how many it allows
 * (max_bad_pairs), as 'ixperf mesh' exits 4 on one: a dead pair is never
 * a pass; with rails, on a bad rail too (max_bad_rails). Adds the limits
 * at 0 at the section's line; -1 when it cannot, or when max_bad_rails is
 * given without rails. */
int ix_plan_implicit_bad_pairs(struct ix_plan_parse *ps, struct ix_check *c);

#endif
