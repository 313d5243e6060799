/* The GPU test plan (probes/gpu/bench.h): the tests, the inventory with
 * the PCIe links from sysfs, and each test's copies and chases over the
 * backend interface. The IPC test's second process is at the end. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probes/gpu/bench.h"

/* clang-format off */
#define PIN IX_GPU_MEM_PINNED
#define PAG IX_GPU_MEM_PAGEABLE
#define DEV IX_GPU_MEM_DEVICE
#define CE  IX_GPU_CE
#define SM  IX_GPU_SM
/* name, kind, engine, host memory, to (host -> GPU, all_to_one), read, bidirectional */
static const struct ix_gpu_test tests[] = {
	{ "host_to_device_memcpy_ce", IX_GPU_T_HOST, CE, PIN, 1, 0, 0 },
	{ "device_to_host_memcpy_ce", IX_GPU_T_HOST, CE, PIN, 0, 0, 0 },
	{ "host_to_device_bidirectional_memcpy_ce", IX_GPU_T_HOST, CE, PIN, 1, 0, 1 },
	{ "device_to_host_bidirectional_memcpy_ce", IX_GPU_T_HOST, CE, PIN, 0, 0, 1 },
	{ "host_to_device_pageable_memcpy_ce", IX_GPU_T_HOST, CE, PAG, 1, 0, 0 },
	{ "device_to_host_pageable_memcpy_ce", IX_GPU_T_HOST, CE, PAG, 0, 0, 0 },
	{ "host_to_all_memcpy_ce", IX_GPU_T_HOST_ALL, CE, PIN, 1, 0, 0 },
	{ "all_to_host_memcpy_ce", IX_GPU_T_HOST_ALL, CE, PIN, 0, 0, 0 },
	{ "host_to_all_bidirectional_memcpy_ce", IX_GPU_T_HOST_ALL, CE, PIN, 1, 0, 1 },
	{ "all_to_host_bidirectional_memcpy_ce", IX_GPU_T_HOST_ALL, CE, PIN, 0, 0, 1 },
	{ "host_to_device_memcpy_sm", IX_GPU_T_HOST, SM, PIN, 1, 0, 0 },
	{ "device_to_host_memcpy_sm", IX_GPU_T_HOST, SM, PIN, 0, 0, 0 },
	{ "host_to_all_memcpy_sm", IX_GPU_T_HOST_ALL, SM, PIN, 1, 0, 0 },
	{ "all_to_host_memcpy_sm", IX_GPU_T_HOST_ALL, SM, PIN, 0, 0, 0 },
	{ "host_to_all_bidirectional_memcpy_sm", IX_GPU_T_HOST_ALL, SM, PIN, 1, 0, 1 },
	{ "all_to_host_bidirectional_memcpy_sm", IX_GPU_T_HOST_ALL, SM, PIN, 0, 0, 1 },
	{ "device_local_copy", IX_GPU_T_LOCAL, CE, DEV, 0, 0, 0 },
	{ "device_to_device_memcpy_read_ce", IX_GPU_T_PEER, CE, DEV, 0, 1, 0 },
	{ "device_to_device_memcpy_write_ce", IX_GPU_T_PEER, CE, DEV, 0, 0, 0 },
	{ "device_to_device_bidirectional_memcpy_read_ce", IX_GPU_T_PEER, CE, DEV, 0, 1, 1 },
	{ "device_to_device_bidirectional_memcpy_write_ce", IX_GPU_T_PEER, CE, DEV, 0, 0, 1 },
	{ "device_to_device_memcpy_read_sm", IX_GPU_T_PEER, SM, DEV, 0, 1, 0 },
	{ "device_to_device_memcpy_write_sm", IX_GPU_T_PEER, SM, DEV, 0, 0, 0 },
	{ "device_to_device_bidirectional_memcpy_read_sm", IX_GPU_T_PEER, SM, DEV, 0, 1, 1 },
	{ "device_to_device_bidirectional_memcpy_write_sm", IX_GPU_T_PEER, SM, DEV, 0, 0, 1 },
	{ "all_to_one_write_ce", IX_GPU_T_AGG, CE, DEV, 1, 0, 0 },
	{ "all_to_one_read_ce", IX_GPU_T_AGG, CE, DEV, 1, 1, 0 },
	{ "one_to_all_write_ce", IX_GPU_T_AGG, CE, DEV, 0, 0, 0 },
	{ "one_to_all_read_ce", IX_GPU_T_AGG, CE, DEV, 0, 1, 0 },
	{ "all_to_one_write_sm", IX_GPU_T_AGG, SM, DEV, 1, 0, 0 },
	{ "all_to_one_read_sm", IX_GPU_T_AGG, SM, DEV, 1, 1, 0 },
	{ "one_to_all_write_sm", IX_GPU_T_AGG, SM, DEV, 0, 0, 0 },
	{ "one_to_all_read_sm", IX_GPU_T_AGG, SM, DEV, 0, 1, 0 },
	{ "device_to_device_through_host_memcpy_ce", IX_GPU_T_STAGED, CE, DEV, 0, 1, 0 },
	{ "ipc_memcpy_ce", IX_GPU_T_IPC, CE, DEV, 0, 1, 0 },
	{ "host_device_latency_sm", IX_GPU_T_LAT_HOST, SM, PIN, 1, 1, 0 },
	{ "device_to_device_latency_sm", IX_GPU_T_LAT_PEER, SM, DEV, 0, 1, 0 },
};
/* clang-format on */
#define NTESTS (sizeof(tests) / sizeof(tests[0]))
_Static_assert(NTESTS <= IX_GPU_MAX_TESTS, "raise IX_GPU_MAX_TESTS");

