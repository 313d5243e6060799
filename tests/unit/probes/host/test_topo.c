/* Unit tests for probes/host/pci.c, probes/host/topo.c and probes/host/topo_check.c on
 * small sysfs trees built here: a root port with a PCIe switch holding a
 * GPU and a NIC, a NIC trained below its slot, a second socket; added to
 * it, a PCI domain behind an Intel VMD controller and an RDMA port whose
 * GID table has unused (all-zero) entries, also seen through the text,
 * JSON and HTML reports. The large real-world layouts are in tests/topo
 * (tests/integration/topo.sh); the retimer layout's links with retimers
 * are checked here through the AER finding, the text and the JSON; the
 * CXL findings on a CXL host built by hand (tests/unit/report/fixtures.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/host/sysfs.h"
#include "probes/host/topo_check.h"
#include "report/html/html.h"
#include "report/json/json.h"
#include "report/text/text.h"
#include "tests/unit/common.h"
#include "tests/unit/report/fixtures.h"

static char root[256];

/* A PCI function at devices/CHAIN (host bridge first), linked from
 * bus/pci/devices. link: "GTs width maxGTs maxwidth" or NULL. */
static void dev(const char *chain, const char *class, const char *vendor, int numa,
		const char *link)
{
	char dir[1024], bus[1024], target[1024], num[16];
	const char *bdf = strrchr(chain, '/') + 1;

	snprintf(dir, sizeof(dir), "%s/sys/devices/%s", root, chain);
	ix_test_mkdirs(dir);
	ix_test_put(dir, "class", class);
	ix_test_put(dir, "vendor", vendor);
	ix_test_put(dir, "device", "0x1234");
	snprintf(num, sizeof(num), "%d", numa);
	ix_test_put(dir, "numa_node", num);
	if (link) {
		double cur, max;
		int w, mw;
		char s[32];

		cr_assert_eq(sscanf(link, "%lf %d %lf %d", &cur, &w, &max, &mw), 4);
		snprintf(s, sizeof(s), "%.1f GT/s PCIe", cur);
		ix_test_put(dir, "current_link_speed", s);
		snprintf(s, sizeof(s), "%d", w);
		ix_test_put(dir, "current_link_width", s);
		snprintf(s, sizeof(s), "%.1f GT/s PCIe", max);
		ix_test_put(dir, "max_link_speed", s);
		snprintf(s, sizeof(s), "%d", mw);
		ix_test_put(dir, "max_link_width", s);
	}
	snprintf(bus, sizeof(bus), "%s/sys/bus/pci/devices", root);
	ix_test_mkdirs(bus);
	snprintf(bus + strlen(bus), sizeof(bus) - strlen(bus), "/%s", bdf);
	snprintf(target, sizeof(target), "../../../devices/%s", chain);
	cr_assert_eq(symlink(target, bus), 0, "%s", strerror(errno));
}

#define BR   "0x060400"
#define GPU  "0x030200"
#define NIC  "0x020000"
#define IB   "0x020700"
#define NV   "0x10de"
#define MLX  "0x15b3"
#define G5   "32.0 16 32.0 16"
#define RP0  "pci0000:00/0000:00:01.0"
#define USP0 RP0 "/0000:01:00.0"

/* Socket 0: RP0 -> switch (USP 01:00.0, DSPs 02:00.0 and 02:01.0) with
 * GPU 03:00.0 and IB NIC 04:00.0; RP 00:02.0 -> a second GPU 05:00.0.
 * Socket 1: host bridge pci0000:80 -> RP -> NIC 81:00.0 at Gen4 x8 in a
 * Gen5 x16 slot. */
static void machine(void)
{
	char tmpl[] = "/tmp/ixperf-topo-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	snprintf(root, sizeof(root), "%s", tmpl);
	dev(RP0, BR, "0x8086", 0, G5);
	dev(USP0, BR, "0x1000", 0, G5);
	dev(USP0 "/0000:02:00.0", BR, "0x1000", 0, G5);
	dev(USP0 "/0000:02:01.0", BR, "0x1000", 0, G5);
	dev(USP0 "/0000:02:00.0/0000:03:00.0", GPU, NV, 0, G5);
	dev(USP0 "/0000:02:01.0/0000:04:00.0", IB, MLX, 0, G5);
	dev("pci0000:00/0000:00:02.0", BR, "0x8086", 0, G5);
	dev("pci0000:00/0000:00:02.0/0000:05:00.0", GPU, NV, 0, "2.5 16 32.0 16");
	dev("pci0000:80/0000:80:01.0", BR, "0x8086", 1, G5);
	dev("pci0000:80/0000:80:01.0/0000:81:00.0", IB, MLX, 1, "16.0 8 32.0 16");
	{
		char net[512];

		snprintf(net, sizeof(net), "%s/sys/class/net", root);
		ix_test_mkdirs(net);
	}
}

