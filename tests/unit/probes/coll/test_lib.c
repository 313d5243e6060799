/* Unit tests for probes/coll/lib.c: the libraries' table and the errors of
 * opening one (missing, not a collective library, an unknown name, one of
 * another GPU backend), and the SIMULATED NCCL of tests/gpu/ (IX_FAKENCCL)
 * opened and read: its version, its non-blocking init, its unique id and
 * that it declares itself a simulation. */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/lib.h"

#define MISSING "/nonexistent/ixperf-test/libnccl.so.2"

static const char *fake(void)
{
	const char *p = getenv("IX_FAKENCCL");

	if (!p || !*p)
		cr_skip_test("IX_FAKENCCL is not set: run under make check");
	return p;
}

Test(lib, table)
{
	cr_assert_str_eq(ix_coll_lib_name(0), "nccl");
	cr_assert_str_eq(ix_coll_lib_name(1), "rccl");
	cr_assert_null(ix_coll_lib_name(2));
	cr_assert_null(ix_coll_lib_name(-1));
}

Test(lib, missing_file)
{
	struct ix_coll_lib *L = (void *)1;
	struct ix_coll_lib_info info;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_coll_lib_open(&L, "nccl", NULL, MISSING, &info, &err), -1);
	cr_assert_null(L);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert(strstr(err.msg, MISSING), "%s", err.msg);
}

Test(lib, default_file_missing_says_what_to_install)
{
	struct ix_coll_lib *L;
	struct ix_coll_lib_info info;
	struct ix_err err = { 0 };
	void *dl = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);

	if (!dl)
		dl = dlopen("libnccl.so.2", RTLD_LAZY);
	if (dl)
		cr_skip_test("this machine has libnccl.so.2");
	cr_assert_eq(ix_coll_lib_open(&L, NULL, "cuda", NULL, &info, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert(strstr(err.msg, "libnccl.so.2 not found: install NCCL"), "%s", err.msg);
	cr_assert(!strstr(err.msg, "rccl"), "only the library of the cuda backend: %s", err.msg);
}

Test(lib, not_a_collective_library)
{
	struct ix_coll_lib *L;
	struct ix_coll_lib_info info;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_coll_lib_open(&L, "rccl", NULL, "libm.so.6", &info, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert(strstr(err.msg, "libm.so.6 has no ncclGetVersion: not rccl"), "%s", err.msg);
}

Test(lib, unknown_and_unmatched)
{
	struct ix_coll_lib *L;
	struct ix_coll_lib_info info;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_coll_lib_open(&L, "gloo", NULL, NULL, &info, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "known: nccl, rccl"), "%s", err.msg);
	cr_assert_eq(ix_coll_lib_open(&L, NULL, "level-zero", NULL, &info, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert(strstr(err.msg, "level-zero"), "%s", err.msg);
}

Test(lib, simulated_nccl)
{
	struct ix_coll_lib *L;
	struct ix_coll_lib_info info;
	struct ix_err err = { 0 };
	uint8_t a[IX_COLL_ID_BYTES], b[IX_COLL_ID_BYTES];

	cr_assert_eq(ix_coll_lib_open(&L, NULL, "cuda", fake(), &info, &err), 0, "%s", err.msg);
	cr_assert_str_eq(info.name, "nccl");
	cr_assert_str_eq(info.gpu_backend, "cuda");
	cr_assert_str_eq(info.version, "2.23.4");
	cr_assert(info.nonblocking, "2.23 makes communicators without blocking");
	cr_assert(strstr(info.library, "libfakenccl.so"), "%s", info.library);
	cr_assert(strstr(info.simulation, "simulated") || strstr(info.simulation, "SIMULATED"),
		  "the library declares itself a simulation: '%s'", info.simulation);
	cr_assert_eq(ix_coll_lib_unique_id(L, a, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_coll_lib_unique_id(L, b, &err), 0);
	cr_assert_neq(memcmp(a, b, sizeof(a)), 0, "every id its own job");
	ix_coll_lib_close(L);
}

Test(lib, rccl_row_takes_the_same_api)
{
	struct ix_coll_lib *L;
	struct ix_coll_lib_info info;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_coll_lib_open(&L, NULL, "rocm", fake(), &info, &err), 0, "%s", err.msg);
	cr_assert_str_eq(info.name, "rccl", "the row of the rocm backend");
	ix_coll_lib_close(L);
}
