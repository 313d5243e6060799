/* Unit tests for probes/gpu/bench.c, names.c and report/json/gpu.c over the simulated
 * backend of fake.c: the inventory joined with a sysfs tree built
 * here, matrix shapes and labels, the unit arithmetic, "% of reference",
 * medians, shared links, skip reasons, failures that keep what was
 * measured, the IPC test (a second process forked here; the channel's
 * messages are test_ipc.c's), and the JSON (round trip, schema) and text renderings. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/gpu/bench.h"
#include "report/html/html.h"
#include "report/json/json.h"
#include "report/text/text.h"
#include "tests/unit/common.h"
#include "tests/unit/data.h"
#include "tests/unit/probes/gpu/fake.h"

static char root[256];
static struct gpu_fake_config cfg;
static struct ix_gpu_ctx ctx;
static struct ix_gpu_result res;
static struct ix_gpu_params par;

/* Gen5 x16 per direction after 128b/130b, in bytes per second. */
#define GEN5X16 (32e9 * 16 * 128 / 130 / 8)

/* A PCI function at devices/CHAIN linked from bus/pci/devices;
 * link: current GT/s, width, max GT/s, max width. */
static void dev(const char *chain, const char *class, const char *numa, const char *cur,
		const char *width, const char *max)
{
	char dir[1024], bus[1024], target[1024];
	const char *bdf = strrchr(chain, '/') + 1;

	snprintf(dir, sizeof(dir), "%s/sys/devices/%s", root, chain);
	ix_test_mkdirs(dir);
	ix_test_put(dir, "class", class);
	ix_test_put(dir, "vendor", "0x10de");
	ix_test_put(dir, "device", "0x2335");
	ix_test_put(dir, "numa_node", numa);
	ix_test_put(dir, "current_link_speed", cur);
	ix_test_put(dir, "current_link_width", width);
	ix_test_put(dir, "max_link_speed", max);
	ix_test_put(dir, "max_link_width", "16");
	snprintf(bus, sizeof(bus), "%s/sys/bus/pci/devices", root);
	ix_test_mkdirs(bus);
	snprintf(bus + strlen(bus), sizeof(bus) - strlen(bus), "/%s", bdf);
	snprintf(target, sizeof(target), "../../../devices/%s", chain);
	cr_assert_eq(symlink(target, bus), 0, "%s", strerror(errno));
}

