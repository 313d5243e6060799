/* Unit tests for the CUDA and ROCm backends (probes/gpu/cuda.c,
 * probes/gpu/hip.c) driven through probes/gpu/gpu.h against the SIMULATED
 * driver libraries of tests/gpu/ (fakecuda.c, fakehip.c), which make
 * check builds and names in IX_FAKECUDA and IX_FAKEHIP: the inventory,
 * every memory kind, fills, copies (their bytes really move), peer access,
 * the pointer chase, IPC, dmabuf, error messages, and that every stream,
 * event, allocation, context and module is released. The simulated
 * libraries run no GPU: no time they report is checked, only that it is
 * a number. Each test skips itself when its library is not built. The
 * streams, events and transfers another library uses are tested in
 * test_backends_queue.c (the same program; drivers.h holds what both use). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/gpu/gpu.h"
#include "tests/unit/probes/gpu/drivers.h"

#define SIZE (3 * 1000 * 1000 + 7) /* not a whole number of pages */

static int batch(struct fake *f, struct ix_gpu_copy *cp, int n)
{
	int rc = f->be->copy_batch(f->g, cp, n, 3, 1, &f->err);

	for (int i = 0; rc == 0 && i < n; i++)
		cr_expect(isfinite(cp[i].ns) && cp[i].ns >= 0, "copy %d took %g ns", i, cp[i].ns);
	return rc;
}

static struct ix_gpu_copy copy(const struct ix_gpu_buf *s, const struct ix_gpu_buf *d, int exec,
			       enum ix_gpu_engine engine)
{
	return (struct ix_gpu_copy){ s, d, s->size < d->size ? s->size : d->size, exec, engine, 0 };
}

/* ---- CUDA ---- */

Test(gpu_fake_cuda, inventory)
{
	struct fake f;

	fake_open(&f, "cuda", "IX_FAKECUDA");
	cr_expect_str_eq(f.c.info.name, "cuda");
	cr_expect_str_eq(f.c.info.version, "12.4");
	cr_expect(strstr(f.c.info.library, "libfakecuda"), "library %s", f.c.info.library);
	cr_expect_eq(f.c.info.caps,
		     IX_GPU_CAP_PEER | IX_GPU_CAP_KERNEL | IX_GPU_CAP_IPC | IX_GPU_CAP_DMABUF);
	cr_expect_str_eq(f.c.info.no_kernel, "", "the kernels loaded");
	cr_assert_eq(f.c.ndevices, 2);
	cr_expect_str_eq(f.c.dev[0].name, "Fake GPU 0");
	cr_expect_str_eq(f.c.dev[1].name, "Fake GPU 1");
	/* "0000:1A:00.0" and "00000000:3B:00.0" from the driver: sysfs' form */
	cr_expect_str_eq(f.c.dev[0].pci_bus_id, "0000:1a:00.0");
	cr_expect_str_eq(f.c.dev[1].pci_bus_id, "0000:3b:00.0");
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(f.c.dev[i].index, i);
		cr_expect_eq(f.c.dev[i].mem_bytes, 80ull << 30);
		cr_expect_eq(f.c.dev[i].multiprocessors, 132);
		cr_expect_eq(f.c.dev[i].numa_node, -1);
		/* 2619 MHz x 5120 bits / 8 x 2 (double data rate) */
		cr_expect(f.c.dev[i].hbm_bps.valid);
		cr_expect_eq(f.c.dev[i].hbm_bps.v, 2619000.0 * 1000 * 5120 / 8 * 2);
	}
	cr_expect_gt(counter(&f, "fake_modules"), 0, "the kernels are loaded to probe them");
	fake_close(&f);
}