#define VMD   "pci0000:00/0000:00:0e.0/pci10000:e0"
#define NVME  "0x010802"
#define GID_0 "fe80:0000:0000:0000:a088:c203:0000:1004"
#define GID_3 "fe80:0000:0000:0000:a088:c203:0000:2004"
#define ZERO  "0000:0000:0000:0000:0000:0000:0000:0000"

/* An Intel VMD controller 0000:00:0e.0 on socket 0 (class 0x010400, no
 * link files) with the PCI domain 10000 behind it, laid out as the kernel
 * does: the domain's host bridge pci10000:e0 is a directory of the
 * controller's; root port 10000:e0:00.0 holds an Ethernet NIC
 * 10000:e1:00.0, root port 10000:e0:01.0 an NVMe drive 10000:e2:00.0
 * trained Gen3 x4 of Gen4 x4. The domain's functions say numa_node -1. */
static void vmd(void)
{
	dev("pci0000:00/0000:00:0e.0", "0x010400", "0x8086", 0, NULL);
	dev(VMD "/10000:e0:00.0", BR, "0x8086", -1, G5);
	dev(VMD "/10000:e0:00.0/10000:e1:00.0", NIC, "0x8086", -1, "16.0 16 16.0 16");
	dev(VMD "/10000:e0:01.0", BR, "0x8086", -1, "16.0 4 16.0 4");
	dev(VMD "/10000:e0:01.0/10000:e2:00.0", NVME, "0x144d", -1, "8.0 4 16.0 4");
}

/* mlx5_0 on the IB NIC 0000:04:00.0, port 1 ACTIVE, its GID table as the
 * kernel shows it: entries 0 and 3 in use, 1, 2 and 4-7 all zero, without
 * attributes (reading those fails on a host). */
static void rdma_port(void)
{
	char dir[700], port[800], gids[900], link[1024], target[512];

	snprintf(dir, sizeof(dir), "%s/sys/devices/%s/infiniband/mlx5_0", root,
		 USP0 "/0000:02:01.0/0000:04:00.0");
	snprintf(port, sizeof(port), "%s/ports/1", dir);
	snprintf(gids, sizeof(gids), "%s/gids", port);
	ix_test_mkdirs(gids);
	ix_test_put(port, "state", "4: ACTIVE");
	ix_test_put(port, "phys_state", "5: LinkUp");
	ix_test_put(port, "rate", "400 Gb/sec (4X NDR)");
	ix_test_put(port, "link_layer", "InfiniBand");
	for (int i = 0; i < 8; i++) {
		char name[8];

		snprintf(name, sizeof(name), "%d", i);
		ix_test_put(gids, name, i == 0 ? GID_0 : i == 3 ? GID_3 : ZERO);
	}
	snprintf(gids, sizeof(gids), "%s/gid_attrs/types", port);
	ix_test_mkdirs(gids);
	ix_test_put(gids, "0", "IB/RoCE v1");
	ix_test_put(gids, "3", "IB/RoCE v1");
	snprintf(link, sizeof(link), "%s/device", dir);
	cr_assert_eq(symlink("../../../0000:04:00.0", link), 0, "%s", strerror(errno));
	snprintf(link, sizeof(link), "%s/sys/class/infiniband", root);
	ix_test_mkdirs(link);
	snprintf(link + strlen(link), sizeof(link) - strlen(link), "/mlx5_0");
	snprintf(target, sizeof(target), "../../devices/%s/infiniband/mlx5_0",
		 USP0 "/0000:02:01.0/0000:04:00.0");
	cr_assert_eq(symlink(target, link), 0, "%s", strerror(errno));
}

