/*
 * What the two SIMULATED GPU driver libraries (fakecuda.c, fakehip.c) share:
 * their memory, their failure injection and their record of misuse. Each
 * library includes this header once; it is no part of ixperf.
 *
 * Memory: every buffer, "device" or pinned, is host memory: a memfd mapped
 * shared, so that an IPC handle (the exporter's pid and fd) can be mapped
 * by another process through /proc/PID/fd, and a dmabuf fd is a dup of it.
 *
 * Misuse: a call that breaks the API's contract (a handle from the wrong
 * device, a range outside any allocation) or that would put work on the
 * default stream (the backend gives every copy a stream of its own) is
 * printed on stderr and counted in fake_bad, and the call fails.
 *
 * Failure injection: the environment variable FAKE_FAIL_ENV (each library
 * names its own) set to NAME[=CODE][:TIMES] makes the API function NAME
 * return CODE (default FAKE_FAIL_CODE), every time or the first TIMES.
 */
#ifndef IX_TESTS_GPU_FAKE_H
#define IX_TESTS_GPU_FAKE_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define FAKE_NDEV      2   /* devices the library reports */
#define FAKE_MAX_BUFS  256 /* live allocations and IPC mappings */
#define FAKE_IPC_MAGIC 0x464b4950u

/* Counters the tests read with dlsym: objects alive now, calls made. */
long fake_bad;           /* calls that broke the contract */
long fake_streams;       /* streams alive */
long fake_events;        /* events alive */
long fake_device_allocs; /* device allocations alive */
long fake_host_allocs;   /* pinned host allocations alive */
long fake_ipc_maps;      /* IPC handles open */
long fake_copies;        /* cuMemcpyAsync / hipMemcpyAsync calls carried out */
long fake_peer_copies;   /* cuMemcpyPeerAsync / hipMemcpyPeerAsync calls carried out */

/* Bytes copied between host memory and each device by copies and copy
 * kernels: [dev][0] host -> dev, [dev][1] dev -> host. With the variable
 * FAKE_BYTES_FILE set, each process appends them there as it exits, one
 * line a device: "PID GPU<dev> <host_to_gpu> <gpu_to_host>". */
long long fake_host_bytes[FAKE_NDEV][2];

enum fake_kind { FAKE_UNUSED = 0, FAKE_DEVICE, FAKE_PINNED, FAKE_IMPORTED };

struct fake_buf {
	enum fake_kind kind;
	int dev;        /* the owner, or the importer; -1 for pinned memory */
	unsigned flags; /* pinned: the allocation's flags */
	uint8_t *base;
	size_t size;
	int fd; /* the memfd behind it (-1: an imported mapping) */
};

/* An IPC handle's bytes (both APIs have 64). */
struct fake_ipc {
	uint32_t magic;
	int32_t pid, fd;
	uint64_t size;
};

static struct fake_buf fake_bufs[FAKE_MAX_BUFS];

/* Report a call that broke the contract; the caller returns an error. */
static void fake_misuse(const char *call, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fake_misuse(const char *call, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "fake driver: %s: ", call);
	vfprintf(stderr, fmt, ap);
	fputs(" (contract violated)\n", stderr);
	va_end(ap);
	__atomic_add_fetch(&fake_bad, 1, __ATOMIC_SEQ_CST);
}

/* Whether call is to fail now (FAKE_FAIL_ENV), and with which code. */
static bool fake_inject(const char *call, int *code)
{
	static int done; /* failures injected so far */
	const char *s = getenv(FAKE_FAIL_ENV);
	size_t n = strlen(call);
	long times = -1;
	char *end;

	if (!s || strncmp(s, call, n) != 0 || (s[n] && s[n] != '=' && s[n] != ':'))
		return false;
	*code = FAKE_FAIL_CODE;
	s += n;
	if (*s == '=') {
		*code = (int)strtol(s + 1, &end, 10);
		s = end;
	}
	if (*s == ':')
		times = strtol(s + 1, NULL, 10);
	return times < 0 || done++ < times;
}

