/* The RDMA engine's operations on real hardware: probes/rdma/engine.c
 * drives struct ix_rdma_ops, this file implements them with the verbs
 * layer (probes/rdma/verbs.c), and turns the options both ends agreed on
 * (probes/rdma/setup.h) into the engine's run. */
#include "config.h"

#include <string.h>

#include "probes/core/clock.h"
#include "probes/rdma/rdma.h"

/* Three layers name the operations; they share one order. */
_Static_assert((int)IX_RDMA_WRITE == (int)IX_VERBS_WRITE &&
		       (int)IX_RDMA_READ == (int)IX_VERBS_READ &&
		       (int)IX_RDMA_SEND == (int)IX_VERBS_SEND &&
		       (int)IX_RDMA_WRITE_IMM == (int)IX_VERBS_WRITE_IMM,
	       "engine and verbs operations differ");
_Static_assert((int)IX_RDMA_OP_WRITE == (int)IX_RDMA_WRITE &&
		       (int)IX_RDMA_OP_READ == (int)IX_RDMA_READ &&
		       (int)IX_RDMA_OP_SEND == (int)IX_RDMA_SEND &&
		       (int)IX_RDMA_OP_WRITE_IMM == (int)IX_RDMA_WRITE_IMM,
	       "setup and engine operations differ");

static int post_send(void *ctx, uint32_t qp, const struct ix_rdma_wr *wr, struct ix_err *err)
{
	struct ix_rdma_hw *hw = ctx;

	/* Write latency: the peer watches the last byte of its buffer, so
	 * every write carries a new value there. */
	if (hw->watch_writes && wr->opcode == IX_RDMA_WRITE && hw->size) {
		volatile uint8_t *buf = ix_verbs_buffer(hw->v);

		buf[hw->size - 1] = (uint8_t)(wr->wr_id + 1);
	}
	return ix_verbs_post_send(hw->v, qp, (enum ix_verbs_op)wr->opcode, 0, wr->length,
				  wr->signaled, wr->inline_data, wr->wr_id, err);
}

static int post_recv(void *ctx, uint32_t qp, uint64_t wr_id, struct ix_err *err)
{
	struct ix_rdma_hw *hw = ctx;

	return ix_verbs_post_recv(hw->v, qp, 0, hw->size ? hw->size : 1, wr_id, err);
}

/* One CQ's completions; the watched write of latency (one QP, one CQ)
 * on CQ 0. */
static int poll_cq(void *ctx, uint32_t cq, struct ix_rdma_wc *wc, int max, struct ix_err *err)
{
	struct ix_rdma_hw *hw = ctx;
	struct ix_verbs_wc vw[IX_RDMA_POLL_BATCH];
	int n = ix_verbs_poll(hw->v, cq, vw, max < IX_RDMA_POLL_BATCH ? max : IX_RDMA_POLL_BATCH,
			      err);

	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		wc[i] = (struct ix_rdma_wc){ .wr_id = vw[i].wr_id,
					     .qp = vw[i].qp,
					     .status = vw[i].status,
					     .opcode = hw->opcode,
					     .byte_len = vw[i].byte_len,
					     .is_recv = vw[i].recv };
	if (hw->watch_writes && cq == 0 && n < max && hw->size) {
		uint8_t now = ix_verbs_buffer(hw->v)[2 * (uint64_t)hw->size - 1];

		if (now != hw->last_seen) {
			hw->last_seen = now;
			wc[n++] = (struct ix_rdma_wc){ .opcode = IX_RDMA_WRITE, .is_recv = true };
		}
	}
	return n;
}

/* Every CQ's, in turn from the one after the last that had some. */
static int poll_all(void *ctx, struct ix_rdma_wc *wc, int max, struct ix_err *err)
{
	struct ix_rdma_hw *hw = ctx;
	uint32_t ncq = ix_verbs_cqs(hw->v);

	for (uint32_t i = 0; i < ncq; i++) {
		uint32_t cq = (hw->next_cq + i) % ncq;
		int n = poll_cq(ctx, cq, wc, max, err);

		if (n != 0) {
			hw->next_cq = cq + 1;
			return n;
		}
	}
	return 0;
}

static int64_t now_ns(void *ctx)
{
	struct ix_rdma_hw *hw = ctx;

	return ix_tsc_now(&hw->tsc);
}

static int64_t now_cq(void *ctx, uint32_t cq)
{
	struct ix_rdma_hw *hw = ctx;

	return ix_tsc_now(&hw->tsc_cq[cq % IX_RDMA_TEAM_MAX]);
}

static const char *clock_name(void *ctx)
{
	struct ix_rdma_hw *hw = ctx;

	return ix_tsc_name(&hw->tsc);
}

const struct ix_rdma_ops ix_rdma_hw_ops = { post_send,  post_recv, poll_all, now_ns,
					    clock_name, poll_cq,   now_cq };

void ix_rdma_run_from_params(const struct ix_rdma_params *p, bool requester, bool latency,
			     struct ix_rdma_run *run)
{
	ix_rdma_run_defaults(run);
	run->opcode = (enum ix_rdma_opcode)p->op;
	run->side = requester ? IX_RDMA_REQUESTER : IX_RDMA_RESPONDER;
	run->bidir = p->bidirectional;
	run->qps = latency ? 1 : p->qps;
	run->size = (uint32_t)p->msg_size;
	run->tx_depth = ix_rdma_sq_depth(p);
	run->rx_depth = p->rx_depth;
	run->cq_mod = p->cq_mod ? p->cq_mod : 1;
	run->inline_data = p->inline_size > 0 && (uint64_t)p->inline_size >= p->msg_size;
	run->iters = p->iterations;
	run->duration_ns = p->iterations ? 0 : (int64_t)(p->duration_s * 1e9);
	if (p->iterations)
		run->warmup_iters = p->warmup_s > 0 ? p->iterations / 10 : 0;
	else
		run->warmup_ns = p->warmup_s > 0 ? (int64_t)(p->warmup_s * 1e9) : 0;
	run->peak = !latency && p->iterations > 0;
}
