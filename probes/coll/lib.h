/*
 * The communication libraries: NCCL (libnccl.so.2, over CUDA) and RCCL
 * (librccl.so.1, over HIP), which share one C API. Opened with dlopen at
 * run time, with the few types they take declared in lib.c, so ixperf
 * builds and runs where neither exists. Listed in lib.c's table, one row
 * a library: its name, its file, the GPU backend (probes/gpu) its streams
 * and buffers come from.
 *
 * Communicators are made without blocking where the library can
 * (ncclCommInitRankConfig with blocking = 0, NCCL 2.14 and later), so
 * that a rank that never joins is a bounded wait the caller can abort.
 */
#ifndef IX_COLL_LIB_H
#define IX_COLL_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/coll/coll.h"
#include "probes/core/err.h"

struct ix_coll_lib;

struct ix_coll_lib_info {
	const char *name;        /* "nccl", "rccl" */
	const char *gpu_backend; /* "cuda", "rocm" */
	char library[256];       /* the file dlopen found */
	char version[32];        /* "2.23.4" */
	bool nonblocking;        /* communicators are made without blocking */
	/* A library that exports ixperf_simulation (a string saying what it
	 * models) is a simulation: every report says so. */
	char simulation[256];
};

/* The table's rows, in the order ix_coll_lib_open tries them. */
const char *ix_coll_lib_name(int i); /* NULL past the last */

/* Open the library named (NULL: the first whose GPU backend is
 * gpu_backend, or the first that opens). path overrides its file (tests).
 * IX_EXIT_UNAVAILABLE with one sentence when it is not there. */
int ix_coll_lib_open(struct ix_coll_lib **out, const char *name, const char *gpu_backend,
		     const char *path, struct ix_coll_lib_info *info, struct ix_err *err);
void ix_coll_lib_close(struct ix_coll_lib *L);

int ix_coll_lib_unique_id(struct ix_coll_lib *L, uint8_t id[IX_COLL_ID_BYTES], struct ix_err *err);

/* Begin making the communicator of rank of nranks, on the device current
 * on this thread. Several ranks of one process: between group(true) and
 * group(false), each with its device made current first. */
int ix_coll_lib_init(struct ix_coll_lib *L, void **comm, int nranks,
		     const uint8_t id[IX_COLL_ID_BYTES], int rank, struct ix_err *err);
/* 1: comm is ready (or its last call done); 0: still in progress; -1 with
 * err: it failed (the library's error and its last message). */
int ix_coll_lib_ready(struct ix_coll_lib *L, void *comm, struct ix_err *err);
int ix_coll_lib_group(struct ix_coll_lib *L, bool start, struct ix_err *err);
void ix_coll_lib_abort(struct ix_coll_lib *L, void *comm);
void ix_coll_lib_destroy(struct ix_coll_lib *L, void *comm);

/* Queue op on stream: send and recv are device addresses, sh the row's
 * shape for nranks (sendrecv: to rank + 1, from rank - 1; alltoall: a
 * send and a receive of sh->count to and from every rank, in one group). */
int ix_coll_lib_launch(struct ix_coll_lib *L, enum ix_coll_op op, enum ix_coll_dtype t,
		       enum ix_coll_redop redop, int root, uint64_t send, uint64_t recv,
		       const struct ix_coll_shape *sh, int rank, int nranks, void *comm,
		       void *stream, struct ix_err *err);
/* Queue a send of count elements to peer and a receive of as many from
 * peer (the pair scan), in one group. */
int ix_coll_lib_exchange(struct ix_coll_lib *L, enum ix_coll_dtype t, uint64_t send, uint64_t recv,
			 size_t count, int peer, void *comm, void *stream, struct ix_err *err);

#endif
