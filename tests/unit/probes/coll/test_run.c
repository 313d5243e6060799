/* Unit tests for probes/coll/run.c, one process's ranks, over the SIMULATED
 * CUDA driver and NCCL of tests/gpu/ (IX_FAKECUDA, IX_FAKENCCL): two ranks
 * on the fake's two GPUs run a sweep of every collective and both
 * placements, the check finds every element right (and the one the fake is
 * told to corrupt), the pair scan measures the ring's link, every stream,
 * event, buffer and communicator is released; a job whose third rank never
 * joins ends at the timeout, naming why. No time is checked: the fakes run
 * no GPU. */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/merge.h"
#include "probes/coll/run.h"

struct env {
	struct ix_gpu_ctx gpu;
	struct ix_coll_lib *lib;
	struct ix_coll_lib_info info;
	struct ix_coll_opts o;
	struct ix_coll_rank rep[2];
	struct ix_err err;
};

static long *counter(const char *lib, const char *name)
{
	void *dl = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
	long *p = dl ? dlsym(dl, name) : NULL;

	cr_assert_not_null(p, "%s in %s", name, lib);
	return p;
}

static struct env *open_env(enum ix_coll_op op)
{
	const char *cuda = getenv("IX_FAKECUDA"), *nccl = getenv("IX_FAKENCCL");
	struct env *e = calloc(1, sizeof(*e));

	if (!cuda || !*cuda || !nccl || !*nccl)
		cr_skip_test("IX_FAKECUDA or IX_FAKENCCL is not set: run under make check");
	cr_assert_eq(ix_gpu_open(&e->gpu, "cuda", cuda, &e->err), 0, "%s", e->err.msg);
	cr_assert_eq(ix_coll_lib_open(&e->lib, NULL, "cuda", nccl, &e->info, &e->err), 0, "%s",
		     e->err.msg);
	e->o.op = op;
	e->o.dtype = IX_COLL_FLOAT32;
	e->o.redop = IX_COLL_SUM;
	e->o.sizes[0] = 1024;
	e->o.sizes[1] = 16384;
	e->o.nsizes = 2;
	e->o.iters = 3;
	e->o.warmup = 1;
	e->o.check = true;
	e->o.places[0] = e->o.places[1] = true;
	e->o.pair_scan = true;
	e->o.pair_iters = 2;
	e->o.timeout_s = 10;
	for (int i = 0; i < 2; i++)
		e->rep[i].rank = i;
	return e;
}

static void close_env(struct env *e)
{
	ix_coll_lib_close(e->lib);
	ix_gpu_close(&e->gpu);
	free(e);
}

/* Two ranks, one a GPU: join, sweep, pairs, end. */
static int run2(struct env *e)
{
	struct ix_coll_run R;
	uint8_t id[IX_COLL_ID_BYTES];
	int ranks[2] = { 0, 1 }, devs[2] = { 0, 1 }, rc;

	cr_assert_eq(ix_coll_lib_unique_id(e->lib, id, &e->err), 0);
	rc = ix_coll_run_join(&R, e->lib, &e->gpu, &e->o, 2, id, 2, ranks, devs, e->rep, &e->err);
	if (rc == 0) {
		rc = ix_coll_run_sweep(&R, &e->err);
		if (rc == 0)
			rc = ix_coll_run_pairs(&R, &e->err);
		ix_coll_run_end(&R);
	}
	return rc;
}

