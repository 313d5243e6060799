#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/coll/run.h"
#include "probes/core/clock.h"

static double now_s(void)
{
	return (double)ix_now_ns() / IX_NSEC_PER_SEC;
}

static const struct ix_gpu_backend *BE(const struct ix_coll_run *R)
{
	return R->gpu->be;
}

/* Make local rank l's device current: its streams and events are of that
 * device's context. */
static int on(struct ix_coll_run *R, const struct ix_coll_local *l, struct ix_err *err)
{
	return BE(R)->use(R->gpu->g, l->device, err);
}

/* Every local rank's report says why the run stopped. */
static int stop(struct ix_coll_run *R, struct ix_err *err)
{
	for (int i = 0; i < R->nlocal; i++) {
		struct ix_coll_rank *rep = R->local[i].rep;
		if (!rep->error[0])
			snprintf(rep->error, sizeof(rep->error), "%s", err ? err->msg : "failed");
		rep->complete = false;
	}
	return -1;
}

static void abort_all(struct ix_coll_run *R)
{
	for (int i = 0; i < R->nlocal; i++) {
		ix_coll_lib_abort(R->lib, R->local[i].comm);
		R->local[i].comm = NULL;
	}
}

/* Wait until every local communicator is ready (after an init or a
 * non-blocking call), or the deadline: then abort them all. */
static int wait_ready(struct ix_coll_run *R, double deadline, const char *what, struct ix_err *err)
{
	for (;;) {
		int ready = 0;

		for (int i = 0; i < R->nlocal; i++) {
			int rc = ix_coll_lib_ready(R->lib, R->local[i].comm, err);
			if (rc < 0) {
				abort_all(R);
				return ix_fail_prefix(err, "rank %d: %s", R->local[i].rank, what);
			}
			ready += rc;
		}
		if (ready == R->nlocal)
			return 0;
		if (now_s() > deadline) {
			abort_all(R);
			return ix_fail(
				err, IX_EXIT_FAIL,
				"%s did not complete within %.0f s: a rank of the %d did not "
				"join or is stuck; the communicators were aborted",
				what, R->o->timeout_s, R->nranks);
		}
		sched_yield();
	}
}

/* Wait for every local stream's work, watching the communicators' errors,
 * at most until the deadline. */
static int wait_done(struct ix_coll_run *R, double deadline, struct ix_err *err)
{
	bool done[IX_COLL_MAX_LOCAL] = { false };
	int left = R->nlocal;

	while (left > 0) {
		for (int i = 0; i < R->nlocal; i++) {
			struct ix_coll_local *l = &R->local[i];
			int rc;

			if (done[i])
				continue;
			rc = on(R, l, err) < 0 ? -1 : BE(R)->stream_done(R->gpu->g, l->stream, err);
			if (rc < 0) {
				abort_all(R);
				return ix_fail_prefix(err, "rank %d", l->rank);
			}
			if (rc == 1) {
				done[i] = true;
				left--;
				continue;
			}
			if (ix_coll_lib_ready(R->lib, l->comm, err) < 0) {
				abort_all(R);
				return ix_fail_prefix(err, "rank %d", l->rank);
			}
		}
		if (left > 0 && now_s() > deadline) {
			abort_all(R);
			return ix_fail(err, IX_EXIT_FAIL,
				       "the collectives did not end within %.0f s: a rank hung or "
				       "left; the communicators were aborted",
				       R->o->timeout_s);
		}
		if (left > 0)
			sched_yield();
	}
	return 0;
}

int ix_coll_run_join(struct ix_coll_run *R, struct ix_coll_lib *lib, struct ix_gpu_ctx *gpu,
		     const struct ix_coll_opts *o, int nranks, const uint8_t id[IX_COLL_ID_BYTES],
		     int nlocal, const int *ranks, const int *devices, struct ix_coll_rank *reps,
		     struct ix_err *err)
{
	double deadline = now_s() + o->timeout_s;

