/* Unit tests for report/fmt/safe.c: text safe for terminals, lossy JSON strings. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "report/fmt/safe.h"

Test(text, safe_for_terminals)
{
	char buf[64];

	ix_text_safe("\x1b[31mred\x1b[0m", buf, sizeof(buf));
	cr_expect_str_eq(buf, "?[31mred?[0m");
	ix_text_safe("a\nb\tc\x7f", buf, sizeof(buf));
	cr_expect_str_eq(buf, "a?b?c?");
	ix_text_safe("C1 \xc2\x9b"
		     "2J",
		     buf, sizeof(buf));
	cr_expect_str_eq(buf, "C1 ?2J");
	ix_text_safe("caf\xc3\xa9", buf, sizeof(buf));
	cr_expect_str_eq(buf, "caf\xc3\xa9");
	ix_text_safe("abcd\xc3\xa9", buf, 6); /* room for 5 bytes: not half an é */
	cr_expect_str_eq(buf, "abcd");
	ix_text_safe("ab\xe2\x82\xac", buf, 6); /* the euro sign fits */
	cr_expect_str_eq(buf, "ab\xe2\x82\xac");
}
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
