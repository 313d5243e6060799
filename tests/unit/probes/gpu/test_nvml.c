/* Unit tests for probes/gpu/nvml.c: NVLinks through the SIMULATED NVML of
 * tests/gpu/fakenvml.c (FAKENVML_LINKS lists its GPUs), the versions'
 * names and rates, and a library that does not load. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/gpu/nvml.h"

static const char *fake(void)
{
	const char *p = getenv("IX_FAKENVML");

	if (!p || !*p)
		cr_skip_test("IX_FAKENVML is not set: run under make check");
	return p;
}

Test(nvml, active_links_and_their_rate)
{
	const char *lib = fake();
	struct ix_nvlinks l;
	struct ix_err err = { 0 };

	setenv("FAKENVML_LINKS", "0000:18:00.0=18,0000:19:00.0=12:4,0000:1a:00.0=0", 1);
	cr_assert_eq(ix_nvml_nvlinks(lib, "0000:18:00.0", &l, &err), 0, "%s", err.msg);
	cr_assert_eq(l.active, 18);
	cr_assert_eq(l.version, 6);
	cr_assert_str_eq(ix_nvlink_version_name(l.version), "4.0");
	cr_assert_float_eq(l.Bps, 450e9, 1, "18 links x 25 GB/s each way: %g", l.Bps);
	cr_assert_eq(ix_nvml_nvlinks(lib, "0000:19:00.0", &l, &err), 0, "%s", err.msg);
	cr_assert_eq(l.active, 12);
	cr_assert_str_eq(ix_nvlink_version_name(l.version), "3.0");
	cr_assert_float_eq(l.Bps, 300e9, 1);
	cr_assert_eq(ix_nvml_nvlinks(lib, "0000:1a:00.0", &l, &err), 0, "%s", err.msg);
	cr_assert_eq(l.active, 0, "a GPU without NVLink: none active, no error");
	cr_assert_float_eq(l.Bps, 0, 1e-9);
	unsetenv("FAKENVML_LINKS");
}

Test(nvml, unknown_gpu_and_no_library)
{
	const char *lib = fake();
	struct ix_nvlinks l;
	struct ix_err err = { 0 };

	setenv("FAKENVML_LINKS", "0000:18:00.0=18", 1);
	cr_assert_eq(ix_nvml_nvlinks(lib, "0000:99:00.0", &l, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert(strstr(err.msg, "does not know GPU 0000:99:00.0: Not Found"), "%s", err.msg);
	setenv("FAKENVML_FAIL", "init", 1);
	cr_assert_eq(ix_nvml_nvlinks(lib, "0000:18:00.0", &l, &err), -1);
	cr_assert(strstr(err.msg, "did not initialise"), "%s", err.msg);
	unsetenv("FAKENVML_FAIL");
	cr_assert_eq(ix_nvml_nvlinks("/nonexistent/libnvidia-ml.so.1", "0000:18:00.0", &l, &err),
		     -1);
	cr_assert(strstr(err.msg, "no /nonexistent/libnvidia-ml.so.1"), "%s", err.msg);
	unsetenv("FAKENVML_LINKS");
}

Test(nvml, versions)
{
	cr_assert_str_eq(ix_nvlink_version_name(1), "1.0");
	cr_assert_str_eq(ix_nvlink_version_name(7), "5.0");
	cr_assert_str_eq(ix_nvlink_version_name(0), "?");
	cr_assert_str_eq(ix_nvlink_version_name(8), "?");
	cr_assert_float_eq(ix_nvlink_link_Bps(1), 20e9, 1);
	cr_assert_float_eq(ix_nvlink_link_Bps(7), 50e9, 1);
	cr_assert_float_eq(ix_nvlink_link_Bps(99), 0, 1e-9);
}