	memset(R, 0, sizeof(*R));
	R->lib = lib;
	R->gpu = gpu;
	R->o = o;
	R->nranks = nranks;
	if (nlocal < 1 || nlocal > IX_COLL_MAX_LOCAL)
		return ix_fail(err, IX_EXIT_USAGE, "%d ranks in one process: 1 to %d", nlocal,
			       IX_COLL_MAX_LOCAL);
	if (!gpu->be->use || !gpu->be->stream_new || !gpu->be->event_new)
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "the %s GPU backend cannot carry a collective library's work",
			       gpu->be->name);
	R->nlocal = nlocal;
	for (int i = 0; i < nlocal; i++) {
		R->local[i].rank = ranks[i];
		R->local[i].device = devices[i];
		R->local[i].rep = &reps[i];
	}
	if (nlocal > 1 && ix_coll_lib_group(lib, true, err) < 0)
		return stop(R, err);
	for (int i = 0; i < nlocal; i++) {
		struct ix_coll_local *l = &R->local[i];
		if (gpu->be->use(gpu->g, l->device, err) < 0 ||
		    ix_coll_lib_init(lib, &l->comm, nranks, id, l->rank, err) < 0) {
			if (nlocal > 1)
				ix_coll_lib_group(lib, false, NULL);
			abort_all(R);
			return stop(R, err);
		}
	}
	if (nlocal > 1 && ix_coll_lib_group(lib, false, err) < 0) {
		abort_all(R);
		return stop(R, err);
	}
	if (wait_ready(R, deadline, "making the communicator", err) < 0)
		return stop(R, err);
	for (int i = 0; i < nlocal; i++)
		R->local[i].rep->joined = true;
	return 0;
}

/* --- Buffers -------------------------------------------------------------- */

static int setup(struct ix_coll_run *R, struct ix_err *err)
{
	const struct ix_coll_opts *o = R->o;
	size_t dsize = ix_coll_dtype_size(o->dtype);
	struct ix_coll_shape sh;

	ix_coll_shape(o->op, o->sizes[o->nsizes - 1], dsize, R->nranks, &sh);
	R->bytes = sh.row_bytes > dsize ? sh.row_bytes : dsize;
	R->host = malloc(R->bytes);
	if (!R->host)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory (%zu bytes)", R->bytes);
	for (int i = 0; i < R->nlocal; i++) {
		struct ix_coll_local *l = &R->local[i];
		const struct ix_gpu_backend *be = BE(R);
		struct ix_gpu *g = R->gpu->g;

		if (be->stream_new(g, l->device, &l->stream, err) < 0 ||
		    be->alloc(g, IX_GPU_MEM_DEVICE, l->device, R->bytes, &l->send, err) < 0 ||
		    be->alloc(g, IX_GPU_MEM_DEVICE, l->device, R->bytes, &l->recv, err) < 0 ||
		    be->alloc(g, IX_GPU_MEM_DEVICE, l->device, 8, &l->tiny_send, err) < 0 ||
		    be->alloc(g, IX_GPU_MEM_DEVICE, l->device, 8, &l->tiny_recv, err) < 0)
			return ix_fail_prefix(err, "rank %d", l->rank);
		if (be->fill(g, &l->tiny_send, 0, err) < 0)
			return -1;
		l->ev = calloc(o->iters + 1, sizeof(*l->ev));
		if (!l->ev)
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		for (unsigned k = 0; k <= o->iters; k++)
			if (be->event_new(g, l->device, &l->ev[k], err) < 0)
				return -1;
		/* Data the reductions cannot trip on (no NaN, no denormals). */
		ix_coll_data_fill(o->op, o->redop, o->dtype, R->nranks, l->rank, R->host,
				  R->bytes / dsize);
		if (be->upload(g, &l->send, 0, R->host, R->bytes, err) < 0 ||
		    be->upload(g, &l->recv, 0, R->host, R->bytes, err) < 0)
			return -1;
	}
	return 0;
}

/* --- Launching -------------------------------------------------------------- */

/* A non-blocking communicator may take a call in progress: the next call
 * waits until the library says it is queued. */
static int settle(struct ix_coll_run *R, struct ix_err *err)
{
	return wait_ready(R, now_s() + R->o->timeout_s, "queuing a collective", err);
}

/* Queue one collective of shape sh on every local rank (in a group when
 * there are several), placed out-of-place or in-place. */
