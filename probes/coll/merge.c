#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probes/coll/merge.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the n values v (sorted in place); 0 when n is 0. */
static double median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* --- Rows ------------------------------------------------------------------- */

static void merge_cell(struct ix_coll_result *res, int row, int p)
{
	const struct ix_coll_opts *o = &res->opts;
	struct ix_coll_cell *c = &res->rows[row].cell[p];
	struct ix_coll_shape sh;
	double sum = 0;

	*c = (struct ix_coll_cell){ .wrong = o->check ? 0 : -1, .first_wrong_rank = -1 };
	if (!o->places[p])
		return;
	for (int r = 0; r < res->nranks; r++) {
		const struct ix_coll_rank *k = &res->ranks[r];
		const struct ix_coll_rank_cell *rc = &k->cell[row][p];

		if (row >= k->nrows || !rc->measured)
			return; /* a figure of some ranks only would mislead */
	}
	for (int r = 0; r < res->nranks; r++) {
		const struct ix_coll_rank_cell *rc = &res->ranks[r].cell[row][p];

		sum += rc->host_us;
		if (r == 0 || rc->host_us < c->rank_min_us)
			c->rank_min_us = rc->host_us;
		if (r == 0 || rc->host_us > c->rank_max_us)
			c->rank_max_us = rc->host_us;
		if (c->wrong < 0)
			continue;
		if (rc->wrong < 0) {
			c->wrong = -1;
			continue;
		}
		c->wrong += rc->wrong;
		if (rc->wrong > 0) {
			c->wrong_ranks++;
			if (c->first_wrong_rank < 0)
				c->first_wrong_rank = r;
		}
	}
	c->measured = true;
	c->time_us = sum / res->nranks;
	ix_coll_shape(o->op, o->sizes[row], ix_coll_dtype_size(o->dtype), res->nranks, &sh);
	c->algbw = c->time_us > 0 ? sh.alg_bytes / (c->time_us * 1e-6) : 0;
	c->busbw = c->algbw * res->bus_factor;
}

static void merge_rows(struct ix_coll_result *res)
{
	const struct ix_coll_opts *o = &res->opts;
	double bw = 0;
	int nbw = 0;

	res->nrows = o->nsizes;
	res->wrong = o->check ? 0 : -1;
	for (int i = 0; i < o->nsizes; i++) {
		struct ix_coll_shape sh;

		ix_coll_shape(o->op, o->sizes[i], ix_coll_dtype_size(o->dtype), res->nranks, &sh);
		res->rows[i].bytes = sh.row_bytes;
		res->rows[i].count = sh.count;
		for (int p = 0; p < IX_COLL_NPLACES; p++) {
			const struct ix_coll_cell *c = &res->rows[i].cell[p];

			merge_cell(res, i, p);
			if (!c->measured)
				continue;
			bw += c->busbw;
			nbw++;
			if (res->wrong >= 0 && c->wrong > 0)
				res->wrong += c->wrong; /* a cell not checked adds nothing */
		}
	}
	res->avg_busbw = nbw ? bw / nbw : 0;
}

/* --- The pair scan's verdict ------------------------------------------------- */

static bool same_node(const struct ix_coll_result *res, int a, int b)
{
	return strcmp(res->ranks[a].node, res->ranks[b].node) == 0;
}

static bool same_kind(const struct ix_coll_result *res, const struct ix_coll_pair *x,
		      const struct ix_coll_pair *y)
{
	return same_node(res, x->a, x->b) == same_node(res, y->a, y->b);
}

/* The median of the measured pairs of x's kind (within a node, or across)
 * that share no rank with skip_a or skip_b (-1: none skipped), into *m; the
 * number of such pairs. */
static int others_median(const struct ix_coll_result *res, const struct ix_coll_pair *x, int skip_a,
			 int skip_b, double *v, double *m)
{
	int n = 0;

	for (int i = 0; i < res->npairs; i++) {
		const struct ix_coll_pair *y = &res->pairs[i];

		if (y == x || y->bps <= 0 || !same_kind(res, x, y))
			continue;
		if ((skip_a >= 0 && (y->a == skip_a || y->b == skip_a)) ||
		    (skip_b >= 0 && (y->a == skip_b || y->b == skip_b)))
			continue;
		v[n++] = y->bps;
	}
	*m = median(v, n);
	return n;
}