size_t ix_gpu_tests(const struct ix_gpu_test **v)
{
	*v = tests;
	return NTESTS;
}

int ix_gpu_test_find(const char *name)
{
	for (size_t i = 0; i < NTESTS; i++)
		if (strcmp(tests[i].name, name) == 0)
			return (int)i;
	return -1;
}

void ix_gpu_params_default(struct ix_gpu_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < NTESTS; i++)
		p->tests[i] = true;
	p->size = IX_GPU_DEFAULT_SIZE;
	p->iterations = IX_GPU_DEFAULT_ITERATIONS;
	p->samples = IX_GPU_DEFAULT_SAMPLES;
	p->warmup = IX_GPU_DEFAULT_WARMUP;
	p->hops = IX_GPU_DEFAULT_HOPS;
	p->stride = IX_GPU_DEFAULT_STRIDE;
	p->ipc_timeout_s = 120;
}

__attribute__((format(printf, 2, 3))) static void note(struct ix_gpu_result *r, const char *fmt,
						       ...)
{
	va_list ap;

	if (r->nnotes >= IX_GPU_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nnotes++], sizeof(r->notes[0]), fmt, ap);
	va_end(ap);
}

/* The GPU's PCI function in sysfs: its link and NUMA node. */
static void join_pci(struct ix_gpu_result *r, const struct ix_pci *pci, struct ix_gpu_dev *d)
{
	char bdf[sizeof(d->info.pci_bus_id)];
	size_t n = 0;
	int k;
	double bps;

	for (; d->info.pci_bus_id[n] && n + 1 < sizeof(bdf); n++)
		bdf[n] = (char)tolower((unsigned char)d->info.pci_bus_id[n]);
	bdf[n] = '\0';
	if (!n) {
		note(r, "GPU%d: the backend gave no PCI bus id: its PCIe link is unknown",
		     d->info.index);
		return;
	}
	k = ix_pci_find(pci, bdf); /* "00000000:18:00.0" too: domains compare by number */
	if (k < 0) {
		note(r, "GPU%d: %s is not in sysfs: its PCIe link is unknown", d->info.index, bdf);
		return;
	}
	d->pci_found = true;
	d->link = pci->v[k].link;
	if (d->info.numa_node < 0)
		d->info.numa_node = pci->v[k].numa_node;
	bps = d->link.expected_bps > 0 ? d->link.expected_bps : d->link.bps;
	if (d->link.present && bps > 0)
		d->link_Bps = ix_f64(bps / 8);
}

int ix_gpu_inventory(const struct ix_gpu_ctx *c, const char *root, uint64_t gpus,
		     struct ix_gpu_result *r, struct ix_err *err)
{
	struct ix_err perr = { 0 };
	struct ix_pci pci;
	bool have_pci;

