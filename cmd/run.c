/* ixperf run [PLAN]: execute a plan of checks, judge every figure, write the
 * result JSON, the HTML report and a text summary, post, and exit with a
 * status a script can act on. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/launch.h"
#include "probes/agent/local.h"
#include "probes/cluster/coord.h"
#include "probes/cluster/fleet.h"
#include "probes/cluster/incast.h"
#include "probes/cluster/mesh.h"
#include "probes/cluster/patrun.h"
#include "probes/cluster/rails.h"
#include "probes/core/clock.h"
#include "probes/ctl/client.h"
#include "probes/gpu/gpu.h"
#include "probes/host/inventory.h"
#include "probes/host/topo_check.h"
#include "probes/net/net.h"
#include "probes/rdma/session.h"
#include "probes/rdma/verbs.h"
#include "report/doc/verdict.h"
#include "report/fmt/output.h"
#include "report/json/json.h"
#include "report/json/read.h"
#include "report/plan/plan.h"
#include "report/post/post.h"
#include "report/text/text.h"

struct run_opts {
	const char *output_dir;
	bool json;
	bool no_html;
	const char *history;
	const char *baseline;
	const char *token_file;
	struct ix_post_cli post;
	const char *units;
	bool check_plan;
	bool help;
};

static const struct ix_option run_options[] = {
	{ 'd', "output-dir", IX_OPT_STRING, offsetof(struct run_opts, output_dir), "DIR",
	  "where the result JSON and HTML go, timestamped (default ./ixperf-results)", 0, 0 },
	{ 'J', "json", IX_OPT_FLAG, offsetof(struct run_opts, json), NULL,
	  "print the result document on stdout instead of the text summary", 0, 0 },
	{ 0, "no-html", IX_OPT_FLAG, offsetof(struct run_opts, no_html), NULL,
	  "do not write the HTML report", 0, 0 },
	{ 0, "history", IX_OPT_STRING, offsetof(struct run_opts, history), "DIR",
	  "earlier run documents for trend charts (default: the output directory)", 0, 0 },
	{ 0, "baseline", IX_OPT_STRING, offsetof(struct run_opts, baseline), "FILE",
	  "result document that max_regression compares with (overrides the plan)", 0, 0 },
	{ 0, "token-file", IX_OPT_STRING, offsetof(struct run_opts, token_file), "FILE",
	  "shared token for the agents (overrides the plan; mode 600)", 0, 0 },
	IX_POST_OPTION_ROWS(struct run_opts, post),
	{ 0, "units", IX_OPT_STRING, offsetof(struct run_opts, units), "UNIT",
	  "bits (default), bytes, or bit Kbit Mbit Gbit Tbit B KB MB GB TB KiB MiB GiB TiB", 0, 0 },
	{ 0, "check-plan", IX_OPT_FLAG, offsetof(struct run_opts, check_plan), NULL,
	  "only read and check the plan, run nothing", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct run_opts, help), NULL, "show this help", 0, 0 },
};

const struct ix_cmd_spec ix_run_spec = {
	.name = "run",
	.usage = "[OPTIONS] [PLAN]",
	.summary = "Run an acceptance plan: every check judged, JSON + HTML + summary, posted",
	.opts = run_options,
	.nopts = IX_OPTS_END(run_options),
	.epilog = "Without PLAN, the embedded local acceptance plan runs against agents that\n"
		  "ixperf starts on loopback and stops afterwards. Plans: see ixperf-plan(5).\n"
		  "Started as the tasks of a job (srun, mpirun), every task runs an agent and\n"
		  "rank 0 runs the plan over them (hosts = tasks); see ixperf-launch(7).\n"
		  "Exit status: 0 every check passed, 4 a threshold failed, 1 a probe errored\n"
		  "(its partial figures are kept), 2 a bad plan or command line, 5 every check\n"
		  "passed but a --post target did not take the result (each one is named).\n",
};

/* Whether a check runs RDMA from this machine towards the local agents. */
static bool local_rdma(const struct ix_plan *pl, const struct ix_check *c)
{
	return (c->probe == IX_CHECK_BW || c->probe == IX_CHECK_LAT) &&
	       !strcmp(c->bw.path, "rdma") && ix_check_source(pl, c, false) == IX_SRC_LOCAL;
}