Test(gpu_fake_cuda, alloc_and_free_each_kind)
{
	struct fake f;
	struct ix_gpu_buf d0, d1, pin, pag, none;

	fake_open(&f, "cuda", "IX_FAKECUDA");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d1);
	alloc(&f, IX_GPU_MEM_PINNED, -1, SIZE, &pin);
	alloc(&f, IX_GPU_MEM_PAGEABLE, -1, SIZE, &pag);
	cr_expect(d0.device == 0 && d1.device == 1 && d0.dev && d1.dev && !d0.host);
	cr_expect(pin.device == -1 && pin.host && pin.dev, "pinned: host and device addresses");
	cr_expect(pag.device == -1 && pag.host && !pag.dev, "pageable: host only");
	cr_expect(d0.size == SIZE && pin.size == SIZE && pag.size == SIZE);
	cr_expect_eq(counter(&f, "fake_device_allocs"), 2);
	expect_err(&f, f.be->alloc(f.g, IX_GPU_MEM_DEVICE, 2, SIZE, &none, &f.err), IX_EXIT_USAGE,
		   "no CUDA device 2");
	expect_err(&f, f.be->alloc(f.g, IX_GPU_MEM_DEVICE, 0, 0, &none, &f.err), IX_EXIT_USAGE,
		   "0 bytes");
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d1);
	f.be->free(f.g, &pin);
	f.be->free(f.g, &pag);
	cr_expect_eq(counter(&f, "fake_device_allocs"), 0);
	fake_close(&f);
}

Test(gpu_fake_cuda, fill_each_kind)
{
	struct fake f;
	struct ix_gpu_buf d, pin, pag;

	fake_open(&f, "cuda", "IX_FAKECUDA");
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d);
	alloc(&f, IX_GPU_MEM_PINNED, -1, SIZE, &pin);
	alloc(&f, IX_GPU_MEM_PAGEABLE, -1, SIZE, &pag);
	fill(&f, &d, 0xab);
	fill(&f, &pin, 0x11);
	fill(&f, &pag, 0x22);
	cr_expect(all(&d, 0xab) && all(&pin, 0x11) && all(&pag, 0x22));
	f.be->free(f.g, &d);
	f.be->free(f.g, &pin);
	f.be->free(f.g, &pag);
	fake_close(&f);
}

/* Copy engine copies, gated by a spin kernel on every stream. */
Test(gpu_fake_cuda, copy_engine)
{
	struct fake f;
	struct ix_gpu_buf d0, d0b, d1, pin, pag;
	struct ix_gpu_copy cp[3];

	fake_open(&f, "cuda", "IX_FAKECUDA");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0b);
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d1);
	alloc(&f, IX_GPU_MEM_PINNED, -1, SIZE, &pin);
	alloc(&f, IX_GPU_MEM_PAGEABLE, -1, SIZE, &pag);
	fill(&f, &d0, 0x31);
	fill(&f, &pin, 0x32);
	cp[0] = copy(&d0, &d0b, 0, IX_GPU_CE);
	cp[1] = copy(&pin, &d1, 1, IX_GPU_CE);
	cp[2] = copy(&d0, &pag, 0, IX_GPU_CE);
	cr_assert_eq(batch(&f, cp, 2), 0, "%s", f.err.msg);
	cr_expect(all(&d0b, 0x31) && all(&d1, 0x32), "the bytes were copied");
	cr_expect_eq(counter(&f, "fake_copies"), 2 * 4, "2 copies x (3 + 1 warm-up)");
	cr_expect_eq(counter_at(&f, "fake_launches", 2), 2, "a spin kernel on each stream");
	/* Pageable memory: the driver may copy on this thread, so no gate. */
	cr_assert_eq(batch(&f, cp, 3), 0, "%s", f.err.msg);
	cr_expect(all(&pag, 0x31));
	cr_expect_eq(counter_at(&f, "fake_launches", 2), 2, "no gate with pageable memory");
	/* Over 1024 copies queued behind a gate: none. */
	cr_assert_eq(f.be->copy_batch(f.g, cp, 2, 600, 0, &f.err), 0, "%s", f.err.msg);
	cr_expect_eq(counter_at(&f, "fake_launches", 2), 2, "1200 copies are not gated");
	cp[1].bytes = SIZE + 1;
	expect_err(&f, batch(&f, cp, 2), IX_EXIT_USAGE, "overruns");
	expect_err(&f, f.be->copy_batch(f.g, cp, 0, 3, 1, &f.err), IX_EXIT_USAGE, "0 copies");
	cr_expect_eq(counter(&f, "fake_streams") + counter(&f, "fake_events"), 0);
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d0b);
	f.be->free(f.g, &d1);
	f.be->free(f.g, &pin);
	f.be->free(f.g, &pag);
	fake_close(&f);
}

