/*
 * SIMULATED RDMA device for the tests of probes/rdma/session.c and the
 * rdmadoc test tool only: struct ix_rdma_dev_ops over the simulated NIC of
 * tests/unit/probes/rdma/sim.c, which plays the peer each end expects for the
 * agreed test. It is not part of libixperf and nothing on the command line
 * reaches it.
 */
#ifndef IX_TEST_RDMA_SIMDEV_H
#define IX_TEST_RDMA_SIMDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/ctl/client.h"
#include "probes/rdma/session.h"
#include "tests/unit/probes/rdma/sim.h"

struct sim_dev {
	const char *name;
	bool infiniband;
	int mtu;
	uint32_t qpn_base;
	struct ix_rdma_caps caps;
	uint64_t vanish_after; /* requester: WRs after this never complete */
	bool peer_vanishes;    /* responder: the incoming stream stops halfway */
	/* What happened. */
	int probes, setups, connects, closes;
	struct ix_rdma_endpoint self, peer;
	int path_mtu;
	struct ix_rdma_params p;
	struct rdma_sim sim;
	bool sim_up;
};

extern const struct ix_rdma_dev_ops sim_dev_ops;

/* A device called name whose QP numbers start at qpn_base, generous caps. */
struct sim_dev sim_dev(const char *name, uint32_t qpn_base, int mtu);

/* Two ends over a socketpair: the client in the calling thread, the
 * agent's ix_rdma_serve in another, each with its own simulated device. */
struct agent_end {
	int fd;
	struct sim_dev *dev;
	struct ix_rdma_serve_cfg cfg;
	struct ix_rdma_dev d;
	bool vanish_after_start; /* close the connection once the test runs */
	bool saw_start;
	int rc;
	struct ix_err err;
};

struct sim_pair {
	struct sim_dev cdev, adev;
	struct agent_end agent;
	struct ix_client cl;
	struct ix_rdma_dev d;
	struct ix_rdma_result r;
	struct ix_err err;
	int rc;
};

void sim_pair_run(struct sim_pair *t, const struct ix_rdma_params *p);

#endif