/* ---- launched as the tasks of a job (srun, mpirun) -------------------------------- */

/* Rank 0's side of a launch: every task's agent, and one coordinator
 * session with each held from the start of the plan to its end. A
 * launched agent stops when a coordinator's session with it ends
 * (cmd/launch.h), so every mesh and incast over the tasks goes through
 * these sessions, and closing them at the end releases the tasks. */
struct job {
	struct ix_spmd spmd;
	struct ix_hostlist hosts; /* by rank: hosts.v[r] is task r's agent */
	struct ix_token token;    /* the job's */
	struct ix_coord co;
	bool co_open;
};

/* The agents that failed, for messages: "failed agents: r3@node07:40211
 * (reason), ..." or "". */
static void failed_tasks(const struct ix_coord *co, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < co->n && n + 1 < len; i++) {
		char name[IX_HOST_NAME_MAX + 16];

		if (ix_coord_ready(co, i))
			continue;
		ix_host_format(&co->peers[i].host, name, sizeof(name));
		n += (size_t)snprintf(buf + n, len - n, "%s%s (%.120s)",
				      n ? ", " : "failed agents: ", name,
				      co->peers[i].error[0] ? co->peers[i].error : "not ready");
	}
}

/* 0: go on (*out NULL when this process is no task of a launch, else rank
 * 0's job); 1: this task served the job, exit with *exit_rc; -1 with err. */
static int job_begin(struct job **out, const struct ix_token *file, int *exit_rc,
		     struct ix_err *err)
{
	struct ix_spmd_opts so = { .token_file = file, .allow_missing = true };
	struct job *j = calloc(1, sizeof(*j));
	char why[1024];
	int rc;

	*out = NULL;
	if (!j)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	rc = ix_spmd_start(&j->spmd, "run", &so, &j->hosts, &j->token, exit_rc, err);
	if (rc != 1) {
		free(j);
		return rc == 2 ? 1 : rc;
	}
	/* Agents may still be starting: refused connects are retried. */
	ix_coord_open_patient(&j->co, &j->hosts, &j->token, IX_SPMD_STARTUP_S + 10,
			      IX_SPMD_STARTUP_S, err);
	j->co_open = true;
	ix_spmd_fail_missing(&j->spmd, &j->co); /* never started: failed hosts */
	failed_tasks(&j->co, why, sizeof(why));
	if (why[0])
		fprintf(stderr, "ixperf run: %s\n", why);
	*out = j;
	return 0;
}

/* Close the sessions (the other tasks' agents stop, and they exit 0),
 * then stop this task's agent and leave the launch. */
static void job_end(struct job *j)
{
	if (!j)
		return;
	if (j->co_open)
		ix_coord_close(&j->co);
	ix_spmd_end(&j->spmd);
	ix_hostlist_free(&j->hosts);
	free(j);
}

/* ---- running checks ---------------------------------------------------------- */

struct ctx {
	const struct ix_plan *plan;
	const struct ix_local_agents *la;
	const struct ix_token *token; /* the plan's or --token-file's */
	struct job *job;              /* NULL when not launched */
};

/* The agents one check runs over. */
struct target {
	struct ix_hostlist own;       /* parsed here (not the job's) */
	const struct ix_hostlist *hl; /* the check's hosts */
	struct ix_coord *co;          /* the job's sessions; NULL: one per check */
	const struct ix_token *token; /* for its agents */
	char first[IX_HOST_NAME_MAX]; /* the host %line limits take the link rate towards */
	char count[64];               /* "the job has 4 tasks", for messages */
};

