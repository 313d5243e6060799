/* Unit tests for probes/host/cxl.c: the CXL DVSECs in crafted config
 * space (a Flex Bus Port DVSEC, a device DVSEC alone, both, other
 * vendors' DVSECs, loops and stray pointers, short reads), the protocol
 * names, the rule for a link's CXL trouble (CXL.mem off where both ends
 * can, two ends that disagree, nothing known), and a saved tree's memory
 * devices with their config space and its nodes' HMAT figures
 * (tests/topo/mkfixture.py's cxl layout). The live read through
 * libcxl runs in tests/integration/mem_cxl.sh's VM. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/host/cxl.h"
#include "probes/host/topo.h"
#include "tests/unit/common.h"

static uint8_t cfg[4096];

static void put16(size_t off, uint16_t v)
{
	cfg[off] = (uint8_t)v;
	cfg[off + 1] = (uint8_t)(v >> 8);
}

/* A DVSEC at off (vendor, id), the next capability at next; its
 * registers at +0x0a, +0x0c and +0x0e. */
static void dvsec(size_t off, size_t next, uint16_t vendor, uint16_t id, uint16_t a, uint16_t c,
		  uint16_t e)
{
	uint32_t h = 0x23 | 1u << 16 | (uint32_t)next << 20;

	put16(off, (uint16_t)h);
	put16(off + 2, (uint16_t)(h >> 16));
	put16(off + 4, vendor);
	put16(off + 6, 0x38 << 4);
	put16(off + 8, id);
	put16(off + 0x0a, a);
	put16(off + 0x0c, c);
	put16(off + 0x0e, e);
}

Test(cxl, flexbus_port_dvsec)
{
	struct ix_cxl_flexbus fb;

	memset(cfg, 0, sizeof(cfg));
	dvsec(0x100, 0x140, 0x1234, 7, 0xffff, 0xffff, 0xffff); /* another vendor's id 7 */
	dvsec(0x140, 0, 0x1e98, 7, 0x26, 0x02, 0x26);
	cr_assert(ix_cxl_flexbus_parse(cfg, sizeof(cfg), &fb));
	cr_assert(fb.known);
	cr_assert_eq(fb.dvsec, 7);
	cr_assert_eq(fb.cap, 0x26);
	cr_assert_eq(fb.status, 0x26, "the status register, not control");
}

Test(cxl, device_dvsec_alone)
{
	struct ix_cxl_flexbus fb;

	/* As QEMU's type 3 device: capability 0x1e (io, mem, HW init, one
	 * HDM range), control 0x06 (io and mem on). */
	memset(cfg, 0, sizeof(cfg));
	dvsec(0x100, 0x138, 0x1e98, 0, 0x1e, 0x06, 0);
	dvsec(0x138, 0x15c, 0x1e98, 8, 0, 0x100, 0);
	put16(0x15c, 0x2e);
	cr_assert(ix_cxl_flexbus_parse(cfg, sizeof(cfg), &fb));
	cr_assert_eq(fb.dvsec, 0);
	cr_assert_eq(fb.cap, IX_FLEXBUS_IO | IX_FLEXBUS_MEM, "bits above cache/io/mem dropped");
	cr_assert_eq(fb.status, IX_FLEXBUS_IO | IX_FLEXBUS_MEM);
}

Test(cxl, flexbus_preferred_over_device)
{
	struct ix_cxl_flexbus fb;

	memset(cfg, 0, sizeof(cfg));
	dvsec(0x100, 0x200, 0x1e98, 0, 0x06, 0x06, 0);
	dvsec(0x200, 0, 0x1e98, 7, 0x27, 0, 0x23);
	cr_assert(ix_cxl_flexbus_parse(cfg, sizeof(cfg), &fb));
	cr_assert_eq(fb.dvsec, 7);
	cr_assert_eq(fb.status, 0x23);
}

Test(cxl, nothing_or_broken)
{
	struct ix_cxl_flexbus fb;

	memset(cfg, 0, sizeof(cfg));
	cr_assert_not(ix_cxl_flexbus_parse(cfg, sizeof(cfg), &fb), "no extended capability");
	cr_assert_not(fb.known);
	dvsec(0x100, 0, 0x1e98, 7, 0x26, 0, 0x26);
	cr_assert_not(ix_cxl_flexbus_parse(cfg, 256, &fb), "a short read (not root)");
	cr_assert_not(ix_cxl_flexbus_parse(cfg, 64, &fb));
	/* A loop: each capability points at the other. */
	dvsec(0x100, 0x140, 0x1e98, 3, 0, 0, 0);
	dvsec(0x140, 0x100, 0x1e98, 4, 0, 0, 0);
	cr_assert_not(ix_cxl_flexbus_parse(cfg, sizeof(cfg), &fb));
	/* A pointer into the standard header, and one past the end. */
	dvsec(0x100, 0x40, 0x1e98, 3, 0, 0, 0);
	cr_assert_not(ix_cxl_flexbus_parse(cfg, sizeof(cfg), &fb));
	dvsec(0x100, 0xffc, 0x1e98, 3, 0, 0, 0);
	cr_assert_not(ix_cxl_flexbus_parse(cfg, sizeof(cfg), &fb));
	memset(cfg + 0x100, 0xff, 4);
	cr_assert_not(ix_cxl_flexbus_parse(cfg, sizeof(cfg), &fb), "all ones: no device");
}

