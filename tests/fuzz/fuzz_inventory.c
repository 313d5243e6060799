/*
 * Inventory bodies a peer controls (probes/ctl/invwire.h), parsed as the
 * frame layer parses them. The first byte picks the side: even, the
 * agent's decoding of an INVENTORY request; odd, the coordinator's of an
 * INVENTORY_REPLY, whose decoded inventory is encoded again and must
 * decode to the same struct, and then goes through the fleet analysis
 * beside a copy of itself with one NIC's firmware changed.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "probes/cluster/fleet.h"
#include "probes/ctl/invwire.h"
#include "probes/net/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int ok, const char *what, const struct ix_err *err)
{
	if (!ok) {
		fprintf(stderr, "%s: %s\n", what, err ? err->msg : "");
		abort();
	}
}

/* Three nodes: inv twice, and once with its first NIC's firmware changed. */
static void analyse(const struct ix_node_inv *inv)
{
	struct ix_host hv[3] = { { "a", 1, 0, "" }, { "b", 1, 0, "" }, { "c", 1, 0, "" } };
	struct ix_hostlist hl = { hv, 3, 3 };
	struct ix_fleet_result r;
	/* A firmware that leaves room for the change: one that differs. */
	bool changed = inv->nnics && strlen(inv->nics[0].fw) + 3 <= sizeof(inv->nics[0].fw);

	must(ix_fleet_init(&r, &hl) == 0, "out of memory", NULL);
	for (uint32_t i = 0; i < r.n; i++) {
		r.nodes[i].ok = true;
		r.nodes[i].inv = *inv;
	}
	if (changed)
		snprintf(r.nodes[2].inv.nics[0].fw, sizeof(r.nodes[2].inv.nics[0].fw), "%s-x",
			 inv->nics[0].fw);
	must(ix_fleet_analyze(&r) == 0, "out of memory", NULL);
	must(r.answered == 3, "three nodes answered", NULL);
	must(!changed || ix_fleet_node_odd(&r, 2), "the changed firmware is odd", NULL);
	must(!ix_fleet_node_odd(&r, 0), "a node like most is not odd", NULL);
	ix_fleet_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ix_node_inv inv, again;
	struct ix_err err = { 0 };
	json_t *body, *j;

	if (size < 1)
		return 0;
	body = ix_frame_parse_body(data + 1, size - 1, &err);
	if (!body)
		return 0;
	if (!(data[0] & 1)) {
		ix_inv_request_parse(body, &err);
	} else if (ix_inv_reply_parse(body, &inv, &err) == 0) {
		j = ix_inv_reply(&inv);
		must(j && ix_inv_reply_parse(j, &again, &err) == 0, "a reply does not parse again",
		     &err);
		must(memcmp(&inv, &again, sizeof(inv)) == 0, "a reply decodes otherwise again",
		     NULL);
		json_decref(j);
		analyse(&inv);
	}
	json_decref(body);
	return 0;
}
