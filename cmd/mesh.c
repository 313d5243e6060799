/* ixperf mesh HOSTS: all-pairs bandwidth and latency over ixperf agents. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "probes/capture/capture.h"
#include "probes/cluster/coord.h"
#include "probes/cluster/mesh.h"
#include "probes/cluster/patrun.h"
#include "probes/cluster/rails.h"
#include "probes/cluster/schedule.h"
#include "probes/core/clock.h"
#include "probes/ctl/auth.h"
#include "probes/net/net.h"
#include "probes/net/transport.h"
#include "report/fmt/output.h"
#include "report/fmt/units.h"
#include "report/json/json.h"
#include "report/text/text.h"
#include "report/tui/tui.h"

struct mesh_opts {
	struct ix_coord_opts k;
	const char *test;
	const char *path;
	double time_s;
	double warmup_s;
	uint64_t size;
	uint64_t lat_size;
	uint64_t iters;
	uint64_t parallel;
	bool both;
	uint64_t concurrency;
	double bw_fraction;
	double lat_factor;
	double lat_percentile;
	uint64_t min_pair_bw;
	double max_pair_lat;
	bool no_retest;
	bool live;
	const char *state;
	const char *op;
	uint64_t qps;
	const char *gpu;
	const char *rails;
	const char *pattern;
	uint64_t rounds;
	const char *seed;
	bool estimate;
	struct ix_coord_capture cap;
	struct ix_post_cli post;
};

static const struct ix_option mesh_options[] = {
	IX_COORD_OPTION_ROWS(struct mesh_opts),
	{ 0, "test", IX_OPT_STRING, offsetof(struct mesh_opts, test), "WHAT",
	  "bw, lat, or both (default both)", 0, 0 },
	{ 0, "path", IX_OPT_STRING, offsetof(struct mesh_opts, path), "PATH",
	  "transport: tcp (default), udp or rdma (on the agents' RDMA devices)", 0, 0 },
	{ 0, "op", IX_OPT_STRING, offsetof(struct mesh_opts, op), "OP",
	  "rdma: write (default), read, send or write_imm", 0, 0 },
	{ 0, "qps", IX_OPT_UINT, offsetof(struct mesh_opts, qps), "N",
	  "rdma: queue pairs per pair for bandwidth (default 1)", 1, 256 },
	{ 0, "gpu", IX_OPT_STRING, offsetof(struct mesh_opts, gpu), "auto|N",
	  "rdma: the initiating end's buffers in the GPU nearest its NIC (auto), or GPU N "
	  "(GPUDirect RDMA; host memory on a node with none, said)",
	  0, 0 },
	{ 't', "time", IX_OPT_SECONDS, offsetof(struct mesh_opts, time_s), "SECONDS",
	  "measured time per pair and test (default 2 for bw, 1 for lat)", 0.01, 3600 },
	{ 'w', "warmup", IX_OPT_SECONDS, offsetof(struct mesh_opts, warmup_s), "SECONDS",
	  "warm-up per pair, excluded (default 0.5 for bw, 0.1 for lat)", 0, 600 },
	{ 's', "size", IX_OPT_SIZE, offsetof(struct mesh_opts, size), "BYTES",
	  "bandwidth message size (default 128Ki for TCP, 1472 for UDP)", 1, 0 },
	{ 0, "lat-size", IX_OPT_SIZE, offsetof(struct mesh_opts, lat_size), "BYTES",
	  "latency message size (default 64)", 1, 65507 },
	{ 'n', "iters", IX_OPT_UINT, offsetof(struct mesh_opts, iters), "N",
	  "latency round trips per pair instead of --time", 1, 1e9 },
	{ 'P', "parallel", IX_OPT_UINT, offsetof(struct mesh_opts, parallel), "N",
	  "streams per pair (default 1)", 1, IX_MAX_STREAMS },
	{ 0, "both-directions", IX_OPT_FLAG, offsetof(struct mesh_opts, both), NULL,
	  "measure every ordered pair (a to b and b to a), twice the rounds", 0, 0 },
	{ 0, "concurrency", IX_OPT_UINT, offsetof(struct mesh_opts, concurrency), "N",
	  "pairs measured at once (default: a whole round)", 1, 1u << 20 },
	{ 0, "bad-fraction", IX_OPT_NUMBER, offsetof(struct mesh_opts, bw_fraction), "F",
	  "a pair is bad below F x the median bandwidth (default 0.7)", 0.01, 1 },
	{ 0, "lat-factor", IX_OPT_NUMBER, offsetof(struct mesh_opts, lat_factor), "F",
	  "a pair is bad above F x the latency baseline (default 2)", 1, 1000 },
	{ 0, "lat-baseline", IX_OPT_NUMBER, offsetof(struct mesh_opts, lat_percentile), "P",
	  "the latency baseline: the P-th percentile of all pairs' p50 (default 50, the median)",
	  0.01, 100 },
	{ 0, "min-pair-bw", IX_OPT_RATE, offsetof(struct mesh_opts, min_pair_bw), "RATE",
	  "a pair is bad below RATE whatever the median (an absolute floor)", 1, 0 },
	{ 0, "max-pair-lat", IX_OPT_SECONDS, offsetof(struct mesh_opts, max_pair_lat), "TIME",
	  "a pair is bad with its p50 latency above TIME whatever the baseline", 1e-9, 3600 },
	{ 0, "no-retest", IX_OPT_FLAG, offsetof(struct mesh_opts, no_retest), NULL,
	  "do not measure bad pairs a second time", 0, 0 },
	{ 0, "rails", IX_OPT_STRING, offsetof(struct mesh_opts, rails), "auto|LIST",
	  "pair NIC i of each node only with NIC i of the others, every rail at once: rails "
	  "found by subnet in the agents' inventories (auto), or named (subnets or interfaces)",
	  0, 0 },
	{ 0, "pattern", IX_OPT_STRING, offsetof(struct mesh_opts, pattern), "NAME",
	  "all-pairs (default: one pair per host per round), or every host at once: all-to-all, "
	  "bisection, permutation or ring (bandwidth, judged against each host's line rate)",
	  0, 0 },
	{ 0, "rounds", IX_OPT_UINT, offsetof(struct mesh_opts, rounds), "R",
	  "permutation: R random derangements, one after the other (default 3)", 1,
	  IX_PATTERN_MAX_ROUNDS },
	{ 0, "seed", IX_OPT_STRING, offsetof(struct mesh_opts, seed), "N",
	  "permutation: the seed of the rounds (default: a new one, printed; the same seed "
	  "repeats the same rounds)",
	  0, 0 },
	{ 0, "estimate", IX_OPT_FLAG, offsetof(struct mesh_opts, estimate), NULL,
	  "print how long each pattern takes over these hosts and exit; nothing is run", 0, 0 },
	{ 0, "live", IX_OPT_FLAG, offsetof(struct mesh_opts, live), NULL,
	  "draw the matrix as a live heatmap on the terminal while it is measured", 0, 0 },
	{ 0, "state", IX_OPT_STRING, offsetof(struct mesh_opts, state), "FILE",
	  "publish the matrix so far to FILE after every round (for 'ixperf top --mesh')", 0, 0 },
	IX_COORD_CAPTURE_ROWS(struct mesh_opts, cap, "during the mesh"),
	IX_POST_OPTION_ROWS(struct mesh_opts, post),
};

const struct ix_cmd_spec ix_mesh_spec = {
	.name = "mesh",
	.usage = "[OPTIONS] [HOSTS]",
	.summary = "Measure every pair of hosts running 'ixperf server'; flag bad pairs and nodes",
	.opts = mesh_options,
	.nopts = IX_OPTS_END(mesh_options),
	.epilog = "HOSTS: comma list, Slurm ranges (node[01-16]), @FILE, host:port; default\n"
		  "$SLURM_JOB_NODELIST. Pairs run in a round-robin tournament: every host in at\n"
		  "most one pair per round, N-1 rounds (N for odd N).\n"
		  "--live: arrows move the cursor, b/l bandwidth or latency, +/- zoom, p pause,\n"
		  "q stop (what was measured is kept and reported, marked incomplete).\n"
		  "--rails: HOSTS name each node once (any address of its agent); each rail is\n"
		  "a mesh of its own over the nodes' addresses on it, and a rail far below the\n"
		  "others is named as the rail.\n"
		  "--post sends the result, as -J writes it, to each target (all-pairs,\n"
		  "--pattern and --rails alike).\n"
		  "--live needs a terminal: without one it is a usage error (exit 2); run\n"
		  "without it, or with --state FILE and 'ixperf top --mesh FILE' elsewhere.\n"
		  "Exit status: 0 all pairs good, 1 agents or pairs failed, 4 bad pairs or rails,\n"
		  "5 all good but a --post target did not take the result.\n"
		  "Examples:\n"
		  "  ixperf mesh --token-file ~/.ixperf-token 'node[01-32]'\n"
		  "  ixperf mesh --test lat -n 1000 --json -o mesh.json @hosts.txt\n"
		  "  ixperf mesh --live --state /tmp/mesh.json 'node[01-64]'\n"
		  "  ixperf mesh --rails auto --path rdma 'gpu[01-32]'\n",
};

/* --live and --state: the mesh runs in a worker thread with the same
 * parameters as without them; the screen and the state file read copies
 * of its matrix taken after every batch. q or ^C in the view ends the run
 * after the current batch: the result then holds what was measured. */
