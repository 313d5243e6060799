/*
 * The thin verbs layer: the only file that calls libibverbs. Everything
 * around it (GID and MTU choice, the setup message, the engine's windows
 * and statistics) lives in files that build and test without RDMA
 * hardware; this one opens a device, registers a buffer, creates and
 * connects RC queue pairs, posts work requests and polls completions.
 * Builds without libibverbs get the same functions, which answer
 * IX_EXIT_UNAVAILABLE.
 */
#ifndef IX_VERBS_H
#define IX_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

#define IX_VERBS_MAX_QPS 64

enum ix_verbs_op {
	IX_VERBS_WRITE,
	IX_VERBS_READ,
	IX_VERBS_SEND,
	IX_VERBS_WRITE_IMM,
};

/* What the registered buffer grants (ix_verbs_open_opts.access). */
#define IX_VERBS_ACCESS_LOCAL_WRITE  1u /* the NIC writes it: receives, read results */
#define IX_VERBS_ACCESS_REMOTE_WRITE 2u /* the peer writes into it */
#define IX_VERBS_ACCESS_REMOTE_READ  4u /* the peer reads from it */

struct ix_verbs_open_opts {
	const char *dev; /* NULL: the first device with an active port */
	unsigned port;   /* 0: its first active port */
	uint32_t qps;    /* RC queue pairs, 1..IX_VERBS_MAX_QPS */
	/* Completion queues, 1..qps (0: 1): QP i completes on CQ i % cqs, so
	 * that each polling thread has its own (probes/rdma/team.h). */
	uint32_t cqs;
	uint32_t tx_depth;   /* send queue depth per QP */
	uint32_t rx_depth;   /* receive queue depth per QP (send/recv, write_imm) */
	uint32_t inline_max; /* max inline data asked for */
	uint64_t buf_size;   /* registered buffer */
	unsigned access;     /* IX_VERBS_ACCESS_* for the buffer and the QPs; local
				write is always granted */
	int numa_node;       /* where the buffer goes, -1: anywhere */
	/* GPUDirect RDMA: register dmabuf_fd (GPU memory at device address
	 * dmabuf_addr, buf_size bytes) instead of allocating host memory. The
	 * CPU never touches such a buffer. */
	bool dmabuf;
	int dmabuf_fd;
	uint64_t dmabuf_addr;
};

/* What the peer needs to reach this end (sent in the setup message). */
struct ix_verbs_local {
	char dev[64];
	unsigned port;
	bool ethernet; /* RoCE: the GID addresses the peer; else the LID */
	uint16_t lid;
	int active_mtu; /* 1..5 as in the setup message (256..4096 bytes) */
	uint32_t qpn[IX_VERBS_MAX_QPS];
	uint32_t psn[IX_VERBS_MAX_QPS];
	uint32_t nqps;
	uint64_t addr;
	uint32_t rkey;
	uint64_t length;
};

struct ix_verbs_remote {
	bool ethernet;
	uint16_t lid;
	uint8_t gid[16];
	uint32_t qpn[IX_VERBS_MAX_QPS];
	uint32_t psn[IX_VERBS_MAX_QPS];
	uint32_t nqps;
	uint64_t addr;
	uint32_t rkey;
};

struct ix_verbs_path {
	int mtu;               /* 1..5: the smaller active MTU of both ends */
	int gid_index;         /* the local GID (RoCE); -1 on InfiniBand */
	uint8_t traffic_class; /* RoCE: DSCP << 2 */
	uint8_t service_level;
	uint8_t max_rd_atomic; /* RDMA reads in flight per QP */
	/* RoCE v2: QP i's GRH flow label is flow_label + i (0: none set). A
	 * provider that derives the UDP source port from it (the kernel's
	 * rdma_flow_label_to_udp_sport: mlx5, hns, irdma) sends QP i from
	 * 0xc000 | (flow_label + i) for a label below 0x4000; rdma_rxe
	 * ignores it. */
	uint32_t flow_label;
};

/* One port of one device, with what the test parameters are checked
 * against (ibv_query_device, ibv_query_port). */
struct ix_verbs_port {
	char dev[64];
	unsigned port;
	bool active; /* IBV_PORT_ACTIVE */
	char state[24];
	bool ethernet;
	uint16_t lid;
	int active_mtu;
	uint32_t max_qp_wr, max_sge, max_qp, max_qp_rd_atom;
	uint32_t max_inline; /* the largest inline size an RC QP accepts, found by trying */
	uint64_t max_mr_size, max_msg_size;
	uint32_t vendor_id; /* ibv_device_attr's: 0xffffff is soft-RoCE (rdma_rxe) */
};

struct ix_verbs;

/* Every port of every device (at most max), or IX_EXIT_UNAVAILABLE as
 * ix_verbs_devices says it. */
int ix_verbs_ports(struct ix_verbs_port *out, size_t max, size_t *n, struct ix_err *err);

/* The RDMA devices present (names), or IX_EXIT_UNAVAILABLE with one
 * sentence saying which and what to check. */
int ix_verbs_devices(char (*names)[64], size_t max, size_t *n, struct ix_err *err);
/* Open a device, check its port is ACTIVE, register the buffer and create
 * the queue pairs (RESET -> INIT). A port down is IX_EXIT_UNAVAILABLE. */
int ix_verbs_open(struct ix_verbs **out, const struct ix_verbs_open_opts *o,
		  struct ix_verbs_local *local, struct ix_err *err);
/* INIT -> RTR -> RTS against the peer's queue pairs. */
int ix_verbs_connect(struct ix_verbs *v, const struct ix_verbs_remote *r,
		     const struct ix_verbs_path *p, struct ix_err *err);
/* Writes and reads address the peer's buffer at the local offset plus
 * off (0 unless set; write latency uses the peer's second half). */
void ix_verbs_remote_offset(struct ix_verbs *v, uint64_t off);
/* One work request on queue pair qp of length bytes at offset; signaled
 * asks for a completion. */
int ix_verbs_post_send(struct ix_verbs *v, uint32_t qp, enum ix_verbs_op op, uint64_t offset,
		       uint32_t length, bool signaled, bool use_inline, uint64_t wr_id,
		       struct ix_err *err);
int ix_verbs_post_recv(struct ix_verbs *v, uint32_t qp, uint64_t offset, uint32_t length,
		       uint64_t wr_id, struct ix_err *err);

struct ix_verbs_wc {
	uint64_t wr_id;
	uint32_t qp; /* index, not QPN */
	int status;  /* 0: success */
	bool recv;
	uint32_t byte_len;
	char status_name[48];
};

/* Up to max completions of CQ cq (the QPs i with i % cqs == cq); returns
 * how many, or -1. Threads may poll different CQs and post to different
 * QPs at once. */
int ix_verbs_poll(struct ix_verbs *v, uint32_t cq, struct ix_verbs_wc *wc, int max,
		  struct ix_err *err);
/* The completion queues (opts.cqs as opened). */
uint32_t ix_verbs_cqs(const struct ix_verbs *v);
/* The registered buffer (for latency tests that watch its last byte);
 * NULL for GPU memory. */
volatile uint8_t *ix_verbs_buffer(struct ix_verbs *v);
void ix_verbs_close(struct ix_verbs *v);

#endif
