#include "config.h"

#include <stdio.h>
#include <string.h>

#include "probes/gpu/gpu.h"

/* The backends, in the order ix_gpu_open tries them. */
static const struct ix_gpu_backend *const backends[] = {
	&ix_gpu_cuda,
	&ix_gpu_hip,
};

const struct ix_gpu_backend *const *ix_gpu_backends(size_t *n)
{
	*n = sizeof(backends) / sizeof(backends[0]);
	return backends;
}

const struct ix_gpu_backend *ix_gpu_backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

static int open_one(struct ix_gpu_ctx *c, const struct ix_gpu_backend *be, const char *lib,
		    struct ix_err *err)
{
	memset(c, 0, sizeof(*c));
	if (be->open(&c->g, lib, &c->info, err) < 0)
		return -1;
	c->be = be;
	c->info.name = be->name;
	c->ndevices = c->info.ndevices;
	if (c->ndevices > IX_GPU_MAX_DEVICES)
		c->ndevices = IX_GPU_MAX_DEVICES;
	for (int i = 0; i < c->ndevices; i++) {
		if (be->info(c->g, i, &c->dev[i], err) < 0) {
			be->close(c->g);
			memset(c, 0, sizeof(*c));
			return -1;
		}
		c->dev[i].index = i;
	}
	return 0;
}

int ix_gpu_open(struct ix_gpu_ctx *c, const char *backend, const char *lib, struct ix_err *err)
{
	char why[IX_ERR_MAX] = "";
	size_t used = 0;

	memset(c, 0, sizeof(*c)); /* empty whatever happens, so ix_gpu_close is safe */
	if (backend) {
		const struct ix_gpu_backend *be = ix_gpu_backend_find(backend);
		if (!be)
			return ix_fail(err, IX_EXIT_USAGE,
				       "unknown GPU backend '%.64s' (known: cuda, rocm)", backend);
		return open_one(c, be, lib, err);
	}
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		struct ix_err e = { 0 };
		int n;

		if (open_one(c, backends[i], lib, &e) == 0)
			return 0;
		n = snprintf(why + used, sizeof(why) - used, "%s%s: %s", used ? "; " : "",
			     backends[i]->name, e.msg);
		if (n > 0)
			used += (size_t)n < sizeof(why) - used ? (size_t)n : sizeof(why) - used - 1;
	}
	return ix_fail(err, IX_EXIT_UNAVAILABLE, "no GPU backend available (%s)", why);
}

void ix_gpu_close(struct ix_gpu_ctx *c)
{
	if (c->be && c->g)
		c->be->close(c->g);
	memset(c, 0, sizeof(*c));
}

const char *ix_gpu_mem_name(enum ix_gpu_mem m)
{
	switch (m) {
	case IX_GPU_MEM_DEVICE:
		return "device";
	case IX_GPU_MEM_PINNED:
		return "pinned";
	case IX_GPU_MEM_PAGEABLE:
		return "pageable";
	}
	return "unknown";
}

const char *ix_gpu_engine_name(enum ix_gpu_engine e)
{
	return e == IX_GPU_SM ? "sm" : "ce";
}
