#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/launch.h"
#include "probes/core/clock.h"
#include "report/fmt/safe.h"

#define STOP_GRACE_S 3

static void agent_log(void *arg, const char *msg)
{
	const struct ix_spmd *s = arg;

	/* Failures and refusals only: a task's agent is not the job's output. */
	if (strstr(msg, "fail") || strstr(msg, "refused"))
		fprintf(stderr, "ixperf %s[r%u]: agent: %s\n", s->name, s->launch.rank, msg);
}

static void *agent_main(void *arg)
{
	struct ix_spmd *s = arg;

	s->agent_rc = ix_agent_run(&s->agent, &s->agent_err);
	return NULL;
}

static int start_agent(struct ix_spmd *s, struct ix_err *err)
{
	struct ix_agent_config cfg;

	ix_agent_config_defaults(&cfg);
	cfg.port = s->launch.be->port(&s->launch);
	/* Every peer holds the job's token, and tasks sharing a node share
	 * its address: no caps per address, sessions kept while the job runs. */
	cfg.max_tests_per_addr = 0;
	cfg.max_sessions_per_addr = 0;
	cfg.idle_s = 3600;
	cfg.token = &s->token; /* filled by the exchange, before run */
	cfg.exit_after_coordinator = s->launch.rank != 0;
	cfg.log = agent_log;
	cfg.log_arg = s;
	/* --task-bind: listen and send from this task's address only. */
	cfg.bind_addr = s->bind[0] ? s->bind : NULL;
	cfg.source_addr = cfg.bind_addr;
	if (s->rdma_dev[0])
		cfg.rdma_dev = s->rdma_dev;
	return ix_agent_open(&s->agent, &cfg, &s->stop, err);
}

/* This task's address as the others reach it: --task-bind's, else the
 * node's name. */
static void self_endpoint(const struct ix_spmd *s, struct ix_launch_ep *self)
{
	memset(self, 0, sizeof(*self));
	self->rank = s->launch.rank;
	self->port = ix_agent_port(&s->agent);
	if (s->bind[0])
		snprintf(self->addr, sizeof(self->addr), "%s", s->bind);
	else if (gethostname(self->addr, sizeof(self->addr) - 1) < 0 || !self->addr[0])
		snprintf(self->addr, sizeof(self->addr), "%s", s->launch.node);
	snprintf(self->node, sizeof(self->node), "%s", s->launch.node);
}

/* --task-bind and --task-rdma-dev: this task's entries, by local rank. */
static int task_choices(struct ix_spmd *s, const struct ix_spmd_opts *o, struct ix_err *err)
{
	char entry[IX_HOST_NAME_MAX];

	if (o->bind && !s->launch.be->publishes_self)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--task-bind: the %s launch cannot hand each task's address round; "
			       "use PMIx (srun --mpi=pmix, mpirun)",
			       s->launch.be->name);
	if (o->bind &&
	    (ix_launch_list_pick(o->bind, s->launch.local_rank, entry, sizeof(entry), err) < 0 ||
	     ix_launch_local_addr(entry, s->bind, sizeof(s->bind), err) < 0))
		return ix_fail_prefix(err, "--task-bind");
	if (o->rdma_dev && ix_launch_list_pick(o->rdma_dev, s->launch.local_rank, s->rdma_dev,
					       sizeof(s->rdma_dev), err) < 0)
		return ix_fail_prefix(err, "--task-rdma-dev");
	return 0;
}

/* This task, for messages: "task 2 of 4 (local rank 2 on node1)". */
static int fail_task(const struct ix_spmd *s, struct ix_err *err)
{
	return ix_fail_prefix(err, "task %u of %u (local rank %u on %s)", s->launch.rank,
			      s->launch.size, s->launch.local_rank, s->launch.node);
}

/* Rank 0: the tasks that never published, counted; an error naming the
 * first unless the caller goes on without them. */
static int count_missing(struct ix_spmd *s, const struct ix_launch_ep *all, bool allow,
			 struct ix_err *err)
{
	for (uint32_t r = 0; r < s->launch.size; r++) {
		if (!all[r].missing)
			continue;
		if (!allow)
			return ix_fail(err, IX_EXIT_FAIL,
				       "task %u (on %s) published no agent within %.0f s", r,
				       all[r].node[0] ? all[r].node : "an unknown node",
				       s->startup_s);
		s->missing++;
	}
	return 0;
}

/* Rank 0's hosts: every task's agent, by rank. */
static int fill_hosts(const struct ix_spmd *s, const struct ix_launch_ep *all,
		      struct ix_hostlist *hosts, struct ix_err *err)
{
	memset(hosts, 0, sizeof(*hosts));
	hosts->v = calloc(s->launch.size, sizeof(*hosts->v));
	if (!hosts->v)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (uint32_t r = 0; r < s->launch.size; r++) {
		struct ix_host *h = &hosts->v[r];

		snprintf(h->name, sizeof(h->name), "%s", all[r].addr);
		h->port = all[r].port;
		h->task = r + 1;
		/* The node alongside an address (or alone, without one); a task
		 * reached at its node's name is named as before. */
		if (s->bind[0] || all[r].missing)
			snprintf(h->node, sizeof(h->node), "%s",
				 all[r].node[0] ? all[r].node : "unknown");
	}
	hosts->n = hosts->cap = s->launch.size;
	return 0;
}

/* Stop this task's agent and wait for it: grace_s at most (0: as long
 * as it takes); -1 when it is still running then. */
static int stop_agent(struct ix_spmd *s, int grace_s)
{
	struct timespec until;

	if (!s->running)
		return 0;
	ix_agent_stop(&s->agent);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += grace_s;
	if (grace_s ? pthread_timedjoin_np(s->thread, NULL, &until) != 0
		    : pthread_join(s->thread, NULL) != 0)
		return -1;
	ix_agent_close(&s->agent);
	s->running = false;
	return 0;
}

