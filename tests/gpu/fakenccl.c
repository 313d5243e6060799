/*
 * A SIMULATED libnccl.so.2, for tests only: it checks how ixperf's coll
 * probe calls the NCCL API, and lets a test break a job on purpose. There
 * is no GPU and no network behind it, and no time it takes means anything.
 *
 * NCCL 2.23.4. Buffers are host memory (true under fakecuda and fakehip),
 * streams are ignored and every operation completes before its call (or
 * its group's ncclGroupEnd) returns. Ranks are processes on this host, or
 * several in one process (ncclCommInitAll, or ncclCommInitRank inside a
 * group). They meet in a POSIX shared memory object named by the unique
 * id: a header, a barrier counter per rank, a mailbox per ordered pair of
 * ranks and a slot of FAKENCCL_SLOT_BYTES (default 64 MiB; sparse) per
 * rank; a message larger than a slot is an invalid argument. The last rank
 * to join unlinks the object; when an init never completes, its creator
 * (or the last rank to let go of it) unlinks it on ncclCommAbort/Destroy.
 *
 * A collective copies each rank's contribution to its slot, waits for every
 * rank, computes each rank's output from the slots in rank order and waits
 * again. A send is copied to the sender's slot and posted in its mailbox
 * to the peer, one message at a time, and the peer's receives take them in
 * order. The operations queued between ncclGroupStart and ncclGroupEnd run
 * at ncclGroupEnd, those of each communicator in order, a run of sends and
 * receives together. Integers wrap; half and bfloat16 are reduced in
 * float, rounded to nearest even at each step; ncclAvg is the sum divided
 * by the number of ranks.
 *
 * Waits poll, bounded by FAKENCCL_TIMEOUT seconds (default 60): a wait that
 * runs out fails the communicator (ncclRemoteError from the call and from
 * ncclCommGetAsyncError after it; ncclGetLastError names the ranks that did
 * not come), and the other ranks of the job fail with it. A non-blocking
 * init (config->blocking 0) returns ncclInProgress, and
 * ncclCommGetAsyncError reports ncclInProgress until every rank joined
 * (ncclRemoteError once FAKENCCL_TIMEOUT ran out). Arguments are checked as
 * NCCL checks them (ncclInvalidArgument); an operation on a communicator
 * whose init has not completed, and a receive of another size than its
 * send, are ncclInvalidUsage. ncclGetLastError says what failed last.
 *
 * Injections, read from the environment once:
 *   FAKENCCL_SLOW=RANK:MS  that rank sleeps MS ms before each collective;
 *   FAKENCCL_WRONG=RANK    that rank's output of each collective has its
 *                          first element changed: integers xor 1 on the
 *                          first byte, floating point plus one (zero where
 *                          plus one changes nothing);
 *   FAKENCCL_HANG=RANK:N   that rank sleeps forever at its (N+1)th
 *                          collective instead of contributing;
 *   FAKENCCL_FAIL=NAME[=CODE][:TIMES]  the function NAME returns CODE
 *                          (default ncclInternalError), every time or the
 *                          first TIMES (as fake.h);
 *   FAKENCCL_JOINED=FILE   each rank appends its number to FILE once its
 *                          communicator is made (a test's cue).
 * A group's run of sends and receives counts as one collective for these.
 *
 * Counters the tests read with dlsym: fakenccl_collectives (collectives
 * carried out, one per local rank), fakenccl_comms (communicators alive).
 *
 * make check builds it as tests/gpu/libfakenccl.so; it is never installed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct ncclComm *ncclComm_t;
typedef struct {
	char internal[128];
} ncclUniqueId;
typedef enum {
	ncclSuccess = 0,
	ncclUnhandledCudaError = 1,
	ncclSystemError = 2,
	ncclInternalError = 3,
	ncclInvalidArgument = 4,
	ncclInvalidUsage = 5,
	ncclRemoteError = 6,
	ncclInProgress = 7
} ncclResult_t;
typedef enum {
	ncclInt8 = 0,
	ncclUint8 = 1,
	ncclInt32 = 2,
	ncclUint32 = 3,
	ncclInt64 = 4,
	ncclUint64 = 5,
	ncclFloat16 = 6,
	ncclFloat32 = 7,
	ncclFloat64 = 8,
	ncclBfloat16 = 9
} ncclDataType_t;
typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;
typedef struct { /* NCCL 2.14's layout */
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

#define CONFIG_MAGIC 0xcafebeefu
#define ID_MAGIC     0x4c43434eu /* the unique id's first word */
#define ID_PREFIX    "/fakenccl-"
#define NTYPES       10
#define STEP_WAIT    (-1) /* an operation waits for other ranks */

long fakenccl_collectives; /* collectives carried out, by every local rank */
long fakenccl_comms;       /* communicators alive */

/* What ixperf names in every report it makes with this library: a library
 * exporting ixperf_simulation is a simulation (probes/coll/lib.h). */
const char ixperf_simulation[] =
	"a simulated NCCL for tests (tests/gpu/fakenccl.c): no GPU and no network behind it, "
	"no time it takes means anything";

/* The shared memory object: hdr, rankrec[nranks], mbox[nranks][nranks],
 * then the slots. Zero is the initial state of all of it. */
struct hdr {
	_Atomic uint32_t nranks;
	_Atomic uint64_t slot;
	atomic_int joined;   /* ranks that joined */
	atomic_int attached; /* ranks that have it mapped */
	atomic_int failed;   /* 1 + the rank whose wait ran out first, or 0 */
};
struct rankrec {
	atomic_int present;       /* the rank joined */
	_Atomic uint64_t arrived; /* barriers it reached */
};
struct mbox { /* messages from one rank to another */
	_Atomic uint64_t posted, taken;
	uint64_t off, bytes; /* the last one posted, in the sender's slot */
};

