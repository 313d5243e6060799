/* ixperf coll: NCCL and RCCL collectives, timed, checked and their bus
 * bandwidth reported as nccl-tests does; one process for every GPU of this
 * host, or one rank a task under srun --mpi=pmix or mpirun. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "probes/cluster/launch.h"
#include "probes/coll/coll.h"
#include "probes/coll/lib.h"
#include "probes/coll/merge.h"
#include "probes/coll/run.h"
#include "probes/coll/wire.h"
#include "probes/core/clock.h"
#include "probes/gpu/bench.h"
#include "probes/gpu/gpu.h"
#include "report/json/json.h"
#include "report/text/text.h"

#define UNSET      UINT64_MAX
#define KEY_ID     "ixperf.coll.id"     /* rank 0's unique id */
#define KEY_HELLO  "ixperf.coll.hello"  /* each rank's node and GPU, at its start */
#define KEY_REPORT "ixperf.coll.report" /* each rank's report, at its end */
#define KEY_DONE   "ixperf.coll.done"   /* rank 0 has the reports: the others may go */

struct coll_opts {
	uint64_t minbytes, maxbytes, stepbytes, factor, iters, warmup, check, root, pair_iters;
	const char *dtype, *redop, *lib, *lib_path, *backend, *gpu_lib, *gpus, *nvml_lib, *sysfs;
	double timeout_s;
	bool in_place, out_of_place, no_pairs, json, help;
	const char *output;
};

