/* Unit tests for probes/host/nodeinv.c: a node read from the "downtrained"
 * layout of tests/topo/mkfixture.py with procfs files added, and a root
 * that holds nothing. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/ctl/invwire.h"
#include "probes/host/nodeinv.h"
#include "probes/host/sysfs.h"
#include "tests/unit/common.h"

static char dir[64];

/* The layout under dir/t, plus what procfs would say. */
static void build(void)
{
	char p[256];

	ix_test_mkfixture("downtrained", dir, sizeof(dir), "/tmp/ixperf-nodeinv.XXXXXX");
	snprintf(p, sizeof(p), "%s/t/proc/sys/kernel", dir);
	ix_test_mkdirs(p);
	ix_test_put(p, "osrelease", "6.1.0-test");
	ix_test_put(p, "hostname", "node-a");
	snprintf(p, sizeof(p), "%s/t/proc/self", dir);
	ix_test_mkdirs(p);
	ix_test_put(p, "maps",
		    "7f00-7f01 r-xp 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
		    "7f02-7f03 r-xp 00000000 08:01 13 "
		    "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0\n");
	snprintf(p, sizeof(p), "%s/t/proc/driver/nvidia", dir);
	ix_test_mkdirs(p);
	ix_test_put(p, "version",
		    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 "
		    "01:15:15 UTC 2023\n");
}

static void clean(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* The first line of dir/t/rel. */
static void tree_line(const char *rel, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/t%s", dir, rel);
	cr_assert_eq(ix_sysfs_read(path, buf, len), 0, "%s", path);
}

Test(nodeinv, reads_the_node_below_its_root)
{
	struct ix_node_inv *inv = calloc(1, sizeof(*inv));
	char root[128], fw[64], mtu[16], want[32];

	build();
	snprintf(root, sizeof(root), "%s/t", dir);
	ix_node_inv_read(root, inv);
	cr_expect_str_eq(inv->kernel, "6.1.0-test");
	cr_expect_str_eq(inv->hostname, "node-a");
	cr_expect_str_eq(inv->verbs, "libibverbs.so.1.14.44.0");
	cr_expect_str_eq(inv->gpu_driver, "nvidia 535.104.05");
	cr_assert_eq(inv->nnics, 2);
	tree_line("/sys/class/infiniband/mlx5_0/fw_ver", fw, sizeof(fw));
	tree_line("/sys/class/net/ibp1s0/mtu", mtu, sizeof(mtu));
	for (uint32_t i = 0; i < inv->nnics; i++) {
		const struct ix_inv_nic *n = &inv->nics[i];

		cr_expect_str_eq(n->fw, fw);
		cr_expect_str_eq(n->driver, "mlx5_core");
		cr_expect(n->mtu_known);
		cr_expect_eq(n->mtu, (uint32_t)strtoul(mtu, NULL, 10));
		cr_expect(n->pcie.known);
		cr_expect_eq(n->numa_node, 0);
		cr_expect_neq(n->model[0], '\0');
	}
	/* ibp1s0 trained below both ends; ibp2s0 at its root port's limit. */
	cr_expect_str_eq(inv->nics[0].name, "ibp1s0");
	cr_expect_str_eq(inv->nics[0].rdma, "mlx5_0");
	cr_expect(inv->nics[0].pcie.downtrained);
	cr_expect(inv->nics[0].pcie.gen < inv->nics[0].pcie.max_gen);
	cr_expect_not(inv->nics[1].pcie.downtrained);
	ix_inv_pcie_str(&inv->nics[0].pcie, false, want, sizeof(want));
	cr_expect_eq(strncmp(want, "Gen", 3), 0, "%s", want);
	/* The topology finding, naming the NIC's function. */
	cr_assert_eq(inv->nfindings, 1);
	cr_expect_eq(inv->findings_total, 1);
	cr_expect_str_eq(inv->findings[0].kind, "pcie_downtrained");
	cr_expect_str_eq(inv->findings[0].device, inv->nics[0].bdf);
	cr_expect_eq(inv->ngpus, 0);
	cr_expect_not(inv->truncated);
	free(inv);
	clean();
}

/* dgx-degraded: GPU 0000:18:00.0 at x8 below both ends is downtrained in
 * the inventory as in its finding, GPU 0000:19:00.0 idling at Gen1 is
 * not, no NIC is; the reply's JSON carries the same flags. */
Test(nodeinv, the_same_downtrained_links_as_the_findings)
{
	struct ix_node_inv *inv = calloc(1, sizeof(*inv));
	char root[128];
	json_t *j;
	size_t found = 0;

	ix_test_mkfixture("dgx-degraded", dir, sizeof(dir), "/tmp/ixperf-nodeinv.XXXXXX");
	snprintf(root, sizeof(root), "%s/t", dir);
	ix_node_inv_read(root, inv);
	cr_assert_eq(inv->ngpus, 8);
	for (uint32_t i = 0; i < inv->ngpus; i++)
		cr_expect_eq(inv->gpus[i].pcie.downtrained,
			     strcmp(inv->gpus[i].bdf, "0000:18:00.0") == 0, "%s", inv->gpus[i].bdf);
	for (uint32_t i = 0; i < inv->nnics; i++)
		cr_expect_not(inv->nics[i].pcie.downtrained, "%s", inv->nics[i].bdf);
	cr_assert_eq(inv->nfindings, 3);
	for (uint32_t i = 0; i < inv->nfindings; i++) {
		cr_expect_str_eq(inv->findings[i].kind, "pcie_downtrained");
		found += strcmp(inv->findings[i].device, "0000:18:00.0") == 0;
	}
	cr_expect_eq(found, 1);
	j = ix_inv_reply(inv);
	cr_assert_not_null(j);
	cr_expect(json_is_true(json_object_get(
		json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "pcie"),
		"downtrained")));
	cr_expect(json_is_false(json_object_get(
		json_object_get(json_array_get(json_object_get(j, "gpus"), 1), "pcie"),
		"downtrained")));
	json_decref(j);
	free(inv);
	clean();
}

Test(nodeinv, an_empty_root_reads_as_unknown)
{
	struct ix_node_inv *inv = calloc(1, sizeof(*inv));
	char tmpl[] = "/tmp/ixperf-nodeinv-empty.XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	ix_node_inv_read(tmpl, inv);
	cr_expect_str_eq(inv->kernel, "");
	cr_expect_str_eq(inv->verbs, "");
	cr_expect_str_eq(inv->gpu_driver, "");
	cr_expect_eq(inv->nnics, 0);
	cr_expect_eq(inv->nfindings, 0);
	rmdir(tmpl);
	free(inv);
}

Test(nodeinv, pcie_strings)
{
	struct ix_inv_pcie p = {
		.known = true, .gen = 4, .width = 8, .max_gen = 5, .max_width = 16
	};
	char buf[32];

	ix_inv_pcie_str(&p, false, buf, sizeof(buf));
	cr_expect_str_eq(buf, "Gen4 x8");
	ix_inv_pcie_str(&p, true, buf, sizeof(buf));
	cr_expect_str_eq(buf, "Gen5 x16");
	p.known = false;
	ix_inv_pcie_str(&p, false, buf, sizeof(buf));
	cr_expect_str_eq(buf, "unknown");
}
