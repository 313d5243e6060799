#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/coll/lib.h"

/*
 * NCCL's C API (RCCL's is the same), declared with nccl.h's values: they
 * are the library's ABI. Streams are the GPU backend's (CUstream and
 * hipStream_t), passed through as pointers.
 */
typedef int ncclResult_t;
typedef struct ncclComm *ncclComm_t;
typedef struct {
	char internal[IX_COLL_ID_BYTES];
} ncclUniqueId;

enum { ncclSuccess = 0, ncclInProgress = 7 };

/* ncclConfig_t as NCCL 2.18 lays it out; a newer library reads what the
 * version says is there. */
typedef struct {
	size_t size;
	unsigned int magic;
	unsigned int version;
	int blocking;
	int cgaClusterSize;
	int minCTAs;
	int maxCTAs;
	const char *netName;
	int splitShare;
} ncclConfig_t;

#define CONFIG_MAGIC   0xcafebeefu
#define CONFIG_VERSION 21800u
#define NONBLOCK_MIN   21400 /* ncclCommInitRankConfig and ncclCommGetAsyncError's InProgress */

#define NCCL_API(X)                                                                        \
	X(ncclGetVersion, (int *))                                                         \
	X(ncclGetUniqueId, (ncclUniqueId *))                                               \
	X(ncclCommInitRank, (ncclComm_t *, int, ncclUniqueId, int))                        \
	X(ncclCommGetAsyncError, (ncclComm_t, ncclResult_t *))                             \
	X(ncclCommAbort, (ncclComm_t))                                                     \
	X(ncclCommDestroy, (ncclComm_t))                                                   \
	X(ncclGroupStart, (void))                                                          \
	X(ncclGroupEnd, (void))                                                            \
	X(ncclAllReduce, (const void *, void *, size_t, int, int, ncclComm_t, void *))     \
	X(ncclBroadcast, (const void *, void *, size_t, int, int, ncclComm_t, void *))     \
	X(ncclReduce, (const void *, void *, size_t, int, int, int, ncclComm_t, void *))   \
	X(ncclAllGather, (const void *, void *, size_t, int, ncclComm_t, void *))          \
	X(ncclReduceScatter, (const void *, void *, size_t, int, int, ncclComm_t, void *)) \
	X(ncclSend, (const void *, size_t, int, int, ncclComm_t, void *))                  \
	X(ncclRecv, (void *, size_t, int, int, ncclComm_t, void *))

#define API_MEMBER(name, params) ncclResult_t(*name) params;
struct nccl_api {
	NCCL_API(API_MEMBER)
	/* optional: newer libraries only */
	ncclResult_t (*ncclCommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int,
					       ncclConfig_t *);
	const char *(*ncclGetErrorString)(ncclResult_t);
	const char *(*ncclGetLastError)(ncclComm_t);
};
#undef API_MEMBER

#define API_SYM(name, params) { #name, offsetof(struct nccl_api, name) },
static const struct {
	const char *name;
	size_t off;
} api_syms[] = { NCCL_API(API_SYM) };
#undef API_SYM

/* The table: a row a library. */
static const struct {
	const char *name, *file, *gpu_backend, *missing;
} libs[] = {
	{ "nccl", "libnccl.so.2", "cuda",
	  "libnccl.so.2 not found: install NCCL (the libnccl2 package, or the nvidia-nccl "
	  "wheel's lib folder on LD_LIBRARY_PATH)" },
	{ "rccl", "librccl.so.1", "rocm",
	  "librccl.so.1 not found: install RCCL (ROCm's rccl package)" },
};
#define NLIBS (sizeof(libs) / sizeof(libs[0]))

struct ix_coll_lib {
	void *dl;
	struct nccl_api api;
	int version;
};

const char *ix_coll_lib_name(int i)
{
	return i >= 0 && (size_t)i < NLIBS ? libs[i].name : NULL;
}

static int lib_fail(struct ix_coll_lib *L, ncclResult_t r, const char *call, void *comm,
		    struct ix_err *err)
{
	const char *name = L->api.ncclGetErrorString ? L->api.ncclGetErrorString(r) : NULL;
	const char *last = L->api.ncclGetLastError ? L->api.ncclGetLastError(comm) : NULL;

	return ix_fail(err, IX_EXIT_FAIL, "%s failed: %s (%d)%s%.200s", call,
		       name ? name : "unknown error", r, last && last[0] ? ": " : "",
		       last ? last : "");
}

