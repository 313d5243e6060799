#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/gpu/backend.h"

/*
 * The logic both GPU backends share (see backend.h). Messages are the
 * backends' own, with the vendor's name passed in where they carry one.
 */

static bool optional_sym(size_t off, const size_t *optional, size_t nopt)
{
	for (size_t i = 0; i < nopt; i++)
		if (optional[i] == off)
			return true;
	return false;
}

int ix_gpu_be_resolve(void *lib, const struct ix_gpu_be_sym *syms, size_t n, const size_t *optional,
		      size_t nopt, void *api, const char *libname, const char *what,
		      struct ix_err *err)
{
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(lib, syms[i].name);

		if (!p && syms[i].alt)
			p = dlsym(lib, syms[i].alt);
		if (!p && !optional_sym(syms[i].off, optional, nopt))
			return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s has no %s: not %s, or too old",
				       libname, syms[i].name, what);
		/* A function pointer from dlsym's void *, as POSIX allows. */
		memcpy((char *)api + syms[i].off, &p, sizeof(p));
	}
	return 0;
}

size_t ix_gpu_be_host_page(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

void ix_gpu_be_library(void *lib, const char *name, struct ix_gpu_backend_info *info)
{
	struct link_map *lm = NULL;

	snprintf(info->library, sizeof(info->library), "%s", name);
	if (dlinfo(lib, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
		snprintf(info->library, sizeof(info->library), "%s", lm->l_name);
}

void ix_gpu_be_unload(void *lib, bool inited)
{
	if (lib && !inited)
		dlclose(lib);
}

unsigned ix_gpu_be_peer_cap(struct ix_gpu *g, int ndev,
			    int (*can_access_peer)(struct ix_gpu *g, int from, int to, bool *yes,
						   struct ix_err *err))
{
	for (int a = 0; a < ndev; a++)
		for (int b = 0; b < ndev; b++) {
			bool yes = false;

			if (a != b && can_access_peer(g, a, b, &yes, NULL) == 0 && yes)
				return IX_GPU_CAP_PEER;
		}
	return 0;
}

int ix_gpu_be_call_fail(struct ix_err *err, const char *call, const char *name, int r)
{
	return ix_fail(err, IX_EXIT_FAIL, "%s failed: %s (%d)", call, name ? name : "unknown error",
		       r);
}

int ix_gpu_be_check_device(const char *vendor, int d, int ndev, struct ix_err *err)
{
	if (d < 0 || d >= ndev)
		return ix_fail(err, IX_EXIT_USAGE, "no %s device %d (of %d)", vendor, d, ndev);
	return 0;
}

void ix_gpu_be_info_init(struct ix_gpu_info *out, int d, int multiprocessors)
{
	memset(out, 0, sizeof(*out));
	out->index = d;
	out->numa_node = -1;
	out->multiprocessors = multiprocessors > 0 ? (uint32_t)multiprocessors : 0;
}

void ix_gpu_be_bus_id(const char *bus, char *out, size_t size)
{
	unsigned dom, b, dv, fn;
	int end = 0;

	if (sscanf(bus, "%x:%x:%x.%x%n", &dom, &b, &dv, &fn, &end) == 4 && !bus[end])
		snprintf(out, size, "%04x:%02x:%02x.%x", dom, b, dv, fn);
	else
		for (size_t i = 0; bus[i] && i + 1 < size; i++)
			out[i] = (char)tolower((unsigned char)bus[i]);
}

struct ix_opt_f64 ix_gpu_be_hbm_bps(int clock_khz, int width_bits)
{
	if (clock_khz <= 0 || width_bits <= 0) /* some drivers no longer report them */
		return (struct ix_opt_f64){ false, 0 };
	return ix_f64((double)clock_khz * 1000.0 * (double)width_bits / 8.0 * 2.0);
}

size_t ix_gpu_be_round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

int ix_gpu_be_alloc_begin(enum ix_gpu_mem mem, int device, size_t size, size_t page,
			  struct ix_gpu_buf *out, int *use, struct ix_err *err)
{
	memset(out, 0, sizeof(*out));
	out->mem = mem;
	out->size = size;
	out->device = mem == IX_GPU_MEM_DEVICE ? device : -1;
	*use = mem == IX_GPU_MEM_DEVICE || device >= 0 ? device : 0;
	if (!size)
		return ix_fail(err, IX_EXIT_USAGE, "a GPU buffer of 0 bytes");
	if (mem != IX_GPU_MEM_PAGEABLE)
		return 1;
	if (posix_memalign(&out->host, page, ix_gpu_be_round_up(size, page)) != 0)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory (%zu bytes)", size);
	return 0;
}

void ix_gpu_be_free_end(struct ix_gpu_buf *b)
{
	if (b->mem == IX_GPU_MEM_PAGEABLE)
		free(b->host);
	memset(b, 0, sizeof(*b));
}

bool ix_gpu_be_fill_host(const struct ix_gpu_buf *b, uint8_t v)
{
	if (b->mem == IX_GPU_MEM_DEVICE)
		return false;
	memset(b->host, v, b->size);
	return true;
}

int ix_gpu_be_check_export(const struct ix_gpu_buf *b, struct ix_err *err)
{
	if (b->mem != IX_GPU_MEM_DEVICE || b->imported)
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "only device memory allocated here can be exported");
	return 0;
}

int ix_gpu_be_check_dmabuf(const struct ix_gpu_buf *b, size_t page, struct ix_err *err)
{
	if (b->mem != IX_GPU_MEM_DEVICE || b->imported || b->dev % page)
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "dmabuf export needs device memory allocated here");
	return 0;
}

void ix_gpu_be_imported(struct ix_gpu_buf *out, int device, size_t size, uint64_t dev)
{
	*out = (struct ix_gpu_buf){ .mem = IX_GPU_MEM_DEVICE,
				    .device = device,
				    .size = size,
				    .dev = dev,
				    .imported = true };
}

int ix_gpu_be_check_batch(int n, int reps, int warmup, struct ix_err *err)
{
	if (n < 1 || n > IX_GPU_MAX_COPIES || reps < 1 || warmup < 0)
		return ix_fail(err, IX_EXIT_USAGE, "a GPU batch of %d copies, %d repetitions", n,
			       reps);
	return 0;
}

int ix_gpu_be_check_copy(const char *vendor, int ndev, const struct ix_gpu_copy *c,
			 struct ix_err *err)
{
	if (ix_gpu_be_check_device(vendor, c->exec_device, ndev, err) < 0)
		return -1;
	if (!c->src || !c->dst || c->bytes > c->src->size || c->bytes > c->dst->size)
		return ix_fail(err, IX_EXIT_USAGE, "a GPU copy of %zu bytes overruns its buffers",
			       c->bytes);
	return 0;
}

int ix_gpu_be_kernel_reach(const struct ix_gpu_be_peers *peer, int d, const struct ix_gpu_buf *b,
			   const char *what, struct ix_err *err)
{
	if (b->mem == IX_GPU_MEM_PAGEABLE)
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "a kernel cannot reach pageable host memory (%s)", what);
	if (b->mem == IX_GPU_MEM_DEVICE && b->device != d && !peer->on[d][b->device])
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "device %d has no peer access enabled to device %d (%s)", d,
			       b->device, what);
	return 0;
}