static int target_of(const struct ctx *x, const struct ix_check *c, struct target *t,
		     struct ix_err *err)
{
	const char *spec = c->hosts[0] ? c->hosts : x->plan->hosts;
	enum ix_check_source src = ix_check_source(x->plan, c, x->job != NULL);
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->token = x->token;
	t->hl = &t->own;
	if (src == IX_SRC_TASKS && !x->job)
		return ix_fail(err, IX_EXIT_FAIL,
			       "hosts = " IX_PLAN_TASKS " names the agents of the job's tasks, and "
			       "this run was not started as tasks of a job (srun -n N, mpirun "
			       "-np N; ixperf-launch(7))");
	if (src == IX_SRC_TASKS) {
		const struct ix_hostlist *job = &x->job->hosts;

		t->token = &x->job->token;
		snprintf(t->count, sizeof(t->count), "the job has %zu tasks", job->n);
		if (c->probe == IX_CHECK_BW || c->probe == IX_CHECK_LAT) {
			/* Rank 0 is the client: it measures towards rank 1. */
			if (!ix_coord_ready(&x->job->co, 1))
				rc = ix_fail(err, IX_EXIT_FAIL, "rank 1's agent failed: %s",
					     x->job->co.peers[1].error);
			t->own.v = malloc(sizeof(*t->own.v));
			if (!t->own.v)
				return ix_fail(err, IX_EXIT_FAIL, "out of memory");
			t->own.v[0] = job->v[1];
			t->own.n = t->own.cap = 1;
		} else {
			t->hl = job;
			t->co = &x->job->co;
		}
	} else {
		const char *local = local_rdma(x->plan, c) && x->la->rdma_host[0] ? x->la->rdma_host
										  : x->la->hosts;

		if (src == IX_SRC_LOCAL) /* the run's own agents: their token */
			t->token = &x->la->token;
		rc = ix_hostlist_parse(src == IX_SRC_LOCAL ? local : spec, IX_DEFAULT_PORT, &t->own,
				       err);
		if (rc < 0) /* nothing half parsed */
			ix_hostlist_free(&t->own);
		snprintf(t->count, sizeof(t->count), "the check has %zu hosts", t->own.n);
	}
	if (rc == 0 && t->hl->n) /* over the tasks: the link towards rank 1 */
		snprintf(t->first, sizeof(t->first), "%s",
			 t->hl->v[t->co && t->hl->n > 1 ? 1 : 0].name);
	return rc;
}

/* bw and lat: one client towards the first host, one result per size. */
static int run_pair(const struct target *t, const struct ix_check *c, json_t *results,
		    struct ix_err *err)
{
	struct ix_client cl = {
		.host = t->hl->v[0].name, .port = t->hl->v[0].port, .token = t->token, .fd = -1
	};
	int rc = ix_client_connect(&cl, err);

	for (uint32_t i = 0; rc == 0 && i < c->nsizes; i++) {
		if (c->probe == IX_CHECK_BW) {
			struct ix_bw_params p = c->bw;
			struct ix_bw_result r;

			p.msg_size = c->sizes[i];
			rc = ix_bw_run(&cl, &p, &r, NULL, err);
			json_array_append_new(results, ix_json_bw(&r));
			ix_bw_result_free(&r);
		} else {
			struct ix_lat_params p = c->lat;
			struct ix_lat_result r;

			p.msg_size = c->sizes[i];
			rc = ix_lat_run(&cl, &p, &r, err);
			json_array_append_new(results, ix_json_lat(&r));
			ix_lat_result_free(&r);
		}
	}
	ix_client_close(&cl);
	return rc;
}

/* bw and lat over rdma: the tests of ixperf bw|lat --path rdma, on this
 * machine's device, one per size. */
static int run_rdma_pair(const struct target *t, const struct ix_check *c, json_t *results,
			 struct ix_err *err)
{
	struct ix_client cl = {
		.host = t->hl->v[0].name, .port = t->hl->v[0].port, .token = t->token, .fd = -1
	};
	struct ix_rdma_how how = { .dev = c->ib_dev[0] ? c->ib_dev : NULL,
				   .port = c->ib_port,
				   .gpu = c->gpu };
	struct ix_rdma_result *res = calloc(c->nsizes, sizeof(*res));
	char devs[1][64];
	size_t ndev, done = 0;
	int rc;

	if (!res)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	/* No device, no driver, no permission: said before any connection. */
	rc = ix_verbs_devices(devs, 1, &ndev, err);
	if (rc == 0)
		rc = ix_client_connect(&cl, err);
	if (rc == 0)
		rc = ix_rdma_run_sizes(&cl, &c->rdma, &how, c->sizes, c->nsizes, res, &done, err);
	ix_client_close(&cl);
	for (size_t i = 0; i < done; i++)
		json_array_append_new(results, ix_json_rdma(&res[i]));
	for (size_t i = 0; i < c->nsizes; i++)
		ix_rdma_result_free(&res[i]);
	free(res);
	return rc;
}