static int launch(struct ix_coll_run *R, const struct ix_coll_shape *sh, enum ix_coll_place p,
		  int k, struct ix_err *err)
{
	const struct ix_coll_opts *o = R->o;
	size_t dsize = ix_coll_dtype_size(o->dtype);

	if (R->nlocal > 1 && ix_coll_lib_group(R->lib, true, err) < 0)
		return -1;
	for (int i = 0; i < R->nlocal; i++) {
		struct ix_coll_local *l = &R->local[i];
		uint64_t send = l->send.dev, recv = l->recv.dev;

		if (on(R, l, err) < 0 ||
		    (k >= 0 && BE(R)->event_record(R->gpu->g, l->ev[k], l->stream, err) < 0))
			return -1;
		if (p == IX_COLL_IN_PLACE) {
			send = l->recv.dev + (uint64_t)sh->send_off * (uint64_t)l->rank * dsize;
			recv = l->recv.dev + (uint64_t)sh->recv_off * (uint64_t)l->rank * dsize;
		}
		if (ix_coll_lib_launch(R->lib, o->op, o->dtype, o->redop, o->root, send, recv, sh,
				       l->rank, R->nranks, l->comm, l->stream, err) < 0)
			return ix_fail_prefix(err, "rank %d", l->rank);
	}
	if (R->nlocal > 1 && ix_coll_lib_group(R->lib, false, err) < 0)
		return -1;
	return settle(R, err);
}

/* Every rank of the job past this point: a one-element all_reduce, waited
 * for. */
static int barrier(struct ix_coll_run *R, struct ix_err *err)
{
	struct ix_coll_shape sh = { .count = 1, .send = 1, .recv = 1 };

	if (R->nlocal > 1 && ix_coll_lib_group(R->lib, true, err) < 0)
		return -1;
	for (int i = 0; i < R->nlocal; i++) {
		struct ix_coll_local *l = &R->local[i];
		if (on(R, l, err) < 0 ||
		    ix_coll_lib_launch(R->lib, IX_COLL_ALL_REDUCE, IX_COLL_INT32, IX_COLL_SUM, 0,
				       l->tiny_send.dev, l->tiny_recv.dev, &sh, l->rank, R->nranks,
				       l->comm, l->stream, err) < 0)
			return -1;
	}
	if (R->nlocal > 1 && ix_coll_lib_group(R->lib, false, err) < 0)
		return -1;
	return settle(R, err) < 0 ? -1 : wait_done(R, now_s() + R->o->timeout_s, err);
}

static int warmup(struct ix_coll_run *R, size_t bytes, struct ix_err *err)
{
	struct ix_coll_shape sh;

	ix_coll_shape(R->o->op, bytes, ix_coll_dtype_size(R->o->dtype), R->nranks, &sh);
	for (unsigned k = 0; k < R->o->warmup; k++)
		if (launch(R, &sh, IX_COLL_OUT_OF_PLACE, -1, err) < 0)
			return -1;
	return wait_done(R, now_s() + R->o->timeout_s, err);
}

/* --- One row ---------------------------------------------------------------- */

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* The iterations' event times of local rank l into its cell; kept in
 * order in its report when keep. */
static int iter_times(struct ix_coll_run *R, struct ix_coll_local *l, struct ix_coll_rank_cell *c,
		      bool keep, struct ix_err *err)
{
	unsigned n = R->o->iters;
	float *t = calloc(n, sizeof(*t));

	if (!t)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (on(R, l, err) < 0) {
		free(t);
		return -1;
	}
	for (unsigned k = 0; k < n; k++) {
		float ms = 0;
		if (BE(R)->event_ms(R->gpu->g, l->ev[k], l->ev[k + 1], &ms, err) < 0) {
			free(t);
			return -1;
		}
		t[k] = ms * 1000.0f;
	}
	if (keep) {
		l->rep->niter = n < IX_COLL_MAX_ITERS ? n : IX_COLL_MAX_ITERS;
		memcpy(l->rep->iter_us, t, l->rep->niter * sizeof(*t));
	}
	qsort(t, n, sizeof(*t), cmp_float);
	c->dev_min_us = t[0];
	c->dev_max_us = t[n - 1];
	c->dev_med_us = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2.0;
	free(t);
	return 0;
}

