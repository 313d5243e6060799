/* Text from outside made safe for a terminal or a log (probes/core/text.h). */
#include "config.h"

#include <string.h>

#include "probes/core/text.h"

/* The length of the valid UTF-8 sequence at p (2 to 4), or 0 when p does
 * not start one: a stray continuation byte, a bad or missing continuation,
 * an overlong form, a surrogate, or a code point past U+10FFFF. */
static size_t utf8_seq(const unsigned char *p)
{
	size_t n, i;
	unsigned int cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0; /* also stops at the terminating NUL */
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void ix_text_safe(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n;

	if (!len)
		return;
	while (*p && o + 1 < len) {
		if (*p < 0x80) {
			/* C0 control characters and DEL */
			buf[o++] = *p < 0x20 || *p == 0x7f ? '?' : (char)*p;
			p++;
		} else if ((n = utf8_seq(p)) == 0) {
			/* not UTF-8: a raw 0x80-0x9f is a C1 control to an 8-bit terminal */
			buf[o++] = '?';
			p++;
		} else if (p[0] == 0xc2 && p[1] <= 0x9f) {
			buf[o++] = '?'; /* U+0080-U+009F, the C1 control characters */
			p += n;
		} else if (o + n < len) {
			memcpy(buf + o, p, n);
			o += n;
			p += n;
		} else {
			break; /* cut short: no character left incomplete at the end */
		}
	}
	buf[o] = '\0';
}