/* Between devices without peer access the driver stages the copy. */
Test(gpu_fake_cuda, copy_between_devices)
{
	struct fake f;
	struct ix_gpu_buf d0, d1;
	struct ix_gpu_copy cp;

	fake_open(&f, "cuda", "IX_FAKECUDA");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d1);
	fill(&f, &d0, 0x41);
	cp = copy(&d0, &d1, 1, IX_GPU_CE);
	cr_assert_eq(batch(&f, &cp, 1), 0, "%s", f.err.msg);
	cr_expect(all(&d1, 0x41));
	cr_expect_eq(counter(&f, "fake_peer_copies"), 4, "staged: cuMemcpyPeerAsync");
	cr_assert_eq(f.be->set_peer(f.g, 1, 0, true, &f.err), 0, "%s", f.err.msg);
	fill(&f, &d0, 0x42);
	cr_assert_eq(batch(&f, &cp, 1), 0, "%s", f.err.msg);
	cr_expect(all(&d1, 0x42));
	cr_expect_eq(counter(&f, "fake_peer_copies"), 4, "with peer access: cuMemcpyAsync");
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d1);
	fake_close(&f);
}

/* The copy kernel: peer access needed, pageable memory out of reach. */
Test(gpu_fake_cuda, copy_kernel)
{
	struct fake f;
	struct ix_gpu_buf d0, d1, pin, pag;
	struct ix_gpu_copy cp[2];

	fake_open(&f, "cuda", "IX_FAKECUDA");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d1);
	alloc(&f, IX_GPU_MEM_PINNED, -1, SIZE, &pin);
	alloc(&f, IX_GPU_MEM_PAGEABLE, -1, SIZE, &pag);
	fill(&f, &d0, 0x51);
	fill(&f, &d1, 0);
	fill(&f, &pin, 0x52);
	cp[0] = copy(&d0, &d1, 0, IX_GPU_SM);
	cp[1] = copy(&pin, &d0, 0, IX_GPU_SM);
	expect_err(&f, batch(&f, cp, 2), IX_EXIT_UNAVAILABLE, "no peer access enabled to device 1");
	cr_assert_eq(f.be->set_peer(f.g, 0, 1, true, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(batch(&f, cp, 1), 0, "%s", f.err.msg);
	cr_expect(all(&d1, 0x51), "the kernel copied into the peer's memory");
	cr_assert_eq(batch(&f, &cp[1], 1), 0, "%s", f.err.msg);
	cr_expect(all(&d0, 0x52), "the kernel copied from pinned memory");
	cr_expect_eq(counter_at(&f, "fake_launches", 0), 2 * 4, "a launch per repetition");
	cr_expect_eq(counter_at(&f, "fake_launches", 2), 2, "gated");
	cp[1].src = &pag;
	expect_err(&f, batch(&f, &cp[1], 1), IX_EXIT_UNAVAILABLE, "pageable host memory");
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d1);
	f.be->free(f.g, &pin);
	f.be->free(f.g, &pag);
	fake_close(&f);
}

Test(gpu_fake_cuda, peer_access)
{
	struct fake f;
	struct ix_gpu_buf d0, d1;
	struct ix_gpu_copy cp;
	bool yes = false;

	fake_open(&f, "cuda", "IX_FAKECUDA");
	cr_expect(f.be->can_access_peer(f.g, 0, 1, &yes, &f.err) == 0 && yes);
	cr_expect(f.be->can_access_peer(f.g, 1, 1, &yes, &f.err) == 0 && yes, "itself");
	expect_err(&f, f.be->can_access_peer(f.g, 0, 2, &yes, &f.err), IX_EXIT_USAGE, "device 2");
	cr_expect(!yes);
	/* Enabling or disabling twice is no error. */
	for (int i = 0; i < 2; i++)
		cr_assert_eq(f.be->set_peer(f.g, 0, 1, true, &f.err), 0, "%s", f.err.msg);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d1);
	cp = copy(&d1, &d0, 0, IX_GPU_SM);
	cr_assert_eq(batch(&f, &cp, 1), 0, "%s", f.err.msg);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(f.be->set_peer(f.g, 0, 1, false, &f.err), 0, "%s", f.err.msg);
	expect_err(&f, batch(&f, &cp, 1), IX_EXIT_UNAVAILABLE, "no peer access");
	cr_expect_eq(f.be->set_peer(f.g, 1, 1, true, &f.err), 0, "with itself: nothing to do");
	expect_err(&f, f.be->set_peer(f.g, 0, 2, true, &f.err), IX_EXIT_USAGE, "device 2");
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d1);
	fake_close(&f);
}

