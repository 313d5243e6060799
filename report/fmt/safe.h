/* Strings from outside (documents, file names, a peer's errors) made safe
 * for a terminal or for a JSON document. */
#ifndef IX_REPORT_SAFE_H
#define IX_REPORT_SAFE_H

#include <stddef.h>

#include <jansson.h>

/* A JSON string of s; bytes that are not UTF-8 (a file name) become '?'. */
json_t *ix_json_string_lossy(const char *s);
/* Copy s for a terminal: control characters (C0, DEL, and C1 both as
 * U+0080-U+009F and as raw bytes) and bytes that are not UTF-8 become
 * '?'; valid UTF-8 is kept. A copy cut short ends on a whole character. */
void ix_text_safe(const char *s, char *buf, size_t len);

#endif
