/* perftest's BW peak, computed in O(n log n): the least time per message
 * over any run of consecutive messages (see ix_rdma_peak_msg_ns in
 * engine.h). Pure arithmetic over the engine's time marks. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probes/rdma/engine.h"

/* > 0 when o -> a -> b turns left, x being the count and y the time. */
static __int128 cross(struct ix_rdma_mark o, struct ix_rdma_mark a, struct ix_rdma_mark b)
{
	return (__int128)((int64_t)a.count - (int64_t)o.count) * (b.t_ns - o.t_ns) -
	       (__int128)(a.t_ns - o.t_ns) * ((int64_t)b.count - (int64_t)o.count);
}

/* Time per message from A = (index, tposted) to Q = (count, tcompleted) is
 * the slope A -> Q. The line of least slope through Q has every A below it,
 * so it touches the A's upper hull, at the first vertex whose outgoing edge
 * does not pass above Q (edges pass Q lower and lower): a bisection. */
double ix_rdma_peak_msg_ns(const struct ix_rdma_mark *posts, size_t nposts,
			   const struct ix_rdma_mark *dones, size_t ndones)
{
	struct ix_rdma_mark *hull;
	size_t h = 0, p = 0;
	double best = 0;

	hull = nposts && ndones ? malloc(nposts * sizeof(*hull)) : NULL;
	if (!hull)
		return 0;
	for (size_t d = 0; d < ndones; d++) {
		struct ix_rdma_mark q = dones[d];
		size_t lo = 0, hi;
		double v;

		for (; p < nposts && posts[p].count < q.count; p++) {
			while (h >= 2 && cross(hull[h - 2], hull[h - 1], posts[p]) >= 0)
				h--;
			hull[h++] = posts[p];
		}
		if (h == 0)
			continue;
		for (hi = h - 1; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (cross(hull[mid], hull[mid + 1], q) >= 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		v = (double)(q.t_ns - hull[lo].t_ns) / (double)(q.count - hull[lo].count);
		if (best == 0 || v < best)
			best = v;
	}
	free(hull);
	return best;
}

void ix_rdma_marks_add(struct ix_rdma_marks *m, uint64_t count, int64_t t_ns)
{
	if (m->lost)
		return;
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		struct ix_rdma_mark *nv;

		if (ncap > IX_RDMA_PEAK_MAX_MARK)
			ncap = IX_RDMA_PEAK_MAX_MARK;
		nv = m->n < ncap ? realloc(m->v, ncap * sizeof(*nv)) : NULL;
		if (!nv) {
			m->lost = true;
			return;
		}
		m->v = nv;
		m->cap = ncap;
	}
	m->v[m->n++] = (struct ix_rdma_mark){ count, t_ns };
}

/* The thread whose next mark comes first (time, then thread); n if none. */
static size_t next_of(const struct ix_rdma_marks *in, const size_t *at, size_t n)
{
	size_t best = n;

	for (size_t i = 0; i < n; i++)
		if (at[i] < in[i].n &&
		    (best == n || in[i].v[at[i]].t_ns < in[best].v[at[best]].t_ns))
			best = i;
	return best;
}

/* One list merged: seen[i] is what thread i counts as of now (posts: its
 * WRs posted up to its next mark, or all of them; dones: its last count). */
static int merge_one(const struct ix_rdma_marks *in, const uint64_t *total, size_t n, bool dones,
		     struct ix_rdma_marks *out)
{
	size_t *at = calloc(n, sizeof(*at)), i;
	uint64_t *seen = calloc(n, sizeof(*seen)), sum = 0;

	if (!at || !seen) {
		free(at);
		free(seen);
		out->lost = true;
		return -1;
	}
	while ((i = next_of(in, at, n)) < n) {
		const struct ix_rdma_mark *m = &in[i].v[at[i]++];
		uint64_t now = dones ? m->count : at[i] < in[i].n ? in[i].v[at[i]].count : total[i];

		ix_rdma_marks_add(out, m->count + sum - seen[i], m->t_ns);
		sum += now - seen[i];
		seen[i] = now;
	}
	free(at);
	free(seen);
	return out->lost ? -1 : 0;
}

int ix_rdma_marks_merge(const struct ix_rdma_marks *posts, const struct ix_rdma_marks *dones,
			size_t n, struct ix_rdma_marks *out_posts, struct ix_rdma_marks *out_dones)
{
	uint64_t *total = calloc(n ? n : 1, sizeof(*total));
	int rc = 0;

	memset(out_posts, 0, sizeof(*out_posts));
	memset(out_dones, 0, sizeof(*out_dones));
	for (size_t i = 0; total && i < n; i++) {
		if (posts[i].lost || dones[i].lost)
			out_posts->lost = out_dones->lost = true;
		total[i] = dones[i].n ? dones[i].v[dones[i].n - 1].count : 0;
	}
	if (!total || out_posts->lost || merge_one(posts, total, n, false, out_posts) < 0 ||
	    merge_one(dones, total, n, true, out_dones) < 0)
		rc = -1;
	free(total);
	return rc;
}