enum kind { ALLREDUCE, BROADCAST, REDUCE, ALLGATHER, REDUCESCATTER, SEND, RECV };
static const char *const kind_names[] = { "ncclAllReduce", "ncclBroadcast",     "ncclReduce",
					  "ncclAllGather", "ncclReduceScatter", "ncclSend",
					  "ncclRecv" };

struct task {
	struct task *next;
	enum kind kind;
	int type, op, peer; /* peer: the root, or the other rank */
	const void *send;
	void *recv;
	size_t count;
	size_t off;   /* a send's data in the slot */
	uint64_t seq; /* a send's number in its mailbox, once posted */
	bool done;
};

struct ncclComm {
	struct ncclComm *next;  /* the live communicators */
	struct ncclComm *gnext; /* the communicators of this thread's group */
	char name[64];
	uint8_t *base;
	size_t size;
	struct hdr *h;
	struct rankrec *rk;
	struct mbox *mb;
	uint8_t *slots;
	uint64_t slot;
	int rank, nranks, dev;
	bool blocking, ready, creator, pending, ingroup;
	ncclResult_t err;             /* the asynchronous error */
	ncclResult_t p2perr;          /* an error of the run of sends and receives */
	long colls;                   /* collectives started */
	uint64_t gen;                 /* barriers reached */
	uint64_t *sent, *got;         /* messages posted to, taken from, each peer */
	long long since;              /* when the current wait began */
	struct task *q, *qtail, *end; /* queued operations; end of a p2p run */
	size_t qsend;                 /* bytes of the queued run of sends */
	int phase;
};

_Static_assert(sizeof(struct hdr) <= 64, "the header fits before the rank records");
_Static_assert(sizeof(uint32_t) + 64 <= sizeof(ncclUniqueId), "the name fits in the id");

static const size_t type_size[NTYPES] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2 };

static struct {
	uint64_t slot;
	double timeout_s;
	long slow_rank, slow_ms, wrong_rank, hang_rank, hang_at;
	char fail[64];
	int fail_code;
	long fail_times;
	char joined[256];
} env = { 64ull << 20, 60, -1, 0, -1, -1, 0, "", ncclInternalError, -1, "" };
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* guards live */
static struct ncclComm *live;
static char last_error[512];

static __thread int depth;                /* ncclGroupStart nesting */
static __thread struct ncclComm *glist;   /* communicators the group touches */
static __thread ncclResult_t group_error; /* a call of the group failed */

