/* The inventory request and its reply as control-message bodies
 * (INVENTORY, INVENTORY_REPLY). The request names nothing: the agent
 * alone decides what it reads. The reply is range-checked on receipt,
 * every string bounded and free of control characters: the agent may be
 * hostile. */
#ifndef IX_INVWIRE_H
#define IX_INVWIRE_H

#include <jansson.h>

#include "probes/core/err.h"
#include "probes/host/nodeinv.h"

#define IX_INV_WIRE_VERSION 1
/* The most bytes a request body may have: it carries only its version. */
#define IX_INV_REQUEST_MAX 64

/* {"version": 1} */
json_t *ix_inv_request(void);
/* 0 when j is an inventory request this end answers; else -1 with err
 * saying why (an unknown member, another version). */
int ix_inv_request_parse(json_t *j, struct ix_err *err);

/* The reply body (also the node's inventory in result documents). */
json_t *ix_inv_reply(const struct ix_node_inv *inv);
/* Decode a reply into inv; -1 with err naming the member at fault. */
int ix_inv_reply_parse(json_t *j, struct ix_node_inv *inv, struct ix_err *err);

#endif
