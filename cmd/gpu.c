/* ixperf gpu: host <-> GPU, GPU <-> GPU and IPC bandwidth on either
 * vendor's GPUs and latency on NVIDIA's, from one binary; and the PCIe path
 * of ixperf bw. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "probes/gpu/bench.h"
#include "probes/gpu/gpu.h"
#include "report/json/json.h"
#include "report/text/text.h"

extern char **environ;

#define UNSET UINT64_MAX

struct gpu_opts {
	const char *path; /* ixperf bw --path pcie */
	const char *backend;
	const char *lib;
	const char *tests;
	const char *gpus;
	uint64_t size, iterations, samples, warmup, hops;
	bool json;
	const char *output;
	bool help;
};

/* clang-format off */
#define GPU_OPTION_ROWS                                                                   \
	{ 0, "backend", IX_OPT_STRING, offsetof(struct gpu_opts, backend), "NAME",        \
	  "cuda or rocm (default: the first that opens, in that order)", 0, 0 },          \
	{ 0, "lib", IX_OPT_STRING, offsetof(struct gpu_opts, lib), "PATH",                \
	  "load this vendor library instead of the default one (for tests)", 0, 0 },      \
	{ 's', "size", IX_OPT_SIZE, offsetof(struct gpu_opts, size), "BYTES",             \
	  "bytes per copy (default 512Mi); K = KB = Ki = 1024, kB = 1000", 1, 0 },                 \
	{ 'i', "iterations", IX_OPT_UINT, offsetof(struct gpu_opts, iterations), "N",     \
	  "timed repetitions of a copy per sample (default 16)", 1, 1000000 },           \
	{ 0, "samples", IX_OPT_UINT, offsetof(struct gpu_opts, samples), "N",             \
	  "samples per figure: the median, lowest and highest are kept (default 3)", 1,  \
	  IX_GPU_MAX_SAMPLES },                                                           \
	{ 'w', "warmup", IX_OPT_UINT, offsetof(struct gpu_opts, warmup), "N",             \
	  "untimed repetitions before a figure's first sample (default 2)", 0, 1000000 }, \
	{ 0, "gpus", IX_OPT_STRING, offsetof(struct gpu_opts, gpus), "LIST",              \
	  "the GPUs that take part, by index: 0,2-3 (default all)", 0, 0 },               \
	{ 'J', "json", IX_OPT_FLAG, offsetof(struct gpu_opts, json), NULL,                \
	  "one JSON document on stdout (diagnostics on stderr)", 0, 0 },                 \
	{ 'o', "output", IX_OPT_STRING, offsetof(struct gpu_opts, output), "FILE",        \
	  "write the report to FILE atomically instead of stdout", 0, 0 },               \
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct gpu_opts, help), NULL, "show this help", 0, 0 }
/* clang-format on */

static const struct ix_option gpu_options[] = {
	{ 't', "test", IX_OPT_STRING, offsetof(struct gpu_opts, tests), "NAME[,NAME...]",
	  "tests or groups to run (default all; 'ixperf gpu list' shows them)", 0, 0 },
	{ 0, "hops", IX_OPT_UINT, offsetof(struct gpu_opts, hops), "N",
	  "pointer-chase hops per latency sample (default 100000)", 1, 1e9 },
	GPU_OPTION_ROWS,
};

const struct ix_cmd_spec ix_gpu_spec = {
	.name = "gpu",
	.usage = "[run|bandwidth|latency|inventory|list] [OPTIONS]",
	.summary = "GPU and PCIe bandwidth and latency: host <-> GPU, GPU <-> GPU, CUDA/HIP IPC",
	.opts = gpu_options,
	.nopts = IX_OPTS_END(gpu_options),
	.epilog = "run (the default) runs the tests, bandwidth or latency one group of them,\n"
		  "inventory shows the GPUs, their PCIe links and peer access, list the tests.\n"
		  "The CUDA driver (libcuda.so.1) or HIP (libamdhip64.so) is loaded at run time;\n"
		  "on ROCm only the copy-engine tests run (no AMD kernels: the SM copy and\n"
		  "latency tests are skipped, saying so).\n"
		  "Tests are named as nvbandwidth names them; matrices read row -> column.\n"
		  "Bandwidth is in GB/s = 10^9 bytes/s, a copy counting its bytes once; each\n"
		  "figure is the median of the samples, with its share of a reference: the PCIe\n"
		  "link, HBM (a copy in one GPU reads and writes: 2 x its bytes), or the same\n"
		  "copy within one process (IPC). A test that cannot run here is skipped with\n"
		  "its reason.\n"
		  "Exit status: 0, 1 a test failed (its figures so far are kept), 2 a bad\n"
		  "command line, 3 no GPU backend, or no selected test can run here.\n"
		  "Examples:\n"
		  "  ixperf gpu inventory\n"
		  "  ixperf gpu --test pcie --gpus 0-3\n"
		  "  ixperf gpu --test device_local_copy,device_to_device_memcpy_read_ce -s 1Gi\n"
		  "  ixperf gpu latency --json -o lat.json\n",
};