Test(gpu_fake_cuda, pointer_chase)
{
	struct fake f;
	struct ix_gpu_buf chain, pin, pag;
	double ns = -1;
	long hops;

	fake_open(&f, "cuda", "IX_FAKECUDA");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, 1 << 20, &chain);
	alloc(&f, IX_GPU_MEM_PINNED, -1, 1 << 20, &pin);
	alloc(&f, IX_GPU_MEM_PAGEABLE, -1, 1 << 20, &pag);
	cr_assert_eq(f.be->chase(f.g, 0, &chain, 64, 100000, &ns, &f.err), 0, "%s", f.err.msg);
	cr_expect(isfinite(ns) && ns >= 0, "%g ns per hop", ns);
	/* The warm-up pass (65536 hops at most) and the timed one; the fake
	 * checks each hop lands in the chain. */
	cr_expect_eq(counter(&f, "fake_hops"), 100000 + 65536);
	for (size_t i = 0; i < chain.size; i += 64) {
		uint64_t next;

		memcpy(&next, bytes(&chain) + i, sizeof(next));
		cr_assert(next >= chain.dev && next < chain.dev + chain.size && next % 64 == 0,
			  "slot %zu points outside the chain", i / 64);
	}
	expect_err(&f, f.be->chase(f.g, 1, &chain, 64, 100, &ns, &f.err), IX_EXIT_UNAVAILABLE,
		   "no peer access");
	cr_assert_eq(f.be->set_peer(f.g, 1, 0, true, &f.err), 0, "%s", f.err.msg);
	hops = counter(&f, "fake_hops");
	cr_expect_eq(f.be->chase(f.g, 1, &chain, 64, 100, &ns, &f.err), 0, "%s", f.err.msg);
	cr_expect_eq(counter(&f, "fake_hops"), hops + 200, "from the peer");
	cr_expect_eq(f.be->chase(f.g, 0, &pin, 128, 1000, &ns, &f.err), 0, "%s", f.err.msg);
	expect_err(&f, f.be->chase(f.g, 0, &pag, 128, 1000, &ns, &f.err), IX_EXIT_UNAVAILABLE,
		   "pageable");
	expect_err(&f, f.be->chase(f.g, 0, &chain, 12, 100, &ns, &f.err), IX_EXIT_USAGE,
		   "12-byte hops");
	f.be->free(f.g, &chain);
	f.be->free(f.g, &pin);
	f.be->free(f.g, &pag);
	fake_close(&f);
}

/* Export a buffer, import it on the other device (the fake maps the same
 * memory again): the bytes are shared. */