struct live_opts {
	bool live;              /* draw the heatmap on the terminal */
	const char *state_path; /* publish the matrix there, NULL = no */
	int argc;               /* the command line, for the state document */
	char **argv;
};

#define STATE_MIN_INTERVAL_NS 500000000ll /* state file at most twice a second */

struct live {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ix_heat_src src;
	uint64_t version; /* bumped on every new snapshot */
	uint32_t batches, total;
	int64_t t0, state_at;
	bool paused, stop, done;
	const struct live_opts *o;
	/* The worker's run. */
	struct ix_coord *co;
	const struct ix_mesh_params *p;
	const struct ix_hostlist *hosts;
	struct ix_mesh_result *r;
	struct ix_err err;
	int rc;
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static json_t *progress_json(uint32_t batches, uint32_t total, double elapsed_s, bool done)
{
	return json_pack("{s:i,s:i,s:f,s:b,s:I}", "batches", (int)batches, "total", (int)total,
			 "elapsed_s", elapsed_s, "done", done, "pid", (json_int_t)getpid());
}

struct state_doc {
	json_t *doc;
	struct ix_json_lazy lazy[2];
};

static int write_state_doc(FILE *f, void *arg)
{
	const struct state_doc *d = arg;

	return ix_json_write(f, d->doc, d->lazy, 2);
}

/* The state file: the mesh document so far, with its progress; the
 * matrices written from r as the file is. */
static void write_state(struct live *l, const struct ix_mesh_result *r, bool force)
{
	int64_t now = ix_now_ns();
	struct state_doc d;
	struct ix_err err = { 0 };

	if (!l->o->state_path || (!force && now - l->state_at < STATE_MIN_INTERVAL_NS))
		return;
	l->state_at = now;
	d.doc = ix_json_document("mesh", l->o->argc, l->o->argv,
				 json_pack("[o]", ix_json_mesh_lazy(r, d.lazy)),
				 l->done ? NULL : "the mesh is still running");
	json_object_set_new(
		d.doc, "progress",
		progress_json(l->batches, l->total, (double)(now - l->t0) / 1e9, l->done));
	/* A state file that cannot be written does not stop the mesh. */
	ix_output_atomic_stream(l->o->state_path, write_state_doc, &d, &err);
	json_decref(d.doc);
}

/* The mesh's first state: a watcher ('ixperf top --mesh') has the hosts
 * and every pair pending from the start, not after the first round. */
static void on_start(void *arg, const struct ix_mesh_result *r)
{
	struct live *l = arg;

	pthread_mutex_lock(&l->mu);
	if (l->o->live && ix_heat_src_copy(&l->src, r) == 0) {
		l->src.total = l->total;
		l->version++;
	}
	write_state(l, r, true);
	pthread_mutex_unlock(&l->mu);
}

static void on_progress(void *arg, const struct ix_mesh_result *r, uint32_t round)
{
	struct live *l = arg;

	(void)round;
	pthread_mutex_lock(&l->mu);
	l->batches++;
	if (l->o->live && ix_heat_src_copy(&l->src, r) == 0) {
		l->src.batches = l->batches;
		l->src.total = l->total;
		l->version++;
	}
	write_state(l, r, false);
	while (l->paused && !l->stop && !interrupted)
		pthread_cond_wait(&l->cv, &l->mu);
	pthread_mutex_unlock(&l->mu);
}

static bool should_stop(void *arg)
{
	struct live *l = arg;
	bool stop;

	pthread_mutex_lock(&l->mu);
	stop = l->stop || interrupted;
	pthread_mutex_unlock(&l->mu);
	return stop;
}

static void *worker(void *arg)
{
	struct live *l = arg;
	struct ix_mesh_hooks hooks = { on_start, on_progress, should_stop, l };

	l->rc = ix_mesh_run(l->co, l->p, l->hosts, l->r, &hooks, &l->err);
	pthread_mutex_lock(&l->mu);
	l->done = true;
	if (l->rc == 0) {
		write_state(l, l->r, true);
		if (l->o->live && ix_heat_src_copy(&l->src, l->r) == 0) {
			l->src.done = true;
			l->src.complete = l->r->complete;
			l->src.batches = l->batches;
			l->src.total = l->total;
		}
	}
	l->version++;
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

static const char *note(const struct live *l)
{
	if (l->done)
		return "arrows move  b bandwidth  l latency  +/- zoom  q leave (the mesh is over)";
	if (l->stop || interrupted)
		return "arrows move  b bandwidth  l latency  +/- zoom  (stopping after this round)";
	return NULL;
}

/* The screen until the user leaves it (after the run, or stopping it). */
static void ui_loop(struct live *l, struct ix_tui *t)
{
	struct ix_heat_view v = { .metric = (l->p->tests & IX_MESH_BW) ? IX_HEAT_BW : IX_HEAT_LAT };
	uint64_t shown = (uint64_t)-1;
	bool leave = false;

	while (!leave) {
		int key = ix_tui_key(t, 100);
		enum ix_heat_action a;
		bool redraw = key == IX_KEY_RESIZE;

		pthread_mutex_lock(&l->mu);
		if (key == 'q' || key == 'Q' || interrupted) {
			if (l->done)
				leave = true;
			l->stop = true;
			l->paused = false;
			pthread_cond_broadcast(&l->cv);
			redraw = true;
		} else if (key == 'p' || key == ' ') {
			l->paused = !l->paused;
			pthread_cond_broadcast(&l->cv);
			redraw = true;
		} else if (ix_tui_heat_action(key, &a)) {
			ix_heat_act(&v, &l->src, a);
			redraw = true;
		}
		if (!l->done)
			l->src.elapsed_s = (double)(ix_now_ns() - l->t0) / 1e9;
		if (!leave && (redraw || shown != l->version || !l->done)) {
			ix_tui_heat_draw(t, &v, &l->src, l->paused && !l->done, note(l));
			shown = l->version;
		}
		/* Interrupted or told to stop: leave once the worker is done. */
		if (l->done && (interrupted || (l->stop && key != 'q' && key != 'Q')))
			leave = true;
		pthread_mutex_unlock(&l->mu);
	}
}

static int live_check(const struct live_opts *o, struct ix_err *err)
{
	struct ix_tui t;

	/* Open and close the view once: no agent is asked to run a test for a
	 * screen that cannot be drawn. */
	if (!o->live)
		return 0;
	if (ix_tui_open(&t, err) < 0) {
		err->code = IX_EXIT_USAGE;
		return ix_fail_prefix(err, "--live draws on a terminal and there is none (run "
					   "without --live for the text report, or with --state "
					   "FILE and watch it with 'ixperf top --mesh FILE')");
	}
	ix_tui_close(&t);
	return 0;
}

/* --post: the targets, each sent the whole result as -J writes it. */
struct mesh_post {
	const struct ix_post_cli *cli;
	const struct ix_post_target *t;
	size_t n;
	const struct ix_env *env;
};

/* The document of results (an array, taken) to every target; how many
 * failed. */
static size_t post_results(const struct mesh_post *mp, json_t *results, const char *error)
{
	json_t *doc;
	size_t failed;

	if (!mp->n) {
		json_decref(results);
		return 0;
	}
	doc = ix_json_document("mesh", mp->env->argc, mp->env->argv, results, error);
	failed = ix_post_cli_send("mesh", mp->cli, mp->t, mp->n, doc, ix_report_html, NULL);
	json_decref(doc);
	return failed;
}

static size_t post_mesh(const struct mesh_post *mp, const struct ix_mesh_result *r,
			const struct ix_fleet_result *fleet)
{
	json_t *res;

	if (!mp->n)
		return 0;
	res = ix_json_mesh(r);
	json_object_set_new(res, "fleet", ix_json_fleet(fleet));
	return post_results(mp, json_pack("[o]", res),
			    r->stopped    ? "stopped before every pair was measured"
			    : r->complete ? NULL
					  : "some pairs were not measured");
}

/* Progress comes once per round and direction. */
static uint32_t total_batches(const struct ix_mesh_params *p, uint32_t n)
{
	return ix_schedule_rounds(n) * (p->both_directions ? 2 : 1);
}

static int live_run(struct ix_coord *co, const struct ix_mesh_params *p,
		    const struct ix_hostlist *hosts, struct ix_mesh_result *r,
		    const struct live_opts *o, struct ix_err *err)
{
	struct live l = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
	struct ix_tui t = { 0 };
	struct sigaction sa = { .sa_handler = on_sigint }, old_int, old_term;
	pthread_t th;
	int rc;

	l.o = o;
	l.co = co;
	l.p = p;
	l.hosts = hosts;
	l.r = r;
	l.t0 = ix_now_ns();
	l.total = total_batches(p, (uint32_t)hosts->n);
	if (!o->live) {
		struct ix_mesh_hooks hooks = { on_start, on_progress, NULL, &l };

		rc = ix_mesh_run(co, p, hosts, r, &hooks, err);
		l.done = true;
		if (rc == 0)
			write_state(&l, r, true);
		return rc;
	}
	if (ix_tui_open(&t, err) < 0)
		return -1;
	interrupted = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (pthread_create(&th, NULL, worker, &l) != 0) {
		ix_tui_close(&t);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		return ix_fail(err, IX_EXIT_FAIL, "cannot start the mesh thread");
	}
	ui_loop(&l, &t);
	pthread_join(th, NULL);
	ix_tui_close(&t);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	ix_heat_src_free(&l.src);
	if (l.rc < 0 && err)
		*err = l.err;
	return l.rc;
}

/* --pattern and what goes with it; *pat is all-pairs without it. */
static int check_pattern(const struct mesh_opts *o, enum ix_pattern *pat, uint64_t *seed,
			 struct ix_err *err)
{
	*pat = IX_PATTERN_ALL_PAIRS;
	if (o->pattern && ix_pattern_parse(o->pattern, pat, err) < 0)
		return ix_fail_prefix(err, "--pattern");
	if (o->rounds && *pat != IX_PATTERN_PERMUTATION)
		return ix_fail(err, IX_EXIT_USAGE, "--rounds is for --pattern permutation");
	if (o->seed && *pat != IX_PATTERN_PERMUTATION)
		return ix_fail(err, IX_EXIT_USAGE, "--seed is for --pattern permutation");
	if (o->seed && ix_parse_uint(o->seed, 0, UINT64_MAX, seed, err) < 0)
		return ix_fail_prefix(err, "--seed");
	if (!o->seed)
		*seed = ix_pattern_new_seed();
	if (*pat == IX_PATTERN_ALL_PAIRS)
		return 0;
	if (o->test && strcmp(o->test, "bw") != 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--pattern %s measures bandwidth: --test %s is for all-pairs",
			       o->pattern, o->test);
	if (o->both && *pat != IX_PATTERN_RING)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--both-directions is for all-pairs and ring (%s sends both ways "
			       "as it is)",
			       o->pattern);
	if (o->rails || o->live || o->state || o->concurrency || o->cap.iface)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--pattern %s starts every test of a round at once: --rails, "
			       "--live, --state, --concurrency and --capture are for all-pairs",
			       o->pattern);
	return 0;
}

static int check(struct mesh_opts *o, struct ix_mesh_params *p, struct ix_err *err)
{
	const struct ix_transport *tp;
	const char *t = o->test ? o->test : "both";

	memset(p, 0, sizeof(*p));
	if (strcmp(t, "bw") == 0)
		p->tests = IX_MESH_BW;
	else if (strcmp(t, "lat") == 0)
		p->tests = IX_MESH_LAT;
	else if (strcmp(t, "both") == 0)
		p->tests = IX_MESH_BW | IX_MESH_LAT;
	else
		return ix_fail(err, IX_EXIT_USAGE, "invalid value for --test: '%s' (bw, lat, both)",
			       t);
	if (ix_path_lookup(o->path, &tp, err) < 0 ||
	    ix_rdma_opts_fill(tp, o->op, o->qps, o->parallel, IX_RDMA_MESH, &p->rdma, err) < 0)
		return -1;
	if (o->size && (o->size < tp->min_msg_size || o->size > tp->max_msg_size))
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for -s/--size: %llu is outside [%llu, %llu] for %s",
			       (unsigned long long)o->size, (unsigned long long)tp->min_msg_size,
			       (unsigned long long)tp->max_msg_size, tp->name);
	if (o->gpu) {
		int g;

		if (strcmp(tp->name, "rdma") != 0)
			return ix_fail(err, IX_EXIT_USAGE, "--gpu is for --path rdma");
		if (ix_parse_gpu_index(o->gpu, "--gpu", &g, err) < 0)
			return -1;
		snprintf(p->gpu, sizeof(p->gpu), "%s", o->gpu);
	}
	if (o->lat_size && o->lat_size < tp->min_lat_size)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for --lat-size: below %llu for %s",
			       (unsigned long long)tp->min_lat_size, tp->name);
	p->both_directions = o->both;
	p->concurrency = (uint32_t)o->concurrency;
	p->retest = !o->no_retest;
	p->rules.bw_fraction = o->bw_fraction > 0 ? o->bw_fraction : 0.7;
	p->rules.lat_factor = o->lat_factor > 0 ? o->lat_factor : 2.0;
	p->rules.lat_percentile = o->lat_percentile > 0 ? o->lat_percentile : 50;
	p->rules.min_bw_bps = (double)o->min_pair_bw;
	p->rules.max_lat_ns = o->max_pair_lat * 1e9;
	p->bw.path = tp->name;
	p->bw.msg_size = o->size ? o->size : tp->default_msg_size;
	p->bw.streams = o->parallel ? (uint32_t)o->parallel : 1;
	p->bw.duration_s = o->time_s > 0 ? o->time_s : 2;
	p->bw.warmup_s = o->warmup_s >= 0 ? o->warmup_s : 0.5;
	p->bw.rate_bps = (tp->caps & IX_CAP_NEEDS_RATE) ? 1000000000ull : 0;
	p->lat.path = tp->name;
	p->lat.msg_size = o->lat_size ? o->lat_size : 64;
	p->lat.iters = o->iters;
	p->lat.duration_s = o->iters ? 0 : o->time_s > 0 ? o->time_s : 1;
	p->lat.warmup_s = o->warmup_s >= 0 ? o->warmup_s : 0.1;
	p->lat.timeout_s = 1;
	return 0;
}

