/*
 * A SIMULATED libamdhip64.so, for tests only: it checks how probes/gpu/hip.c
 * calls the HIP runtime API. There is no GPU behind it, and no time it
 * reports means anything.
 *
 * Two devices, "Fake HIP GPU 0" and "Fake HIP GPU 1", ROCm 6.2. Device
 * memory is host memory (fake.h); every copy runs on the calling thread as
 * it is queued; a host function (hipLaunchHostFunc, the backend's gate)
 * runs on a thread of its own, joined when its stream is synchronized or
 * destroyed; events read the host's clock.
 *
 * What the runtime would refuse is misuse (fake.h): a device out of range,
 * a copy outside its allocation or between memory not of the devices
 * named, pinned memory not mapped, a stream already destroyed, a stream
 * waiting on an event never recorded (it would not be held), timing an
 * event never recorded.
 * hipIpcOpenMemHandle takes either flag, 0 (ROCm 5) or 1 (ROCm 6).
 *
 * FAKEHIP_FAIL=NAME[=CODE][:TIMES] makes a call fail (fake.h). make check
 * builds it as tests/gpu/libfakehip.so; it is never installed.
 */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>

#define FAKE_FAIL_ENV  "FAKEHIP_FAIL"
#define FAKE_FAIL_CODE 999 /* hipErrorUnknown */
#include "fake.h"

typedef int hipError_t;

enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, INVALID_DEVICE = 101, NOT_READY = 600 };
enum { ALREADY_ENABLED = 704, NOT_ENABLED = 705, HOST_MAPPED = 2, MAX_STREAMS = 512 };
enum { ATTR_BUS_WIDTH = 59, ATTR_MEMORY_CLOCK = 60, ATTR_CUS = 63 };

long fake_host_fns;       /* host functions launched */
long fake_waits;          /* streams made to wait on an event */
long fake_ipc_open_calls; /* hipIpcOpenMemHandle calls, failed or not */

struct stream {
	bool live;    /* from hipStreamCreateWithFlags to hipStreamDestroy */
	pthread_t fn; /* a host function's thread */
	bool pending; /* not joined yet */
	void (*call)(void *);
	void *arg;
};
struct event {
	bool recorded;
	long long ns;
};

static struct stream streams[MAX_STREAMS];
static bool peer[FAKE_NDEV][FAKE_NDEV]; /* [from][to] */
static __thread int cur;                /* the current device: 0 on every thread */

/* Each entry point starts with ENTER: the failure injection. */
#define ENTER()                                    \
	do {                                       \
		int code_;                         \
		if (fake_inject(__func__, &code_)) \
			return code_;              \
	} while (0)
/* return MISUSE(...): report, and fail the call. */
#define MISUSE(...) (fake_misuse(__func__, __VA_ARGS__), INVALID_VALUE)

static bool device(int d)
{
	return d >= 0 && d < FAKE_NDEV;
}

const char *hipGetErrorName(hipError_t e)
{
	switch (e) {
	case OK:
		return "hipSuccess";
	case INVALID_VALUE:
		return "hipErrorInvalidValue";
	case OUT_OF_MEMORY:
		return "hipErrorOutOfMemory";
	case 35:
		return "hipErrorInsufficientDriver";
	case 100:
		return "hipErrorNoDevice";
	case INVALID_DEVICE:
		return "hipErrorInvalidDevice";
	case NOT_READY:
		return "hipErrorNotReady";
	case ALREADY_ENABLED:
		return "hipErrorPeerAccessAlreadyEnabled";
	case NOT_ENABLED:
		return "hipErrorPeerAccessNotEnabled";
	}
	return "hipErrorUnknown";
}

hipError_t hipInit(unsigned flags)
{
	ENTER();
	return flags ? MISUSE("flags %#x (must be 0)", flags) : OK;
}

hipError_t hipRuntimeGetVersion(int *v)
{
	ENTER();
	*v = 60241134; /* 6.2.41134 */
	return OK;
}