static void ipc_roundtrip(struct fake *f)
{
	struct ix_gpu_buf d0, pin, imp;
	uint8_t h[IX_GPU_IPC_HANDLE];

	alloc(f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(f, IX_GPU_MEM_PINNED, -1, SIZE, &pin);
	fill(f, &d0, 0x61);
	cr_assert_eq(f->be->ipc_export(f->g, &d0, h, &f->err), 0, "%s", f->err.msg);
	cr_assert_eq(f->be->ipc_import(f->g, 1, h, SIZE, &imp, &f->err), 0, "%s", f->err.msg);
	cr_expect(imp.imported && imp.device == 1 && imp.size == SIZE && imp.mem == 0);
	cr_expect(all(&imp, 0x61), "the importer sees the exporter's bytes");
	fill(f, &d0, 0x62);
	cr_expect(all(&imp, 0x62), "and its writes");
	cr_expect_eq(counter(f, "fake_ipc_maps"), 1);
	expect_err(f, f->be->ipc_export(f->g, &pin, h, &f->err), IX_EXIT_UNAVAILABLE,
		   "only device memory");
	expect_err(f, f->be->ipc_export(f->g, &imp, h, &f->err), IX_EXIT_UNAVAILABLE,
		   "only device memory");
	f->be->ipc_close(f->g, &imp);
	cr_expect_eq(counter(f, "fake_ipc_maps"), 0);
	f->be->free(f->g, &d0);
	f->be->free(f->g, &pin);
}

Test(gpu_fake_cuda, ipc_export_import)
{
	struct fake f;

	fake_open(&f, "cuda", "IX_FAKECUDA");
	ipc_roundtrip(&f);
	fake_close(&f);
}

/* The fd reads back the buffer's bytes. */
static void dmabuf_reads_back(struct fake *f, const struct ix_gpu_buf *b)
{
	uint8_t got[4096];
	int fd = -1;

	cr_assert_eq(f->be->dmabuf_fd(f->g, b, &fd, &f->err), 0, "%s", f->err.msg);
	cr_assert_geq(fd, 0);
	cr_expect_eq(pread(fd, got, sizeof(got), 0), (ssize_t)sizeof(got));
	cr_expect_eq(memcmp(got, bytes(b), sizeof(got)), 0, "the fd is the buffer's memory");
	close(fd);
}

Test(gpu_fake_cuda, dmabuf_fd)
{
	struct fake f;
	struct ix_gpu_buf d0, d1, pin, imp;
	uint8_t h[IX_GPU_IPC_HANDLE];
	int fd = 0;

	fake_open(&f, "cuda", "IX_FAKECUDA");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d1);
	alloc(&f, IX_GPU_MEM_PINNED, -1, SIZE, &pin);
	fill(&f, &d0, 0x71);
	dmabuf_reads_back(&f, &d0);
	/* The fake reports dmabuf support on device 0 only. */
	expect_err(&f, f.be->dmabuf_fd(f.g, &d1, &fd, &f.err), IX_EXIT_UNAVAILABLE,
		   "device 1 has no dmabuf support");
	cr_expect_eq(fd, -1);
	expect_err(&f, f.be->dmabuf_fd(f.g, &pin, &fd, &f.err), IX_EXIT_UNAVAILABLE,
		   "needs device memory");
	cr_assert_eq(f.be->ipc_export(f.g, &d0, h, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(f.be->ipc_import(f.g, 0, h, SIZE, &imp, &f.err), 0, "%s", f.err.msg);
	expect_err(&f, f.be->dmabuf_fd(f.g, &imp, &fd, &f.err), IX_EXIT_UNAVAILABLE,
		   "allocated here");
	f.be->free(f.g, &imp); /* an imported buffer is closed by free as well */
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d1);
	f.be->free(f.g, &pin);
	fake_close(&f);
}

/* A failing call is named, with the driver's name for the error. */
Test(gpu_fake_cuda, error_names_the_call)
{
	struct fake f;
	struct ix_gpu_buf b;

	setenv("FAKECUDA_FAIL", "cuMemAlloc_v2=2", 1);
	fake_open(&f, "cuda", "IX_FAKECUDA");
	expect_err(&f, f.be->alloc(f.g, IX_GPU_MEM_DEVICE, 0, SIZE, &b, &f.err), IX_EXIT_FAIL,
		   "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2)");
	fake_close(&f);
}

/* A code the driver has no name for; the batch's streams and events are
 * released all the same. */
Test(gpu_fake_cuda, error_in_a_batch_releases_it)
{
	struct fake f;
	struct ix_gpu_buf d0, d0b;
	struct ix_gpu_copy cp;

	setenv("FAKECUDA_FAIL", "cuMemcpyAsync=12345", 1);
	fake_open(&f, "cuda", "IX_FAKECUDA");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0b);
	cp = copy(&d0, &d0b, 0, IX_GPU_CE);
	expect_err(&f, batch(&f, &cp, 1), IX_EXIT_FAIL,
		   "cuMemcpyAsync failed: unknown error (12345)");
	cr_expect_eq(counter(&f, "fake_streams"), 0);
	cr_expect_eq(counter(&f, "fake_events"), 0);
	setenv("FAKECUDA_FAIL", "cuEventCreate", 1);
	expect_err(&f, batch(&f, &cp, 1), IX_EXIT_FAIL,
		   "cuEventCreate failed: CUDA_ERROR_UNKNOWN (999)");
	cr_expect_eq(counter(&f, "fake_streams"), 0, "the stream made before is destroyed");
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d0b);
	fake_close(&f);
}

