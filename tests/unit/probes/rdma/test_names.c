/* Unit tests for probes/rdma/names.c: the names of completion statuses and
 * opcodes, and a run's defaults with the stall bound. */
#include "config.h"

#include <criterion/criterion.h>

#include "probes/rdma/engine.h"

Test(rdma_params, status_and_opcode_names)
{
	cr_assert_str_eq(ix_rdma_status_name(0), "IBV_WC_SUCCESS");
	cr_assert_str_eq(ix_rdma_status_name(5), "IBV_WC_WR_FLUSH_ERR");
	cr_assert_str_eq(ix_rdma_status_name(13), "IBV_WC_RNR_RETRY_EXC_ERR");
	cr_assert_str_eq(ix_rdma_status_name(23), "IBV_WC_TM_RNDV_INCOMPLETE");
	cr_assert_str_eq(ix_rdma_status_name(24), "unknown status");
	cr_assert_str_eq(ix_rdma_status_name(-1), "unknown status");
	cr_assert_str_eq(ix_rdma_opcode_name(IX_RDMA_WRITE_IMM), "write_imm");
}

/* The stall bound: 5 s until set; runs take the value set. */
Test(engine, stall_timeout_as_set)
{
	struct ix_rdma_run r;

	cr_assert_eq(ix_rdma_stall_timeout_ns(), 5000000000LL);
	ix_rdma_set_stall_timeout_ns(60000000000LL);
	ix_rdma_run_defaults(&r);
	cr_assert_eq(r.timeout_ns, 60000000000LL);
	ix_rdma_set_stall_timeout_ns(5000000000LL);
	ix_rdma_run_defaults(&r);
	cr_assert_eq(r.timeout_ns, 5000000000LL);
}

Test(rdma_params, defaults)
{
	struct ix_rdma_run r;

	ix_rdma_run_defaults(&r);
	cr_assert_eq(r.opcode, IX_RDMA_WRITE);
	cr_assert_eq(r.qps, 1);
	cr_assert_eq(r.size, 65536);
	cr_assert(r.peak);
}
