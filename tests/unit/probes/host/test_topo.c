/* Unit tests for probes/host/pci.c, probes/host/topo.c and probes/host/topo_check.c on
 * small sysfs trees built here: a root port with a PCIe switch holding a
 * GPU and a NIC, a NIC trained below its slot, a second socket. The large
 * real-world layouts are in tests/topo (tests/integration/topo.sh). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/host/topo_check.h"
#include "tests/unit/common.h"

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