Test(cxl, protocols)
{
	char b[32];

	cr_assert_str_eq(ix_cxl_protocols(0x27, b, sizeof(b)), "mem+io+cache");
	cr_assert_str_eq(ix_cxl_protocols(IX_FLEXBUS_IO, b, sizeof(b)), "io");
	cr_assert_str_eq(ix_cxl_protocols(0x20, b, sizeof(b)), "none");
	cr_assert_str_eq(ix_cxl_protocols(0x07, b, 6), "mem+i", "cut to fit");
	cr_assert_str_eq(ix_cxl_port_kind_name(IX_CXL_HOST_BRIDGE), "host_bridge");
	cr_assert_str_eq(ix_cxl_port_kind_name(IX_CXL_ENDPOINT), "endpoint");
}

static struct ix_cxl_memdev memdev(uint16_t dcap, uint16_t don, bool port, uint16_t pcap,
				   uint16_t pon)
{
	struct ix_cxl_memdev m = { .name = "mem0", .host = "0000:0d:00.0", .port = "0000:0c:00.0" };

	m.dev_fb = (struct ix_cxl_flexbus){ .known = true, .dvsec = 0, .cap = dcap, .status = don };
	m.port_fb =
		(struct ix_cxl_flexbus){ .known = port, .dvsec = 7, .cap = pcap, .status = pon };
	return m;
}

Test(cxl, link_issue)
{
	struct ix_cxl_memdev m;
	char b[384];

	m = memdev(0x06, 0x06, true, 0x26, 0x26);
	cr_assert_not(ix_cxl_link_issue(&m, b, sizeof(b)), "healthy");
	m = memdev(0x06, 0x02, true, 0x26, 0x26);
	cr_assert(ix_cxl_link_issue(&m, b, sizeof(b)));
	cr_assert(strstr(b, "mem0 (0000:0d:00.0): CXL.mem is not enabled") &&
			  strstr(b, "PCIe only"),
		  "%s", b);
	cr_assert(strstr(b, "enabled: io,"), "%s", b);
	m = memdev(0x06, 0x02, false, 0, 0);
	cr_assert(ix_cxl_link_issue(&m, b, sizeof(b)), "the device alone says so");
	/* A port that cannot do CXL.mem: not the device's fault to be off. */
	m = memdev(0x06, 0x02, true, 0x22, 0x22);
	cr_assert_not(ix_cxl_link_issue(&m, b, sizeof(b)));
	/* Both can and the device is on, the port is not: they disagree. */
	m = memdev(0x06, 0x06, true, 0x26, 0x22);
	cr_assert(ix_cxl_link_issue(&m, b, sizeof(b)));
	cr_assert(strstr(b, "disagree") && strstr(b, "the port io"), "%s", b);
	m = memdev(0x06, 0x06, true, 0x26, 0x26);
	m.dev_fb.known = false;
	cr_assert_not(ix_cxl_link_issue(&m, b, sizeof(b)), "nothing known, nothing said");
}

/* The cxl layout: mem0 on 0000:36:00.0 below root port 0000:35:01.0. */
Test(cxl, saved_tree)
{
	struct ix_topo t;

	ix_test_topo_fixture("cxl", &t);
	cr_assert_eq(t.cxl.nmemdevs, 1);
	cr_assert_not(t.cxl.tree, "ports, decoders and regions: live only");
	cr_assert(strstr(t.cxl.note, "libcxl"));
	cr_assert_str_eq(t.cxl.memdevs[0].name, "mem0");
	cr_assert_str_eq(t.cxl.memdevs[0].host, "0000:36:00.0");
	cr_assert_str_eq(t.cxl.memdevs[0].port, "0000:35:01.0");
	cr_assert_geq(t.cxl.memdevs[0].pci, 0);
	cr_assert_str_eq(t.pci.v[t.cxl.memdevs[0].pci].bdf, "0000:36:00.0");
	cr_assert_eq(t.cxl.memdevs[0].numa_node, 0);
	cr_assert_eq(t.cxl.memdevs[0].endpoint, -1);
	cr_assert_str_eq(t.cxl.memdevs[0].firmware, "BWFW VERSION 00");
	cr_assert(t.cxl.memdevs[0].enabled, "its driver link");
	cr_assert_eq(t.cxl.memdevs[0].ram_bytes, 256ull << 30);
	cr_assert_eq(t.cxl.memdevs[0].pmem_bytes, 0);
	cr_assert(t.cxl.memdevs[0].dev_fb.known && t.cxl.memdevs[0].dev_fb.dvsec == 0);
	cr_assert_eq(t.cxl.memdevs[0].dev_fb.status, IX_FLEXBUS_MEM | IX_FLEXBUS_IO);
	cr_assert(t.cxl.memdevs[0].port_fb.known && t.cxl.memdevs[0].port_fb.dvsec == 7);
	cr_assert_eq(t.cxl.memdevs[0].port_fb.status, 0x26);
	/* node 2's HMAT beside (probes/host/hmat.c through the topology). */
	cr_assert_eq(t.nnuma, 3);
	cr_assert(t.numa[2].access[0].present);
	cr_assert_eq(t.numa[2].access[0].read_ns, 250);
	cr_assert_eq(t.numa[2].access[0].initiators, 1);
	ix_topo_free(&t);
}
