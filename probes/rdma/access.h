/* The access rights of an end's registered buffer and queue pairs: the
 * least the test's operation needs, as the peer holds the rkey. */
#ifndef IX_RDMA_ACCESS_H
#define IX_RDMA_ACCESS_H

#include <stdbool.h>

#include "probes/rdma/setup.h"

/* The least the registered buffer of one end must grant for p, as
 * IX_VERBS_ACCESS_* bits: local write always; remote write where the peer
 * writes into it (write and write_imm: the responder, both ends of a
 * bidirectional test or of a latency ping-pong), remote read where the
 * peer reads from it (read: the responder, both ends of a bidirectional
 * test). Send and receive need no remote right. requester: this end posts
 * the test's work (the client), else it answers (the agent). */
unsigned ix_rdma_mr_access(const struct ix_rdma_params *p, bool requester);

#endif
