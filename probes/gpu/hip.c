#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probes/gpu/backend.h"
#include "probes/gpu/gpu.h"

/*
 * The ROCm backend: the HIP runtime (libamdhip64.so), opened with dlopen.
 * The few types and constants used are declared here with the values of
 * ROCm 5 and later's hip_runtime_api.h (the device attribute numbers were
 * different before 5.0, which is refused). hipGetDeviceProperties is not
 * used: its struct changes between versions.
 *
 * There is no AMD code object in the project, so no kernels: the SM copy
 * tests and the pointer-chase latency tests are skipped (no_kernel says
 * so), the copy-engine tests run through hipMemcpyAsync and
 * hipMemcpyPeerAsync, and copies are held back by an event gate rather
 * than a spin kernel.
 */
typedef int hipError_t;
typedef int hipDevice_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct {
	char reserved[IX_GPU_IPC_HANDLE];
} hipIpcMemHandle_t;
typedef void (*hipHostFn_t)(void *arg);

enum { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorInsufficientDriver = 35 };
enum { hipErrorNoDevice = 100, hipErrorInvalidDevice = 101, hipErrorNotReady = 600 };
enum { hipErrorPeerAccessAlreadyEnabled = 704, hipErrorPeerAccessNotEnabled = 705 };
enum { hipMemcpyDefault = 4, hipStreamNonBlocking = 0x1, hipIpcMemLazyEnablePeerAccess = 0x1 };
enum { hipHostMallocPortable = 0x1, hipHostMallocMapped = 0x2, hipMemRangeHandleTypeDmaBufFd = 1 };
/* hipDeviceAttribute_t since ROCm 5.0: bus width (bits), clock (kHz), CUs. */
enum { hipDeviceAttributeMemoryBusWidth = 59, hipDeviceAttributeMemoryClockRate = 60 };
enum { hipDeviceAttributeMultiprocessorCount = 63 };

/* The runtime functions used, by their exported names, and parameters. */
#define HIP_API(X)                                                                   \
	X(hipInit, (unsigned))                                                       \
	X(hipRuntimeGetVersion, (int *))                                             \
	X(hipGetDeviceCount, (int *))                                                \
	X(hipSetDevice, (int))                                                       \
	X(hipDeviceGet, (hipDevice_t *, int))                                        \
	X(hipDeviceGetName, (char *, int, hipDevice_t))                              \
	X(hipDeviceTotalMem, (size_t *, hipDevice_t))                                \
	X(hipDeviceGetPCIBusId, (char *, int, int))                                  \
	X(hipDeviceGetAttribute, (int *, int, int))                                  \
	X(hipDeviceCanAccessPeer, (int *, int, int))                                 \
	X(hipDeviceEnablePeerAccess, (int, unsigned))                                \
	X(hipDeviceDisablePeerAccess, (int))                                         \
	X(hipDeviceSynchronize, (void))                                              \
	X(hipMalloc, (void **, size_t))                                              \
	X(hipFree, (void *))                                                         \
	X(hipHostMalloc, (void **, size_t, unsigned))                                \
	X(hipHostFree, (void *))                                                     \
	X(hipHostGetDevicePointer, (void **, void *, unsigned))                      \
	X(hipMemset, (void *, int, size_t))                                          \
	X(hipMemcpy, (void *, const void *, size_t, int))                            \
	X(hipMemcpyAsync, (void *, const void *, size_t, int, hipStream_t))          \
	X(hipMemcpyPeerAsync, (void *, int, const void *, int, size_t, hipStream_t)) \
	X(hipStreamCreateWithFlags, (hipStream_t *, unsigned))                       \
	X(hipStreamDestroy, (hipStream_t))                                           \
	X(hipStreamSynchronize, (hipStream_t))                                       \
	X(hipStreamQuery, (hipStream_t))                                             \
	X(hipStreamWaitEvent, (hipStream_t, hipEvent_t, unsigned))                   \
	X(hipEventCreate, (hipEvent_t *))                                            \
	X(hipEventDestroy, (hipEvent_t))                                             \
	X(hipEventRecord, (hipEvent_t, hipStream_t))                                 \
	X(hipEventSynchronize, (hipEvent_t))                                         \
	X(hipEventElapsedTime, (float *, hipEvent_t, hipEvent_t))                    \
	X(hipIpcGetMemHandle, (hipIpcMemHandle_t *, void *))                         \
	X(hipIpcOpenMemHandle, (void **, hipIpcMemHandle_t, unsigned))               \
	X(hipIpcCloseMemHandle, (void *))                                            \
	X(hipLaunchHostFunc, (hipStream_t, hipHostFn_t, void *))                     \
	X(hipMemGetHandleForAddressRange, (void *, void *, size_t, int, unsigned long long))

