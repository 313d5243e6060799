/* Strings from outside (documents, file names, a peer's errors) made safe
 * for a terminal (ix_text_safe, probes/core/text.h, which the agent's log
 * shares) or for a JSON document. */
#ifndef IX_REPORT_SAFE_H
#define IX_REPORT_SAFE_H

#include <jansson.h>

#include "probes/core/text.h" /* ix_text_safe, for a terminal */

/* A JSON string of s; bytes that are not UTF-8 (a file name) become '?'. */
json_t *ix_json_string_lossy(const char *s);

#endif
