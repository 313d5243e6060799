/*
 * A SIMULATED libcuda.so.1, for tests only: it checks how probes/gpu/cuda.c
 * calls the CUDA driver API. There is no GPU behind it, and no time it
 * reports means anything.
 *
 * Two devices, "Fake GPU 0" and "Fake GPU 1". Device memory is host memory
 * (fake.h); every copy and kernel runs on the calling thread as it is
 * queued, so streams are always idle; the three kernels of probes/gpu/ptx.h
 * are emulated by name (the spin kernel checks that its gate is closed and
 * returns at once); events read the host's clock.
 *
 * What the driver would refuse, or a GPU would fault on, is misuse (fake.h):
 * a call before cuInit or with no current context, a device ordinal where
 * a CUdevice is due (the two differ here), a stream, event or function of
 * another context, a stream already destroyed, a copy outside its
 * allocation, a kernel reaching memory that is not mapped for its device
 * (pageable host memory, another device's memory without peer access), an
 * unbalanced context release.
 *
 * FAKECUDA_FAIL=NAME[=CODE][:TIMES] makes a call fail (fake.h). make check
 * builds it as tests/gpu/libfakecuda.so; it is never installed.
 */
#include "config.h"

#include <fcntl.h>

#define FAKE_FAIL_ENV  "FAKECUDA_FAIL"
#define FAKE_FAIL_CODE 999 /* CUDA_ERROR_UNKNOWN */
#include "fake.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, INVALID_PTX = 218, INVALID_HANDLE = 400 };
enum { NOT_FOUND = 500, NOT_READY = 600, ALREADY_ENABLED = 704, NOT_ENABLED = 705 };
enum { NOT_SUPPORTED = 801, MAX_STREAMS = 512 };
enum { DEV0 = 10 }; /* the CUdevice of ordinal 0 */
enum { HOST_PORTABLE = 1, HOST_DEVICEMAP = 2, LOG_BUFFER = 5, LOG_BUFFER_SIZE = 6 };
enum { ATTR_SMS = 16, ATTR_MEMORY_CLOCK = 36, ATTR_BUS_WIDTH = 37, ATTR_DMABUF = 124 };
enum { K_COPY, K_CHASE, K_SPIN, K_COUNT };

static const char *const kernel_names[K_COUNT] = { "ix_gpu_copy", "ix_gpu_chase", "ix_gpu_spin" };

long fake_contexts;          /* primary context retains outstanding */
long fake_modules;           /* modules loaded */
long fake_launches[K_COUNT]; /* kernel launches, by kernel */
long fake_hops;              /* pointers the chase kernel followed */

struct ctx {
	int dev, refs;
};
struct stream {
	bool live;
	int dev;
};
struct event {
	int dev;
	bool recorded;
	long long ns;
};
struct module;
struct func {
	struct module *mod;
	int kernel;
	bool present;
};
struct module {
	int dev;
	struct func fn[K_COUNT];
};

static bool inited;
static struct ctx ctxs[FAKE_NDEV];
/* Streams, live from cuStreamCreate to cuStreamDestroy. */
static struct stream streams[MAX_STREAMS];
static bool peer[FAKE_NDEV][FAKE_NDEV]; /* [from][to] */
static __thread int cur = -1;           /* the device of the current context */

/* Each entry point starts with ENTER: the failure injection. */
#define ENTER()                                    \
	do {                                       \
		int code_;                         \
		if (fake_inject(__func__, &code_)) \
			return code_;              \
	} while (0)
/* return MISUSE(...): report, and fail the call. */
#define MISUSE(...) (fake_misuse(__func__, __VA_ARGS__), INVALID_VALUE)

/* The ordinal of CUdevice d, or -1. */
static int ordinal(CUdevice d)
{
	return d >= DEV0 && d < DEV0 + FAKE_NDEV ? d - DEV0 : -1;
}

static bool retained(const struct ctx *c)
{
	return c >= ctxs && c < ctxs + FAKE_NDEV && c->refs > 0;
}

/* Whether a kernel on the current device may touch [p, p + n). */
static bool reach(uintptr_t p, size_t n)
{
	const struct fake_buf *b = fake_find(p, n);

	return b && (b->kind == FAKE_PINNED || b->dev == cur || peer[cur][b->dev]);
}

/* A copy's operand: inside one allocation, or outside all (host memory). */
static bool operand(uintptr_t p, size_t n)
{
	return fake_find(p, n) || !fake_find(p, 0);
}

