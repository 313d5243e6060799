/*
 * RDMA (RC) measurement engine for --path rdma: bandwidth (write, read, send,
 * write with immediate) and ping-pong latency, with perftest's meaning for
 * every figure. The engine never calls libibverbs: it drives a verbs layer
 * through struct ix_rdma_ops, so it runs, and is tested, against any
 * completion source. Results go into plain structs; nothing is printed and
 * all state lives in the run's context (no globals).
 */
#ifndef IX_RDMA_ENGINE_H
#define IX_RDMA_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"
#include "probes/core/probe.h"
#include "probes/core/stats.h"

enum ix_rdma_opcode {
	IX_RDMA_WRITE = 0,
	IX_RDMA_READ,
	IX_RDMA_SEND,
	IX_RDMA_WRITE_IMM,
};

/* One send work request. */
struct ix_rdma_wr {
	enum ix_rdma_opcode opcode;
	uint32_t length;  /* bytes */
	uint64_t wr_id;   /* comes back in the completion */
	bool signaled;    /* ask for a completion (IBV_SEND_SIGNALED) */
	bool inline_data; /* IBV_SEND_INLINE */
	uint32_t imm;     /* immediate data of IX_RDMA_WRITE_IMM */
};

/* One completion. status uses the numbering of enum ibv_wc_status, so the
 * verbs layer passes wc.status through; ix_rdma_status_name() names it.
 * Incoming messages have is_recv set: a receive consumed by a send
 * (opcode IX_RDMA_SEND) or a write with immediate (IX_RDMA_WRITE_IMM, imm
 * valid). For write latency the layer watches the last byte of its buffer,
 * like perftest's write_lat, and reports the peer's write landing as a
 * completion with is_recv set, opcode IX_RDMA_WRITE and no receive used. */
struct ix_rdma_wc {
	uint64_t wr_id;
	uint32_t qp; /* index of the QP in the run, 0 .. qps-1 */
	int status;  /* 0: success */
	enum ix_rdma_opcode opcode;
	uint32_t byte_len;
	bool is_recv;
	uint32_t imm;
};

/* What the verbs layer provides. ctx is its own state. post_send and
 * post_recv return 0 or -1 with err filled; a full queue is an error. poll
 * returns how many completions it wrote into wc (0 .. max) or -1. now_ns is
 * a monotonic clock (clock_gettime, or a simulated one). QPs are numbered
 * 0 .. qps-1. */
struct ix_rdma_ops {
	int (*post_send)(void *ctx, uint32_t qp, const struct ix_rdma_wr *wr, struct ix_err *err);
	int (*post_recv)(void *ctx, uint32_t qp, uint64_t wr_id, struct ix_err *err);
	int (*poll)(void *ctx, struct ix_rdma_wc *wc, int max, struct ix_err *err);
	int64_t (*now_ns)(void *ctx);
	/* What now_ns reads ("tsc", "clock_gettime"); NULL: a simulation. */
	const char *(*clock_name)(void *ctx);
	/* The completions of one completion queue of several: QP q completes
	 * on CQ q % (the number of CQs), which the layer was opened with (a
	 * team's threads, probes/rdma/team.h). NULL: one CQ, poll. */
	int (*poll_cq)(void *ctx, uint32_t cq, struct ix_rdma_wc *wc, int max, struct ix_err *err);
	/* The clock of the thread that polls CQ cq, where a clock keeps state
	 * per reader (the TSC's anchor). NULL: now_ns may be read from any
	 * thread. */
	int64_t (*now_cq)(void *ctx, uint32_t cq);
};

/* Which end of the connection this engine runs. Bandwidth: the requester
 * posts the data WRs (for read, data flows toward it), the responder posts
 * receives for send and write with immediate and is passive for write and
 * read. Latency: the requester starts each round trip, the responder answers
 * (passive for read). */
enum ix_rdma_side {
	IX_RDMA_REQUESTER = 0,
	IX_RDMA_RESPONDER,
};

#define IX_RDMA_POLL_BATCH    32         /* completions asked of one poll */
#define IX_RDMA_CHECK_EVERY   16         /* polls between two clock readings */
#define IX_RDMA_PEAK_MAX_MARK (1u << 22) /* time marks kept for the BW peak */
/* Bandwidth by duration counts the WRs a completion covers when it comes:
 * signaled one in cq_mod alone, a window that ends before cq_mod messages
 * complete (4 MiB of 64 KiB ones: over 1 s below 34 Mbit/s) counts none of
 * what it carried. A WR is signaled too once this many bytes went
 * unsignaled before it, or this long after the last signaled one (the
 * clock as last read): a window's count is off by that much at most. */
#define IX_RDMA_SIG_BYTES (256u * 1024)
#define IX_RDMA_SIG_NS    1000000LL

/* Duration mode: how both ends agree that the test is over. Each end's
 * measured window closes at its own deadline, but the ends start at
 * slightly different moments, so an end that serves its peer (receives for
 * send and write with immediate; the answers of latency) keeps serving
 * past its deadline until peer_done(ctx) says the peer finished too,
 * bounded by timeout_ns. An end that posts its own work calls done(ctx)
 * once none of it is left in flight (bandwidth) or its last round trip
 * came back (latency). NULL functions: each end stops at its own deadline
 * (a peer still posting then meets no receive, or no answer). */