static void cleanup(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

static int find(const struct ix_topo *t, const char *bdf)
{
	int i = ix_pci_find(&t->pci, bdf);

	cr_assert_geq(i, 0, "%s not found", bdf);
	return i;
}

Test(pcie, speeds_generations_and_encodings)
{
	double g;

	cr_assert_eq(ix_pcie_parse_speed("32.0 GT/s PCIe", &g), 0);
	cr_assert_float_eq(g, 32.0, 1e-9);
	cr_assert_eq(ix_pcie_gen(32.0), 5);
	cr_assert_eq(ix_pcie_parse_speed("2.5 GT/s PCIe", &g), 0);
	cr_assert_eq(ix_pcie_gen(g), 1);
	cr_assert_eq(ix_pcie_parse_speed("64.0 GT/s PCIe", &g), 0);
	cr_assert_eq(ix_pcie_gen(g), 6);
	cr_assert_eq(ix_pcie_parse_speed("Unknown", &g), -1);
	cr_assert_eq(ix_pcie_parse_speed("99.9 GT/s PCIe", &g), -1);
	cr_assert_eq(ix_pcie_parse_speed("banana", &g), -1);
	/* Gen5 x16: 32 GT/s x 16 x 128/130 = 504.1 Gbit/s per direction. */
	cr_assert_float_eq(ix_pcie_bps(32.0, 16), 32e9 * 16 * 128 / 130, 1);
	cr_assert_float_eq(ix_pcie_bps(5.0, 4), 5e9 * 4 * 0.8, 1);
	cr_assert_float_eq(ix_pcie_bps(64.0, 16), 64e9 * 16 * 242 / 256, 1);
	cr_assert_float_eq(ix_pcie_bps(7.0, 16), 0, 0);
}

Test(topo, tree_types_and_switch)
{
	struct ix_topo t;
	struct ix_err err = { 0 };

	machine();
	cr_assert_eq(ix_topo_read(root, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t.pci.n, 10);
	cr_assert_eq(t.pci.v[find(&t, "0000:00:01.0")].type, IX_PCI_ROOT_PORT);
	cr_assert_eq(t.pci.v[find(&t, "0000:01:00.0")].type, IX_PCI_SWITCH_UP);
	cr_assert_eq(t.pci.v[find(&t, "0000:02:01.0")].type, IX_PCI_SWITCH_DOWN);
	cr_assert_eq(t.pci.v[find(&t, "0000:03:00.0")].type, IX_PCI_GPU);
	cr_assert_eq(t.pci.v[find(&t, "0000:04:00.0")].type, IX_PCI_IB);
	cr_assert_eq(t.pci.v[find(&t, "0000:04:00.0")].sw, find(&t, "0000:01:00.0"));
	cr_assert_eq(t.pci.v[find(&t, "0000:03:00.0")].parent, find(&t, "0000:02:00.0"));
	cr_assert_str_eq(t.pci.v[find(&t, "0000:81:00.0")].host_bridge, "pci0000:80");
	cr_assert_eq(t.ngpus, 2);
	cr_assert_eq(t.npath, 4);
	ix_topo_free(&t);
	cleanup();
}

Test(topo, paths_as_nvidia_smi_names_them)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	int gpu0, gpu1, nic0, nic1;

	machine();
	cr_assert_eq(ix_topo_read(root, &t, &err), 0, "%s", err.msg);
	gpu0 = find(&t, "0000:03:00.0");
	gpu1 = find(&t, "0000:05:00.0");
	nic0 = find(&t, "0000:04:00.0");
	nic1 = find(&t, "0000:81:00.0");
	cr_assert_eq(ix_topo_path(&t, gpu0, gpu0), IX_PATH_SELF);
	cr_assert_eq(ix_topo_path(&t, gpu0, nic0), IX_PATH_PIX);
	cr_assert_eq(ix_topo_path(&t, gpu0, gpu1), IX_PATH_PHB);
	cr_assert_eq(ix_topo_path(&t, gpu0, nic1), IX_PATH_SYS);
	cr_assert_str_eq(ix_path_name(ix_topo_path(&t, nic0, gpu1)), "PHB");
	ix_topo_free(&t);
	cleanup();
}

/* The GPU nearest an RDMA device (gpu auto): below its own switch first;
 * from the other socket the first GPU in PCI order; none for a device
 * that is no PCI function here. */
Test(topo, nearest_gpu_of_an_rdma_device)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	enum ix_path p = IX_PATH_SELF;
	char dir[1024];

	machine();
	snprintf(dir, sizeof(dir),
		 "%s/sys/devices/" USP0 "/0000:02:01.0/0000:04:00.0/infiniband/mlx5_0", root);
	ix_test_mkdirs(dir);
	snprintf(dir, sizeof(dir),
		 "%s/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/infiniband/mlx5_1", root);
	ix_test_mkdirs(dir);
	cr_assert_eq(ix_topo_scan(root, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_topo_nearest_gpu(&t, "mlx5_0", &p), find(&t, "0000:03:00.0"));
	cr_assert_eq(p, IX_PATH_PIX);
	cr_assert_eq(ix_topo_nearest_gpu(&t, "mlx5_1", &p), find(&t, "0000:03:00.0"));
	cr_assert_eq(p, IX_PATH_SYS);
	cr_assert_eq(ix_topo_nearest_gpu(&t, "rxe0", &p), -1, "soft-RoCE is no PCI function");
	ix_topo_free(&t);
	cleanup();
}

Test(topo, findings_downtrained_and_numa)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	size_t down = 0, far = 0;

	machine();
	cr_assert_eq(ix_topo_read(root, &t, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < t.nfindings; i++) {
		const struct ix_finding *f = &t.findings[i];

		if (f->kind == IX_FIND_DOWNTRAINED) {
			down++;
			cr_assert_str_eq(f->device, "0000:81:00.0");
			cr_assert(strstr(f->message, "Gen4 x8") && strstr(f->message, "Gen5 x16"),
				  "%s", f->message);
		}
		if (f->kind == IX_FIND_NUMA_FAR) {
			far++;
			cr_assert_str_eq(f->device, "0000:81:00.0");
			cr_assert(strstr(f->message, "NUMA node 1"), "%s", f->message);
		}
	}
	/* The idle GPU at 2.5 GT/s x16 is a note, not a finding. */
	cr_assert_eq(down, 1);
	cr_assert_eq(far, 1);
	cr_assert_eq(t.nfindings, 2);
	cr_assert_geq(t.pci.nnotes, 1);
	cr_assert(strstr(t.pci.notes[0], "0000:05:00.0"), "%s", t.pci.notes[0]);
	cr_assert(t.pci.v[find(&t, "0000:81:00.0")].link.downtrained);
	cr_assert_float_eq(t.pci.v[find(&t, "0000:81:00.0")].link.expected_bps,
			   32e9 * 16 * 128 / 130, 1);
	ix_topo_free(&t);
	cleanup();
}

Test(topo, missing_bus_is_an_error_and_garbage_a_note)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	char path[600];

	cr_assert_eq(ix_topo_read("/nonexistent-root", &t, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	machine();
	snprintf(path, sizeof(path), "%s/sys/devices/%s", root, USP0 "/0000:02:00.0/0000:03:00.0");
	ix_test_put(path, "numa_node", "banana");
	ix_test_put(path, "current_link_width", "x");
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:99:00.0", root);
	cr_assert_eq(symlink("0000:99:00.0", path), 0);
	cr_assert_eq(ix_topo_read(root, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t.pci.n, 10, "the loop is skipped, the rest read");
	cr_assert_eq(t.pci.v[find(&t, "0000:03:00.0")].numa_node, -1);
	cr_assert_not(t.pci.v[find(&t, "0000:03:00.0")].link.present);
	{
		bool loop = false, numa = false;

		for (size_t i = 0; i < t.pci.nnotes; i++) {
			loop |= strstr(t.pci.notes[i], "symlink loop") != NULL;
			numa |= strstr(t.pci.notes[i], "numa_node 'banana' is not a number") !=
				NULL;
		}
		cr_assert(loop);
		cr_assert(numa);
	}
	ix_topo_free(&t);
	cleanup();
}

Test(pci, addresses_with_long_domains)
{
	struct ix_pci_addr a, b;

	cr_assert(ix_pci_parse_bdf("0000:00:01.0", &a));
	cr_assert_eq(a.domain, 0);
	cr_assert_eq(a.dev, 1);
	cr_assert(ix_pci_parse_bdf("10000:e1:00.0", &a));
	cr_assert_eq(a.domain, 0x10000);
	cr_assert_eq(a.bus, 0xe1);
	cr_assert(ix_pci_parse_bdf("ffffffff:ff:1f.7", &a));
	cr_assert_eq(a.domain, 0xffffffffu);
	cr_assert_eq(a.bus, 0xff);
	cr_assert_eq(a.dev, 0x1f);
	cr_assert_eq(a.fn, 7);
	cr_assert_eq(strlen("ffffffff:ff:1f.7") + 1, IX_PCI_BDF_LEN);
	/* CUDA pads the domain to 8 digits: the same address. */
	cr_assert(ix_pci_parse_bdf("00010000:E1:00.0", &b));
	cr_assert(ix_pci_parse_bdf("10000:e1:00.0", &a));
	cr_assert_eq(ix_pci_addr_cmp(&a, &b), 0);
	/* By number: ffff before 10000, which text order gets wrong. */
	cr_assert(ix_pci_parse_bdf("ffff:00:00.0", &a));
	cr_assert(ix_pci_parse_bdf("10000:00:00.0", &b));
	cr_assert_lt(ix_pci_addr_cmp(&a, &b), 0);
	cr_assert_gt(ix_pci_addr_cmp(&b, &a), 0);
	{
		static const char *const bad[] = {
			"",
			"000:00:00.0",
			"123456789:00:00.0",
			"0000:00:20.0",
			"0000:00:00.8",
			"0000:0:00.0",
			"0000:00:00.0 ",
			"0000:00:00",
			"0000-00:00.0",
			"g000:00:00.0",
			"0000:00:00.00",
			"pci0000:00",
			"10000:e1:00.0/net",
			"0000:00:1f.7extra",
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			cr_assert_not(ix_pci_parse_bdf(bad[i], &a), "'%s' is no address", bad[i]);
			cr_assert_not(ix_sysfs_is_bdf(bad[i]), "'%s' is no address", bad[i]);
		}
	}
}

Test(topo, vmd_domain_behind_its_controller)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	int ctl, rp, nic, rp1, nvme, gpu0, nic1;
	size_t down = 0;

	machine();
	vmd();
	cr_assert_eq(ix_topo_read(root, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t.pci.n, 15);
	for (size_t i = 0; i < t.pci.nnotes; i++)
		cr_assert_not(strstr(t.pci.notes[i], "10000:"), "%s", t.pci.notes[i]);
	/* Sorted by address: domain 0, then 10000. */
	for (size_t i = 1; i < t.pci.n; i++)
		cr_assert_lt(ix_pci_addr_cmp(&t.pci.v[i - 1].addr, &t.pci.v[i].addr), 0, "%s %s",
			     t.pci.v[i - 1].bdf, t.pci.v[i].bdf);
	cr_assert_str_eq(t.pci.v[t.pci.n - 1].bdf, "10000:e2:00.0");
	ctl = find(&t, "0000:00:0e.0");
	rp = find(&t, "10000:e0:00.0");
	nic = find(&t, "10000:e1:00.0");
	rp1 = find(&t, "10000:e0:01.0");
	nvme = find(&t, "10000:e2:00.0");
	cr_assert_eq(find(&t, "00010000:e1:00.0"), nic, "CUDA's 8-digit form");
	cr_assert_eq(find(&t, "10000:E1:00.0"), nic);
	cr_assert_eq(ix_pci_find(&t.pci, "0000:e1:00.0"), -1, "another domain");
	/* The controller is an integrated function on the CPU's host bridge;
	 * the domain's root ports hang from it, the devices from them. */
	cr_assert_eq(t.pci.v[ctl].parent, -1);
	cr_assert_eq(t.pci.v[ctl].type, IX_PCI_OTHER);
	cr_assert_eq(t.pci.v[rp].parent, ctl);
	cr_assert_eq(t.pci.v[rp1].parent, ctl);
	cr_assert_eq(t.pci.v[rp].type, IX_PCI_ROOT_PORT);
	cr_assert_eq(t.pci.v[rp1].type, IX_PCI_ROOT_PORT);
	cr_assert(t.pci.v[rp].below_host_bridge);
	cr_assert_eq(t.pci.v[nic].parent, rp);
	cr_assert_eq(t.pci.v[nic].type, IX_PCI_NIC);
	cr_assert_not(t.pci.v[nic].below_host_bridge);
	cr_assert_eq(t.pci.v[nic].sw, -1);
	cr_assert_eq(t.pci.v[nvme].parent, rp1);
	cr_assert_eq(t.pci.v[nvme].type, IX_PCI_NVME);
	cr_assert_eq(t.pci.v[nvme].depth, 2, "the controller and the root port");
	cr_assert_str_eq(t.pci.v[nic].host_bridge, "pci0000:00");
	cr_assert_str_eq(t.pci.v[nic].bdf, "10000:e1:00.0");
	/* NUMA from the controller; links read and judged against the port's. */
	cr_assert_eq(t.pci.v[nic].numa_node, -1);
	cr_assert_eq(ix_topo_numa(&t, nic), 0);
	cr_assert(t.pci.v[nic].link.present);
	cr_assert_eq(t.pci.v[nic].link.gen, 4);
	cr_assert_eq(t.pci.v[nic].link.width, 16);
	cr_assert_not(t.pci.v[nic].link.downtrained);
	cr_assert(t.pci.v[nvme].link.downtrained);
	for (size_t i = 0; i < t.nfindings; i++)
		if (t.findings[i].kind == IX_FIND_DOWNTRAINED &&
		    strcmp(t.findings[i].device, "10000:e2:00.0") == 0) {
			down++;
			cr_assert(strstr(t.findings[i].message, "10000:e2:00.0"), "%s",
				  t.findings[i].message);
		}
	cr_assert_eq(down, 1);
	/* Paths: across the VMD's host bridge PHB, to socket 1 SYS. */
	gpu0 = find(&t, "0000:03:00.0");
	nic1 = find(&t, "0000:81:00.0");
	cr_assert_eq(ix_topo_path(&t, nic, gpu0), IX_PATH_PHB);
	cr_assert_eq(ix_topo_path(&t, gpu0, nic), IX_PATH_PHB);
	cr_assert_eq(ix_topo_path(&t, nic, nvme), IX_PATH_PHB);
	cr_assert_eq(ix_topo_path(&t, nic, nic1), IX_PATH_SYS);
	cr_assert_eq(ix_topo_path(&t, gpu0, find(&t, "0000:04:00.0")), IX_PATH_PIX);
	cr_assert_eq(t.npath, 5);
	cr_assert_eq(t.path_dev[t.npath - 1], nic);
	ix_topo_free(&t);
	cleanup();
}

Test(topo, malformed_names_are_notes_long_domains_are_not)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	static const char *const bad[] = { "000:00:00.0", "123456789:00:00.0", "0000:00:20.0",
					   "0000:00:00.8", "0000:00:00" };
	int last;

	machine();
	dev("pciffffffff:ff/ffffffff:ff:1f.7", NVME, "0x144d", 0, "16.0 4 16.0 4");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[600];

		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s", root, bad[i]);
		cr_assert_eq(symlink("../../../devices/" RP0, path), 0);
	}
	cr_assert_eq(ix_topo_read(root, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t.pci.n, 11);
	last = find(&t, "ffffffff:ff:1f.7");
	cr_assert_eq(last, (int)t.pci.n - 1, "the highest address sorts last");
	cr_assert_str_eq(t.pci.v[last].bdf, "ffffffff:ff:1f.7");
	cr_assert_str_eq(t.pci.v[last].host_bridge, "pciffffffff:ff");
	cr_assert_eq(t.pci.v[last].parent, -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool noted = false;

		for (size_t k = 0; k < t.pci.nnotes; k++)
			noted |= strncmp(t.pci.notes[k], bad[i], strlen(bad[i])) == 0 &&
				 strstr(t.pci.notes[k], ": not a PCI address") ==
					 t.pci.notes[k] + strlen(bad[i]);
		cr_assert(noted, "no note on %s", bad[i]);
	}
	ix_topo_free(&t);
	cleanup();
}

Test(topo, unused_gids_are_left_out)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	const struct ix_rdma_port *p;

	machine();
	rdma_port();
	cr_assert_eq(ix_topo_read(root, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t.nports, 1);
	p = &t.ports[0];
	cr_assert_str_eq(p->link->dev, "mlx5_0");
	cr_assert_eq(p->pci, find(&t, "0000:04:00.0"));
	cr_assert_eq(p->ngids, 2, "entries 0 and 3 only");
	cr_assert_eq(p->gids[0].index, 0);
	cr_assert_str_eq(p->gids[0].gid, GID_0);
	cr_assert_str_eq(p->gids[0].type, "IB");
	cr_assert_eq(p->gids[1].index, 3);
	cr_assert_str_eq(p->gids[1].gid, GID_3);
	ix_topo_free(&t);
	cleanup();
}

/* The text, JSON and HTML reports of the machine with both additions. */
Test(topo, reports_print_whole_addresses_and_used_gids)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	char *text = NULL, *html = NULL;
	size_t len = 0;
	FILE *f;
	json_t *j, *run, *pci, *d, *gids;
	size_t i;
	bool nic = false, rp = false;

	machine();
	vmd();
	rdma_port();
	cr_assert_eq(ix_topo_read(root, &t, &err), 0, "%s", err.msg);

	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	ix_text_topo(f, &t);
	fclose(f);
	/* The tree: the controller, then its domain below it, indented. */
	cr_assert(strstr(text, "\n  0000:00:0e.0  other "), "%s", text);
	cr_assert(strstr(text, "\n    10000:e0:00.0 root_port "), "%s", text);
	cr_assert(strstr(text, "\n      10000:e1:00.0 nic "), "%s", text);
	cr_assert(strstr(text, "\n      10000:e2:00.0 nvme "), "%s", text);
	cr_assert(strstr(text, "  10000:e1:00.0\n"), "the path matrix: %s", text);
	cr_assert(strstr(text, "gid 3   " GID_3), "%s", text);
	cr_assert_null(strstr(text, ZERO), "%s", text);
	cr_assert_null(strstr(text, "gid 1 "), "%s", text);
	cr_assert_null(strstr(text, "not a PCI address"), "%s", text);
	free(text);

	j = ix_test_json_roundtrip(ix_json_topo(&t));
	pci = json_object_get(j, "pci");
	json_array_foreach(pci, i, d)
	{
		const char *bdf = json_string_value(json_object_get(d, "bdf"));
		const char *parent = json_string_value(json_object_get(d, "parent"));

		if (strcmp(bdf, "10000:e1:00.0") == 0) {
			nic = true;
			cr_assert_str_eq(parent, "10000:e0:00.0");
			cr_assert_str_eq(json_string_value(json_object_get(d, "type")), "nic");
		}
		if (strcmp(bdf, "10000:e0:00.0") == 0) {
			rp = true;
			cr_assert_str_eq(parent, "0000:00:0e.0");
			cr_assert_str_eq(json_string_value(json_object_get(d, "type")),
					 "root_port");
			cr_assert_str_eq(json_string_value(json_object_get(d, "host_bridge")),
					 "pci0000:00");
		}
	}
	cr_assert(nic && rp);
	cr_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_object_get(j, "paths"), "devices"), 4)),
			 "10000:e1:00.0");
	gids = json_object_get(json_array_get(json_object_get(j, "rdma"), 0), "gids");
	cr_assert_eq(json_array_size(gids), 2);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(gids, 0), "index")), 0);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(gids, 0), "gid")), GID_0);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(gids, 1), "index")), 3);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(gids, 1), "gid")), GID_3);

	run = json_pack("{s:O}", "topology", j);
	f = open_memstream(&html, &len);
	cr_assert_not_null(f);
	ix_html_topo(f, run);
	fclose(f);
	cr_assert(strstr(html, "<code>10000:e1:00.0</code>"), "%s", html);
	cr_assert(strstr(html, "<code>10000:e2:00.0</code>"), "%s", html);
	cr_assert_null(strstr(html, ZERO), "%s", html);
	free(html);
	json_decref(run);
	json_decref(j);
	ix_topo_free(&t);
	cleanup();
}