hipError_t hipGetDeviceCount(int *n)
{
	ENTER();
	*n = FAKE_NDEV;
	return OK;
}

hipError_t hipSetDevice(int d)
{
	ENTER();
	if (!device(d))
		return MISUSE("no device %d", d);
	cur = d;
	return OK;
}

hipError_t hipDeviceGet(int *d, int i)
{
	ENTER();
	if (!device(i))
		return MISUSE("no device %d", i);
	*d = i;
	return OK;
}

hipError_t hipDeviceGetName(char *s, int len, int d)
{
	ENTER();
	if (!device(d))
		return MISUSE("no device %d", d);
	snprintf(s, (size_t)len, "Fake HIP GPU %d", d);
	return OK;
}

hipError_t hipDeviceTotalMem(size_t *bytes, int d)
{
	ENTER();
	if (!device(d))
		return MISUSE("no device %d", d);
	*bytes = (size_t)192 << 30;
	return OK;
}

hipError_t hipDeviceGetPCIBusId(char *s, int len, int d)
{
	ENTER();
	if (!device(d))
		return MISUSE("no device %d", d);
	snprintf(s, (size_t)len, "0000:C%d:00.0", d + 1);
	return OK;
}

/* 304 CUs, 1300 MHz memory clock, 8192-bit bus. */
hipError_t hipDeviceGetAttribute(int *v, int attr, int d)
{
	ENTER();
	if (!device(d))
		return MISUSE("no device %d", d);
	switch (attr) {
	case ATTR_BUS_WIDTH:
		*v = 8192;
		return OK;
	case ATTR_MEMORY_CLOCK:
		*v = 1300000;
		return OK;
	case ATTR_CUS:
		*v = 304;
		return OK;
	}
	return INVALID_VALUE;
}

hipError_t hipDeviceCanAccessPeer(int *yes, int a, int b)
{
	ENTER();
	if (!device(a) || !device(b))
		return MISUSE("no device %d or %d", a, b);
	*yes = a != b;
	return OK;
}

hipError_t hipDeviceEnablePeerAccess(int to, unsigned flags)
{
	ENTER();
	if (!device(to) || to == cur || flags)
		return MISUSE("device %d from %d, flags %#x", to, cur, flags);
	if (peer[cur][to])
		return ALREADY_ENABLED;
	peer[cur][to] = true;
	return OK;
}

hipError_t hipDeviceDisablePeerAccess(int to)
{
	ENTER();
	if (!device(to) || to == cur)
		return MISUSE("device %d from %d", to, cur);
	if (!peer[cur][to])
		return NOT_ENABLED;
	peer[cur][to] = false;
	return OK;
}

hipError_t hipDeviceSynchronize(void)
{
	ENTER();
	return OK;
}

hipError_t hipMalloc(void **p, size_t n)
{
	struct fake_buf *b;

	ENTER();
	if (!n)
		return MISUSE("0 bytes");
	if (!(b = fake_alloc(FAKE_DEVICE, cur, n)))
		return OUT_OF_MEMORY;
	*p = b->base;
	fake_device_allocs++;
	return OK;
}

hipError_t hipFree(void *p)
{
	struct fake_buf *b = fake_at((uintptr_t)p, FAKE_DEVICE);

	ENTER();
	if (!b)
		return MISUSE("%p is no device allocation", p);
	fake_release(b);
	fake_device_allocs--;
	return OK;
}

hipError_t hipHostMalloc(void **p, size_t n, unsigned flags)
{
	struct fake_buf *b;

	ENTER();
	if (!n)
		return MISUSE("0 bytes");
	if (!(b = fake_alloc(FAKE_PINNED, -1, n)))
		return OUT_OF_MEMORY;
	b->flags = flags;
	*p = b->base;
	fake_host_allocs++;
	return OK;
}

