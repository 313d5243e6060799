/* What a renderer writes, caught in memory (the report/prom tests). */
#ifndef IX_TEST_PROM_MEMOUT_H
#define IX_TEST_PROM_MEMOUT_H

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

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

#endif
