/* What a renderer writes, caught in memory (the report/prom tests). */
#ifndef IX_TEST_PROM_MEMOUT_H
#define IX_TEST_PROM_MEMOUT_H

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/prom/prom.h"

struct buf {
	char *s;
	size_t len;
	FILE *f;
};

static inline void open_buf(struct buf *b)
{
	b->s = NULL;
	b->len = 0;
	b->f = open_memstream(&b->s, &b->len);
	cr_assert_not_null(b->f);
}

/* The text written since open_buf (malloc'd). */
static inline char *close_buf(struct buf *b)
{
	fclose(b->f);
	return b->s;
}

/* Each of the n lines (with their line feeds) is in text. */
static inline void has_lines(const char *text, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_assert(strstr(text, v[i]), "missing: %s\nin:\n%s", v[i], text);
}

/* Every family of text follows Prometheus' naming rules: a valid name with
 * the ixperf_ prefix, _total on counters and only there, valid label names
 * on its samples. */
static inline void names_follow_the_rules(const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[512], name[128] = "", type[16] = "";

		cr_assert_lt(n, sizeof(line));
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl ? 1 : 0);
		if (sscanf(line, "# TYPE %127s %15s", name, type) == 2) {
			size_t len = strlen(name);
			int total = len > 6 && !strcmp(name + len - 6, "_total");

			cr_assert(ix_prom_name_valid(name, false), "%s", name);
			cr_assert(!strncmp(name, "ixperf_", 7), "%s", name);
			cr_assert(!strcmp(type, "counter") || !strcmp(type, "gauge"), "%s", line);
			cr_assert_eq(total, !strcmp(type, "counter"), "%s", line);
		} else if (line[0] != '#' && strchr(line, '{')) {
			/* label names: after '{' or ',' up to '=' */
			for (char *q = strchr(line, '{'); q && *q != '}';) {
				char *eq = strchr(q + 1, '=');
				char lname[64];
				size_t ln = eq ? (size_t)(eq - q - 1) : 0;

				cr_assert(eq && ln < sizeof(lname), "%s", line);
				memcpy(lname, q + 1, ln);
				lname[ln] = '\0';
				cr_assert(ix_prom_name_valid(lname, true), "label '%s' in %s",
					  lname, line);
				q = eq + 2; /* past =" */
				while (*q && *q != '"')
					q += *q == '\\' ? 2 : 1;
				cr_assert_eq(*q, '"', "%s", line);
				q++;
			}
		}
	}
}

#endif
