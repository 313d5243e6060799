/* Memory kernels. A line is eight 64-bit words; the compiler widens the
 * loops as the CPU allows. The write loops hold a compiler barrier per
 * line, so that they stay stores and never become a call to memset (which
 * switches to non-temporal stores above a size of its own choosing). */
#include "config.h"

#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "probes/mem/kern.h"

#define WORDS (IX_MEM_LINE / 8)

bool ix_mem_have_nt(void)
{
#if defined(__x86_64__)
	return true; /* SSE2 is part of x86-64 */
#else
	return false;
#endif
}

uint64_t ix_mem_read_pass(const void *buf, size_t len)
{
	const uint64_t *p = buf;
	uint64_t acc[WORDS] = { 0 }, x = 0;

	for (size_t i = 0; i < len / 8; i += WORDS)
		for (int k = 0; k < WORDS; k++)
			acc[k] ^= p[i + k];
	for (int k = 0; k < WORDS; k++)
		x ^= acc[k];
	return x;
}

void ix_mem_write_pass(void *buf, size_t len, uint64_t v)
{
	uint64_t *p = buf;

	for (size_t i = 0; i < len / 8; i += WORDS) {
		for (int k = 0; k < WORDS; k++)
			p[i + k] = v;
		__asm__ volatile("" : : "r"(p + i) : "memory");
	}
}

bool ix_mem_ntwrite_pass(void *buf, size_t len, uint64_t v)
{
#if defined(__x86_64__)
	__m128i x = _mm_set1_epi64x((long long)v);
	char *p = buf;

	for (size_t i = 0; i < len; i += IX_MEM_LINE) {
		_mm_stream_si128((__m128i *)(p + i), x);
		_mm_stream_si128((__m128i *)(p + i + 16), x);
		_mm_stream_si128((__m128i *)(p + i + 32), x);
		_mm_stream_si128((__m128i *)(p + i + 48), x);
	}
	_mm_sfence();
	return true;
#else
	(void)buf;
	(void)len;
	(void)v;
	return false;
#endif
}

uint64_t ix_mem_read_delayed(const void *buf, size_t len, uint32_t delay)
{
	const uint64_t *p = buf;
	uint64_t x = 0;

	for (size_t i = 0; i < len / 8; i += WORDS) {
		for (int k = 0; k < WORDS; k++)
			x ^= p[i + k];
		for (uint32_t d = 0; d < delay; d++)
			__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* splitmix64: a small, good generator for the shuffle. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void *ix_mem_chase_build(void *buf, size_t len, uint64_t seed)
{
	size_t n = len / IX_MEM_LINE;
	char *b = buf;
	uint64_t s = seed;

	if (n == 0)
		return NULL;
	/* Each line's first word holds its own index, then Sattolo's
	 * shuffle of those indexes makes one cycle through every line. */
	for (size_t i = 0; i < n; i++)
		*(size_t *)(b + i * IX_MEM_LINE) = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(next_rand(&s) % i);
		size_t *a = (size_t *)(b + i * IX_MEM_LINE), *c = (size_t *)(b + j * IX_MEM_LINE);
		size_t t = *a;

		*a = *c;
		*c = t;
	}
	/* Index to address: line i points at line perm[i]. */
	for (size_t i = 0; i < n; i++) {
		size_t k = *(size_t *)(b + i * IX_MEM_LINE);

		*(void **)(b + i * IX_MEM_LINE) = b + k * IX_MEM_LINE;
	}
	return b;
}

void *ix_mem_chase(void *p, uint64_t n)
{
	void **q = p;

	for (uint64_t i = 0; i < n / 16; i++) {
		q = *q, q = *q, q = *q, q = *q, q = *q, q = *q, q = *q, q = *q;
		q = *q, q = *q, q = *q, q = *q, q = *q, q = *q, q = *q, q = *q;
	}
	for (uint64_t i = 0; i < n % 16; i++)
		q = *q;
	return q;
}