	memset(r, 0, sizeof(*r));
	r->backend = c->info;
	r->ndevices = c->ndevices;
	r->complete = true;
	if (c->ndevices <= 0)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "the %s backend found no GPU",
			       c->info.name ? c->info.name : "GPU");
	for (int i = c->ndevices; i < IX_GPU_MAX_DEVICES; i++)
		if (gpus >> i & 1)
			return ix_fail(err, IX_EXIT_USAGE,
				       "GPU %d does not exist (this machine has GPU 0 to %d)", i,
				       c->ndevices - 1);
	have_pci = ix_pci_read(root ? root : "", &pci, &perr) == 0;
	if (!have_pci)
		note(r, "PCIe links unknown: %s", perr.msg);
	for (int i = 0; i < c->ndevices; i++) {
		r->dev[i].info = c->dev[i];
		r->dev[i].selected = !gpus || (gpus >> i & 1);
		if (have_pci)
			join_pci(r, &pci, &r->dev[i]);
	}
	if (have_pci)
		ix_pci_free(&pci);
	for (int i = 0; i < c->ndevices; i++)
		for (int j = 0; j < c->ndevices; j++) {
			struct ix_err e = { 0 };
			bool yes = false;

			if (i != j && c->be->can_access_peer &&
			    c->be->can_access_peer(c->g, i, j, &yes, &e) == 0)
				r->peer[i][j] = yes ? IX_GPU_PEER_YES : IX_GPU_PEER_NO;
		}
	return 0;
}

void ix_gpu_result_free(struct ix_gpu_result *r)
{
	for (size_t i = 0; r->meas && i < r->nmeas; i++)
		free(r->meas[i].cells);
	free(r->meas);
	r->meas = NULL;
	r->nmeas = 0;
}

/* ---- Running the tests ---- */

struct bench {
	struct ix_gpu_ctx *c;
	const struct ix_gpu_backend *be;
	const struct ix_gpu_params *p;
	struct ix_gpu_result *r;
	int dev[IX_GPU_MAX_DEVICES], n; /* the selected devices */
	bool peer_on[IX_GPU_MAX_DEVICES][IX_GPU_MAX_DEVICES];
	double *v; /* one value per sample */
	int ipc_fd;
};

typedef int (*cell_fn)(struct bench *b, struct ix_gpu_meas *m, int src, int dst,
		       struct ix_gpu_cell *cell, struct ix_err *err);

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median, lowest and highest of the samples in b->v. */
static void cell_stats(struct bench *b, struct ix_gpu_cell *cell)
{
	uint32_t n = b->p->samples;

	qsort(b->v, n, sizeof(*b->v), dbl_cmp);
	cell->min = ix_f64(b->v[0]);
	cell->max = ix_f64(b->v[n - 1]);
	cell->value = ix_f64(n % 2 ? b->v[n / 2] : (b->v[n / 2 - 1] + b->v[n / 2]) / 2);
	cell->state = IX_GPU_CELL_OK;
}

static bool can(const struct bench *b, int from, int to)
{
	return from == to || (b->be->set_peer && b->r->peer[from][to] == IX_GPU_PEER_YES);
}

static int peer_set(struct bench *b, int from, int to, bool on, struct ix_err *err)
{
	if (from == to || b->peer_on[from][to] == on)
		return 0;
	if (b->be->set_peer(b->c->g, from, to, on, err) < 0)
		return ix_fail_prefix(err, "GPU%d %s peer access to GPU%d", from,
				      on ? "enabling" : "disabling", to);
	b->peer_on[from][to] = on;
	return 0;
}

