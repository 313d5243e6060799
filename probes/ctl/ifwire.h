/* The interface counters request and its reply as control-message bodies
 * (IFSTATS, IFSTATS_REPLY): what a switch's agent says its ports moved.
 * The reply is range-checked on receipt: the agent may be hostile. */
#ifndef IX_IFWIRE_H
#define IX_IFWIRE_H

#include <stdbool.h>

#include <jansson.h>

#include "probes/core/err.h"
#include "probes/host/ifstats.h"

#define IX_IFSTATS_WIRE_VERSION 1

/* {"version": 1} */
json_t *ix_ifstats_request(void);
/* 0 when j is a request this end answers; else -1 with err. */
int ix_ifstats_request_parse(json_t *j, struct ix_err *err);

/* {"version": 1, "truncated": bool, "ifaces": [{name, up, control,
 *  rx_bytes, tx_bytes, rx_packets, tx_packets}, ...]} */
json_t *ix_ifstats_reply(const struct ix_ifstat *v, uint32_t n, bool truncated);
/* Decode a reply into v (room for IX_IFSTAT_MAX); -1 with err naming
 * what is wrong. */
int ix_ifstats_reply_parse(json_t *j, struct ix_ifstat *v, uint32_t *n, bool *truncated,
			   struct ix_err *err);

#endif
