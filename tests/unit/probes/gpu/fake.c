/* The simulated GPU backend of the unit tests (see fake.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/probes/gpu/fake.h"

enum call { C_ALLOC, C_FILL, C_COPY, C_CHASE, C_PEER, C_EXPORT, C_IMPORT, NCALLS };
static const char *const call_names[NCALLS] = { "alloc",    "fill",       "copy_batch", "chase",
						"set_peer", "ipc_export", "ipc_import" };

struct ix_gpu {
	struct gpu_fake_config cfg;
	int calls[NCALLS];
	int live;
	int max_batch;
	unsigned timed; /* batches and chases so far, for the jitter */
	uint64_t next_addr;
	bool peer_on[IX_GPU_MAX_DEVICES][IX_GPU_MAX_DEVICES];
};

#define HANDLE_MAGIC 0x46414b45u /* "FAKE" */

struct handle {
	uint32_t magic;
	int32_t device;
	uint64_t size, addr;
};

void gpu_fake_defaults(struct gpu_fake_config *cfg, int n)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ndevices = n;
	cfg->caps = IX_GPU_CAP_PEER | IX_GPU_CAP_KERNEL | IX_GPU_CAP_IPC;
	cfg->pageable_factor = cfg->staged_factor = cfg->sm_factor = cfg->ipc_factor = 1;
	for (int i = 0; i < n; i++) {
		cfg->hbm_Bps[i] = 4e12;
		cfg->pcie_Bps[i] = 50e9;
		cfg->host_lat_ns[i] = 800;
		snprintf(cfg->bus_id[i], sizeof(cfg->bus_id[i]), "0000:%02x:00.0", 0x18 + i);
		for (int j = 0; j < n; j++) {
			cfg->peer_Bps[i][j] = i == j ? 0 : 300e9;
			cfg->peer_lat_ns[i][j] = i == j ? 600 : 1500;
		}
	}
}

static int injected(struct ix_gpu *g, enum call c, struct ix_err *err)
{
	if (g->cfg.fail_call && strcmp(g->cfg.fail_call, call_names[c]) == 0 &&
	    g->calls[c] >= g->cfg.fail_after) {
		g->calls[c]++;
		return ix_fail(err, IX_EXIT_FAIL, "%s: injected failure (simulated backend)",
			       call_names[c]);
	}
	g->calls[c]++;
	return 0;
}

static double jitter(struct ix_gpu *g)
{
	unsigned k = g->timed++;

	return g->cfg.njitter ? g->cfg.jitter[k % (unsigned)g->cfg.njitter] : 1;
}

static int fake_open(struct ix_gpu **out, const char *lib, struct ix_gpu_backend_info *info,
		     struct ix_err *err)
{
	return ix_fail(err, IX_EXIT_UNAVAILABLE, "the simulated backend opens with gpu_fake_ctx");
}

static void fake_close(struct ix_gpu *g)
{
	free(g);
}

static int fake_info(struct ix_gpu *g, int device, struct ix_gpu_info *out, struct ix_err *err)
{
	if (device < 0 || device >= g->cfg.ndevices)
		return ix_fail(err, IX_EXIT_FAIL, "no device %d", device);
	memset(out, 0, sizeof(*out));
	out->index = device;
	snprintf(out->name, sizeof(out->name), "Simulated GPU %d", device);
	out->mem_bytes = 80000000000ull;
	snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%s", g->cfg.bus_id[device]);
	if (g->cfg.hbm_Bps[device] > 0)
		out->hbm_bps = ix_f64(g->cfg.hbm_Bps[device]);
	out->multiprocessors = 132;
	out->numa_node = -1;
	return 0;
}

static int fake_can_access_peer(struct ix_gpu *g, int from, int to, bool *yes, struct ix_err *err)
{
	*yes = !g->cfg.deny[from][to] &&
	       (g->cfg.peer_Bps[from][to] > 0 || g->cfg.peer_Bps[to][from] > 0);
	return 0;
}

