/* The path of a fixture in tests/data: from $top_srcdir (make check sets
 * it), else from where this header's including test file lives. */
#ifndef IX_TEST_DATA_H
#define IX_TEST_DATA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *ix_test_data(const char *name)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");
	char dir[2048];

	if (top && *top) {
		snprintf(dir, sizeof(dir), "%s", top);
	} else {
		char *at;

		snprintf(dir, sizeof(dir), "%s", __FILE__);
		at = strstr(dir, "tests/unit/");
		if (at)
			*at = '\0';
		if (!dir[0] || !at)
			snprintf(dir, sizeof(dir), ".");
	}
	snprintf(path, sizeof(path), "%s/tests/data/%s", dir, name);
	return path;
}

#endif
