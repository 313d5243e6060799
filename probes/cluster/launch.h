/*
 * Launched as one task of many (srun, mpirun): which task this is, and the
 * exchange that tells every task where the others' agents listen.
 *
 * Backends, in the order they are tried:
 *   pmix       PMIX_NAMESPACE in the environment (srun --mpi=pmix, Open
 *              MPI's mpirun): rank and size from the PMIx server; every
 *              task publishes its agent's address and ephemeral port, rank 0
 *              a job token it draws, and one fence hands them round. The
 *              token never leaves the job.
 *   slurm-env  SLURM_PROCID and SLURM_STEP_NODELIST without PMIx (srun
 *              --mpi=none): each task's node comes from the step's node list
 *              and task layout, its port from the job and step ids plus its
 *              place on the node (nothing to exchange). The token must come
 *              from the user: IXPERF_TOKEN in the environment (srun passes
 *              it on) or --token-file.
 */
#ifndef IX_LAUNCH_H
#define IX_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/cluster/hostlist.h"
#include "probes/core/err.h"
#include "probes/ctl/auth.h"

#define IX_LAUNCH_MAX_TASKS 4096

/* One task's agent. */
struct ix_launch_ep {
	uint32_t rank;
	char node[IX_HOST_NAME_MAX]; /* the node's name, as the launcher gives it */
	char addr[IX_HOST_NAME_MAX]; /* where its agent is reached */
	uint16_t port;
};

struct ix_launch;

struct ix_launch_backend {
	const char *name;
	/* 1: this process is a task of this launcher (l filled: rank, size,
	 * local rank, node); 0: not; -1 with err: it is, but broken. */
	int (*detect)(struct ix_launch *l, struct ix_err *err);
	/* The task's own port for its agent: 0 for an ephemeral one. */
	uint16_t (*port)(const struct ix_launch *l);
	/* Publish self (and on rank 0 the token, drawn here when the backend
	 * can share it), then learn every task's endpoint and the token.
	 * all has l->size entries. Bounded by timeout_s. */
	int (*exchange)(struct ix_launch *l, const struct ix_launch_ep *self,
			struct ix_token *token, struct ix_launch_ep *all, double timeout_s,
			struct ix_err *err);
	void (*finish)(struct ix_launch *l);
	bool shares_token; /* the exchange carries a token drawn by rank 0 */
};

struct ix_launch {
	const struct ix_launch_backend *be;
	uint32_t rank, size;
	uint32_t local_rank;         /* place among the tasks on this node */
	char node[IX_HOST_NAME_MAX]; /* this task's node */
	char job[64];                /* job (and step) id, for messages */
	void *priv;                  /* the backend's */
};

/* Which launcher started this process: 1 with l filled when it is one task
 * of a job of two or more, 0 when not (or a job of one), -1 with err when
 * the launcher's data is unusable. */
int ix_launch_detect(struct ix_launch *l, struct ix_err *err);
int ix_launch_exchange(struct ix_launch *l, const struct ix_launch_ep *self, struct ix_token *token,
		       struct ix_launch_ep *all, double timeout_s, struct ix_err *err);
void ix_launch_finish(struct ix_launch *l);

/* Slurm's task layout: SLURM_STEP_TASKS_PER_NODE ("2(x3),1") gives the
 * number of tasks on each node of the step, in node order; tasks are
 * numbered node by node (block distribution). The node index and place on
 * the node of task rank; -1 with err when the layout is malformed or
 * does not hold rank. */
int ix_launch_slurm_place(const char *tasks_per_node, uint32_t rank, uint32_t *node,
			  uint32_t *local, struct ix_err *err);
/* The port of a task under slurm-env: from the job and step ids and its
 * place on the node, within 20000..59999. */
uint16_t ix_launch_slurm_port(uint64_t job, uint64_t step, uint32_t local);

/* The backends (launch.c, launch_pmix.c). */
extern const struct ix_launch_backend ix_launch_pmix;
extern const struct ix_launch_backend ix_launch_slurm_env;

#endif