static int buf_new(struct bench *b, enum ix_gpu_mem mem, int dev, uint64_t size,
		   struct ix_gpu_buf *out, struct ix_err *err)
{
	memset(out, 0, sizeof(*out));
	if (b->be->alloc(b->c->g, mem, mem == IX_GPU_MEM_DEVICE ? dev : -1, (size_t)size, out,
			 err) < 0)
		return ix_fail_prefix(err, "%llu bytes of %s memory%s", (unsigned long long)size,
				      ix_gpu_mem_name(mem),
				      mem == IX_GPU_MEM_DEVICE ? " on a GPU" : "");
	out->size = (size_t)size;
	if (b->be->fill(b->c->g, out, (uint8_t)(0x5a + dev), err) < 0) {
		b->be->free(b->c->g, out);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return 0;
}

static void buf_free(struct bench *b, struct ix_gpu_buf *buf)
{
	if (buf->size)
		b->be->free(b->c->g, buf);
	memset(buf, 0, sizeof(*buf));
}

/* Time n copies run at once, samples times, into b->v: bytes per second of
 * copy 0, or of all of them summed. */
static int time_copies(struct bench *b, struct ix_gpu_copy *cp, int n, bool sum, struct ix_err *err)
{
	const struct ix_gpu_params *p = b->p;

	for (uint32_t s = 0; s < p->samples; s++) {
		double bw = 0;

		for (int k = 0; k < n; k++)
			cp[k].ns = 0;
		if (b->be->copy_batch(b->c->g, cp, n, (int)p->iterations, s ? 0 : (int)p->warmup,
				      err) < 0)
			return -1;
		for (int k = 0; k < (sum ? n : 1); k++) {
			if (!(cp[k].ns > 0) || !isfinite(cp[k].ns))
				return ix_fail(err, IX_EXIT_FAIL,
					       "the backend timed a copy at %g ns", cp[k].ns);
			bw += (double)cp[k].bytes * p->iterations / (cp[k].ns * 1e-9);
		}
		b->v[s] = bw;
	}
	return 0;
}

/* One copy of a cell: memory kinds and devices of both ends, who runs it,
 * and its bytes (0: the test's size). */
struct plan {
	enum ix_gpu_mem smem, dmem;
	int sdev, ddev, exec;
	uint64_t bytes;
};

/* Host memory h -> GPU g (to), or g -> h. */
static struct plan host_copy(enum ix_gpu_mem h, int g, bool to, uint64_t bytes)
{
	enum ix_gpu_mem d = IX_GPU_MEM_DEVICE;

	return to ? (struct plan){ h, d, -1, g, g, bytes } : (struct plan){ d, h, g, -1, g, bytes };
}

/* A host test on every GPU at once, as nvbandwidth's host_to_all and
 * all_to_host: copy 0 is the measured GPU's; every other selected GPU
 * copies the same way (bidirectional: both ways, and the measured GPU the
 * other way too), twice the bytes, so that they outlast copy 0. */
static int plan_host_all(const struct bench *b, const struct ix_gpu_test *t, int g, struct plan *pl)
{
	uint64_t twice = 2 * b->p->size;
	int n = 0;

	pl[n++] = host_copy(t->host_mem, g, t->to, 0);
	if (t->bidir)
		pl[n++] = host_copy(t->host_mem, g, !t->to, twice);
	for (int k = 0; k < b->n; k++) {
		if (b->dev[k] == g)
			continue;
		pl[n++] = host_copy(t->host_mem, b->dev[k], t->to, twice);
		if (t->bidir)
			pl[n++] = host_copy(t->host_mem, b->dev[k], !t->to, twice);
	}
	return n;
}

static int plan_copies(struct bench *b, const struct ix_gpu_meas *m, int src, int dst,
		       struct plan *pl)
{
	const struct ix_gpu_test *t = m->test;
	enum ix_gpu_mem d = IX_GPU_MEM_DEVICE;
	int n = 0;

