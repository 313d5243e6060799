#include "config.h"

#include "probes/coll/coll.h"

void ix_coll_shape(enum ix_coll_op op, size_t bytes, size_t dsize, int nranks,
		   struct ix_coll_shape *out)
{
	size_t n = nranks > 0 ? (size_t)nranks : 1;
	size_t count = dsize ? bytes / dsize : 0;
	size_t per = count / n; /* one rank's share */

	*out = (struct ix_coll_shape){ 0 };
	switch (op) {
	case IX_COLL_ALL_GATHER:
		out->count = per;
		out->send = per;
		out->recv = per * n;
		out->send_off = per; /* rank r's operand is its block of the result */
		out->alg_bytes = (double)per * (double)dsize * (double)n;
		break;
	case IX_COLL_REDUCE_SCATTER:
		out->count = per;
		out->send = per * n;
		out->recv = per;
		out->recv_off = per; /* rank r's result is its block of the operand */
		out->alg_bytes = (double)per * (double)dsize * (double)n;
		break;
	case IX_COLL_ALLTOALL:
		out->count = per;
		out->send = per * n;
		out->recv = per * n;
		out->alg_bytes = (double)per * (double)dsize * (double)n;
		break;
	default: /* all_reduce, broadcast, reduce, sendrecv: the whole array each */
		out->count = count;
		out->send = count;
		out->recv = count;
		out->alg_bytes = (double)count * (double)dsize;
		break;
	}
	out->row_bytes = (out->send > out->recv ? out->send : out->recv) * dsize;
}

double ix_coll_bus_factor(enum ix_coll_op op, int nranks)
{
	double n = nranks > 0 ? nranks : 1;

	switch (op) {
	case IX_COLL_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case IX_COLL_ALL_GATHER:
	case IX_COLL_REDUCE_SCATTER:
	case IX_COLL_ALLTOALL:
		return (n - 1) / n;
	default:
		return 1.0;
	}
}

int ix_coll_sizes(size_t min, size_t max, unsigned factor, size_t step, size_t *out, int max_out,
		  int *n, struct ix_err *err)
{
	*n = 0;
	if (min > max)
		return ix_fail(err, IX_EXIT_USAGE,
			       "the smallest size (-b %zu) is above the largest (-e %zu)", min,
			       max);
	if (factor > 1 && min == 0)
		return ix_fail(err, IX_EXIT_USAGE, "a sweep by a factor (-f) starts above 0 bytes");
	if (factor <= 1 && step == 0 && min < max)
		return ix_fail(err, IX_EXIT_USAGE,
			       "a sweep from -b to -e needs a factor (-f 2) or a step (-i BYTES)");
	for (size_t s = min; s <= max;) {
		if (*n == max_out)
			return ix_fail(err, IX_EXIT_USAGE,
				       "more than %d sizes from %zu to %zu bytes: widen the factor "
				       "(-f) or the step (-i)",
				       max_out, min, max);
		out[(*n)++] = s;
		if (s == max)
			break;
		if (factor > 1) {
			if (s > max / factor)
				break;
			s *= factor;
		} else {
			if (s > max - step)
				break;
			s += step;
		}
	}
	return 0;
}
