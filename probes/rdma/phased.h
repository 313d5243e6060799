/*
 * A phased RDMA write test for ixperf ecmp --path rdma: one connection's
 * QPs, created once, each run alone in turn and then all at once, on a
 * schedule fixed from the job's start so that another agent (a switch's)
 * can read its counters between the phases:
 *
 *   0 ... lead | QP 0 alone | gap | QP 1 alone | gap | ... | all at once
 *
 * Each QP keeps its 5-tuple from its first phase to its last: the same QP
 * (and its UDP source port) runs alone and at once. Every figure counts
 * every completed message, warm-up and the tail past a deadline included,
 * as the switches' counters see every byte.
 */
#ifndef IX_RDMA_PHASED_H
#define IX_RDMA_PHASED_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/core/err.h"
#include "probes/rdma/engine.h"

#define IX_RDMA_PHASED_MAX_QPS 64
#define IX_RDMA_RXE_VENDOR     0xffffffu /* rdma_rxe's RXE_VENDOR_ID */

struct ix_rdma_phases {
	double lead_s;               /* from the start to QP 0 alone: setup and connect */
	double alone_s;              /* each QP alone */
	double gap_s;                /* between two phases: the switches are read in its middle */
	double warmup_s, duration_s; /* all at once */
};

/* Seconds from the start: phase i's (i < nqps: QP i alone; nqps: all at
 * once) start, the end of the last phase, and read k (0 .. nqps + 1) of
 * the switches: read i before phase i, read nqps + 1 after the last. */
double ix_rdma_phase_start_s(const struct ix_rdma_phases *ph, uint32_t nqps, uint32_t i);
double ix_rdma_phases_end_s(const struct ix_rdma_phases *ph, uint32_t nqps);
double ix_rdma_phase_read_s(const struct ix_rdma_phases *ph, uint32_t nqps, uint32_t k);

/*
 * How a RoCE v2 QP's UDP source port is known. The kernel's helpers
 * (include/rdma/ib_verbs.h): rdma_get_udp_sport(fl, lqpn, rqpn) is
 * rdma_flow_label_to_udp_sport(fl), with fl = rdma_calc_flow_label(lqpn,
 * rqpn) when the GRH flow label is 0. rdma_rxe uses it: rxe_modify_qp
 * sets qp->src_port = rdma_get_udp_sport(grh.flow_label, qp_num,
 * dest_qp_num) when the address vector has a GRH (drivers/infiniband/sw/
 * rxe/rxe_verbs.c, in 6.1 and later; the 0xc000 + hash_32(qpn, 14) of
 * rxe_qp_init_req is only the port before the QP is connected). mlx5
 * takes the port from a nonzero flow label on a RoCE v2 GID
 * (mlx5_ah_get_udp_sport) and chooses its own otherwise; hns and irdma
 * use rdma_get_udp_sport too.
 */
enum ix_rdma_sport_how {
	IX_RDMA_SPORT_UNKNOWN = 0, /* the provider's choice, not derivable here */
	IX_RDMA_SPORT_FLOW_LABEL,  /* from the flow label set on the QP */
	IX_RDMA_SPORT_QPN,         /* rdma_rxe without a label: from both QP numbers */
};
const char *ix_rdma_sport_how_name(enum ix_rdma_sport_how h); /* "flow_label" */

/* rdma_calc_flow_label: fl = lqpn * rqpn (64 bits), fl ^= fl >> 20,
 * fl ^= fl >> 40, the low 20 bits. */
uint32_t ix_rdma_calc_flow_label(uint32_t lqpn, uint32_t rqpn);
/* rdma_flow_label_to_udp_sport: 0xc000 | ((fl & 0x3fff) ^ ((fl & 0xfc000)
 * >> 14)). */
uint16_t ix_rdma_flow_label_sport(uint32_t fl);

struct ix_rdma_phase_fig {
	bool ran;
	double start_s, end_s; /* from the start, as run */
	uint64_t bytes;        /* alone: the QP's; at once: every QP's */
};

struct ix_rdma_phased {
	uint32_t nqps;
	double ready_s; /* the QPs were connected, from the start */
	uint32_t qpn[IX_RDMA_PHASED_MAX_QPS], remote_qpn[IX_RDMA_PHASED_MAX_QPS];
	uint32_t flow_label[IX_RDMA_PHASED_MAX_QPS]; /* 0: none set */
	uint16_t sport[IX_RDMA_PHASED_MAX_QPS];      /* 0: not known */
	enum ix_rdma_sport_how how;
	struct ix_rdma_phase_fig alone[IX_RDMA_PHASED_MAX_QPS];
	struct ix_rdma_phase_fig together;
	uint64_t together_bytes[IX_RDMA_PHASED_MAX_QPS];
};

/* Each QP's source port in out from its flow label where every QP has
 * one, else on rdma_rxe (vendor IX_RDMA_RXE_VENDOR) from its QP numbers,
 * else not known. */
void ix_rdma_phased_sports(struct ix_rdma_phased *out, uint32_t vendor_id);

/* Run the phases with the requester's engine ops over base's QPs (write,
 * duration mode) on the schedule from t0_ns (ix_now_ns). out->nqps, the
 * QP numbers and ready_s are the caller's. 0, or -1 with err and the
 * phases run so far in out. */
int ix_rdma_phased_run(const struct ix_rdma_ops *ops, void *ectx, const struct ix_rdma_run *base,
		       const struct ix_rdma_phases *ph, int64_t t0_ns, struct ix_rdma_phased *out,
		       struct ix_err *err);

#endif