/* Rank != 0: serve until the coordinator's session ends, or fail when no
 * coordinator came within the startup bound. */
static int serve(struct ix_spmd *s, struct ix_err *err)
{
	int64_t give_up = ix_now_ns() + ix_seconds_to_ns(IX_SPMD_STARTUP_S + 30);
	bool seen = false;

	while (!atomic_load(&s->stop)) {
		struct timespec ts = { 0, 100 * 1000000L };

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&s->agent.lock);
		seen = s->agent.coordinator_seen;
		pthread_mutex_unlock(&s->agent.lock);
		if (!seen && ix_now_ns() > give_up) {
			ix_fail(err, IX_EXIT_FAIL,
				"no coordinator (rank 0) connected within %.0f s",
				IX_SPMD_STARTUP_S + 30);
			break;
		}
	}
	/* The coordinator is done (or dead): what the agent still runs is
	 * for nobody. A few seconds for its sessions to end, then the task
	 * leaves without them, so a dead coordinator leaves no process. */
	if (stop_agent(s, STOP_GRACE_S) < 0) {
		fprintf(stderr,
			"ixperf %s[r%u]: agent sessions still running %d s after the "
			"coordinator: leaving them\n",
			s->name, s->launch.rank, STOP_GRACE_S);
		fflush(NULL);
		_exit(err->code ? err->code : IX_EXIT_OK);
	}
	ix_spmd_end(s);
	if (err->code)
		return -1;
	if (s->agent_rc < 0)
		return ix_fail(err, IX_EXIT_FAIL, "%s", s->agent_err.msg);
	return 0;
}

int ix_spmd_begin(struct ix_spmd *s, const char *name, const struct ix_token *token_file,
		  struct ix_hostlist *hosts, struct ix_token *token, int *exit_rc,
		  struct ix_err *err)
{
	struct ix_spmd_opts o = { .token_file = token_file };

	return ix_spmd_start(s, name, &o, hosts, token, exit_rc, err);
}

/* Detect, choose this task's address and device, start its agent. */
static int task_begin(struct ix_spmd *s, const char *name, const struct ix_spmd_opts *o,
		      struct ix_err *err)
{
	int rc;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->startup_s = o->startup_s > 0 ? o->startup_s : IX_SPMD_STARTUP_S;
	rc = ix_launch_detect(&s->launch, err);
	if (rc <= 0)
		return rc;
	if (!s->launch.node[0] && gethostname(s->launch.node, sizeof(s->launch.node) - 1) < 0)
		snprintf(s->launch.node, sizeof(s->launch.node), "?");
	if (o->token_file && o->token_file->set)
		s->token = *o->token_file;
	rc = task_choices(s, o, err);
	if (rc == 0 && start_agent(s, err) < 0)
		rc = ix_fail_prefix(err, "its agent");
	if (rc < 0) {
		ix_launch_finish(&s->launch);
		return fail_task(s, err);
	}
	return 1;
}

int ix_spmd_start(struct ix_spmd *s, const char *name, const struct ix_spmd_opts *o,
		  struct ix_hostlist *hosts, struct ix_token *token, int *exit_rc,
		  struct ix_err *err)
{
	struct ix_launch_ep self, *all;
	int rc = task_begin(s, name, o, err);

	if (rc <= 0)
		return rc;
	all = calloc(s->launch.size, sizeof(*all));
	self_endpoint(s, &self);
	if (!all || ix_launch_exchange(&s->launch, &self, &s->token, all, s->startup_s, err) < 0 ||
	    (s->launch.rank == 0 && count_missing(s, all, o->allow_missing, err) < 0) ||
	    pthread_create(&s->thread, NULL, agent_main, s) != 0) {
		const char *be = s->launch.be->name;

		if (!err->code)
			ix_fail(err, IX_EXIT_FAIL, "%s",
				all ? "cannot start the agent's thread" : "out of memory");
		ix_agent_close(&s->agent);
		ix_launch_finish(&s->launch);
		free(all);
		return ix_fail_prefix(err, "task %u of %u (%s)", s->launch.rank, s->launch.size,
				      be);
	}
	s->running = true;
	if (s->launch.rank != 0) {
		free(all);
		rc = serve(s, err);
		*exit_rc = rc == 0 ? IX_EXIT_OK : err->code ? err->code : IX_EXIT_FAIL;
		if (rc < 0) {
			char why[IX_ERR_MAX];

			ix_text_safe(err->msg, why, sizeof(why)); /* may quote a peer */
			fprintf(stderr, "ixperf %s[r%u]: %s\n", name, s->launch.rank, why);
		}
		return 2;
	}
	rc = fill_hosts(s, all, hosts, err);
	free(all);
	if (rc < 0) {
		ix_spmd_end(s);
		return -1;
	}
	*token = s->token;
	return 1;
}

void ix_spmd_fail_missing(const struct ix_spmd *s, struct ix_coord *co)
{
	for (uint32_t i = 0; i < co->n && s->missing; i++) {
		const struct ix_host *h = &co->peers[i].host;
		char why[IX_ERR_MAX];

		if (!h->task || h->port != 0)
			continue;
		snprintf(why, sizeof(why),
			 "task %u (on %s) published no agent within %.0f s: it never started, or "
			 "is stuck before ixperf",
			 h->task - 1, h->node, s->startup_s);
		ix_coord_fail_peer(co, i, why);
	}
}

void ix_spmd_end(struct ix_spmd *s)
{
	stop_agent(s, 0);
	ix_launch_finish(&s->launch);
}
