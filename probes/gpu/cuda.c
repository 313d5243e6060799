#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/gpu/backend.h"
#include "probes/gpu/gpu.h"
#include "probes/gpu/ptx.h"

/*
 * The CUDA backend: the driver API of libcuda.so.1, opened with dlopen.
 * The few types and constants used are declared here with cuda.h's values
 * (they are part of the driver's ABI), so the build needs no toolkit.
 */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct {
	char reserved[IX_GPU_IPC_HANDLE];
} CUipcMemHandle;

enum { CUDA_SUCCESS = 0, CUDA_ERROR_STUB_LIBRARY = 34, CUDA_ERROR_DEVICE_UNAVAILABLE = 46 };
enum { CUDA_ERROR_NO_DEVICE = 100, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803 };
enum { CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704, CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705 };
enum { CUDA_ERROR_NOT_READY = 600 };
/* Device attributes: SMs, memory clock (kHz), bus width (bits), dmabuf. */
enum { CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124 };
enum { CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 0x1 };
enum { CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37, CU_STREAM_NON_BLOCKING = 0x1 };
enum { CU_MEMHOSTALLOC_PORTABLE = 0x1, CU_MEMHOSTALLOC_DEVICEMAP = 0x2, CU_EVENT_DEFAULT = 0x0 };
enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };
enum { CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1 };

/* The driver functions used: the name exported (versioned where cuda.h maps
 * a call to a version), the name older drivers export or NULL, parameters. */