	switch (t->kind) {
	case IX_GPU_T_HOST:
		pl[n++] = host_copy(t->host_mem, t->to ? dst : src, t->to, 0);
		if (t->bidir)
			pl[n++] = host_copy(t->host_mem, t->to ? dst : src, !t->to, 0);
		return n;
	case IX_GPU_T_HOST_ALL:
		return plan_host_all(b, t, t->to ? dst : src, pl);
	case IX_GPU_T_LOCAL:
		pl[n++] = (struct plan){ d, d, dst, dst, dst, 0 };
		return n;
	case IX_GPU_T_PEER:
	case IX_GPU_T_STAGED:
		if (src == dst)
			return 0;
		pl[n++] = (struct plan){ d, d, src, dst, t->read ? dst : src, 0 };
		if (t->bidir)
			pl[n++] = (struct plan){ d, d, dst, src, t->read ? src : dst, 0 };
		return n;
	case IX_GPU_T_AGG:
		for (int k = 0; k < b->n; k++) {
			int o = b->dev[k], from = t->to ? o : src, to = t->to ? dst : o;

			if (o != (t->to ? dst : src))
				pl[n++] = (struct plan){ d, d, from, to, t->read ? to : from, 0 };
		}
		return n;
	default:
		return 0;
	}
}

static double link_of(const struct bench *b, int dev)
{
	const struct ix_gpu_dev *d = &b->r->dev[dev];

	return d->link_Bps.valid ? d->link_Bps.v : NAN;
}

/* The copy tests: host, local, peer, aggregate and through the host. */
static int copy_cell(struct bench *b, struct ix_gpu_meas *m, int src, int dst,
		     struct ix_gpu_cell *cell, struct ix_err *err)
{
	struct ix_gpu_buf bufs[2 * IX_GPU_MAX_COPIES];
	struct ix_gpu_copy cp[IX_GPU_MAX_COPIES];
	struct plan pl[IX_GPU_MAX_COPIES];
	int n = plan_copies(b, m, src, dst, pl), nb = 0, rc = 0;
	bool staged = m->test->kind == IX_GPU_T_STAGED;
	double ref = NAN;

	for (int k = 0; k < n; k++) /* a pair without peer access: not measured */
		if (pl[k].sdev >= 0 && pl[k].ddev >= 0 && !staged &&
		    !can(b, pl[k].exec, pl[k].exec == pl[k].sdev ? pl[k].ddev : pl[k].sdev))
			n = 0;
	if (!n) {
		cell->state = IX_GPU_CELL_NONE;
		return 0;
	}
	for (int k = 0; k < n && rc == 0; k++) {
		int s = pl[k].sdev, d = pl[k].ddev;
		uint64_t size = pl[k].bytes ? pl[k].bytes : b->p->size;

		if (s >= 0 && d >= 0 && s != d)
			rc = staged ? peer_set(b, s, d, false, err) | peer_set(b, d, s, false, err)
				    : peer_set(b, pl[k].exec, pl[k].exec == s ? d : s, true, err);
		if (rc == 0 && (rc = buf_new(b, pl[k].smem, s, size, &bufs[nb], err)) == 0)
			nb++;
		if (rc == 0 && (rc = buf_new(b, pl[k].dmem, d, size, &bufs[nb], err)) == 0)
			nb++;
		cp[k] = (struct ix_gpu_copy){ &bufs[2 * k], &bufs[2 * k + 1], (size_t)size,
					      pl[k].exec,   m->test->engine,  0 };
	}
	if (rc == 0)
		rc = time_copies(b, cp, n, m->test->kind == IX_GPU_T_AGG, err);
	for (int k = 0; k < nb; k++)
		buf_free(b, &bufs[k]);
	if (rc < 0)
		return -1;
	cell_stats(b, cell);
	if (m->ref == IX_GPU_REF_PCIE && !staged)
		ref = link_of(b, m->test->to ? dst : src);
	else if (m->ref == IX_GPU_REF_PCIE && !isnan(link_of(b, src) + link_of(b, dst)))
		ref = fmin(link_of(b, src), link_of(b, dst));
	else if (m->ref == IX_GPU_REF_HBM && b->r->dev[dst].info.hbm_bps.valid)
		ref = b->r->dev[dst].info.hbm_bps.v;
	if (isfinite(ref))
		cell->reference = ix_f64(ref);
	return 0;
}

/* Pointer chase in the row's memory (or the host's) from the column's GPU. */
static int chase_cell(struct bench *b, struct ix_gpu_meas *m, int src, int dst,
		      struct ix_gpu_cell *cell, struct ix_err *err)
{
	enum ix_gpu_mem mem = src == IX_GPU_HOST ? IX_GPU_MEM_PINNED : IX_GPU_MEM_DEVICE;
	struct ix_gpu_buf chain;
	int rc = 0;

