/* Measuring memory: for each (initiator, target) pair, threads pinned to
 * the initiator's CPUs over buffers bound to the target (mbind, strict),
 * each measurement a window of params.time_s in which every thread counts
 * what it moved, chunk by chunk. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "probes/core/clock.h"
#include "probes/host/sysfs.h"
#include "probes/mem/kern.h"
#include "probes/mem/mem.h"

#define HUGE_ALIGN    (2u << 20)
#define CHUNK         (1u << 20) /* bytes between looks at the stop flag */
#define CHASE_CHUNK   16384u     /* loads between looks at the stop flag */
#define PLACE_SAMPLES 4096u      /* pages move_pages is asked about */
#define MAX_CPUS      1024
#define FREE_MARGIN   (64ull << 20) /* left free on a node, at least */

/* Loaded latency: the loaders' wait after each line, in ns (pauses as many
 * as take that long here), heaviest load last. */
static const uint32_t delays_ns[IX_MEM_CURVE_MAX - 1] = { 10000, 3000, 1000, 500, 250,
							  100,   50,   20,   0 };

enum op { OP_TOUCH, OP_READ, OP_WRITE, OP_NTWRITE, OP_COPY, OP_LOAD, OP_CHASE };

struct worker {
	pthread_t th;
	int cpu;
	enum op op;
	uint32_t delay;
	char *buf;
	size_t len;
	void *chase; /* OP_CHASE: where the walk goes on */
	atomic_int *go, *stop;
	uint64_t done; /* bytes, or loads for OP_CHASE */
	int64_t t0, t1;
	uint64_t sink;
	bool pinned;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	size_t off = 0;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	w->pinned = pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
	while (!atomic_load(w->go))
		sched_yield();
	w->t0 = ix_now_ns();
	if (w->op == OP_TOUCH) {
		ix_mem_write_pass(w->buf, w->len, 0);
		w->done = w->len;
	}
	while (w->op != OP_TOUCH && !atomic_load_explicit(w->stop, memory_order_relaxed)) {
		size_t n = w->len - off < CHUNK ? w->len - off : CHUNK;
		char *p = w->buf + off;

		switch (w->op) {
		case OP_READ:
			w->sink ^= ix_mem_read_pass(p, n);
			break;
		case OP_WRITE:
			ix_mem_write_pass(p, n, w->done);
			break;
		case OP_NTWRITE:
			ix_mem_ntwrite_pass(p, n, w->done);
			break;
		case OP_COPY: /* the first half into the second, streaming stores */
			n = w->len / 2 - off < CHUNK ? w->len / 2 - off : CHUNK;
			ix_mem_copy_pass(w->buf + w->len / 2 + off, w->buf + off, n);
			break;
		case OP_LOAD:
			w->sink ^= ix_mem_read_delayed(p, n, w->delay);
			break;
		case OP_CHASE:
			w->chase = ix_mem_chase(w->chase, CHASE_CHUNK);
			w->done += CHASE_CHUNK;
			continue;
		case OP_TOUCH:
			break;
		}
		w->done += n;
		off += n;
		if (off >= (w->op == OP_COPY ? w->len / 2 : w->len))
			off = 0;
	}
	w->t1 = ix_now_ns();
	return NULL;
}

/* Start n workers at once, stop them after seconds (or at once for
 * OP_TOUCH, which ends by itself); false when a thread could not start. */
static bool run_workers(struct worker *w, uint32_t n, double seconds, atomic_int *outer)
{
	atomic_int go, stop;
	uint32_t started = 0;

	atomic_init(&go, 0);
	atomic_init(&stop, 0);
	for (uint32_t i = 0; i < n; i++) {
		w[i].go = &go;
		w[i].stop = &stop;
		w[i].done = 0;
		w[i].t0 = w[i].t1 = 0;
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]) != 0)
			break;
		started++;
	}
	if (started < n)
		atomic_store(&stop, 1); /* the started ones end at once */
	atomic_store(&go, 1);
	if (started == n && w[0].op != OP_TOUCH) {
		int64_t end = ix_now_ns() + ix_seconds_to_ns(seconds);

		while (ix_now_ns() < end && !(outer && atomic_load(outer))) {
			struct timespec ts = { 0, 10 * 1000000L };
			nanosleep(&ts, NULL);
		}
		atomic_store(&stop, 1);
	}
	for (uint32_t i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	return started == n;
}