/* The check: known data in, one collective, every element compared. */
static int check(struct ix_coll_run *R, const struct ix_coll_shape *sh, enum ix_coll_place p,
		 int row, struct ix_err *err)
{
	const struct ix_coll_opts *o = R->o;
	size_t dsize = ix_coll_dtype_size(o->dtype);

	for (int i = 0; i < R->nlocal; i++) {
		struct ix_coll_local *l = &R->local[i];
		const struct ix_gpu_buf *in = p == IX_COLL_IN_PLACE ? &l->recv : &l->send;
		size_t off = p == IX_COLL_IN_PLACE ? sh->send_off * (size_t)l->rank * dsize : 0;

		memset(R->host, 0, R->bytes);
		if (BE(R)->upload(R->gpu->g, &l->recv, 0, R->host, R->bytes, err) < 0)
			return -1;
		ix_coll_data_fill(o->op, o->redop, o->dtype, R->nranks, l->rank, R->host, sh->send);
		if (sh->send &&
		    BE(R)->upload(R->gpu->g, in, off, R->host, sh->send * dsize, err) < 0)
			return -1;
	}
	if (launch(R, sh, p, -1, err) < 0 || wait_done(R, now_s() + o->timeout_s, err) < 0)
		return -1;
	for (int i = 0; i < R->nlocal; i++) {
		struct ix_coll_local *l = &R->local[i];
		struct ix_coll_rank_cell *c = &l->rep->cell[row][p];
		size_t off = p == IX_COLL_IN_PLACE ? sh->recv_off * (size_t)l->rank * dsize : 0;
		size_t first = 0;

		if (sh->recv &&
		    BE(R)->download(R->gpu->g, R->host, &l->recv, off, sh->recv * dsize, err) < 0)
			return -1;
		c->wrong = (int64_t)ix_coll_data_check(o->op, o->redop, o->dtype, R->nranks,
						       l->rank, o->root, sh, R->host, &first);
		c->first_wrong = first;
	}
	return 0;
}

static int row(struct ix_coll_run *R, int r, enum ix_coll_place p, bool keep, struct ix_err *err)
{
	const struct ix_coll_opts *o = R->o;
	struct ix_coll_shape sh;
	double t0, t;

	ix_coll_shape(o->op, o->sizes[r], ix_coll_dtype_size(o->dtype), R->nranks, &sh);
	/* One to line the ranks up, then every rank starts together. */
	if (launch(R, &sh, p, -1, err) < 0 || wait_done(R, now_s() + o->timeout_s, err) < 0 ||
	    barrier(R, err) < 0)
		return -1;
	t0 = now_s();
	for (unsigned k = 0; k < o->iters; k++)
		if (launch(R, &sh, p, (int)k, err) < 0)
			return -1;
	for (int i = 0; i < R->nlocal; i++)
		if (on(R, &R->local[i], err) < 0 ||
		    BE(R)->event_record(R->gpu->g, R->local[i].ev[o->iters], R->local[i].stream,
					err) < 0)
			return -1;
	if (wait_done(R, t0 + o->timeout_s, err) < 0)
		return -1;
	t = now_s() - t0;
	for (int i = 0; i < R->nlocal; i++) {
		struct ix_coll_local *l = &R->local[i];
		struct ix_coll_rank_cell *c = &l->rep->cell[r][p];

		c->host_us = t * 1e6 / o->iters;
		c->wrong = -1;
		if (iter_times(R, l, c, keep, err) < 0)
			return -1;
	}
	if (o->check && ix_coll_checkable(o->op, p) && check(R, &sh, p, r, err) < 0)
		return -1;
	for (int i = 0; i < R->nlocal; i++)
		R->local[i].rep->cell[r][p].measured = true;
	return 0;
}

int ix_coll_run_sweep(struct ix_coll_run *R, struct ix_err *err)
{
	const struct ix_coll_opts *o = R->o;
	int last = o->nsizes - 1;

	if (setup(R, err) < 0 || warmup(R, o->sizes[last], err) < 0 ||
	    warmup(R, o->sizes[0], err) < 0)
		return stop(R, err);
	for (int r = 0; r < o->nsizes; r++) {
		for (int p = 0; p < IX_COLL_NPLACES; p++) {
			bool keep = r == last &&
				    (p == IX_COLL_OUT_OF_PLACE || !o->places[IX_COLL_OUT_OF_PLACE]);
			if (!o->places[p])
				continue;
			if (row(R, r, (enum ix_coll_place)p, keep, err) < 0) {
				ix_fail_prefix(err, "%s, %zu bytes, %s", ix_coll_op_name(o->op),
					       o->sizes[r],
					       ix_coll_place_name((enum ix_coll_place)p));
				return stop(R, err);
			}
		}
		for (int i = 0; i < R->nlocal; i++)
			R->local[i].rep->nrows = r + 1;
	}
	for (int i = 0; i < R->nlocal; i++)
		R->local[i].rep->complete = true;
	return 0;
}

/* --- The pair scan ---------------------------------------------------------- */

/* The pairs of the ring: (p, p + 1 mod n), one for 2 ranks. */
static int npairs(int n)
{
	return n < 2 ? 0 : n == 2 ? 1 : n;
}