#define LIB_CALL(L, err, comm, fn, args)                              \
	do {                                                          \
		ncclResult_t r_ = (L)->api.fn args;                   \
		if (r_ != ncclSuccess && r_ != ncclInProgress)        \
			return lib_fail((L), r_, #fn, (comm), (err)); \
	} while (0)

static int open_row(struct ix_coll_lib *L, size_t row, const char *path,
		    struct ix_coll_lib_info *info, struct ix_err *err)
{
	const char *file = path ? path : libs[row].file;
	const char *sim;
	struct link_map *map = NULL;

	memset(L, 0, sizeof(*L));
	L->dl = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!L->dl) {
		if (path)
			return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s: %.300s", path, dlerror());
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s", libs[row].missing);
	}
	for (size_t i = 0; i < sizeof(api_syms) / sizeof(api_syms[0]); i++) {
		void *f = dlsym(L->dl, api_syms[i].name);
		if (!f) {
			dlclose(L->dl);
			L->dl = NULL;
			return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s has no %s: not %s, or too old",
				       file, api_syms[i].name, libs[row].name);
		}
		memcpy((char *)&L->api + api_syms[i].off, &f, sizeof(f));
	}
	*(void **)&L->api.ncclCommInitRankConfig = dlsym(L->dl, "ncclCommInitRankConfig");
	*(void **)&L->api.ncclGetErrorString = dlsym(L->dl, "ncclGetErrorString");
	*(void **)&L->api.ncclGetLastError = dlsym(L->dl, "ncclGetLastError");
	if (L->api.ncclGetVersion(&L->version) != ncclSuccess)
		L->version = 0;
	memset(info, 0, sizeof(*info));
	info->name = libs[row].name;
	info->gpu_backend = libs[row].gpu_backend;
	snprintf(info->library, sizeof(info->library), "%s", file);
	if (dlinfo(L->dl, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0])
		snprintf(info->library, sizeof(info->library), "%s", map->l_name);
	/* The code is major * 10000 + minor * 100 + patch from 2.9 on,
	 * major * 1000 + minor * 100 + patch before. */
	if (L->version >= 20900)
		snprintf(info->version, sizeof(info->version), "%d.%d.%d", L->version / 10000,
			 L->version / 100 % 100, L->version % 100);
	else if (L->version > 0)
		snprintf(info->version, sizeof(info->version), "%d.%d.%d", L->version / 1000,
			 L->version / 100 % 10, L->version % 100);
	info->nonblocking = L->api.ncclCommInitRankConfig && L->version >= NONBLOCK_MIN;
	sim = dlsym(L->dl, "ixperf_simulation");
	if (sim)
		snprintf(info->simulation, sizeof(info->simulation), "%.255s", sim);
	return 0;
}

int ix_coll_lib_open(struct ix_coll_lib **out, const char *name, const char *gpu_backend,
		     const char *path, struct ix_coll_lib_info *info, struct ix_err *err)
{
	struct ix_coll_lib *L = calloc(1, sizeof(*L));
	char why[IX_ERR_MAX] = "";
	size_t used = 0;

	*out = NULL;
	if (!L)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (size_t i = 0; i < NLIBS; i++) {
		if (name ? strcmp(name, libs[i].name) != 0
			 : gpu_backend && strcmp(gpu_backend, libs[i].gpu_backend) != 0)
			continue;
		if (open_row(L, i, path, info, err) == 0) {
			*out = L;
			return 0;
		}
		used += (size_t)snprintf(why + used, used < sizeof(why) ? sizeof(why) - used : 0,
					 "%s%s", used ? "; " : "", err ? err->msg : "");
		if (used >= sizeof(why))
			used = sizeof(why) - 1;
	}
	free(L);
	if (name && !why[0])
		return ix_fail(err, IX_EXIT_USAGE,
			       "unknown collective library '%.64s' (known: nccl, rccl)", name);
	if (!why[0])
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "no collective library goes with the %s GPU backend",
			       gpu_backend ? gpu_backend : "(none)");
	return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s", why);
}

void ix_coll_lib_close(struct ix_coll_lib *L)
{
	/* The library's threads may outlive its communicators: it stays
	 * mapped, as the GPU backends leave theirs. */
	free(L);
}

int ix_coll_lib_unique_id(struct ix_coll_lib *L, uint8_t id[IX_COLL_ID_BYTES], struct ix_err *err)
{
	ncclUniqueId u;

	LIB_CALL(L, err, NULL, ncclGetUniqueId, (&u));
	memcpy(id, u.internal, IX_COLL_ID_BYTES);
	return 0;
}

int ix_coll_lib_init(struct ix_coll_lib *L, void **comm, int nranks,
		     const uint8_t id[IX_COLL_ID_BYTES], int rank, struct ix_err *err)
{
	ncclUniqueId u;
	ncclComm_t c = NULL;

	memcpy(u.internal, id, IX_COLL_ID_BYTES);
	*comm = NULL;
	if (L->api.ncclCommInitRankConfig && L->version >= NONBLOCK_MIN) {
		ncclConfig_t cfg = {
			.size = sizeof(cfg),
			.magic = CONFIG_MAGIC,
			.version = CONFIG_VERSION,
			.blocking = 0,
			.cgaClusterSize = INT_MIN,
			.minCTAs = INT_MIN,
			.maxCTAs = INT_MIN,
			.netName = NULL,
			.splitShare = INT_MIN,
		};
		ncclResult_t r = L->api.ncclCommInitRankConfig(&c, nranks, u, rank, &cfg);
		*comm = c;
		if (r != ncclSuccess && r != ncclInProgress)
			return lib_fail(L, r, "ncclCommInitRankConfig", c, err);
		return 0;
	}
	LIB_CALL(L, err, NULL, ncclCommInitRank, (&c, nranks, u, rank));
	*comm = c;
	return 0;
}