#define HIP_MEMBER(name, params) hipError_t(*name) params;
struct hip_api {
	HIP_API(HIP_MEMBER)
	const char *(*hipGetErrorName)(hipError_t e);
};
#undef HIP_MEMBER

#define HIP_SYM(name, params) { #name, NULL, offsetof(struct hip_api, name) },
static const struct ix_gpu_be_sym hip_syms[] = { HIP_API(HIP_SYM) };
#undef HIP_SYM

/* Names the runtime goes by, newest first after the development link. */
static const char *const hip_libs[] = { "libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6",
					"libamdhip64.so.5" };

static const char *const no_kernel =
	"the ROCm backend runs the copy-engine (hipMemcpy) tests only: ixperf carries no AMD GPU "
	"code object, so no SM copy kernel and no pointer-chase latency";

#define GATE_WAIT_NS (10ll * 1000000000ll) /* the event gate opens by itself after this */

struct ix_gpu {
	void *lib;
	bool inited; /* hipInit succeeded: the library stays loaded (see close) */
	struct hip_api hip;
	int ndev;
	hipDevice_t dev[IX_GPU_MAX_DEVICES];
	int cus[IX_GPU_MAX_DEVICES];
	struct ix_gpu_be_peers peer; /* as set_peer left it */
	size_t page;                 /* the host's */
	int gate;                    /* the event gate's release word */
};

static int hip_fail(struct ix_gpu *g, hipError_t r, const char *call, struct ix_err *err)
{
	const char *name = g->hip.hipGetErrorName ? g->hip.hipGetErrorName(r) : NULL;

	return ix_gpu_be_call_fail(err, call, name, r);
}

/* HIP_CALL(g, err, hipX, (args)): call it, return its failure. */
#define HIP_CALL(g, err, fn, args)                            \
	do {                                                  \
		hipError_t r_ = (g)->hip.fn args;             \
		if (r_ != hipSuccess)                         \
			return hip_fail((g), r_, #fn, (err)); \
	} while (0)

/* Check device d and make it the calling thread's current one. */
static int use_device(struct ix_gpu *g, int d, struct ix_err *err)
{
	if (ix_gpu_be_check_device("ROCm", d, g->ndev, err) < 0)
		return -1;
	HIP_CALL(g, err, hipSetDevice, (d));
	return 0;
}

static int resolve(struct ix_gpu *g, const char *lib, struct ix_err *err)
{
	/* The gate and dmabuf export are optional; the rest is not. */
	static const size_t optional[] = { offsetof(struct hip_api, hipLaunchHostFunc),
					   offsetof(struct hip_api,
						    hipMemGetHandleForAddressRange) };
	void *name = dlsym(g->lib, "hipGetErrorName"); /* does not return a hipError_t */

	memcpy(&g->hip.hipGetErrorName, &name, sizeof(name));
	return ix_gpu_be_resolve(g->lib, hip_syms, sizeof(hip_syms) / sizeof(hip_syms[0]), optional,
				 sizeof(optional) / sizeof(optional[0]), &g->hip, lib,
				 "the HIP runtime", err);
}

static int hip_can_access_peer(struct ix_gpu *g, int from, int to, bool *yes, struct ix_err *err)
{
	int v = 1;

	*yes = false;
	if (from < 0 || from >= g->ndev || to < 0 || to >= g->ndev)
		return ix_fail(err, IX_EXIT_USAGE, "no ROCm device %d or %d (of %d)", from, to,
			       g->ndev);
	if (from != to)
		HIP_CALL(g, err, hipDeviceCanAccessPeer, (&v, from, to));
	*yes = v != 0;
	return 0;
}

static int probe(struct ix_gpu *g, struct ix_gpu_backend_info *info, struct ix_err *err)
{
	int n = 0, v = 0;
	hipError_t r;

	HIP_CALL(g, err, hipRuntimeGetVersion, (&v));
	/* HIP_VERSION: major * 10000000 + minor * 100000 + patch. */
	if (v < 50000000)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "ROCm %d.%d is older than 5.0",
			       v / 10000000, v / 100000 % 100);
	snprintf(info->version, sizeof(info->version), "%d.%d.%d", v / 10000000, v / 100000 % 100,
		 v % 100000);
	r = g->hip.hipGetDeviceCount(&n);
	if (r == hipErrorNoDevice || (r == hipSuccess && n <= 0))
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "no AMD GPU: the ROCm runtime sees none");
	if (r != hipSuccess)
		return hip_fail(g, r, "hipGetDeviceCount", err);
	info->ndevices = g->ndev = n < IX_GPU_MAX_DEVICES ? n : IX_GPU_MAX_DEVICES;
	info->caps =
		IX_GPU_CAP_IPC | (g->hip.hipMemGetHandleForAddressRange ? IX_GPU_CAP_DMABUF : 0);
	for (int d = 0; d < g->ndev; d++) {
		HIP_CALL(g, err, hipDeviceGet, (&g->dev[d], d));
		HIP_CALL(g, err, hipDeviceGetAttribute,
			 (&g->cus[d], hipDeviceAttributeMultiprocessorCount, d));
	}
	info->caps |= ix_gpu_be_peer_cap(g, g->ndev, hip_can_access_peer);
	snprintf(info->no_kernel, sizeof(info->no_kernel), "%s", no_kernel);
	return 0;
}

