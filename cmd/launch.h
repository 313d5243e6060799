/*
 * mesh and incast as one task of many (srun, mpirun): every task starts an
 * agent on an ephemeral port (slurm-env: its derived port), the launcher
 * hands the endpoints and a job token round (probes/cluster/launch.h),
 * rank 0 coordinates over all of them, its own agent included, and the
 * other tasks serve until the coordinator's session ends, then exit 0.
 */
#ifndef IX_CMD_LAUNCH_H
#define IX_CMD_LAUNCH_H

#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "probes/agent/agent.h"
#include "probes/cluster/coord.h"
#include "probes/cluster/hostlist.h"
#include "probes/cluster/launch.h"
#include "probes/ctl/auth.h"

#define IX_SPMD_STARTUP_S 60.0 /* every task must be up within this */

/* How the tasks start (mesh and incast: --token-file, --task-bind,
 * --task-rdma-dev, --connect-timeout). */
struct ix_spmd_opts {
	const struct ix_token *token_file; /* slurm-env's token without IXPERF_TOKEN */
	/* Comma lists, entry local rank mod n for each task on a node: local
	 * addresses or interfaces its agent binds, publishes and sends from;
	 * RDMA devices for its agent's tests. NULL: none. */
	const char *bind;
	const char *rdma_dev;
	double startup_s; /* every task publishes within this; 0: IX_SPMD_STARTUP_S */
	/* Rank 0 goes on without tasks that never published: their hosts have
	 * no address (name "", port 0), see ix_spmd_fail_missing. Else it
	 * fails naming them. */
	bool allow_missing;
};

struct ix_spmd {
	struct ix_launch launch;
	struct ix_agent agent;
	struct ix_token token; /* the job's: the agents and the coordinator share it */
	atomic_int stop;
	pthread_t thread;
	bool running;
	int agent_rc;
	struct ix_err agent_err;
	char name[32];                             /* the command, for messages */
	char bind[INET6_ADDRSTRLEN + IF_NAMESIZE]; /* --task-bind's address; "" none */
	char rdma_dev[64];                         /* --task-rdma-dev's device; "" none */
	double startup_s;
	uint32_t missing; /* tasks that never published (rank 0) */
};

/*
 * When this process is one task of a launch (and no hosts were given):
 * start the agent, exchange, and either
 *   - return 1 on rank 0, with hosts filled (every task's agent, named by
 *     rank) and token the job's: the caller coordinates, then calls
 *     ix_spmd_end;
 *   - or serve until the coordinator is done and return 2 with *exit_rc
 *     the task's exit status (ix_spmd_end already called).
 * 0: not launched (nothing done). -1 with err.
 * token_file: --token-file, which slurm-env needs when IXPERF_TOKEN is unset.
 */
int ix_spmd_begin(struct ix_spmd *s, const char *name, const struct ix_token *token_file,
		  struct ix_hostlist *hosts, struct ix_token *token, int *exit_rc,
		  struct ix_err *err);
/* The same with every option (ix_spmd_begin: token_file alone, every task
 * required). Bad --task-bind or --task-rdma-dev entries are usage errors
 * naming the task by rank and node. */
int ix_spmd_start(struct ix_spmd *s, const char *name, const struct ix_spmd_opts *o,
		  struct ix_hostlist *hosts, struct ix_token *token, int *exit_rc,
		  struct ix_err *err);
/* Rank 0, after ix_coord_open on its hosts: the tasks that never published
 * an agent are failed peers, named by rank and node. */
void ix_spmd_fail_missing(const struct ix_spmd *s, struct ix_coord *co);
/* Stop this task's agent and leave the launch. */
void ix_spmd_end(struct ix_spmd *s);

#endif