/* The live buffer holding [p, p + n), or NULL. */
static struct fake_buf *fake_find(uintptr_t p, size_t n)
{
	for (int i = 0; i < FAKE_MAX_BUFS; i++) {
		struct fake_buf *b = &fake_bufs[i];

		if (b->kind && p >= (uintptr_t)b->base && p - (uintptr_t)b->base <= b->size &&
		    n <= b->size - (p - (uintptr_t)b->base))
			return b;
	}
	return NULL;
}

/* The live buffer of this kind that starts at p, or NULL. */
static struct fake_buf *fake_at(uintptr_t p, enum fake_kind kind)
{
	struct fake_buf *b = fake_find(p, 0);

	return b && b->kind == kind && (uintptr_t)b->base == p ? b : NULL;
}

static struct fake_buf *fake_slot(void)
{
	for (int i = 0; i < FAKE_MAX_BUFS; i++)
		if (!fake_bufs[i].kind)
			return &fake_bufs[i];
	return NULL;
}

/* A new zeroed buffer of size bytes; NULL when out of memory. */
static struct fake_buf *fake_alloc(enum fake_kind kind, int dev, size_t size)
{
	struct fake_buf *b = fake_slot();
	int fd = b ? memfd_create("fake-gpu-memory", MFD_CLOEXEC) : -1;
	void *p;

	if (fd < 0)
		return NULL;
	p = ftruncate(fd, (off_t)size) == 0
		    ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
		    : MAP_FAILED;
	if (p == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	*b = (struct fake_buf){ kind, dev, 0, p, size, fd };
	return b;
}

static void fake_release(struct fake_buf *b)
{
	munmap(b->base, b->size);
	if (b->fd >= 0)
		close(b->fd);
	memset(b, 0, sizeof(*b));
}

static void fake_ipc_handle(const struct fake_buf *b, void *handle)
{
	struct fake_ipc h = { FAKE_IPC_MAGIC, (int32_t)getpid(), b->fd, b->size };

	memset(handle, 0, 64);
	memcpy(handle, &h, sizeof(h));
}

/* Map the exporter's memory, in this process or another; NULL on failure. */
static struct fake_buf *fake_ipc_map(const void *handle, int dev)
{
	struct fake_buf *b = fake_slot();
	struct fake_ipc h;
	char path[64];
	void *p = MAP_FAILED;
	int fd;

	memcpy(&h, handle, sizeof(h));
	if (!b || h.magic != FAKE_IPC_MAGIC)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)h.pid, (int)h.fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		p = mmap(NULL, h.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	}
	if (p == MAP_FAILED)
		return NULL;
	*b = (struct fake_buf){ FAKE_IMPORTED, dev, 0, p, h.size, -1 };
	return b;
}

/* Count a copy of n bytes from s to d in fake_host_bytes when one end is
 * host memory (pinned, or outside every allocation) and the other a
 * device's. */
static void fake_count(uintptr_t d, uintptr_t s, size_t n)
{
	const struct fake_buf *db = fake_find(d, n), *sb = fake_find(s, n);
	bool dh = !db || db->kind == FAKE_PINNED, sh = !sb || sb->kind == FAKE_PINNED;

	if (sh && !dh && db->dev >= 0 && db->dev < FAKE_NDEV)
		__atomic_add_fetch(&fake_host_bytes[db->dev][0], (long long)n, __ATOMIC_SEQ_CST);
	if (dh && !sh && sb->dev >= 0 && sb->dev < FAKE_NDEV)
		__atomic_add_fetch(&fake_host_bytes[sb->dev][1], (long long)n, __ATOMIC_SEQ_CST);
}

__attribute__((destructor)) static void fake_bytes_report(void)
{
	const char *path = getenv("FAKE_BYTES_FILE");
	FILE *f = path && *path ? fopen(path, "a") : NULL;

	if (!f)
		return;
	for (int i = 0; i < FAKE_NDEV; i++)
		fprintf(f, "%d GPU%d %lld %lld\n", (int)getpid(), i, fake_host_bytes[i][0],
			fake_host_bytes[i][1]);
	fclose(f);
}

static long long fake_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

#endif