/* Bytes/s of the workers together: each its own window. */
static double rate(const struct worker *w, uint32_t n)
{
	double sum = 0;

	for (uint32_t i = 0; i < n; i++)
		if (w[i].t1 > w[i].t0)
			sum += (double)w[i].done * 1e9 / (double)(w[i].t1 - w[i].t0);
	return sum;
}

/* An anonymous mapping aligned to huge pages, bound to node before its
 * first touch; NULL with why. */
static char *node_alloc(size_t len, int node, bool huge, bool no_huge, char *why, size_t wl)
{
	unsigned long mask[(IX_MEM_MAX_NODES + 63) / 64 + 1] = { 0 };
	size_t map = len + HUGE_ALIGN;
	char *p = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED) {
		snprintf(why, wl, "cannot map %zu MiB: %s", len >> 20, strerror(errno));
		return NULL;
	}
	a = (char *)(((uintptr_t)p + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (a + len < p + map)
		munmap(a + len, (size_t)(p + map - (a + len)));
	if (huge)
		madvise(a, len, MADV_HUGEPAGE);
	else if (no_huge)
		madvise(a, len, MADV_NOHUGEPAGE);
	mask[node / 64] |= 1ul << (node % 64);
	if (mbind(a, len, MPOL_BIND, mask, IX_MEM_MAX_NODES + 1, MPOL_MF_STRICT | MPOL_MF_MOVE) <
	    0) {
		snprintf(why, wl, "cannot bind memory to node %d (mbind: %s)", node,
			 strerror(errno));
		munmap(a, len);
		return NULL;
	}
	return a;
}

/* The share of buf's pages the kernel says are on node (sampled). */
static double placed_on(const char *buf, size_t len, int node)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = len / (size_t)page, n = pages < PLACE_SAMPLES ? pages : PLACE_SAMPLES;
	void *addr[PLACE_SAMPLES];
	int status[PLACE_SAMPLES];
	size_t on = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		addr[i] = (void *)(buf + (i * pages / n) * (size_t)page);
	if (move_pages(0, n, addr, NULL, status, 0) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		on += status[i] == node;
	return (double)on / (double)n;
}

/* Bytes of [buf, buf+len) in transparent huge pages, from smaps. */
static uint64_t huge_bytes(const char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	bool in = false;
	uint64_t sum = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, kb;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = lo < (uintptr_t)buf + len && hi > (uintptr_t)buf;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			sum += (uint64_t)kb * 1024;
	}
	fclose(f);
	return sum;
}