static void judge_pairs(struct ix_coll_result *res)
{
	struct ix_coll_verdict *v = &res->verdict;
	int n = res->nranks, slow[2] = { -1, -1 };
	double *tmp = calloc((size_t)res->npairs + 1, sizeof(*tmp)), all_med;
	int nall = 0;

	if (!tmp)
		return;
	for (int i = 0; i < res->npairs; i++)
		if (res->pairs[i].bps > 0)
			tmp[nall++] = res->pairs[i].bps;
	all_med = median(tmp, nall);
	v->median_bps = all_med;
	/* A link is slow against the other links of its kind. */
	for (int i = 0; i < res->npairs; i++) {
		struct ix_coll_pair *x = &res->pairs[i];
		double m;

		if (x->bps <= 0 || others_median(res, x, -1, -1, tmp, &m) == 0)
			continue;
		x->slow = x->bps < IX_COLL_SLOW_SHARE * m;
		if (!x->slow)
			continue;
		if (v->slow_pairs < 2)
			slow[v->slow_pairs] = i;
		v->slow_pairs++;
	}
	if (v->slow_pairs == 0) {
		free(tmp);
		return;
	}
	/* Both links of one rank: that rank, when its links are slow against
	 * the links that do not touch it. */
	if (v->slow_pairs == 2 && n >= 3) {
		const struct ix_coll_pair *x = &res->pairs[slow[0]], *y = &res->pairs[slow[1]];
		int r = x->a == y->a || x->a == y->b   ? x->a
			: x->b == y->a || x->b == y->b ? x->b
						       : -1;
		double m;

		if (r >= 0 && others_median(res, x, r, -1, tmp, &m) > 0 && m > 0 &&
		    (x->bps + y->bps) / 2 < IX_COLL_SLOW_SHARE * m) {
			v->culprit = IX_COLL_RANK;
			v->rank = r;
			v->share = (x->bps + y->bps) / 2 / m;
			free(tmp);
			return;
		}
	}
	if (v->slow_pairs == 1) {
		const struct ix_coll_pair *x = &res->pairs[slow[0]];
		double m;

		others_median(res, x, -1, -1, tmp, &m);
		v->culprit = IX_COLL_LINK;
		v->rank = x->a;
		v->rank_b = x->b;
		v->share = m > 0 ? x->bps / m : 0;
	} else {
		v->culprit = IX_COLL_MANY;
	}
	free(tmp);
}

static void merge_pairs(struct ix_coll_result *res)
{
	int n = res->nranks, np = n < 2 ? 0 : n == 2 ? 1 : n;

	res->npairs = 0;
	if (!res->opts.pair_scan || np == 0)
		return;
	res->pairs = calloc((size_t)np, sizeof(*res->pairs));
	if (!res->pairs)
		return;
	res->npairs = np;
	for (int p = 0; p < np; p++) {
		res->pairs[p].a = p;
		res->pairs[p].b = (p + 1) % n;
		res->pairs[p].bps = res->ranks[p].pair_bps;
	}
	judge_pairs(res);
}

/* --- The rank the others wait for ------------------------------------------- */

/* In each iteration of the largest row, the rank whose own time was the
 * shortest arrived last: the others' times hold their wait for it. */
static void judge_late(struct ix_coll_result *res)
{
	struct ix_coll_verdict *v = &res->verdict;
	unsigned niter = res->nranks > 0 ? res->ranks[0].niter : 0;
	unsigned *late = NULL;
	double *wait = NULL, *t = NULL;

	v->late_rank = -1;
	if (res->nranks < 2 || niter < IX_COLL_LATE_MIN_ITERS)
		return;
	for (int r = 0; r < res->nranks; r++)
		if (res->ranks[r].niter != niter)
			return;
	late = calloc((size_t)res->nranks, sizeof(*late));
	wait = calloc((size_t)res->nranks, sizeof(*wait));
	t = calloc((size_t)res->nranks, sizeof(*t));
	if (!late || !wait || !t)
		goto out;
	for (unsigned k = 0; k < niter; k++) {
		int lo = 0;
		double med;

		for (int r = 0; r < res->nranks; r++) {
			t[r] = res->ranks[r].iter_us[k];
			if (t[r] < res->ranks[lo].iter_us[k])
				lo = r;
		}
		med = median(t, res->nranks);
		if (med > 0 && med - res->ranks[lo].iter_us[k] > IX_COLL_LATE_SHARE * med) {
			late[lo]++;
			wait[lo] += med - res->ranks[lo].iter_us[k];
		}
	}
	for (int r = 0; r < res->nranks; r++)
		if (late[r] * 2 >= niter && (v->late_rank < 0 || late[r] > v->late_iters)) {
			v->late_rank = r;
			v->late_iters = late[r];
			v->late_us = wait[r] / late[r];
		}
out:
	free(late);
	free(wait);
	free(t);
}

void ix_coll_merge(struct ix_coll_result *res)
{
	int nodes = 0;

	/* From the reports alone, each time: nothing of an earlier merge kept. */
	free(res->pairs);
	res->pairs = NULL;
	res->npairs = 0;
	memset(&res->verdict, 0, sizeof(res->verdict));
	res->bus_factor = ix_coll_bus_factor(res->opts.op, res->nranks);
	res->complete = res->missing == 0;
	for (int r = 0; r < res->nranks; r++) {
		bool seen = false;

		res->complete &= res->ranks[r].complete;
		for (int q = 0; q < r && !seen; q++)
			seen = same_node(res, q, r);
		nodes += !seen;
	}
	res->nnodes = nodes;
	merge_rows(res);
	merge_pairs(res);
	judge_late(res);
	ix_coll_ceiling(res);
}