	if (src >= 0 && !can(b, dst, src)) {
		cell->state = IX_GPU_CELL_NONE;
		return 0;
	}
	if ((src >= 0 && peer_set(b, dst, src, true, err) < 0) ||
	    buf_new(b, mem, src, m->bytes, &chain, err) < 0)
		return -1;
	for (uint32_t s = 0; s < b->p->samples && rc == 0; s++) {
		rc = b->be->chase(b->c->g, dst, &chain, (size_t)b->p->stride, b->p->hops, &b->v[s],
				  err);
		if (rc == 0 && (!(b->v[s] > 0) || !isfinite(b->v[s])))
			rc = ix_fail(err, IX_EXIT_FAIL, "the backend timed a hop at %g ns",
				     b->v[s]);
	}
	buf_free(b, &chain);
	if (rc < 0)
		return -1;
	cell_stats(b, cell);
	return 0;
}

/* ---- IPC: the parent's side ---- */

static int ipc_call(struct bench *b, struct ix_gpu_ipc_msg *m, struct ix_err *err)
{
	int rc = ix_gpu_ipc_send(b->ipc_fd, m, err);

	if (rc == 0 && (rc = ix_gpu_ipc_recv(b->ipc_fd, m, b->p->ipc_timeout_s, err)) > 0)
		return ix_fail(err, IX_EXIT_FAIL, "IPC: the other process exited");
	if (rc < 0)
		return ix_fail_prefix(err, "IPC");
	if (m->op == IX_GPU_IPC_ERR)
		return ix_fail(err, m->code, "IPC: the other process: %s", m->text);
	return m->op == IX_GPU_IPC_OK ? 0 : ix_fail(err, IX_EXIT_FAIL, "IPC: message out of turn");
}

/* The column's GPU copies from the row's: once in this process (the
 * reference), then from the other process through an IPC handle. */
static int ipc_cell(struct bench *b, struct ix_gpu_meas *m, int src, int dst,
		    struct ix_gpu_cell *cell, struct ix_err *err)
{
	struct ix_gpu_buf s, d;
	struct ix_gpu_copy cp = { &s, &d, (size_t)b->p->size, dst, IX_GPU_CE, 0 };
	struct ix_gpu_ipc_msg msg, req;
	int rc;

	if (!can(b, dst, src)) {
		cell->state = IX_GPU_CELL_NONE;
		return 0;
	}
	if (peer_set(b, dst, src, true, err) < 0 ||
	    buf_new(b, IX_GPU_MEM_DEVICE, src, b->p->size, &s, err) < 0)
		return -1;
	if ((rc = buf_new(b, IX_GPU_MEM_DEVICE, dst, b->p->size, &d, err)) == 0) {
		rc = time_copies(b, &cp, 1, false, err);
		buf_free(b, &d);
	}
	if (rc == 0) {
		cell_stats(b, cell);
		cell->reference = cell->value;
		cell->value = cell->min = cell->max = (struct ix_opt_f64){ false, 0 };
		cell->state = IX_GPU_CELL_PENDING;
		ix_gpu_ipc_init(&req, IX_GPU_IPC_COPY);
		req.device = dst;
		req.size = s.size;
		req.bytes = b->p->size;
		req.reps = b->p->iterations;
		rc = b->be->ipc_export(b->c->g, &s, req.handle, err);
	}
	for (uint32_t k = 0; rc == 0 && k < b->p->samples; k++) {
		msg = req;
		msg.warmup = k ? 0 : b->p->warmup;
		if ((rc = ipc_call(b, &msg, err)) == 0 && !(msg.ns > 0))
			rc = ix_fail(err, IX_EXIT_FAIL,
				     "IPC: the other process timed a copy at 0 ns");
		if (rc == 0)
			b->v[k] = (double)b->p->size * b->p->iterations / (msg.ns * 1e-9);
	}
	buf_free(b, &s);
	if (rc == 0)
		cell_stats(b, cell);
	return rc;
}

static void reap(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000000L };