int ix_coll_lib_ready(struct ix_coll_lib *L, void *comm, struct ix_err *err)
{
	ncclResult_t st = ncclSuccess, r;

	if (!comm)
		return ix_fail(err, IX_EXIT_FAIL, "no communicator");
	r = L->api.ncclCommGetAsyncError(comm, &st);
	if (r != ncclSuccess)
		return lib_fail(L, r, "ncclCommGetAsyncError", comm, err);
	if (st == ncclInProgress)
		return 0;
	if (st != ncclSuccess)
		return lib_fail(L, st, "the communicator", comm, err);
	return 1;
}

int ix_coll_lib_group(struct ix_coll_lib *L, bool start, struct ix_err *err)
{
	if (start)
		LIB_CALL(L, err, NULL, ncclGroupStart, ());
	else
		LIB_CALL(L, err, NULL, ncclGroupEnd, ());
	return 0;
}

void ix_coll_lib_abort(struct ix_coll_lib *L, void *comm)
{
	if (comm)
		L->api.ncclCommAbort(comm);
}

void ix_coll_lib_destroy(struct ix_coll_lib *L, void *comm)
{
	if (comm)
		L->api.ncclCommDestroy(comm);
}

static void *ptr(uint64_t a)
{
	return (void *)(uintptr_t)a;
}

int ix_coll_lib_exchange(struct ix_coll_lib *L, enum ix_coll_dtype t, uint64_t send, uint64_t recv,
			 size_t count, int peer, void *comm, void *stream, struct ix_err *err)
{
	LIB_CALL(L, err, comm, ncclGroupStart, ());
	LIB_CALL(L, err, comm, ncclSend, (ptr(send), count, (int)t, peer, comm, stream));
	LIB_CALL(L, err, comm, ncclRecv, (ptr(recv), count, (int)t, peer, comm, stream));
	LIB_CALL(L, err, comm, ncclGroupEnd, ());
	return 0;
}

int ix_coll_lib_launch(struct ix_coll_lib *L, enum ix_coll_op op, enum ix_coll_dtype t,
		       enum ix_coll_redop redop, int root, uint64_t send, uint64_t recv,
		       const struct ix_coll_shape *sh, int rank, int nranks, void *comm,
		       void *stream, struct ix_err *err)
{
	size_t n = sh->count, dsize = ix_coll_dtype_size(t);

	switch (op) {
	case IX_COLL_ALL_REDUCE:
		LIB_CALL(L, err, comm, ncclAllReduce,
			 (ptr(send), ptr(recv), n, (int)t, (int)redop, comm, stream));
		break;
	case IX_COLL_ALL_GATHER:
		LIB_CALL(L, err, comm, ncclAllGather,
			 (ptr(send), ptr(recv), n, (int)t, comm, stream));
		break;
	case IX_COLL_REDUCE_SCATTER:
		LIB_CALL(L, err, comm, ncclReduceScatter,
			 (ptr(send), ptr(recv), n, (int)t, (int)redop, comm, stream));
		break;
	case IX_COLL_BROADCAST:
		LIB_CALL(L, err, comm, ncclBroadcast,
			 (ptr(send), ptr(recv), n, (int)t, root, comm, stream));
		break;
	case IX_COLL_REDUCE:
		LIB_CALL(L, err, comm, ncclReduce,
			 (ptr(send), ptr(recv), n, (int)t, (int)redop, root, comm, stream));
		break;
	case IX_COLL_SENDRECV:
		LIB_CALL(L, err, comm, ncclGroupStart, ());
		LIB_CALL(L, err, comm, ncclSend,
			 (ptr(send), n, (int)t, (rank + 1) % nranks, comm, stream));
		LIB_CALL(L, err, comm, ncclRecv,
			 (ptr(recv), n, (int)t, (rank + nranks - 1) % nranks, comm, stream));
		LIB_CALL(L, err, comm, ncclGroupEnd, ());
		break;
	case IX_COLL_ALLTOALL:
		LIB_CALL(L, err, comm, ncclGroupStart, ());
		for (int r = 0; r < nranks; r++) {
			LIB_CALL(L, err, comm, ncclSend,
				 (ptr(send + (uint64_t)r * n * dsize), n, (int)t, r, comm, stream));
			LIB_CALL(L, err, comm, ncclRecv,
				 (ptr(recv + (uint64_t)r * n * dsize), n, (int)t, r, comm, stream));
		}
		LIB_CALL(L, err, comm, ncclGroupEnd, ());
		break;
	default:
		return ix_fail(err, IX_EXIT_USAGE, "unknown collective %d", (int)op);
	}
	return 0;
}
