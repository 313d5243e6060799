/* What the tests of report/post share: a document of tests/data, and the
 * payload ix_post_payload builds of it in a format. */
#ifndef IX_TEST_REPORT_POST_PAYLOAD_H
#define IX_TEST_REPORT_POST_PAYLOAD_H

#include <criterion/criterion.h>

#include "report/post/post.h"
#include "tests/unit/data.h"

static inline json_t *load(const char *name)
{
	json_error_t je;
	json_t *doc = json_load_file(ix_test_data(name), 0, &je);

	cr_assert_not_null(doc, "%s: %s", ix_test_data(name), je.text);
	return doc;
}

/* The payload of tests/data/name under o (its url and format at least). */
static inline char *body_with(const char *name, const struct ix_post_opts *o, struct ix_post_msg *m)
{
	struct ix_err err = { 0 };
	json_t *doc = load(name);

	cr_assert_eq(ix_post_payload(o, doc, NULL, 0, m, &err), 0, "%s", err.msg);
	json_decref(doc);
	return m->body;
}

static inline char *body_of(const char *name, enum ix_post_format f, struct ix_post_msg *m)
{
	struct ix_post_opts o = { .url = "http://127.0.0.1:9091", .format = f };

	return body_with(name, &o, m);
}

#endif