static const struct ix_option pcie_options[] = {
	{ 0, "path", IX_OPT_STRING, offsetof(struct gpu_opts, path), "pcie",
	  "pcie: host <-> GPU copies over each GPU's PCIe link", 0, 0 },
	GPU_OPTION_ROWS,
};

static const struct ix_cmd_spec pcie_spec = {
	.name = "bw",
	.usage = "--path pcie [OPTIONS]",
	.summary = "PCIe bandwidth between this host and each of its GPUs",
	.opts = pcie_options,
	.nopts = IX_OPTS_END(pcie_options),
	.epilog = "The host <-> GPU tests of ixperf gpu (--test pcie); see ixperf-gpu(1).\n",
};

/* The parameters from the options; sel: the tests chosen. */
static int params(const struct gpu_opts *o, const bool *sel, struct ix_gpu_params *p,
		  struct ix_err *err)
{
	ix_gpu_params_default(p);
	memcpy(p->tests, sel, sizeof(p->tests));
	if (o->gpus && ix_gpu_parse_list(o->gpus, &p->gpus, err) < 0)
		return -1;
	if (o->backend && !ix_gpu_backend_find(o->backend))
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for --backend: '%s' (cuda or rocm)", o->backend);
	if (o->size)
		p->size = o->size;
	if (o->size > SIZE_MAX / 2)
		return ix_fail(err, IX_EXIT_USAGE, "invalid value for -s/--size: too large");
	p->iterations = o->iterations != UNSET ? (uint32_t)o->iterations : p->iterations;
	p->samples = o->samples != UNSET ? (uint32_t)o->samples : p->samples;
	p->warmup = o->warmup != UNSET ? (uint32_t)o->warmup : p->warmup;
	p->hops = o->hops != UNSET ? o->hops : p->hops;
	return 0;
}

/* The IPC test's second process: this binary again, "gpu ipc-child" on
 * the same backend and library, with its end of the channel as stdin
 * and its stdout on our stderr. */
struct child {
	const char *backend, *lib;
};

static int start_child(void *arg, int fd, pid_t *pid, struct ix_err *err)
{
	const struct child *ch = arg;
	char exe[PATH_MAX], *av[8];
	posix_spawn_file_actions_t fa;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int n = 0, rc;

	if (len < 0)
		return ix_fail(err, IX_EXIT_FAIL, "/proc/self/exe: %s", strerror(errno));
	exe[len] = '\0';
	av[n++] = (char *)"ixperf";
	av[n++] = (char *)"gpu";
	av[n++] = (char *)"ipc-child";
	av[n++] = (char *)"--backend";
	av[n++] = (char *)ch->backend;
	if (ch->lib) {
		av[n++] = (char *)"--lib";
		av[n++] = (char *)ch->lib;
	}
	av[n] = NULL;
	if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
		return ix_fail(err, IX_EXIT_FAIL, "posix_spawn: %s", strerror(rc));
	rc = posix_spawn_file_actions_adddup2(&fa, fd, 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, 2, 1);
	if (rc == 0)
		rc = posix_spawn(pid, exe, &fa, NULL, av, environ);
	posix_spawn_file_actions_destroy(&fa);
	return rc ? ix_fail(err, IX_EXIT_FAIL, "cannot start %s: %s", exe, strerror(rc)) : 0;
}

