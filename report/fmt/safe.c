/* Strings from outside (documents, file names, a peer's errors) made safe
 * for a JSON document (for a terminal: probes/core/text.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/fmt/safe.h"

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
