/*
 * RUN jobs: a coordinator asks an agent to act as the client of a test
 * towards named peers (mesh pairs, incast senders), at a given moment, and
 * to REPORT the figures. Both the agent's and the coordinator's side of the
 * message bodies live here.
 *
 *   RUN    { kind: "bw" | "lat" | "read" | "ifseries" (phasewire.h),
 *            targets: [{host, port}, ...],
 *            bw | lat | block: <parameters as in TEST>, delay_us,
 *            rdma: {op, qps, traffic_class, service_level, gpu, phases, sport}
 *            with path "rdma" (phases: phasewire.h),
 *            source: a numeric address of the agent's to send from (rails) }
 *   REPORT { ok, error, bw: {bps, bytes, seconds, retransmits, lost,
 *            loss_percent, streams: [{sport, dport, bytes, seconds}],
 *            qp_bytes: [rdma: each QP's]} | lat: {samples, lost, min, p50, p99, max, mean}
 *            | read: <ix_wire_read_figures>,
 *            counters: {local, remote} (probes/core/counters.h, bw and lat),
 *            link: {local, remote} (probes/core/link.h: the links the test
 *            left both ends by; bw and read),
 *            buffers: {local, remote} (rdma: where each end's buffers were) }
 */
#ifndef IX_RUNNER_H
#define IX_RUNNER_H

#include <jansson.h>

#include "probes/cluster/hostlist.h"
#include "probes/core/err.h"
#include "probes/core/probe.h"
#include "probes/ctl/wire.h"
#include "probes/host/linkcache.h"
#include "probes/rdma/phased.h"
#include "probes/rdma/setup.h"

struct ix_token;
struct ix_series;

enum ix_run_kind {
	IX_RUN_BW,
	IX_RUN_LAT,
	IX_RUN_READ,
	IX_RUN_IFSERIES, /* a switch's counters on a schedule (phasewire.h) */
};

struct ix_run_job {
	enum ix_run_kind kind;
	const struct ix_host *targets; /* one for bw and lat; the senders for read */
	uint32_t ntargets;
	const struct ix_bw_params *bw;
	const struct ix_lat_params *lat;
	const struct ix_read_params *read;
	/* bw and lat on path "rdma": the operation, QPs, traffic class and
	 * service level (the rest comes from bw or lat). */
	const struct ix_rdma_params *rdma;
	/* The numeric address of the agent's own the tests leave from (its
	 * NIC on a rail); NULL: the agent's --bind, else by route. */
	const char *source;
	/* rdma: the GPU of the job's buffers, "auto" (the one nearest the
	 * NIC) or an index; NULL: host memory. */
	const char *gpu;
	/* bw on path "rdma": a phased write test (probes/rdma/phased.h), its
	 * QPs' flow labels set for source ports sport + i (0: none); NULL:
	 * a plain one. */
	const struct ix_rdma_phases *phases;
	uint16_t sport;
	/* ifseries: the reads asked. */
	const struct ix_series *series;
};

/* Coordinator: where each end's RDMA buffers were, as the REPORT says
 * ("host memory", "GPU 3 (...) memory through a dmabuf, nearest mlx5_2
 * (PIX)"); "" where it has none. */
void ix_runner_parse_buffers(json_t *report, char *local, char *remote, size_t len);

/* What a coordinator gets back. */
struct ix_run_figures {
	bool ok;
	char error[IX_ERR_MAX];
	double bw_bps; /* receiver goodput, forward */
	uint64_t bytes;
	struct ix_opt_u64 retransmits;
	struct ix_opt_f64 loss_percent;
	struct ix_lat_stats lat;
	struct ix_read_figures read;
};

struct ix_runner_ctx {
	const struct ix_token *token;   /* used towards the peers */
	const struct ix_limits *limits; /* this agent's limits */
	atomic_int *stop;               /* the agent's: set, the job ends */
	const char *bind_addr;          /* tests towards peers send from it; NULL: any */
	const char *rdma_dev;           /* rdma jobs' local device; NULL: by route */
	struct ix_link_cache *links;    /* this agent's links; NULL: not reported */
	/* Once the job is parsed, before anything is allocated: the bytes its
	 * end will hold (buffers, windows, queues, samples). Nonzero refuses
	 * the job with err. NULL: no budget. */
	int (*claim)(void *arg, uint64_t bytes, struct ix_err *err);
	void *claim_arg;
};

/* Coordinator: the RUN body of a job. */
json_t *ix_runner_request(const struct ix_run_job *job);
/* Agent: run it and build the REPORT body (NULL with err when the request
 * itself is refused; a failed test is a REPORT with ok false). */
json_t *ix_runner_run(const struct ix_runner_ctx *ctx, json_t *run, struct ix_err *err);
/* Agent: a short description for the log. */
const char *ix_runner_describe(json_t *run);
/* Coordinator: read a REPORT body. */
int ix_runner_parse_report(json_t *report, struct ix_run_figures *f);
/* One forward stream of a bw REPORT: its client's ports and what its
 * receiver counted in the measured window. */
struct ix_run_stream {
	uint16_t sport, dport; /* 0: not known */
	uint64_t bytes;
	double seconds;
};
/* Coordinator: the forward streams of a bw REPORT (at most cap). *n is 0
 * when the REPORT has none (an agent older than this member); -1 with
 * err when they are malformed or more than cap. */
int ix_runner_parse_streams(json_t *report, struct ix_run_stream *out, uint32_t cap, uint32_t *n,
			    struct ix_err *err);
/* Coordinator: the links of the job's agent (local) and of its peer
 * (remote); iface "" where the REPORT has none, -1 with err when they are
 * malformed. */
int ix_runner_parse_links(json_t *report, struct ix_link_limit *local, struct ix_link_limit *remote,
			  struct ix_err *err);
/* Coordinator: the fabric counters that moved at the job's agent (local)
 * and at its peer (remote) during the test; both left invalid when the
 * REPORT has none, -1 with err when they are malformed. */
int ix_runner_parse_counters(json_t *report, struct ix_ctr_set *local, struct ix_ctr_set *remote,
			     struct ix_err *err);

#endif
