/* The agent's answer to INVENTORY (probes/agent/session.h): the request
 * names nothing, the agent reads its own node below its --sysfs root, adds
 * the addresses of its network namespace and answers in one frame. Read-only, and at most MAX_INVENTORIES at once.
 * And to IFSTATS: its interfaces' counters, read live (a switch's ports). */
#include "config.h"

#include <stdlib.h>

#include "probes/agent/session.h"
#include "probes/core/clock.h"
#include "probes/ctl/ifwire.h"
#include "probes/ctl/invwire.h"
#include "probes/host/fabric.h"
#include "probes/host/ifaddr.h"
#include "probes/host/nodeinv.h"
#include "probes/net/proto.h"

/* Inventory requests answered at once; more are refused (each reads the
 * whole PCI tree). */
#define MAX_INVENTORIES 2

int ix_agent_serve_inventory(struct ix_agent *a, int fd, json_t *req, struct ix_err *err)
{
	struct ix_node_inv *inv;
	bool busy;
	json_t *reply;
	int rc;

	if (ix_inv_request_parse(req, err) < 0)
		return -1;
	pthread_mutex_lock(&a->lock);
	busy = a->inventories >= MAX_INVENTORIES;
	if (!busy)
		a->inventories++;
	pthread_mutex_unlock(&a->lock);
	if (busy)
		return ix_fail(err, IX_EXIT_FAIL,
			       "inventory refused: %d inventories are being read already",
			       MAX_INVENTORIES);
	inv = malloc(sizeof(*inv));
	if (!inv) {
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
	} else {
		ix_node_inv_read(a->cfg.sysfs ? a->cfg.sysfs : "", inv);
		/* The addresses are this network namespace's, whatever the root. */
		inv->naddrs = (uint32_t)ix_ifaddr_list(a->cfg.sysfs ? a->cfg.sysfs : "", inv->addrs,
						       IX_IFADDR_MAX);
		reply = ix_inv_reply(inv);
		rc = reply ? ix_frame_send(fd, IX_MSG_INVENTORY_REPLY, reply,
					   ix_now_ns() + 5 * IX_NSEC_PER_SEC, err)
			   : ix_fail(err, IX_EXIT_FAIL, "cannot encode the inventory");
		json_decref(reply);
		free(inv);
	}
	pthread_mutex_lock(&a->lock);
	a->inventories--;
	pthread_mutex_unlock(&a->lock);
	return rc;
}

int ix_agent_serve_ifstats(struct ix_agent *a, int fd, json_t *req, struct ix_err *err)
{
	struct ix_ifstat *v;
	char control[IX_IFNAME_SIZE] = "";
	bool truncated;
	uint32_t n;
	json_t *reply;
	int rc;

	(void)a;
	if (ix_ifstats_request_parse(req, err) < 0)
		return -1;
	v = calloc(IX_IFSTAT_MAX, sizeof(*v));
	if (!v)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (ix_fabric_iface_of_socket(fd, control, sizeof(control)) < 0)
		control[0] = 0;
	n = ix_ifstats_read(v, IX_IFSTAT_MAX, control[0] ? control : NULL, &truncated);
	reply = ix_ifstats_reply(v, n, truncated);
	rc = reply ? ix_frame_send(fd, IX_MSG_IFSTATS_REPLY, reply,
				   ix_now_ns() + 5 * IX_NSEC_PER_SEC, err)
		   : ix_fail(err, IX_EXIT_FAIL, "cannot encode the interface counters");
	json_decref(reply);
	free(v);
	return rc;
}