struct ix_rdma_end {
	void (*done)(void *ctx);
	bool (*peer_done)(void *ctx);
	void *ctx;
};

/* What the threads of one test share (probes/rdma/team.h); a run alone
 * has none. Every thread's measured WRs wait until the warm-up WRs of
 * every thread have completed (iterations mode), every thread's clock
 * starts at t0_ns, and a thread that fails sets stop so that the others
 * end at their next check instead of at the stall timeout. */
struct ix_rdma_sync {
	_Atomic uint32_t warming; /* threads still warming up */
	_Atomic bool stop;
	int64_t t0_ns;
};

struct ix_rdma_run {
	enum ix_rdma_opcode opcode;
	enum ix_rdma_side side;
	bool bidir;        /* bandwidth both ways at once on the same QPs (both ends post) */
	uint32_t qps;      /* bandwidth: QPs used; latency: must be 1 */
	uint32_t size;     /* bytes per message */
	uint32_t tx_depth; /* send WRs outstanding per QP, at most the QP's send queue depth */
	uint32_t rx_depth; /* receives posted ahead per QP (send, write with immediate) */
	uint32_t cq_mod;   /* signal one WR in cq_mod (1 .. tx_depth); the last one always */
	bool inline_data;  /* post with IBV_SEND_INLINE */
	uint64_t iters;    /* messages per QP (perftest -n); 0: run by duration */
	int64_t duration_ns;
	uint64_t warmup_iters;     /* iterations mode: messages per QP first, all completed */
	int64_t warmup_ns;         /* duration mode: time before the measured window */
	int64_t timeout_ns;        /* no completion at all for this long: the peer is gone */
	int64_t interval_ns;       /* bandwidth: per-interval figures, 0 = none */
	uint32_t check_every;      /* polls between clock readings, 0 = IX_RDMA_CHECK_EVERY */
	bool peak;                 /* bandwidth: compute the BW peak (iterations mode only) */
	struct ix_rdma_end end;    /* duration mode: agreeing on the end with the peer */
	struct ix_rdma_sync *sync; /* one thread of a team; NULL: alone */
	bool keep_marks;           /* hand the peak's time marks out (a team merges them) */
};

/* perftest's defaults (ib_write_bw): 64 KiB, tx depth 128, rx depth 512,
 * CQ moderation 100, 5000 iterations; 5 s without a completion is a failure. */
void ix_rdma_run_defaults(struct ix_rdma_run *run);
/* How long an end waits without any completion before it calls the peer
 * gone: 5 s unless set (the command reads IXPERF_RDMA_TIMEOUT: soft-RoCE
 * under emulation on a loaded host can stall longer without anything
 * being wrong). */
int64_t ix_rdma_stall_timeout_ns(void);
void ix_rdma_set_stall_timeout_ns(int64_t ns);

/* A time mark of the BW peak: a count of WRs (posted before a burst, or
 * completed so far) at t_ns. */
struct ix_rdma_mark {
	uint64_t count;
	int64_t t_ns;
};

/* A growing list of marks: out of memory or past IX_RDMA_PEAK_MAX_MARK
 * marks it is lost (no peak), never an error. */
struct ix_rdma_marks {
	struct ix_rdma_mark *v;
	size_t n, cap;
	bool lost;
};

/* Figures of one direction at this end. tx: the WRs this end posts (for
 * read, the data they fetch); rx: messages consumed by this end's receives.
 *
 * Iterations mode: messages = iters x qps; the window runs from the post of
 * the first WR to the completion of the last (perftest's tposted[0] ..
 * tcompleted[n-1]); for rx, from the first measured arrival to the last, as
 * perftest's receiver does. A warm-up (warmup_iters WRs per QP, the last one
 * signaled) completes on every QP before the first measured WR is posted,
 * so the measured part is perftest's run as it stands. Duration mode:
 * completions seen between the end of the warm-up and the deadline, over
 * that time.
 *
 * peak (perftest's "BW peak", print_report_bw): with the measured WRs of
 * all QPs numbered in posting order, tposted[i] is when WR i was posted and
 * tcompleted[j] when the completion count reached j + 1 (perftest's global
 * totscnt and totccnt); the peak is size / min over i <= j of
 * (tcompleted[j] - tposted[i]) / (j - i + 1): the best time per message
 * over any run of consecutive messages, from the post of its first to the
 * completion of its last. perftest stamps tcompleted only at signaled
 * completions and has no peak in duration mode; the same here, with one
 * clock reading per burst of posts and per productive poll rather than per
 * WR, and the minimum found in O(n log n) on a convex hull rather than by
 * perftest's O(n^2) scan. Not valid in duration mode, or past
 * IX_RDMA_PEAK_MAX_MARK marks. */
