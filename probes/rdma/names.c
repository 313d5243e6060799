/* The RDMA engine's names (completion statuses, opcodes) and the defaults
 * of a run (see probes/rdma/engine.h). */
#include "config.h"

#include <stddef.h>

#include "probes/rdma/engine.h"

/* enum ibv_wc_status, in order. */
/* clang-format off */
static const char *const status_names[] = {
	"IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_EEC_OP_ERR",
	"IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR",
	"IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR",
	"IBV_WC_REM_OP_ERR", "IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR",
	"IBV_WC_LOC_RDD_VIOL_ERR", "IBV_WC_REM_INV_RD_REQ_ERR", "IBV_WC_REM_ABORT_ERR",
	"IBV_WC_INV_EECN_ERR", "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
	"IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR", "IBV_WC_TM_ERR", "IBV_WC_TM_RNDV_INCOMPLETE",
};
/* clang-format on */

const char *ix_rdma_status_name(int status)
{
	if (status < 0 || (size_t)status >= sizeof(status_names) / sizeof(status_names[0]))
		return "unknown status";
	return status_names[status];
}

const char *ix_rdma_opcode_name(enum ix_rdma_opcode op)
{
	static const char *const names[] = { "write", "read", "send", "write_imm" };

	return (unsigned)op < 4 ? names[op] : "unknown";
}

static int64_t stall_timeout_ns = 5 * 1000000000LL;

void ix_rdma_set_stall_timeout_ns(int64_t ns)
{
	stall_timeout_ns = ns;
}

int64_t ix_rdma_stall_timeout_ns(void)
{
	return stall_timeout_ns;
}

void ix_rdma_run_defaults(struct ix_rdma_run *r)
{
	*r = (struct ix_rdma_run){ .opcode = IX_RDMA_WRITE,
				   .side = IX_RDMA_REQUESTER,
				   .qps = 1,
				   .size = 65536,
				   .tx_depth = 128,
				   .rx_depth = 512,
				   .cq_mod = 100,
				   .iters = 5000,
				   .timeout_ns = ix_rdma_stall_timeout_ns(),
				   .peak = true };
}