CUresult cuGetErrorName(CUresult r, const char **s)
{
	static const struct {
		CUresult r;
		const char *name;
	} names[] = { { OK, "CUDA_SUCCESS" },
		      { INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE" },
		      { OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY" },
		      { 34, "CUDA_ERROR_STUB_LIBRARY" },
		      { 100, "CUDA_ERROR_NO_DEVICE" },
		      { INVALID_PTX, "CUDA_ERROR_INVALID_PTX" },
		      { INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE" },
		      { NOT_FOUND, "CUDA_ERROR_NOT_FOUND" },
		      { NOT_READY, "CUDA_ERROR_NOT_READY" },
		      { ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED" },
		      { NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED" },
		      { NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED" },
		      { 999, "CUDA_ERROR_UNKNOWN" } };

	*s = NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].r == r)
			*s = names[i].name;
	return *s ? OK : INVALID_VALUE;
}

CUresult cuInit(unsigned flags)
{
	ENTER();
	if (flags)
		return MISUSE("flags %#x (must be 0)", flags);
	inited = true;
	return OK;
}

CUresult cuDriverGetVersion(int *v)
{
	ENTER();
	*v = 12040;
	return OK;
}

CUresult cuDeviceGetCount(int *n)
{
	ENTER();
	if (!inited)
		return MISUSE("before cuInit");
	*n = FAKE_NDEV;
	return OK;
}

CUresult cuDeviceGet(CUdevice *d, int i)
{
	ENTER();
	if (!inited || i < 0 || i >= FAKE_NDEV)
		return MISUSE("ordinal %d (before cuInit, or out of range)", i);
	*d = DEV0 + i;
	return OK;
}

CUresult cuDeviceGetName(char *s, int len, CUdevice d)
{
	ENTER();
	if (ordinal(d) < 0)
		return MISUSE("%d is not a CUdevice", d);
	snprintf(s, (size_t)len, "Fake GPU %d", ordinal(d));
	return OK;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
	ENTER();
	if (ordinal(d) < 0)
		return MISUSE("%d is not a CUdevice", d);
	*bytes = (size_t)80 << 30;
	return OK;
}

/* Upper case, and the 8-digit domain some drivers use for device 1. */
CUresult cuDeviceGetPCIBusId(char *s, int len, CUdevice d)
{
	ENTER();
	if (ordinal(d) < 0)
		return MISUSE("%d is not a CUdevice", d);
	snprintf(s, (size_t)len, "%s", ordinal(d) == 0 ? "0000:1A:00.0" : "00000000:3B:00.0");
	return OK;
}

/* 132 SMs, 2619 MHz memory clock, 5120-bit bus; dmabuf on device 0 only. */
CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	ENTER();
	if (ordinal(d) < 0)
		return MISUSE("%d is not a CUdevice", d);
	switch (attr) {
	case ATTR_SMS:
		*v = 132;
		return OK;
	case ATTR_MEMORY_CLOCK: /* kHz */
		*v = 2619000;
		return OK;
	case ATTR_BUS_WIDTH: /* bits */
		*v = 5120;
		return OK;
	case ATTR_DMABUF:
		*v = ordinal(d) == 0;
		return OK;
	}
	return INVALID_VALUE;
}

CUresult cuDeviceCanAccessPeer(int *yes, CUdevice a, CUdevice b)
{
	ENTER();
	if (ordinal(a) < 0 || ordinal(b) < 0)
		return MISUSE("%d or %d is not a CUdevice", a, b);
	*yes = a != b;
	return OK;
}

CUresult cuDevicePrimaryCtxRetain(struct ctx **c, CUdevice d)
{
	ENTER();
	if (ordinal(d) < 0)
		return MISUSE("%d is not a CUdevice", d);
	*c = &ctxs[ordinal(d)];
	(*c)->dev = ordinal(d);
	(*c)->refs++;
	fake_contexts++;
	return OK;
}

/* The last release destroys the context, and its peer mappings. */
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	int i = ordinal(d);

	ENTER();
	if (i < 0 || ctxs[i].refs == 0)
		return MISUSE("device %d: released more often than retained", d);
	if (--ctxs[i].refs == 0)
		for (int j = 0; j < FAKE_NDEV; j++)
			peer[i][j] = peer[j][i] = false;
	fake_contexts--;
	return OK;
}

CUresult cuCtxSetCurrent(struct ctx *c)
{
	ENTER();
	if (c && !retained(c))
		return MISUSE("not a retained context");
	cur = c ? c->dev : -1;
	return OK;
}

CUresult cuCtxSynchronize(void)
{
	ENTER();
	return cur < 0 ? MISUSE("no current context") : OK;
}

CUresult cuCtxEnablePeerAccess(struct ctx *to, unsigned flags)
{
	ENTER();
	if (cur < 0 || flags || !retained(to) || to->dev == cur)
		return MISUSE("no current context, flags %#x, or not another retained context",
			      flags);
	if (peer[cur][to->dev])
		return ALREADY_ENABLED;
	peer[cur][to->dev] = true;
	return OK;
}

CUresult cuCtxDisablePeerAccess(struct ctx *to)
{
	ENTER();
	if (cur < 0 || !retained(to))
		return MISUSE("no current context, or not a retained context");
	if (!peer[cur][to->dev])
		return NOT_ENABLED;
	peer[cur][to->dev] = false;
	return OK;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	struct fake_buf *b;

	ENTER();
	if (cur < 0 || !n)
		return MISUSE("no current context, or 0 bytes");
	if (!(b = fake_alloc(FAKE_DEVICE, cur, n)))
		return OUT_OF_MEMORY;
	*p = (uintptr_t)b->base;
	fake_device_allocs++;
	return OK;
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
	struct fake_buf *b = fake_at(p, FAKE_DEVICE);

	ENTER();
	if (cur < 0 || !b)
		return MISUSE("no current context, or %#llx is no allocation", p);
	fake_release(b);
	fake_device_allocs--;
	return OK;
}

CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
	struct fake_buf *b;

	ENTER();
	if (cur < 0 || !n)
		return MISUSE("no current context, or 0 bytes");
	if (!(b = fake_alloc(FAKE_PINNED, -1, n)))
		return OUT_OF_MEMORY;
	b->flags = flags;
	*p = b->base;
	fake_host_allocs++;
	return OK;
}

CUresult cuMemFreeHost(void *p)
{
	struct fake_buf *b = fake_at((uintptr_t)p, FAKE_PINNED);

	ENTER();
	if (!b)
		return MISUSE("%p is no pinned allocation", p);
	fake_release(b);
	fake_host_allocs--;
	return OK;
}

/* With unified addressing, the device sees pinned memory at its host address. */
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned flags)
{
	struct fake_buf *b = fake_find((uintptr_t)p, 0);

	ENTER();
	if (flags || !b || b->kind != FAKE_PINNED || b->flags != (HOST_PORTABLE | HOST_DEVICEMAP))
		return MISUSE("flags %#x, or %p not pinned portable and mapped", flags, p);
	*d = (uintptr_t)p;
	return OK;
}

CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n)
{
	ENTER();
	if (cur < 0 || !fake_find(p, n))
		return MISUSE("no current context, or %zu bytes at %#llx outside memory", n, p);
	memset((void *)(uintptr_t)p, v, n);
	return OK;
}

/* A synchronous copy (call) of n bytes from s to d, p the device side. */
static CUresult sync_copy(const char *call, CUdeviceptr p, void *d, const void *s, size_t n)
{
	if (cur < 0 || !fake_find(p, n)) {
		fake_misuse(call, "no current context, or %zu bytes at %#llx outside memory", n, p);
		return INVALID_VALUE;
	}
	memcpy(d, s, n);
	return OK;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n)
{
	ENTER();
	return sync_copy(__func__, d, (void *)(uintptr_t)d, s, n);
}

CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
	ENTER();
	return sync_copy(__func__, s, d, (const void *)(uintptr_t)s, n);
}

static bool live(const struct stream *q)
{
	return q >= streams && q < streams + MAX_STREAMS && q->live;
}

/* The work a stream takes is the current context's. */
static bool stream_ok(const struct stream *q)
{
	return cur >= 0 && live(q) && q->dev == cur;
}

CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, struct stream *q)
{
	ENTER();
	if (!stream_ok(q) || !operand(d, n) || !operand(s, n))
		return MISUSE("a stream of another context, or a copy overrunning memory");
	fake_count(d, s, n);
	memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
	fake_copies++;
	return OK;
}

static bool on_device(uintptr_t p, size_t n, const struct ctx *c)
{
	const struct fake_buf *b = fake_find(p, n);

	return retained(c) && b && b->kind != FAKE_PINNED && b->dev == c->dev;
}