struct ix_rdma_dir_figures {
	bool valid; /* this end measured this direction */
	uint64_t messages;
	uint64_t bytes;
	int64_t ns;             /* measured window */
	int64_t t_start, t_end; /* its ends on ops->now_ns's clock (0: none) */
	double bits_per_second; /* average: bytes over the window */
	struct ix_opt_f64 peak_bits_per_second;
	double mpps; /* message rate, millions per second */
};

/* One interval, all messages counted (warm-up included, flagged). */
struct ix_rdma_interval {
	int64_t start_ns, end_ns; /* from the start of the run */
	bool warmup;              /* began before the measured window */
	uint64_t tx_messages, rx_messages;
	uint64_t tx_bytes, rx_bytes;
};

struct ix_rdma_bw_figures {
	bool complete; /* false: ended early; the figures cover what was done */
	struct ix_rdma_dir_figures tx, rx;
	uint64_t posted;       /* send WRs posted, warm-up included */
	uint64_t recvs_posted; /* receives posted */
	uint64_t polls;        /* calls to ops->poll */
	uint64_t cqes;         /* send completions seen */
	uint64_t recv_cqes;    /* receive completions seen */
	uint64_t clock_reads;  /* calls to ops->now_ns */
	size_t nintervals;
	struct ix_rdma_interval *intervals;
	/* Per QP (nqps of them, this end's tx only): the messages of its WRs
	 * that completed, warm-up and the tail past the deadline included:
	 * every one the wire carried. */
	uint32_t nqps;
	uint64_t *qp_messages;
	/* run->keep_marks: the BW peak's marks (below), the measured WRs
	 * numbered in this run's own posting order (iterations mode, tx). */
	struct ix_rdma_marks peak_posts, peak_dones;
};

/* Latency figures. samples: one value per measured round trip, in ns: half
 * the round trip for send and write (one-way, perftest's RTT/2), the whole
 * of it for read. stats from ix_stats_compute: min = t_min, max = t_max,
 * p50 = t_typical, mean = t_avg, stdev = t_stdev, p99, p999 = p99.9. Unlike
 * perftest, percentiles are kept in duration mode too, the two largest
 * samples are not dropped, the stdev is the sample one (n - 1) and RTT/2 is
 * rounded down to the ns. The responder counts its answers only. */
struct ix_rdma_lat_figures {
	bool complete;
	bool one_way;   /* samples are RTT/2 */
	uint64_t iters; /* measured round trips */
	int64_t ns;     /* measured window */
	struct ix_samples samples;
	struct ix_lat_stats stats;
	uint64_t polls, clock_reads;
	const char *clock; /* ops->clock_name, or "simulated" */
};

/* Both return 0, or -1 with err filled (IX_EXIT_USAGE for bad parameters,
 * IX_EXIT_FAIL otherwise) and the figures of what was done kept in out.
 * A completion with an error status fails the run and err names it; a
 * peer that stops completing fails it after run->timeout_ns, never hangs.
 * Free out with the matching _free even on failure. */
int ix_rdma_engine_run_bw(const struct ix_rdma_ops *ops, void *ctx, const struct ix_rdma_run *run,
			  struct ix_rdma_bw_figures *out, struct ix_err *err);
int ix_rdma_engine_run_lat(const struct ix_rdma_ops *ops, void *ctx, const struct ix_rdma_run *run,
			   struct ix_rdma_lat_figures *out, struct ix_err *err);
void ix_rdma_bw_figures_free(struct ix_rdma_bw_figures *f);
void ix_rdma_lat_figures_free(struct ix_rdma_lat_figures *f);

/* "IBV_WC_RETRY_EXC_ERR" for 12, ...; "unknown status" outside the enum. */
const char *ix_rdma_status_name(int status);
const char *ix_rdma_opcode_name(enum ix_rdma_opcode op);

/* The BW peak's minimum. posts: (index of the first WR of a burst posted
 * at t_ns, t_ns) with strictly increasing indexes; dones: (WRs completed so
 * far, t_ns) with increasing counts. Returns the smallest
 * (t_done - t_post) / (count - index) over count > index, in ns per
 * message, or 0 when there is no such pair. */
double ix_rdma_peak_msg_ns(const struct ix_rdma_mark *posts, size_t nposts,
			   const struct ix_rdma_mark *dones, size_t ndones);

void ix_rdma_marks_add(struct ix_rdma_marks *m, uint64_t count, int64_t t_ns);

/* The marks of n threads' runs as one run's (each thread's posts and
 * dones as the engine keeps them, its counts of its own WRs): each merged
 * mark adds, at its time, what every other thread had posted (whole
 * bursts: up to its next post mark, or all its WRs) or completed (its last
 * done mark) by then, which numbers the WRs of all threads in posting
 * order, as perftest's one thread counts them. Marks of equal time go in
 * thread order. A lost list loses the merge. 0, or -1 out of memory (the
 * outputs lost). */
int ix_rdma_marks_merge(const struct ix_rdma_marks *posts, const struct ix_rdma_marks *dones,
			size_t n, struct ix_rdma_marks *out_posts, struct ix_rdma_marks *out_dones);

#endif