#define CU_API(X)                                                                                 \
	X(cuInit, NULL, (unsigned))                                                               \
	X(cuDriverGetVersion, NULL, (int *))                                                      \
	X(cuGetErrorName, NULL, (CUresult, const char **))                                        \
	X(cuDeviceGetCount, NULL, (int *))                                                        \
	X(cuDeviceGet, NULL, (CUdevice *, int))                                                   \
	X(cuDeviceGetName, NULL, (char *, int, CUdevice))                                         \
	X(cuDeviceTotalMem_v2, NULL, (size_t *, CUdevice))                                        \
	X(cuDeviceGetPCIBusId, NULL, (char *, int, CUdevice))                                     \
	X(cuDeviceGetAttribute, NULL, (int *, int, CUdevice))                                     \
	X(cuDeviceCanAccessPeer, NULL, (int *, CUdevice, CUdevice))                               \
	X(cuDevicePrimaryCtxRetain, NULL, (CUcontext *, CUdevice))                                \
	X(cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease", (CUdevice))                  \
	X(cuCtxSetCurrent, NULL, (CUcontext))                                                     \
	X(cuCtxSynchronize, NULL, (void))                                                         \
	X(cuCtxEnablePeerAccess, NULL, (CUcontext, unsigned))                                     \
	X(cuCtxDisablePeerAccess, NULL, (CUcontext))                                              \
	X(cuMemAlloc_v2, NULL, (CUdeviceptr *, size_t))                                           \
	X(cuMemFree_v2, NULL, (CUdeviceptr))                                                      \
	X(cuMemHostAlloc, NULL, (void **, size_t, unsigned))                                      \
	X(cuMemFreeHost, NULL, (void *))                                                          \
	X(cuMemHostGetDevicePointer_v2, NULL, (CUdeviceptr *, void *, unsigned))                  \
	X(cuMemsetD8_v2, NULL, (CUdeviceptr, unsigned char, size_t))                              \
	X(cuMemcpyHtoD_v2, NULL, (CUdeviceptr, const void *, size_t))                             \
	X(cuMemcpyDtoH_v2, NULL, (void *, CUdeviceptr, size_t))                                   \
	X(cuMemcpyAsync, NULL, (CUdeviceptr, CUdeviceptr, size_t, CUstream))                      \
	X(cuMemcpyPeerAsync, NULL,                                                                \
	  (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))                     \
	X(cuStreamCreate, NULL, (CUstream *, unsigned))                                           \
	X(cuStreamDestroy_v2, "cuStreamDestroy", (CUstream))                                      \
	X(cuStreamSynchronize, NULL, (CUstream))                                                  \
	X(cuStreamQuery, NULL, (CUstream))                                                        \
	X(cuEventCreate, NULL, (CUevent *, unsigned))                                             \
	X(cuEventDestroy_v2, "cuEventDestroy", (CUevent))                                         \
	X(cuEventRecord, NULL, (CUevent, CUstream))                                               \
	X(cuEventSynchronize, NULL, (CUevent))                                                    \
	X(cuEventElapsedTime_v2, "cuEventElapsedTime", (float *, CUevent, CUevent))               \
	X(cuModuleLoadDataEx, NULL, (CUmodule *, const void *, unsigned, int *, void **))         \
	X(cuModuleUnload, NULL, (CUmodule))                                                       \
	X(cuModuleGetFunction, NULL, (CUfunction *, CUmodule, const char *))                      \
	X(cuLaunchKernel, NULL,                                                                   \
	  (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,      \
	   CUstream, void **, void **))                                                           \
	X(cuIpcGetMemHandle, NULL, (CUipcMemHandle *, CUdeviceptr))                               \
	X(cuIpcOpenMemHandle_v2, "cuIpcOpenMemHandle", (CUdeviceptr *, CUipcMemHandle, unsigned)) \
	X(cuIpcCloseMemHandle, NULL, (CUdeviceptr))                                               \
	X(cuMemGetHandleForAddressRange, NULL,                                                    \
	  (void *, CUdeviceptr, size_t, int, unsigned long long))

#define CU_MEMBER(name, alt, params) CUresult(*name) params;
struct cu_api {
	CU_API(CU_MEMBER)
};
#undef CU_MEMBER

#define CU_SYM(name, alt, params) { #name, alt, offsetof(struct cu_api, name) },
static const struct ix_gpu_be_sym cu_syms[] = { CU_API(CU_SYM) };
#undef CU_SYM

enum { K_COPY, K_CHASE, K_SPIN, K_COUNT };
static const char *const kernel_names[] = { IX_GPU_PTX_COPY, IX_GPU_PTX_CHASE, IX_GPU_PTX_SPIN };

/* Reads of the gate flag before the spin kernel gives up: each read is a
 * round trip to host memory plus a ~1 us sleep, so this is over 10 s. */
#define GATE_LIMIT   10000000ull
#define GATE_OUT     64 /* byte offset of the chase's output word in the gate page */
#define COPY_THREADS 512u

struct ix_gpu {
	void *lib;
	bool inited; /* cuInit succeeded: the library stays loaded (see close) */
	struct cu_api cu;
	int ndev;
	CUdevice dev[IX_GPU_MAX_DEVICES];
	CUcontext ctx[IX_GPU_MAX_DEVICES]; /* primary contexts, retained on first use */
	CUmodule mod[IX_GPU_MAX_DEVICES];  /* the embedded kernels, loaded on first use */
	CUfunction fn[IX_GPU_MAX_DEVICES][K_COUNT];
	int sms[IX_GPU_MAX_DEVICES];
	bool dmabuf[IX_GPU_MAX_DEVICES];
	struct ix_gpu_be_peers peer; /* as set_peer left it */
	/* Pinned, mapped for every device: the gate's flag words (ptx.h)
	 * and the chase's output word at GATE_OUT. Allocated on first use. */
	struct ix_gpu_buf gate;
	size_t page; /* the host's */
};

static int cu_fail(struct ix_gpu *g, CUresult r, const char *call, struct ix_err *err)
{
	const char *name = NULL;

	if (!g->cu.cuGetErrorName || g->cu.cuGetErrorName(r, &name) != CUDA_SUCCESS)
		name = NULL;
	return ix_gpu_be_call_fail(err, call, name, r);
}

/* CU_CALL(g, err, cuX, (args)): call it, return its failure. */
#define CU_CALL(g, err, fn, args)                            \
	do {                                                 \
		CUresult r_ = (g)->cu.fn args;               \
		if (r_ != CUDA_SUCCESS)                      \
			return cu_fail((g), r_, #fn, (err)); \
	} while (0)

static int check_device(struct ix_gpu *g, int d, struct ix_err *err)
{
	return ix_gpu_be_check_device("CUDA", d, g->ndev, err);
}

/* Make device d's primary context current, retaining it the first time. */
static int use_device(struct ix_gpu *g, int d, struct ix_err *err)
{
	if (check_device(g, d, err) < 0)
		return -1;
	if (!g->ctx[d])
		CU_CALL(g, err, cuDevicePrimaryCtxRetain, (&g->ctx[d], g->dev[d]));
	CU_CALL(g, err, cuCtxSetCurrent, (g->ctx[d]));
	return 0;
}

/* A device attribute, 0 when the driver does not report it. */
static int attr(struct ix_gpu *g, int d, int a)
{
	int v = 0;

	return g->cu.cuDeviceGetAttribute(&v, a, g->dev[d]) == CUDA_SUCCESS ? v : 0;
}

/* Load the embedded PTX on device d (the driver JITs it for that GPU). */
static int load_kernels(struct ix_gpu *g, int d, struct ix_err *err)
{
	char log[1024] = "";
	int opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[2] = { log, (void *)(uintptr_t)sizeof(log) };
	CUresult r;

	if (g->mod[d] || use_device(g, d, err) < 0)
		return g->mod[d] ? 0 : -1;
	r = g->cu.cuModuleLoadDataEx(&g->mod[d], ix_gpu_ptx, 2, opts, vals);
	if (r != CUDA_SUCCESS) {
		g->mod[d] = NULL;
		cu_fail(g, r, "cuModuleLoadDataEx", err);
		return ix_fail_prefix(err, "the embedded kernels do not load on device %d (%.200s)",
				      d, log[0] ? log : "no JIT log");
	}
	for (int k = 0; k < K_COUNT; k++) {
		r = g->cu.cuModuleGetFunction(&g->fn[d][k], g->mod[d], kernel_names[k]);
		if (r != CUDA_SUCCESS) {
			g->cu.cuModuleUnload(g->mod[d]);
			g->mod[d] = NULL;
			return cu_fail(g, r, "cuModuleGetFunction", err);
		}
	}
	return 0;
}

static void cuda_ipc_close(struct ix_gpu *g, struct ix_gpu_buf *b)
{
	if (b->imported && b->dev && use_device(g, b->device, NULL) == 0)
		g->cu.cuIpcCloseMemHandle(b->dev);
	memset(b, 0, sizeof(*b));
}

static void cuda_free(struct ix_gpu *g, struct ix_gpu_buf *b)
{
	if (b->imported)
		cuda_ipc_close(g, b);
	else if (b->mem == IX_GPU_MEM_DEVICE && b->dev && use_device(g, b->device, NULL) == 0)
		g->cu.cuMemFree_v2(b->dev);
	else if (b->mem == IX_GPU_MEM_PINNED && b->host)
		g->cu.cuMemFreeHost(b->host);
	ix_gpu_be_free_end(b);
}

/* Device buffers are whole 2 MiB GPU pages, each an allocation of its own
 * on a page boundary (dmabuf export needs one; an IPC handle names a whole
 * allocation). Pinned buffers are portable: mapped for every device. */
static int cuda_alloc(struct ix_gpu *g, enum ix_gpu_mem mem, int device, size_t size,
		      struct ix_gpu_buf *out, struct ix_err *err)
{
	CUdeviceptr p = 0;
	CUresult r;
	int use, rc = ix_gpu_be_alloc_begin(mem, device, size, g->page, out, &use, err);

	if (rc <= 0) /* pageable memory, or an error */
		return rc;
	if (use_device(g, use, err) < 0)
		return -1;
	if (mem == IX_GPU_MEM_DEVICE) {
		CU_CALL(g, err, cuMemAlloc_v2,
			(&p, ix_gpu_be_round_up(size, IX_GPU_BE_DEVICE_PAGE)));
		out->dev = p;
		return 0;
	}
	CU_CALL(g, err, cuMemHostAlloc,
		(&out->host, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
	r = g->cu.cuMemHostGetDevicePointer_v2(&p, out->host, 0);
	out->dev = p;
	if (r != CUDA_SUCCESS)
		cuda_free(g, out);
	return r == CUDA_SUCCESS ? 0 : cu_fail(g, r, "cuMemHostGetDevicePointer", err);
}

static int cuda_fill(struct ix_gpu *g, const struct ix_gpu_buf *b, uint8_t v, struct ix_err *err)
{
	if (ix_gpu_be_fill_host(b, v))
		return 0;
	if (use_device(g, b->device, err) < 0)
		return -1;
	CU_CALL(g, err, cuMemsetD8_v2, (b->dev, v, b->size));
	/* cuMemsetD8 on device memory may return before it is done. */
	CU_CALL(g, err, cuCtxSynchronize, ());
	return 0;
}

/* The gate page (allocated on first use), closed and not expired. */
static volatile uint32_t *gate_page(struct ix_gpu *g, struct ix_err *err)
{
	if (!g->gate.host && cuda_alloc(g, IX_GPU_MEM_PINNED, 0, g->page, &g->gate, err) < 0)
		return NULL;
	memset(g->gate.host, 0, 2 * sizeof(uint32_t));
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* seen before any launch */
	return g->gate.host;
}

/* cuInit's failures that mean "no usable NVIDIA GPU here". */
static const struct {
	CUresult r;
	const char *why;
} init_errors[] = {
	{ CUDA_ERROR_STUB_LIBRARY,
	  "is the CUDA toolkit's stub library: install the NVIDIA driver" },
	{ CUDA_ERROR_NO_DEVICE, "finds no NVIDIA GPU on this machine (cuInit)" },
	{ CUDA_ERROR_DEVICE_UNAVAILABLE, "finds the GPUs busy or in exclusive-process mode" },
	{ CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "does not match the loaded NVIDIA kernel module" },
};

/* dlsym every function; only dmabuf export (CUDA 11.7+) may be missing. */
static int resolve(struct ix_gpu *g, const char *lib, struct ix_err *err)
{
	static const size_t optional[] = { offsetof(struct cu_api, cuMemGetHandleForAddressRange) };

	return ix_gpu_be_resolve(g->lib, cu_syms, sizeof(cu_syms) / sizeof(cu_syms[0]), optional,
				 sizeof(optional) / sizeof(optional[0]), &g->cu, lib,
				 "the NVIDIA driver", err);
}

static int cuda_can_access_peer(struct ix_gpu *g, int from, int to, bool *yes, struct ix_err *err)
{
	int v = 1;

	*yes = false;
	if (check_device(g, from, err) < 0 || check_device(g, to, err) < 0)
		return -1;
	if (from != to)
		CU_CALL(g, err, cuDeviceCanAccessPeer, (&v, g->dev[from], g->dev[to]));
	*yes = v != 0;
	return 0;
}

/* Devices, their attributes, what the backend can do. */
static int probe(struct ix_gpu *g, struct ix_gpu_backend_info *info, struct ix_err *err)
{
	struct ix_err kerr = { 0 };
	int n = 0, v = 0;

	CU_CALL(g, err, cuDriverGetVersion, (&v));
	snprintf(info->version, sizeof(info->version), "%d.%d", v / 1000, (v % 1000) / 10);
	CU_CALL(g, err, cuDeviceGetCount, (&n));
	if (n <= 0)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "no NVIDIA GPU: the driver sees none");
	info->ndevices = g->ndev = n < IX_GPU_MAX_DEVICES ? n : IX_GPU_MAX_DEVICES;
	info->caps = IX_GPU_CAP_IPC;
	for (int d = 0; d < g->ndev; d++) {
		CU_CALL(g, err, cuDeviceGet, (&g->dev[d], d));
		g->sms[d] = attr(g, d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
		g->dmabuf[d] = g->cu.cuMemGetHandleForAddressRange &&
			       attr(g, d, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
		info->caps |= g->dmabuf[d] ? IX_GPU_CAP_DMABUF : 0;
	}
	info->caps |= ix_gpu_be_peer_cap(g, g->ndev, cuda_can_access_peer);
	/* The kernels are optional: without them, CE copies still run. */
	if (load_kernels(g, 0, &kerr) == 0)
		info->caps |= IX_GPU_CAP_KERNEL;
	else
		snprintf(info->no_kernel, sizeof(info->no_kernel),
			 "the embedded PTX kernels did not load (%.180s): no SM copy, no pointer "
			 "chase",
			 kerr.msg);
	return 0;
}

/* The library stays mapped once cuInit has run: the driver's threads
 * outlive every context, and dlclose would unmap the code they run. */
static void cuda_close(struct ix_gpu *g)
{
	if (!g)
		return;
	cuda_free(g, &g->gate); /* nothing when never allocated */
	for (int d = 0; d < g->ndev; d++) {
		if (g->mod[d] && g->cu.cuCtxSetCurrent(g->ctx[d]) == CUDA_SUCCESS)
			g->cu.cuModuleUnload(g->mod[d]);
		if (g->ctx[d] && g->cu.cuCtxSetCurrent(NULL) == CUDA_SUCCESS)
			g->cu.cuDevicePrimaryCtxRelease_v2(g->dev[d]);
	}
	ix_gpu_be_unload(g->lib, g->inited);
	free(g);
}

static int cuda_open(struct ix_gpu **out, const char *lib, struct ix_gpu_backend_info *info,
		     struct ix_err *err)
{
	const char *name = lib ? lib : "libcuda.so.1";
	struct ix_gpu *g = calloc(1, sizeof(*g));
	CUresult r;

	*out = NULL;
	if (!g)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	g->page = ix_gpu_be_host_page();
	g->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!g->lib) { /* dlerror() is set after a failed dlopen */
		ix_fail(err, IX_EXIT_UNAVAILABLE,
			"%s not found: no NVIDIA driver on this machine (%s)", name, dlerror());
		goto fail;
	}
	ix_gpu_be_library(g->lib, name, info);
	if (resolve(g, name, err) < 0)
		goto fail;
	r = g->cu.cuInit(0);
	for (size_t i = 0; r && i < sizeof(init_errors) / sizeof(init_errors[0]); i++)
		if (init_errors[i].r == r) {
			ix_fail(err, IX_EXIT_UNAVAILABLE, "%s %s", name, init_errors[i].why);
			goto fail;
		}
	if (r != CUDA_SUCCESS) {
		cu_fail(g, r, "cuInit", err);
		goto fail;
	}
	g->inited = true;
	if (probe(g, info, err) < 0)
		goto fail;
	*out = g;
	return 0;
fail:
	cuda_close(g);
	return -1;
}

static int cuda_info(struct ix_gpu *g, int d, struct ix_gpu_info *out, struct ix_err *err)
{
	char bus[64] = "";
	size_t mem = 0;

	if (check_device(g, d, err) < 0)
		return -1;
	ix_gpu_be_info_init(out, d, g->sms[d]);
	CU_CALL(g, err, cuDeviceGetName, (out->name, sizeof(out->name), g->dev[d]));
	CU_CALL(g, err, cuDeviceTotalMem_v2, (&mem, g->dev[d]));
	out->mem_bytes = mem;
	/* sysfs' form, whatever the case or the domain's width the driver uses. */
	CU_CALL(g, err, cuDeviceGetPCIBusId, (bus, sizeof(bus), g->dev[d]));
	ix_gpu_be_bus_id(bus, out->pci_bus_id, sizeof(out->pci_bus_id));
	out->hbm_bps = ix_gpu_be_hbm_bps(attr(g, d, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
					 attr(g, d, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
	return 0;
}

static int cuda_set_peer(struct ix_gpu *g, int from, int to, bool on, struct ix_err *err)
{
	CUresult r;

	/* Both contexts must exist; from's is current for the call. */
	if (use_device(g, to, err) < 0 || use_device(g, from, err) < 0)
		return -1;
	if (from == to)
		return 0;
	r = on ? g->cu.cuCtxEnablePeerAccess(g->ctx[to], 0)
	       : g->cu.cuCtxDisablePeerAccess(g->ctx[to]);
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED &&
	    r != CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
		return cu_fail(g, r, on ? "cuCtxEnablePeerAccess" : "cuCtxDisablePeerAccess", err);
	g->peer.on[from][to] = on;
	return 0;
}

/* 0: the copy can be gated, 1: it cannot (the driver may carry it out on
 * this thread, which would then wait on a held stream), -1: error. */
static int check_copy(struct ix_gpu *g, const struct ix_gpu_copy *c, struct ix_err *err)
{
	if (ix_gpu_be_check_copy("CUDA", g->ndev, c, err) < 0)
		return -1;
	/* cuMemcpyPeerAsync names both contexts: retain them now. */
	if ((c->src->mem == IX_GPU_MEM_DEVICE && use_device(g, c->src->device, err) < 0) ||
	    (c->dst->mem == IX_GPU_MEM_DEVICE && use_device(g, c->dst->device, err) < 0))
		return -1;
	if (c->engine == IX_GPU_SM &&
	    (ix_gpu_be_kernel_reach(&g->peer, c->exec_device, c->src, "source", err) < 0 ||
	     ix_gpu_be_kernel_reach(&g->peer, c->exec_device, c->dst, "destination", err) < 0 ||
	     load_kernels(g, c->exec_device, err) < 0))
		return -1;
	return ix_gpu_be_ungated(&g->peer, c);
}

static int issue(struct ix_gpu *g, const struct ix_gpu_copy *c, CUstream q, struct ix_err *err)
{
	const struct ix_gpu_buf *src = c->src, *dst = c->dst;
	int x = c->exec_device;

	if (use_device(g, x, err) < 0)
		return -1;
	if (c->engine == IX_GPU_SM) {
		unsigned long long d = dst->dev, s = src->dev, n = c->bytes;
		void *params[] = { &d, &s, &n };
		size_t blocks = (c->bytes / 16 + COPY_THREADS) / COPY_THREADS;
		size_t most = g->sms[x] > 0 ? (size_t)g->sms[x] * 2 : 1;

		CU_CALL(g, err, cuLaunchKernel,
			(g->fn[x][K_COPY], (unsigned)(blocks < most ? blocks : most), 1, 1,
			 COPY_THREADS, 1, 1, 0, q, params, NULL));
		return 0;
	}
	if (ix_gpu_be_staged(&g->peer, c)) /* the driver stages it through the host */
		CU_CALL(g, err, cuMemcpyPeerAsync,
			(dst->dev, g->ctx[dst->device], src->dev, g->ctx[src->device], c->bytes,
			 q));
	else /* with unified addressing a pageable host pointer is an operand */
		CU_CALL(g, err, cuMemcpyAsync,
			(dst->mem == IX_GPU_MEM_PAGEABLE ? (uintptr_t)dst->host : dst->dev,
			 src->mem == IX_GPU_MEM_PAGEABLE ? (uintptr_t)src->host : src->dev,
			 c->bytes, q));
	return 0;
}

/* Streams and events on device's primary context (the batches', gpu.h's). */
static int cuda_stream_new(struct ix_gpu *g, int device, void **stream, struct ix_err *err)
{
	CUstream q = NULL;

	if (use_device(g, device, err) < 0)
		return -1;
	CU_CALL(g, err, cuStreamCreate, (&q, CU_STREAM_NON_BLOCKING));
	*stream = q;
	return 0;
}

static void cuda_stream_free(struct ix_gpu *g, int device, void *stream)
{
	if (stream && use_device(g, device, NULL) == 0)
		g->cu.cuStreamDestroy_v2(stream);
}

static int cuda_stream_done(struct ix_gpu *g, void *stream, struct ix_err *err)
{
	CUresult r = g->cu.cuStreamQuery(stream);

	if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY)
		return cu_fail(g, r, "cuStreamQuery", err);
	return r == CUDA_SUCCESS;
}

static int cuda_event_new(struct ix_gpu *g, int device, void **event, struct ix_err *err)
{
	CUevent e = NULL;

	if (use_device(g, device, err) < 0)
		return -1;
	CU_CALL(g, err, cuEventCreate, (&e, CU_EVENT_DEFAULT));
	*event = e;
	return 0;
}

static void cuda_event_free(struct ix_gpu *g, int device, void *event)
{
	if (event && use_device(g, device, NULL) == 0)
		g->cu.cuEventDestroy_v2(event);
}

static int cuda_event_record(struct ix_gpu *g, void *event, void *stream, struct ix_err *err)
{
	CU_CALL(g, err, cuEventRecord, (event, stream));
	return 0;
}

/* A batch's streams (on devices dev[i]), each with start and end events. */
struct batch {
	int n;
	volatile uint32_t *gate; /* NULL: not gated */
	int dev[IX_GPU_MAX_COPIES];
	void *q[IX_GPU_MAX_COPIES];     /* CUstream */
	void *ev[IX_GPU_MAX_COPIES][2]; /* CUevent */
};

static int stream_new(struct ix_gpu *g, struct batch *b, int x, struct ix_err *err)
{
	int i = b->n++; /* batch_end releases what was made */

	b->dev[i] = x;
	if (cuda_stream_new(g, x, &b->q[i], err) < 0 || cuda_event_new(g, x, &b->ev[i][0], err) < 0)
		return -1;
	return cuda_event_new(g, x, &b->ev[i][1], err);
}

/* Time from start to end, in ms, once end is reached (the driver times
 * only events that completed). */
static int cuda_event_ms(struct ix_gpu *g, void *start, void *end, float *ms, struct ix_err *err)
{
	*ms = 0;
	CU_CALL(g, err, cuEventSynchronize, (end));
	CU_CALL(g, err, cuEventElapsedTime_v2, (ms, start, end));
	return 0;
}

/* Open the gate (no stream may wait on it), then drain and destroy. */
static void batch_end(struct ix_gpu *g, struct batch *b)
{
	if (b->gate)
		__atomic_store_n(&b->gate[IX_GPU_GATE_RELEASE], 1u, __ATOMIC_SEQ_CST);
	for (int i = 0; i < b->n; i++) {
		if (b->q[i] && use_device(g, b->dev[i], NULL) == 0)
			g->cu.cuStreamSynchronize(b->q[i]);
		cuda_stream_free(g, b->dev[i], b->q[i]);
		cuda_event_free(g, b->dev[i], b->ev[i][0]);
		cuda_event_free(g, b->dev[i], b->ev[i][1]);
	}
}

/* Create, gate, queue (round robin: streams sharing a hardware queue then
 * interleave rather than run one after another), release, time. */
static int batch_run(struct ix_gpu *g, struct ix_gpu_copy *c, struct batch *b, int n, int reps,
		     int warmup, struct ix_err *err)
{
	unsigned long long flag = g->gate.dev, limit = GATE_LIMIT;
	void *params[] = { &flag, &limit };

	for (int i = 0; i < n; i++) {
		if (stream_new(g, b, c[i].exec_device, err) < 0)
			return -1;
		if (b->gate)
			CU_CALL(g, err, cuLaunchKernel,
				(g->fn[b->dev[i]][K_SPIN], 1, 1, 1, 1, 1, 1, 0, b->q[i], params,
				 NULL));
	}
	for (int r = 0; r < warmup + reps; r++) {
		for (int i = 0; i < n && r == warmup; i++)
			CU_CALL(g, err, cuEventRecord, (b->ev[i][0], b->q[i]));
		for (int i = 0; i < n; i++)
			if (issue(g, &c[i], b->q[i], err) < 0)
				return -1;
	}
	for (int i = 0; i < n; i++)
		CU_CALL(g, err, cuEventRecord, (b->ev[i][1], b->q[i]));
	if (b->gate)
		__atomic_store_n(&b->gate[IX_GPU_GATE_RELEASE], 1u, __ATOMIC_SEQ_CST);
	for (int i = 0; i < n; i++) {
		float ms = 0;

		if (cuda_event_ms(g, b->ev[i][0], b->ev[i][1], &ms, err) < 0)
			return -1;
		c[i].ns = (double)ms * 1e6;
	}
	if (b->gate && __atomic_load_n(&b->gate[IX_GPU_GATE_EXPIRED], __ATOMIC_SEQ_CST))
		return ix_fail(err, IX_EXIT_FAIL,
			       "the start gate expired before all copies queued");
	return 0;
}

/* A spin kernel first on every stream holds the copies until all are
 * queued (nvbandwidth's method), so that they start together; without the
 * kernels, or with a copy check_copy says cannot wait, there is no gate. */
static int cuda_copy_batch(struct ix_gpu *g, struct ix_gpu_copy *c, int n, int reps, int warmup,
			   struct ix_err *err)
{
	struct batch b = { .n = 0 };
	bool gate = true;
	int rc;

	if (ix_gpu_be_check_batch(n, reps, warmup, err) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		rc = check_copy(g, &c[i], err);
		if (rc < 0)
			return -1;
		if (rc > 0 || load_kernels(g, c[i].exec_device, NULL) < 0)
			gate = false;
	}
	b.gate = gate && ix_gpu_be_gate_fits(n, reps, warmup) ? gate_page(g, NULL) : NULL;
	rc = batch_run(g, c, &b, n, reps, warmup, err);
	batch_end(g, &b);
	return rc;
}

/* Upload (from src) or download (into dst); common.c copies host memory. */
static int transfer(struct ix_gpu *g, const struct ix_gpu_buf *b, size_t off, const void *src,
		    void *dst, size_t n, struct ix_err *err)
{
	int rc = ix_gpu_be_transfer_begin(b, off, src, dst, n, err);
	CUresult r;

	if (rc <= 0 || use_device(g, b->device, err) < 0)
		return rc <= 0 ? rc : -1;
	r = src ? g->cu.cuMemcpyHtoD_v2(b->dev + off, src, n)
		: g->cu.cuMemcpyDtoH_v2(dst, b->dev + off, n);
	return r == CUDA_SUCCESS ? 0 : cu_fail(g, r, src ? "cuMemcpyHtoD" : "cuMemcpyDtoH", err);
}

static int cuda_upload(struct ix_gpu *g, const struct ix_gpu_buf *b, size_t off, const void *src,
		       size_t n, struct ix_err *err)
{
	return transfer(g, b, off, src, NULL, n, err);
}

static int cuda_download(struct ix_gpu *g, void *dst, const struct ix_gpu_buf *b, size_t off,
			 size_t n, struct ix_err *err)
{
	return transfer(g, b, off, NULL, dst, n, err);
}

/* Write the chain (ptx.c lays it out) into a pinned or device buffer. */
static int chain_write(struct ix_gpu *g, const struct ix_gpu_buf *chain, size_t stride,
		       struct ix_err *err)
{
	uint8_t *img = chain->mem == IX_GPU_MEM_DEVICE ? calloc(1, chain->size) : chain->host;
	int rc = 0;

	if (!img || ix_gpu_ptx_chain(img, chain->size, stride, chain->dev) < 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory laying out the chain");
	else if (img != chain->host)
		rc = cuda_upload(g, chain, 0, img, chain->size, err);
	if (img != chain->host)
		free(img);
	return rc;
}

/* Launch the chase (hops) on stream 0 between its events (the second
 * launch records them again). */
static int chase_launch(struct ix_gpu *g, struct batch *b, CUdeviceptr start, uint64_t hops,
			struct ix_err *err)
{
	unsigned long long p = start, h = hops, out = g->gate.dev + GATE_OUT;
	void *params[] = { &p, &h, &out };

	CU_CALL(g, err, cuEventRecord, (b->ev[0][0], b->q[0]));
	CU_CALL(g, err, cuLaunchKernel,
		(g->fn[b->dev[0]][K_CHASE], 1, 1, 1, 1, 1, 1, 0, b->q[0], params, NULL));
	CU_CALL(g, err, cuEventRecord, (b->ev[0][1], b->q[0]));
	return 0;
}

/*
 * An untimed pass over part of the chain first (JIT, first touch), then
 * the timed one. The events also hold the launch (a few us), small next
 * to the hops gpu_bench asks for.
 */
static int cuda_chase(struct ix_gpu *g, int x, const struct ix_gpu_buf *chain, size_t stride,
		      uint64_t hops, double *ns_per_hop, struct ix_err *err)
{
	struct batch b = { .n = 0 };
	uint64_t warm = hops < 65536 ? hops : 65536; /* the ring wraps round */
	float ms = 0;
	int rc;

	*ns_per_hop = 0;
	if (stride < 8 || stride % 8 || chain->size < stride || !hops)
		return ix_fail(err, IX_EXIT_USAGE, "a pointer chase of %zu-byte hops, %zu bytes",
			       stride, chain->size);
	if (check_device(g, x, err) < 0 ||
	    ix_gpu_be_kernel_reach(&g->peer, x, chain, "the chain", err) < 0 ||
	    load_kernels(g, x, err) < 0 || !gate_page(g, err) ||
	    chain_write(g, chain, stride, err) < 0)
		return -1;
	rc = stream_new(g, &b, x, err);
	if (rc == 0 && chase_launch(g, &b, chain->dev, warm, err) == 0 &&
	    chase_launch(g, &b, chain->dev, hops, err) == 0)
		rc = cuda_event_ms(g, b.ev[0][0], b.ev[0][1], &ms, err);
	else
		rc = -1;
	batch_end(g, &b);
	*ns_per_hop = rc == 0 ? (double)ms * 1e6 / (double)hops : 0;
	return rc;
}

static int cuda_ipc_export(struct ix_gpu *g, const struct ix_gpu_buf *b,
			   uint8_t handle[IX_GPU_IPC_HANDLE], struct ix_err *err)
{
	CUipcMemHandle h;

	if (ix_gpu_be_check_export(b, err) < 0 || use_device(g, b->device, err) < 0)
		return -1;
	CU_CALL(g, err, cuIpcGetMemHandle, (&h, b->dev));
	memcpy(handle, &h, IX_GPU_IPC_HANDLE);
	return 0;
}

static int cuda_ipc_import(struct ix_gpu *g, int device, const uint8_t handle[IX_GPU_IPC_HANDLE],
			   size_t size, struct ix_gpu_buf *out, struct ix_err *err)
{
	CUipcMemHandle h;
	CUdeviceptr p = 0;

	memset(out, 0, sizeof(*out));
	if (use_device(g, device, err) < 0)
		return -1;
	memcpy(&h, handle, IX_GPU_IPC_HANDLE);
	CU_CALL(g, err, cuIpcOpenMemHandle_v2, (&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
	ix_gpu_be_imported(out, device, size, p);
	return 0;
}

static int cuda_dmabuf_fd(struct ix_gpu *g, const struct ix_gpu_buf *b, int *fd, struct ix_err *err)
{
	*fd = -1;
	if (!g->cu.cuMemGetHandleForAddressRange)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "no dmabuf export before CUDA 11.7");
	if (ix_gpu_be_check_dmabuf(b, g->page, err) < 0)
		return -1;
	if (!g->dmabuf[b->device])
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "device %d has no dmabuf support (open kernel module needed)",
			       b->device);
	if (use_device(g, b->device, err) < 0)
		return -1;
	/* The allocation covers the size rounded up to a page (cuda_alloc). */
	CU_CALL(g, err, cuMemGetHandleForAddressRange,
		(fd, b->dev, ix_gpu_be_round_up(b->size, g->page),
		 CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0));
	return 0;
}

const struct ix_gpu_backend ix_gpu_cuda = {
	.name = "cuda",
	.open = cuda_open,
	.close = cuda_close,
	.info = cuda_info,
	.can_access_peer = cuda_can_access_peer,
	.set_peer = cuda_set_peer,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.fill = cuda_fill,
	.copy_batch = cuda_copy_batch,
	.chase = cuda_chase,
	.ipc_export = cuda_ipc_export,
	.ipc_import = cuda_ipc_import,
	.ipc_close = cuda_ipc_close,
	.dmabuf_fd = cuda_dmabuf_fd,
	.use = use_device,
	.stream_new = cuda_stream_new,
	.stream_free = cuda_stream_free,
	.stream_done = cuda_stream_done,
	.event_new = cuda_event_new,
	.event_free = cuda_event_free,
	.event_record = cuda_event_record,
	.event_ms = cuda_event_ms,
	.upload = cuda_upload,
	.download = cuda_download,
};
