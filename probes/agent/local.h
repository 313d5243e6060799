/*
 * Agents on this machine, each its own process: what ixperf run starts
 * when a check names no hosts, and stops at its end.
 */
#ifndef IX_AGENT_LOCAL_H
#define IX_AGENT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "probes/core/err.h"
#include "probes/ctl/auth.h"

#define IX_MAX_LOCAL_AGENTS 17 /* on loopback, and one more for RDMA */

struct ix_local_agents {
	uint32_t n;
	pid_t pid[IX_MAX_LOCAL_AGENTS + 1];
	uint16_t port[IX_MAX_LOCAL_AGENTS + 1];
	char hosts[IX_MAX_LOCAL_AGENTS * 24];
	/* The agent the rdma checks on this machine measure towards, on the
	 * address of a RoCE GID (loopback has none); "" when there is none. */
	char rdma_host[64];
	/* Their token: random, made for this run alone, so that no one else
	 * reaches them (the RDMA one listens on a routable address). */
	struct ix_token token;
};

/* n agents on loopback, each its own process; with rdma one more on an
 * address a RoCE v2 GID of this machine holds (la->rdma_host), where it
 * has one. Stop them with ix_local_agents_stop, also after a failure. */
int ix_local_agents_start(struct ix_local_agents *la, uint32_t n, bool rdma, struct ix_err *err);
void ix_local_agents_stop(struct ix_local_agents *la);

/* Whether this machine has an RDMA device (rdma) and a GPU that backend
 * and lib (NULL: the defaults) open (gpu); why not into why (ixperf run's
 * "requires"). */
bool ix_local_has(bool rdma, bool gpu, const char *backend, const char *lib, char *why, size_t len);

#endif