/* mesh with rails: each rail's mesh and the rails side by side. */
static int run_rails(struct ix_coord *co, const struct ix_hostlist *hl, const struct ix_check *c,
		     const struct ix_mesh_params *p, json_t *results, struct ix_err *err)
{
	struct ix_rails_mesh m;
	int rc = ix_rails_mesh(co, hl, &c->rails, p, &m, err);

	if (rc == 0) {
		json_t *a = ix_json_rails(&m.result);

		json_array_extend(results, a);
		json_decref(a);
		if (!m.result.complete)
			rc = ix_fail(err, IX_EXIT_FAIL, "some rails' pairs were not measured");
	}
	ix_rails_mesh_free(&m);
	return rc;
}

static int run_multi(const struct target *t, const struct ix_check *c, json_t *results,
		     struct ix_err *err)
{
	struct ix_coord own, *co = t->co;
	struct ix_pattern_result pr;
	char failed[512] = "";
	int rc;

	if (!co) {
		co = &own;
		ix_coord_open(co, t->hl, t->token, 10, err);
	}
	if (c->probe == IX_CHECK_MESH) {
		struct ix_mesh_result r;
		struct ix_mesh_params p = c->mesh;

		if (!p.rules.bw_fraction)
			p.rules.bw_fraction = 0.7;
		if (!p.rules.lat_factor)
			p.rules.lat_factor = 2.0;
		if (c->rails.n || c->rails.discover) {
			rc = run_rails(co, t->hl, c, &p, results, err);
			goto done;
		}
		if (c->pattern != IX_PATTERN_ALL_PAIRS) { /* its own connections, at once */
			rc = ix_pattern_run_open(t->hl, t->token, 10, c->pattern, &p,
						 c->pattern_rounds, c->seed, &pr, err);
			if (rc == 0 &&
			    (json_array_append_new(results, ix_json_pattern(&pr)), !pr.complete))
				rc = ix_fail(err, IX_EXIT_FAIL, "some tests failed");
			ix_pattern_result_free(&pr);
			goto done;
		}
		rc = ix_mesh_run(co, &p, t->hl, &r, NULL, err);
		if (rc == 0) {
			json_array_append_new(results, ix_json_mesh(&r));
			if (!r.complete) {
				failed_tasks(co, failed, sizeof(failed));
				rc = ix_fail(
					err, IX_EXIT_FAIL, "%llu of %llu pairs not measured%s%s",
					(unsigned long long)(r.pairs_planned - r.pairs_measured),
					(unsigned long long)r.pairs_planned, failed[0] ? ": " : "",
					failed);
			}
			ix_mesh_result_free(&r);
		}
	} else {
		struct ix_incast_result r;
		struct ix_incast_params p = c->incast;
		uint32_t fit[64];
		char skipped[160], notrun[IX_ERR_MAX] = "";

		p.sweep = fit;
		p.nsweep = ix_check_incast_fit(c, t->hl->n, fit, skipped, sizeof(skipped));
		if (skipped[0] || !p.nsweep)
			snprintf(notrun, sizeof(notrun),
				 "not run: the steps of %s senders (N senders need N + 1 agents, "
				 "and %s)%s",
				 skipped[0] ? skipped : "all", t->count,
				 p.nsweep ? "; the steps that fit ran and are kept" : "");
		rc = p.nsweep ? ix_incast_run(co, &p, t->hl, &r, err)
			      : ix_fail(err, IX_EXIT_FAIL, "%s", notrun);
		if (rc == 0) {
			json_array_append_new(results, ix_json_incast(&r));
			if (!r.complete)
				failed_tasks(co, failed, sizeof(failed));
			if (!r.complete || notrun[0])
				rc = ix_fail(err, IX_EXIT_FAIL, "%s%s%s%s%s",
					     r.complete ? "" : "a step of the sweep failed",
					     failed[0] ? ": " : "", failed,
					     !r.complete && notrun[0] ? "; " : "", notrun);
			ix_incast_result_free(&r);
		}
	}
done:
	if (co == &own)
		ix_coord_close(co);
	return rc;
}

/* inventory: every agent of the check's hosts (over the job's sessions
 * when launched), the odd ones out and every node's findings. */