	for (int i = 0; i < 500; i++) {
		if (waitpid(pid, NULL, WNOHANG) != 0)
			return;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Every cell in turn; a failing cell ends the test there (the cells after
 * it stay pending) and the test is marked failed. */
static void run_matrix(struct bench *b, struct ix_gpu_meas *m, cell_fn fn)
{
	for (int a = 0; a < m->rows; a++)
		for (int c = 0; c < m->cols; c++) {
			struct ix_gpu_cell *cell = &m->cells[(size_t)a * m->cols + c];
			struct ix_err e = { 0 };

			if (m->status == IX_GPU_FAILED)
				return;
			if (fn(b, m, m->row_dev[a], m->col_dev[c], cell, &e) == 0)
				continue;
			cell->state = IX_GPU_CELL_FAILED;
			m->status = IX_GPU_FAILED;
			snprintf(m->reason, sizeof(m->reason), "%s", e.msg[0] ? e.msg : "failed");
		}
}

static void run_ipc(struct bench *b, struct ix_gpu_meas *m)
{
	struct ix_err e = { 0 };
	struct ix_gpu_ipc_msg msg;
	pid_t pid = -1;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		ix_fail(&e, IX_EXIT_FAIL, "socketpair: %s", strerror(errno));
	} else if (b->p->ipc.start(b->p->ipc.arg, sv[1], &pid, &e) < 0) {
		close(sv[0]);
		close(sv[1]);
		pid = -1;
	} else {
		close(sv[1]);
		b->ipc_fd = sv[0];
		run_matrix(b, m, ipc_cell);
		ix_gpu_ipc_init(&msg, IX_GPU_IPC_QUIT);
		ix_gpu_ipc_send(b->ipc_fd, &msg, NULL); /* it may have left already */
		close(b->ipc_fd);
		b->ipc_fd = -1;
	}
	if (pid > 0)
		reap(pid);
	if (e.msg[0] && m->status != IX_GPU_FAILED) {
		m->status = IX_GPU_FAILED;
		snprintf(m->reason, sizeof(m->reason), "%s", e.msg);
	}
}

/* ---- The plan ---- */

/* Why test t cannot run here; NULL when it can. */
static const char *skip_reason(const struct bench *b, const struct ix_gpu_test *t, char *buf,
			       size_t len)
{
	unsigned caps = b->r->backend.caps;
	enum ix_gpu_kind k = t->kind;
	bool peer = k == IX_GPU_T_PEER || k == IX_GPU_T_AGG, any = false;

	if ((t->engine == IX_GPU_SM || ix_gpu_test_is_latency(t)) &&
	    (!(caps & IX_GPU_CAP_KERNEL) || (ix_gpu_test_is_latency(t) && !b->be->chase)))
		return b->r->backend.no_kernel[0] ? b->r->backend.no_kernel
						  : "the backend's kernels do not load here (no SM "
						    "copy, no pointer chase)";
	if ((peer || k == IX_GPU_T_STAGED) && b->n < 2) {
		snprintf(buf, len, "needs two GPUs or more; %d %s", b->n,
			 b->n == b->r->ndevices ? "on this machine" : "selected");
		return buf;
	}
	if (peer && (!(caps & IX_GPU_CAP_PEER) || !b->be->set_peer))
		return "the backend reports no peer access between GPUs";
	for (int i = 0; i < b->n; i++)
		for (int j = 0; j < b->n; j++)
			any |= i != j && can(b, b->dev[i], b->dev[j]);
	if (peer && !any)
		return "no two of the selected GPUs have peer access";
	if (k == IX_GPU_T_IPC && (!(caps & IX_GPU_CAP_IPC) || !b->be->ipc_export))
		return "the backend cannot export GPU memory to another process (no IPC)";
	if (k == IX_GPU_T_IPC && !b->p->ipc.start)
		return "no second process can be started here";
	return NULL;
}

static int shape(struct bench *b, struct ix_gpu_meas *m)
{
	const struct ix_gpu_test *t = m->test;
	bool host = t->kind == IX_GPU_T_HOST || t->kind == IX_GPU_T_HOST_ALL;
	int one = host || t->kind == IX_GPU_T_LAT_HOST ? IX_GPU_HOST
		  : t->kind == IX_GPU_T_AGG            ? IX_GPU_ALL
						       : IX_GPU_LOCAL;
	bool square = t->kind == IX_GPU_T_PEER || t->kind == IX_GPU_T_STAGED ||
		      t->kind == IX_GPU_T_IPC || t->kind == IX_GPU_T_LAT_PEER,
	     row_one = !square && (t->to || t->kind == IX_GPU_T_LOCAL),
	     col_one = !square && !row_one;

	m->rows = row_one ? 1 : b->n;
	m->cols = col_one ? 1 : b->n;
	for (int i = 0; i < b->n; i++) {
		m->row_dev[i] = row_one ? one : b->dev[i];
		m->col_dev[i] = col_one ? one : b->dev[i];
	}
	m->cells = calloc((size_t)m->rows * (size_t)m->cols, sizeof(*m->cells));
	return m->cells ? 0 : -1;
}

static void run_test(struct bench *b, struct ix_gpu_meas *m)
{
	const struct ix_gpu_test *t = m->test;
	const char *why;
	char buf[128];

	m->traffic_factor = t->kind == IX_GPU_T_LOCAL ? 2 : 1;
	m->ref = t->kind == IX_GPU_T_HOST || t->kind == IX_GPU_T_HOST_ALL ||
				 t->kind == IX_GPU_T_STAGED
			 ? IX_GPU_REF_PCIE
		 : t->kind == IX_GPU_T_LOCAL ? IX_GPU_REF_HBM
		 : t->kind == IX_GPU_T_IPC   ? IX_GPU_REF_INPROC
					     : IX_GPU_REF_NONE;
	m->bytes = b->p->size;
	if (ix_gpu_test_is_latency(t)) { /* at least 64 elements, a whole number of strides */
		m->bytes = b->p->size < 64 * b->p->stride ? 64 * b->p->stride : b->p->size;
		m->bytes -= m->bytes % b->p->stride;
	}
	if ((why = skip_reason(b, t, buf, sizeof(buf)))) {
		m->status = IX_GPU_SKIPPED;
		m->rows = m->cols = 0; /* nothing planned */
		snprintf(m->reason, sizeof(m->reason), "%s", why);
		return;
	}
	if (t->kind == IX_GPU_T_IPC)
		run_ipc(b, m);
	else
		run_matrix(b, m, ix_gpu_test_is_latency(t) ? chase_cell : copy_cell);
}

int ix_gpu_bench_run(struct ix_gpu_ctx *c, const struct ix_gpu_params *p, struct ix_gpu_result *r,
		     struct ix_err *err)
{
	struct ix_err none;
	struct bench *b;
	size_t nsel = 0;
	bool oom = false;