/* Which step pair p runs in: even pairs, then odd, then (n odd) the last,
 * which shares rank 0 with pair 0; one pair a step when a process holds
 * several ranks. */
static int step_of(const struct ix_coll_run *R, int p)
{
	if (R->nlocal > 1)
		return p;
	if (R->nranks % 2 && p == R->nranks - 1)
		return 2;
	return p % 2;
}

static int nsteps(const struct ix_coll_run *R)
{
	if (R->nlocal > 1)
		return npairs(R->nranks);
	return R->nranks % 2 && R->nranks > 2 ? 3 : R->nranks > 2 ? 2 : 1;
}

/* The pair this local rank is in at step s (its peer in *peer), or -1. */
static int pair_at(const struct ix_coll_run *R, int rank, int s, int *peer)
{
	int n = R->nranks, np = npairs(n);

	for (int p = 0; p < np; p++) {
		int a = p, b = (p + 1) % n;
		if (step_of(R, p) != s || (rank != a && rank != b))
			continue;
		*peer = rank == a ? b : a;
		return p;
	}
	return -1;
}

static int exchange_all(struct ix_coll_run *R, int s, size_t count, struct ix_err *err)
{
	if (R->nlocal > 1 && ix_coll_lib_group(R->lib, true, err) < 0)
		return -1;
	for (int i = 0; i < R->nlocal; i++) {
		struct ix_coll_local *l = &R->local[i];
		int peer;

		if (pair_at(R, l->rank, s, &peer) < 0)
			continue;
		if (on(R, l, err) < 0 ||
		    ix_coll_lib_exchange(R->lib, R->o->dtype, l->send.dev, l->recv.dev, count, peer,
					 l->comm, l->stream, err) < 0)
			return -1;
	}
	if (R->nlocal > 1 && ix_coll_lib_group(R->lib, false, err) < 0)
		return -1;
	return settle(R, err);
}

int ix_coll_run_pairs(struct ix_coll_run *R, struct ix_err *err)
{
	const struct ix_coll_opts *o = R->o;
	size_t dsize = ix_coll_dtype_size(o->dtype), count = R->bytes / dsize;
	unsigned iters = o->pair_iters ? o->pair_iters : 5;

	if (npairs(R->nranks) == 0 || count == 0)
		return 0;
	for (int s = 0; s < nsteps(R); s++) {
		double t0, t;
		bool in = false;

		for (int i = 0; i < R->nlocal; i++) {
			int peer;
			in |= pair_at(R, R->local[i].rank, s, &peer) >= 0;
		}
		if (barrier(R, err) < 0)
			return stop(R, err);
		if (in) {
			if (exchange_all(R, s, count, err) < 0 ||
			    wait_done(R, now_s() + o->timeout_s, err) < 0)
				return stop(R, err);
			t0 = now_s();
			for (unsigned k = 0; k < iters; k++)
				if (exchange_all(R, s, count, err) < 0)
					return stop(R, err);
			if (wait_done(R, t0 + o->timeout_s, err) < 0)
				return stop(R, err);
			t = now_s() - t0;
			for (int i = 0; i < R->nlocal; i++) {
				int peer, p = pair_at(R, R->local[i].rank, s, &peer);
				if (p == R->local[i].rank && t > 0)
					R->local[i].rep->pair_bps =
						(double)count * (double)dsize * iters / t;
			}
		}
	}
	return barrier(R, err) < 0 ? stop(R, err) : 0;
}

void ix_coll_run_end(struct ix_coll_run *R)
{
	const struct ix_gpu_backend *be = R->gpu ? R->gpu->be : NULL;

	for (int i = 0; i < R->nlocal; i++) {
		struct ix_coll_local *l = &R->local[i];

		if (l->comm)
			ix_coll_lib_destroy(R->lib, l->comm);
		l->comm = NULL;
		if (!be)
			continue;
		if (l->ev) {
			for (unsigned k = 0; k <= R->o->iters; k++)
				if (l->ev[k])
					be->event_free(R->gpu->g, l->device, l->ev[k]);
			free(l->ev);
			l->ev = NULL;
		}
		if (l->stream)
			be->stream_free(R->gpu->g, l->device, l->stream);
		l->stream = NULL;
		be->free(R->gpu->g, &l->send);
		be->free(R->gpu->g, &l->recv);
		be->free(R->gpu->g, &l->tiny_send);
		be->free(R->gpu->g, &l->tiny_recv);
	}
	free(R->host);
	R->host = NULL;
}
