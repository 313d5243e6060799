/*
 * An RDMA (RC) test over ixperf's own control connection, both ends.
 *
 *   client                                   agent
 *   TEST {kind:"rdma", rdma: <setup>}  ->    parse, check the parameters
 *                                            against its device, create and
 *                                            connect its QPs
 *                                      <-    TEST_ACK {rdma: <setup>, device}
 *   connect its QPs; START             ->
 *   run the engine (requester)               run the engine (responder)
 *   STOP                               ->
 *                                      <-    RESULT {ok, error, figures}
 *
 * <setup> is ix_rdma_setup_json: link layer, LID, GID, MTU, QP numbers and
 * PSNs, buffer address and rkey, and the parameters, filled and checked on
 * the client. The agent runs exactly those (a device that cannot is an
 * error naming the option), so both ends always agree whatever flags the
 * agent was started with; the path MTU is the smaller active MTU of both
 * ports (and --mtu).
 *
 * The device is reached through struct ix_rdma_dev_ops: probes/rdma/dev.c
 * implements it with the verbs layer, the unit tests with a simulation.
 * Every wait is bounded: a peer that vanishes fails the test after the
 * engine's timeout or the control channel's deadline, and the figures of
 * what was done are kept, marked incomplete.
 */
#ifndef IX_RDMA_SESSION_H
#define IX_RDMA_SESSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "probes/core/err.h"
#include "probes/core/counters.h"
#include "probes/core/probe.h"
#include "probes/core/wirefig.h"
#include "probes/rdma/engine.h"
#include "probes/rdma/setup.h"

struct ix_client;

/* One end's device, port and choices, as reported. */
struct ix_rdma_port_info {
	char dev[64];
	unsigned port;
	bool infiniband;
	uint16_t lid;
	uint32_t vendor_id;              /* this end's only: 0xffffff is rdma_rxe */
	int active_mtu;                  /* enum ix_rdma_mtu */
	double rate_bps;                 /* the port's rate, 0: unknown */
	struct ix_rdma_gid gid;          /* the GID used and why */
	int numa_node;                   /* the device's node, -1: unknown */
	char placement[256];             /* where buffers and the polling thread went */
	uint32_t threads;                /* polling threads (0: not said, as 1) */
	char buffer[160];                /* "host memory", or the GPU's */
	char netdev[IX_RDMA_IFNAME_MAX]; /* RoCE: the GID's netdev */
	/* Its ceiling: the port's rate, the NIC's PCIe link and, with GPU
	 * buffers, the GPU's (iface "" when not known). */
	struct ix_link_limit link;
};

/* What the device layer needs to find its port. */
struct ix_rdma_dev_req {
	const char *dev;                      /* NULL: choose */
	unsigned port;                        /* 0: choose */
	const struct sockaddr_storage *local; /* local address of the control connection */
	const struct ix_rdma_params *params;  /* GID preference, NUMA policy */
};

/*
 * A device. probe finds the port (the asked one, else the one whose netdev
 * holds the control connection's local address, else the first ACTIVE
 * one), picks the GID and reports the capabilities the parameters are
 * checked against. setup places the buffer and thread, creates the QPs
 * and fills the endpoint this end sends. connect brings the QPs to RTS
 * against the peer's endpoint. engine/engine_ctx give the engine's
 * operations for the agreed parameters; close releases everything.
 */
struct ix_rdma_dev_ops {
	int (*probe)(void *ctx, const struct ix_rdma_dev_req *req, struct ix_rdma_port_info *info,
		     struct ix_rdma_caps *caps, struct ix_err *err);
	/* requester: this end posts the test's work (ix_rdma_mr_access). */
	int (*setup)(void *ctx, const struct ix_rdma_params *p, bool requester,
		     struct ix_rdma_port_info *info, struct ix_rdma_endpoint *self,
		     struct ix_err *err);
	int (*connect)(void *ctx, const struct ix_rdma_endpoint *peer, int path_mtu,
		       struct ix_err *err);
	const struct ix_rdma_ops *(*engine)(void *ctx, bool requester, void **engine_ctx);
	void (*close)(void *ctx);
	/* The fabric counters of the port and its network device now
	 * (probes/core/counters.h; may be NULL: a device without any). */
	void (*counters)(void *ctx, struct ix_ctr_set *out);
};

struct ix_rdma_dev {
	const struct ix_rdma_dev_ops *ops;
	void *ctx;
};

/* The hardware device (probes/rdma/dev.c); root prefixes /sys paths ("" or
 * NULL: the live system); gpu >= 0 puts the buffer in that GPU's memory
 * (GPUDirect RDMA through a dmabuf of the GPU backend, gpu.h), gpu
 * IX_RDMA_GPU_AUTO in the GPU nearest the device it uses (by PCIe path,
 * ixperf topo's), host memory where there is none (the buffer's text says
 * which and why). Release with ix_rdma_hw_dev_free. */
#define IX_RDMA_GPU_AUTO (-2)
int ix_rdma_hw_dev_new(struct ix_rdma_dev *d, const char *root, int gpu, struct ix_err *err);
void ix_rdma_hw_dev_free(struct ix_rdma_dev *d);

