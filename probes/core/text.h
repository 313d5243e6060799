/* Text from outside (a peer's words, a document's strings, a file name)
 * made safe for a terminal or a log line: no control character reaches
 * either, so no peer can move the cursor, retitle a window or forge a
 * line. */
#ifndef IX_TEXT_H
#define IX_TEXT_H

#include <stddef.h>

/* Copy s for a terminal: control characters (C0, DEL, and C1 both as
 * U+0080-U+009F and as raw bytes) and bytes that are not UTF-8 become
 * '?'; valid UTF-8 is kept. A copy cut short ends on a whole character. */
void ix_text_safe(const char *s, char *buf, size_t len);

#endif