static json_t *rails_json(const struct ix_rails_mesh *m)
{
	json_t *res = ix_json_rails(&m->result);

	json_object_set_new(json_array_get(res, json_array_size(res) - 1), "fleet",
			    ix_json_fleet(&m->fleet));
	return res;
}

/* --rails: every agent's inventory first (the rails are found in it),
 * then a mesh per rail, every rail at once. The exit status, or -1 with
 * err when nothing was measured. */
static int run_rails(struct ix_coord_cmd *c, const struct ix_rail_spec *spec,
		     const struct ix_mesh_params *p, const struct mesh_post *mp, bool json,
		     struct ix_err *err)
{
	struct ix_rails_mesh m;
	const char *error = "some pairs were not measured";
	int rc = -1;

	if (ix_rails_mesh(&c->co, &c->hosts, spec, p, &m, err) < 0)
		goto out;
	if (m.result.complete)
		error = NULL;
	if (json) {
		ix_sink_put_json(&c->sink, ix_json_document("mesh", mp->env->argc, mp->env->argv,
							    rails_json(&m), error));
	} else {
		ix_text_rails(c->sink.f, &m.result, &c->units);
		ix_text_fleet(c->sink.f, &m.fleet);
	}
	if (ix_coord_cmd_commit(c, err) < 0)
		goto out;
	rc = !m.result.complete   ? IX_EXIT_FAIL
	     : m.result.bad_rails ? IX_EXIT_THRESHOLD
				  : IX_EXIT_OK;
	for (uint32_t k = 0; rc == IX_EXIT_OK && k < m.rails.n; k++)
		if (m.result.mesh[k].findings.bad_pairs)
			rc = IX_EXIT_THRESHOLD;
	rc = ix_post_exit(rc, mp->n ? post_results(mp, rails_json(&m), error) : 0);
out:
	ix_rails_mesh_free(&m);
	return rc;
}