static int fake_set_peer(struct ix_gpu *g, int from, int to, bool on, struct ix_err *err)
{
	if (injected(g, C_PEER, err) < 0)
		return -1;
	if (on && (g->cfg.deny[from][to] ||
		   !(g->cfg.peer_Bps[from][to] > 0 || g->cfg.peer_Bps[to][from] > 0)))
		return ix_fail(err, IX_EXIT_FAIL, "GPU%d cannot reach GPU%d", from, to);
	if (g->peer_on[from][to] == on)
		return ix_fail(err, IX_EXIT_FAIL, "peer access already %s", on ? "on" : "off");
	g->peer_on[from][to] = on;
	return 0;
}

static int fake_alloc(struct ix_gpu *g, enum ix_gpu_mem mem, int device, size_t size,
		      struct ix_gpu_buf *out, struct ix_err *err)
{
	if (injected(g, C_ALLOC, err) < 0)
		return -1;
	if (!size || (mem == IX_GPU_MEM_DEVICE && (device < 0 || device >= g->cfg.ndevices)))
		return ix_fail(err, IX_EXIT_FAIL, "alloc: bad arguments");
	memset(out, 0, sizeof(*out));
	out->mem = mem;
	out->device = mem == IX_GPU_MEM_DEVICE ? device : -1;
	out->size = size;
	out->dev = (g->next_addr += 1ull << 40);
	g->live++;
	return 0;
}

static void fake_free(struct ix_gpu *g, struct ix_gpu_buf *b)
{
	g->live--;
	memset(b, 0, sizeof(*b));
}

static int fake_fill(struct ix_gpu *g, const struct ix_gpu_buf *b, uint8_t v, struct ix_err *err)
{
	if (injected(g, C_FILL, err) < 0)
		return -1;
	return b->size ? 0 : ix_fail(err, IX_EXIT_FAIL, "fill: no buffer");
}

/* Links a copy uses: an id (users are counted per id) and its rate. */
struct use {
	int id[3];
	double cap[3];
	int n;
	double factor;
};

enum { R_IN, R_OUT, R_HBM, R_NVIN, R_NVOUT, R_PEER, R_HOST };
#define RID(kind, a, b) \
	((kind)*IX_GPU_MAX_DEVICES * IX_GPU_MAX_DEVICES + (a)*IX_GPU_MAX_DEVICES + (b))
#define NRID (7 * IX_GPU_MAX_DEVICES * IX_GPU_MAX_DEVICES)

static void add(struct use *u, int id, double cap)
{
	u->id[u->n] = id;
	u->cap[u->n++] = cap;
}

static int route(struct ix_gpu *g, const struct ix_gpu_copy *c, struct use *u, struct ix_err *err)
{
	const struct gpu_fake_config *f = &g->cfg;
	const struct ix_gpu_buf *s = c->src, *d = c->dst;
	bool sh = s->mem != IX_GPU_MEM_DEVICE, dh = d->mem != IX_GPU_MEM_DEVICE;
	int a = s->device, b = d->device;

	memset(u, 0, sizeof(*u));
	u->factor = (c->engine == IX_GPU_SM ? f->sm_factor : 1) * (s->imported ? f->ipc_factor : 1);
	if (c->engine == IX_GPU_SM && !(f->caps & IX_GPU_CAP_KERNEL))
		return ix_fail(err, IX_EXIT_FAIL, "no kernels");
	if (c->engine == IX_GPU_SM &&
	    (s->mem == IX_GPU_MEM_PAGEABLE || d->mem == IX_GPU_MEM_PAGEABLE))
		return ix_fail(err, IX_EXIT_FAIL, "a kernel cannot reach pageable memory");
	if (sh && dh)
		return ix_fail(err, IX_EXIT_FAIL, "host to host");
	if (sh || dh) {
		int gpu = sh ? b : a;

		if (c->exec_device != gpu)
			return ix_fail(err, IX_EXIT_FAIL, "host copy run by another GPU");
		add(u, RID(sh ? R_IN : R_OUT, gpu, 0), f->pcie_Bps[gpu]);
		if (f->host_Bps > 0)
			add(u, RID(R_HOST, sh, 0), f->host_Bps);
		if ((sh ? s : d)->mem == IX_GPU_MEM_PAGEABLE)
			u->factor *= f->pageable_factor;
		return 0;
	}
	if (a == b) {
		add(u, RID(R_HBM, a, 0), f->hbm_Bps[a] / 2);
		return 0;
	}
	if (c->exec_device != a && c->exec_device != b)
		return ix_fail(err, IX_EXIT_FAIL, "peer copy run by a third GPU");
	if (s->imported || g->peer_on[c->exec_device][c->exec_device == a ? b : a]) {
		if (!(f->peer_Bps[a][b] > 0))
			return ix_fail(err, IX_EXIT_FAIL, "no peer path from GPU%d to GPU%d", a, b);
		add(u, RID(R_PEER, a, b), f->peer_Bps[a][b]);
		if (f->nvlink_Bps[a] > 0)
			add(u, RID(R_NVOUT, a, 0), f->nvlink_Bps[a]);
		if (f->nvlink_Bps[b] > 0)
			add(u, RID(R_NVIN, b, 0), f->nvlink_Bps[b]);
		return 0;
	}
	if (c->engine == IX_GPU_SM)
		return ix_fail(err, IX_EXIT_FAIL, "kernel on GPU%d: peer access is off",
			       c->exec_device);
	add(u, RID(R_OUT, a, 0), f->pcie_Bps[a]); /* staged through the host */
	add(u, RID(R_IN, b, 0), f->pcie_Bps[b]);
	u->factor *= f->staged_factor;
	return 0;
}

