/* What an end's registered buffer grants its peer (probes/rdma/access.h). */
#include "config.h"

#include "probes/rdma/access.h"
#include "probes/rdma/verbs.h"

unsigned ix_rdma_mr_access(const struct ix_rdma_params *p, bool requester)
{
	/* Latency write and write_imm answer each round trip with a write back. */
	bool target = !requester || p->bidirectional || p->kind == IX_RDMA_LAT;

	switch (p->op) {
	case IX_RDMA_OP_WRITE:
	case IX_RDMA_OP_WRITE_IMM:
		return IX_VERBS_ACCESS_LOCAL_WRITE | (target ? IX_VERBS_ACCESS_REMOTE_WRITE : 0);
	case IX_RDMA_OP_READ:
		/* A latency read's responder only answers: the requester is read from by nobody. */
		target = !requester || p->bidirectional;
		return IX_VERBS_ACCESS_LOCAL_WRITE | (target ? IX_VERBS_ACCESS_REMOTE_READ : 0);
	case IX_RDMA_OP_SEND:
	default:
		return IX_VERBS_ACCESS_LOCAL_WRITE;
	}
}