/* A run's time is said before it starts when it is longer than this. */
#define ESTIMATE_SAY_S 5.0

/* Connections for a pattern: each host once per test it starts at once
 * (lane k of host i is entry k * n + i). */
static int widen_hosts(struct ix_hostlist *h, uint32_t lanes, struct ix_err *err)
{
	size_t n = h->n;
	struct ix_host *v;

	if (lanes <= 1)
		return 0;
	v = realloc(h->v, n * lanes * sizeof(*v));
	if (!v)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (uint32_t k = 1; k < lanes; k++)
		memcpy(v + k * n, v, n * sizeof(*v));
	h->v = v;
	h->n = h->cap = n * lanes;
	return 0;
}

static json_t *pattern_json(const struct ix_pattern_result *r, const struct ix_fleet_result *fleet)
{
	json_t *res = ix_json_pattern(r);

	json_object_set_new(res, "fleet", ix_json_fleet(fleet));
	return res;
}

/* A traffic pattern over the agents; the exit status, or -1 with err. */
static int run_pattern(struct ix_coord_cmd *c, const struct ix_coord_opts *k, enum ix_pattern pat,
		       const struct ix_mesh_params *p, uint64_t rounds, uint64_t seed,
		       const struct mesh_post *mp, struct ix_err *err)
{
	uint32_t n = (uint32_t)c->hosts.n;
	struct ix_hostlist view = { 0 };
	struct ix_pattern_result r;
	struct ix_fleet_result fleet;
	struct ix_err ferr = { 0 };
	double est = ix_text_pattern_say(stderr, pat, p, n, (uint32_t)rounds, ESTIMATE_SAY_S);
	const char *error;
	int rc;

	if (pat == IX_PATTERN_PERMUTATION)
		fprintf(stderr, "ixperf mesh: permutation seed %llu (--seed %llu repeats it)\n",
			(unsigned long long)seed, (unsigned long long)seed);
	if (pat == IX_PATTERN_BISECTION && n % 2)
		fprintf(stderr,
			"ixperf mesh: bisection over an odd count of %u hosts: the last "
			"one sits out\n",
			n);
	c->lanes = ix_pattern_lanes(pat, n, p->both_directions);
	if (widen_hosts(&c->hosts, c->lanes, err) < 0 || ix_coord_cmd_connect(c, k, err) < 0)
		return -1;
	view = (struct ix_hostlist){ c->hosts.v, n, n };
	if (ix_pattern_run(&c->co, pat, p, (uint32_t)rounds, seed, NULL, &view, &r, err) < 0)
		return -1;
	r.estimate_s = est;
	error = r.complete ? NULL : "some tests failed";
	ix_fleet_gather(&c->co, &view, IX_FLEET_TIMEOUT_S, &fleet, &ferr);
	if (k->json) {
		rc = ix_coord_cmd_json(c, mp->env, pattern_json(&r, &fleet), error, err);
	} else {
		ix_text_pattern(c->sink.f, &r, &c->units);
		ix_text_fleet(c->sink.f, &fleet);
		rc = ix_coord_cmd_commit(c, err);
	}
	if (rc == 0)
		rc = ix_post_exit(
			!r.complete   ? IX_EXIT_FAIL
			: r.bad_hosts ? IX_EXIT_THRESHOLD
				      : IX_EXIT_OK,
			mp->n ? post_results(mp, json_pack("[o]", pattern_json(&r, &fleet)), error)
			      : 0);
	ix_pattern_result_free(&r);
	ix_fleet_free(&fleet);
	return rc;
}

