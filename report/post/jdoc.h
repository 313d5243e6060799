/* Reading a result document, for the payload builders of report/post
 * (format.c, prom.c): typed members, absent or mistyped ones as NULL or
 * false. */
#ifndef IX_POST_JDOC_H
#define IX_POST_JDOC_H

#include <stdbool.h>
#include <string.h>

#include <jansson.h>

static inline const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The number o[key] (key NULL: o itself). */
static inline bool jnum(json_t *o, const char *key, double *v)
{
	json_t *n = key ? json_object_get(o, key) : o;

	if (!json_is_number(n))
		return false;
	*v = json_number_value(n);
	return true;
}

/* The run object of an `ixperf run` document, else NULL. */
static inline json_t *doc_run(json_t *doc)
{
	json_t *r = json_array_get(json_object_get(doc, "results"), 0);
	const char *kind = jstr(r, "kind");

	return kind && strcmp(kind, "run") == 0 ? r : NULL;
}

#endif
