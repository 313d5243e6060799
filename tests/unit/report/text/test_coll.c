/* Unit tests for report/text/coll.c: nccl-tests' table with its units, the
 * simulation's line, a rank's error on its line, the verdicts. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/merge.h"
#include "report/text/text.h"

static char *text(struct ix_coll_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ix_text_coll(f, res);
	fclose(f);
	return buf;
}

static void setup(struct ix_coll_result *res)
{
	memset(res, 0, sizeof(*res));
	res->opts.op = IX_COLL_BROADCAST;
	res->opts.dtype = IX_COLL_INT32;
	res->opts.root = 2;
	res->opts.sizes[0] = 1 << 20;
	res->opts.nsizes = 1;
	res->opts.iters = 20;
	res->opts.warmup = 5;
	res->opts.check = true;
	res->opts.places[0] = res->opts.places[1] = true;
	res->opts.pair_scan = true;
	snprintf(res->lib_name, sizeof(res->lib_name), "nccl");
	snprintf(res->lib_version, sizeof(res->lib_version), "2.21.5");
	snprintf(res->library, sizeof(res->library), "/usr/lib/libnccl.so.2");
	snprintf(res->gpu_backend, sizeof(res->gpu_backend), "cuda");
	res->nranks = 3;
	res->ranks = calloc(3, sizeof(*res->ranks));
	for (int r = 0; r < 3; r++) {
		struct ix_coll_rank *k = &res->ranks[r];
		k->rank = r;
		snprintf(k->node, sizeof(k->node), "n%d", r);
		k->joined = k->complete = true;
		k->nrows = 1;
		k->cell[0][0] = (struct ix_coll_rank_cell){ true, 100, 98, 97, 120, 0, 0 };
		k->cell[0][1] = (struct ix_coll_rank_cell){ true, 200, 198, 197, 220, 0, 0 };
		k->pair_bps = r == 1 ? 1e9 : 10e9; /* the link (1, 2) */
	}
}

Test(text_coll, table)
{
	struct ix_coll_result res;
	char *buf;

	setup(&res);
	ix_coll_merge(&res);
	buf = text(&res);
	cr_assert(strstr(buf, "ixperf coll broadcast: nccl 2.21.5 (/usr/lib/libnccl.so.2) over "
			      "cuda, 3 ranks on 3 nodes\n"),
		  "%s", buf);
	cr_assert(!strstr(buf, "SIMULATED"), "a real library: %s", buf);
	cr_assert(
		strstr(buf, "int32, root 2; 20 iterations after 5 warm-up; busbw = algbw x 1 = 1;"),
		"%s", buf);
	/* 1 MiB in 100 us: 10.49 GB/s; in place 200 us: 5.24 */
	cr_assert(strstr(buf, "     1048576       262144      100.0   10.49   "
			      "10.49       0      200.0    5.24    5.24       0\n"),
		  "%s", buf);
	cr_assert(strstr(buf, "Avg bus bandwidth: 7.864 GB/s"), "%s", buf);
	cr_assert(strstr(buf, "Slow link: rank 1 on n1 <-> rank 2 on n2, at 0.10 x the others"),
		  "%s", buf);
	free(buf);
	ix_coll_result_free(&res);
}

Test(text_coll, simulation_and_errors)
{
	struct ix_coll_result res;
	char *buf;

	setup(&res);
	snprintf(res.simulation, sizeof(res.simulation), "a simulated NCCL");
	res.ranks[2].complete = false;
	res.ranks[2].cell[0][1].measured = false;
	snprintf(res.ranks[2].error, sizeof(res.ranks[2].error), "the collectives did not end\n");
	ix_coll_merge(&res);
	buf = text(&res);
	cr_assert(strstr(buf, "\nSIMULATED library: a simulated NCCL\n"), "%s", buf);
	cr_assert(strstr(buf, "        -       -       -       -\n"), "in-place unmeasured: %s",
		  buf);
	cr_assert(strstr(buf, "  the collectives did not end?\n"),
		  "the error on the rank's line, made safe: %s", buf);
	cr_assert(strstr(buf, "INCOMPLETE: a rank stopped"), "%s", buf);
	free(buf);
	ix_coll_result_free(&res);
}

/* The slow link's two ends with their links, and what the links allow. */
Test(text_coll, links_and_ceiling)
{
	struct ix_coll_result res;
	char *buf;

	setup(&res);
	for (int r = 0; r < 3; r++) {
		struct ix_coll_facts *f = &res.ranks[r].facts;

		f->pcie_known = true;
		f->pcie_gen = 5;
		f->pcie_width = 16;
		f->pcie_max_gen = 5;
		f->pcie_max_width = 16;
		f->pcie_Bps = 63e9;
		f->nvlinks = 0;
		snprintf(f->nic, sizeof(f->nic), "mlx5_0/1");
		snprintf(f->nic_path, sizeof(f->nic_path), "PIX");
		f->nic_Bps = 50e9;
		f->fabric_known = true;
	}
	res.ranks[2].facts.pcie_gen = 4;
	res.ranks[2].facts.pcie_width = 8;
	res.ranks[2].facts.pcie_downtrained = true;
	res.ranks[2].facts.fabric_moved.v[IX_CC_ERROR] = 7;
	res.ranks[2].facts.fabric_moved.has = 1u << IX_CC_ERROR;
	ix_coll_merge(&res);
	buf = text(&res);
	cr_assert(strstr(buf, "\nBus bandwidth the links allow: 50.0 GB/s (network, n0: 1 NIC, "
			      "50.0 GB/s together each way)\nThe largest size's busbw is "),
		  "one rank a node: the NICs set it: %s", buf);
	cr_assert(strstr(buf,
			 "Slow link: rank 1 on n1 <-> rank 2 on n2, at 0.10 x the others of "
			 "its kind\n  its links: PCIe Gen5 x16; no NVLink; nearest NIC mlx5_0/1 "
			 "(PIX, 50.0 GB/s); no fabric counter moved during the run\n  its links: "
			 "PCIe Gen4 x8, DOWNTRAINED (the GPU can do Gen5 x16); no NVLink; nearest "
			 "NIC mlx5_0/1 (PIX, 50.0 GB/s); during the run: 7 errors\n"),
		  "%s", buf);
	free(buf);
	res.ranks[1].facts.nic_Bps = 0;
	ix_coll_merge(&res);
	buf = text(&res);
	cr_assert(strstr(buf, "\nBus bandwidth the links allow: unknown (n1: a rank's NIC or its "
			      "rate not found in sysfs)\n"),
		  "%s", buf);
	free(buf);
	ix_coll_result_free(&res);
}
