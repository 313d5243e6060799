/* Unit tests for report/json/write.c: documents written as jansson writes
 * them, with lazy values in their placeholders' places. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"

#define FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

/* What ix_json_write writes of doc, as a string. */
static char *written(const json_t *doc, const struct ix_json_lazy *lazy, size_t n, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	*rc = ix_json_write(f, doc, lazy, n);
	fclose(f);
	return buf;
}

Test(write, same_text_as_jansson)
{
	json_t *doc =
		json_pack("{s:s,s:i,s:f,s:f,s:f,s:b,s:n,s:[],s:{},s:[i,[s,{s:f}],{}],s:{s:{s:[]}}}",
			  "str", "a \"quoted\"\\ line\nand\ttab\x01 / é", "int", 42, "real", 1.0,
			  "big", 1.2e19, "small", 3.5e-12, "yes", 1, "nothing", "empty_a",
			  "empty_o", "mixed", -7, "x", "k", 9400000000.5, "nested", "a", "b");
	char *want = json_dumps(doc, FLAGS);
	int rc;
	char *got = written(doc, NULL, 0, &rc);

	cr_assert_eq(rc, 0);
	cr_assert_eq(strlen(got), strlen(want) + 1);
	cr_assert(strncmp(got, want, strlen(want)) == 0, "got\n%s\nwant\n%s", got, want);
	cr_assert_eq(got[strlen(want)], '\n');
	free(want);
	free(got);
	json_decref(doc);
}

Test(write, reals_as_jansson_writes_them)
{
	static const double v[] = { 0.5,  1.0,      100.0,      1e10,    1.5e10,       123456.789,
				    1e-5, 2.5e-300, 6.02214e23, 9.99e99, 12345678901.0 };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		json_t *r = json_real(v[i]);
		char *want = json_dumps(r, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		ix_json_put_real(f, v[i]);
		fclose(f);
		cr_assert_str_eq(buf, want, "%g", v[i]);
		free(buf);
		free(want);
		json_decref(r);
	}
}

static int write_three(FILE *f, int depth, void *arg)
{
	fprintf(f, "[%d, %d, %d]", *(int *)arg, depth, 3);
	return 0;
}

static int write_fails(FILE *f, int depth, void *arg)
{
	return -1;
}

Test(write, lazy_values_in_place)
{
	json_t *ph = json_object();
	json_t *doc = json_pack("{s:s,s:{s:o},s:i}", "a", "x", "b", "lazy", ph, "c", 1);
	int one = 1, rc;
	struct ix_json_lazy l = { ph, write_three, &one };
	char *got = written(doc, &l, 1, &rc);
	json_t *back = json_loads(got, 0, NULL);

	cr_assert_eq(rc, 0);
	cr_assert_not_null(back, "valid JSON: %s", got);
	/* at depth 2: the placeholder is a member of an object in the document */
	cr_assert_eq(json_integer_value(json_array_get(
			     json_object_get(json_object_get(back, "b"), "lazy"), 1)),
		     2);
	cr_assert_eq(json_integer_value(json_object_get(back, "c")), 1);
	free(got);
	json_decref(back);
	json_decref(doc);
}

Test(write, a_failing_writer_fails_the_document)
{
	json_t *ph = json_array();
	json_t *doc = json_pack("{s:o}", "m", ph);
	struct ix_json_lazy l = { ph, write_fails, NULL };
	int rc;
	char *got = written(doc, &l, 1, &rc);

	cr_assert_eq(rc, -1);
	free(got);
	json_decref(doc);
}
