/* Unit tests for what the CUDA and ROCm backends (probes/gpu/cuda.c,
 * probes/gpu/hip.c) give another library that queues work on their
 * streams (gpu.h: use, streams, events, upload and download), against the
 * SIMULATED driver libraries of tests/gpu/ (drivers.h; part of the
 * test_backends program). The simulated libraries run no GPU: the time
 * between two events is checked to be a number >= 0, nothing more. Each
 * test skips itself when its library is not built. */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "probes/gpu/gpu.h"
#include "tests/unit/probes/gpu/drivers.h"

#define BUF 20000 /* bytes of each buffer: not a whole number of pages */
#define LEN 4096  /* bytes moved */
#define OFF 1000  /* at this offset */

/* A backend, its library, and what it says when a call fails. Criterion
 * copies the parameters into the test's process: the strings are in the
 * struct. */
struct backend {
	char name[8], var[16], fail[16];     /* fail: the library's injection variable */
	char no_device[24];                  /* use of a device out of range */
	char query[24], query_err[64];       /* the stream query, failing with 999 */
	char download[24], download_err[64]; /* from device memory, failing with 2 */
	char upload[24], upload_err[64];     /* to device memory, failing with 999 */
};

static struct criterion_test_params both_backends(void)
{
	static struct backend b[] = {
		{ .name = "cuda",
		  .var = "IX_FAKECUDA",
		  .fail = "FAKECUDA_FAIL",
		  .no_device = "no CUDA device 2",
		  .query = "cuStreamQuery",
		  .query_err = "cuStreamQuery failed: CUDA_ERROR_UNKNOWN (999)",
		  .download = "cuMemcpyDtoH_v2=2",
		  .download_err = "cuMemcpyDtoH failed: CUDA_ERROR_OUT_OF_MEMORY (2)",
		  .upload = "cuMemcpyHtoD_v2",
		  .upload_err = "cuMemcpyHtoD failed: CUDA_ERROR_UNKNOWN (999)" },
		{ .name = "rocm",
		  .var = "IX_FAKEHIP",
		  .fail = "FAKEHIP_FAIL",
		  .no_device = "no ROCm device 2",
		  .query = "hipStreamQuery",
		  .query_err = "hipStreamQuery failed: hipErrorUnknown (999)",
		  .download = "hipMemcpy=2",
		  .download_err = "hipMemcpy failed: hipErrorOutOfMemory (2)",
		  .upload = "hipMemcpy",
		  .upload_err = "hipMemcpy failed: hipErrorUnknown (999)" },
	};

	return cr_make_param_array(struct backend, b, sizeof(b) / sizeof(b[0]));
}

ParameterizedTestParameters(gpu_fake_queue, stream_made_done_freed)
{
	return both_backends();
}

/* use: a device made current, one out of range refused. A stream made on
 * device 1, reported done and freed; the driver's count follows. */
ParameterizedTest(struct backend *b, gpu_fake_queue, stream_made_done_freed)
{
	void *q = NULL;
	struct fake f;

	fake_open(&f, b->name, b->var);
	cr_assert_eq(f.be->use(f.g, 1, &f.err), 0, "%s", f.err.msg);
	expect_err(&f, f.be->use(f.g, 2, &f.err), IX_EXIT_USAGE, b->no_device);
	cr_assert_eq(f.be->stream_new(f.g, 1, &q, &f.err), 0, "%s", f.err.msg);
	cr_assert_not_null(q);
	cr_expect_eq(counter(&f, "fake_streams"), 1, "%s", b->name);
	cr_expect_eq(f.be->stream_done(f.g, q, &f.err), 1, "nothing queued: %s", f.err.msg);
	f.be->stream_free(f.g, 1, q);
	cr_expect_eq(counter(&f, "fake_streams"), 0, "%s", b->name);
	expect_err(&f, f.be->stream_new(f.g, 2, &q, &f.err), IX_EXIT_USAGE, b->no_device);
	cr_expect_eq(counter(&f, "fake_streams"), 0, "%s", b->name);
	fake_close(&f);
}

ParameterizedTestParameters(gpu_fake_queue, events_around_an_upload)
{
	return both_backends();
}

/* Two events recorded on a stream around an upload: the time between
 * them is a number >= 0; events and stream are all released. */