hipError_t hipHostFree(void *p)
{
	struct fake_buf *b = fake_at((uintptr_t)p, FAKE_PINNED);

	ENTER();
	if (!b)
		return MISUSE("%p is no pinned allocation", p);
	fake_release(b);
	fake_host_allocs--;
	return OK;
}

hipError_t hipHostGetDevicePointer(void **d, void *p, unsigned flags)
{
	const struct fake_buf *b = fake_find((uintptr_t)p, 0);

	ENTER();
	if (flags || !b || b->kind != FAKE_PINNED || !(b->flags & HOST_MAPPED))
		return MISUSE("flags %#x, or %p not pinned and mapped", flags, p);
	*d = p;
	return OK;
}

hipError_t hipMemset(void *p, int v, size_t n)
{
	ENTER();
	if (!fake_find((uintptr_t)p, n))
		return MISUSE("%zu bytes at %p outside memory", n, p);
	memset(p, v, n);
	return OK;
}

/* A copy's operand: inside one allocation, or outside all (host memory). */
static bool operand(const void *p, size_t n)
{
	return fake_find((uintptr_t)p, n) || !fake_find((uintptr_t)p, 0);
}

/* Synchronous: between host memory and a device's, or any two. */
hipError_t hipMemcpy(void *d, const void *s, size_t n, int kind)
{
	ENTER();
	if (kind < 0 || kind > 4 || !operand(d, n) || !operand(s, n))
		return MISUSE("kind %d, or a copy overrunning memory", kind);
	memmove(d, s, n);
	return OK;
}

hipError_t hipMemcpyAsync(void *d, const void *s, size_t n, int kind, struct stream *q)
{
	ENTER();
	if (!q || kind < 0 || kind > 4 || !operand(d, n) || !operand(s, n))
		return MISUSE("no stream, kind %d, or a copy overrunning memory", kind);
	fake_count((uintptr_t)d, (uintptr_t)s, n);
	memmove(d, s, n);
	fake_copies++;
	return OK;
}

static bool on_device(const void *p, size_t n, int dev)
{
	const struct fake_buf *b = fake_find((uintptr_t)p, n);

	return b && b->kind != FAKE_PINNED && b->dev == dev;
}

hipError_t hipMemcpyPeerAsync(void *d, int dd, const void *s, int sd, size_t n, struct stream *q)
{
	ENTER();
	if (!q || !on_device(d, n, dd) || !on_device(s, n, sd))
		return MISUSE("no stream, or memory not of the devices named");
	memmove(d, s, n);
	fake_peer_copies++;
	return OK;
}

hipError_t hipStreamCreateWithFlags(struct stream **q, unsigned flags)
{
	struct stream *s = streams;

	ENTER();
	if (flags > 1)
		return MISUSE("flags %#x", flags);
	while (s < streams + MAX_STREAMS && s->live)
		s++;
	if (s == streams + MAX_STREAMS)
		return OUT_OF_MEMORY;
	*s = (struct stream){ .live = true };
	*q = s;
	fake_streams++;
	return OK;
}

static bool live(const struct stream *q)
{
	return q >= streams && q < streams + MAX_STREAMS && q->live;
}

static void join(struct stream *q)
{
	if (q->pending)
		pthread_join(q->fn, NULL);
	q->pending = false;
}

hipError_t hipStreamSynchronize(struct stream *q)
{
	ENTER();
	if (!live(q))
		return MISUSE("not a live stream");
	join(q);
	return OK;
}

/* Done unless a host function of the stream still runs. */
hipError_t hipStreamQuery(struct stream *q)
{
	ENTER();
	if (!live(q))
		return MISUSE("not a live stream");
	if (q->pending && pthread_tryjoin_np(q->fn, NULL) != 0)
		return NOT_READY;
	q->pending = false;
	return OK;
}

hipError_t hipStreamDestroy(struct stream *q)
{
	ENTER();
	if (!live(q))
		return MISUSE("not a live stream");
	join(q);
	q->live = false;
	fake_streams--;
	return OK;
}

