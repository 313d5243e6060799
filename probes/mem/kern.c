/* Memory kernels. The write loops hold a compiler barrier every four
 * vectors, so that they stay stores and never become a call to memset
 * (which switches to non-temporal stores above a size of its own
 * choosing). */
#include "config.h"

#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "probes/mem/kern.h"

#define WORDS (IX_MEM_LINE / 8)

/* The widest vectors the CPU has (x86-64: AVX-512, AVX2, else SSE2), held
 * in registers, four at a time; the rest word by word. A kernel per width,
 * chosen once at run time. */
#define V_READ(name, bytes, attr)                                                  \
	attr static uint64_t name(const void *buf, size_t len)                     \
	{                                                                          \
		typedef uint64_t v __attribute__((vector_size(bytes), may_alias)); \
		const v *p = buf;                                                  \
		v a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };                  \
		size_t n = len / (4 * bytes) * 4, i;                               \
		uint64_t x = 0;                                                    \
		for (i = 0; i < n; i += 4) {                                       \
			a0 ^= p[i];                                                \
			a1 ^= p[i + 1];                                            \
			a2 ^= p[i + 2];                                            \
			a3 ^= p[i + 3];                                            \
		}                                                                  \
		a0 ^= a1 ^ a2 ^ a3;                                                \
		for (size_t k = 0; k < bytes / 8; k++)                             \
			x ^= a0[k];                                                \
		for (size_t w = n * bytes / 8; w < len / 8; w++)                   \
			x ^= ((const uint64_t *)buf)[w];                           \
		return x;                                                          \
	}

#define V_WRITE(name, bytes, attr)                                                 \
	attr static void name(void *buf, size_t len, uint64_t x)                   \
	{                                                                          \
		typedef uint64_t v __attribute__((vector_size(bytes), may_alias)); \
		v *p = buf, val;                                                   \
		size_t n = len / (4 * bytes) * 4, i;                               \
		for (size_t k = 0; k < bytes / 8; k++)                             \
			val[k] = x;                                                \
		for (i = 0; i < n; i += 4) {                                       \
			p[i] = val;                                                \
			p[i + 1] = val;                                            \
			p[i + 2] = val;                                            \
			p[i + 3] = val;                                            \
			__asm__ volatile("" : : "r"(p + i) : "memory");            \
		}                                                                  \
		for (size_t w = n * bytes / 8; w < len / 8; w++)                   \
			((uint64_t *)buf)[w] = x;                                  \
	}

V_READ(read_v16, 16, )
V_WRITE(write_v16, 16, )
#if defined(__x86_64__)
V_READ(read_v32, 32, __attribute__((target("avx2"))))
V_WRITE(write_v32, 32, __attribute__((target("avx2"))))
V_READ(read_v64, 64, __attribute__((target("avx512f"))))
V_WRITE(write_v64, 64, __attribute__((target("avx512f"))))

__attribute__((target("avx2"))) static void nt_v32(void *buf, size_t len, uint64_t v)
{
	__m256i x = _mm256_set1_epi64x((long long)v);
	char *p = buf;

	for (size_t i = 0; i + IX_MEM_LINE <= len; i += IX_MEM_LINE) {
		_mm256_stream_si256((__m256i *)(p + i), x);
		_mm256_stream_si256((__m256i *)(p + i + 32), x);
	}
	_mm_sfence();
}

__attribute__((target("avx512f"))) static void nt_v64(void *buf, size_t len, uint64_t v)
{
	__m512i x = _mm512_set1_epi64((long long)v);
	char *p = buf;

	for (size_t i = 0; i + IX_MEM_LINE <= len; i += IX_MEM_LINE)
		_mm512_stream_si512((void *)(p + i), x);
	_mm_sfence();
}

/* Copy with streaming stores: four vectors loaded, four stored. */
#define NT_COPY(name, T, load, store, attr)                                          \
	attr static void name(void *dst, const void *src, size_t len)                \
	{                                                                            \
		T *d = dst;                                                          \
		const T *s = src;                                                    \
		size_t n = len / (4 * sizeof(T)) * 4;                                \
		for (size_t i = 0; i < n; i += 4) {                                  \
			T a = load(s + i), b = load(s + i + 1), c = load(s + i + 2), \
			  e = load(s + i + 3);                                       \
			store(d + i, a);                                             \
			store(d + i + 1, b);                                         \
			store(d + i + 2, c);                                         \
			store(d + i + 3, e);                                         \
		}                                                                    \
		memcpy(d + n, s + n, len - n * sizeof(T));                           \
		_mm_sfence();                                                        \
	}

