/* Fixture documents and their figures, for the report/doc tests. */
#ifndef IX_TEST_FIGS_H
#define IX_TEST_FIGS_H

#include <criterion/criterion.h>

#include "report/doc/compare.h"
#include "report/doc/figures.h"
#include "tests/unit/data.h"

static inline json_t *load(const char *name)
{
	struct ix_err err = { 0 };
	json_t *doc = ix_doc_load(ix_test_data(name), &err);

	cr_assert_not_null(doc, "%s: %s", name, err.msg);
	return doc;
}

static inline struct ix_figure *figures(const char *name, size_t *n)
{
	struct ix_err err = { 0 };
	struct ix_figure *v = NULL;
	json_t *doc = load(name);

	cr_assert_eq(ix_figures_extract(doc, &v, n, &err), 0, "%s: %s", name, err.msg);
	json_decref(doc);
	return v;
}
static inline const struct ix_figure *get(const struct ix_figure *v, size_t n, const char *key)
{
	const struct ix_figure *f = ix_figures_find(v, n, key);

	cr_assert_not_null(f, "no figure '%s'", key);
	return f;
}

static inline void expect(const struct ix_figure *v, size_t n, const char *key, double value)
{
	const struct ix_figure *f = get(v, n, key);

	cr_assert(f->valid, "%s has no value", key);
	cr_assert_float_eq(f->value, value, fabs(value) * 1e-12 + 1e-12, "%s = %.17g, expected %g",
			   key, f->value, value);
}

static inline enum ix_verdict row_of(const struct ix_cmp_row *rows, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		const struct ix_figure *f = rows[i].base ? rows[i].base : rows[i].cur;

		if (strcmp(f->key, key) == 0)
			return rows[i].verdict;
	}
	cr_assert_fail("no row '%s'", key);
	return IX_CMP_SAME;
}

#endif
