/* ixperf mesh --live and --state: the mesh runs in a worker thread with
 * the same parameters as without them; the screen and the state file read
 * copies of its matrix taken after every batch. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/mesh_live.h"
#include "probes/clock.h"
#include "probes/mesh.h"
#include "probes/schedule.h"
#include "report/json.h"
#include "report/multi.h"
#include "report/output.h"
#include "report/tui.h"

#define STATE_MIN_INTERVAL_NS 500000000ll /* state file at most twice a second */

struct live {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ix_heat_src src;
	uint64_t version; /* bumped on every new snapshot */
	uint32_t batches, total;
	int64_t t0, state_at;
	bool paused, stop, done;
	const struct ix_mesh_live_opts *o;
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

json_t *ix_mesh_progress_json(uint32_t batches, uint32_t total, double elapsed_s, bool done)
{
	return json_pack("{s:i,s:i,s:f,s:b,s:I}", "batches", (int)batches, "total", (int)total,
			 "elapsed_s", elapsed_s, "done", done, "pid", (json_int_t)getpid());
}

/* The state file: the mesh document so far, with its progress. */
static void write_state(struct live *l, const struct ix_mesh_result *r, bool force)
{
	int64_t now = ix_now_ns();
	json_t *doc;
	char *text;
	struct ix_err err = { 0 };

	if (!l->o->state_path || (!force && now - l->state_at < STATE_MIN_INTERVAL_NS))
		return;
	l->state_at = now;
	doc = ix_json_document("mesh", l->o->argc, l->o->argv, json_pack("[o]", ix_json_mesh(r)),
			       l->done ? NULL : "the mesh is still running");
	json_object_set_new(
		doc, "progress",
		ix_mesh_progress_json(l->batches, l->total, (double)(now - l->t0) / 1e9, l->done));
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	/* A state file that cannot be written does not stop the mesh. */
	if (text)
		ix_output_atomic(l->o->state_path, text, strlen(text), &err);
	free(text);
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
	struct ix_mesh_hooks hooks = { on_progress, should_stop, l };

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

int ix_mesh_live_check(const struct ix_mesh_live_opts *o, struct ix_err *err)
{
	struct ix_tui t;

	/* Open and close the view once: no agent is asked to run a test for a
	 * screen that cannot be drawn. */
	if (!o->live)
		return 0;
	if (ix_tui_open(&t, err) < 0)
		return -1;
	ix_tui_close(&t);
	return 0;
}

/* Progress comes once per round and direction. */
static uint32_t total_batches(const struct ix_mesh_params *p, uint32_t n)
{
	return ix_schedule_rounds(n) * (p->both_directions ? 2 : 1);
}

int ix_mesh_live_run(struct ix_coord *co, const struct ix_mesh_params *p,
		     const struct ix_hostlist *hosts, struct ix_mesh_result *r,
		     const struct ix_mesh_live_opts *o, struct ix_err *err)
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
		struct ix_mesh_hooks hooks = { on_progress, NULL, &l };

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