static int run_inventory(const struct target *t, json_t *results, struct ix_err *err)
{
	struct ix_fleet_result f;

	if (ix_fleet_collect(t->co, t->hl, t->token, IX_FLEET_TIMEOUT_S, &f, err) < 0)
		return -1;
	json_array_append_new(results, ix_json_fleet(&f));
	ix_fleet_free(&f);
	return 0;
}

/* A coll check: its collective over this machine's GPUs. */
static int run_coll(const struct ix_check *c, json_t *results, struct ix_err *err)
{
#define OR_NULL(s) ((s)[0] ? (s) : NULL)
	struct ix_coll_req q = { .op = OR_NULL(c->coll_op),
				 .dtype = OR_NULL(c->coll_dtype),
				 .redop = OR_NULL(c->coll_redop),
				 .lib = OR_NULL(c->coll_lib),
				 .lib_path = OR_NULL(c->coll_lib_path),
				 .backend = OR_NULL(c->gpu_backend),
				 .gpu_lib = OR_NULL(c->gpu_lib),
				 .gpus = OR_NULL(c->gpus),
				 .sysfs = OR_NULL(c->sysfs),
				 .minbytes = c->coll_minbytes,
				 .maxbytes = c->coll_maxbytes,
				 .factor = c->coll_factor,
				 .iters = c->gpu_iterations,
				 .warmup = c->coll_warmup,
				 .timeout_s = c->coll_timeout_s };
#undef OR_NULL
	json_t *r;
	int rc = ix_coll_check_run(&q, &r, err);

	if (r)
		json_array_append_new(results, r);
	return rc;
}

/* gpu, coll, mem and topo: this machine, no agent. Its result appended to
 * results (the gpu, coll and mem ones also when a test failed); -1 with err. */
static int run_here(const struct ix_check *c, json_t *results, struct ix_err *err)
{
	if (c->probe == IX_CHECK_COLL)
		return run_coll(c, results, err);
	if (c->probe == IX_CHECK_MEM) /* cmd/mem.c */
		return ix_mem_check_run(&c->mem, c->sysfs, results, err);
	if (c->probe == IX_CHECK_GPU) {
		struct ix_gpu_req q = { .tests = c->gpu_tests[0] ? c->gpu_tests : NULL,
					.gpus = c->gpus[0] ? c->gpus : NULL,
					.backend = c->gpu_backend[0] ? c->gpu_backend : NULL,
					.lib = c->gpu_lib[0] ? c->gpu_lib : NULL,
					.size = c->gpu_size,
					.iterations = c->gpu_iterations,
					.samples = c->gpu_samples };
		json_t *r;
		int rc = ix_gpu_check_run(&q, &r, err);

		if (r)
			json_array_append_new(results, r);
		return rc;
	} else {
		struct ix_topo t;

		if (ix_topo_read(c->sysfs, &t, err) < 0)
			return -1;
		json_array_append_new(results, ix_json_topo(&t));
		ix_topo_free(&t);
		return 0;
	}
}

/* Whether this machine has what the check requires; why not into why. */
static bool machine_has(const struct ix_check *c, char *why, size_t len)
{
	return ix_local_has(c->needs & IX_NEED_RDMA, c->needs & IX_NEED_GPU,
			    c->gpu_backend[0] ? c->gpu_backend : NULL,
			    c->gpu_lib[0] ? c->gpu_lib : NULL, why, len);
}