/* What real machines' dumps taught (the gpu-numa layout of mkfixture.py):
 * InfiniBand HCAs of class 0x0c06 and of "other network" with an RDMA
 * device, GPU memory as NUMA nodes, a function whose place is unknown. */
Test(topo, hcas_gpu_memory_nodes_and_an_unknown_place)
{
	struct ix_topo t;
	int flat, qib, mlx4;

	ix_test_topo_fixture("gpu-numa", &t);
	qib = find(&t, "0000:41:00.0");
	mlx4 = find(&t, "0000:c1:00.0");
	flat = find(&t, "0035:05:00.0");
	cr_assert_eq(t.pci.v[qib].type, IX_PCI_IB);
	cr_assert_eq(t.pci.v[mlx4].type, IX_PCI_IB);
	/* No vendor file, but NVIDIA's driver lists it. */
	cr_assert_eq(t.pci.v[flat].type, IX_PCI_GPU);
	cr_assert_eq(t.pci.v[flat].vendor, 0x10de);
	cr_assert_str_eq(t.pci.v[flat].host_bridge, "");
	cr_assert_eq(ix_topo_path(&t, find(&t, "0000:01:00.0"), flat), IX_PATH_UNKNOWN);
	cr_assert_str_eq(ix_path_name(IX_PATH_UNKNOWN), "?");
	cr_assert_eq(ix_topo_path(&t, find(&t, "0000:01:00.0"), find(&t, "0000:81:00.0")),
		     IX_PATH_SYS);
	/* Nodes 0 and 1 are the sockets', 250-252 the GPUs' memory. */
	static const char *const owner[] = { "", "", "0000:01:00.0", "0000:81:00.0",
					     "0035:05:00.0" };
	cr_assert_eq(t.nnuma, 5);
	for (size_t i = 0; i < t.nnuma; i++)
		cr_assert_str_eq(t.numa[i].gpu, owner[i], "node %d", t.numa[i].node);
	cr_assert_geq(t.pci.nnotes, 1);
	ix_topo_free(&t);
}