	if (!p->size || !p->iterations || !p->samples || p->samples > IX_GPU_MAX_SAMPLES ||
	    !p->hops || !p->stride || p->stride > (1ull << 30) || p->size > SIZE_MAX / 2)
		return ix_fail(err, IX_EXIT_USAGE, "GPU test parameters out of range");
	if (!c->be->alloc || !c->be->free || !c->be->fill || !c->be->copy_batch)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "the %s backend cannot copy", c->be->name);
	for (size_t i = 0; i < NTESTS; i++)
		nsel += p->tests[i];
	b = calloc(1, sizeof(*b) + p->samples * sizeof(double));
	r->meas = calloc(nsel + 1, sizeof(*r->meas));
	if (!b || !r->meas) {
		free(b);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	*b = (struct bench){
		.c = c, .be = c->be, .p = p, .r = r, .v = (double *)(b + 1), .ipc_fd = -1
	};
	r->params = *p;
	r->measured = true;
	for (int i = 0; i < r->ndevices; i++)
		if (r->dev[i].selected)
			b->dev[b->n++] = i;
	for (size_t i = 0; i < NTESTS; i++) {
		struct ix_gpu_meas *m = &r->meas[r->nmeas];

		if (!p->tests[i])
			continue;
		m->test = &tests[i];
		if ((oom = shape(b, m) < 0))
			break;
		r->nmeas++;
		run_test(b, m);
		if (m->status == IX_GPU_FAILED && r->complete) {
			r->complete = false;
			snprintf(r->error, sizeof(r->error), "%s: %.400s", m->test->name,
				 m->reason);
		}
	}
	for (int i = 0; i < r->ndevices; i++) /* leave peer access as it was found */
		for (int j = 0; j < r->ndevices; j++)
			peer_set(b, i, j, false, &none);
	free(b);
	return oom ? ix_fail(err, IX_EXIT_FAIL, "out of memory") : 0;
}