static int fake_copy_batch(struct ix_gpu *g, struct ix_gpu_copy *copies, int n, int reps,
			   int warmup, struct ix_err *err)
{
	static const struct use none;
	struct use u[IX_GPU_MAX_COPIES];
	int *users;
	double j;

	if (injected(g, C_COPY, err) < 0)
		return -1;
	if (n < 1 || n > IX_GPU_MAX_COPIES || reps < 1 || warmup < 0)
		return ix_fail(err, IX_EXIT_FAIL, "copy_batch: bad arguments");
	users = calloc(NRID, sizeof(*users));
	if (!users)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (int k = 0; k < n; k++) {
		const struct ix_gpu_copy *c = &copies[k];

		u[k] = none;
		if (!c->src || !c->dst || !c->src->size || !c->dst->size || !c->bytes ||
		    c->bytes > c->src->size || c->bytes > c->dst->size || c->exec_device < 0 ||
		    c->exec_device >= g->cfg.ndevices) {
			free(users);
			return ix_fail(err, IX_EXIT_FAIL, "copy %d: bad arguments", k);
		}
		if (route(g, c, &u[k], err) < 0) {
			free(users);
			return -1;
		}
		for (int r = 0; r < u[k].n; r++)
			users[u[k].id[r]]++;
	}
	j = jitter(g);
	for (int k = 0; k < n; k++) {
		double rate = INFINITY;

		for (int r = 0; r < u[k].n; r++)
			rate = fmin(rate, u[k].cap[r] / users[u[k].id[r]]);
		rate *= u[k].factor;
		copies[k].ns = (double)copies[k].bytes * reps / rate * 1e9 * j;
	}
	free(users);
	g->max_batch = n > g->max_batch ? n : g->max_batch;
	return 0;
}

static int fake_chase(struct ix_gpu *g, int exec, const struct ix_gpu_buf *chain, size_t stride,
		      uint64_t hops, double *ns_per_hop, struct ix_err *err)
{
	const struct gpu_fake_config *f = &g->cfg;

	if (injected(g, C_CHASE, err) < 0)
		return -1;
	if (!(f->caps & IX_GPU_CAP_KERNEL))
		return ix_fail(err, IX_EXIT_FAIL, "no kernels");
	if (!stride || chain->size < 2 * stride || !hops)
		return ix_fail(err, IX_EXIT_FAIL, "chase: bad arguments");
	if (chain->mem == IX_GPU_MEM_PAGEABLE)
		return ix_fail(err, IX_EXIT_FAIL, "chase: pageable memory");
	if (chain->mem == IX_GPU_MEM_PINNED) {
		*ns_per_hop = f->host_lat_ns[exec] * jitter(g);
		return 0;
	}
	if (chain->device != exec && !g->peer_on[exec][chain->device])
		return ix_fail(err, IX_EXIT_FAIL, "chase: peer access is off");
	*ns_per_hop = f->peer_lat_ns[chain->device][exec] * jitter(g);
	return 0;
}

