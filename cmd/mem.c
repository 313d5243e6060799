/* ixperf mem: bandwidth and latency of every NUMA node's memory from every
 * node with CPUs, against what the firmware advertises (HMAT). */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/mem/mem.h"
#include "report/json/json.h"
#include "report/text/text.h"

struct mem_opts {
	const char *initiators, *nodes, *tests;
	uint64_t threads, size, lat_size;
	double time_s, slack;
	bool no_huge, json, check, help;
	const char *output, *sysfs;
};

static const struct ix_option mem_options[] = {
	{ 'i', "initiators", IX_OPT_STRING, offsetof(struct mem_opts, initiators), "NODES",
	  "the nodes whose CPUs run the threads (e.g. 0,2-3; default every node with CPUs)", 0, 0 },
	{ 'm', "nodes", IX_OPT_STRING, offsetof(struct mem_opts, nodes), "NODES",
	  "the memory nodes measured, CPU-less ones included (default every node with memory)", 0,
	  0 },
	{ 0, "tests", IX_OPT_STRING, offsetof(struct mem_opts, tests), "LIST",
	  "of read, write, nt_write, copy, latency, loaded (default all)", 0, 0 },
	{ 'T', "threads", IX_OPT_UINT, offsetof(struct mem_opts, threads), "N",
	  "threads per initiator, one per CPU in turn (default one per CPU of the node)", 1, 1024 },
	{ 's', "size", IX_OPT_SIZE, offsetof(struct mem_opts, size), "BYTES",
	  "each thread's bandwidth buffer (default twice the largest cache, 64Mi at least)",
	  4u << 20, 1ull << 40 },
	{ 0, "latency-size", IX_OPT_SIZE, offsetof(struct mem_opts, lat_size), "BYTES",
	  "the pointer chase's buffer (default 8 times the largest cache, 256Mi at least)",
	  1u << 20, 1ull << 40 },
	{ 't', "time", IX_OPT_SECONDS, offsetof(struct mem_opts, time_s), "SECONDS",
	  "each measurement's window (default 0.5)", 0.01, 60 },
	{ 0, "no-hugepages", IX_OPT_FLAG, offsetof(struct mem_opts, no_huge), NULL,
	  "chase over base pages (every load a TLB miss too) instead of huge pages", 0, 0 },
	{ 0, "slack", IX_OPT_NUMBER, offsetof(struct mem_opts, slack), "PERCENT",
	  "a pair is SLOW past advertised x (1 -/+ PERCENT/100) (default 25)", 0, 1000 },
	{ 0, "check", IX_OPT_FLAG, offsetof(struct mem_opts, check), NULL,
	  "exit 4 when a pair is slower than advertised", 0, 0 },
	{ 0, "sysfs", IX_OPT_STRING, offsetof(struct mem_opts, sysfs), "ROOT",
	  "read nodes and HMAT under ROOT/sys instead of /sys", 0, 0 },
	{ 'J', "json", IX_OPT_FLAG, offsetof(struct mem_opts, json), NULL,
	  "one JSON document on stdout (diagnostics on stderr)", 0, 0 },
	{ 'o', "output", IX_OPT_STRING, offsetof(struct mem_opts, output), "FILE",
	  "write the report to FILE atomically instead of stdout", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct mem_opts, help), NULL, "show this help", 0, 0 },
};

const struct ix_cmd_spec ix_mem_spec = {
	.name = "mem",
	.usage = "[OPTIONS]",
	.summary = "Measure every NUMA node's memory (CXL included) from every node's CPUs",
	.opts = mem_options,
	.nopts = IX_OPTS_END(mem_options),
	.epilog = "For each node with CPUs (initiator) and each node with memory (target):\n"
		  "read, write, non-temporal write and copy bandwidth of threads bound to the\n"
		  "initiator's CPUs over buffers bound to the target (mbind, strict; the\n"
		  "pages' placement checked), the idle latency of a dependent pointer chase\n"
		  "in random order, and the latency while the other threads read at rising\n"
		  "rates. Beside them, what the firmware advertises (ACPI HMAT, under\n"
		  "/sys/devices/system/node/nodeN/accessC/initiators/), and the ratio.\n"
		  "Exit status: 0, 4 with --check when a pair is SLOW, 1 when nothing could\n"
		  "be measured, 2 a bad command line.\n"
		  "Examples:\n"
		  "  ixperf mem\n"
		  "  ixperf mem -i 0 -m 2 --tests latency,loaded\n"
		  "  ixperf mem --check --json -o mem.json\n",
};