/* The row of the PCI tree that lists bdf, without its newline ("" when
 * none does). */
static const char *row(const char *text, const char *bdf, char *buf, size_t len)
{
	char key[32];
	const char *at, *end;

	snprintf(key, sizeof(key), " %s ", bdf);
	buf[0] = '\0';
	at = strstr(text, key);
	if (at && (end = strchr(at, '\n')))
		snprintf(buf, len, "%.*s", (int)(end - at), at);
	return buf;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* The retimer layout of mkfixture.py: retimers on the GPU's link (one)
 * and the NIC's (two), the NIC with AER correctable errors. */
Test(topo, retimers_are_shown_and_suspected_of_aer_errors)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	char dir[64], path[96], buf[256], *text = NULL;
	size_t len = 0, i;
	FILE *f;
	json_t *j, *d;

	ix_test_mkfixture("retimer", dir, sizeof(dir), "/tmp/ixperf-topofx.XXXXXX");
	snprintf(path, sizeof(path), "%s/t", dir);
	cr_assert_eq(ix_topo_read(path, &t, &err), 0, "%s", err.msg);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	cr_expect_eq(system(path), 0);

	cr_assert_eq(t.nfindings, 1);
	cr_assert_eq(t.findings[0].kind, IX_FIND_AER);
	cr_assert_str_eq(t.findings[0].device, "0000:02:00.0");
	cr_assert(strstr(t.findings[0].message, "11 correctable PCIe errors since boot; 2 retimers "
						"sit on this link (PCIe Link Status 2): suspects "
						"beside the device and its slot."),
		  "%s", t.findings[0].message);

	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	ix_text_topo(f, &t);
	fclose(f);
	cr_assert(ends_with(row(text, "0000:01:00.0", buf, sizeof(buf)),
			    "Gen5 x16 (504 Gbit/s)  retimer"),
		  "%s", text);
	cr_assert(ends_with(row(text, "0000:02:00.0", buf, sizeof(buf)),
			    "Gen5 x16 (504 Gbit/s)  2 retimers  [ibp2s0 mlx5_0]"),
		  "%s", text);
	cr_assert(ends_with(row(text, "0000:00:03.0", buf, sizeof(buf)), "  2 retimers"), "%s",
		  text);
	cr_assert(ends_with(row(text, "0000:03:00.0", buf, sizeof(buf)), "Gen4 x4 (63 Gbit/s)"),
		  "%s", text);
	cr_assert(ends_with(row(text, "0000:04:00.0", buf, sizeof(buf)),
			    "Gen4 x16 (252 Gbit/s)  [eth0]"),
		  "%s", text);
	cr_assert(strstr(text, "note: 2 PCI function(s) gave only part of their config space"),
		  "%s", text);
	free(text);

	j = ix_test_json_roundtrip(ix_json_topo(&t));
	json_array_foreach(json_object_get(j, "pci"), i, d)
	{
		const char *bdf = json_string_value(json_object_get(d, "bdf"));
		json_t *rt = json_object_get(json_object_get(d, "link"), "retimers");

		if (strcmp(bdf, "0000:00:00.0") == 0)
			continue; /* no link */
		cr_assert_not_null(rt, "%s", bdf);
		if (strcmp(bdf, "0000:01:00.0") == 0 || strcmp(bdf, "0000:00:01.0") == 0)
			cr_assert_eq(json_integer_value(rt), 1, "%s", bdf);
		else if (strcmp(bdf, "0000:02:00.0") == 0 || strcmp(bdf, "0000:00:03.0") == 0)
			cr_assert_eq(json_integer_value(rt), 2, "%s", bdf);
		else if (strcmp(bdf, "0000:03:00.0") == 0 || strcmp(bdf, "0000:00:05.0") == 0)
			cr_assert(json_is_integer(rt) && json_integer_value(rt) == 0, "%s", bdf);
		else
			cr_assert(json_is_null(rt), "%s", bdf);
	}
	json_decref(j);
	ix_topo_free(&t);
}

