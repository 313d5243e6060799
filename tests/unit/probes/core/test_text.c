/* Unit tests for probes/core/text.c: text safe for terminals and logs. */
#include "config.h"

#include <criterion/criterion.h>

#include "probes/core/text.h"

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
/* A raw 0x9b is CSI to an 8-bit terminal: bytes 0x80-0x9f that are not part
 * of a UTF-8 character, and the code points U+0080-U+009F, become '?'. */
Test(text, c1_controls_raw_and_encoded)
{
	char buf[64];

	ix_text_safe("\x9b"
		     "2J\x90q\x9c",
		     buf, sizeof(buf));
	cr_expect_str_eq(buf, "?2J?q?");
	ix_text_safe("\xc2\x80\xc2\x9f\xc2\xa0", buf, sizeof(buf));
	cr_expect_str_eq(buf, "??\xc2\xa0", "U+00A0 is not a control");
	/* Not UTF-8: a lone lead, a bad continuation, overlong, surrogate, 0xff. */
	ix_text_safe("a\xc3"
		     "b\xe2\x82z\xc0\x9b\xed\xa0\x80\xff",
		     buf, sizeof(buf));
	cr_expect_str_eq(buf, "a?b??z??????", "%s", buf);
	ix_text_safe("end\xc3", buf, sizeof(buf));
	cr_expect_str_eq(buf, "end?");
	/* Valid UTF-8 stays as it is. */
	ix_text_safe("12 \xc2\xb5s caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", buf, sizeof(buf));
	cr_expect_str_eq(buf, "12 \xc2\xb5s caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	ix_text_safe("ab\xf0\x9f\x98\x80", buf, 6); /* 4 bytes do not fit in 3 */
	cr_expect_str_eq(buf, "ab");
}