static const struct ix_option coll_options[] = {
	{ 'b', "minbytes", IX_OPT_SIZE, offsetof(struct coll_opts, minbytes), "BYTES",
	  "smallest size of the sweep (default 32M as nccl-tests, or -e below it)", 0, 0 },
	{ 'e', "maxbytes", IX_OPT_SIZE, offsetof(struct coll_opts, maxbytes), "BYTES",
	  "largest size (default 32M, or -b above it)", 0, 0 },
	{ 'f', "stepfactor", IX_OPT_UINT, offsetof(struct coll_opts, factor), "N",
	  "each size N times the last (default 1: by -i)", 1, 1024 },
	{ 'i', "stepbytes", IX_OPT_SIZE, offsetof(struct coll_opts, stepbytes), "BYTES",
	  "each size BYTES above the last when -f is 1 (default 1M)", 1, 0 },
	{ 'n', "iters", IX_OPT_UINT, offsetof(struct coll_opts, iters), "N",
	  "timed collectives per size (default 20)", 1, IX_COLL_MAX_ITERS },
	{ 'w', "warmup", IX_OPT_UINT, offsetof(struct coll_opts, warmup), "N",
	  "untimed collectives at the largest and the smallest size first (default 5)", 0, 100000 },
	{ 'c', "check", IX_OPT_UINT, offsetof(struct coll_opts, check), "0|1",
	  "check every size's result element by element (default 1)", 0, 1 },
	{ 'd', "datatype", IX_OPT_STRING, offsetof(struct coll_opts, dtype), "TYPE",
	  "int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16 "
	  "(default float)",
	  0, 0 },
	{ 0, "op", IX_OPT_STRING, offsetof(struct coll_opts, redop), "OP",
	  "reduction: sum, prod, max, min, avg (default sum; nccl-tests' -o)", 0, 0 },
	{ 'r', "root", IX_OPT_UINT, offsetof(struct coll_opts, root), "RANK",
	  "root of broadcast and reduce (default 0)", 0, IX_COLL_MAX_RANKS - 1 },
	{ 0, "in-place", IX_OPT_FLAG, offsetof(struct coll_opts, in_place), NULL,
	  "in-place only (default: out-of-place, then in-place)", 0, 0 },
	{ 0, "out-of-place", IX_OPT_FLAG, offsetof(struct coll_opts, out_of_place), NULL,
	  "out-of-place only", 0, 0 },
	{ 0, "no-pairs", IX_OPT_FLAG, offsetof(struct coll_opts, no_pairs), NULL,
	  "skip the pair scan (each ring link alone, to name a slow rank or link)", 0, 0 },
	{ 0, "pair-iters", IX_OPT_UINT, offsetof(struct coll_opts, pair_iters), "N",
	  "timed exchanges per pair of the scan (default 5)", 1, 1000 },
	{ 0, "timeout", IX_OPT_SECONDS, offsetof(struct coll_opts, timeout_s), "SECONDS",
	  "bound on every wait: the ranks joining, each size's collectives, the reports "
	  "(default 60)",
	  1, 86400 },
	{ 0, "lib", IX_OPT_STRING, offsetof(struct coll_opts, lib), "NAME",
	  "nccl or rccl (default: the one of the GPU backend that opens)", 0, 0 },
	{ 0, "lib-path", IX_OPT_STRING, offsetof(struct coll_opts, lib_path), "PATH",
	  "load this collective library instead of the default one", 0, 0 },
	{ 0, "backend", IX_OPT_STRING, offsetof(struct coll_opts, backend), "NAME",
	  "GPU backend: cuda or rocm (default: the first that opens)", 0, 0 },
	{ 0, "gpu-lib", IX_OPT_STRING, offsetof(struct coll_opts, gpu_lib), "PATH",
	  "load this GPU driver library instead of the default one (for tests)", 0, 0 },
	{ 0, "nvml-lib", IX_OPT_STRING, offsetof(struct coll_opts, nvml_lib), "PATH",
	  "read NVLinks through this NVML instead of libnvidia-ml.so.1 (for tests)", 0, 0 },
	{ 0, "sysfs", IX_OPT_STRING, offsetof(struct coll_opts, sysfs), "ROOT",
	  "read the links from ROOT/sys instead of /sys (a saved tree, test fixtures)", 0, 0 },
	{ 0, "gpus", IX_OPT_STRING, offsetof(struct coll_opts, gpus), "LIST",
	  "one process: these GPUs, a rank each (default all); launched: one of them a "
	  "task, by local rank",
	  0, 0 },
	{ 'J', "json", IX_OPT_FLAG, offsetof(struct coll_opts, json), NULL,
	  "one JSON document on stdout (diagnostics on stderr)", 0, 0 },
	{ 'o', "output", IX_OPT_STRING, offsetof(struct coll_opts, output), "FILE",
	  "write the report to FILE atomically instead of stdout", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct coll_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_coll_spec = {
	.name = "coll",
	.usage = "[all_reduce|all_gather|reduce_scatter|alltoall|broadcast|reduce|sendrecv] "
		 "[OPTIONS]",
	.summary = "NCCL/RCCL collectives: time, bus bandwidth (nccl-tests' definitions), check, "
		   "the slow rank",
	.opts = coll_options,
	.nopts = IX_OPTS_END(coll_options),
	.epilog = "Run alone, one rank per GPU of this host in one process; under srun --mpi=pmix\n"
		  "or mpirun, one rank per task (its GPU by local rank), rank 0 reporting.\n"
		  "busbw = algbw x 2(n-1)/n (all_reduce), (n-1)/n (all_gather, reduce_scatter,\n"
		  "alltoall), 1 (broadcast, reduce, sendrecv), as nccl-tests' doc/PERFORMANCE.md.\n"
		  "libnccl.so.2 (or librccl.so.1) and the GPU driver are loaded at run time.\n"
		  "Examples:\n"
		  "  ixperf coll all_reduce -b 8 -e 1G -f 2\n"
		  "  srun --mpi=pmix -N 4 --ntasks-per-node 8 ixperf coll all_gather -d bfloat16\n",
};

static double now_s(void)
{
	return (double)ix_now_ns() / IX_NSEC_PER_SEC;
}

/* The options into o, usage errors named. */
static int build(const struct coll_opts *c, const char *name, struct ix_coll_opts *o,
		 struct ix_err *err)
{
	/* nccl-tests' 32M when neither is given; one alone gives the other */
	uint64_t dflt = 32u << 20;
	uint64_t min = c->minbytes != UNSET                         ? c->minbytes
		       : c->maxbytes != UNSET && c->maxbytes < dflt ? c->maxbytes
								    : dflt;
	uint64_t max = c->maxbytes != UNSET ? c->maxbytes : min > dflt ? min : dflt;

	memset(o, 0, sizeof(*o));
	if (ix_coll_op_parse(name, &o->op, err) < 0 ||
	    (c->dtype && ix_coll_dtype_parse(c->dtype, &o->dtype, err) < 0) ||
	    (c->redop && ix_coll_redop_parse(c->redop, &o->redop, err) < 0))
		return -1;
	if (!c->dtype)
		o->dtype = IX_COLL_FLOAT32;
	if (c->redop && !ix_coll_op_reduces(o->op))
		return ix_fail(err, IX_EXIT_USAGE, "%s takes no reduction (--op)",
			       ix_coll_op_name(o->op));
	if (c->root != UNSET && !ix_coll_op_rooted(o->op))
		return ix_fail(err, IX_EXIT_USAGE, "%s has no root (-r)", ix_coll_op_name(o->op));
	if (c->in_place && c->out_of_place)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--in-place and --out-of-place exclude each other (neither: both)");
	if (min < ix_coll_dtype_size(o->dtype))
		return ix_fail(err, IX_EXIT_USAGE, "-b %llu is less than one %s element",
			       (unsigned long long)min, ix_coll_dtype_name(o->dtype));
	if (ix_coll_sizes(min, max, c->factor != UNSET ? (unsigned)c->factor : 1,
			  c->stepbytes != UNSET ? c->stepbytes : 1u << 20, o->sizes,
			  IX_COLL_MAX_ROWS, &o->nsizes, err) < 0)
		return -1;
	o->root = c->root != UNSET ? (int)c->root : 0;
	o->iters = c->iters != UNSET ? (unsigned)c->iters : 20;
	o->warmup = c->warmup != UNSET ? (unsigned)c->warmup : 5;
	o->check = c->check != 0;
	o->places[IX_COLL_OUT_OF_PLACE] = !c->in_place;
	o->places[IX_COLL_IN_PLACE] = !c->out_of_place;
	o->pair_scan = !c->no_pairs;
	o->pair_iters = c->pair_iters != UNSET ? (unsigned)c->pair_iters : 5;
	o->timeout_s = c->timeout_s > 0 ? c->timeout_s : 60;
	return 0;
}

/* The backend the library runs over: --backend, else the library's own. */
static const char *backend_of(const struct coll_opts *c)
{
	if (c->backend)
		return c->backend;
	if (c->lib && strcmp(c->lib, "rccl") == 0)
		return "rocm";
	if (c->lib && strcmp(c->lib, "nccl") == 0)
		return "cuda";
	return NULL;
}

struct coll_job {
	struct ix_gpu_ctx gpu;
	struct ix_coll_lib *lib;
	struct ix_coll_lib_info info;
	struct ix_coll_opts o;
	struct ix_coll_result res;
	bool gpu_open;
};

static int open_libs(struct coll_job *j, const struct coll_opts *c, struct ix_err *err)
{
	if (ix_gpu_open(&j->gpu, backend_of(c), c->gpu_lib, err) < 0)
		return -1;
	j->gpu_open = true;
	if (ix_coll_lib_open(&j->lib, c->lib, j->gpu.be->name, c->lib_path, &j->info, err) < 0)
		return -1;
	if (strcmp(j->info.gpu_backend, j->gpu.be->name) != 0)
		return ix_fail(err, IX_EXIT_USAGE, "%s runs over %s, not the %s backend",
			       j->info.name, j->info.gpu_backend, j->gpu.be->name);
	return 0;
}

/* A rank's GPU, node and what the node says of the GPU's links. */
static void describe(struct coll_job *j, const struct coll_opts *c, struct ix_coll_rank *rep,
		     int rank, int device, const char *node, struct ix_ctr_set *before)
{
	rep->rank = rank;
	rep->device = device;
	snprintf(rep->node, sizeof(rep->node), "%.127s", node);
	if (device >= 0 && device < j->gpu.ndevices) {
		snprintf(rep->gpu, sizeof(rep->gpu), "%.127s", j->gpu.dev[device].name);
		snprintf(rep->pci_bus_id, sizeof(rep->pci_bus_id), "%s",
			 j->gpu.dev[device].pci_bus_id);
	}
	ix_coll_facts_read(c->sysfs, c->nvml_lib, rep->pci_bus_id, &rep->facts, before);
}

static void result_head(struct coll_job *j, int nranks)
{
	struct ix_coll_result *r = &j->res;

	snprintf(r->library, sizeof(r->library), "%s", j->info.library);
	snprintf(r->lib_name, sizeof(r->lib_name), "%s", j->info.name);
	snprintf(r->lib_version, sizeof(r->lib_version), "%s", j->info.version);
	snprintf(r->gpu_backend, sizeof(r->gpu_backend), "%s", j->gpu.be->name);
	snprintf(r->simulation, sizeof(r->simulation), "%s", j->info.simulation);
	r->opts = j->o;
	r->nranks = nranks;
}

/* --- One process, every GPU a rank ------------------------------------------ */

static int run_local(struct coll_job *j, const struct coll_opts *c, struct ix_err *err)
{
	uint64_t mask = 0;
	int ranks[IX_COLL_MAX_LOCAL], devices[IX_COLL_MAX_LOCAL], n = 0;
	uint8_t id[IX_COLL_ID_BYTES];
	char host[IX_COLL_NAME_MAX] = "localhost";
	struct ix_ctr_set before[IX_COLL_MAX_LOCAL]; /* each rank's NIC at the start */
	struct ix_coll_run R;
	int rc = 0;

	if (c->gpus && ix_gpu_parse_list(c->gpus, &mask, err) < 0)
		return ix_fail_prefix(err, "invalid value for --gpus");
	for (int d = 0; d < j->gpu.ndevices && n < IX_COLL_MAX_LOCAL; d++)
		if (!mask || (mask >> d & 1)) {
			ranks[n] = n;
			devices[n++] = d;
		}
	if (mask >> j->gpu.ndevices)
		return ix_fail(err, IX_EXIT_USAGE, "--gpus names a GPU this host lacks (it has %d)",
			       j->gpu.ndevices);
	if (n == 0)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "no GPU");
	if (j->o.root >= n)
		return ix_fail(err, IX_EXIT_USAGE, "root %d is not one of the %d ranks", j->o.root,
			       n);
	gethostname(host, sizeof(host) - 1);
	result_head(j, n);
	j->res.ranks = calloc((size_t)n, sizeof(*j->res.ranks));
	if (!j->res.ranks)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (int i = 0; i < n; i++)
		describe(j, c, &j->res.ranks[i], i, devices[i], host, &before[i]);
	if (ix_coll_lib_unique_id(j->lib, id, err) < 0)
		rc = -1;
	else if (ix_coll_run_join(&R, j->lib, &j->gpu, &j->o, n, id, n, ranks, devices,
				  j->res.ranks, err) == 0) {
		if (ix_coll_run_sweep(&R, err) == 0 && j->o.pair_scan)
			ix_coll_run_pairs(&R, err);
		ix_coll_run_end(&R);
	}
	for (int i = 0; i < n; i++)
		ix_coll_facts_end(c->sysfs, &j->res.ranks[i].facts, &before[i]);
	if (rc == 0)
		ix_coll_merge(&j->res);
	return rc;
}

/* --- Launched: a rank a task ------------------------------------------------- */

/* Rank 0 gathers every other rank's report until the deadline; a rank
 * that sent none is reported as missing, with its node when its hello
 * came. */
static void gather(struct coll_job *j, struct ix_launch *l, double deadline)
{
	for (uint32_t r = 1; r < l->size; r++) {
		struct ix_coll_rank *rep = &j->res.ranks[r];
		struct ix_err e = { 0 };
		uint8_t *buf = NULL;
		size_t len = 0;
		double left = deadline - now_s();

		if (ix_launch_get(l, r, KEY_REPORT, &buf, &len, left > 1 ? left : 1, &e) == 0 &&
		    ix_coll_wire_decode(buf, len, rep, &e) == 0 && rep->rank == (int)r) {
			free(buf);
			continue;
		}
		free(buf);
		memset(rep, 0, sizeof(*rep));
		rep->rank = (int)r;
		rep->device = -1;
		j->res.missing++;
		if (ix_launch_get(l, r, KEY_HELLO, &buf, &len, 1, NULL) == 0 &&
		    ix_coll_wire_decode(buf, len, rep, NULL) == 0) {
			snprintf(rep->error, sizeof(rep->error),
				 "sent no report within %.0f s: it hung or died after joining",
				 j->o.timeout_s);
		} else {
			snprintf(rep->error, sizeof(rep->error),
				 "never joined: no word from it within %.0f s", j->o.timeout_s);
		}
		rep->rank = (int)r;
		rep->joined = rep->complete = false;
		rep->missing = true;
		free(buf);
	}
}

static int run_task(struct coll_job *j, const struct coll_opts *c, struct ix_launch *l,
		    struct ix_err *err)
{
	struct ix_coll_rank *me;
	struct ix_coll_run R;
	struct ix_ctr_set before; /* this rank's NIC at the start */
	uint8_t id[IX_COLL_ID_BYTES], *buf = NULL;
	size_t len = 0;
	int device = (int)(l->local_rank % (uint32_t)j->gpu.ndevices), rank = (int)l->rank;
	int rc = 0;

	if (c->gpus) {
		char entry[16];
		if (ix_launch_list_pick(c->gpus, l->local_rank, entry, sizeof(entry), err) < 0 ||
		    ix_parse_gpu_index(entry, "--gpus", &device, err) < 0)
			return -1;
		if (device >= j->gpu.ndevices)
			return ix_fail(err, IX_EXIT_USAGE, "--gpus: no GPU %d here (%d)", device,
				       j->gpu.ndevices);
	}
	if (j->o.root >= (int)l->size)
		return ix_fail(err, IX_EXIT_USAGE, "root %d is not one of the %u ranks", j->o.root,
			       l->size);
	result_head(j, (int)l->size);
	j->res.ranks = calloc(l->size, sizeof(*j->res.ranks));
	if (!j->res.ranks)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	me = &j->res.ranks[rank];
	describe(j, c, me, rank, device, l->node, &before);
	if (ix_coll_wire_encode(me, &buf, &len, err) < 0 ||
	    ix_launch_put(l, KEY_HELLO, buf, len, err) < 0)
		goto fail;
	free(buf);
	buf = NULL;
	if (rank == 0) {
		if (ix_coll_lib_unique_id(j->lib, id, err) < 0 ||
		    ix_launch_put(l, KEY_ID, id, sizeof(id), err) < 0)
			goto fail;
	} else {
		if (ix_launch_get(l, 0, KEY_ID, &buf, &len, j->o.timeout_s, err) < 0)
			goto fail;
		if (len != sizeof(id)) {
			ix_fail(err, IX_EXIT_FAIL, "rank 0's unique id is %zu bytes, not %zu", len,
				sizeof(id));
			goto fail;
		}
		memcpy(id, buf, sizeof(id));
		free(buf);
		buf = NULL;
	}
	if (ix_coll_run_join(&R, j->lib, &j->gpu, &j->o, (int)l->size, id, 1, &rank, &device, me,
			     err) == 0) {
		if (ix_coll_run_sweep(&R, err) == 0 && j->o.pair_scan)
			ix_coll_run_pairs(&R, err);
		ix_coll_run_end(&R);
	}
	goto report;
fail:
	snprintf(me->error, sizeof(me->error), "%s", err->msg);
	rc = -1;
report:
	ix_coll_facts_end(c->sysfs, &me->facts, &before);
	free(buf);
	buf = NULL;
	if (ix_coll_wire_encode(me, &buf, &len, NULL) == 0)
		ix_launch_put(l, KEY_REPORT, buf, len, NULL);
	free(buf);
	buf = NULL;
	if (rank == 0) {
		gather(j, l, now_s() + j->o.timeout_s);
		ix_coll_merge(&j->res);
		return 0;
	}
	/* A task that exits with an error makes mpirun end the job: wait until
	 * rank 0 has every report (or has gone; bounded). */
	ix_launch_get(l, 0, KEY_DONE, &buf, &len, 2 * j->o.timeout_s + 10, NULL);
	free(buf);
	if (rc == 0 && !me->complete)
		rc = ix_fail(err, IX_EXIT_FAIL, "rank %d: %s", rank, me->error);
	return rc;
}

/* --- Output ------------------------------------------------------------------ */

/* What the run says of itself: a failure, and with wrong, wrong results. */
static int outcome(const struct ix_coll_result *r, bool wrong, struct ix_err *err)
{
	/* A rank that never joined or went silent first: the others' errors
	 * (a communicator not made, a batch that did not end) follow from it. */
	for (int i = 0; i < r->nranks; i++)
		if (r->ranks[i].missing)
			return ix_fail(err, IX_EXIT_FAIL, "rank %d%s%s %s", i,
				       r->ranks[i].node[0] ? " on " : "", r->ranks[i].node,
				       r->ranks[i].error);
	for (int i = 0; i < r->nranks; i++)
		if (r->ranks[i].error[0])
			return ix_fail(err, IX_EXIT_FAIL, "rank %d%s%s: %s", i,
				       r->ranks[i].node[0] ? " on " : "", r->ranks[i].node,
				       r->ranks[i].error);
	if (!r->complete)
		return ix_fail(err, IX_EXIT_FAIL, "the run is incomplete");
	for (int i = 0; wrong && i < r->nrows; i++)
		for (int p = 0; p < IX_COLL_NPLACES; p++) {
			const struct ix_coll_cell *c = &r->rows[i].cell[p];
			if (c->measured && c->wrong > 0)
				return ix_fail(err, IX_EXIT_FAIL,
					       "wrong results: %lld element%s at %zu bytes %s, "
					       "first on rank %d (%d rank%s)",
					       (long long)c->wrong, c->wrong == 1 ? "" : "s",
					       r->rows[i].bytes,
					       ix_coll_place_name((enum ix_coll_place)p),
					       c->first_wrong_rank, c->wrong_ranks,
					       c->wrong_ranks == 1 ? "" : "s");
		}
	return 0;
}

static int render(struct coll_job *j, const struct coll_opts *c, const struct ix_env *env)
{
	struct ix_err err = { 0 }, why = { 0 };
	struct ix_sink sink;
	int rc = IX_EXIT_OK;

	if (outcome(&j->res, true, &why) < 0)
		rc = ix_report_error("coll", &why);
	if (ix_sink_open(&sink, c->output, &err) < 0)
		return ix_report_error("coll", &err);
	if (c->json)
		ix_sink_put_json(&sink, ix_json_document("coll", env->argc, env->argv,
							 json_pack("[o]", ix_json_coll(&j->res)),
							 why.msg[0] ? why.msg : NULL));
	else
		ix_text_coll(sink.f, &j->res);
	if (ix_sink_commit(&sink, &err) < 0)
		rc = ix_report_error("coll", &err);
	return rc;
}

static void job_free(struct coll_job *j)
{
	ix_coll_result_free(&j->res);
	if (j->lib)
		ix_coll_lib_close(j->lib);
	if (j->gpu_open)
		ix_gpu_close(&j->gpu);
	free(j);
}

int ix_coll_check_run(const struct ix_coll_req *q, json_t **out, struct ix_err *err)
{
	struct coll_opts c = { .minbytes = q->minbytes ? q->minbytes : UNSET,
			       .maxbytes = q->maxbytes ? q->maxbytes : UNSET,
			       .stepbytes = UNSET,
			       .factor = q->factor ? q->factor : UNSET,
			       .iters = q->iters ? q->iters : UNSET,
			       .warmup = q->warmup == UINT32_MAX ? 0
					 : q->warmup             ? q->warmup
								 : UNSET,
			       .check = UNSET,
			       .root = UNSET,
			       .pair_iters = UNSET,
			       .dtype = q->dtype,
			       .redop = q->redop,
			       .lib = q->lib,
			       .lib_path = q->lib_path,
			       .backend = q->backend,
			       .gpu_lib = q->gpu_lib,
			       .gpus = q->gpus,
			       .sysfs = q->sysfs,
			       .timeout_s = q->timeout_s };
	struct coll_job *j = calloc(1, sizeof(*j));
	int rc;

	*out = NULL;
	if (!j)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	rc = build(&c, q->op ? q->op : "all_reduce", &j->o, err);
	if (rc == 0)
		rc = open_libs(j, &c, err);
	if (rc == 0 && (rc = run_local(j, &c, err)) == 0) {
		*out = ix_json_coll(&j->res);
		rc = outcome(&j->res, false, err);
	}
	job_free(j);
	return rc;
}

int cmd_coll(int argc, char **argv, const struct ix_env *env)
{
	struct coll_opts c = { .minbytes = UNSET,
			       .maxbytes = UNSET,
			       .stepbytes = UNSET,
			       .factor = UNSET,
			       .iters = UNSET,
			       .warmup = UNSET,
			       .check = UNSET,
			       .root = UNSET,
			       .pair_iters = UNSET };
	struct ix_err err = { 0 };
	struct ix_launch l = { 0 };
	struct coll_job *j;
	const char *name = "all_reduce";
	bool help;
	int pos, launched, rc;

	if (ix_opts_parse(&ix_coll_spec, argc, argv, &c, &pos, &help, &err) < 0)
		return ix_report_error("coll", &err);
	if (help) {
		ix_opts_help(&ix_coll_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos < argc)
		name = argv[pos++];
	if (pos < argc) {
		ix_fail(&err, IX_EXIT_USAGE, "unexpected argument '%s'", argv[pos]);
		return ix_report_error("coll", &err);
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return IX_EXIT_FAIL;
	if (build(&c, name, &j->o, &err) < 0) {
		job_free(j);
		return ix_report_error("coll", &err);
	}
	launched = ix_launch_detect(&l, &err);
	if (launched < 0 || open_libs(j, &c, &err) < 0 ||
	    (launched ? run_task(j, &c, &l, &err) : run_local(j, &c, &err)) < 0) {
		rc = ix_report_error_json("coll", c.json && (!launched || l.rank == 0), c.output,
					  env, &err);
		if (launched > 0)
			ix_launch_finish(&l);
		job_free(j);
		return rc;
	}
	rc = !launched || l.rank == 0 ? render(j, &c, env) : IX_EXIT_OK;
	if (launched > 0 && l.rank == 0)
		ix_launch_put(&l, KEY_DONE, "1", 1, NULL);
	if (launched > 0)
		ix_launch_finish(&l);
	job_free(j);
	return rc;
}