#define LD64(p)    _mm512_load_si512((const void *)(p))
#define ST64(p, x) _mm512_stream_si512((void *)(p), x)
NT_COPY(copy_v64, __m512i, LD64, ST64, __attribute__((target("avx512f"))))
NT_COPY(copy_v32, __m256i, _mm256_load_si256, _mm256_stream_si256, __attribute__((target("avx2"))))
NT_COPY(copy_v16, __m128i, _mm_load_si128, _mm_stream_si128, )

static void nt_v16(void *buf, size_t len, uint64_t v)
{
	__m128i x = _mm_set1_epi64x((long long)v);
	char *p = buf;

	for (size_t i = 0; i + IX_MEM_LINE <= len; i += IX_MEM_LINE) {
		_mm_stream_si128((__m128i *)(p + i), x);
		_mm_stream_si128((__m128i *)(p + i + 16), x);
		_mm_stream_si128((__m128i *)(p + i + 32), x);
		_mm_stream_si128((__m128i *)(p + i + 48), x);
	}
	_mm_sfence();
}
#endif

/* 64, 32 or 16: the vector width the kernels use here. */
static unsigned width(void)
{
	static unsigned w;

	if (!w) {
		w = 16;
#if defined(__x86_64__)
		__builtin_cpu_init();
		if (__builtin_cpu_supports("avx512f"))
			w = 64;
		else if (__builtin_cpu_supports("avx2"))
			w = 32;
#endif
	}
	return w;
}

unsigned ix_mem_vector_bytes(void)
{
	return width();
}

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
#if defined(__x86_64__)
	if (width() == 64)
		return read_v64(buf, len);
	if (width() == 32)
		return read_v32(buf, len);
#endif
	return read_v16(buf, len);
}

void ix_mem_write_pass(void *buf, size_t len, uint64_t v)
{
#if defined(__x86_64__)
	if (width() == 64)
		return write_v64(buf, len, v);
	if (width() == 32)
		return write_v32(buf, len, v);
#endif
	write_v16(buf, len, v);
}

bool ix_mem_ntwrite_pass(void *buf, size_t len, uint64_t v)
{
#if defined(__x86_64__)
	if (width() == 64)
		nt_v64(buf, len, v);
	else if (width() == 32)
		nt_v32(buf, len, v);
	else
		nt_v16(buf, len, v);
	return true;
#else
	(void)buf;
	(void)len;
	(void)v;
	return false;
#endif
}

void ix_mem_copy_pass(void *dst, const void *src, size_t len)
{
#if defined(__x86_64__)
	if (((uintptr_t)dst | (uintptr_t)src) % 64 == 0) {
		if (width() == 64)
			return copy_v64(dst, src, len);
		if (width() == 32)
			return copy_v32(dst, src, len);
		return copy_v16(dst, src, len);
	}
#endif
	memcpy(dst, src, len);
}

double ix_mem_pause_ns(void)
{
	static double ns;

	if (ns <= 0) {
		struct timespec a, b;
		uint64_t x = 0;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < 100000; i++)
#if defined(__x86_64__)
			_mm_pause();
#else
			__asm__ volatile("" : "+r"(x));
#endif
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e5;
		if (ns <= 0)
			ns = 1;
		(void)x;
	}
	return ns;
}

uint64_t ix_mem_read_delayed(const void *buf, size_t len, uint32_t delay)
{
	const uint64_t *p = buf;
	uint64_t x = 0;

	for (size_t i = 0; i < len / 8; i += WORDS) {
		for (int k = 0; k < WORDS; k++)
			x ^= p[i + k];
		/* A spin-wait pause, as Intel MLC's loaders wait: it leaves an
		 * SMT sibling's execution units to the chase on it. */
		for (uint32_t d = 0; d < delay; d++)
#if defined(__x86_64__)
			_mm_pause();
#else
			__asm__ volatile("" : "+r"(x));
#endif
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