static int fake_ipc_export(struct ix_gpu *g, const struct ix_gpu_buf *b,
			   uint8_t handle[IX_GPU_IPC_HANDLE], struct ix_err *err)
{
	struct handle h = { HANDLE_MAGIC, b->device, b->size, b->dev };

	if (injected(g, C_EXPORT, err) < 0)
		return -1;
	if (!(g->cfg.caps & IX_GPU_CAP_IPC) || b->mem != IX_GPU_MEM_DEVICE)
		return ix_fail(err, IX_EXIT_FAIL, "ipc_export: not device memory");
	memset(handle, 0, IX_GPU_IPC_HANDLE);
	memcpy(handle, &h, sizeof(h));
	return 0;
}

static int fake_ipc_import(struct ix_gpu *g, int device, const uint8_t handle[IX_GPU_IPC_HANDLE],
			   size_t size, struct ix_gpu_buf *out, struct ix_err *err)
{
	struct handle h;

	if (injected(g, C_IMPORT, err) < 0)
		return -1;
	memcpy(&h, handle, sizeof(h));
	if (h.magic != HANDLE_MAGIC || h.size != size || h.device < 0 ||
	    h.device >= g->cfg.ndevices || device < 0 || device >= g->cfg.ndevices)
		return ix_fail(err, IX_EXIT_FAIL, "ipc_import: not a handle of this backend");
	memset(out, 0, sizeof(*out));
	out->mem = IX_GPU_MEM_DEVICE;
	out->device = h.device;
	out->size = size;
	out->dev = h.addr;
	out->imported = true;
	g->live++;
	return 0;
}

static void fake_ipc_close(struct ix_gpu *g, struct ix_gpu_buf *b)
{
	g->live--;
	memset(b, 0, sizeof(*b));
}

static int fake_dmabuf_fd(struct ix_gpu *g, const struct ix_gpu_buf *b, int *fd, struct ix_err *err)
{
	return ix_fail(err, IX_EXIT_UNAVAILABLE, "the simulated backend has no dmabuf");
}

const struct ix_gpu_backend gpu_fake_backend = {
	.name = "fake",
	.open = fake_open,
	.close = fake_close,
	.info = fake_info,
	.can_access_peer = fake_can_access_peer,
	.set_peer = fake_set_peer,
	.alloc = fake_alloc,
	.free = fake_free,
	.fill = fake_fill,
	.copy_batch = fake_copy_batch,
	.chase = fake_chase,
	.ipc_export = fake_ipc_export,
	.ipc_import = fake_ipc_import,
	.ipc_close = fake_ipc_close,
	.dmabuf_fd = fake_dmabuf_fd,
};

int gpu_fake_ctx(struct ix_gpu_ctx *c, const struct gpu_fake_config *cfg, struct ix_err *err)
{
	struct ix_gpu *g = calloc(1, sizeof(*g));

	memset(c, 0, sizeof(*c));
	if (!g)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	g->cfg = *cfg;
	c->be = &gpu_fake_backend;
	c->g = g;
	c->info.name = "fake";
	snprintf(c->info.library, sizeof(c->info.library), "(simulated)");
	snprintf(c->info.version, sizeof(c->info.version), "0.0");
	c->info.caps = cfg->caps;
	c->info.ndevices = c->ndevices = cfg->ndevices;
	for (int i = 0; i < c->ndevices; i++)
		if (fake_info(g, i, &c->dev[i], err) < 0)
			return -1;
	return 0;
}

int gpu_fake_live_buffers(const struct ix_gpu *g)
{
	return g->live;
}

bool gpu_fake_peer_on(const struct ix_gpu *g, int from, int to)
{
	return g->peer_on[from][to];
}

int gpu_fake_max_batch(const struct ix_gpu *g)
{
	return g->max_batch;
}

int gpu_fake_calls(const struct ix_gpu *g, const char *call)
{
	for (int i = 0; i < NCALLS; i++)
		if (strcmp(call_names[i], call) == 0)
			return g->calls[i];
	return -1;
}