static int ipc_child(const struct gpu_opts *o)
{
	struct ix_err why = { 0 }, err = { 0 };
	struct ix_gpu_ctx *c;
	struct stat st;
	bool opened;
	int rc;

	if (fstat(0, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		ix_fail(&err, IX_EXIT_USAGE,
			"'ipc-child' is the second process of the IPC test: ixperf gpu starts it");
		return ix_report_error("gpu", &err);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return IX_EXIT_FAIL;
	opened = ix_gpu_open(c, o->backend, o->lib, &why) == 0;
	rc = ix_gpu_ipc_serve(0, opened ? c : NULL, &why, &err);
	if (opened)
		ix_gpu_close(c);
	free(c);
	return rc < 0 ? ix_report_error("gpu", &err) : IX_EXIT_OK;
}

/* The inventory of the open backend c, and the IPC test's second process
 * (ch, filled here) in p. */
static int inventory_of(struct ix_gpu_ctx *c, struct ix_gpu_params *p, struct child *ch,
			struct ix_gpu_result *r, struct ix_err *err)
{
	if (ix_gpu_inventory(c, "", p->gpus, r, err) < 0) {
		if (err->code == IX_EXIT_USAGE)
			ix_fail_prefix(err, "invalid value for --gpus");
		return -1;
	}
	ch->backend = c->be->name;
	p->ipc.start = start_child;
	p->ipc.arg = ch;
	return 0;
}

/* A run that measured: a failed test (its figures kept), or every test
 * skipped, is an error. */
static int outcome(const struct ix_gpu_result *r, struct ix_err *err)
{
	size_t skipped = 0;

	for (size_t i = 0; i < r->nmeas; i++)
		skipped += r->meas[i].status == IX_GPU_SKIPPED;
	if (!r->complete)
		return ix_fail(err, IX_EXIT_FAIL, "%s", r->error);
	if (r->nmeas && skipped == r->nmeas)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "no selected test can run here: %s",
			       r->meas[0].reason);
	return 0;
}

static void release(struct ix_gpu_ctx *c, struct ix_gpu_result *r)
{
	ix_gpu_result_free(r);
	ix_gpu_close(c);
	free(r);
	free(c);
}

/* Open the backend, take the inventory, run (unless only the inventory is
 * asked for), render. name: the command errors are reported as. */
static int gpu_run(const struct gpu_opts *o, struct ix_gpu_params *p, bool inventory,
		   const char *name, const struct ix_env *env)
{
	struct ix_gpu_ctx *c = calloc(1, sizeof(*c));
	struct ix_gpu_result *r = calloc(1, sizeof(*r));
	struct ix_err err = { 0 };
	struct ix_sink sink;
	struct child ch = { NULL, o->lib };
	int rc = IX_EXIT_OK;

	if (!c || !r) {
		free(c);
		free(r);
		return IX_EXIT_FAIL;
	}
	/* With -J, every failure still writes a document saying why. */
	if (ix_gpu_open(c, o->backend, o->lib, &err) < 0) {
		free(c);
		free(r);
		return ix_report_error_json(name, o->json, o->output, env, &err);
	}
	if (inventory_of(c, p, &ch, r, &err) < 0 || ix_sink_open(&sink, o->output, &err) < 0) {
		rc = ix_report_error_json(name, o->json, o->output, env, &err);
		goto out;
	}
	if (!inventory && ix_gpu_bench_run(c, p, r, &err) < 0) {
		if (sink.path) { /* nothing written to it */
			fclose(sink.f);
			free(sink.buf);
		}
		rc = ix_report_error_json(name, o->json, o->output, env, &err);
		goto out;
	}
	if (o->json)
		ix_sink_put_json(&sink, ix_json_document("gpu", env->argc, env->argv,
							 json_pack("[o]", ix_json_gpu(r)),
							 r->complete ? NULL : r->error));
	else
		ix_text_gpu(sink.f, r);
	if (rc == IX_EXIT_OK && outcome(r, &err) < 0)
		rc = ix_report_error(name, &err);
	if (ix_sink_commit(&sink, &err) < 0)
		rc = ix_report_error(name, &err);
out:
	release(c, r);
	return rc;
}

int cmd_gpu(int argc, char **argv, const struct ix_env *env)
{
	struct gpu_opts o = {
		.iterations = UNSET, .samples = UNSET, .warmup = UNSET, .hops = UNSET
	};
	struct ix_err err = { 0 };
	struct ix_gpu_params p;
	bool help, sel[IX_GPU_MAX_TESTS], group[IX_GPU_MAX_TESTS], any = false;
	const char *sub = "run";
	int pos;

	if (ix_opts_parse(&ix_gpu_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("gpu", &err);
	if (help) {
		ix_opts_help(&ix_gpu_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos < argc)
		sub = argv[pos++];
	if (pos < argc) {
		ix_fail(&err, IX_EXIT_USAGE, "unexpected argument '%s'", argv[pos]);
		return ix_report_error("gpu", &err);
	}
	if (strcmp(sub, "list") == 0) {
		ix_text_gpu_tests(stdout);
		return IX_EXIT_OK;
	}
	if (strcmp(sub, "ipc-child") == 0)
		return ipc_child(&o);
	if (strcmp(sub, "run") && strcmp(sub, "bandwidth") && strcmp(sub, "latency") &&
	    strcmp(sub, "inventory")) {
		ix_fail(&err, IX_EXIT_USAGE,
			"'%s' is not a subcommand (run, bandwidth, latency, inventory, list)", sub);
		return ix_report_error("gpu", &err);
	}
	if (ix_gpu_select_tests(o.tests ? o.tests : "all", sel, &err) < 0 ||
	    ix_gpu_select_tests(strcmp(sub, "run") && strcmp(sub, "inventory") ? sub : "all", group,
				&err) < 0)
		return ix_report_error("gpu", &err);
	for (size_t i = 0; i < IX_GPU_MAX_TESTS; i++)
		any |= (sel[i] &= group[i]);
	if (!any)
		ix_fail(&err, IX_EXIT_USAGE, "no test of --test is a %s test", sub);
	if (!any || params(&o, sel, &p, &err) < 0)
		return ix_report_error("gpu", &err);
	return gpu_run(&o, &p, strcmp(sub, "inventory") == 0, "gpu", env);
}

int ix_gpu_cmd_pcie(int argc, char **argv, const struct ix_env *env)
{
	struct gpu_opts o = {
		.iterations = UNSET, .samples = UNSET, .warmup = UNSET, .hops = UNSET
	};
	struct ix_err err = { 0 };
	struct ix_gpu_params p;
	bool help, sel[IX_GPU_MAX_TESTS];
	int pos;

	if (ix_opts_parse(&pcie_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("bw", &err);
	if (help) {
		ix_opts_help(&pcie_spec, stdout);
		return IX_EXIT_OK;
	}
	if (!o.path || strcmp(o.path, "pcie") != 0)
		ix_fail(&err, IX_EXIT_USAGE, "this is the --path pcie of ixperf bw");
	else if (pos < argc)
		ix_fail(&err, IX_EXIT_USAGE,
			"--path pcie measures this host's GPUs: unexpected argument '%s'",
			argv[pos]);
	if (err.msg[0] || ix_gpu_select_tests("pcie", sel, &err) < 0 ||
	    params(&o, sel, &p, &err) < 0)
		return ix_report_error("bw", &err);
	return gpu_run(&o, &p, false, "bw", env);
}

int ix_gpu_check_run(const struct ix_gpu_req *q, json_t **out, struct ix_err *err)
{
	struct gpu_opts o = { .backend = q->backend,
			      .lib = q->lib,
			      .gpus = q->gpus,
			      .size = q->size,
			      .iterations = q->iterations ? q->iterations : UNSET,
			      .samples = q->samples ? q->samples : UNSET,
			      .warmup = UNSET,
			      .hops = UNSET };
	struct ix_gpu_ctx *c = calloc(1, sizeof(*c));
	struct ix_gpu_result *r = calloc(1, sizeof(*r));
	struct child ch = { NULL, o.lib };
	struct ix_gpu_params p;
	bool sel[IX_GPU_MAX_TESTS];
	int rc = -1;

	*out = NULL;
	if (!c || !r) {
		free(c);
		free(r);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	if (ix_gpu_select_tests(q->tests ? q->tests : "all", sel, err) < 0 ||
	    params(&o, sel, &p, err) < 0 || ix_gpu_open(c, o.backend, o.lib, err) < 0) {
		free(c);
		free(r);
		return -1;
	}
	if (inventory_of(c, &p, &ch, r, err) < 0)
		goto out;
	rc = ix_gpu_bench_run(c, &p, r, err);
	*out = ix_json_gpu(r);
	if (rc == 0)
		rc = outcome(r, err);
out:
	release(c, r);
	return rc;
}
