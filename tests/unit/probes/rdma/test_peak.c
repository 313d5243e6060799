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

/* Two threads' marks as one run's: each mark adds what the other thread
 * had posted (whole bursts) or completed by then. */
Test(rdma_peak, marks_of_threads_merge_in_one_posting_order)
{
	struct ix_rdma_mark p0[] = { { 0, 0 }, { 4, 10 } }, p1[] = { { 0, 5 } };
	struct ix_rdma_mark d0[] = { { 4, 20 }, { 8, 30 } }, d1[] = { { 4, 25 } };
	struct ix_rdma_marks posts[] = { { p0, 2, 2, false }, { p1, 1, 1, false } };
	struct ix_rdma_marks dones[] = { { d0, 2, 2, false }, { d1, 1, 1, false } };
	struct ix_rdma_marks p, d;
	const struct ix_rdma_mark wp[] = { { 0, 0 }, { 4, 5 }, { 8, 10 } };
	const struct ix_rdma_mark wd[] = { { 4, 20 }, { 8, 25 }, { 12, 30 } };

	cr_assert_eq(ix_rdma_marks_merge(posts, dones, 2, &p, &d), 0);
	cr_assert_eq(p.n, 3);
	cr_assert_eq(d.n, 3);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(p.v[i].count, wp[i].count, "post %zu: %llu", i,
			     (unsigned long long)p.v[i].count);
		cr_assert_eq(p.v[i].t_ns, wp[i].t_ns);
		cr_assert_eq(d.v[i].count, wd[i].count, "done %zu: %llu", i,
			     (unsigned long long)d.v[i].count);
		cr_assert_eq(d.v[i].t_ns, wd[i].t_ns);
	}
	/* 12 messages from the first post at 0 to the last completion at 30 */
	cr_assert_float_eq(ix_rdma_peak_msg_ns(p.v, p.n, d.v, d.n), 2.5, 1e-9);
	free(p.v);
	free(d.v);
}

/* Marks of equal time go in thread order, and the merged post indexes
 * still rise strictly (the hull search needs them to). */
Test(rdma_peak, merged_posts_rise_strictly)
{
	struct ix_rdma_mark p0[] = { { 0, 7 }, { 3, 9 } }, p1[] = { { 0, 7 }, { 2, 9 } };
	struct ix_rdma_mark d0[] = { { 5, 12 } }, d1[] = { { 4, 12 } };
	struct ix_rdma_marks posts[] = { { p0, 2, 2, false }, { p1, 2, 2, false } };
	struct ix_rdma_marks dones[] = { { d0, 1, 1, false }, { d1, 1, 1, false } };
	struct ix_rdma_marks p, d;

	cr_assert_eq(ix_rdma_marks_merge(posts, dones, 2, &p, &d), 0);
	cr_assert_eq(p.n, 4);
	for (size_t i = 1; i < p.n; i++)
		cr_assert_gt(p.v[i].count, p.v[i - 1].count, "post %zu", i);
	cr_assert_eq(d.v[d.n - 1].count, 9, "every WR of both threads done");
	free(p.v);
	free(d.v);
}

Test(rdma_peak, a_lost_list_loses_the_merge)
{
	struct ix_rdma_mark m[] = { { 0, 1 } };
	struct ix_rdma_marks posts[] = { { m, 1, 1, false }, { NULL, 0, 0, true } };
	struct ix_rdma_marks dones[] = { { m, 1, 1, false }, { m, 1, 1, false } };
	struct ix_rdma_marks p, d;

	cr_assert_eq(ix_rdma_marks_merge(posts, dones, 2, &p, &d), -1);
	cr_assert(p.lost);
	free(p.v);
	free(d.v);
}