Test(gpu_fake_cuda, init_errors)
{
	struct ix_gpu_ctx c;
	struct ix_err err = { 0 };
	const char *lib = fake_lib("IX_FAKECUDA");

	setenv("FAKECUDA_FAIL", "cuInit=100", 1);
	cr_expect_eq(ix_gpu_open(&c, "cuda", lib, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_expect(strstr(err.msg, "finds no NVIDIA GPU"), "%s", err.msg);
	setenv("FAKECUDA_FAIL", "cuInit=34", 1);
	cr_expect_eq(ix_gpu_open(&c, "cuda", lib, &err), -1);
	cr_expect(strstr(err.msg, "stub library"), "%s", err.msg);
	setenv("FAKECUDA_FAIL", "cuInit=3", 1);
	cr_expect_eq(ix_gpu_open(&c, "cuda", lib, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_FAIL);
	cr_expect(strstr(err.msg, "cuInit failed"), "%s", err.msg);
}

/* Kernels that do not load: copy engine copies still run, ungated. */
Test(gpu_fake_cuda, kernels_do_not_load)
{
	struct fake f;
	struct ix_gpu_buf d0, d0b;
	struct ix_gpu_copy cp;
	double ns;

	setenv("FAKECUDA_FAIL", "cuModuleLoadDataEx=218", 1);
	fake_open(&f, "cuda", "IX_FAKECUDA");
	cr_expect_eq(f.c.info.caps & IX_GPU_CAP_KERNEL, 0);
	cr_expect(strstr(f.c.info.no_kernel, "CUDA_ERROR_INVALID_PTX") &&
			  strstr(f.c.info.no_kernel, "no pointer chase"),
		  "%s", f.c.info.no_kernel);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0b);
	fill(&f, &d0, 0x81);
	cp = copy(&d0, &d0b, 0, IX_GPU_CE);
	cr_assert_eq(batch(&f, &cp, 1), 0, "%s", f.err.msg);
	cr_expect(all(&d0b, 0x81));
	cr_expect_eq(counter_at(&f, "fake_launches", 2), 0, "no gate");
	cp.engine = IX_GPU_SM;
	expect_err(&f, batch(&f, &cp, 1), IX_EXIT_FAIL,
		   "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX");
	cr_expect(strstr(f.err.msg, "the embedded kernels do not load on device 0"), "%s",
		  f.err.msg);
	expect_err(&f, f.be->chase(f.g, 0, &d0, 64, 100, &ns, &f.err), IX_EXIT_FAIL,
		   "cuModuleLoadDataEx");
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d0b);
	fake_close(&f);
}

/* ---- ROCm (HIP) ---- */

Test(gpu_fake_rocm, inventory)
{
	struct fake f;

	fake_open(&f, "rocm", "IX_FAKEHIP");
	cr_expect_str_eq(f.c.info.name, "rocm");
	cr_expect_str_eq(f.c.info.version, "6.2.41134");
	cr_expect(strstr(f.c.info.library, "libfakehip"), "library %s", f.c.info.library);
	cr_expect_eq(f.c.info.caps, IX_GPU_CAP_PEER | IX_GPU_CAP_IPC | IX_GPU_CAP_DMABUF,
		     "no kernels: caps %#x", f.c.info.caps);
	cr_expect(strstr(f.c.info.no_kernel, "copy-engine (hipMemcpy) tests only") &&
			  strstr(f.c.info.no_kernel, "no pointer-chase latency"),
		  "%s", f.c.info.no_kernel);
	cr_assert_eq(f.c.ndevices, 2);
	cr_expect_str_eq(f.c.dev[0].name, "Fake HIP GPU 0");
	cr_expect_str_eq(f.c.dev[1].name, "Fake HIP GPU 1");
	cr_expect_str_eq(f.c.dev[0].pci_bus_id, "0000:c1:00.0", "lower case");
	cr_expect_str_eq(f.c.dev[1].pci_bus_id, "0000:c2:00.0");
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(f.c.dev[i].mem_bytes, 192ull << 30);
		cr_expect_eq(f.c.dev[i].multiprocessors, 304);
		cr_expect(f.c.dev[i].hbm_bps.valid);
		cr_expect_eq(f.c.dev[i].hbm_bps.v, 1300000.0 * 1000 * 8192 / 8 * 2);
	}
	fake_close(&f);
}