/* One direction's figures as both ends saw them. */
struct ix_rdma_result {
	struct ix_rdma_params params; /* as both ends ran them */
	bool latency;
	bool complete;
	char error[IX_ERR_MAX];
	int path_mtu; /* enum ix_rdma_mtu */
	struct ix_rdma_port_info local, remote;
	struct ix_rdma_bw_figures bw;                    /* this end (the requester) */
	struct ix_rdma_dir_figures remote_tx, remote_rx; /* the agent's end */
	bool remote_complete;
	struct ix_rdma_lat_figures lat;
	/* The fabric counters that moved at each end over the test: the
	 * port's hw_counters and port counters, and for RoCE its network
	 * device's netdev, ethtool (PFC per priority) and qdisc counters. */
	struct ix_ctr_set ctr_local, ctr_remote;
	char remote_host[256];
	char remote_version[32];
	struct ix_wire_figures wire; /* a capture attached (--capture); present bit */
};

void ix_rdma_result_init(struct ix_rdma_result *r, const struct ix_rdma_params *p);
void ix_rdma_result_free(struct ix_rdma_result *r);

/* The headline figures, perftest's: bandwidth average and peak and message
 * rate of the data the requester moved (for read, fetched), plus the
 * responder's direction when bidirectional. */
struct ix_rdma_summary {
	bool valid;
	uint64_t messages, bytes;
	double seconds;
	double bits_per_second;
	struct ix_opt_f64 peak_bits_per_second;
	double mpps;
};
void ix_rdma_summarize(const struct ix_rdma_result *r, struct ix_rdma_summary *s);

/*
 * Client: run one test on the connected client c. p holds this side's
 * options (ix_rdma_params_init + options); it is checked against the local
 * device here. Returns 0, or -1 with err (IX_EXIT_USAGE, IX_EXIT_UNAVAILABLE
 * or IX_EXIT_FAIL) and r keeping what was measured, r->complete false.
 */
int ix_rdma_client_run(struct ix_client *c, const struct ix_rdma_dev *dev, const char *devname,
		       unsigned port, const struct ix_rdma_params *p, struct ix_rdma_result *r,
		       struct ix_err *err);

/* Client: the same as a phased write test (phased.h) on the schedule from
 * t0_ns; out gets its QPs and phases. */
struct ix_rdma_phases;
struct ix_rdma_phased;
int ix_rdma_client_run_phased(struct ix_client *c, const struct ix_rdma_dev *dev,
			      const char *devname, unsigned port, const struct ix_rdma_params *p,
			      const struct ix_rdma_phases *ph, int64_t t0_ns,
			      struct ix_rdma_phased *out, struct ix_rdma_result *r,
			      struct ix_err *err);

/* Agent: serve one TEST of kind "rdma" on control connection fd. lim
 * bounds what a client may ask; max_duration_s is the agent's limit. The
 * return value and err say how the session ended (an ERROR frame has
 * then been sent when the peer can still read it). */
struct ix_rdma_serve_cfg {
	const struct ix_rdma_dev *dev;
	const char *devname; /* the agent's --rdma-dev, NULL: choose */
	unsigned port;
	struct ix_rdma_limits limits;
	/* Once the request is parsed, before anything is allocated: the bytes
	 * of buffer this end will register and of its queues
	 * (ix_rdma_buffer_bytes, ix_rdma_queue_bytes). Nonzero
	 * refuses the test with err. NULL: no budget. */
	int (*claim)(void *arg, uint64_t bytes, struct ix_err *err);
	void *claim_arg;
	/* An unauthenticated session: the client's RoCE GID must be the
	 * address of its control connection (ix_rdma_peer_bound). */
	bool bind_peer;
};

/* Whether peer's endpoint may be connected to by a session without a
 * token: a RoCE GID must be the address ctl of the control connection's
 * other end (IPv4-mapped for IPv4), or one of this host's own addresses
 * (own) when ctl is this host (loopback or own). An InfiniBand LID has
 * no address to be held to, and a client cannot prove its path to it:
 * taken from this host only. 0, or -1 with err naming both. */
struct sockaddr_storage;
int ix_rdma_peer_bound(const struct ix_rdma_endpoint *peer, const struct sockaddr_storage *ctl,
		       const struct ix_rdma_addr *own, size_t nown, struct ix_err *err);
int ix_rdma_serve(int fd, json_t *req, const struct ix_rdma_serve_cfg *cfg, struct ix_err *err);

/* The RESULT body of one end's figures and back (for the agent's end). */
json_t *ix_rdma_figures_json(bool ok, const char *error, const struct ix_rdma_bw_figures *bw,
			     const struct ix_rdma_lat_figures *lat);
int ix_rdma_figures_parse(json_t *j, struct ix_rdma_result *r, struct ix_err *err);

/* Port info for TEST_ACK and JSON output. */
json_t *ix_rdma_port_info_json(const struct ix_rdma_port_info *i);
void ix_rdma_port_info_parse(json_t *j, struct ix_rdma_port_info *i);

#endif
