/*
 * What the unit tests of the CUDA and ROCm backends (test_backends.c,
 * test_backends_queue.c) share: a backend opened on a SIMULATED driver
 * library of tests/gpu/ (fakecuda.c, fakehip.c; make check builds them and
 * names them in IX_FAKECUDA and IX_FAKEHIP), the library's counters, its
 * memory as this process sees it, and the check on close that nothing is
 * left alive and the API was never misused.
 */
#ifndef IX_TESTS_UNIT_GPU_DRIVERS_H
#define IX_TESTS_UNIT_GPU_DRIVERS_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/gpu/gpu.h"

struct fake {
	const char *lib;
	struct ix_gpu_ctx c;
	const struct ix_gpu_backend *be;
	struct ix_gpu *g;
	struct ix_err err;
};

/* The library named by var (IX_FAKECUDA, IX_FAKEHIP), or skip the test. */
static inline const char *fake_lib(const char *var)
{
	const char *lib = getenv(var);

	if (!lib || !lib[0])
		cr_skip_test("%s is not set: no simulated driver library to test with "
			     "(make check builds it and sets it)",
			     var);
	if (access(lib, R_OK) != 0)
		cr_skip_test("%s=%s does not exist: the simulated driver library is not built", var,
			     lib);
	return lib;
}

static inline void fake_open(struct fake *f, const char *backend, const char *var)
{
	memset(f, 0, sizeof(*f));
	f->lib = fake_lib(var);
	cr_assert_eq(ix_gpu_open(&f->c, backend, f->lib, &f->err), 0, "open: %s", f->err.msg);
	f->be = f->c.be;
	f->g = f->c.g;
}

/* A counter of the loaded library (fake.h), element i of an array. */
static inline long counter_at(const struct fake *f, const char *name, int i)
{
	void *h = dlopen(f->lib, RTLD_NOW | RTLD_NOLOAD);
	const long *v = h ? dlsym(h, name) : NULL;
	long n;

	cr_assert_not_null(v, "%s is not loaded, or has no %s", f->lib, name);
	n = v[i];
	dlclose(h);
	return n;
}

static inline long counter(const struct fake *f, const char *name)
{
	return counter_at(f, name, 0);
}

/* Close; nothing may be left alive, and the API was never misused. */
static inline void fake_close(struct fake *f)
{
	static const char *const alive[] = { "fake_streams", "fake_events", "fake_device_allocs",
					     "fake_host_allocs", "fake_ipc_maps" };
	bool cuda = strcmp(f->be->name, "cuda") == 0;

	ix_gpu_close(&f->c);
	for (size_t i = 0; i < sizeof(alive) / sizeof(alive[0]); i++)
		cr_expect_eq(counter(f, alive[i]), 0, "%s: %ld left after close", alive[i],
			     counter(f, alive[i]));
	if (cuda) {
		cr_expect_eq(counter(f, "fake_contexts"), 0, "contexts left retained");
		cr_expect_eq(counter(f, "fake_modules"), 0, "modules left loaded");
	}
	cr_expect_eq(counter(f, "fake_bad"), 0,
		     "the backend misused the driver API %ld times (stderr says how)",
		     counter(f, "fake_bad"));
}

static inline void alloc(struct fake *f, enum ix_gpu_mem mem, int dev, size_t size,
			 struct ix_gpu_buf *b)
{
	cr_assert_eq(f->be->alloc(f->g, mem, dev, size, b, &f->err), 0, "alloc %s on %d: %s",
		     ix_gpu_mem_name(mem), dev, f->err.msg);
}

static inline void fill(struct fake *f, const struct ix_gpu_buf *b, uint8_t v)
{
	cr_assert_eq(f->be->fill(f->g, b, v, &f->err), 0, "fill: %s", f->err.msg);
}

/* A buffer's bytes, as this process sees them: the simulated device
 * memory is host memory. */
static inline const uint8_t *bytes(const struct ix_gpu_buf *b)
{
	return b->host ? b->host : (const uint8_t *)(uintptr_t)b->dev;
}

/* Every byte of b is v. */
static inline bool all(const struct ix_gpu_buf *b, uint8_t v)
{
	for (size_t i = 0; i < b->size; i++)
		if (bytes(b)[i] != v)
			return false;
	return true;
}

static inline void expect_err(const struct fake *f, int rc, int code, const char *text)
{
	cr_assert_eq(rc, -1, "succeeded; expected: %s", text);
	cr_expect_eq(f->err.code, code, "exit status %d: %s", f->err.code, f->err.msg);
	cr_expect(strstr(f->err.msg, text), "'%s' does not say '%s'", f->err.msg, text);
}

#endif
