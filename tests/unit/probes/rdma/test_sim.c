/* Unit tests for tests/unit/probes/rdma/sim.c, the SIMULATED RDMA NIC the
 * engine's tests run against: it must enforce what RC hardware enforces. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/rdma/engine.h"
#include "tests/unit/probes/rdma/sim.h"

static struct rdma_sim sim;
static struct ix_err err;

static void sim_up(const struct rdma_sim_cfg *c)
{
	cr_assert_eq(rdma_sim_init(&sim, c), 0);
	memset(&err, 0, sizeof(err));
}

static void sim_down(void)
{
	rdma_sim_free(&sim);
}

static int sim_post(uint64_t id, bool signaled)
{
	struct ix_rdma_wr wr = {
		.opcode = IX_RDMA_WRITE, .length = 64, .wr_id = id, .signaled = signaled
	};

	return rdma_sim_ops.post_send(&sim, 0, &wr, &err);
}

Test(rdma_sim, send_queue_space_comes_back_only_with_a_signaled_completion, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_wc wc[8];

	rdma_sim_cfg_default(&c);
	c.sq_depth = 4;
	sim_up(&c);
	for (uint64_t i = 1; i <= 3; i++)
		cr_assert_eq(sim_post(i, false), 0);
	for (int i = 0; i < 200; i++) /* long past their completion */
		cr_assert_eq(rdma_sim_ops.poll(&sim, wc, 8, &err), 0, "unsignaled WRs are silent");
	cr_assert_eq(sim_post(4, true), 0);
	cr_assert_eq(sim_post(5, true), -1, "the queue still holds the silent WRs");
	while (rdma_sim_ops.poll(&sim, wc, 8, &err) == 0)
		;
	cr_assert_eq(wc[0].wr_id, 4);
	for (uint64_t i = 5; i <= 8; i++)
		cr_assert_eq(sim_post(i, i == 8), 0);
	cr_assert_eq(sim.max_sq_used, 4);
}

Test(rdma_sim, a_send_needs_a_receive, .fini = sim_down)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_wc wc[8];
	int n = 0;

	rdma_sim_cfg_default(&c);
	c.in_msgs = 1;
	sim_up(&c);
	for (int i = 0; i < 100; i++)
		cr_assert_eq(rdma_sim_ops.poll(&sim, wc, 8, &err), 0);
	cr_assert_gt(sim.rnr_naks, 0);
	cr_assert_eq(rdma_sim_ops.post_recv(&sim, 0, 77, &err), 0);
	for (int i = 0; i < 100 && n == 0; i++)
		n = rdma_sim_ops.poll(&sim, wc, 8, &err);
	cr_assert_eq(n, 1);
	cr_assert(wc[0].is_recv);
	cr_assert_eq(wc[0].wr_id, 77);
	cr_assert_eq(wc[0].byte_len, 4096);
}
