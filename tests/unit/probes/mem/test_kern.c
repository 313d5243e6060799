/* Unit tests for probes/mem/kern.c: each kernel reads or writes every
 * line it is given; the chase is one cycle through every line. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/mem/kern.h"

#define LEN (64u * 1024)

static uint64_t *words(void)
{
	uint64_t *b = aligned_alloc(64, LEN);

	cr_assert_not_null(b);
	for (size_t i = 0; i < LEN / 8; i++)
		b[i] = i * 0x9e3779b97f4a7c15ull;
	return b;
}

Test(kern, read_sees_every_word)
{
	uint64_t *b = words(), x = 0;

	for (size_t i = 0; i < LEN / 8; i++)
		x ^= b[i];
	cr_assert_eq(ix_mem_read_pass(b, LEN), x);
	cr_assert_eq(ix_mem_read_delayed(b, LEN, 3), x, "the delayed read too");
	cr_assert_gt(ix_mem_pause_ns(), 0, "a pause takes some time");
	cr_assert_lt(ix_mem_pause_ns(), 1e5, "and not 100 us");
	b[LEN / 8 - 1] ^= 1; /* the last word counts */
	cr_assert_eq(ix_mem_read_pass(b, LEN), x ^ 1);
	free(b);
}

Test(kern, writes_fill_every_word)
{
	uint64_t *b = words();

	ix_mem_write_pass(b, LEN, 42);
	for (size_t i = 0; i < LEN / 8; i++)
		cr_assert_eq(b[i], 42, "word %zu", i);
	if (ix_mem_have_nt()) {
		cr_assert(ix_mem_ntwrite_pass(b, LEN, 7));
		for (size_t i = 0; i < LEN / 8; i++)
			cr_assert_eq(b[i], 7, "word %zu", i);
	} else {
		cr_assert_not(ix_mem_ntwrite_pass(b, LEN, 7));
	}
	free(b);
}

/* Copies are exact, aligned (streaming stores) or not (memcpy), with a
 * tail that is no whole number of vectors. */
Test(kern, copy_is_exact)
{
	uint64_t *src = words(), *dst = aligned_alloc(64, LEN);
	size_t sizes[] = { LEN, LEN - 64, LEN - 8 };

	cr_assert_not_null(dst);
	cr_assert_gt(ix_mem_vector_bytes(), 8);
	for (size_t k = 0; k < 3; k++) {
		memset(dst, 0, LEN);
		ix_mem_copy_pass(dst, src, sizes[k]);
		cr_assert_eq(memcmp(dst, src, sizes[k]), 0, "%zu bytes", sizes[k]);
		if (sizes[k] < LEN)
			cr_assert_eq(((char *)dst)[sizes[k]], 0, "nothing past the end");
	}
	memset(dst, 0, LEN);
	ix_mem_copy_pass((char *)dst + 8, src, LEN - 64);
	cr_assert_eq(memcmp((char *)dst + 8, src, LEN - 64), 0, "unaligned");
	free(src);
	free(dst);
}

/* Every line once before the start comes round again, and a walk of n
 * steps ends where n single steps end. */
Test(kern, chase_is_one_cycle_through_every_line)
{
	void *b = aligned_alloc(64, LEN), *start, *p;
	size_t n = LEN / IX_MEM_LINE, steps = 0;
	char *seen = calloc(n, 1);

	cr_assert(b && seen);
	start = ix_mem_chase_build(b, LEN, 12345);
	cr_assert_eq(start, b);
	p = start;
	do {
		size_t k = (size_t)((char *)p - (char *)b) / IX_MEM_LINE;

		cr_assert_lt(k, n);
		cr_assert_not(seen[k], "line %zu twice after %zu steps", k, steps);
		seen[k] = 1;
		p = *(void **)p;
		steps++;
	} while (p != start && steps <= n);
	cr_assert_eq(steps, n, "a cycle of %zu lines, not %zu", n, steps);
	p = start;
	for (int i = 0; i < 37; i++)
		p = *(void **)p;
	cr_assert_eq(ix_mem_chase(start, 37), p);
	cr_assert_eq(ix_mem_chase(start, n), start, "n steps: back at the start");
	free(seen);
	free(b);
}
