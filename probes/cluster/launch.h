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
 *
 * Several tasks on one node (a task per GPU or NIC) can each take their own
 * local address and RDMA device from a list indexed by local rank
 * (ix_launch_list_pick, ix_launch_local_addr); only an exchange that
 * carries each task's own address (publishes_self) can hand such addresses
 * round.
 */
#ifndef IX_LAUNCH_H
#define IX_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
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
	/* Never published within the exchange's bound (its task did not start,
	 * or is stuck before its agent): addr "" and port 0; node as the
	 * launcher knows it ("" when it does not). */
	bool missing;
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
	 * all has l->size entries. Bounded by timeout_s; when some tasks have
	 * not published by then, rank 0 asks for each endpoint alone and marks
	 * those still absent missing, and the other ranks only fetch the token
	 * (their all entries but their own are then missing). */
	int (*exchange)(struct ix_launch *l, const struct ix_launch_ep *self,
			struct ix_token *token, struct ix_launch_ep *all, double timeout_s,
			struct ix_err *err);
	void (*finish)(struct ix_launch *l);
	/* Values by key, for what a job shares besides its agents (ixperf
	 * coll: rank 0's unique id, every rank's report). put publishes this
	 * task's value under key and commits it; get reads task rank's,
	 * waiting up to timeout_s for it to be published (*data malloc'd).
	 * NULL where the launcher carries no values. */
	int (*put)(struct ix_launch *l, const char *key, const void *data, size_t len,
		   struct ix_err *err);
	int (*get)(struct ix_launch *l, uint32_t rank, const char *key, uint8_t **data, size_t *len,
		   double timeout_s, struct ix_err *err);
	bool shares_token;   /* the exchange carries a token drawn by rank 0 */
	bool publishes_self; /* the exchange carries each task's own address (self->addr) */
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
/* The backend's put and get; IX_EXIT_UNAVAILABLE naming the launcher when
 * it carries no values (slurm-env: srun --mpi=pmix does). */
int ix_launch_put(struct ix_launch *l, const char *key, const void *data, size_t len,
		  struct ix_err *err);
int ix_launch_get(struct ix_launch *l, uint32_t rank, const char *key, uint8_t **data, size_t *len,
		  double timeout_s, struct ix_err *err);

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

/* Entry local_rank mod n of a comma-separated list of n (--task-bind,
 * --task-rdma-dev: one entry per task on a node), into out. -1 with a
 * usage error naming the list when an entry is empty or too long. */
int ix_launch_list_pick(const char *list, uint32_t local_rank, char *out, size_t len,
			struct ix_err *err);
/* A local address for an agent from entry: an IP literal that this host
 * can bind, or an interface name, which gives its first IPv4 address, else
 * its first IPv6 one (numeric, with its scope when link-local). -1 with a
 * usage error naming entry when it is neither. */
int ix_launch_local_addr(const char *entry, char *addr, size_t len, struct ix_err *err);

/* A task's endpoint as the PMIx backend publishes it, "PORT ADDR", into
 * ep's port and addr; -1 when malformed (ep is then unchanged). */
int ix_launch_pmix_parse_ep(const char *s, struct ix_launch_ep *ep);

/* The backends (launch.c, launch_pmix.c). */
extern const struct ix_launch_backend ix_launch_pmix;
extern const struct ix_launch_backend ix_launch_slurm_env;

#endif
