/* perftest's BW peak, computed in O(n log n): the least time per message
 * over any run of consecutive messages (see ix_rdma_peak_msg_ns in
 * engine.h). Pure arithmetic over the engine's time marks. */
#include "config.h"

#include <stdlib.h>

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