ParameterizedTest(struct backend *b, gpu_fake_queue, events_around_an_upload)
{
	uint8_t src[LEN];
	struct ix_gpu_buf d;
	void *q = NULL, *e0 = NULL, *e1 = NULL;
	float ms = -1;
	struct fake f;

	fake_open(&f, b->name, b->var);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, BUF, &d);
	memset(src, 0x5a, sizeof(src));
	cr_assert_eq(f.be->stream_new(f.g, 0, &q, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(f.be->event_new(f.g, 0, &e0, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(f.be->event_new(f.g, 0, &e1, &f.err), 0, "%s", f.err.msg);
	cr_expect_eq(counter(&f, "fake_events"), 2, "%s", b->name);
	cr_assert_eq(f.be->event_record(f.g, e0, q, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(f.be->upload(f.g, &d, 0, src, LEN, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(f.be->event_record(f.g, e1, q, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(f.be->event_ms(f.g, e0, e1, &ms, &f.err), 0, "%s", f.err.msg);
	cr_expect(isfinite(ms) && ms >= 0, "%s: %g ms between the events", b->name, ms);
	cr_expect_eq(memcmp(bytes(&d), src, LEN), 0, "%s: the upload landed", b->name);
	f.be->event_free(f.g, 0, e0);
	f.be->event_free(f.g, 0, e1);
	f.be->stream_free(f.g, 0, q);
	cr_expect_eq(counter(&f, "fake_events"), 0, "%s", b->name);
	cr_expect_eq(counter(&f, "fake_streams"), 0, "%s", b->name);
	f.be->free(f.g, &d);
	fake_close(&f);
}

/* A pattern uploaded at OFF lands there and nowhere else, and downloads
 * as it was; so do the buffer's last bytes. */
static void round_trip(struct fake *f, enum ix_gpu_mem mem)
{
	uint8_t pat[LEN], got[LEN];
	struct ix_gpu_buf b;
	const char *kind = ix_gpu_mem_name(mem);

	for (size_t i = 0; i < LEN; i++)
		pat[i] = (uint8_t)(i * 7 + 3);
	alloc(f, mem, mem == IX_GPU_MEM_DEVICE ? 1 : -1, BUF, &b);
	fill(f, &b, 0xee);
	cr_assert_eq(f->be->upload(f->g, &b, OFF, pat, LEN, &f->err), 0, "%s", f->err.msg);
	cr_expect_eq(memcmp(bytes(&b) + OFF, pat, LEN), 0, "%s, %s: the pattern is at the offset",
		     f->be->name, kind);
	cr_expect(bytes(&b)[OFF - 1] == 0xee && bytes(&b)[OFF + LEN] == 0xee,
		  "%s, %s: the bytes around it did not change", f->be->name, kind);
	memset(got, 0, sizeof(got));
	cr_assert_eq(f->be->download(f->g, got, &b, OFF, LEN, &f->err), 0, "%s", f->err.msg);
	cr_expect_eq(memcmp(got, pat, LEN), 0, "%s, %s: downloaded as uploaded", f->be->name, kind);
	cr_assert_eq(f->be->upload(f->g, &b, BUF - 16, pat, 16, &f->err), 0, "%s", f->err.msg);
	memset(got, 0, sizeof(got));
	cr_assert_eq(f->be->download(f->g, got, &b, BUF - 16, 16, &f->err), 0, "%s", f->err.msg);
	cr_expect_eq(memcmp(got, pat, 16), 0, "%s, %s: the last 16 bytes", f->be->name, kind);
	f->be->free(f->g, &b);
}

ParameterizedTestParameters(gpu_fake_queue, upload_download_round_trip)
{
	return both_backends();
}

/* Device memory through the driver, host memory of both kinds. */
ParameterizedTest(struct backend *b, gpu_fake_queue, upload_download_round_trip)
{
	static const enum ix_gpu_mem kinds[] = { IX_GPU_MEM_DEVICE, IX_GPU_MEM_PINNED,
						 IX_GPU_MEM_PAGEABLE };
	struct fake f;

	fake_open(&f, b->name, b->var);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		round_trip(&f, kinds[i]);
	fake_close(&f);
}

ParameterizedTestParameters(gpu_fake_queue, transfer_out_of_range)
{
	return both_backends();
}

/* [off, off + n) outside the buffer is refused before any driver call,
 * though the device allocation behind it is larger (whole 2 MiB pages). */
ParameterizedTest(struct backend *b, gpu_fake_queue, transfer_out_of_range)
{
	uint8_t buf[32] = { 0 };
	struct ix_gpu_buf d, pin;
	struct fake f;

	fake_open(&f, b->name, b->var);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, BUF, &d);
	alloc(&f, IX_GPU_MEM_PINNED, -1, BUF, &pin);
	expect_err(&f, f.be->upload(f.g, &d, BUF - 8, buf, 16, &f.err), IX_EXIT_USAGE,
		   "16 bytes at offset 19992 overrun a GPU buffer of 20000 bytes");
	expect_err(&f, f.be->download(f.g, buf, &d, BUF + 1, 0, &f.err), IX_EXIT_USAGE, "overrun");
	expect_err(&f, f.be->upload(f.g, &d, SIZE_MAX, buf, 2, &f.err), IX_EXIT_USAGE, "overrun");
	expect_err(&f, f.be->download(f.g, buf, &pin, 8, SIZE_MAX, &f.err), IX_EXIT_USAGE,
		   "overrun");
	cr_expect_eq(f.be->upload(f.g, &d, BUF, buf, 0, &f.err), 0, "0 bytes at the end: %s",
		     f.err.msg);
	f.be->free(f.g, &d);
	f.be->free(f.g, &pin);
	fake_close(&f);
}

ParameterizedTestParameters(gpu_fake_queue, stream_and_copy_errors)
{
	return both_backends();
}

/* The query's "not ready" is "not done yet", any other failure is named;
 * so is a failing copy of device memory either way. */
ParameterizedTest(struct backend *b, gpu_fake_queue, stream_and_copy_errors)
{
	char not_ready[40];
	uint8_t buf[64] = { 0 };
	struct ix_gpu_buf d;
	void *q = NULL;
	struct fake f;

	fake_open(&f, b->name, b->var);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, BUF, &d);
	cr_assert_eq(f.be->stream_new(f.g, 0, &q, &f.err), 0, "%s", f.err.msg);
	snprintf(not_ready, sizeof(not_ready), "%s=600", b->query);
	setenv(b->fail, not_ready, 1);
	cr_expect_eq(f.be->stream_done(f.g, q, &f.err), 0, "%s: still running: %s", b->name,
		     f.err.msg);
	setenv(b->fail, b->query, 1);
	expect_err(&f, f.be->stream_done(f.g, q, &f.err), IX_EXIT_FAIL, b->query_err);
	setenv(b->fail, b->download, 1);
	expect_err(&f, f.be->download(f.g, buf, &d, 0, sizeof(buf), &f.err), IX_EXIT_FAIL,
		   b->download_err);
	setenv(b->fail, b->upload, 1);
	expect_err(&f, f.be->upload(f.g, &d, 0, buf, sizeof(buf), &f.err), IX_EXIT_FAIL,
		   b->upload_err);
	unsetenv(b->fail);
	cr_expect_eq(f.be->stream_done(f.g, q, &f.err), 1, "%s", f.err.msg);
	cr_expect_eq(f.be->upload(f.g, &d, 0, buf, sizeof(buf), &f.err), 0, "%s", f.err.msg);
	f.be->stream_free(f.g, 0, q);
	f.be->free(f.g, &d);
	fake_close(&f);
}

/* ---- CUDA ---- */

/* use retains the device's primary context (released on close). */
Test(gpu_fake_cuda, use_retains_the_context)
{
	struct fake f;
	long contexts;

	fake_open(&f, "cuda", "IX_FAKECUDA");
	contexts = counter(&f, "fake_contexts");
	cr_assert_eq(f.be->use(f.g, 1, &f.err), 0, "%s", f.err.msg);
	cr_expect_eq(counter(&f, "fake_contexts"), contexts + 1, "device 1's context retained");
	cr_assert_eq(f.be->use(f.g, 1, &f.err), 0, "%s", f.err.msg);
	cr_expect_eq(counter(&f, "fake_contexts"), contexts + 1, "once");
	fake_close(&f);
}

/* ---- ROCm (HIP) ---- */

/* A host function the simulated runtime runs on a thread of its own: held
 * until released. */
static int held = 1;

static void hold(void *arg)
{
	struct timespec nap = { 0, 100000 };

	while (__atomic_load_n((int *)arg, __ATOMIC_ACQUIRE))
		nanosleep(&nap, NULL);
}

/* Not done while work on the stream still runs; done once it returns. */
Test(gpu_fake_rocm, stream_not_done_while_work_runs)
{
	struct fake f;
	void *q = NULL, *h, *sym;
	int (*launch)(void *q, void (*fn)(void *), void *arg);
	struct timespec nap = { 0, 1000000 };
	int done = 0;

	fake_open(&f, "rocm", "IX_FAKEHIP");
	h = dlopen(f.lib, RTLD_NOW | RTLD_NOLOAD);
	sym = h ? dlsym(h, "hipLaunchHostFunc") : NULL;
	cr_assert_not_null(sym, "%s has no hipLaunchHostFunc", f.lib);
	memcpy(&launch, &sym, sizeof(sym)); /* a function pointer from dlsym's void * */
	cr_assert_eq(f.be->stream_new(f.g, 0, &q, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(launch(q, hold, &held), 0);
	cr_expect_eq(f.be->stream_done(f.g, q, &f.err), 0, "the host function is held: %s",
		     f.err.msg);
	__atomic_store_n(&held, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < 10000 && (done = f.be->stream_done(f.g, q, &f.err)) == 0; i++)
		nanosleep(&nap, NULL);
	cr_expect_eq(done, 1, "done once the host function returned: %s", f.err.msg);
	f.be->stream_free(f.g, 0, q);
	dlclose(h);
	fake_close(&f);
}
