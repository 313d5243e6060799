/*
 * SIMULATED RDMA NIC, for the unit tests of probes/rdma/engine.c only. It
 * implements struct ix_rdma_ops over a virtual clock, deterministically and
 * without sleeping, so the engine runs for real where the kernel has no
 * RDMA. It is not part of libixperf and nothing on the command line reaches
 * it.
 *
 * The model: each direction of the wire carries one message at a time at
 * cfg.rate bytes per ns; a WR's completion comes a round trip (2 x the
 * one-way latency) after its last byte leaves. It enforces what RC hardware
 * enforces: a post beyond the send (or receive) queue depth fails; only
 * signaled WRs (and errors) produce completions, unsignaled ones complete
 * silently and their send queue entries are freed only when a later
 * signaled completion is polled; a send arriving with no receive posted is
 * refused (RNR) and retried later. Faults: WRs past a number never complete
 * (the peer vanished), one WR completes with an error status (the QP then
 * flushes the rest), one completion is lost.
 */
#ifndef IX_TEST_RDMA_SIM_H
#define IX_TEST_RDMA_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/rdma/engine.h"

#define RDMA_SIM_MAX_QPS  16
#define RDMA_SIM_MAX_ECHO 64
#define RDMA_SIM_FLUSH    5 /* IBV_WC_WR_FLUSH_ERR */

struct rdma_sim_cfg {
	uint32_t qps;
	uint32_t sq_depth, rq_depth; /* per QP */
	double rate;                 /* bytes per ns each way; 0: no serialisation */
	int64_t lat_ns;              /* one-way latency */
	const int64_t *lat_table;    /* if set, WR k's one-way latency: lat_table[(k-1) % len] */
	size_t lat_table_len;
	int64_t poll_cost_ns; /* clock advance of every poll */
	int64_t post_cost_ns; /* clock advance of every post */
	int64_t idle_step_ns; /* further advance of a poll when nothing at all is pending */
	bool fast_forward;    /* a poll that would come back empty jumps to the next event */
	int64_t rnr_delay_ns; /* retry delay of a send that found no receive */
	/* The peer streaming to us: in_msgs per QP of in_len bytes, back to
	 * back from in_start_ns, QPs in turn. */
	uint64_t in_msgs;
	uint32_t in_len;
	enum ix_rdma_opcode in_opcode; /* IX_RDMA_SEND or IX_RDMA_WRITE_IMM */
	int64_t in_start_ns;
	/* Ping-pong peer: each send, write or write_imm posted here is answered
	 * with the same opcode (a write shows as a write landing) after the
	 * round trip; echo_limit answers at most (0: no limit). With
	 * echo_starts the peer sends first, at echo_start_ns. */
	bool echo;
	uint64_t echo_limit;
	bool echo_starts;
	int64_t echo_start_ns;
	enum ix_rdma_opcode echo_opcode; /* of the peer's first message */
	/* Faults; WRs numbered from 1 in posting order over all QPs. */
	bool vanish; /* WRs after vanish_after never complete */
	uint64_t vanish_after;
	uint64_t error_wr; /* this WR completes with error_status (0: none) */
	int error_status;
	uint64_t drop_wr; /* the completion of this WR is lost (0: none) */
};

struct rdma_sim_wr {
	uint32_t qp;
	uint64_t wr_id;
	uint64_t seq;  /* over all QPs, from 1 */
	uint64_t qidx; /* in its QP, from 1 */
	enum ix_rdma_opcode op;
	uint32_t len, imm;
	bool signaled;
	int64_t done_ns; /* INT64_MAX: never */
	int64_t echo_ns;
};

struct rdma_sim_cqe {
	struct ix_rdma_wc wc;
	uint64_t qidx; /* send completions: the WR's index in its QP */
};

struct rdma_sim_arrival {
	int64_t t;
	uint32_t qp;
	enum ix_rdma_opcode op;
	uint32_t len, imm;
};

struct rdma_sim_qp {
	uint64_t posted, freed; /* send queue entries in use: posted - freed */
	bool error;
	uint64_t *rq; /* receive wr_ids, a ring of rq_depth */
	uint32_t rq_head, rq_n;
	uint64_t in_left; /* incoming stream messages still to come */
	uint64_t in_done; /* incoming messages delivered */
};

struct rdma_sim {
	struct rdma_sim_cfg cfg;
	int64_t now;
	double out_free, done_last; /* wire busy until; last completion time */
	struct rdma_sim_wr *pend;   /* WRs in flight, in completion order */
	size_t pend_head, pend_n, pend_cap;
	struct rdma_sim_cqe *cq;
	size_t cq_head, cq_n, cq_cap;
	struct rdma_sim_qp qp[RDMA_SIM_MAX_QPS];
	int64_t in_next; /* next incoming stream arrival */
	uint32_t in_qp;
	struct rdma_sim_arrival echo[RDMA_SIM_MAX_ECHO];
	size_t echo_n;
	uint64_t echoes; /* answers scheduled */
	uint64_t seq;
	/* What the engine did, for the tests to check. */
	uint64_t posts, recv_posts, polls, now_calls;
	uint64_t cqes, recv_cqes, dropped, rnr_naks;
	uint64_t sq_full, rq_full; /* posts refused */
	uint32_t max_sq_used, max_rq_used;
	uint64_t qp_posts[RDMA_SIM_MAX_QPS];
	bool cq_overrun;
	int64_t last_cqe_ns; /* when the last completion was handed out */
};

void rdma_sim_cfg_default(struct rdma_sim_cfg *cfg);
int rdma_sim_init(struct rdma_sim *s, const struct rdma_sim_cfg *cfg);
void rdma_sim_free(struct rdma_sim *s);

extern const struct ix_rdma_ops rdma_sim_ops;

#endif