Test(gpu_fake_rocm, alloc_fill_free)
{
	struct fake f;
	struct ix_gpu_buf d1, pin, pag, none;

	fake_open(&f, "rocm", "IX_FAKEHIP");
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d1);
	alloc(&f, IX_GPU_MEM_PINNED, -1, SIZE, &pin);
	alloc(&f, IX_GPU_MEM_PAGEABLE, -1, SIZE, &pag);
	cr_expect(d1.device == 1 && d1.dev && pin.host && pin.dev && pag.host && !pag.dev);
	fill(&f, &d1, 0x91);
	fill(&f, &pin, 0x92);
	fill(&f, &pag, 0x93);
	cr_expect(all(&d1, 0x91) && all(&pin, 0x92) && all(&pag, 0x93));
	expect_err(&f, f.be->alloc(f.g, IX_GPU_MEM_DEVICE, 2, SIZE, &none, &f.err), IX_EXIT_USAGE,
		   "no ROCm device 2");
	f.be->free(f.g, &d1);
	f.be->free(f.g, &pin);
	f.be->free(f.g, &pag);
	fake_close(&f);
}

/* Held by an event gate: a host function per device, a wait per copy. */
Test(gpu_fake_rocm, copy_engine)
{
	struct fake f;
	struct ix_gpu_buf d0, d1, pin, pin2, pag;
	struct ix_gpu_copy cp[3];

	fake_open(&f, "rocm", "IX_FAKEHIP");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d1);
	alloc(&f, IX_GPU_MEM_PINNED, -1, SIZE, &pin);
	alloc(&f, IX_GPU_MEM_PINNED, -1, SIZE, &pin2);
	alloc(&f, IX_GPU_MEM_PAGEABLE, -1, SIZE, &pag);
	fill(&f, &d0, 0xa1);
	fill(&f, &pin, 0xa2);
	cp[0] = copy(&d0, &pag, 0, IX_GPU_CE);
	cp[1] = copy(&pin, &d1, 1, IX_GPU_CE);
	cp[2] = copy(&d0, &pin2, 1, IX_GPU_CE);
	cr_assert_eq(batch(&f, &cp[1], 2), 0, "%s", f.err.msg);
	cr_expect(all(&d1, 0xa2) && all(&pin2, 0xa1));
	cr_expect_eq(counter(&f, "fake_host_fns"), 1, "one gate: both copies run on device 1");
	cr_expect_eq(counter(&f, "fake_waits"), 2);
	cr_assert_eq(batch(&f, cp, 2), 0, "%s", f.err.msg);
	cr_expect(all(&pag, 0xa1));
	cr_expect_eq(counter(&f, "fake_host_fns"), 1, "no gate with pageable memory");
	cr_expect_eq(counter(&f, "fake_copies"), 4 * 4);
	/* Between devices: staged without peer access, direct with it. */
	cp[2].src = &d0;
	cp[2].dst = &d1;
	cr_assert_eq(batch(&f, &cp[2], 1), 0, "%s", f.err.msg);
	cr_expect_eq(counter(&f, "fake_peer_copies"), 4, "staged: hipMemcpyPeerAsync");
	cr_assert_eq(f.be->set_peer(f.g, 1, 0, true, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(f.be->set_peer(f.g, 1, 0, true, &f.err), 0, "twice: %s", f.err.msg);
	fill(&f, &d0, 0xa3);
	cr_assert_eq(batch(&f, &cp[2], 1), 0, "%s", f.err.msg);
	cr_expect(all(&d1, 0xa3));
	cr_expect_eq(counter(&f, "fake_peer_copies"), 4, "with peer access: hipMemcpyAsync");
	cr_expect_eq(counter(&f, "fake_host_fns"), 2, "and gated");
	cr_assert_eq(f.be->set_peer(f.g, 1, 0, false, &f.err), 0, "%s", f.err.msg);
	cr_assert_eq(f.be->set_peer(f.g, 1, 0, false, &f.err), 0, "twice: %s", f.err.msg);
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d1);
	f.be->free(f.g, &pin);
	f.be->free(f.g, &pin2);
	f.be->free(f.g, &pag);
	fake_close(&f);
}

