/* Unit tests for probes/gpu/gpu.c and the vendor backends where no GPU is
 * needed: the backend table, ix_gpu_open's errors (unknown backend, a
 * library that is missing, not the vendor's, or the CUDA toolkit's stub),
 * the names; and for probes/gpu/ptx.c, the embedded module's text and the
 * pointer chain the chase kernel follows. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/gpu/gpu.h"
#include "probes/gpu/ptx.h"

#define CUDA_STUB "/usr/local/cuda/lib64/stubs/libcuda.so"
#define MISSING   "/nonexistent/ixperf-test/libgpu.so"

/* Open backend (NULL: any) with lib; the context must be left empty. */
static int open_fail(const char *backend, const char *lib, struct ix_err *err)
{
	struct ix_gpu_ctx c;
	int rc;

	memset(&c, 0x5a, sizeof(c));
	rc = ix_gpu_open(&c, backend, lib, err);
	if (rc == 0) {
		ix_gpu_close(&c);
		return 0;
	}
	cr_assert_null(c.be, "a failed open leaves no backend behind");
	cr_assert_null(c.g);
	cr_assert_eq(c.ndevices, 0);
	cr_assert_gt(strlen(err->msg), 0, "a failed open says why");
	return rc;
}

Test(gpu, table_order_and_names)
{
	size_t n = 0;
	const struct ix_gpu_backend *const *t = ix_gpu_backends(&n);

	cr_assert_eq(n, 2);
	cr_assert_eq(t[0], &ix_gpu_cuda, "CUDA is tried first");
	cr_assert_eq(t[1], &ix_gpu_hip);
	cr_assert_str_eq(ix_gpu_cuda.name, "cuda");
	cr_assert_str_eq(ix_gpu_hip.name, "rocm");
}

Test(gpu, backend_find)
{
	cr_assert_eq(ix_gpu_backend_find("cuda"), &ix_gpu_cuda);
	cr_assert_eq(ix_gpu_backend_find("rocm"), &ix_gpu_hip);
	cr_assert_null(ix_gpu_backend_find("CUDA"), "names match exactly");
	cr_assert_null(ix_gpu_backend_find("cud"), "no prefix matching");
	cr_assert_null(ix_gpu_backend_find("hip"));
	cr_assert_null(ix_gpu_backend_find(""));
}

/* Every operation of the interface is there, for each backend. */
Test(gpu, backends_are_complete)
{
	size_t n = 0;
	const struct ix_gpu_backend *const *t = ix_gpu_backends(&n);

	for (size_t i = 0; i < n; i++) {
		const struct ix_gpu_backend *b = t[i];

		cr_assert(b->open && b->close && b->info && b->can_access_peer && b->set_peer,
			  "%s lacks a device operation", b->name);
		cr_assert(b->alloc && b->free && b->fill && b->copy_batch && b->chase,
			  "%s lacks a memory or copy operation", b->name);
		cr_assert(b->ipc_export && b->ipc_import && b->ipc_close && b->dmabuf_fd,
			  "%s lacks an export operation", b->name);
	}
}

Test(gpu, unknown_backend_is_a_usage_error)
{
	struct ix_err err = { 0 };

	cr_assert_eq(open_fail("opencl", NULL, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "'opencl'"), "names what was asked: %s", err.msg);
	cr_assert(strstr(err.msg, "cuda") && strstr(err.msg, "rocm"), "lists the known: %s",
		  err.msg);
}