/* CXL findings: none on a healthy device; an ERROR naming a device whose
 * link runs without CXL.mem; warnings for a device without an endpoint
 * and a region not committed. */
Test(topo, cxl_findings)
{
	struct ix_topo t;

	ix_test_cxl_topo(&t, false);
	ix_topo_check("", &t);
	cr_assert_eq(t.nfindings, 0, "%s", t.nfindings ? t.findings[0].message : "");
	ix_topo_free(&t);

	ix_test_cxl_topo(&t, true);
	t.cxl.regions[0].committed = false;
	ix_topo_check("", &t);
	cr_assert_eq(t.nfindings, 2);
	cr_assert_eq(t.findings[0].kind, IX_FIND_CXL);
	cr_assert(t.findings[0].error);
	cr_assert_str_eq(t.findings[0].device, "mem0");
	cr_assert(strstr(t.findings[0].message, "CXL memory device mem0 (0000:0d:00.0): CXL.mem is "
						"not enabled on its link"),
		  "%s", t.findings[0].message);
	cr_assert_str_eq(ix_finding_name(t.findings[0].kind), "cxl");
	cr_assert_not(t.findings[1].error);
	cr_assert_str_eq(t.findings[1].device, "region0");
	cr_assert(strstr(t.findings[1].message, "not committed"), "%s", t.findings[1].message);
	ix_topo_free(&t);

	ix_test_cxl_topo(&t, false);
	t.cxl.memdevs[0].endpoint = -1;
	ix_topo_check("", &t);
	cr_assert_eq(t.nfindings, 1);
	cr_assert(strstr(t.findings[0].message, "has no endpoint port"), "%s",
		  t.findings[0].message);
	ix_topo_free(&t);
}