/* GPU0 at Gen5 x16; GPU1 idle at Gen1 x16 in a Gen5 x16 slot; 0000:1a:00.0 absent. */
static void make_root(void)
{
	snprintf(root, sizeof(root), "%s/ixgpu-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(root));
	dev("pci0000:17/0000:17:01.0", "0x060400", "0", "32.0 GT/s PCIe", "16", "32.0 GT/s PCIe");
	dev("pci0000:17/0000:17:01.0/0000:18:00.0", "0x030200", "0", "32.0 GT/s PCIe", "16",
	    "32.0 GT/s PCIe");
	dev("pci0000:17/0000:17:02.0", "0x060400", "1", "32.0 GT/s PCIe", "16", "32.0 GT/s PCIe");
	dev("pci0000:17/0000:17:02.0/0000:19:00.0", "0x030200", "1", "2.5 GT/s PCIe", "16",
	    "32.0 GT/s PCIe");
}

static void drop_root(void)
{
	char cmd[512];

	ix_gpu_result_free(&res);
	if (ctx.be)
		ctx.be->close(ctx.g);
	memset(&ctx, 0, sizeof(ctx));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(gpu_bench, .init = make_root, .fini = drop_root);

/* The simulated machine of cfg, its inventory, and parameters for names
 * (NULL: every test): 1 MiB copies, 4 repetitions, 3 samples. */
static void prepare(const char *const *names)
{
	struct ix_err err = { 0 };

	cr_assert_eq(gpu_fake_ctx(&ctx, &cfg, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_gpu_inventory(&ctx, root, 0, &res, &err), 0, "%s", err.msg);
	ix_gpu_params_default(&par);
	par.size = 1 << 20;
	par.iterations = 4;
	par.samples = 3;
	par.warmup = 1;
	par.hops = 1000;
	if (!names)
		return;
	memset(par.tests, 0, sizeof(par.tests));
	for (size_t k = 0; names[k]; k++) {
		int i = ix_gpu_test_find(names[k]);

		cr_assert_geq(i, 0, "%s is not a test", names[k]);
		par.tests[i] = true;
	}
}

static void go(void)
{
	struct ix_err err = { 0 };

	cr_assert_eq(ix_gpu_bench_run(&ctx, &par, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(gpu_fake_live_buffers(ctx.g), 0, "buffers left allocated");
	for (int i = 0; i < ctx.ndevices; i++)
		for (int j = 0; j < ctx.ndevices; j++)
			cr_assert(!gpu_fake_peer_on(ctx.g, i, j), "peer access %d->%d left on", i,
				  j);
}

static const struct ix_gpu_meas *meas(const char *name)
{
	for (size_t i = 0; i < res.nmeas; i++)
		if (strcmp(res.meas[i].test->name, name) == 0)
			return &res.meas[i];
	cr_assert_fail("%s was not run", name);
	return NULL;
}

static const struct ix_gpu_cell *cell(const struct ix_gpu_meas *m, int a, int b)
{
	cr_assert_lt(a, m->rows);
	cr_assert_lt(b, m->cols);
	return &m->cells[(size_t)a * m->cols + b];
}

static void near(double got, double want)
{
	cr_assert_float_eq(got, want, 1e-9 * want + 1e-9, "%.17g, expected %.17g", got, want);
}

Test(gpu_bench, inventory_joins_links_numa_and_peers)
{
	struct ix_err err = { 0 };

	gpu_fake_defaults(&cfg, 3);
	cfg.deny[1][0] = true;
	snprintf(cfg.bus_id[1], sizeof(cfg.bus_id[1]), "00000000:19:00.0"); /* CUDA's form */
	prepare(NULL);
	cr_assert_eq(res.ndevices, 3);
	cr_assert(res.dev[0].pci_found && res.dev[0].link_Bps.valid);
	near(res.dev[0].link_Bps.v, GEN5X16);
	cr_assert_eq(res.dev[0].link.gen, 5);
	/* an idle GPU slows its link down: the reference is what both ends support */
	cr_assert_eq(res.dev[1].link.gen, 1);
	near(res.dev[1].link_Bps.v, GEN5X16);
	cr_assert_eq(res.dev[0].info.numa_node, 0);
	cr_assert_eq(res.dev[1].info.numa_node, 1);
	cr_assert(!res.dev[2].pci_found && !res.dev[2].link_Bps.valid);
	cr_assert_eq(res.nnotes, 1);
	cr_assert(strstr(res.notes[0], "GPU2") && strstr(res.notes[0], "0000:1a:00.0"), "%s",
		  res.notes[0]);
	cr_assert_eq(res.peer[0][1], IX_GPU_PEER_YES);
	cr_assert_eq(res.peer[1][0], IX_GPU_PEER_NO);
	cr_assert_eq(res.peer[0][0], IX_GPU_PEER_UNKNOWN);
	ix_gpu_result_free(&res);
	cr_assert_eq(ix_gpu_inventory(&ctx, root, 1ull << 5, &res, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "GPU 5"), "%s", err.msg);
	cr_assert_eq(ix_gpu_inventory(&ctx, root, 0x5, &res, &err), 0);
	cr_assert(res.dev[0].selected && !res.dev[1].selected && res.dev[2].selected);
	ctx.ndevices = 0;
	cr_assert_eq(ix_gpu_inventory(&ctx, root, 0, &res, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
}

Test(gpu_bench, host_matrices_units_and_percent_of_link)
{
	static const char *const names[] = { "host_to_device_memcpy_ce", "device_to_host_memcpy_ce",
					     "host_to_device_pageable_memcpy_ce",
					     "host_to_device_bidirectional_memcpy_ce", NULL };
	const struct ix_gpu_meas *m;
	double pct;

	gpu_fake_defaults(&cfg, 3);
	cfg.pageable_factor = 0.5;
	prepare(names);
	go();
	cr_assert(res.complete && res.measured);
	cr_assert_eq(res.nmeas, 4);
	m = meas("host_to_device_memcpy_ce");
	cr_assert_eq(m->status, IX_GPU_OK);
	cr_assert_eq(m->rows, 1);
	cr_assert_eq(m->cols, 3);
	cr_assert_eq(m->row_dev[0], IX_GPU_HOST);
	cr_assert_eq(m->col_dev[2], 2);
	cr_assert_eq(m->ref, IX_GPU_REF_PCIE);
	cr_assert_eq(m->bytes, 1 << 20);
	near(cell(m, 0, 0)->value.v, 50e9); /* bytes x repetitions / time */
	near(cell(m, 0, 0)->reference.v, GEN5X16);
	cr_assert(ix_gpu_cell_percent(m, cell(m, 0, 1), &pct));
	near(pct, 100 * 50e9 / GEN5X16);
	cr_assert(!cell(m, 0, 2)->reference.valid, "GPU2 has no link in sysfs");
	cr_assert(!ix_gpu_cell_percent(m, cell(m, 0, 2), &pct));
	cr_assert_eq(cell(m, 0, 2)->state, IX_GPU_CELL_OK);
	m = meas("device_to_host_memcpy_ce");
	cr_assert_eq(m->rows, 3);
	cr_assert_eq(m->cols, 1);
	cr_assert_eq(m->col_dev[0], IX_GPU_HOST);
	near(cell(m, 1, 0)->value.v, 50e9);
	near(meas("host_to_device_pageable_memcpy_ce")->cells[1].value.v, 25e9);
	/* the other direction has a link of its own: nothing is shared */
	near(meas("host_to_device_bidirectional_memcpy_ce")->cells[0].value.v, 50e9);
	cr_assert_eq(gpu_fake_max_batch(ctx.g), 2);
}

Test(gpu_bench, device_local_copy_counts_bytes_once)
{
	static const char *const names[] = { "device_local_copy", NULL };
	const struct ix_gpu_meas *m;
	double pct;

	gpu_fake_defaults(&cfg, 2);
	cfg.hbm_Bps[1] = 0; /* not reported */
	prepare(names);
	go();
	m = meas("device_local_copy");
	cr_assert_eq(m->rows, 1);
	cr_assert_eq(m->row_dev[0], IX_GPU_LOCAL);
	cr_assert_eq(m->ref, IX_GPU_REF_HBM);
	cr_assert_float_eq(m->traffic_factor, 2, 0);
	near(cell(m, 0, 0)->value.v, 2e12); /* half the HBM rate: read and write */
	cr_assert(ix_gpu_cell_percent(m, cell(m, 0, 0), &pct));
	near(pct, 100);
	cr_assert(!ix_gpu_cell_percent(m, cell(m, 0, 1), &pct));
}

Test(gpu_bench, median_min_max_of_samples)
{
	static const char *const names[] = { "host_to_device_memcpy_ce", NULL };
	const struct ix_gpu_cell *c;

	gpu_fake_defaults(&cfg, 1);
	cfg.njitter = 3;
	cfg.jitter[0] = 1;
	cfg.jitter[1] = 2;
	cfg.jitter[2] = 0.5;
	prepare(names);
	go();
	c = cell(meas("host_to_device_memcpy_ce"), 0, 0);
	near(c->value.v, 50e9);
	near(c->min.v, 25e9);
	near(c->max.v, 100e9);
	ix_gpu_result_free(&res);
	ctx.be->close(ctx.g);
	cfg.njitter = 4;
	cfg.jitter[3] = 4;
	prepare(names);
	par.samples = 4; /* an even count: the mean of the middle two */
	go();
	c = cell(meas("host_to_device_memcpy_ce"), 0, 0);
	near(c->value.v, (25e9 + 50e9) / 2);
	near(c->min.v, 12.5e9);
}

Test(gpu_bench, peer_matrix_shared_links_and_aggregates)
{
	static const char *const names[] = { "device_to_device_memcpy_read_ce",
					     "device_to_device_bidirectional_memcpy_write_ce",
					     "device_to_device_memcpy_write_sm",
					     "all_to_one_write_ce",
					     "one_to_all_read_ce",
					     NULL };
	const struct ix_gpu_meas *m;

	gpu_fake_defaults(&cfg, 3);
	for (int i = 0; i < 3; i++)
		cfg.nvlink_Bps[i] = 400e9;
	cfg.peer_Bps[2][0] = cfg.peer_Bps[0][2] = 0; /* GPU0 and GPU2 cannot reach each other */
	cfg.sm_factor = 0.5;
	prepare(names);
	go();
	cr_assert(res.complete, "%s", res.error);
	m = meas("device_to_device_memcpy_read_ce");
	cr_assert_eq(m->rows, 3);
	cr_assert_eq(m->cols, 3);
	cr_assert_eq(m->ref, IX_GPU_REF_NONE);
	cr_assert_eq(cell(m, 0, 0)->state, IX_GPU_CELL_NONE);
	cr_assert_eq(cell(m, 0, 2)->state, IX_GPU_CELL_NONE);
	cr_assert_eq(cell(m, 2, 0)->state, IX_GPU_CELL_NONE);
	near(cell(m, 0, 1)->value.v, 300e9);
	near(cell(m, 2, 1)->value.v, 300e9);
	near(cell(meas("device_to_device_bidirectional_memcpy_write_ce"), 1, 0)->value.v, 300e9);
	near(cell(meas("device_to_device_memcpy_write_sm"), 1, 2)->value.v, 150e9);
	/* Every other GPU into GPU1 at once shares GPU1's 400 GB/s way in. */
	m = meas("all_to_one_write_ce");
	cr_assert_eq(m->rows, 1);
	cr_assert_eq(m->row_dev[0], IX_GPU_ALL);
	near(cell(m, 0, 1)->value.v, 400e9);
	cr_assert_eq(cell(m, 0, 0)->state, IX_GPU_CELL_NONE, "GPU2 cannot reach GPU0");
	m = meas("one_to_all_read_ce");
	cr_assert_eq(m->cols, 1);
	cr_assert_eq(m->col_dev[0], IX_GPU_ALL);
	near(cell(m, 1, 0)->value.v, 400e9);
	cr_assert_eq(gpu_fake_max_batch(ctx.g), 2);
}

Test(gpu_bench, through_host_turns_peer_access_off)
{
	static const char *const names[] = { "device_to_device_memcpy_read_ce",
					     "device_to_device_through_host_memcpy_ce", NULL };
	const struct ix_gpu_meas *m;
	double pct;

	gpu_fake_defaults(&cfg, 2);
	cfg.staged_factor = 0.8;
	cfg.pcie_Bps[1] = 40e9;
	prepare(names);
	go();
	m = meas("device_to_device_through_host_memcpy_ce");
	cr_assert_eq(m->status, IX_GPU_OK);
	near(cell(m, 0, 1)->value.v, 40e9 * 0.8); /* not the 300 GB/s peer link */
	near(cell(m, 0, 1)->reference.v, GEN5X16);
	cr_assert(ix_gpu_cell_percent(m, cell(m, 0, 1), &pct));
	near(pct, 100 * 32e9 / GEN5X16);
	cr_assert_eq(cell(m, 1, 1)->state, IX_GPU_CELL_NONE);
}

Test(gpu_bench, latency_in_ns_per_hop)
{
	static const char *const names[] = { "host_device_latency_sm",
					     "device_to_device_latency_sm", NULL };
	const struct ix_gpu_meas *m;

	gpu_fake_defaults(&cfg, 2);
	cfg.deny[1][0] = true; /* GPU1 cannot reach GPU0's memory */
	prepare(names);
	par.size = 4096; /* smaller than 64 strides: the chain grows to 64 */
	go();
	m = meas("host_device_latency_sm");
	cr_assert_eq(m->row_dev[0], IX_GPU_HOST);
	cr_assert_eq(m->bytes, 64 * IX_GPU_DEFAULT_STRIDE);
	near(cell(m, 0, 1)->value.v, 800);
	m = meas("device_to_device_latency_sm");
	near(cell(m, 0, 0)->value.v, 600);
	near(cell(m, 1, 0)->value.v, 1500);
	cr_assert_eq(cell(m, 0, 1)->state, IX_GPU_CELL_NONE);
	cr_assert(!cell(m, 0, 0)->reference.valid);
}

static const char *reason(const char *name)
{
	const struct ix_gpu_meas *m = meas(name);

	cr_assert_eq(m->status, IX_GPU_SKIPPED, "%s was not skipped", name);
	return m->reason;
}

Test(gpu_bench, skip_reasons)
{
	gpu_fake_defaults(&cfg, 1);
	prepare(NULL);
	go();
	cr_assert(strstr(reason("device_to_device_memcpy_read_ce"), "two GPUs"));
	cr_assert_eq(meas("device_to_device_memcpy_read_ce")->rows, 0,
		     "a skipped test has no matrix");
	cr_assert(strstr(reason("all_to_one_write_sm"), "two GPUs"));
	cr_assert(strstr(reason("device_to_device_through_host_memcpy_ce"), "two GPUs"));
	cr_assert(strstr(reason("ipc_memcpy_ce"), "second process"));
	cr_assert_eq(meas("device_to_device_latency_sm")->status, IX_GPU_OK); /* its own memory */
	cr_assert(res.complete);
	ix_gpu_result_free(&res);
	ctx.be->close(ctx.g);

	gpu_fake_defaults(&cfg, 2);
	cfg.caps = IX_GPU_CAP_IPC;
	prepare(NULL);
	go();
	cr_assert(strstr(reason("host_to_device_memcpy_sm"), "kernels"));
	cr_assert(strstr(reason("host_device_latency_sm"), "kernels"));
	cr_assert(strstr(reason("device_to_device_memcpy_read_ce"), "no peer access"));
	cr_assert_eq(meas("device_to_device_through_host_memcpy_ce")->status, IX_GPU_OK);
	cr_assert_eq(meas("host_to_device_memcpy_ce")->status, IX_GPU_OK);
	ix_gpu_result_free(&res);
	ctx.be->close(ctx.g);

	gpu_fake_defaults(&cfg, 2);
	cfg.peer_Bps[0][1] = cfg.peer_Bps[1][0] = 0;
	prepare(NULL);
	go();
	cr_assert(strstr(reason("one_to_all_write_ce"), "no two of the selected GPUs"));
}

Test(gpu_bench, failure_midway_keeps_what_was_measured)
{
	static const char *const names[] = { "host_to_device_memcpy_ce", "device_to_host_memcpy_ce",
					     NULL };
	const struct ix_gpu_meas *m;
	json_t *j;

	gpu_fake_defaults(&cfg, 3);
	cfg.fail_call = "copy_batch";
	cfg.fail_after = 2;
	prepare(names);
	par.samples = 1;
	go();
	cr_assert(!res.complete);
	cr_assert(strncmp(res.error, "host_to_device_memcpy_ce: ", 26) == 0, "%s", res.error);
	m = meas("host_to_device_memcpy_ce");
	cr_assert_eq(m->status, IX_GPU_FAILED);
	cr_assert(strstr(m->reason, "injected failure"), "%s", m->reason);
	cr_assert_eq(cell(m, 0, 0)->state, IX_GPU_CELL_OK);
	cr_assert_eq(cell(m, 0, 1)->state, IX_GPU_CELL_OK);
	cr_assert_eq(cell(m, 0, 2)->state, IX_GPU_CELL_FAILED);
	m = meas("device_to_host_memcpy_ce");
	cr_assert_eq(m->status, IX_GPU_FAILED);
	cr_assert_eq(cell(m, 0, 0)->state, IX_GPU_CELL_FAILED);
	cr_assert_eq(cell(m, 1, 0)->state, IX_GPU_CELL_PENDING);
	j = ix_test_json_roundtrip(ix_json_gpu(&res));
	cr_assert_str_eq(
		json_string_value(json_array_get(
			json_array_get(
				json_object_get(
					json_object_get(
						json_array_get(json_object_get(j, "tests"), 0),
						"matrix"),
					"state"),
				0),
			2)),
		"failed");
	cr_assert(json_is_false(json_object_get(j, "complete")));
	json_decref(j);
}

Test(gpu_bench, failed_allocation_frees_what_it_had)
{
	static const char *const names[] = { "host_to_device_memcpy_ce", NULL };
	const struct ix_gpu_meas *m;

	gpu_fake_defaults(&cfg, 1);
	cfg.fail_call = "alloc";
	cfg.fail_after = 1; /* the host buffer, then not the GPU's */
	prepare(names);
	go();
	m = meas("host_to_device_memcpy_ce");
	cr_assert_eq(m->status, IX_GPU_FAILED);
	cr_assert(strstr(m->reason, "device memory") && strstr(m->reason, "injected"), "%s",
		  m->reason);
}

/* How the second process is started here: forked, on the same simulated
 * backend, or answering every request with why, or gone at once. */
struct child {
	struct ix_gpu_ctx *c;
	struct ix_err why;
	bool vanish;
};

static int fork_child(void *arg, int fd, pid_t *pid, struct ix_err *err)
{
	struct child *ch = arg;
	pid_t p = fork();

	if (p < 0)
		return ix_fail(err, IX_EXIT_FAIL, "fork: %s", strerror(errno));
	if (p == 0) {
		struct ix_err e = { 0 };

		if (ch->vanish)
			_exit(0);
		_exit(ix_gpu_ipc_serve(fd, ch->c, &ch->why, &e) < 0 ? 1 : 0);
	}
	*pid = p;
	return 0;
}

Test(gpu_bench, ipc_through_a_second_process)
{
	static const char *const names[] = { "ipc_memcpy_ce", NULL };
	struct child ch = { .c = &ctx };
	const struct ix_gpu_meas *m;
	double pct;

	gpu_fake_defaults(&cfg, 2);
	cfg.ipc_factor = 0.9;
	prepare(names);
	par.ipc.start = fork_child;
	par.ipc.arg = &ch;
	go();
	m = meas("ipc_memcpy_ce");
	cr_assert_eq(m->status, IX_GPU_OK, "%s", m->reason);
	cr_assert_eq(m->ref, IX_GPU_REF_INPROC);
	near(cell(m, 0, 1)->reference.v, 300e9); /* the same copy in this process */
	near(cell(m, 0, 1)->value.v, 0.9 * 300e9);
	near(cell(m, 1, 1)->reference.v, 2e12);
	cr_assert(ix_gpu_cell_percent(m, cell(m, 1, 1), &pct));
	near(pct, 90);
}

Test(gpu_bench, ipc_failures_are_reported)
{
	static const char *const names[] = { "ipc_memcpy_ce", NULL };
	struct child ch = { .c = NULL, .why = { IX_EXIT_UNAVAILABLE, "libcuda.so.1 not found" } };
	const struct ix_gpu_meas *m;

	gpu_fake_defaults(&cfg, 1);
	prepare(names);
	par.ipc.start = fork_child;
	par.ipc.arg = &ch;
	go();
	m = meas("ipc_memcpy_ce");
	cr_assert_eq(m->status, IX_GPU_FAILED);
	cr_assert(strstr(m->reason, "the other process: libcuda.so.1 not found"), "%s", m->reason);
	cr_assert(cell(m, 0, 0)->reference.valid, "the in-process figure is kept");
	ix_gpu_result_free(&res);
	ctx.be->close(ctx.g);

	ch.vanish = true;
	prepare(names);
	par.ipc.start = fork_child;
	par.ipc.arg = &ch;
	go();
	m = meas("ipc_memcpy_ce");
	cr_assert_eq(m->status, IX_GPU_FAILED);
	cr_assert(strstr(m->reason, "other process"), "%s", m->reason);
}

/* The document validates against report/json/ixperf-result.schema.json when
 * python3-jsonschema is there (noted otherwise). */
static void schema_check(json_t *doc)
{
	char file[300], script[300], cmd[5000];
	FILE *f;

	if (system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0) {
		cr_log_warn("python3-jsonschema is not installed: the schema is not checked");
		return;
	}
	snprintf(file, sizeof(file), "%s/doc.json", root);
	snprintf(script, sizeof(script), "%s/check.py", root);
	cr_assert_eq(json_dump_file(doc, file, 0), 0);
	f = fopen(script, "w");
	cr_assert_not_null(f);
	fputs("import json, sys, jsonschema\n"
	      "schema = json.load(open(sys.argv[1]))\n"
	      "jsonschema.validators.validator_for(schema)(schema).validate(json.load(open(sys."
	      "argv[2])))\n",
	      f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' '%s' '%s' >&2", script,
		 ix_test_data("../../report/json/ixperf-result.schema.json"), file);
	cr_assert_eq(system(cmd), 0, "the document does not validate against the schema");
}

Test(gpu_bench, json_round_trip_and_schema)
{
	static char *argv[] = { "ixperf", "gpu", "-J" };
	struct child ch = { .c = &ctx };
	json_t *doc, *r, *t;
	size_t n;
	const struct ix_gpu_test *tests;

	gpu_fake_defaults(&cfg, 3);
	cfg.caps |= IX_GPU_CAP_DMABUF;
	cfg.deny[0][2] = true;
	prepare(NULL);
	par.ipc.start = fork_child;
	par.ipc.arg = &ch;
	go();
	doc = ix_test_json_roundtrip(
		ix_json_document("gpu", 3, argv, json_pack("[o]", ix_json_gpu(&res)), NULL));
	r = json_array_get(json_object_get(doc, "results"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(r, "kind")), "gpu");
	n = ix_gpu_tests(&tests);
	cr_assert_eq(json_array_size(json_object_get(r, "tests")), n);
	cr_assert_eq(
		json_array_size(json_object_get(json_object_get(r, "backend"), "capabilities")), 4);
	cr_assert(json_is_false(json_array_get(
		json_array_get(json_object_get(json_object_get(r, "peer_access"), "matrix"), 0),
		2)));
	cr_assert(json_is_null(
		json_object_get(json_array_get(json_object_get(r, "devices"), 2), "pcie")));
	t = json_array_get(json_object_get(r, "tests"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(t, "unit")), "bytes_per_second");
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(t, "rows"), 0)), "host");
	cr_assert_float_eq(json_real_value(json_array_get(
				   json_array_get(json_object_get(json_object_get(t, "matrix"),
								  "percent_of_reference"),
						  0),
				   0)),
			   100 * 50e9 / GEN5X16, 1e-6);
	cr_assert(json_is_null(json_array_get(
		json_array_get(
			json_object_get(json_object_get(t, "matrix"), "percent_of_reference"), 0),
		2)));
	schema_check(doc);
	json_decref(doc);
}

static char *render_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	ix_text_gpu(f, &res);
	fclose(f);
	return buf;
}

Test(gpu_bench, text_like_nvbandwidth)
{
	char *out;

	gpu_fake_defaults(&cfg, 2);
	cfg.deny[1][0] = true;
	cfg.fail_call = "chase";
	prepare(NULL);
	go();
	out = render_text();
	cr_assert(strstr(out, "fake backend ((simulated), 0.0), 2 GPUs"), "%s", out);
	cr_assert(strstr(out, "Simulated GPU 1"), "%s", out);
	cr_assert(strstr(out, "Gen1 x16 / Gen5 x16"), "%s", out);
	cr_assert(strstr(out, "CE host(row) -> GPU(column), GB/s (% of PCIe link)"), "%s", out);
	cr_assert(strstr(out, "50.00 (79%)"), "%s", out);
	cr_assert(strstr(out, "CE GPU(column) -> host(row)"), "%s", out);
	cr_assert(strstr(out, "SUM host_to_device_memcpy_ce 100.00 GB/s"), "%s", out);
	cr_assert(strstr(out, "N/A"), "%s", out);
	cr_assert(strstr(out, "skipped: no second process"), "%s", out);
	cr_assert(strstr(out, "FAILED: chase: injected failure"), "%s", out);
	cr_assert(strstr(out, "INCOMPLETE: host_device_latency_sm: "), "%s", out);
	free(out);
}

Test(gpu_bench, test_list_and_descriptions)
{
	const struct ix_gpu_test *t;
	size_t n = ix_gpu_tests(&t);
	char desc[160], *buf = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_geq(n, 25);
	cr_assert_eq(ix_gpu_test_find("device_local_copy") >= 0, true);
	cr_assert_eq(ix_gpu_test_find("device_local"), -1);
	for (size_t i = 0; i < n; i++) {
		ix_gpu_test_describe(&t[i], desc, sizeof(desc));
		cr_assert_gt(strlen(desc), 10, "%s", t[i].name);
		for (size_t k = 0; k < i; k++)
			cr_assert_str_neq(t[i].name, t[k].name);
	}
	ix_gpu_test_describe(&t[ix_gpu_test_find("all_to_one_read_ce")], desc, sizeof(desc));
	cr_assert_str_eq(desc, "all other GPUs -> GPU at once, copy engine of the reader");
	f = open_memstream(&buf, &len);
	ix_text_gpu_tests(f);
	fclose(f);
	cr_assert(strstr(buf, "device_to_device_through_host_memcpy_ce"));
	free(buf);
}

Test(gpu_bench, html_section)
{
	static const char *const names[] = { "host_to_device_memcpy_ce", "device_local_copy",
					     "device_to_device_memcpy_read_ce", NULL };
	static char *argv[] = { "ixperf", "gpu" };
	struct ix_err err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	json_t *r, *doc;

	gpu_fake_defaults(&cfg, 2);
	prepare(names);
	go();
	r = ix_json_gpu(&res);
	f = open_memstream(&buf, &len);
	ix_html_gpu(f, r);
	fclose(f);
	cr_assert(strstr(buf, "<table class=\"gpu\">"), "%s", buf);
	cr_assert(strstr(buf, "50.00 GB/s<br>79%"), "%s", buf);
	cr_assert(strstr(buf, "Simulated GPU 0"), "%s", buf);
	cr_assert(strstr(buf, ">N/A<"), "%s", buf);
	free(buf);
	/* the whole page of a gpu document */
	doc = ix_json_document("gpu", 2, argv, json_pack("[o]", r), NULL);
	buf = NULL;
	f = open_memstream(&buf, &len);
	cr_assert_eq(ix_html_render(f, doc, NULL, 0, &err), 0, "%s", err.msg);
	fclose(f);
	cr_assert(strstr(buf, "<table class=\"gpu\">") && strstr(buf, "device_local_copy"), "%s",
		  buf);
	free(buf);
	json_decref(doc);
}

Test(gpu_bench, inventory_document)
{
	static char *argv[] = { "ixperf", "gpu", "inventory", "-J" };
	json_t *doc, *r;
	char *out;

	gpu_fake_defaults(&cfg, 2);
	cfg.deny[0][1] = true;
	prepare(NULL); /* nothing run: an inventory */
	out = render_text();
	cr_assert(!strstr(out, "bytes per copy"), "%s", out);
	cr_assert(strstr(out, "Peer access (row can reach column's memory)"), "%s", out);
	cr_assert(strstr(out, "GPU0       X    no\nGPU1     yes     X"), "%s", out);
	free(out);
	doc = ix_test_json_roundtrip(
		ix_json_document("gpu", 4, argv, json_pack("[o]", ix_json_gpu(&res)), NULL));
	r = json_array_get(json_object_get(doc, "results"), 0);
	cr_assert(json_is_null(json_object_get(r, "params")));
	cr_assert_eq(json_array_size(json_object_get(r, "tests")), 0);
	cr_assert(json_is_true(json_object_get(r, "complete")));
	schema_check(doc);
	json_decref(doc);
}

/* ixperf gpu's --test and --gpus lists, which plans take too. */
Test(gpu_lists, tests_groups_and_indexes)
{
	bool sel[IX_GPU_MAX_TESTS], all[IX_GPU_MAX_TESTS];
	struct ix_err err = { 0 };
	uint64_t mask;
	size_t n = 0, k = 0;
	int t = ix_gpu_test_find("device_local_copy");

	cr_assert_geq(t, 0);
	cr_assert_eq(ix_gpu_select_tests("pcie,device_local_copy", sel, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_gpu_select_tests("all", all, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < IX_GPU_MAX_TESTS; i++) {
		n += sel[i];
		k += all[i];
	}
	cr_expect(sel[t], "a test by name");
	cr_expect_gt(n, 1, "a group and a name");
	cr_expect_lt(n, k, "not every test");
	cr_expect_eq(ix_gpu_select_tests("pcie,warp", sel, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
	cr_expect_not_null(strstr(err.msg, "unknown test 'warp'"), "%s", err.msg);
	cr_expect_eq(ix_gpu_select_tests("pcie,", sel, &err), -1, "an empty name");
	cr_assert_eq(ix_gpu_parse_list("0,2-3", &mask, &err), 0, "%s", err.msg);
	cr_expect_eq(mask, 0xdull);
	cr_expect_eq(ix_gpu_parse_list("3-1", &mask, &err), -1);
	cr_expect_eq(ix_gpu_parse_list("0,", &mask, &err), -1);
	cr_expect_eq(ix_gpu_parse_list("64", &mask, &err), -1);
	cr_expect_not_null(strstr(err.msg, "--gpus"), "%s", err.msg);
}

/* host_to_all / all_to_host: each GPU's copy runs while every other GPU
 * copies too (bidirectional: both ways on every GPU). Host memory is
 * shared: 120 GB/s each way for 3 GPUs of 50 GB/s links. */
Test(gpu_bench, host_to_all_runs_every_gpu_at_once)
{
	static const char *const names[] = { "host_to_device_memcpy_ce", "host_to_all_memcpy_ce",
					     "all_to_host_memcpy_ce",
					     "host_to_all_bidirectional_memcpy_sm", NULL };
	const struct ix_gpu_meas *one, *all, *out, *bi;

	gpu_fake_defaults(&cfg, 3);
	cfg.host_Bps = 120e9;
	prepare(names);
	go();
	one = meas("host_to_device_memcpy_ce");
	all = meas("host_to_all_memcpy_ce");
	out = meas("all_to_host_memcpy_ce");
	bi = meas("host_to_all_bidirectional_memcpy_sm");
	cr_assert(all->status == IX_GPU_OK && out->status == IX_GPU_OK && bi->status == IX_GPU_OK);
	cr_assert(all->rows == 1 && all->cols == 3 && all->row_dev[0] == IX_GPU_HOST);
	cr_assert(out->rows == 3 && out->cols == 1 && out->col_dev[0] == IX_GPU_HOST);
	cr_assert_eq(gpu_fake_max_batch(ctx.g), 6, "bidirectional: 2 copies on each of 3 GPUs");
	for (int g = 0; g < 3; g++) {
		near(cell(one, 0, g)->value.v, 50e9); /* alone: the link */
		near(cell(all, 0, g)->value.v, 40e9); /* three share the host's 120 */
		near(cell(out, g, 0)->value.v, 40e9);
		near(cell(bi, 0, g)->value.v, 40e9); /* the other way does not share */
		cr_assert_eq(all->ref, IX_GPU_REF_PCIE);
	}
	near(cell(all, 0, 0)->reference.v, GEN5X16);
	cr_assert_eq(all->bytes, par.size, "the figure is the measured GPU's copy");
	cr_assert_eq(ix_gpu_select_tests("pcie", par.tests, &(struct ix_err){ 0 }), 0);
	cr_assert(!par.tests[ix_gpu_test_find("host_to_all_memcpy_ce")], "pcie: one at a time");
}