Test(run, every_collective_checked)
{
	for (int op = 0; op < IX_COLL_NOPS; op++) {
		struct env *e = open_env((enum ix_coll_op)op);

		cr_assert_eq(run2(e), 0, "%s: %s", ix_coll_op_name(e->o.op), e->err.msg);
		for (int r = 0; r < 2; r++) {
			const struct ix_coll_rank *k = &e->rep[r];
			cr_assert(k->joined && k->complete, "%s rank %d", ix_coll_op_name(e->o.op),
				  r);
			cr_assert_eq(k->nrows, 2);
			for (int i = 0; i < 2; i++)
				for (int p = 0; p < 2; p++) {
					cr_assert(k->cell[i][p].measured);
					cr_assert_eq(
						k->cell[i][p].wrong,
						ix_coll_checkable(e->o.op, (enum ix_coll_place)p)
							? 0
							: -1,
						"%s rank %d row %d %s", ix_coll_op_name(e->o.op), r,
						i, ix_coll_place_name((enum ix_coll_place)p));
					cr_assert_geq(k->cell[i][p].host_us, 0);
					cr_assert_geq(k->cell[i][p].dev_max_us,
						      k->cell[i][p].dev_min_us);
				}
			cr_assert_eq(k->niter, 3, "the largest row's iterations kept");
		}
		cr_assert_gt(e->rep[0].pair_bps, 0, "the link (0, 1) measured");
		cr_assert_eq(e->rep[1].pair_bps, 0, "two ranks: one link, reported by rank 0");
		cr_assert_eq(*counter(getenv("IX_FAKECUDA"), "fake_streams"), 0);
		cr_assert_eq(*counter(getenv("IX_FAKECUDA"), "fake_events"), 0);
		cr_assert_eq(*counter(getenv("IX_FAKECUDA"), "fake_device_allocs"), 0);
		cr_assert_eq(*counter(getenv("IX_FAKENCCL"), "fakenccl_comms"), 0);
		cr_assert_eq(*counter(getenv("IX_FAKECUDA"), "fake_bad"), 0, "no misuse");
		close_env(e);
	}
}

Test(run, merged_figures)
{
	struct env *e = open_env(IX_COLL_ALL_GATHER);
	struct ix_coll_result res = { 0 };

	cr_assert_eq(run2(e), 0, "%s", e->err.msg);
	res.opts = e->o;
	res.nranks = 2;
	res.ranks = calloc(2, sizeof(*res.ranks));
	memcpy(res.ranks, e->rep, sizeof(e->rep));
	ix_coll_merge(&res);
	cr_assert(res.complete);
	cr_assert_eq(res.wrong, 0);
	cr_assert_float_eq(res.bus_factor, 0.5, 1e-12);
	cr_assert_eq(res.rows[1].count, 16384 / 4 / 2);
	cr_assert(res.rows[1].cell[1].measured);
	ix_coll_result_free(&res);
	close_env(e);
}

Test(run, a_wrong_result_is_counted)
{
	struct env *e;

	setenv("FAKENCCL_WRONG", "1", 1);
	e = open_env(IX_COLL_ALL_REDUCE);
	e->o.pair_scan = false;
	cr_assert_eq(run2(e), 0, "a wrong result is a finding, not a failure to run");
	cr_assert_eq(e->rep[0].cell[0][0].wrong, 0);
	cr_assert_eq(e->rep[1].cell[0][0].wrong, 1, "rank 1's first element");
	cr_assert_eq(e->rep[1].cell[0][0].first_wrong, 0);
	cr_assert_eq(e->rep[1].cell[1][1].wrong, 1);
	close_env(e);
}

Test(run, a_rank_that_never_joins)
{
	struct env *e = open_env(IX_COLL_ALL_REDUCE);
	struct ix_coll_run R;
	uint8_t id[IX_COLL_ID_BYTES];
	int ranks[2] = { 0, 1 }, devs[2] = { 0, 1 };

	e->o.timeout_s = 1;
	cr_assert_eq(ix_coll_lib_unique_id(e->lib, id, &e->err), 0);
	/* a job of 3: rank 2 is nowhere */
	cr_assert_eq(ix_coll_run_join(&R, e->lib, &e->gpu, &e->o, 3, id, 2, ranks, devs, e->rep,
				      &e->err),
		     -1);
	cr_assert(strstr(e->err.msg, "making the communicator did not complete within 1 s"), "%s",
		  e->err.msg);
	for (int r = 0; r < 2; r++) {
		cr_assert(!e->rep[r].joined && !e->rep[r].complete);
		cr_assert(strstr(e->rep[r].error, "did not complete"), "%s", e->rep[r].error);
	}
	cr_assert_eq(*counter(getenv("IX_FAKENCCL"), "fakenccl_comms"), 0, "aborted, not leaked");
	close_env(e);
}
