/* The agent's RDMA tests (probes/agent/session.h): who may ask for one
 * and how it is held to its peer, the slot it takes, and the exchange and
 * engines of probes/rdma/session.c. */
#include "config.h"

#include <sys/socket.h>

#include "probes/agent/session.h"
#include "probes/agent/slots.h"
#include "probes/net/net.h"
#include "probes/rdma/session.h"

/* Whether this session may run an RDMA test, which makes this host's NIC
 * write to the endpoint the client names: authenticated with the token,
 * anything; on an agent without one, a client on this host (loopback, or
 * an address of the connection's own end) or at an --allow-run address,
 * with its RoCE GID bound to that address (*bind). Else err says why. */
static int may_rdma(struct ix_agent *a, int fd, const char *peer, bool authenticated, bool *bind,
		    struct ix_err *err)
{
	const struct ix_agent_config *c = &a->cfg;
	struct sockaddr_storage from, self;
	socklen_t len = sizeof(self);

	*bind = false;
	if (authenticated)
		return 0;
	if (c->token && c->token->set)
		return ix_fail(err, IX_EXIT_FAIL, "an RDMA test needs authentication");
	*bind = true;
	if (c->allow_run_any)
		return 0;
	if (ix_net_peer_addr(fd, &from) == 0) {
		if (ix_net_is_loopback(&from) ||
		    (getsockname(fd, (struct sockaddr *)&self, &len) == 0 &&
		     ix_net_same_host(&from, &self)))
			return 0;
		for (uint32_t i = 0; i < c->n_allow_run; i++)
			if (ix_net_same_host(&from, &c->allow_run[i]))
				return 0;
	}
	return ix_fail(err, IX_EXIT_FAIL,
		       "RDMA test refused: this agent has no token (--token-file) and %s is not in "
		       "its --allow-run list",
		       peer);
}

int ix_agent_serve_rdma(struct ix_agent *a, int fd, const char *peer, bool authenticated,
			json_t *req, struct ix_err *err)
{
	struct ix_agent_slot slot;
	/* the buffer it registers and its queues count in the limits */
	struct ix_agent_charge claim = { a, &slot };
	struct ix_rdma_dev dev;
	struct ix_rdma_serve_cfg cfg = { .dev = &dev,
					 .devname = a->cfg.rdma_dev,
					 .limits = { .max_qps = a->cfg.limits.max_streams,
						     .max_duration_s =
							     a->cfg.limits.max_duration_s },
					 .claim = ix_agent_slot_charge,
					 .claim_arg = &claim };
	struct sockaddr_storage from;
	int rc;

	if (may_rdma(a, fd, peer, authenticated, &cfg.bind_peer, err) < 0)
		return -1;
	if (ix_net_peer_addr(fd, &from) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "the client's address is unknown");
	if (ix_agent_slot_claim(a, &slot, &from, 0, err) < 0)
		return -1;
	ix_agent_logf(a, "%s: rdma test", peer);
	rc = ix_rdma_hw_dev_new(&dev, NULL, a->cfg.rdma_gpu, err);
	if (rc == 0) {
		rc = ix_rdma_serve(fd, req, &cfg, err);
		ix_rdma_hw_dev_free(&dev);
	}
	ix_agent_slot_release(a, &slot);
	return rc;
}
