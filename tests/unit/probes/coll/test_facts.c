/* Unit tests for probes/coll/facts.c: the bus bandwidth the links allow
 * (NVLink, PCIe, the NICs of a node), what leaves it unknown, and facts
 * read where nothing can be read. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/coll.h"

/* n ranks, ranks_per_node on each node ("n0", "n1", ...), one row whose
 * out-of-place busbw is busbw; every rank's facts: no NVLink, PCIe Gen5
 * x16 and its own 50 GB/s NIC. */
static struct ix_coll_result *result(int n, int ranks_per_node, double busbw)
{
	struct ix_coll_result *r = calloc(1, sizeof(*r));

	r->nranks = n;
	r->nnodes = (n + ranks_per_node - 1) / ranks_per_node;
	r->ranks = calloc((size_t)n, sizeof(*r->ranks));
	r->nrows = 1;
	r->rows[0].cell[IX_COLL_OUT_OF_PLACE] =
		(struct ix_coll_cell){ .measured = true, .busbw = busbw };
	for (int i = 0; i < n; i++) {
		struct ix_coll_rank *k = &r->ranks[i];
		struct ix_coll_facts *f = &k->facts;

		k->rank = i;
		snprintf(k->node, sizeof(k->node), "n%d", i / ranks_per_node);
		snprintf(k->pci_bus_id, sizeof(k->pci_bus_id), "0000:%02x:00.0", 0x18 + i);
		f->pcie_known = true;
		f->pcie_gen = 5;
		f->pcie_width = 16;
		f->pcie_Bps = 63e9;
		f->nvlinks = 0;
		snprintf(f->nic, sizeof(f->nic), "mlx5_%d/1", i % ranks_per_node);
		snprintf(f->nic_path, sizeof(f->nic_path), "PIX");
		f->nic_Bps = 50e9;
	}
	return r;
}

static void result_free(struct ix_coll_result *r)
{
	free(r->ranks);
	free(r);
}

Test(facts, nvlink_within_a_node)
{
	struct ix_coll_result *r = result(2, 2, 360e9);

	for (int i = 0; i < 2; i++) {
		r->ranks[i].facts.nvlinks = 18;
		r->ranks[i].facts.nvlink_version = 6;
		r->ranks[i].facts.nvlink_Bps = 450e9;
	}
	ix_coll_ceiling(r);
	cr_assert_float_eq(r->ceiling.Bps, 450e9, 1);
	cr_assert_str_eq(r->ceiling.limit, "nvlink");
	cr_assert_str_eq(r->ceiling.why, "NVLink 4.0, 18 links x 25 GB/s each way (rank 0 on n0)");
	cr_assert_float_eq(r->ceiling.share, 0.8, 1e-9);
	cr_assert_str_eq(r->ceiling.unknown, "");
	result_free(r);
}

Test(facts, pcie_when_a_gpu_has_no_nvlink)
{
	struct ix_coll_result *r = result(2, 2, 12e9);

	r->ranks[0].facts.nvlinks = 12;
	r->ranks[0].facts.nvlink_Bps = 300e9;
	r->ranks[1].facts.pcie_gen = 4;
	r->ranks[1].facts.pcie_width = 8;
	r->ranks[1].facts.pcie_Bps = 15.75e9;
	ix_coll_ceiling(r);
	cr_assert_float_eq(r->ceiling.Bps, 15.75e9, 1, "the slowest GPU's PCIe link");
	cr_assert_str_eq(r->ceiling.limit, "pcie");
	cr_assert(strstr(r->ceiling.why, "PCIe Gen4 x8, 15.8 GB/s each way (rank 1 on n0, GPU "
					 "0000:19:00.0)"),
		  "%s", r->ceiling.why);
	cr_assert_float_eq(r->ceiling.share, 12e9 / 15.75e9, 1e-9);
	result_free(r);
}

Test(facts, across_nodes_the_node_with_the_least_nic_bandwidth)
{
	struct ix_coll_result *r = result(4, 2, 40e9);

	for (int i = 0; i < 4; i++) {
		r->ranks[i].facts.nvlinks = 18;
		r->ranks[i].facts.nvlink_version = 6;
		r->ranks[i].facts.nvlink_Bps = 450e9;
	}
	/* node n1's two GPUs share one NIC */
	snprintf(r->ranks[3].facts.nic, sizeof(r->ranks[3].facts.nic), "mlx5_0/1");
	ix_coll_ceiling(r);
	cr_assert_float_eq(r->ceiling.Bps, 50e9, 1);
	cr_assert_str_eq(r->ceiling.limit, "network");
	cr_assert_str_eq(r->ceiling.why, "n1: 1 NIC, 50.0 GB/s together each way");
	cr_assert_float_eq(r->ceiling.share, 0.8, 1e-9);
	result_free(r);
}

Test(facts, what_was_not_read_leaves_it_unknown)
{
	struct ix_coll_result *r = result(2, 2, 10e9);

	r->ranks[1].facts.nvlinks = -1;
	snprintf(r->ranks[1].facts.nvml_error, sizeof(r->ranks[1].facts.nvml_error),
		 "no libnvidia-ml.so.1");
	ix_coll_ceiling(r);
	cr_assert_float_eq(r->ceiling.Bps, 0, 1e-9, "never a PCIe figure an NVLink may beat");
	cr_assert_float_eq(r->ceiling.share, 0, 1e-9);
	cr_assert_str_eq(r->ceiling.unknown,
			 "rank 1 on n0: NVLink not read (no libnvidia-ml.so.1)");
	result_free(r);

	r = result(4, 2, 10e9); /* one node's NIC rate not known */
	r->ranks[2].facts.nic_Bps = 0;
	ix_coll_ceiling(r);
	cr_assert_float_eq(r->ceiling.Bps, 0, 1e-9);
	cr_assert(strstr(r->ceiling.unknown, "n1: a rank's NIC or its rate not found"), "%s",
		  r->ceiling.unknown);
	result_free(r);

	r = result(2, 2, 10e9); /* AMD GPUs: their xGMI links are not read */
	snprintf(r->gpu_backend, sizeof(r->gpu_backend), "rocm");
	ix_coll_ceiling(r);
	cr_assert_float_eq(r->ceiling.Bps, 0, 1e-9, "never their PCIe link as the ceiling");
	cr_assert_str_eq(r->ceiling.unknown,
			 "rank 0 on n0: the GPUs' xGMI links are not read (NVLink only)");
	result_free(r);

	r = result(1, 1, 0); /* one rank: no link */
	ix_coll_ceiling(r);
	cr_assert_float_eq(r->ceiling.Bps, 0, 1e-9);
	cr_assert_str_eq(r->ceiling.unknown, "");
	result_free(r);
}

Test(facts, nothing_to_read)
{
	struct ix_coll_facts f;
	struct ix_ctr_set before;

	ix_coll_facts_read("/nonexistent", "/nonexistent/libnvidia-ml.so.1", "0000:18:00.0", &f,
			   &before);
	cr_assert_not(f.pcie_known);
	cr_assert_eq(f.nvlinks, -1);
	cr_assert(strstr(f.nvml_error, "no /nonexistent/libnvidia-ml.so.1"), "%s", f.nvml_error);
	cr_assert_str_eq(f.nic, "");
	ix_coll_facts_end("/nonexistent", &f, &before);
	cr_assert_not(f.fabric_known, "no counters read: nothing said to have moved");
	ix_coll_facts_read("", NULL, "", &f, &before);
	cr_assert_eq(f.nvlinks, -1, "no GPU bus id: nothing read");
	ix_coll_facts_end("", &f, &before);
}