static atomic_int interrupted;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&interrupted, 1);
}

static int params(const struct mem_opts *o, struct ix_mem_params *p, struct ix_err *err)
{
	memset(p, 0, sizeof(*p));
	p->tests = IX_MEM_T_ALL;
	if (o->initiators && ix_mem_nodelist(o->initiators, &p->initiators, err) < 0)
		return ix_fail_prefix(err, "--initiators");
	if (o->nodes && ix_mem_nodelist(o->nodes, &p->targets, err) < 0)
		return ix_fail_prefix(err, "--nodes");
	if (o->tests && ix_mem_tests_parse(o->tests, &p->tests, err) < 0)
		return ix_fail_prefix(err, "--tests");
	p->threads = (uint32_t)o->threads;
	p->buf_bytes = o->size;
	p->lat_bytes = o->lat_size;
	p->time_s = o->time_s > 0 ? o->time_s : 0.5;
	p->no_huge = o->no_huge;
	p->slack = o->slack >= 0 ? o->slack / 100 : 0.25;
	p->sysfs = o->sysfs ? o->sysfs : "";
	return 0;
}

static uint32_t measured(const struct ix_mem_result *r, uint32_t *slow)
{
	uint32_t n = 0;

	*slow = 0;
	for (uint32_t i = 0; i < r->ncells; i++) {
		n += r->cells[i].measured;
		*slow += r->cells[i].slow;
	}
	return n;
}

int ix_mem_check_run(const struct ix_mem_params *p, const char *sysfs, json_t *results,
		     struct ix_err *err)
{
	struct ix_mem_params q = *p;
	struct ix_mem_result r;
	int rc = 0;

	q.sysfs = sysfs;
	if (ix_mem_run(&q, &r, NULL, err) < 0) {
		ix_mem_result_free(&r);
		return -1;
	}
	json_array_append_new(results, ix_json_mem(&r));
	for (uint32_t i = 0; i < r.ncells && rc == 0; i++)
		if (!r.cells[i].measured)
			rc = ix_fail(err, IX_EXIT_FAIL, "node %d from node %d not measured: %s",
				     r.cells[i].target, r.cells[i].initiator, r.cells[i].why);
	if (rc == 0 && !r.ncells)
		rc = ix_fail(err, IX_EXIT_FAIL, "no (initiator, memory node) pair to measure");
	ix_mem_result_free(&r);
	return rc;
}

int cmd_mem(int argc, char **argv, const struct ix_env *env)
{
	struct mem_opts o = { .slack = -1 };
	struct ix_mem_params p;
	struct ix_mem_result r;
	struct ix_err err = { 0 };
	struct ix_sink sink;
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	uint32_t slow;
	bool help;
	int pos, rc;

	if (ix_opts_parse(&ix_mem_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("mem", &err);
	if (help) {
		ix_opts_help(&ix_mem_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos < argc) {
		ix_fail(&err, IX_EXIT_USAGE, "unexpected argument '%s'", argv[pos]);
		return ix_report_error("mem", &err);
	}
	if (params(&o, &p, &err) < 0)
		return ix_report_error("mem", &err);
	atomic_store(&interrupted, 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = ix_mem_run(&p, &r, &interrupted, &err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc < 0) {
		ix_mem_result_free(&r);
		return ix_report_error_json("mem", o.json, o.output, env, &err);
	}
	if (ix_sink_open(&sink, o.output, &err) < 0) {
		ix_mem_result_free(&r);
		return ix_report_error("mem", &err);
	}
	if (o.json)
		ix_sink_put_json(&sink, ix_json_document("mem", env->argc, env->argv,
							 json_pack("[o]", ix_json_mem(&r)),
							 r.complete ? NULL : r.error));
	else
		ix_text_mem(sink.f, &r);
	rc = !measured(&r, &slow)               ? IX_EXIT_FAIL
	     : o.check && (slow || !r.complete) ? IX_EXIT_THRESHOLD
						: IX_EXIT_OK;
	ix_mem_result_free(&r);
	if (ix_sink_commit(&sink, &err) < 0)
		return ix_report_error("mem", &err);
	if (rc == IX_EXIT_FAIL)
		fprintf(stderr, "ixperf mem: no pair could be measured (each says why)\n");
	return rc;
}