int cmd_mesh(int argc, char **argv, const struct ix_env *env)
{
	struct mesh_opts o = { .warmup_s = -1 };
	struct ix_coord_cmd c;
	struct ix_mesh_params p;
	struct ix_mesh_result r;
	struct ix_fleet_result fleet;
	struct live_opts lo;
	struct ix_err err = { 0 }, cerr = { 0 }, ferr = { 0 };
	struct ix_capture *cap = NULL;
	struct ix_rail_spec rails = { 0 };
	struct ix_post_target targets[IX_OPT_LIST_MAX];
	size_t ntargets = 0;
	struct mesh_post mp = { &o.post, targets, 0, env };
	enum ix_pattern pat;
	uint64_t seed = 0;
	unsigned tests;
	bool help;
	int pos, rc;

	if (ix_opts_parse(&ix_mesh_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("mesh", &err);
	if (help) {
		ix_opts_help(&ix_mesh_spec, stdout);
		return IX_EXIT_OK;
	}
	memset(&c, 0, sizeof(c));
	if (pos + 1 < argc)
		ix_fail(&err, IX_EXIT_USAGE, "one HOSTS argument (a comma list); unexpected '%s'",
			argv[pos + 1]);
	if (!err.code && o.rails && (o.live || o.state || o.cap.iface))
		ix_fail(&err, IX_EXIT_USAGE,
			"--rails runs a mesh per rail: --live, --state and --capture take one");
	if (!err.code && o.rails && ix_rail_spec_parse(o.rails, &rails, &err) < 0)
		ix_fail_prefix(&err, "--rails");
	if (err.code || check(&o, &p, &err) < 0 || check_pattern(&o, &pat, &seed, &err) < 0 ||
	    ix_coord_capture_check(&o.cap, &err) < 0 ||
	    ix_post_cli_parse(&o.post, targets, &ntargets, &err) < 0 ||
	    (rc = ix_coord_cmd_prepare(&c, "mesh", &o.k, pos < argc ? argv[pos] : NULL, &err)) < 0)
		goto fail;
	if (rc > 0) /* one task of a launch, done serving */
		return c.spmd_exit;
	mp.n = ntargets;
	if (c.hosts.n < 2) {
		if (pat == IX_PATTERN_BISECTION)
			ix_fail(&err, IX_EXIT_USAGE,
				"--pattern bisection needs at least two hosts, one on each side "
				"of the cut");
		else
			ix_fail(&err, IX_EXIT_USAGE, "a mesh needs at least two hosts");
		goto fail;
	}
	tests = p.tests;
	if (pat != IX_PATTERN_ALL_PAIRS)
		p.tests = IX_MESH_BW;
	if (o.estimate) {
		ix_text_pattern_estimates(stdout, &p, tests, (uint32_t)c.hosts.n,
					  (uint32_t)o.rounds);
		ix_coord_cmd_free(&c);
		return IX_EXIT_OK;
	}
	if (pat != IX_PATTERN_ALL_PAIRS) {
		if ((rc = run_pattern(&c, &o.k, pat, &p, o.rounds, seed, &mp, &err)) < 0)
			goto fail;
		ix_coord_cmd_free(&c);
		return rc;
	}
	ix_text_pattern_say(stderr, pat, &p, (uint32_t)c.hosts.n, 0, ESTIMATE_SAY_S);
	if (o.rails) {
		if (ix_coord_cmd_connect(&c, &o.k, &err) < 0 ||
		    (rc = run_rails(&c, &rails, &p, &mp, o.k.json, &err)) < 0)
			goto fail;
		ix_coord_cmd_free(&c);
		return rc;
	}
	lo = (struct live_opts){ o.live, o.state, env->argc, env->argv };
	if (live_check(&lo, &err) < 0 || ix_coord_capture_begin(&o.cap, &c.hosts, &cap, &err) < 0 ||
	    ix_coord_cmd_connect(&c, &o.k, &err) < 0 ||
	    live_run(&c.co, &p, &c.hosts, &r, &lo, &err) < 0)
		goto fail;
	/* A capture that failed is said; the mesh's figures stand. */
	if (cap && ix_capture_stop(cap, &r.wire, &cerr) < 0)
		ix_report_error("mesh", &cerr);
	/* Every agent's inventory, after the tests: an agent that refuses
	 * the request ends its session. */
	ix_fleet_gather(&c.co, &c.hosts, IX_FLEET_TIMEOUT_S, &fleet, &ferr);
	if (o.k.json) {
		struct ix_json_lazy lazy[2];
		json_t *res = ix_json_mesh_lazy(&r, lazy);

		json_object_set_new(res, "fleet", ix_json_fleet(&fleet));

		/* The matrices are written from r as the file is: a mesh of
		 * thousands of hosts is not held as a JSON tree. */
		rc = ix_coord_cmd_json_lazy(&c, env, res, lazy, 2,
					    r.stopped    ? "stopped before every pair was measured"
					    : r.complete ? NULL
							 : "some pairs were not measured",
					    &err);
	} else {
		ix_text_mesh(c.sink.f, &r, &c.units);
		ix_text_fleet(c.sink.f, &fleet);
		rc = ix_coord_cmd_commit(&c, &err);
	}
	if (rc == 0)
		rc = ix_post_exit(!r.complete            ? IX_EXIT_FAIL
				  : r.findings.bad_pairs ? IX_EXIT_THRESHOLD
							 : IX_EXIT_OK,
				  post_mesh(&mp, &r, &fleet));
	else
		rc = ix_report_error("mesh", &err);
	ix_mesh_result_free(&r);
	ix_fleet_free(&fleet);
	ix_coord_cmd_free(&c);
	return rc;
fail:
	ix_capture_stop(cap, NULL, NULL);
	ix_coord_cmd_free(&c);
	return ix_report_error_json("mesh", o.k.json, o.k.output, env, &err);
}
