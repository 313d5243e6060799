/* Health from every node: each agent's inventory (probes/host/nodeinv.h)
 * gathered over the coordinator's connections, and the odd ones out: a
 * node whose kernel, libibverbs, NIC model, firmware, driver, PCIe link as
 * trained or MTU differs from what most nodes have, each named with its
 * node, beside every node's topology findings. */
#ifndef IX_FLEET_H
#define IX_FLEET_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/cluster/hostlist.h"
#include "probes/core/err.h"
#include "probes/host/nodeinv.h"

struct ix_coord;
struct ix_token;

/* How long the commands wait for every agent's inventory. */
#define IX_FLEET_TIMEOUT_S 10.0

struct ix_fleet_node {
	char host[IX_HOST_NAME_MAX + 8]; /* as the host list names it ("node07:5301") */
	bool ok;                         /* inv was read */
	char error[IX_ERR_MAX];          /* why not, when !ok */
	struct ix_node_inv inv;
};

/* One value where a node differs from the majority. */
struct ix_fleet_odd {
	uint32_t node;                     /* index in nodes */
	char field[24];                    /* "kernel", "fw", "driver", "pcie", "mtu", ... */
	char device[32];                   /* the NIC ("" for the node as a whole) */
	char value[2 * IX_INV_STR + 2];    /* the node's ("" when it has none) */
	char majority[2 * IX_INV_STR + 2]; /* what most nodes have */
	uint32_t agree, of;                /* nodes with the majority's value, of those compared */
};

struct ix_fleet_result {
	struct ix_fleet_node *nodes;
	uint32_t n;
	struct ix_fleet_odd *odd;
	uint32_t nodd;
	uint32_t answered;  /* nodes whose inventory was read */
	uint32_t findings;  /* topology findings over every node */
	uint32_t odd_nodes; /* nodes named at least once in odd */
	double wall_s;
};

/* Make room for n nodes named after hosts (all !ok until filled). -1 when
 * out of memory. */
int ix_fleet_init(struct ix_fleet_result *r, const struct ix_hostlist *hosts);
void ix_fleet_free(struct ix_fleet_result *r);

/* Ask every ready agent of co (hosts in the same order) for its inventory
 * at once, waiting up to timeout_s, fill r and analyse it. An agent that
 * does not answer, or answers something malformed, is a node with an error;
 * a refusal ends that agent's session (co marks it failed), so gather after
 * the tests. -1 only when out of memory. */
int ix_fleet_gather(struct ix_coord *co, const struct ix_hostlist *hosts, double timeout_s,
		    struct ix_fleet_result *r, struct ix_err *err);

/* The same over co, or when co is NULL over sessions of its own to hosts
 * (authenticated with token, NULL for none), opened and closed here: what
 * a check over a host list calls (cmd/run.c's targets give both). */
int ix_fleet_collect(struct ix_coord *co, const struct ix_hostlist *hosts,
		     const struct ix_token *token, double timeout_s, struct ix_fleet_result *r,
		     struct ix_err *err);

/* Append more's nodes to r (more is left as it was) and analyse the
 * whole again. -1 when out of memory. */
int ix_fleet_append(struct ix_fleet_result *r, const struct ix_fleet_result *more);

/* The analysis alone, over r->nodes (pure; called by ix_fleet_gather):
 * fills odd, findings and odd_nodes. A value is odd where more than half
 * of the nodes compared share another one; NICs are compared by name
 * across the nodes that have one so named. -1 when out of memory. */
int ix_fleet_analyze(struct ix_fleet_result *r);

/* Whether node i is named in odd. */
bool ix_fleet_node_odd(const struct ix_fleet_result *r, uint32_t i);

#endif
