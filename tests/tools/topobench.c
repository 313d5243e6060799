/* topobench ROOT [RUNS]: time topology discovery (ix_topo_read: the PCI
 * tree, links, RDMA ports, paths and findings, no rendering) over a sysfs
 * tree, RUNS times; prints the functions found and the median and worst
 * wall time in milliseconds. contrib/bench-topo.sh runs it on the large
 * fixture of tests/topo. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "probes/core/clock.h"
#include "probes/host/topo_check.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 20;
	double ms[1000];
	size_t n = 0, paths = 0;

	if (argc < 2 || runs < 1 || runs > 1000) {
		fprintf(stderr, "usage: topobench ROOT [RUNS]\n");
		return 2;
	}
	for (int i = 0; i < runs; i++) {
		struct ix_topo t;
		struct ix_err err = { 0 };
		int64_t t0 = ix_now_ns();

		if (ix_topo_read(argv[1], &t, &err) < 0) {
			fprintf(stderr, "topobench: %s\n", err.msg);
			return 1;
		}
		ms[i] = (double)(ix_now_ns() - t0) / 1e6;
		n = t.pci.n;
		paths = t.npath;
		ix_topo_free(&t);
	}
	qsort(ms, (size_t)runs, sizeof(ms[0]), cmp);
	printf("topology discovery: %zu PCI functions, %zu x %zu paths: median %.1f ms, worst "
	       "%.1f ms over %d runs\n",
	       n, paths, paths, ms[runs / 2], ms[runs - 1], runs);
	return 0;
}
