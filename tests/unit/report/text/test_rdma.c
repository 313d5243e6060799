/* Unit tests for report/text/rdma.c: what closes an RDMA test's text: the
 * average against the lower end's ceiling, named when it is a PCIe link
 * (the NIC's, or the GPU's that holds the buffers), then the counters. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"

static char *end_text(const struct ix_rdma_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	ix_text_rdma_end(f, r);
	fclose(f);
	return buf;
}

static void write_bw(struct ix_rdma_result *r, double bps)
{
	struct ix_rdma_params p;

	ix_rdma_params_init(&p, IX_RDMA_BW, IX_RDMA_OP_WRITE);
	ix_rdma_result_init(r, &p);
	r->complete = true;
	r->bw.tx = (struct ix_rdma_dir_figures){ .valid = true,
						 .messages = 1000,
						 .bytes = (uint64_t)(bps / 8),
						 .ns = 1000000000,
						 .bits_per_second = bps };
}

/* GPU buffers in a GPU whose link trained Gen3 x8: it holds the test. */
Test(rdma_text, the_gpus_link_is_named_when_it_is_the_ceiling)
{
	struct ix_rdma_result r;
	char *t;

	write_bw(&r, 55e9);
	r.local.link = (struct ix_link_limit){
		.iface = "ibp25s0",
		.bps = 400e9,
		.source = "infiniband rate",
		.pcie = { .known = true,
			  .bdf = "0000:19:00.0",
			  .gen = 5,
			  .width = 16,
			  .expected_gen = 5,
			  .expected_width = 16,
			  .bps = 504e9 },
		.gpu = { .known = true,
			 .bdf = "0000:18:00.0",
			 .gen = 3,
			 .width = 8,
			 .expected_gen = 5,
			 .expected_width = 16,
			 .bps = 63e9,
			 .downtrained = true },
	};
	ix_link_settle(&r.local.link);
	r.remote.link = (struct ix_link_limit){ .iface = "ibp1s0", .bps = 400e9 };
	ix_link_settle(&r.remote.link);
	t = end_text(&r);
	cr_assert_not_null(strstr(t,
				  "  the average is 87.3% of the PCIe Gen3 x8 link (63.0 Gbit/s) "
				  "of GPU 0000:18:00.0, its buffers'\n"),
			   "%s", t);
	cr_assert_not_null(strstr(t,
				  "  Ceiling: GPU 0000:18:00.0, which holds the buffers, is on a "
				  "PCIe Gen3 x8 link, 63.0 Gbit/s, below the line rate of 400 "
				  "Gbit/s; the goodput sits at it; the link trained below its "
				  "Gen5 x16 capability\n"),
			   "%s", t);
	free(t);
	ix_rdma_result_free(&r);
}

/* The agent's port is the slower: the share is of its link. */
Test(rdma_text, the_agents_link_when_it_is_lower)
{
	struct ix_rdma_result r;
	char *t;

	write_bw(&r, 20e9);
	r.local.link = (struct ix_link_limit){ .iface = "eth0", .bps = 100e9 };
	r.remote.link = (struct ix_link_limit){ .iface = "eth1", .bps = 25e9 };
	ix_link_settle(&r.local.link);
	ix_link_settle(&r.remote.link);
	t = end_text(&r);
	cr_assert_not_null(strstr(t,
				  "  the average is 80.0% of the 25.0 Gbit/s link on the agent's "
				  "eth1\n"),
			   "%s", t);
	cr_assert_null(strstr(t, "Ceiling:"), "the line is no PCIe bottleneck: %s", t);
	free(t);
	/* Neither end knows its ceiling: nothing said. */
	memset(&r.local.link, 0, sizeof(r.local.link));
	memset(&r.remote.link, 0, sizeof(r.remote.link));
	t = end_text(&r);
	cr_assert_null(strstr(t, "the average is"), "%s", t);
	free(t);
	ix_rdma_result_free(&r);
}