Test(gpu, cuda_missing_library)
{
	struct ix_err err = { 0 };

	cr_assert_eq(open_fail("cuda", MISSING, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE, "%s", err.msg);
	cr_assert(strstr(err.msg, MISSING " not found"), "names the library: %s", err.msg);
	cr_assert(strstr(err.msg, "no NVIDIA driver"), "%s", err.msg);
	cr_assert(strstr(err.msg, "No such file"), "carries dlerror's reason: %s", err.msg);
}

Test(gpu, cuda_toolkit_stub_library)
{
	struct ix_err err = { 0 };

	if (access(CUDA_STUB, R_OK) != 0)
		cr_skip_test("no CUDA toolkit here (" CUDA_STUB " is missing)");
	cr_assert_eq(open_fail("cuda", CUDA_STUB, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE, "%s", err.msg);
	cr_assert(strstr(err.msg, CUDA_STUB " is the CUDA toolkit's stub library"), "%s", err.msg);
	cr_assert(strstr(err.msg, "install the NVIDIA driver"), "%s", err.msg);
}

/* A library that loads but is not the vendor's: its functions are missing. */
Test(gpu, cuda_wrong_library)
{
	struct ix_err err = { 0 };

	cr_assert_eq(open_fail("cuda", "libm.so.6", &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE, "%s", err.msg);
	cr_assert(strstr(err.msg, "libm.so.6 has no cuInit"), "%s", err.msg);
}

Test(gpu, rocm_missing_library)
{
	struct ix_err err = { 0 };

	cr_assert_eq(open_fail("rocm", MISSING, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE, "%s", err.msg);
	cr_assert(strstr(err.msg, MISSING " not found: no ROCm runtime on this machine"), "%s",
		  err.msg);
}

Test(gpu, rocm_wrong_library)
{
	struct ix_err err = { 0 };

	cr_assert_eq(open_fail("rocm", "libm.so.6", &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE, "%s", err.msg);
	cr_assert(strstr(err.msg, "libm.so.6 has no hipInit"), "%s", err.msg);
}

/* With no backend named, each is tried and each one's reason reported. */
Test(gpu, any_backend_reasons_joined)
{
	struct ix_err err = { 0 };
	const char *cuda, *rocm;

	cr_assert_eq(open_fail(NULL, MISSING, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE, "%s", err.msg);
	cr_assert(strncmp(err.msg, "no GPU backend available (cuda: ", 32) == 0, "%s", err.msg);
	cuda = strstr(err.msg, "cuda: " MISSING " not found: no NVIDIA driver");
	rocm = strstr(err.msg, "; rocm: " MISSING " not found: no ROCm runtime");
	cr_assert(cuda && rocm && cuda < rocm, "in table order, joined by '; ': %s", err.msg);
}

/* The vendors' default libraries, on this machine. */
Test(gpu, any_backend_here)
{
	struct ix_err err = { 0 };

	if (open_fail(NULL, NULL, &err) == 0)
		cr_skip_test("a GPU backend opens on this machine: nothing to check");
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE, "%s", err.msg);
	cr_assert(strstr(err.msg, "(cuda: ") && strstr(err.msg, "; rocm: "), "%s", err.msg);
	cr_assert(strstr(err.msg, "libamdhip64.so"), "the ROCm reason names its library: %s",
		  err.msg);
}

Test(gpu, close_empty_context)
{
	struct ix_gpu_ctx c;

	memset(&c, 0, sizeof(c));
	ix_gpu_close(&c);
	cr_assert_null(c.be);
}

Test(gpu, names)
{
	cr_assert_str_eq(ix_gpu_mem_name(IX_GPU_MEM_DEVICE), "device");
	cr_assert_str_eq(ix_gpu_mem_name(IX_GPU_MEM_PINNED), "pinned");
	cr_assert_str_eq(ix_gpu_mem_name(IX_GPU_MEM_PAGEABLE), "pageable");
	cr_assert_str_eq(ix_gpu_mem_name((enum ix_gpu_mem)42), "unknown");
	cr_assert_str_eq(ix_gpu_engine_name(IX_GPU_CE), "ce");
	cr_assert_str_eq(ix_gpu_engine_name(IX_GPU_SM), "sm");
}

/* The module's header and one .entry per kernel name the backend uses. */
Test(gpu_ptx, module_text)
{
	const char *names[] = { IX_GPU_PTX_COPY, IX_GPU_PTX_CHASE, IX_GPU_PTX_SPIN };
	char entry[64];

	cr_assert(strncmp(ix_gpu_ptx, ".version 7.0\n.target sm_70\n.address_size 64\n", 44) == 0,
		  "%.60s", ix_gpu_ptx);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(entry, sizeof(entry), ".visible .entry %s(", names[i]);
		cr_assert(strstr(ix_gpu_ptx, entry), "no %s", entry);
	}
	cr_assert(strstr(ix_gpu_ptx, "ld.global.cg.u64"), "the chase loads bypass L1");
	cr_assert(strstr(ix_gpu_ptx, "ld.volatile.global.u32"), "the gate re-reads its flag");
	cr_assert_eq(ix_gpu_ptx[strlen(ix_gpu_ptx) - 1], '\n');
}

/* Follow the chain from base as the kernel does: every slot is visited
 * once, the ring closes, and the order is not the buffer's. */
Test(gpu_ptx, chain_is_one_random_ring)
{
	const size_t stride = 64, n = 4099, size = n * stride + 40; /* a partial tail slot */
	const uint64_t base = 0x7f0000000000ull;
	uint8_t *img = calloc(1, size), *again = calloc(1, size);
	char *seen = calloc(n, 1);
	uint64_t at = base;
	size_t sequential = 0;

	cr_assert(img && again && seen);
	cr_assert_eq(ix_gpu_ptx_chain(img, size, stride, base), 0);
	for (size_t hop = 0; hop < n; hop++) {
		uint64_t next, slot = (at - base) / stride;

		cr_assert_eq((at - base) % stride, 0, "hop %zu lands inside a slot", hop);
		cr_assert_lt(slot, n, "hop %zu leaves the buffer", hop);
		cr_assert_eq(seen[slot], 0, "slot %llu visited twice", (unsigned long long)slot);
		seen[slot] = 1;
		memcpy(&next, img + slot * stride, sizeof(next));
		sequential += next == at + stride;
		at = next;
	}
	cr_assert_eq(at, base, "the ring closes after n hops");
	cr_assert_lt(sequential, n / 100, "%zu of %zu hops go to the next slot", sequential, n);
	for (size_t i = n * stride; i < size; i++)
		cr_assert_eq(img[i], 0, "the partial tail slot is not part of the ring");
	cr_assert_eq(ix_gpu_ptx_chain(again, size, stride, base), 0);
	cr_assert_eq(memcmp(img, again, size), 0, "the same order every run");
	free(img);
	free(again);
	free(seen);
}

Test(gpu_ptx, chain_of_one_slot)
{
	uint64_t slot[2] = { 0, 0 }, next;

	cr_assert_eq(ix_gpu_ptx_chain((uint8_t *)slot, 8, 8, 0x1000), 0);
	memcpy(&next, slot, sizeof(next));
	cr_assert_eq(next, 0x1000, "a single slot points to itself");
	cr_assert_eq(ix_gpu_ptx_chain((uint8_t *)slot, 4, 8, 0x1000), 0, "no slot: nothing");
	cr_assert_eq(slot[1], 0);
}