static ncclResult_t fail(ncclResult_t r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record the last error; returns r. */
static ncclResult_t fail(ncclResult_t r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return r;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

static void nap(long ns)
{
	struct timespec t = { ns / 1000000000, ns % 1000000000 };

	nanosleep(&t, NULL);
}

/* FAKENCCL_...=A or A:B (with b), A and B >= 0. */
static bool parse_pair(const char *name, long *a, long *b)
{
	const char *s = getenv(name);
	char *end;
	long x, y = 0;

	if (!s || !*s)
		return false;
	errno = 0;
	x = strtol(s, &end, 10);
	if (*end == ':' && b)
		y = strtol(end + 1, &end, 10);
	if (errno || *end || end == s || x < 0 || y < 0) {
		fprintf(stderr, "fakenccl: %s=%s ignored\n", name, s);
		return false;
	}
	*a = x;
	if (b)
		*b = y;
	return true;
}

static void env_read(void)
{
	const char *s = getenv("FAKENCCL_SLOT_BYTES"), *f = getenv("FAKENCCL_FAIL");
	char *end;

	if (s && *s) {
		unsigned long long v = strtoull(s, &end, 10);

		if (!*end && v > 0 && v <= 1ull << 40)
			env.slot = v;
	}
	if ((s = getenv("FAKENCCL_TIMEOUT")) && *s) {
		double v = strtod(s, &end);

		if (!*end && v > 0)
			env.timeout_s = v;
	}
	if ((s = getenv("FAKENCCL_JOINED")) && *s)
		snprintf(env.joined, sizeof(env.joined), "%s", s);
	parse_pair("FAKENCCL_SLOW", &env.slow_rank, &env.slow_ms);
	parse_pair("FAKENCCL_WRONG", &env.wrong_rank, NULL);
	parse_pair("FAKENCCL_HANG", &env.hang_rank, &env.hang_at);
	if (f && *f) {
		size_t len = strcspn(f, "=:");

		snprintf(env.fail, sizeof(env.fail), "%.*s", (int)len, f);
		f += len;
		if (*f == '=') {
			env.fail_code = (int)strtol(f + 1, &end, 10);
			f = end;
		}
		if (*f == ':')
			env.fail_times = strtol(f + 1, NULL, 10);
	}
}

/* Whether call is to fail now (FAKENCCL_FAIL), and with which code. */
static bool inject(const char *call, int *code)
{
	static atomic_long done; /* failures injected so far */

	pthread_once(&env_once, env_read);
	if (!env.fail[0] || strcmp(env.fail, call) != 0)
		return false;
	*code = env.fail_code;
	return env.fail_times < 0 || atomic_fetch_add(&done, 1) < env.fail_times;
}

/* Each entry point starts with ENTER: the failure injection. */
#define ENTER()                                                                                  \
	do {                                                                                     \
		int code_;                                                                       \
		if (inject(__func__, &code_))                                                    \
			return fail((ncclResult_t)code_, "%s: injected failure (FAKENCCL_FAIL)", \
				    __func__);                                                   \
	} while (0)

static bool alive(ncclComm_t c)
{
	struct ncclComm *p;

	pthread_mutex_lock(&lock);
	for (p = live; p && p != c; p = p->next)
		;
	pthread_mutex_unlock(&lock);
	return c && p == c;
}

static struct rankrec *rk(ncclComm_t c, int r)
{
	return c->rk + r;
}

static struct mbox *mb(ncclComm_t c, int from, int to)
{
	return c->mb + (size_t)from * (size_t)c->nranks + (size_t)to;
}

static uint8_t *slot(ncclComm_t c, int r)
{
	return c->slots + (size_t)r * c->slot;
}

/* Half and bfloat16 to and from float, rounding to nearest even. */
static float bits_float(uint32_t b)
{
	float f;

	memcpy(&f, &b, sizeof(f));
	return f;
}

static float half_float(uint16_t h)
{
	uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;

	if (e == 0x1f)
		return bits_float(s | 0x7f800000 | m << 13);
	if (e)
		return bits_float(s | (e + 112) << 23 | m << 13);
	if (!m)
		return bits_float(s);
	for (e = 113; !(m & 0x400); e--)
		m <<= 1;
	return bits_float(s | e << 23 | (m & 0x3ff) << 13);
}

static uint16_t float_half(float f)
{
	uint32_t x, s, m, h, rem, shift;

	memcpy(&x, &f, sizeof(x));
	s = (x >> 16) & 0x8000;
	x &= 0x7fffffff;
	if (x > 0x7f800000)
		return (uint16_t)(s | 0x7e00); /* NaN */
	if (x >= 0x477ff000)
		return (uint16_t)(s | 0x7c00); /* rounds to infinity */
	if (x >= 0x38800000) {
		h = ((x >> 23) - 112) << 10 | (x & 0x7fffff) >> 13;
		rem = x & 0x1fff;
		return (uint16_t)(s | (h + (rem > 0x1000 || (rem == 0x1000 && (h & 1)))));
	}
	if (x <= 0x33000000)
		return (uint16_t)s; /* rounds to zero */
	m = (x & 0x7fffff) | 0x800000;
	shift = 126 - (x >> 23); /* 14 to 24 */
	h = m >> shift;
	rem = m & ((1u << shift) - 1);
	return (uint16_t)(s |
			  (h + (rem > 1u << (shift - 1) || (rem == 1u << (shift - 1) && (h & 1)))));
}

static uint16_t float_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof(x));
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static bool is_float(int type)
{
	return type >= ncclFloat16;
}

static bool is_signed(int type)
{
	return type == ncclInt8 || type == ncclInt32 || type == ncclInt64;
}

/* An integer element, sign- or zero-extended. */
static uint64_t iget(int type, const uint8_t *p)
{
	uint32_t u32;
	uint64_t u64;

	switch (type_size[type]) {
	case 1:
		return is_signed(type) ? (uint64_t)(int64_t)(int8_t)*p : *p;
	case 4:
		memcpy(&u32, p, 4);
		return is_signed(type) ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

static void iput(int type, uint8_t *p, uint64_t v)
{
	uint32_t u32 = (uint32_t)v;

	if (type_size[type] == 1)
		*p = (uint8_t)v;
	else if (type_size[type] == 4)
		memcpy(p, &u32, 4);
	else
		memcpy(p, &v, 8);
}

/* A floating point element; float operations done in double round the same. */
static double fget(int type, const uint8_t *p)
{
	uint16_t h;
	float f;
	double d;

	switch (type) {
	case ncclFloat16:
		memcpy(&h, p, 2);
		return half_float(h);
	case ncclBfloat16:
		memcpy(&h, p, 2);
		return bits_float((uint32_t)h << 16);
	case ncclFloat32:
		memcpy(&f, p, 4);
		return f;
	default:
		memcpy(&d, p, 8);
		return d;
	}
}

static void fput(int type, uint8_t *p, double v)
{
	uint16_t h = type == ncclFloat16 ? float_half((float)v) : float_bf16((float)v);
	float f = (float)v;

	if (type == ncclFloat64)
		memcpy(p, &v, 8);
	else if (type == ncclFloat32)
		memcpy(p, &f, 4);
	else
		memcpy(p, &h, 2);
}

/* a[i] = a[i] op b[i] for n elements (ncclAvg sums). */
static void combine(int type, int op, uint8_t *a, const uint8_t *b, size_t n)
{
	size_t es = type_size[type];

	for (size_t i = 0; i < n; i++, a += es, b += es) {
		if (is_float(type)) {
			double x = fget(type, a), y = fget(type, b);

			fput(type, a,
			     op == ncclProd  ? x * y
			     : op == ncclMax ? (x > y ? x : y)
			     : op == ncclMin ? (x < y ? x : y)
					     : x + y);
		} else {
			uint64_t x = iget(type, a), y = iget(type, b);
			bool gt = is_signed(type) ? (int64_t)x > (int64_t)y : x > y;

			iput(type, a,
			     op == ncclProd  ? x * y
			     : op == ncclMax ? (gt ? x : y)
			     : op == ncclMin ? (gt ? y : x)
					     : x + y);
		}
	}
}

static void average(int type, uint8_t *a, size_t n, int nranks)
{
	size_t es = type_size[type];

	for (size_t i = 0; i < n; i++, a += es) {
		if (is_float(type))
			fput(type, a, fget(type, a) / nranks);
		else if (is_signed(type))
			iput(type, a, (uint64_t)((int64_t)iget(type, a) / nranks));
		else
			iput(type, a, iget(type, a) / (uint64_t)nranks);
	}
}

/* FAKENCCL_WRONG: change the first element at p. */
static void corrupt(int type, uint8_t *p)
{
	uint8_t old[8];
	size_t es = type_size[type];

	if (!is_float(type)) {
		p[0] ^= 1;
		return;
	}
	memcpy(old, p, es);
	fput(type, p, fget(type, p) + 1);
	if (!memcmp(old, p, es))
		memset(p, 0, es);
}

/* Whether a p2p run of c waits for rank r. */
static bool p2p_waits_on(ncclComm_t c, int r)
{
	for (struct task *t = c->q; t != c->end; t = t->next)
		if (!t->done && t->peer == r)
			return true;
	return false;
}

/* The ranks c waits for, as "1 3". */
static const char *waiting_for(ncclComm_t c, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	for (int r = 0; r < c->nranks && len < n; r++) {
		bool miss = !c->ready ? !atomic_load(&rk(c, r)->present)
			    : c->q && c->q->kind >= SEND && c->phase
				    ? p2p_waits_on(c, r)
				    : atomic_load(&rk(c, r)->arrived) < c->gen;

		if (miss)
			len += (size_t)snprintf(buf + len, n - len, "%s%d", len ? " " : "", r);
	}
	return buf;
}

/* While c waits: ncclSuccess, or ncclRemoteError once another rank failed
 * the job or the wait ran out (c fails). */
static ncclResult_t expired(ncclComm_t c, const char *what)
{
	char who[256], why[64];
	int zero = 0, f = atomic_load(&c->h->failed);
	double s = (double)(now_ns() - c->since) / 1e9;

	if ((!f || f == c->rank + 1) && s < env.timeout_s)
		return ncclSuccess;
	if (f)
		snprintf(why, sizeof(why), "rank %d of the job timed out", f - 1);
	else
		snprintf(why, sizeof(why), "FAKENCCL_TIMEOUT %g s", env.timeout_s);
	atomic_compare_exchange_strong(&c->h->failed, &zero, c->rank + 1);
	c->err = ncclRemoteError;
	return fail(c->err, "%s: rank %d: ranks %s had not arrived after %.2f s (%s)", what,
		    c->rank, waiting_for(c, who, sizeof(who)), s, why);
}

/* ncclSuccess once every rank joined, ncclInProgress before, or an error. */
static ncclResult_t poll_join(ncclComm_t c)
{
	ncclResult_t r;

	if (c->ready || c->err)
		return c->err;
	if (atomic_load(&c->h->joined) >= c->nranks) {
		c->ready = true;
		if (env.joined[0]) { /* a test's cue: this rank's communicator exists */
			FILE *f = fopen(env.joined, "a");
			if (f) {
				fprintf(f, "%d\n", c->rank);
				fclose(f);
			}
		}
		return ncclSuccess;
	}
	r = expired(c, "init");
	return r ? r : ncclInProgress;
}

/* Unmap c and free it; unlink the object of an init that never completed
 * when c created it or is the last to let go of it. */
static void detach(ncclComm_t c)
{
	if (c->h) {
		bool complete = atomic_load(&c->h->joined) >= c->nranks;
		int left = atomic_fetch_sub(&c->h->attached, 1) - 1;

		if (!complete && (c->creator || left == 0))
			shm_unlink(c->name);
		munmap(c->base, c->size);
	}
	free(c->sent);
	free(c->got);
	free(c);
}

/* Map the job's object and join it as rank. */
static ncclResult_t attach(ncclComm_t c, const char *fn)
{
	size_t rk_off = 64, mb_off, slots_off, n = (size_t)c->nranks, sz;
	uint32_t zero32 = 0;
	uint64_t zero64 = 0;
	struct stat st;
	int fd, zero = 0;

	mb_off = rk_off + n * sizeof(struct rankrec);
	if (n > SIZE_MAX / n / sizeof(struct mbox) ||
	    __builtin_mul_overflow(n, (size_t)c->slot, &sz) ||
	    __builtin_add_overflow(
		    sz, (mb_off + n * n * sizeof(struct mbox) + 4095) & ~(size_t)4095, &c->size))
		return fail(ncclInvalidArgument, "%s: %d ranks do not fit in memory", fn,
			    c->nranks);
	slots_off = c->size - sz;
	for (;;) {
		fd = shm_open(c->name, O_RDWR | O_CREAT | O_EXCL, 0600);
		c->creator = fd >= 0;
		if (fd < 0 && errno == EEXIST)
			fd = shm_open(c->name, O_RDWR, 0);
		if (fd >= 0 || errno != ENOENT)
			break;
	}
	if (fd < 0)
		return fail(ncclSystemError, "%s: shm_open %s: %s", fn, c->name, strerror(errno));
	if (fstat(fd, &st) != 0 ||
	    ((size_t)st.st_size < c->size && ftruncate(fd, (off_t)c->size) != 0))
		c->base = MAP_FAILED;
	else
		c->base = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (c->base == MAP_FAILED) {
		if (c->creator)
			shm_unlink(c->name);
		return fail(ncclSystemError, "%s: mapping %s: %s", fn, c->name, strerror(errno));
	}
	c->h = (struct hdr *)c->base;
	c->rk = (struct rankrec *)(c->base + rk_off);
	c->mb = (struct mbox *)(c->base + mb_off);
	c->slots = c->base + slots_off;
	atomic_fetch_add(&c->h->attached, 1);
	if ((!atomic_compare_exchange_strong(&c->h->nranks, &zero32, (uint32_t)c->nranks) &&
	     zero32 != (uint32_t)c->nranks) ||
	    (!atomic_compare_exchange_strong(&c->h->slot, &zero64, c->slot) && zero64 != c->slot))
		return fail(
			ncclInvalidArgument,
			"%s: rank %d: nranks %d or slot %llu differs from %u, %llu of other ranks",
			fn, c->rank, c->nranks, (unsigned long long)c->slot, zero32,
			(unsigned long long)zero64);
	if (!atomic_compare_exchange_strong(&rk(c, c->rank)->present, &zero, 1))
		return fail(ncclInvalidUsage, "%s: rank %d joined twice", fn, c->rank);
	if (atomic_fetch_add(&c->h->joined, 1) + 1 == c->nranks)
		shm_unlink(c->name);
	return ncclSuccess;
}

static void unlist(ncclComm_t c)
{
	struct ncclComm **p;

	pthread_mutex_lock(&lock);
	for (p = &live; *p && *p != c; p = &(*p)->next)
		;
	if (*p)
		*p = c->next;
	pthread_mutex_unlock(&lock);
	for (p = &glist; *p && *p != c; p = &(*p)->gnext)
		;
	if (*p)
		*p = c->gnext;
	__atomic_sub_fetch(&fakenccl_comms, 1, __ATOMIC_SEQ_CST);
}

static void drop(ncclComm_t c)
{
	while (c->q) {
		struct task *t = c->q;

		c->q = t->next;
		free(t);
	}
	c->qtail = c->end = NULL;
	c->phase = 0;
}

static void destroy(ncclComm_t c)
{
	unlist(c);
	drop(c);
	detach(c);
}

/* Create rank's communicator of the job id; in a group, its joining ends
 * at ncclGroupEnd. */
static ncclResult_t init(ncclComm_t *out, int nranks, const ncclUniqueId *id, int rank, int dev,
			 bool blocking, const char *fn)
{
	uint32_t magic;
	ncclComm_t c;
	ncclResult_t r;

	pthread_once(&env_once, env_read);
	if (!out)
		return fail(ncclInvalidArgument, "%s: comm is NULL", fn);
	*out = NULL;
	memcpy(&magic, id->internal, sizeof(magic));
	if (magic != ID_MAGIC || !memchr(id->internal + 4, 0, 64) ||
	    strncmp(id->internal + 4, ID_PREFIX, strlen(ID_PREFIX)) != 0)
		return fail(ncclInvalidArgument, "%s: not a unique id of ncclGetUniqueId", fn);
	if (nranks < 1 || rank < 0 || rank >= nranks)
		return fail(ncclInvalidArgument, "%s: rank %d of %d ranks", fn, rank, nranks);
	c = calloc(1, sizeof(*c));
	if (!c || !(c->sent = calloc((size_t)nranks, 8)) || !(c->got = calloc((size_t)nranks, 8))) {
		if (c)
			detach(c);
		return fail(ncclSystemError, "%s: out of memory", fn);
	}
	memcpy(c->name, id->internal + 4, sizeof(c->name));
	c->slot = env.slot;
	c->rank = rank;
	c->nranks = nranks;
	c->dev = dev;
	c->blocking = blocking;
	c->since = now_ns();
	if ((r = attach(c, fn)) != ncclSuccess) {
		detach(c);
		return r;
	}
	pthread_mutex_lock(&lock);
	c->next = live;
	live = c;
	pthread_mutex_unlock(&lock);
	__atomic_add_fetch(&fakenccl_comms, 1, __ATOMIC_SEQ_CST);
	*out = c;
	if (depth > 0) {
		c->pending = c->ingroup = true;
		c->gnext = glist;
		glist = c;
		return ncclSuccess;
	}
	if (!blocking)
		return ncclInProgress;
	while ((r = poll_join(c)) == ncclInProgress)
		nap(100000);
	if (r != ncclSuccess) {
		destroy(c);
		*out = NULL;
	}
	return r;
}

static void arrive(ncclComm_t c)
{
	atomic_store(&rk(c, c->rank)->arrived, ++c->gen);
	c->since = now_ns();
}

static int barrier(ncclComm_t c, const char *what)
{
	for (int r = 0; r < c->nranks; r++)
		if (atomic_load(&rk(c, r)->arrived) < c->gen) {
			ncclResult_t e = expired(c, what);

			return e ? (int)e : STEP_WAIT;
		}
	return ncclSuccess;
}

/* FAKENCCL_HANG and FAKENCCL_SLOW, before a collective. */
static void prelude(ncclComm_t c)
{
	if (c->rank == env.hang_rank && c->colls == env.hang_at)
		for (;;)
			pause();
	c->colls++;
	if (c->rank == env.slow_rank)
		nap(env.slow_ms * 1000000);
}

/* What rank puts in its slot for t. */
static size_t contribution(ncclComm_t c, const struct task *t)
{
	size_t n = t->count * type_size[t->type];

	if (t->kind == REDUCESCATTER)
		return n * (size_t)c->nranks;
	return t->kind == BROADCAST && c->rank != t->peer ? 0 : n;
}

/* out = the reduction of count elements at off in every slot, in rank order. */
static void reduce_slots(ncclComm_t c, const struct task *t, uint8_t *out, size_t off)
{
	memcpy(out, slot(c, 0) + off, t->count * type_size[t->type]);
	for (int r = 1; r < c->nranks; r++)
		combine(t->type, t->op, out, slot(c, r) + off, t->count);
	if (t->op == ncclAvg)
		average(t->type, out, t->count, c->nranks);
}

static void output(ncclComm_t c, const struct task *t)
{
	size_t n = t->count * type_size[t->type];
	uint8_t *recv = t->recv;

	switch (t->kind) {
	case BROADCAST:
		memcpy(recv, slot(c, t->peer), n);
		break;
	case ALLGATHER:
		for (int r = 0; r < c->nranks; r++)
			memcpy(recv + (size_t)r * n, slot(c, r), n);
		break;
	case REDUCE:
		if (c->rank != t->peer)
			return;
		reduce_slots(c, t, recv, 0);
		break;
	case ALLREDUCE:
		reduce_slots(c, t, recv, 0);
		break;
	default:
		reduce_slots(c, t, recv, (size_t)c->rank * n);
	}
	if (c->rank == env.wrong_rank)
		corrupt(t->type, recv);
}

/* One move of the collective at the head of c's queue: ncclSuccess (it
 * moved), STEP_WAIT or an error. */
static int coll_move(ncclComm_t c)
{
	struct task *t = c->q;
	size_t n = contribution(c, t);
	int w;

	if (c->phase == 0) {
		prelude(c);
		if (n)
			memcpy(slot(c, c->rank), t->send, n);
		arrive(c);
		c->phase = 1;
		return ncclSuccess;
	}
	if ((w = barrier(c, kind_names[t->kind])) != ncclSuccess)
		return w;
	if (c->phase == 1) {
		output(c, t);
		arrive(c);
		c->phase = 2;
		return ncclSuccess;
	}
	c->phase = 0;
	c->q = t->next;
	free(t);
	__atomic_add_fetch(&fakenccl_collectives, 1, __ATOMIC_SEQ_CST);
	return ncclSuccess;
}

/* Post a send, or take a message for a receive, when its turn has come. */
static bool p2p_task_move(ncclComm_t c, struct task *t)
{
	size_t bytes = t->count * type_size[t->type];
	struct mbox *m = t->kind == SEND ? mb(c, c->rank, t->peer) : mb(c, t->peer, c->rank);
	uint64_t *n = t->kind == SEND ? &c->sent[t->peer] : &c->got[t->peer];

	if (t->kind == SEND && !t->seq && atomic_load(&m->taken) == *n) {
		m->off = t->off;
		m->bytes = bytes;
		t->seq = ++*n;
		atomic_store(&m->posted, t->seq);
	} else if (t->kind == SEND && t->seq && atomic_load(&m->taken) >= t->seq) {
		t->done = true;
	} else if (t->kind == RECV && atomic_load(&m->posted) > *n) {
		if (m->bytes != bytes)
			c->p2perr = fail(ncclInvalidUsage,
					 "ncclRecv: rank %d receives %zu bytes from rank %d, which "
					 "sent %llu",
					 c->rank, bytes, t->peer, (unsigned long long)m->bytes);
		memcpy(t->recv, slot(c, t->peer) + m->off, bytes < m->bytes ? bytes : m->bytes);
		atomic_store(&m->taken, ++*n);
		t->done = true;
	} else {
		return false;
	}
	return true;
}

/* One move of the run of sends and receives at the head of c's queue. */
static int p2p_move(ncclComm_t c)
{
	struct task *t, *first_recv = NULL;
	bool moved = false, left = false;
	size_t off = 0;
	ncclResult_t r;

	if (c->phase == 0) {
		prelude(c);
		for (t = c->q; t && t->kind >= SEND; t = t->next) {
			size_t bytes = t->count * type_size[t->type];

			if (t->kind == RECV)
				continue;
			if (bytes > c->slot - off)
				return fail(ncclInvalidArgument,
					    "ncclSend: rank %d: the sends of one group exceed the "
					    "slot of %llu bytes (FAKENCCL_SLOT_BYTES)",
					    c->rank, (unsigned long long)c->slot);
			t->off = off;
			memcpy(slot(c, c->rank) + off, t->send, bytes);
			off += bytes;
		}
		c->end = t;
		c->phase = 1;
		c->p2perr = ncclSuccess;
		c->since = now_ns();
		return ncclSuccess;
	}
	for (t = c->q; t != c->end; t = t->next) {
		if (!first_recv && t->kind == RECV)
			first_recv = t;
		if (!t->done)
			moved |= p2p_task_move(c, t);
		left |= !t->done;
	}
	if (moved) {
		c->since = now_ns();
		return ncclSuccess;
	}
	if (left)
		return (r = expired(c, "ncclSend/ncclRecv")) ? (int)r : STEP_WAIT;
	if (first_recv && c->rank == env.wrong_rank)
		corrupt(first_recv->type, first_recv->recv);
	while (c->q != c->end) {
		t = c->q;
		c->q = t->next;
		free(t);
	}
	c->phase = 0;
	return c->p2perr;
}

/* Carry out the operations queued on the group's communicators. */
static ncclResult_t run(void)
{
	ncclResult_t ret = ncclSuccess;

	for (;;) {
		bool moved = false, busy = false;

		for (ncclComm_t c = glist; c; c = c->gnext) {
			int r = ncclSuccess;

			while (c->q && r == ncclSuccess) {
				r = c->q->kind >= SEND ? p2p_move(c) : coll_move(c);
				moved |= r == ncclSuccess;
			}
			if (r != ncclSuccess && r != STEP_WAIT) {
				ret = ret ? ret : (ncclResult_t)r;
				drop(c);
			}
			busy |= c->q != NULL;
		}
		if (!busy)
			return ret;
		if (!moved)
			nap(20000);
	}
}

/* ncclGroupEnd of the outermost group: finish the inits, run the operations. */
static ncclResult_t flush(void)
{
	ncclResult_t ret = group_error, r;
	bool waiting = true, inprogress = false;

	group_error = ncclSuccess;
	while (waiting) {
		waiting = false;
		for (ncclComm_t c = glist; c; c = c->gnext) {
			if (!c->pending)
				continue;
			if (!c->blocking) {
				c->pending = false;
				inprogress = true;
			} else if ((r = poll_join(c)) == ncclInProgress) {
				waiting = true;
			} else {
				c->pending = false;
				ret = ret ? ret : r;
			}
		}
		if (waiting)
			nap(100000);
	}
	for (ncclComm_t c = glist; c; c = c->gnext)
		if (ret || c->err)
			drop(c);
	r = run();
	ret = ret ? ret : r;
	while (glist) {
		glist->ingroup = false;
		glist = glist->gnext;
	}
	return ret ? ret : inprogress ? ncclInProgress : ncclSuccess;
}

/* Check an operation's arguments, then queue it; outside a group, run it. */
static ncclResult_t enqueue(ncclComm_t c, enum kind kind, const void *send, void *recv,
			    size_t count, ncclDataType_t dtype, ncclRedOp_t redop, int peer)
{
	const char *fn = kind_names[kind];
	int type = (int)dtype, op = (int)redop;
	size_t bytes, es = 0, sent;
	struct task *t;
	ncclResult_t r = ncclSuccess;

	if (!alive(c))
		r = fail(ncclInvalidArgument, "%s: %p is not a communicator", fn, (void *)c);
	else if (c->err)
		r = fail(c->err, "%s: rank %d: the communicator failed before", fn, c->rank);
	else if (!c->ready && !(c->pending && c->blocking))
		r = fail(ncclInvalidUsage, "%s: rank %d: init not complete (ncclCommGetAsyncError)",
			 fn, c->rank);
	else if (type < 0 || type >= NTYPES)
		r = fail(ncclInvalidArgument, "%s: invalid data type %d", fn, type);
	else if ((kind == ALLREDUCE || kind == REDUCE || kind == REDUCESCATTER) &&
		 (op < 0 || op > ncclAvg))
		r = fail(ncclInvalidArgument, "%s: invalid reduction operation %d", fn, op);
	else if ((kind == BROADCAST || kind == REDUCE || kind >= SEND) &&
		 (peer < 0 || peer >= c->nranks))
		r = fail(ncclInvalidArgument, "%s: %s %d out of range (%d ranks)", fn,
			 kind >= SEND ? "peer" : "root", peer, c->nranks);
	else if (count && (__builtin_mul_overflow(count, type_size[type], &es) ||
			   __builtin_mul_overflow(es, (size_t)c->nranks, &bytes) ||
			   (kind == REDUCESCATTER ? bytes : es) > c->slot))
		r = fail(ncclInvalidArgument,
			 "%s: rank %d: a message of %zu elements is larger than the slot of %llu "
			 "bytes (FAKENCCL_SLOT_BYTES)",
			 fn, c->rank, count, (unsigned long long)c->slot);
	else if (count && !send && kind != RECV && (kind != BROADCAST || c->rank == peer))
		r = fail(ncclInvalidArgument, "%s: rank %d: send buffer is NULL", fn, c->rank);
	else if (count && !recv && kind != SEND && (kind != REDUCE || c->rank == peer))
		r = fail(ncclInvalidArgument, "%s: rank %d: receive buffer is NULL", fn, c->rank);
	else if (count && kind == SEND && es > c->slot - (c->q ? c->qsend : 0))
		r = fail(ncclInvalidArgument,
			 "ncclSend: rank %d: the sends of one group exceed the slot of %llu bytes "
			 "(FAKENCCL_SLOT_BYTES)",
			 c->rank, (unsigned long long)c->slot);
	if (r != ncclSuccess || !count) {
		group_error = depth && !group_error ? r : group_error;
		return r;
	}
	if (!(t = calloc(1, sizeof(*t))))
		return fail(ncclSystemError, "%s: out of memory", fn);
	*t = (struct task){ .kind = kind,
			    .type = type,
			    .op = op,
			    .peer = peer,
			    .send = send,
			    .recv = recv,
			    .count = count };
	sent = c->q ? c->qsend : 0;
	if (c->q)
		c->qtail->next = t;
	else
		c->q = t;
	c->qtail = t;
	c->qsend = kind == SEND ? sent + es : kind == RECV ? sent : 0;
	if (!c->ingroup) {
		c->ingroup = true;
		c->gnext = glist;
		glist = c;
	}
	return depth ? ncclSuccess : flush();
}

ncclResult_t ncclGetVersion(int *version)
{
	ENTER();
	if (!version)
		return fail(ncclInvalidArgument, "ncclGetVersion: version is NULL");
	*version = 22304;
	return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r)
{
	static const char *const s[] = {
		"no error",
		"unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
		"unhandled system error (run with NCCL_DEBUG=INFO for details)",
		"internal error - please report this issue to the NCCL developers",
		"invalid argument (run with NCCL_DEBUG=WARN for details)",
		"invalid usage (run with NCCL_DEBUG=WARN for details)",
		"remote process exited or there was a network error",
		"NCCL operation in progress",
	};

	return (unsigned)r < sizeof(s) / sizeof(s[0]) ? s[r] : "unknown result code";
}

const char *ncclGetLastError(ncclComm_t comm)
{
	(void)comm;
	return last_error;
}

/* A unique id: ID_MAGIC, then the object's name "/fakenccl-PID-COUNTER-RANDOM". */
static void make_id(ncclUniqueId *id)
{
	static atomic_uint counter;
	uint32_t magic = ID_MAGIC;
	uint64_t x = (uint64_t)now_ns() ^ (uint64_t)getpid() << 32;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, &magic, sizeof(magic));
	snprintf(id->internal + 4, 64, "%s%ld-%u-%08x", ID_PREFIX, (long)getpid(),
		 atomic_fetch_add(&counter, 1), (unsigned)(x ^ (x >> 31)));
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	ENTER();
	if (!id)
		return fail(ncclInvalidArgument, "ncclGetUniqueId: id is NULL");
	make_id(id);
	return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
	ENTER();
	return init(comm, nranks, &id, rank, 0, true, __func__);
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
				    ncclConfig_t *config)
{
	ENTER();
	if (config && (config->size < offsetof(ncclConfig_t, blocking) + sizeof(int) ||
		       config->magic != CONFIG_MAGIC))
		return fail(ncclInvalidArgument, "%s: config not of NCCL_CONFIG_INITIALIZER",
			    __func__);
	return init(comm, nranks, &id, rank, 0, !config || config->blocking != 0, __func__);
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
	ncclUniqueId id;
	ncclResult_t r = ncclSuccess;
	int i;

	ENTER();
	if (!comms || ndev < 1)
		return fail(ncclInvalidArgument, "%s: comms NULL or ndev %d", __func__, ndev);
	for (i = 0; devlist && i < ndev; i++)
		if (devlist[i] < 0)
			return fail(ncclInvalidArgument, "%s: device %d", __func__, devlist[i]);
	make_id(&id);
	depth++;
	for (i = 0; i < ndev && r == ncclSuccess; i++)
		r = init(&comms[i], ndev, &id, i, devlist ? devlist[i] : i, true, __func__);
	depth--;
	if (r != ncclSuccess) {
		while (i-- > 0)
			if (comms[i]) {
				destroy(comms[i]);
				comms[i] = NULL;
			}
		return r;
	}
	return depth ? ncclSuccess : flush();
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *async)
{
	ncclResult_t r;

	ENTER();
	if (!alive(comm) || !async)
		return fail(ncclInvalidArgument, "%s: bad comm or NULL result", __func__);
	r = poll_join(comm);
	*async = r;
	return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
	ENTER();
	if (!alive(comm))
		return fail(ncclInvalidArgument, "%s: %p is not a communicator", __func__,
			    (void *)comm);
	return ncclSuccess;
}

/* ncclCommDestroy and ncclCommAbort: here they do the same. */
static ncclResult_t end_comm(ncclComm_t comm, const char *fn)
{
	if (!comm)
		return ncclSuccess;
	if (!alive(comm))
		return fail(ncclInvalidArgument, "%s: %p is not a communicator", fn, (void *)comm);
	destroy(comm);
	return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	ENTER();
	return end_comm(comm, __func__);
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
	ENTER();
	return end_comm(comm, __func__);
}

/* ncclCommCount, ncclCommUserRank, ncclCommCuDevice. */
static ncclResult_t query(ncclComm_t comm, int *out, int v, const char *fn)
{
	if (!alive(comm) || !out)
		return fail(ncclInvalidArgument, "%s: bad comm or NULL result", fn);
	*out = v;
	return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
	ENTER();
	return query(comm, count, alive(comm) ? comm->nranks : 0, __func__);
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
	ENTER();
	return query(comm, rank, alive(comm) ? comm->rank : 0, __func__);
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
	ENTER();
	return query(comm, device, alive(comm) ? comm->dev : 0, __func__);
}

ncclResult_t ncclGroupStart(void)
{
	ENTER();
	depth++;
	return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
	ENTER();
	if (depth == 0)
		return fail(ncclInvalidUsage, "ncclGroupEnd: no ncclGroupStart");
	return --depth ? ncclSuccess : flush();
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
			   ncclRedOp_t op, ncclComm_t comm, void *stream)
{
	(void)stream;
	ENTER();
	return enqueue(comm, ALLREDUCE, send, recv, count, type, op, 0);
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t type,
			   int root, ncclComm_t comm, void *stream)
{
	(void)stream;
	ENTER();
	return enqueue(comm, BROADCAST, send, recv, count, type, ncclSum, root);
}

ncclResult_t ncclReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
			ncclRedOp_t op, int root, ncclComm_t comm, void *stream)
{
	(void)stream;
	ENTER();
	return enqueue(comm, REDUCE, send, recv, count, type, op, root);
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t sendcount, ncclDataType_t type,
			   ncclComm_t comm, void *stream)
{
	(void)stream;
	ENTER();
	return enqueue(comm, ALLGATHER, send, recv, sendcount, type, ncclSum, 0);
}

ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t recvcount, ncclDataType_t type,
			       ncclRedOp_t op, ncclComm_t comm, void *stream)
{
	(void)stream;
	ENTER();
	return enqueue(comm, REDUCESCATTER, send, recv, recvcount, type, op, 0);
}

ncclResult_t ncclSend(const void *send, size_t count, ncclDataType_t type, int peer,
		      ncclComm_t comm, void *stream)
{
	(void)stream;
	ENTER();
	return enqueue(comm, SEND, send, NULL, count, type, ncclSum, peer);
}

ncclResult_t ncclRecv(void *recv, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
		      void *stream)
{
	(void)stream;
	ENTER();
	return enqueue(comm, RECV, NULL, recv, count, type, ncclSum, peer);
}
