/*
 * memlat: a reference for ixperf mem's idle latency in make bench, written
 * apart from it after lmbench's lat_mem_rd (random order): a linked list
 * through SIZE MiB, one element per 64-byte line, visited in the order of
 * a Fisher-Yates shuffle; the time of a walk divided by its loads. Prints
 * nanoseconds per load. The buffer asks for transparent huge pages, as
 * ixperf mem's does.
 *
 *   cc -O2 -o memlat contrib/memlat.c && ./memlat 256 2
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	double secs = argc > 2 ? strtod(argv[2], NULL) : 2;
	size_t n = (mib << 20) / 64, *order, loads = 0;
	char *buf;
	void **p;
	uint64_t x = 88172645463325252ull;
	double t0, t1;

	if (!n || secs <= 0) {
		fprintf(stderr, "usage: memlat MiB SECONDS\n");
		return 2;
	}
	buf = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	order = malloc(n * sizeof(*order));
	if (buf == MAP_FAILED || !order) {
		perror("memlat");
		return 1;
	}
	madvise(buf, mib << 20, MADV_HUGEPAGE);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) { /* xorshift64 */
		size_t j, t;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		j = (size_t)(x % (i + 1));
		t = order[i], order[i] = order[j], order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + order[i] * 64) = buf + order[(i + 1) % n] * 64;
	free(order);
	p = (void **)buf;
	for (size_t i = 0; i < n; i++) /* one lap to warm the TLB and caches */
		p = *p;
	t0 = now();
	do {
		for (int i = 0; i < 100000; i++)
			p = *p;
		loads += 100000;
		t1 = now();
	} while (t1 - t0 < secs);
	printf("%.2f ns %p\n", (t1 - t0) * 1e9 / (double)loads, (void *)p);
	return 0;
}