CUresult cuMemcpyPeerAsync(CUdeviceptr d, struct ctx *dc, CUdeviceptr s, struct ctx *sc, size_t n,
			   struct stream *q)
{
	ENTER();
	if (!stream_ok(q) || !on_device(d, n, dc) || !on_device(s, n, sc))
		return MISUSE("a stream of another context, or memory not of the contexts named");
	memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
	fake_peer_copies++;
	return OK;
}

CUresult cuStreamCreate(struct stream **q, unsigned flags)
{
	struct stream *s = streams;

	ENTER();
	if (cur < 0 || flags > 1)
		return MISUSE("no current context, or flags %#x", flags);
	while (s < streams + MAX_STREAMS && s->live)
		s++;
	if (s == streams + MAX_STREAMS)
		return OUT_OF_MEMORY;
	*s = (struct stream){ true, cur };
	*q = s;
	fake_streams++;
	return OK;
}

CUresult cuStreamDestroy_v2(struct stream *q)
{
	ENTER();
	if (!live(q))
		return MISUSE("not a live stream");
	q->live = false;
	fake_streams--;
	return OK;
}

CUresult cuStreamSynchronize(struct stream *q)
{
	ENTER();
	return live(q) ? OK : MISUSE("not a live stream");
}

/* Work runs as it is queued: a stream is always done. */
CUresult cuStreamQuery(struct stream *q)
{
	ENTER();
	return stream_ok(q) ? OK : MISUSE("not a live stream of the current context");
}

CUresult cuEventCreate(struct event **e, unsigned flags)
{
	ENTER();
	if (cur < 0 || flags)
		return MISUSE("no current context, or flags %#x (timing disabled)", flags);
	if (!(*e = calloc(1, sizeof(**e))))
		return OUT_OF_MEMORY;
	(*e)->dev = cur;
	fake_events++;
	return OK;
}

CUresult cuEventDestroy_v2(struct event *e)
{
	ENTER();
	if (!e)
		return MISUSE("no event");
	free(e);
	fake_events--;
	return OK;
}

CUresult cuEventRecord(struct event *e, struct stream *q)
{
	ENTER();
	if (!e || !live(q) || e->dev != q->dev)
		return MISUSE("the event and the stream are not of one context");
	e->recorded = true;
	e->ns = fake_now_ns();
	return OK;
}

CUresult cuEventSynchronize(struct event *e)
{
	ENTER();
	return e ? OK : MISUSE("no event");
}

CUresult cuEventElapsedTime_v2(float *ms, struct event *a, struct event *b)
{
	ENTER();
	if (!a || !b || !a->recorded || !b->recorded)
		return MISUSE("an event never recorded");
	*ms = (float)((double)(b->ns - a->ns) / 1e6);
	return OK;
}

/* PTX text only; the log buffer option gets the reason it is refused. */
CUresult cuModuleLoadDataEx(struct module **m, const void *image, unsigned n, int *opts,
			    void **vals)
{
	const char *ptx = image;
	char entry[64], *log = NULL;
	size_t len = 0;

	ENTER();
	if (cur < 0)
		return MISUSE("no current context");
	for (unsigned i = 0; i < n; i++) {
		if (opts[i] == LOG_BUFFER)
			log = vals[i];
		if (opts[i] == LOG_BUFFER_SIZE)
			len = (uintptr_t)vals[i];
	}
	if (!strstr(ptx, ".version ") || !strstr(ptx, ".target ")) {
		if (log && len)
			snprintf(log, len, "fake driver: not PTX text");
		return INVALID_PTX;
	}
	if (!(*m = calloc(1, sizeof(**m))))
		return OUT_OF_MEMORY;
	(*m)->dev = cur;
	for (int k = 0; k < K_COUNT; k++) {
		snprintf(entry, sizeof(entry), ".entry %s(", kernel_names[k]);
		(*m)->fn[k] = (struct func){ *m, k, strstr(ptx, entry) != NULL };
	}
	fake_modules++;
	return OK;
}

CUresult cuModuleUnload(struct module *m)
{
	ENTER();
	if (!m)
		return MISUSE("no module");
	free(m);
	fake_modules--;
	return OK;
}

CUresult cuModuleGetFunction(struct func **f, struct module *m, const char *name)
{
	ENTER();
	if (!m)
		return MISUSE("no module");
	for (int k = 0; k < K_COUNT; k++)
		if (strcmp(name, kernel_names[k]) == 0 && m->fn[k].present) {
			*f = &m->fn[k];
			return OK;
		}
	return NOT_FOUND;
}