static json_t *run_check(const struct ctx *x, const struct ix_check *c, json_t *baseline)
{
	const char *probe = ix_check_probe_name(c->probe), *verdict, *judged;
	json_t *results = json_array(), *exps = json_array(), *hosts = json_array();
	struct ix_err err = { 0 };
	struct ix_headline h;
	struct target t;
	char why[IX_ERR_MAX] = "";
	bool here = c->probe == IX_CHECK_GPU || c->probe == IX_CHECK_TOPO ||
		    c->probe == IX_CHECK_COLL || c->probe == IX_CHECK_MEM;
	int rc;

	if (c->needs && !machine_has(c, why, sizeof(why))) {
		/* Not run: never a pass, and said why. */
		json_decref(results);
		json_decref(exps);
		return json_pack("{s:s,s:s,s:s,s:o,s:s,s:n,s:s,s:[],s:{s:s,s:n,s:s},s:[]}", "name",
				 c->name, "probe", probe, "path", c->bw.path, "hosts", hosts,
				 "verdict", "SKIP", "error", "reason", why, "expectations",
				 "headline", "name", "-", "value", "unit", "", "results");
	}
	memset(&t, 0, sizeof(t));
	t.hl = &t.own;
	rc = here ? 0 : target_of(x, c, &t, &err);
	for (size_t i = 0; i < t.hl->n; i++) {
		char b[IX_HOST_NAME_MAX + 16];

		ix_host_format(&t.hl->v[i], b, sizeof(b));
		json_array_append_new(hosts, json_string(b));
	}
	if (rc == 0 && here)
		rc = run_here(c, results, &err);
	else if (rc == 0 && (c->probe == IX_CHECK_BW || c->probe == IX_CHECK_LAT))
		rc = !strcmp(c->bw.path, "rdma") ? run_rdma_pair(&t, c, results, &err)
						 : run_pair(&t, c, results, &err);
	else if (rc == 0 && c->probe == IX_CHECK_INVENTORY)
		rc = run_inventory(&t, results, &err);
	else if (rc == 0)
		rc = run_multi(&t, c, results, &err);
	/* The expectations are judged over what was measured even when the
	 * probe errored (an unreachable host): the check is an ERROR, and
	 * "judged" still says whether the rest held. */
	verdict = judged = ix_check_judge(c, results, baseline, t.first, exps, why, sizeof(why));
	if (rc < 0) {
		verdict = "ERROR";
		snprintf(why, sizeof(why), "%s", err.msg);
	}
	ix_hostlist_free(&t.own);
	ix_headline_of(probe, results, &h);
	return json_pack("{s:s,s:s,s:s,s:o,s:s,s:s,s:o,s:o,s:{s:s,s:o,s:s},s:o}", "name", c->name,
			 "probe", probe, "path", c->bw.path, "hosts", hosts, "verdict", verdict,
			 "judged", judged, "error", why[0] ? json_string(why) : json_null(),
			 "expectations", exps, "headline", "name", h.name, "value",
			 h.valid ? json_real(h.value) : json_null(), "unit", h.unit, "results",
			 results);
}

/* ---- the command ----------------------------------------------------------------- */

static void iso_now(char *buf, size_t len, time_t t, bool compact)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "~/x" in a plan means $HOME/x; "" means none. */
static const char *home_path(const char *p, char *buf, size_t len)
{
	const char *home = getenv("HOME");

	if (!p[0])
		return NULL;
	if (strncmp(p, "~/", 2) != 0 || !home)
		return p;
	snprintf(buf, len, "%.500s/%.500s", home, p + 2);
	return buf;
}

static json_t *load_json(const char *path, struct ix_err *err)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);

	if (!j)
		ix_fail(err, IX_EXIT_FAIL, "%s:%d: %s", path, je.line, je.text);
	return j;
}

/* The machine's topology and findings, for the report; null when the PCI
 * bus cannot be read (containers). */
static json_t *topology(void)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	json_t *j;

	if (ix_topo_read("", &t, &err) < 0)
		return json_null();
	j = ix_json_topo(&t);
	ix_topo_free(&t);
	return j;
}

/* A name in dir for this run's file: the start time, then -2, -3, ...
 * when a run in the same second got there first. */
static void out_name(const char *dir, const char *stamp, const char *ext, char *path, size_t len)
{
	snprintf(path, len, "%s/ixperf-run-%s.%s", dir, stamp, ext);
	for (int k = 2; access(path, F_OK) == 0 && k < 1000; k++)
		snprintf(path, len, "%s/ixperf-run-%s-%d.%s", dir, stamp, k, ext);
}