/* The library stays mapped once hipInit has run: the runtime's threads
 * outlive it, and dlclose would unmap the code they run. */
static void hip_close(struct ix_gpu *g)
{
	if (!g)
		return;
	ix_gpu_be_unload(g->lib, g->inited);
	free(g);
}

static int hip_open(struct ix_gpu **out, const char *lib, struct ix_gpu_backend_info *info,
		    struct ix_err *err)
{
	const char *name = lib ? lib : hip_libs[0];
	char first[200] = "";
	struct ix_gpu *g = calloc(1, sizeof(*g));
	hipError_t r;

	*out = NULL;
	if (!g)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	g->page = ix_gpu_be_host_page();
	for (size_t i = 0; !g->lib && i < (lib ? 1 : sizeof(hip_libs) / sizeof(hip_libs[0])); i++) {
		g->lib = dlopen(lib ? lib : hip_libs[i], RTLD_NOW | RTLD_LOCAL);
		if (!g->lib && !first[0]) /* the first name's reason is the telling one */
			snprintf(first, sizeof(first), "%s", dlerror());
	}
	if (!g->lib) {
		ix_fail(err, IX_EXIT_UNAVAILABLE,
			"%s not found: no ROCm runtime on this machine (%s)", name, first);
		goto fail;
	}
	ix_gpu_be_library(g->lib, name, info);
	if (resolve(g, name, err) < 0)
		goto fail;
	/* Without a GPU (or /dev/kfd), hipInit says "no device" or "invalid device". */
	r = g->hip.hipInit(0);
	if (r == hipErrorNoDevice || r == hipErrorInvalidDevice)
		ix_fail(err, IX_EXIT_UNAVAILABLE, "no AMD GPU: %s finds none (hipInit: %s)", name,
			g->hip.hipGetErrorName ? g->hip.hipGetErrorName(r) : "no device");
	else if (r == hipErrorInsufficientDriver)
		ix_fail(err, IX_EXIT_UNAVAILABLE,
			"%s: the amdgpu kernel driver is missing or too old (hipInit)", name);
	else if (r != hipSuccess)
		hip_fail(g, r, "hipInit", err);
	if (r != hipSuccess)
		goto fail;
	g->inited = true;
	if (probe(g, info, err) < 0)
		goto fail;
	*out = g;
	return 0;
fail:
	hip_close(g);
	return -1;
}

