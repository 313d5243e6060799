/* Unit tests for report/fmt/safe.c: lossy JSON strings (text safe for
 * terminals: tests/unit/probes/core/test_text.c). */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "report/fmt/safe.h"

Test(text, lossy_json_strings)
{
	json_t *s = ix_json_string_lossy("r\xff"
					 "sult.json");

	cr_assert_not_null(s);
	cr_expect_str_eq(json_string_value(s), "r?sult.json");
	json_decref(s);
	s = ix_json_string_lossy("caf\xc3\xa9");
	cr_expect_str_eq(json_string_value(s), "caf\xc3\xa9");
	json_decref(s);
}
