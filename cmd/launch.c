#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/launch.h"
#include "probes/core/clock.h"

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
	return ix_agent_open(&s->agent, &cfg, &s->stop, err);
}

/* This task's address as the others reach it: the node's name. */
static void self_endpoint(const struct ix_spmd *s, struct ix_launch_ep *self)
{
	memset(self, 0, sizeof(*self));
	self->rank = s->launch.rank;
	self->port = ix_agent_port(&s->agent);
	if (gethostname(self->addr, sizeof(self->addr) - 1) < 0 || !self->addr[0])
		snprintf(self->addr, sizeof(self->addr), "%s", s->launch.node);
	snprintf(self->node, sizeof(self->node), "%s", s->launch.node);
}

/* Stop this task's agent and wait for it: grace_s at most (0: as long
 * as it takes); -1 when it is still running then. */
static int stop_agent(struct ix_spmd *s, int grace_s)
{
	struct timespec until;

	if (!s->running)
		return 0;
	atomic_store(&s->stop, 1);
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
	struct ix_launch_ep self, *all;
	int rc;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	rc = ix_launch_detect(&s->launch, err);
	if (rc <= 0)
		return rc;
	if (token_file && token_file->set)
		s->token = *token_file;
	all = calloc(s->launch.size, sizeof(*all));
	if (!all) {
		ix_launch_finish(&s->launch);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	if (start_agent(s, err) < 0) {
		ix_launch_finish(&s->launch);
		free(all);
		return ix_fail_prefix(err, "task %u: its agent", s->launch.rank);
	}
	self_endpoint(s, &self);
	if (ix_launch_exchange(&s->launch, &self, &s->token, all, IX_SPMD_STARTUP_S, err) < 0 ||
	    pthread_create(&s->thread, NULL, agent_main, s) != 0) {
		const char *be = s->launch.be->name;

		if (!err->code)
			ix_fail(err, IX_EXIT_FAIL, "cannot start the agent's thread");
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
		if (rc < 0)
			fprintf(stderr, "ixperf %s[r%u]: %s\n", name, s->launch.rank, err->msg);
		return 2;
	}
	memset(hosts, 0, sizeof(*hosts));
	hosts->v = calloc(s->launch.size, sizeof(*hosts->v));
	if (!hosts->v) {
		free(all);
		ix_spmd_end(s);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	for (uint32_t r = 0; r < s->launch.size; r++) {
		snprintf(hosts->v[r].name, sizeof(hosts->v[r].name), "%s", all[r].addr);
		hosts->v[r].port = all[r].port;
		hosts->v[r].task = r + 1;
	}
	hosts->n = hosts->cap = s->launch.size;
	*token = s->token;
	free(all);
	return 1;
}

void ix_spmd_end(struct ix_spmd *s)
{
	stop_agent(s, 0);
	ix_launch_finish(&s->launch);
}