static int hip_info(struct ix_gpu *g, int d, struct ix_gpu_info *out, struct ix_err *err)
{
	char bus[64] = "";
	size_t mem = 0;
	int clock = 0, width = 0;

	if (ix_gpu_be_check_device("ROCm", d, g->ndev, err) < 0)
		return -1;
	ix_gpu_be_info_init(out, d, g->cus[d]);
	HIP_CALL(g, err, hipDeviceGetName, (out->name, sizeof(out->name), g->dev[d]));
	HIP_CALL(g, err, hipDeviceTotalMem, (&mem, g->dev[d]));
	out->mem_bytes = mem;
	/* sysfs' form, whatever the case or the domain's width the runtime uses. */
	HIP_CALL(g, err, hipDeviceGetPCIBusId, (bus, sizeof(bus), d));
	ix_gpu_be_bus_id(bus, out->pci_bus_id, sizeof(out->pci_bus_id));
	if (g->hip.hipDeviceGetAttribute(&clock, hipDeviceAttributeMemoryClockRate, d) ==
		    hipSuccess &&
	    g->hip.hipDeviceGetAttribute(&width, hipDeviceAttributeMemoryBusWidth, d) == hipSuccess)
		out->hbm_bps = ix_gpu_be_hbm_bps(clock, width);
	return 0;
}

static int hip_set_peer(struct ix_gpu *g, int from, int to, bool on, struct ix_err *err)
{
	hipError_t r;

	if (use_device(g, to, err) < 0 || use_device(g, from, err) < 0)
		return -1;
	if (from == to)
		return 0;
	r = on ? g->hip.hipDeviceEnablePeerAccess(to, 0) : g->hip.hipDeviceDisablePeerAccess(to);
	if (r != hipSuccess && r != hipErrorPeerAccessAlreadyEnabled &&
	    r != hipErrorPeerAccessNotEnabled)
		return hip_fail(
			g, r, on ? "hipDeviceEnablePeerAccess" : "hipDeviceDisablePeerAccess", err);
	g->peer.on[from][to] = on;
	return 0;
}

static void hip_ipc_close(struct ix_gpu *g, struct ix_gpu_buf *b)
{
	if (b->imported && b->dev && use_device(g, b->device, NULL) == 0)
		g->hip.hipIpcCloseMemHandle((void *)(uintptr_t)b->dev);
	memset(b, 0, sizeof(*b));
}

static void hip_free(struct ix_gpu *g, struct ix_gpu_buf *b)
{
	if (b->imported)
		hip_ipc_close(g, b);
	else if (b->mem == IX_GPU_MEM_DEVICE && b->dev && use_device(g, b->device, NULL) == 0)
		g->hip.hipFree((void *)(uintptr_t)b->dev);
	else if (b->mem == IX_GPU_MEM_PINNED && b->host)
		g->hip.hipHostFree(b->host);
	ix_gpu_be_free_end(b);
}

/* Device buffers are whole 2 MiB pages, each an allocation of its own on
 * a page boundary (dmabuf export needs one; an IPC handle names a whole
 * allocation). Pinned buffers are portable and mapped for every device. */
static int hip_alloc(struct ix_gpu *g, enum ix_gpu_mem mem, int device, size_t size,
		     struct ix_gpu_buf *out, struct ix_err *err)
{
	void *p = NULL;
	hipError_t r;
	int use, rc = ix_gpu_be_alloc_begin(mem, device, size, g->page, out, &use, err);

	if (rc <= 0) /* pageable memory, or an error */
		return rc;
	if (use_device(g, use, err) < 0)
		return -1;
	if (mem == IX_GPU_MEM_DEVICE) {
		HIP_CALL(g, err, hipMalloc, (&p, ix_gpu_be_round_up(size, IX_GPU_BE_DEVICE_PAGE)));
		out->dev = (uintptr_t)p;
		return 0;
	}
	HIP_CALL(g, err, hipHostMalloc,
		 (&out->host, size, hipHostMallocPortable | hipHostMallocMapped));
	r = g->hip.hipHostGetDevicePointer(&p, out->host, 0);
	out->dev = (uintptr_t)p;
	if (r != hipSuccess)
		hip_free(g, out);
	return r == hipSuccess ? 0 : hip_fail(g, r, "hipHostGetDevicePointer", err);
}

static int hip_fill(struct ix_gpu *g, const struct ix_gpu_buf *b, uint8_t v, struct ix_err *err)
{
	if (ix_gpu_be_fill_host(b, v))
		return 0;
	if (use_device(g, b->device, err) < 0)
		return -1;
	HIP_CALL(g, err, hipMemset, ((void *)(uintptr_t)b->dev, v, b->size));
	HIP_CALL(g, err, hipDeviceSynchronize, ());
	return 0;
}

/* 0: the copy can wait on the gate, 1: it cannot (the runtime may carry it
 * out on this thread, which would then wait on a held stream), -1: error. */
