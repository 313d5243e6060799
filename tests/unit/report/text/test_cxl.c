/* Unit tests for report/text/cxl.c: NUMA nodes with the HMAT figures
 * (class 1 only where it differs), and the CXL bus: the memory device with
 * its PCIe link, both ends' CXL protocols and the trouble when CXL.mem is
 * off; the ports as a tree, decoders, regions; a saved tree's note. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"
#include "tests/unit/report/fixtures.h"

static void numa(FILE *f, const void *t)
{
	ix_text_numa(f, t);
}

static void cxl(FILE *f, const void *t)
{
	ix_text_cxl(f, t);
}

Test(text_cxl, numa_with_hmat)
{
	struct ix_topo t;
	char *s;

	ix_test_cxl_topo(&t, false);
	s = ix_test_render(numa, &t);
	cr_assert(strstr(s, "  node 0   cpus 0-1 "), "%s", s);
	cr_assert(strstr(s, "HMAT class 0 (any initiator) from node 0: read 10.2 GB/s, 10 ns; "
			    "write 10.2 GB/s, 10 ns\n"),
		  "%s", s);
	cr_assert(strstr(s, "  node 1   cpus none (memory only)"), "%s", s);
	cr_assert(strstr(s, "from node 0: read 5.12 GB/s, 30 ns; write -, 0 ns\n"), "%s", s);
	cr_assert_null(strstr(s, "HMAT class 1"), "class 1 equal to class 0 is not repeated: %s",
		       s);
	free(s);
	t.numa[0].access[1].read_ns = 12;
	s = ix_test_render(numa, &t);
	cr_assert(strstr(s, "HMAT class 1 (CPUs) from node 0: read 10.2 GB/s, 12 ns"), "%s", s);
	free(s);
	ix_topo_free(&t);
}

Test(text_cxl, bus)
{
	struct ix_topo t;
	char *s;

	ix_test_cxl_topo(&t, false);
	s = ix_test_render(cxl, &t);
	cr_assert(strstr(s, "  mem0       on 0000:0d:00.0 below 0000:0c:00.0, device numa -1, "
			    "enabled, ram none, pmem 268 MB, firmware BWFW VERSION 00\n"),
		  "%s", s);
	cr_assert(strstr(s, "      PCIe link Gen1 x1 of Gen1 x1\n"), "%s", s);
	cr_assert(strstr(s, "      CXL: device mem+io enabled of mem+io (device control); port "
			    "0000:0c:00.0 mem+io enabled of mem+io (Flex Bus), 68B flit\n"),
		  "%s", s);
	cr_assert_null(strstr(s, "PROBLEM"), "%s", s);
	cr_assert(strstr(s, "  root0        root        ACPI0017:00    dports: ACPI0016:00\n"),
		  "%s", s);
	cr_assert(strstr(s, "    port1        host_bridge ACPI0016:00    dports: 0000:0c:00.0\n"),
		  "%s", s);
	cr_assert(strstr(s, "      endpoint2    endpoint    mem0"), "%s", s);
	cr_assert(strstr(s, "  decoder0.0     root0      0x290000000           4.29 GB  ram+pmem "
			    "ways 1 gran 256 targets ACPI0016:00\n"),
		  "%s", s);
	cr_assert(strstr(s, "  decoder2.0     endpoint2  0x290000000            268 MB  pmem "
			    "ways 1 gran 256 region region0\n"),
		  "%s", s);
	cr_assert(strstr(s, "  region0    of decoder0.0     0x290000000 268 MB ways 1 gran 256 "
			    "committed, enabled decoder2.0\n"),
		  "%s", s);
	free(s);
	ix_topo_free(&t);
}

Test(text_cxl, mem_off_and_saved_tree)
{
	struct ix_topo t;
	char *s;

	ix_test_cxl_topo(&t, true);
	t.cxl.memdevs[0].port_fb.known = false;
	s = ix_test_render(cxl, &t);
	cr_assert(strstr(s, "CXL: device io enabled of mem+io (device control); port 0000:0c:00.0 "
			    "not read"),
		  "%s", s);
	cr_assert(strstr(s, "      PROBLEM: mem0 (0000:0d:00.0): CXL.mem is not enabled on its "
			    "link"),
		  "%s", s);
	free(s);
	t.cxl.tree = false;
	snprintf(t.cxl.note, sizeof(t.cxl.note), "read on the live system only");
	s = ix_test_render(cxl, &t);
	cr_assert(strstr(s, "  (read on the live system only)\n"), "%s", s);
	cr_assert_null(strstr(s, "CXL ports:"), "%s", s);
	free(s);
	t.cxl.nmemdevs = t.cxl.nports = 0;
	s = ix_test_render(cxl, &t);
	cr_assert_str_eq(s, "", "nothing without CXL");
	free(s);
	ix_topo_free(&t);
}
