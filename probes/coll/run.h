/*
 * One process's ranks of a collective job: their communicators, streams,
 * buffers and events, and the sweep, the check and the pair scan, each
 * rank's figures going into its struct ix_coll_rank. One rank a process
 * under a launcher; one a GPU when a single process drives them all.
 *
 * Every wait is bounded by opts->timeout_s: a communicator that is not
 * made in time (a rank that never joined), or a batch that does not end
 * (a rank that hung), is aborted and reported, never waited on for good.
 */
#ifndef IX_COLL_RUN_H
#define IX_COLL_RUN_H

#include "probes/coll/coll.h"
#include "probes/coll/lib.h"
#include "probes/gpu/gpu.h"

struct ix_coll_local {
	int rank, device;
	void *comm, *stream;
	void **ev; /* iters + 1 events: iteration i runs from ev[i] to ev[i + 1] */
	struct ix_gpu_buf send, recv, tiny_send, tiny_recv;
	struct ix_coll_rank *rep;
};

struct ix_coll_run {
	struct ix_coll_lib *lib;
	struct ix_gpu_ctx *gpu;
	const struct ix_coll_opts *o;
	int nranks;
	int nlocal;
	struct ix_coll_local local[IX_COLL_MAX_LOCAL];
	size_t bytes;  /* each buffer's */
	uint8_t *host; /* staging for the check: bytes */
};

/* Make the communicators of the nlocal ranks ranks[] (on devices[],
 * reporting into reps[]) of nranks, with the library's unique id id,
 * waiting for the job's other ranks at most o->timeout_s. */
int ix_coll_run_join(struct ix_coll_run *R, struct ix_coll_lib *lib, struct ix_gpu_ctx *gpu,
		     const struct ix_coll_opts *o, int nranks, const uint8_t id[IX_COLL_ID_BYTES],
		     int nlocal, const int *ranks, const int *devices, struct ix_coll_rank *reps,
		     struct ix_err *err);
/* The sweep (every row, each placement, the check) and then, when asked,
 * the pair scan. On failure every local rank's report says why; the rows
 * measured so far stay in them. */
int ix_coll_run_sweep(struct ix_coll_run *R, struct ix_err *err);
int ix_coll_run_pairs(struct ix_coll_run *R, struct ix_err *err);
/* Destroy the communicators (abort them after a failure) and free all. */
void ix_coll_run_end(struct ix_coll_run *R);

#endif
