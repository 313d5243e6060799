/* Strings from outside (documents, file names, a peer's errors) made safe
 * for a terminal or for a JSON document. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/fmt/safe.h"

void ix_text_safe(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return;
	for (; *p && o + 1 < len; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			buf[o++] = '?';
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			buf[o++] = '?'; /* a C1 control character */
			p++;
		} else {
			buf[o++] = (char)*p;
		}
	}
	if (*p && o > 0) {
		/* cut short: drop a character left incomplete at the end */
		size_t lead = o - 1, need;

		while (lead > 0 && ((unsigned char)buf[lead] & 0xC0) == 0x80)
			lead--;
		need = (unsigned char)buf[lead] >= 0xF0   ? 4
		       : (unsigned char)buf[lead] >= 0xE0 ? 3
		       : (unsigned char)buf[lead] >= 0xC0 ? 2
							  : 1;
		if (o - lead < need)
			o = lead;
	}
	buf[o] = '\0';
}

json_t *ix_json_string_lossy(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j)
		return j;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}
