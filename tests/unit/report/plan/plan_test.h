/* Helpers of the plan tests (test_plan.c, test_keys.c): a plan text
 * that parses, one refused with a message. */
#ifndef IX_TEST_PLAN_H
#define IX_TEST_PLAN_H

#include <string.h>

#include <criterion/criterion.h>

#include "report/plan/plan.h"

static inline void good(const char *text, struct ix_plan *p)
{
	struct ix_err err = { 0 };

	cr_assert_eq(ix_plan_parse_string(text, "t.ini", p, &err), 0, "%s", err.msg);
}

static inline void refused(const char *text, const char *part)
{
	struct ix_plan p;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_plan_parse_string(text, "t.ini", &p, &err), -1, "accepted: %s", text);
	cr_assert_eq(err.code, IX_EXIT_USAGE, "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, part), "'%s' lacks '%s'", err.msg, part);
}

/* The expectation of check c named key, or NULL. */
static inline const struct ix_expect *expect_of(const struct ix_check *c, const char *key)
{
	for (uint32_t i = 0; i < c->nexpect; i++)
		if (!strcmp(c->expect[i].key, key))
			return &c->expect[i];
	return NULL;
}

#endif