static int check_copy(struct ix_gpu *g, const struct ix_gpu_copy *c, struct ix_err *err)
{
	if (c->engine == IX_GPU_SM)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s", no_kernel);
	if (ix_gpu_be_check_copy("ROCm", g->ndev, c, err) < 0)
		return -1;
	return ix_gpu_be_ungated(&g->peer, c);
}

static void *ptr(const struct ix_gpu_buf *b)
{
	return b->mem == IX_GPU_MEM_PAGEABLE ? b->host : (void *)(uintptr_t)b->dev;
}

static int issue(struct ix_gpu *g, const struct ix_gpu_copy *c, hipStream_t q, struct ix_err *err)
{
	if (use_device(g, c->exec_device, err) < 0)
		return -1;
	if (ix_gpu_be_staged(&g->peer, c)) /* the runtime stages it through the host */
		HIP_CALL(g, err, hipMemcpyPeerAsync,
			 (ptr(c->dst), c->dst->device, ptr(c->src), c->src->device, c->bytes, q));
	else
		HIP_CALL(g, err, hipMemcpyAsync,
			 (ptr(c->dst), ptr(c->src), c->bytes, hipMemcpyDefault, q));
	return 0;
}

/*
 * The event gate: a host function on one stream per device blocks (on the
 * runtime's callback thread) until the release word is set, or for
 * GATE_WAIT_NS at most; the copy streams wait on the event recorded after
 * it. The time a copy is held is outside its events.
 */
static void gate_wait(void *arg)
{
	const int *release = arg;
	struct timespec t0, t, nap = { 0, 20000 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (__atomic_load_n(release, __ATOMIC_ACQUIRE))
			return;
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000ll + (t.tv_nsec - t0.tv_nsec) < GATE_WAIT_NS);
}

/* Streams and events of device (the batches', gpu.h's). */
static int hip_stream_new(struct ix_gpu *g, int device, void **stream, struct ix_err *err)
{
	hipStream_t q = NULL;

	if (use_device(g, device, err) < 0)
		return -1;
	HIP_CALL(g, err, hipStreamCreateWithFlags, (&q, hipStreamNonBlocking));
	*stream = q;
	return 0;
}

static void hip_stream_free(struct ix_gpu *g, int device, void *stream)
{
	if (stream && use_device(g, device, NULL) == 0)
		g->hip.hipStreamDestroy(stream);
}

static int hip_stream_done(struct ix_gpu *g, void *stream, struct ix_err *err)
{
	hipError_t r = g->hip.hipStreamQuery(stream);

	if (r == hipErrorNotReady)
		return 0;
	return r == hipSuccess ? 1 : hip_fail(g, r, "hipStreamQuery", err);
}

static int hip_event_new(struct ix_gpu *g, int device, void **event, struct ix_err *err)
{
	hipEvent_t e = NULL;

	if (use_device(g, device, err) < 0)
		return -1;
	HIP_CALL(g, err, hipEventCreate, (&e));
	*event = e;
	return 0;
}

static void hip_event_free(struct ix_gpu *g, int device, void *event)
{
	if (event && use_device(g, device, NULL) == 0)
		g->hip.hipEventDestroy(event);
}

static int hip_event_record(struct ix_gpu *g, void *event, void *stream, struct ix_err *err)
{
	HIP_CALL(g, err, hipEventRecord, (event, stream));
	return 0;
}

/* Time from start to end, in ms, once end is reached. */
static int hip_event_ms(struct ix_gpu *g, void *start, void *end, float *ms, struct ix_err *err)
{
	*ms = 0;
	HIP_CALL(g, err, hipEventSynchronize, (end));
	HIP_CALL(g, err, hipEventElapsedTime, (ms, start, end));
	return 0;
}

/* A batch's streams: copy streams first, then the gate's (one a device). */
struct batch {
	int n;
	bool gated;
	int dev[2 * IX_GPU_MAX_COPIES];
	void *q[2 * IX_GPU_MAX_COPIES];     /* hipStream_t */
	void *ev[2 * IX_GPU_MAX_COPIES][2]; /* hipEvent_t */
};

static int stream_new(struct ix_gpu *g, struct batch *b, int x, struct ix_err *err)
{
	int i = b->n++; /* batch_end releases what was made */

	b->dev[i] = x;
	if (hip_stream_new(g, x, &b->q[i], err) < 0 || hip_event_new(g, x, &b->ev[i][0], err) < 0)
		return -1;
	return hip_event_new(g, x, &b->ev[i][1], err);
}