hipError_t hipEventCreate(struct event **e)
{
	ENTER();
	if (!(*e = calloc(1, sizeof(**e))))
		return OUT_OF_MEMORY;
	fake_events++;
	return OK;
}

hipError_t hipEventDestroy(struct event *e)
{
	ENTER();
	if (!e)
		return MISUSE("no event");
	free(e);
	fake_events--;
	return OK;
}

hipError_t hipEventRecord(struct event *e, struct stream *q)
{
	ENTER();
	if (!e || !q)
		return MISUSE("no event or no stream");
	e->recorded = true;
	e->ns = fake_now_ns();
	return OK;
}

hipError_t hipEventSynchronize(struct event *e)
{
	ENTER();
	return e ? OK : MISUSE("no event");
}

hipError_t hipEventElapsedTime(float *ms, struct event *a, struct event *b)
{
	ENTER();
	if (!a || !b || !a->recorded || !b->recorded)
		return MISUSE("an event never recorded");
	*ms = (float)((double)(b->ns - a->ns) / 1e6);
	return OK;
}

hipError_t hipStreamWaitEvent(struct stream *q, struct event *e, unsigned flags)
{
	ENTER();
	if (!q || !e || flags || !e->recorded)
		return MISUSE("flags %#x, or an event never recorded (nothing held)", flags);
	fake_waits++;
	return OK;
}

static void *host_fn(void *arg)
{
	struct stream *q = arg;

	q->call(q->arg);
	return NULL;
}

/* The stream's earlier host function, if any, ends first. */
hipError_t hipLaunchHostFunc(struct stream *q, void (*fn)(void *), void *arg)
{
	ENTER();
	if (!q || !fn)
		return MISUSE("no stream or no function");
	join(q);
	q->call = fn;
	q->arg = arg;
	if (pthread_create(&q->fn, NULL, host_fn, q) != 0)
		return OUT_OF_MEMORY;
	q->pending = true;
	fake_host_fns++;
	return OK;
}

hipError_t hipIpcGetMemHandle(void *handle, void *p)
{
	const struct fake_buf *b = fake_at((uintptr_t)p, FAKE_DEVICE);

	ENTER();
	if (!b)
		return MISUSE("%p is not a device allocation", p);
	fake_ipc_handle(b, handle);
	return OK;
}

/* The handle is passed by value: 64 bytes. */
struct ipc_handle {
	char bytes[64];
};

hipError_t hipIpcOpenMemHandle(void **p, struct ipc_handle h, unsigned flags)
{
	const struct fake_buf *b;

	fake_ipc_open_calls++;
	ENTER();
	if (flags > 1)
		return MISUSE("flags %#x", flags);
	if (!(b = fake_ipc_map(h.bytes, cur)))
		return INVALID_VALUE;
	*p = b->base;
	fake_ipc_maps++;
	return OK;
}

hipError_t hipIpcCloseMemHandle(void *p)
{
	struct fake_buf *b = fake_at((uintptr_t)p, FAKE_IMPORTED);

	ENTER();
	if (!b)
		return MISUSE("%p was not opened from a handle", p);
	fake_release(b);
	fake_ipc_maps--;
	return OK;
}

hipError_t hipMemGetHandleForAddressRange(void *handle, void *p, size_t n, int type,
					  unsigned long long flags)
{
	const struct fake_buf *b = fake_find((uintptr_t)p, n);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	ENTER();
	if (type != 1 || flags || !b || b->kind != FAKE_DEVICE || (uintptr_t)p % page || n % page)
		return MISUSE("type %d, flags %#llx, or not a page-aligned device range", type,
			      flags);
	*(int *)handle = fcntl(b->fd, F_DUPFD_CLOEXEC, 0);
	return *(int *)handle < 0 ? OUT_OF_MEMORY : OK;
}
