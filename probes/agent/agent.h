/* The agent (ixperf server): serves many clients and tests at once. */
#ifndef IX_AGENT_H
#define IX_AGENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "probes/agent/state.h"
#include "probes/core/err.h"
#include "probes/ctl/wire.h"

/* The agent's defaults (those of 'ixperf server' without options): every
 * limit set, no token, no port (cfg->port 0: a free one). */
void ix_agent_config_defaults(struct ix_agent_config *cfg);

/* --allow-run: comma-separated IPv4 or IPv6 addresses, or "any", into
 * cfg. -1 with err naming the entry that is neither. */
int ix_agent_parse_allow(const char *list, struct ix_agent_config *cfg, struct ix_err *err);

/* Bind and listen; cfg->port 0 picks a free port (see ix_agent_port). */
int ix_agent_open(struct ix_agent *a, const struct ix_agent_config *cfg, atomic_int *stop,
		  struct ix_err *err);
uint16_t ix_agent_port(const struct ix_agent *a);
/* Serve until *stop is set, then end the running sessions (their sockets
 * are shut down) and wait for them. -1 with err when some are still
 * running after 30 s: the caller must then exit without freeing a. */
int ix_agent_run(struct ix_agent *a, struct ix_err *err);
void ix_agent_close(struct ix_agent *a);
/* Its counters now, under its lock (any thread, while it is open). */
void ix_agent_stats_read(struct ix_agent *a, struct ix_agent_stats *out);

#endif