/* Hold copy stream i on its device's gate stream, made on first use. */
static int gate_hold(struct ix_gpu *g, struct batch *b, int n, int i, struct ix_err *err)
{
	int k = n;

	while (k < b->n && b->dev[k] != b->dev[i])
		k++;
	if (k == b->n) {
		if (stream_new(g, b, b->dev[i], err) < 0)
			return -1;
		HIP_CALL(g, err, hipLaunchHostFunc, (b->q[k], gate_wait, &g->gate));
		HIP_CALL(g, err, hipEventRecord, (b->ev[k][0], b->q[k]));
	}
	HIP_CALL(g, err, hipSetDevice, (b->dev[i]));
	HIP_CALL(g, err, hipStreamWaitEvent, (b->q[i], b->ev[k][0], 0));
	return 0;
}

static void batch_end(struct ix_gpu *g, struct batch *b)
{
	__atomic_store_n(&g->gate, 1, __ATOMIC_RELEASE); /* no stream may wait on it */
	for (int i = 0; i < b->n; i++) {
		if (b->q[i] && use_device(g, b->dev[i], NULL) == 0)
			g->hip.hipStreamSynchronize(b->q[i]);
		hip_stream_free(g, b->dev[i], b->q[i]);
		hip_event_free(g, b->dev[i], b->ev[i][0]);
		hip_event_free(g, b->dev[i], b->ev[i][1]);
	}
}

/* Create, gate, queue (round robin: streams sharing a hardware queue then
 * interleave rather than run one after another), release, time. */
static int batch_run(struct ix_gpu *g, struct ix_gpu_copy *c, struct batch *b, int n, int reps,
		     int warmup, struct ix_err *err)
{
	for (int i = 0; i < n; i++)
		if (stream_new(g, b, c[i].exec_device, err) < 0)
			return -1;
	for (int i = 0; i < n && b->gated; i++)
		if (gate_hold(g, b, n, i, err) < 0)
			return -1;
	for (int r = 0; r < warmup + reps; r++) {
		for (int i = 0; i < n && r == warmup; i++)
			HIP_CALL(g, err, hipEventRecord, (b->ev[i][0], b->q[i]));
		for (int i = 0; i < n; i++)
			if (issue(g, &c[i], b->q[i], err) < 0)
				return -1;
	}
	for (int i = 0; i < n; i++)
		HIP_CALL(g, err, hipEventRecord, (b->ev[i][1], b->q[i]));
	__atomic_store_n(&g->gate, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++) {
		float ms = 0;

		if (hip_event_ms(g, b->ev[i][0], b->ev[i][1], &ms, err) < 0)
			return -1;
		c[i].ns = (double)ms * 1e6;
	}
	return 0;
}

/* Without hipLaunchHostFunc, or with a copy check_copy says cannot wait,
 * there is no gate: the copies start as they are queued. */
static int hip_copy_batch(struct ix_gpu *g, struct ix_gpu_copy *c, int n, int reps, int warmup,
			  struct ix_err *err)
{
	struct batch *b;
	int rc;

	if (ix_gpu_be_check_batch(n, reps, warmup, err) < 0)
		return -1;
	b = calloc(1, sizeof(*b));
	if (!b)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	b->gated = g->hip.hipLaunchHostFunc != NULL;
	for (int i = 0; i < n; i++) {
		rc = check_copy(g, &c[i], err);
		if (rc < 0) {
			free(b);
			return -1;
		}
		b->gated = b->gated && rc == 0;
	}
	b->gated = b->gated && ix_gpu_be_gate_fits(n, reps, warmup);
	__atomic_store_n(&g->gate, 0, __ATOMIC_RELEASE);
	rc = batch_run(g, c, b, n, reps, warmup, err);
	batch_end(g, b);
	free(b);
	return rc;
}

static int hip_chase(struct ix_gpu *g, int exec_device, const struct ix_gpu_buf *chain,
		     size_t stride, uint64_t hops, double *ns_per_hop, struct ix_err *err)
{
	*ns_per_hop = 0;
	return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s", no_kernel);
}

