/* Unit tests for probes/rdma/peak.c: the hull search of perftest's BW peak
 * against perftest's own O(n^2) scan, on random marks. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "probes/rdma/engine.h"

static double peak_brute(const struct ix_rdma_mark *p, size_t np, const struct ix_rdma_mark *d,
			 size_t nd)
{
	double best = 0;

	for (size_t i = 0; i < np; i++)
		for (size_t j = 0; j < nd; j++) {
			double v;

			if (d[j].count <= p[i].count)
				continue;
			v = (double)(d[j].t_ns - p[i].t_ns) / (double)(d[j].count - p[i].count);
			if (best == 0 || v < best)
				best = v;
		}
	return best;
}

Test(rdma_peak, hull_search_matches_perftest_scan)
{
	uint64_t st = 88172645463325252ull;
	struct ix_rdma_mark p[300], d[300];

	for (int round = 0; round < 200; round++) {
		size_t np = 0, nd = 0;
		uint64_t posted = 0, done = 0;
		int64_t t = 0;

		/* A random run: bursts of posts, completions behind them. */
		while (np < 300 && nd < 300) {
			st ^= st << 13;
			st ^= st >> 7;
			st ^= st << 17;
			t += 1 + (int64_t)(st % 5000);
			if (posted == done || st % 3) {
				p[np++] = (struct ix_rdma_mark){ posted, t };
				posted += 1 + st % 40;
			} else {
				done += 1 + (st >> 8) % (posted - done);
				d[nd++] = (struct ix_rdma_mark){ done, t };
			}
		}
		cr_assert_float_eq(ix_rdma_peak_msg_ns(p, np, d, nd), peak_brute(p, np, d, nd),
				   1e-9, "round %d", round);
	}
	cr_assert_eq(ix_rdma_peak_msg_ns(p, 0, d, 3), 0);
}