static void thp_mode(char *out, size_t len)
{
	char line[128], *a, *b;

	out[0] = '\0';
	if (ix_sysfs_read("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof(line)) < 0)
		return;
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b && (size_t)(b - a) < len)
		snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
}

/* The largest cache any CPU has (cpu0's levels). */
static uint64_t llc_bytes(const char *root)
{
	uint64_t best = 0;

	for (int i = 0; i < 8; i++) {
		char rel[96], path[PATH_MAX], v[32], *end;
		unsigned long long n;

		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (!ix_sysfs_path(path, sizeof(path), root, rel) ||
		    ix_sysfs_read(path, v, sizeof(v)) < 0)
			continue;
		n = strtoull(v, &end, 10);
		n *= *end == 'K' ? 1024ull : *end == 'M' ? 1024ull * 1024 : 1;
		if (n > best)
			best = n;
	}
	return best;
}

struct cell_ctx {
	const struct ix_mem_params *p;
	struct ix_mem_result *r;
	struct ix_mem_cell *c;
	int cpus[MAX_CPUS];
	uint32_t ncpus;
	struct worker *w;
	atomic_int *stop;
};

/* The initiator's CPUs this process may run on. */
static uint32_t usable_cpus(const struct ix_mem_node *n, int *out)
{
	cpu_set_t mine;
	int all[MAX_CPUS];
	int k = ix_mem_cpulist(n->cpus, all, MAX_CPUS);
	uint32_t m = 0;

	if (k <= 0 || sched_getaffinity(0, sizeof(mine), &mine) < 0)
		return 0;
	for (int i = 0; i < k; i++)
		if (all[i] < CPU_SETSIZE && CPU_ISSET(all[i], &mine))
			out[m++] = all[i];
	return m;
}

static void bandwidth(struct cell_ctx *x)
{
	static const enum op ops[IX_MEM_NKINDS] = { OP_READ, OP_WRITE, OP_NTWRITE, OP_COPY };
	struct ix_mem_cell *c = x->c;

	for (int k = 0; k < IX_MEM_NKINDS; k++) {
		if (!(x->p->tests & (1u << k)) || (k == IX_MEM_NTWRITE && !x->r->nt_stores) ||
		    (x->stop && atomic_load(x->stop)))
			continue;
		for (uint32_t i = 0; i < c->threads; i++)
			x->w[i].op = ops[k];
		if (run_workers(x->w, c->threads, x->p->time_s, x->stop))
			c->bw[k] = rate(x->w, c->threads);
	}
}

/* The chase alone, then under loaders at each delay. */
static void latency(struct cell_ctx *x, struct worker *chaser)
{
	struct ix_mem_cell *c = x->c;
	uint32_t loaders = c->threads > 1 ? c->threads - 1 : 0;
	struct worker keep;

	chaser->op = OP_CHASE;
	if (!run_workers(chaser, 1, x->p->time_s, x->stop) || !chaser->done)
		return;
	c->lat_ns = (double)(chaser->t1 - chaser->t0) / (double)chaser->done;
	if (!(x->p->tests & IX_MEM_T_LOADED))
		return;
	if (!loaders) {
		snprintf(c->why, sizeof(c->why),
			 "loaded latency: one CPU on node %d, none left to load its memory",
			 c->initiator);
		return;
	}
	c->curve[c->ncurve++] = (struct ix_mem_point){ .lat_ns = c->lat_ns };
	keep = x->w[0];
	for (uint32_t d = 0; d < IX_MEM_CURVE_MAX - 1 && !(x->stop && atomic_load(x->stop)); d++) {
		/* Workers 1.. load; worker 0's place (its CPU) is the chase's. */
		struct worker *w = x->w;

		w[0] = *chaser;
		for (uint32_t i = 1; i <= loaders; i++) {
			w[i].op = OP_LOAD;
			w[i].delay = (uint32_t)(delays_ns[d] / ix_mem_pause_ns() + 0.5);
		}
		if (!run_workers(w, loaders + 1, x->p->time_s, x->stop) || !w[0].done)
			break;
		chaser->chase = w[0].chase;
		c->curve[c->ncurve++] = (struct ix_mem_point){
			.delay_ns = delays_ns[d],
			.load_Bps = rate(w + 1, loaders),
			.lat_ns = (double)(w[0].t1 - w[0].t0) / (double)w[0].done,
		};
	}
	x->w[0] = keep;
}

static void measure_cell(struct cell_ctx *x)
{
	const struct ix_mem_params *p = x->p;
	struct ix_mem_cell *c = x->c;
	const struct ix_mem_node *t = ix_mem_node(x->r, c->target);
	uint64_t need = (uint64_t)c->threads * c->buf_bytes + c->lat_bytes;
	bool want_bw =
		p->tests & (IX_MEM_T_READ | IX_MEM_T_WRITE | IX_MEM_T_NTWRITE | IX_MEM_T_COPY);
	bool want_lat = p->tests & (IX_MEM_T_LATENCY | IX_MEM_T_LOADED);
	struct worker chaser = { .cpu = x->cpus[0] };
	uint32_t made = 0;

	if (t && t->mem_known && t->free_bytes < need + FREE_MARGIN) {
		snprintf(c->why, sizeof(c->why),
			 "node %d has %llu MiB free; the test needs %llu MiB and leaves %llu",
			 t->id, (unsigned long long)(t->free_bytes >> 20),
			 (unsigned long long)(need >> 20), (unsigned long long)(FREE_MARGIN >> 20));
		return;
	}
	for (; made < c->threads; made++) {
		x->w[made] =
			(struct worker){ .cpu = x->cpus[made % x->ncpus], .len = c->buf_bytes };
		x->w[made].buf =
			node_alloc(c->buf_bytes, c->target, true, false, c->why, sizeof(c->why));
		if (!x->w[made].buf)
			goto out;
		x->w[made].op = OP_TOUCH;
	}
	if (!run_workers(x->w, c->threads, 0, NULL)) {
		snprintf(c->why, sizeof(c->why), "cannot start %u threads", c->threads);
		goto out;
	}
	for (uint32_t i = 0; i < c->threads; i++)
		if (!x->w[i].pinned) {
			snprintf(c->why, sizeof(c->why),
				 "thread %u could not be pinned to CPU %d: the figures are of "
				 "wherever the scheduler ran it",
				 i, x->w[i].cpu);
			break;
		}
	c->placed = placed_on(x->w[0].buf, c->buf_bytes, c->target);
	c->measured = true;
	if (want_bw)
		bandwidth(x);
	if (want_lat) {
		chaser.len = c->lat_bytes;
		chaser.buf = node_alloc(c->lat_bytes, c->target, !p->no_huge, p->no_huge, c->why,
					sizeof(c->why));
		if (chaser.buf) {
			chaser.chase = ix_mem_chase_build(chaser.buf, c->lat_bytes,
							  (uint64_t)c->target * 7919 + 1);
			c->pages.page_bytes = (uint64_t)sysconf(_SC_PAGESIZE);
			c->pages.huge_asked = !p->no_huge;
			c->pages.huge_bytes = huge_bytes(chaser.buf, c->lat_bytes);
			thp_mode(c->pages.thp, sizeof(c->pages.thp));
			latency(x, &chaser);
			munmap(chaser.buf, c->lat_bytes);
		}
	}
out:
	for (uint32_t i = 0; i < made; i++)
		if (x->w[i].buf)
			munmap(x->w[i].buf, c->buf_bytes);
}

/* Buffer sizes: each thread's at least twice the largest cache (and 64
 * MiB), the chase's at least eight times it (and 256 MiB), unless set. */
static void sizes(const struct ix_mem_params *p, uint64_t llc, uint64_t *buf, uint64_t *lat)
{
	uint64_t b = p->buf_bytes, l = p->lat_bytes;

	if (!b)
		b = 2 * llc > (64ull << 20) ? 2 * llc : 64ull << 20;
	if (!l)
		l = 8 * llc > (256ull << 20) ? 8 * llc : 256ull << 20;
	*buf = (b + 2 * CHUNK - 1) / (2 * CHUNK) * (2 * CHUNK);
	*lat = (l + IX_MEM_LINE - 1) / IX_MEM_LINE * IX_MEM_LINE;
}

int ix_mem_run(const struct ix_mem_params *p, struct ix_mem_result *r, atomic_int *stop,
	       struct ix_err *err)
{
	uint64_t buf, lat;
	struct cell_ctx x = { .p = p, .r = r, .stop = stop };

	memset(r, 0, sizeof(*r));
	r->params = *p;
	snprintf(r->sysfs, sizeof(r->sysfs), "%s", p->sysfs ? p->sysfs : "");
	r->params.sysfs = r->sysfs;
	if (ix_mem_nodes(r->sysfs, r, err) < 0)
		return -1;
	r->llc_bytes = llc_bytes(r->sysfs);
	r->nt_stores = ix_mem_have_nt();
	sizes(p, r->llc_bytes, &buf, &lat);
	r->cells = calloc((size_t)r->nnodes * r->nnodes, sizeof(*r->cells));
	x.w = calloc(MAX_CPUS, sizeof(*x.w));
	if (!r->cells || !x.w) {
		free(x.w);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	for (uint32_t i = 0; i < r->nnodes; i++) {
		const struct ix_mem_node *in = &r->nodes[i];

		if (!in->ncpus || (p->initiators && !(p->initiators >> in->id & 1)))
			continue;
		x.ncpus = usable_cpus(in, x.cpus);
		for (uint32_t j = 0; j < r->nnodes; j++) {
			const struct ix_mem_node *tg = &r->nodes[j];
			struct ix_mem_cell *c;

			if ((p->targets && !(p->targets >> tg->id & 1)) ||
			    (tg->mem_known && !tg->mem_bytes))
				continue;
			c = x.c = &r->cells[r->ncells++];
			c->initiator = in->id;
			c->target = tg->id;
			c->lat_ns = c->placed = -1;
			for (int k = 0; k < IX_MEM_NKINDS; k++)
				c->bw[k] = -1;
			c->buf_bytes = buf;
			c->lat_bytes = lat;
			if (!x.ncpus) {
				snprintf(c->why, sizeof(c->why),
					 "none of node %d's CPUs (%s) is one this process may run "
					 "on",
					 in->id, in->cpus);
				continue;
			}
			c->threads = p->threads ? p->threads : x.ncpus;
			if (c->threads > MAX_CPUS)
				c->threads = MAX_CPUS;
			if (!(stop && atomic_load(stop)))
				measure_cell(&x);
		}
	}
	free(x.w);
	r->complete = !(stop && atomic_load(stop));
	if (!r->complete)
		snprintf(r->error, sizeof(r->error),
			 "interrupted: the cells not reached are empty");
	ix_mem_compare(r);
	return 0;
}

void ix_mem_result_free(struct ix_mem_result *r)
{
	free(r->cells);
	r->cells = NULL;
	r->ncells = 0;
}