static int hip_ipc_export(struct ix_gpu *g, const struct ix_gpu_buf *b,
			  uint8_t handle[IX_GPU_IPC_HANDLE], struct ix_err *err)
{
	hipIpcMemHandle_t h;

	if (ix_gpu_be_check_export(b, err) < 0 || use_device(g, b->device, err) < 0)
		return -1;
	HIP_CALL(g, err, hipIpcGetMemHandle, (&h, (void *)(uintptr_t)b->dev));
	memcpy(handle, &h, IX_GPU_IPC_HANDLE);
	return 0;
}

static int hip_ipc_import(struct ix_gpu *g, int device, const uint8_t handle[IX_GPU_IPC_HANDLE],
			  size_t size, struct ix_gpu_buf *out, struct ix_err *err)
{
	hipIpcMemHandle_t h;
	void *p = NULL;
	hipError_t r;

	memset(out, 0, sizeof(*out));
	if (use_device(g, device, err) < 0)
		return -1;
	memcpy(&h, handle, IX_GPU_IPC_HANDLE);
	/* The flag every version requires is 1 since ROCm 6, 0 before. */
	r = g->hip.hipIpcOpenMemHandle(&p, h, hipIpcMemLazyEnablePeerAccess);
	if (r == hipErrorInvalidValue)
		r = g->hip.hipIpcOpenMemHandle(&p, h, 0);
	if (r != hipSuccess)
		return hip_fail(g, r, "hipIpcOpenMemHandle", err);
	ix_gpu_be_imported(out, device, size, (uintptr_t)p);
	return 0;
}

static int hip_dmabuf_fd(struct ix_gpu *g, const struct ix_gpu_buf *b, int *fd, struct ix_err *err)
{
	*fd = -1;
	if (!g->hip.hipMemGetHandleForAddressRange)
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "this ROCm has no dmabuf export (hipMemGetHandleForAddressRange)");
	if (ix_gpu_be_check_dmabuf(b, g->page, err) < 0 || use_device(g, b->device, err) < 0)
		return -1;
	/* The allocation covers the size rounded up to a page (hip_alloc). */
	HIP_CALL(g, err, hipMemGetHandleForAddressRange,
		 (fd, (void *)(uintptr_t)b->dev, ix_gpu_be_round_up(b->size, g->page),
		  hipMemRangeHandleTypeDmaBufFd, 0));
	return 0;
}

/* Upload (from src) or download (into dst); common.c copies host memory. */
static int transfer(struct ix_gpu *g, const struct ix_gpu_buf *b, size_t off, const void *src,
		    void *dst, size_t n, struct ix_err *err)
{
	void *p = (void *)(uintptr_t)(b->dev + off);
	int rc = ix_gpu_be_transfer_begin(b, off, src, dst, n, err);

	if (rc <= 0 || use_device(g, b->device, err) < 0)
		return rc <= 0 ? rc : -1;
	HIP_CALL(g, err, hipMemcpy, (src ? p : dst, src ? src : p, n, hipMemcpyDefault));
	return 0;
}

static int hip_upload(struct ix_gpu *g, const struct ix_gpu_buf *b, size_t off, const void *src,
		      size_t n, struct ix_err *err)
{
	return transfer(g, b, off, src, NULL, n, err);
}

static int hip_download(struct ix_gpu *g, void *dst, const struct ix_gpu_buf *b, size_t off,
			size_t n, struct ix_err *err)
{
	return transfer(g, b, off, NULL, dst, n, err);
}

const struct ix_gpu_backend ix_gpu_hip = {
	.name = "rocm",
	.open = hip_open,
	.close = hip_close,
	.info = hip_info,
	.can_access_peer = hip_can_access_peer,
	.set_peer = hip_set_peer,
	.alloc = hip_alloc,
	.free = hip_free,
	.fill = hip_fill,
	.copy_batch = hip_copy_batch,
	.chase = hip_chase,
	.ipc_export = hip_ipc_export,
	.ipc_import = hip_ipc_import,
	.ipc_close = hip_ipc_close,
	.dmabuf_fd = hip_dmabuf_fd,
	.use = use_device,
	.stream_new = hip_stream_new,
	.stream_free = hip_stream_free,
	.stream_done = hip_stream_done,
	.event_new = hip_event_new,
	.event_free = hip_event_free,
	.event_record = hip_event_record,
	.event_ms = hip_event_ms,
	.upload = hip_upload,
	.download = hip_download,
};
