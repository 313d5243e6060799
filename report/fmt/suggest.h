/* "Did you mean": the nearest of a list of names to a word typed wrong. */
#ifndef IX_SUGGEST_H
#define IX_SUGGEST_H

#include <stddef.h>

/* Edits from a to b: inserting, deleting or changing a character, or
 * swapping two neighbours ("mseh" -> "mesh"), each count 1 (the optimal
 * string alignment distance). Words longer than IX_SUGGEST_MAX compare
 * as far apart as their lengths allow. */
#define IX_SUGGEST_MAX 64
unsigned ix_edit_distance(const char *a, const char *b);

/* The name of names[0..n) nearest to word, when it is near enough to be a
 * typo of it (1 edit for a word of up to 4 characters, 2 up to 8, else
 * 3, and fewer edits than the word has characters); NULL when none is, or
 * when two are equally near (no guess between them). */
const char *ix_suggest(const char *word, const char *const *names, size_t n);

#endif