bool ix_gpu_be_staged(const struct ix_gpu_be_peers *peer, const struct ix_gpu_copy *c)
{
	const struct ix_gpu_buf *s = c->src, *d = c->dst;
	int x = c->exec_device;

	return s->mem == IX_GPU_MEM_DEVICE && d->mem == IX_GPU_MEM_DEVICE &&
	       s->device != d->device &&
	       ((s->device != x && !peer->on[x][s->device]) ||
		(d->device != x && !peer->on[x][d->device]));
}

bool ix_gpu_be_ungated(const struct ix_gpu_be_peers *peer, const struct ix_gpu_copy *c)
{
	return c->src->mem == IX_GPU_MEM_PAGEABLE || c->dst->mem == IX_GPU_MEM_PAGEABLE ||
	       ix_gpu_be_staged(peer, c);
}

bool ix_gpu_be_gate_fits(int n, int reps, int warmup)
{
	return (long)n * (warmup + reps) <= IX_GPU_BE_GATE_MAX_OPS;
}

int ix_gpu_be_transfer_begin(const struct ix_gpu_buf *b, size_t off, const void *src, void *dst,
			     size_t n, struct ix_err *err)
{
	if (off > b->size || n > b->size - off)
		return ix_fail(err, IX_EXIT_USAGE,
			       "%zu bytes at offset %zu overrun a GPU buffer of %zu bytes", n, off,
			       b->size);
	if (!n)
		return 0;
	if (b->mem == IX_GPU_MEM_DEVICE)
		return 1;
	if (src)
		memcpy((uint8_t *)b->host + off, src, n);
	else
		memcpy(dst, (const uint8_t *)b->host + off, n);
	return 0;
}
