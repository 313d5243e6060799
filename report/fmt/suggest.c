/* "Did you mean": edit distance over a short list of names. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "report/fmt/suggest.h"

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

unsigned ix_edit_distance(const char *a, const char *b)
{
	unsigned d[IX_SUGGEST_MAX + 1][IX_SUGGEST_MAX + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > IX_SUGGEST_MAX || lb > IX_SUGGEST_MAX)
		return (unsigned)(la > lb ? la : lb);
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[la][lb];
}

const char *ix_suggest(const char *word, const char *const *names, size_t n)
{
	size_t len = strlen(word);
	unsigned limit = len <= 4 ? 1 : len <= 8 ? 2 : 3, best = limit + 1;
	const char *hit = NULL;
	bool tie = false;

	if (limit >= len)
		limit = len ? (unsigned)len - 1 : 0;
	best = limit + 1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = ix_edit_distance(word, names[i]);

		if (d < best) {
			best = d;
			hit = names[i];
			tie = false;
		} else if (d == best && hit && strcmp(hit, names[i]) != 0) {
			tie = true;
		}
	}
	return hit && !tie && best <= limit ? hit : NULL;
}