/* The kernels of probes/gpu/ptx.h, run as the GPU would. */
static CUresult run_kernel(int k, unsigned grid, unsigned block, void **params)
{
	unsigned long long a = *(unsigned long long *)params[0],
			   b = *(unsigned long long *)params[1];

	if (k == K_COPY) {
		unsigned long long n = *(unsigned long long *)params[2];

		if (!reach(a, n) || !reach(b, n))
			return MISUSE("ix_gpu_copy: an illegal address");
		fake_count(a, b, n);
		memmove((void *)(uintptr_t)a, (const void *)(uintptr_t)b, n);
		return OK;
	}
	if (grid != 1 || block != 1)
		return MISUSE("%s: %u blocks of %u threads, not 1 of 1", kernel_names[k], grid,
			      block);
	if (k == K_SPIN) {
		const struct fake_buf *flag = fake_find(a, 8);

		if (!flag || flag->kind != FAKE_PINNED || *(volatile uint32_t *)(uintptr_t)a || !b)
			return MISUSE(
				"ix_gpu_spin: the gate is not a closed flag in pinned memory");
		return OK;
	}
	for (unsigned long long h = 0; h < b; h++, fake_hops++) {
		if (!reach(a, 8) || a % 8)
			return MISUSE("ix_gpu_chase: hop %llu to an illegal address", h);
		a = *(const unsigned long long *)(uintptr_t)a;
	}
	b = *(unsigned long long *)params[2];
	if (!reach(b, 8))
		return MISUSE("ix_gpu_chase: an illegal output address");
	*(unsigned long long *)(uintptr_t)b = a;
	return OK;
}

CUresult cuLaunchKernel(struct func *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			unsigned by, unsigned bz, unsigned shared, struct stream *q, void **params,
			void **extra)
{
	ENTER();
	if (!f || f->mod->dev != cur || !stream_ok(q))
		return MISUSE("a function or stream of another context");
	if (!gx || !bx || bx > 1024 || gy != 1 || gz != 1 || by != 1 || bz != 1 || extra)
		return MISUSE("grid %ux%ux%u, block %ux%ux%u, or extra", gx, gy, gz, bx, by, bz);
	fake_launches[f->kernel]++;
	return run_kernel(f->kernel, gx, bx, params);
}

CUresult cuIpcGetMemHandle(void *handle, CUdeviceptr p)
{
	const struct fake_buf *b = fake_at(p, FAKE_DEVICE);

	ENTER();
	if (cur < 0 || !b)
		return MISUSE("no current context, or %#llx not a device allocation", p);
	fake_ipc_handle(b, handle);
	return OK;
}

/* The handle is passed by value: 64 bytes. */
struct ipc_handle {
	char bytes[64];
};

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *p, struct ipc_handle h, unsigned flags)
{
	const struct fake_buf *b;

	ENTER();
	if (cur < 0 || flags != 1)
		return MISUSE("no current context, or flags %#x (must be LAZY_ENABLE_PEER_ACCESS)",
			      flags);
	if (!(b = fake_ipc_map(h.bytes, cur)))
		return INVALID_HANDLE;
	*p = (uintptr_t)b->base;
	fake_ipc_maps++;
	return OK;
}

CUresult cuIpcCloseMemHandle(CUdeviceptr p)
{
	struct fake_buf *b = fake_at(p, FAKE_IMPORTED);

	ENTER();
	if (!b)
		return MISUSE("%#llx was not opened from a handle", p);
	fake_release(b);
	fake_ipc_maps--;
	return OK;
}

CUresult cuMemGetHandleForAddressRange(void *handle, CUdeviceptr p, size_t n, int type,
				       unsigned long long flags)
{
	const struct fake_buf *b = fake_find(p, n);
	long page = sysconf(_SC_PAGESIZE);

	ENTER();
	if (type != 1 || flags || !b || b->kind != FAKE_DEVICE || p % (size_t)page ||
	    n % (size_t)page)
		return MISUSE("type %d, flags %#llx, or not a page-aligned device range", type,
			      flags);
	if (b->dev != 0)
		return NOT_SUPPORTED;
	*(int *)handle = fcntl(b->fd, F_DUPFD_CLOEXEC, 0);
	return *(int *)handle < 0 ? OUT_OF_MEMORY : OK;
}