Test(gpu_fake_rocm, no_kernels)
{
	struct fake f;
	struct ix_gpu_buf d0, d0b;
	struct ix_gpu_copy cp;
	double ns = -1;

	fake_open(&f, "rocm", "IX_FAKEHIP");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0b);
	cp = copy(&d0, &d0b, 0, IX_GPU_SM);
	expect_err(&f, batch(&f, &cp, 1), IX_EXIT_UNAVAILABLE, "no AMD GPU code object");
	expect_err(&f, f.be->chase(f.g, 0, &d0, 64, 100, &ns, &f.err), IX_EXIT_UNAVAILABLE,
		   "no AMD GPU code object");
	cr_expect_eq(ns, 0);
	f.be->free(f.g, &d0);
	f.be->free(f.g, &d0b);
	fake_close(&f);
}

Test(gpu_fake_rocm, ipc_export_import)
{
	struct fake f;

	fake_open(&f, "rocm", "IX_FAKEHIP");
	ipc_roundtrip(&f);
	cr_expect_eq(counter(&f, "fake_ipc_open_calls"), 1);
	fake_close(&f);
}

/* hipIpcOpenMemHandle refusing flag 1 (invalid value): tried again with 0. */
Test(gpu_fake_rocm, ipc_import_retries_with_flag_0)
{
	struct fake f;

	setenv("FAKEHIP_FAIL", "hipIpcOpenMemHandle=1:1", 1);
	fake_open(&f, "rocm", "IX_FAKEHIP");
	ipc_roundtrip(&f);
	cr_expect_eq(counter(&f, "fake_ipc_open_calls"), 2);
	fake_close(&f);
}

Test(gpu_fake_rocm, dmabuf_fd)
{
	struct fake f;
	struct ix_gpu_buf d1, pin;
	int fd = 0;

	fake_open(&f, "rocm", "IX_FAKEHIP");
	alloc(&f, IX_GPU_MEM_DEVICE, 1, SIZE, &d1);
	alloc(&f, IX_GPU_MEM_PINNED, -1, SIZE, &pin);
	fill(&f, &d1, 0xb1);
	dmabuf_reads_back(&f, &d1);
	expect_err(&f, f.be->dmabuf_fd(f.g, &pin, &fd, &f.err), IX_EXIT_UNAVAILABLE,
		   "needs device memory");
	cr_expect_eq(fd, -1);
	f.be->free(f.g, &d1);
	f.be->free(f.g, &pin);
	fake_close(&f);
}

Test(gpu_fake_rocm, error_names_the_call)
{
	struct fake f;
	struct ix_gpu_buf b, d0;
	struct ix_gpu_copy cp;

	setenv("FAKEHIP_FAIL", "hipMalloc=2:1", 1);
	fake_open(&f, "rocm", "IX_FAKEHIP");
	expect_err(&f, f.be->alloc(f.g, IX_GPU_MEM_DEVICE, 0, SIZE, &b, &f.err), IX_EXIT_FAIL,
		   "hipMalloc failed: hipErrorOutOfMemory (2)");
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &d0);
	alloc(&f, IX_GPU_MEM_DEVICE, 0, SIZE, &b);
	setenv("FAKEHIP_FAIL", "hipStreamWaitEvent", 1);
	cp = copy(&d0, &b, 0, IX_GPU_CE);
	expect_err(&f, batch(&f, &cp, 1), IX_EXIT_FAIL,
		   "hipStreamWaitEvent failed: hipErrorUnknown (999)");
	cr_expect_eq(counter(&f, "fake_streams"), 0, "the batch's streams are destroyed");
	cr_expect_eq(counter(&f, "fake_events"), 0);
	f.be->free(f.g, &d0);
	f.be->free(f.g, &b);
	fake_close(&f);
}

Test(gpu_fake_rocm, init_errors)
{
	struct ix_gpu_ctx c;
	struct ix_err err = { 0 };
	const char *lib = fake_lib("IX_FAKEHIP");

	setenv("FAKEHIP_FAIL", "hipInit=100", 1);
	cr_expect_eq(ix_gpu_open(&c, "rocm", lib, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_expect(strstr(err.msg, "no AMD GPU"), "%s", err.msg);
	setenv("FAKEHIP_FAIL", "hipInit=35", 1);
	cr_expect_eq(ix_gpu_open(&c, "rocm", lib, &err), -1);
	cr_expect(strstr(err.msg, "amdgpu kernel driver"), "%s", err.msg);
}