/* The result document and the HTML report, written atomically. */
static int write_outputs(json_t *doc, const struct run_opts *o, const char *dir, const char *stamp,
			 char *path, size_t pathlen, char *hpath, size_t hlen, struct ix_err *err)
{
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10)), *html = NULL;
	size_t n = 0;
	FILE *f;
	int rc;

	hpath[0] = '\0';
	if (!text)
		return ix_fail(err, IX_EXIT_FAIL, "cannot encode the result document");
	/* The report first: its history must not include this run's own file. */
	if (!o->no_html && (f = open_memstream(&html, &n))) {
		rc = ix_report_html(f, doc, o->history ? o->history : dir, err);
		fclose(f);
		out_name(dir, stamp, "html", hpath, hlen);
		if (rc == 0)
			rc = ix_output_atomic(hpath, html, n, err);
		free(html);
		if (rc < 0) {
			hpath[0] = '\0';
			free(text);
			return -1;
		}
	}
	out_name(dir, stamp, "json", path, pathlen);
	rc = ix_output_atomic(path, text, strlen(text), err);
	free(text);
	return rc;
}

int cmd_run(int argc, char **argv, const struct ix_env *env)
{
	struct run_opts o = { 0 };
	struct ix_plan plan;
	struct ix_local_agents la = { 0 };
	struct job *job = NULL;
	struct ix_token token;
	struct ix_unit_choice units;
	struct ix_err err = { 0 };
	json_t *checks = NULL, *baseline = NULL, *doc, *run, *fleet;
	const char *dir, *verdict = "INFO"; /* until a check passes */
	char started[32], finished[32], stamp[32], path[1024], hpath[1024], tokpath[1024];
	char tasks_line[96] = "", own[sizeof(((struct ix_local_agents *)0)->hosts) + 72];
	struct ix_post_target targets[IX_OPT_LIST_MAX];
	size_t ntargets = 0, post_failed = 0;
	time_t t0 = time(NULL);
	int64_t w0 = ix_now_ns();
	bool help;
	int pos, rc = IX_EXIT_OK, task_rc = IX_EXIT_OK;

	if (ix_opts_parse(&ix_run_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("run", &err);
	if (help) {
		ix_opts_help(&ix_run_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos + 1 < argc) {
		fprintf(stderr, "ixperf run: one PLAN at a time; unexpected '%s'\n", argv[pos + 1]);
		return IX_EXIT_USAGE;
	}
	if (ix_parse_units(o.units ? o.units : "bits", &units, &err) < 0 ||
	    ix_post_cli_parse(&o.post, targets, &ntargets, &err) < 0 ||
	    ix_plan_load(pos < argc ? argv[pos] : NULL, &plan, &err) < 0)
		return ix_report_error_json("run", o.json, NULL, env, &err);
	if (o.check_plan) {
		printf("%s: %u check(s), plan '%s'\n", plan.file[0] ? plan.file : "(default plan)",
		       plan.nchecks, plan.name);
		ix_plan_free(&plan);
		return IX_EXIT_OK;
	}
	if (ix_token_from_opt(o.token_file ? o.token_file
					   : home_path(plan.token_file, tokpath, sizeof(tokpath)),
			      &token, &err) < 0)
		goto fail;
	/* One task of a job: every task starts its agent; rank 0 goes on and
	 * runs the plan, the others serve it and leave here. */
	rc = job_begin(&job, &token, &task_rc, &err);
	if (rc < 0)
		goto fail;
	if (rc == 1) {
		ix_plan_free(&plan);
		return task_rc;
	}
	if (job && !plan.file[0]) /* the embedded plan, not on loopback */
		snprintf(plan.name, sizeof(plan.name), "acceptance over %u tasks (%s)",
			 job->spmd.launch.size, job->spmd.launch.be->name);
	if (job && !ix_plan_uses_tasks(&plan))
		fprintf(stderr,
			"ixperf run: WARNING: started as %u tasks, but every check names its "
			"hosts: the tasks' agents stay idle\n",
			job->spmd.launch.size);
	if ((o.baseline || plan.baseline[0]) &&
	    !(baseline = load_json(o.baseline ? o.baseline : plan.baseline, &err)))
		goto fail;
	dir = o.output_dir ? o.output_dir : "ixperf-results";
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		ix_fail(&err, IX_EXIT_FAIL, "cannot create %s: %s", dir, strerror(errno));
		goto fail;
	}
	if (!job) {
		bool rdma = false;

		for (uint32_t i = 0; i < plan.nchecks; i++)
			rdma |= local_rdma(&plan, &plan.checks[i]) &&
				(!plan.checks[i].needs || machine_has(&plan.checks[i], NULL, 0));
		if (ix_local_agents_start(&la, ix_plan_local_agents(&plan, IX_MAX_LOCAL_AGENTS),
					  rdma, &err) < 0)
			goto fail;
	}
	checks = json_array();
	{
		struct ctx x = { &plan, &la, &token, job };
		for (uint32_t i = 0; i < plan.nchecks; i++) {
			json_t *c = run_check(&x, &plan.checks[i], baseline);
			const char *v = json_string_value(json_object_get(c, "verdict"));

			if (!strcmp(v, "ERROR"))
				verdict = "ERROR";
			else if (!strcmp(v, "FAIL") && strcmp(verdict, "ERROR"))
				verdict = "FAIL";
			else if (!strcmp(v, "PASS") && !strcmp(verdict, "INFO"))
				verdict = "PASS";
			json_array_append_new(checks, c);
		}
	}
	snprintf(own, sizeof(own), "%s%s%s", la.hosts, la.hosts[0] && la.rdma_host[0] ? "," : "",
		 la.rdma_host);
	fleet = ix_run_fleet(checks, &token, own, &la.token, job ? &job->co : NULL,
			     job ? &job->hosts : NULL);
	ix_local_agents_stop(&la);
	/* The other tasks end now, while this one writes the outputs. */
	if (job)
		snprintf(tasks_line, sizeof(tasks_line), "Tasks: %u (%s), hosts named by rank",
			 job->spmd.launch.size, job->spmd.launch.be->name);
	job_end(job);
	job = NULL;
	iso_now(started, sizeof(started), t0, false);
	iso_now(finished, sizeof(finished), time(NULL), false);
	iso_now(stamp, sizeof(stamp), t0, true);
	run = json_pack("{s:s,s:s,s:o,s:s,s:s,s:s,s:f,s:s,s:o,s:o}", "kind", "run", "name",
			plan.name, "plan_file", plan.file[0] ? json_string(plan.file) : json_null(),
			"plan_text", plan.text ? plan.text : "", "started", started, "finished",
			finished, "duration_s", (double)(ix_now_ns() - w0) / 1e9, "verdict",
			verdict, "inventory", ix_inventory(""), "checks", checks);
	json_object_set_new(run, "topology", topology());
	json_object_set_new(run, "fleet", fleet);
	checks = NULL;
	doc = ix_json_envelope("run", env->argc, env->argv);
	json_object_set_new(doc, "complete", json_boolean(strcmp(verdict, "ERROR") != 0));
	json_object_set_new(doc, "error",
			    strcmp(verdict, "ERROR") ? json_null()
						     : json_string("a check errored"));
	json_object_set_new(doc, "results", json_pack("[o]", run));
	rc = write_outputs(doc, &o, dir, stamp, path, sizeof(path), hpath, sizeof(hpath), &err);
	if (rc == 0)
		post_failed = ix_post_cli_send("run", &o.post, targets, ntargets, doc,
					       ix_report_html, o.history ? o.history : dir);
	if (o.json) {
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
	} else {
		struct ix_fleet_result fr;
		struct ix_err ferr = { 0 };
		bool have = ix_json_read_fleet(json_object_get(run, "fleet"), &fr, &ferr) == 0;

		ix_text_run(stdout, run, have ? &fr : NULL, &units);
		if (have)
			ix_fleet_free(&fr);
		if (tasks_line[0])
			printf("%s\n", tasks_line);
		printf("Result: %s\n", path);
		if (hpath[0])
			printf("Report: %s\n", hpath);
	}
	if (rc < 0)
		(void)ix_report_error("run", &err);
	rc = !strcmp(verdict, "ERROR")  ? IX_EXIT_FAIL
	     : !strcmp(verdict, "FAIL") ? IX_EXIT_THRESHOLD
	     : rc < 0                   ? IX_EXIT_FAIL
					: ix_post_exit(IX_EXIT_OK, post_failed);
	json_decref(doc);
	json_decref(baseline);
	ix_plan_free(&plan);
	return rc;
fail:
	ix_local_agents_stop(&la);
	job_end(job);
	json_decref(checks);
	json_decref(baseline);
	ix_plan_free(&plan);
	return ix_report_error_json("run", o.json, NULL, env, &err);
}
