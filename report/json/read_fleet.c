/* A saved "fleet" object back into its struct (report/json/read.h): every
 * node's host, error and inventory checked as the coordinator checks an
 * agent's reply, then the odd ones out computed again. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probes/ctl/invwire.h"
#include "report/json/read.h"

/* A string member that fits buf, for node i. */
static int node_str(json_t *nd, size_t i, const char *k, char *buf, size_t len, struct ix_err *err)
{
	const char *s = json_string_value(json_object_get(nd, k));

	if (!s || strlen(s) >= len)
		return ix_fail(err, IX_EXIT_FAIL,
			       "fleet.nodes[%zu].%s: not a string of at most %zu bytes", i, k,
			       len - 1);
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

int ix_json_read_fleet(json_t *fleet, struct ix_fleet_result *out, struct ix_err *err)
{
	json_t *nodes = json_object_get(fleet, "nodes"), *nd;
	struct ix_hostlist none = { 0 };
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!json_is_array(nodes) || json_array_size(nodes) > IX_HOSTLIST_MAX)
		return ix_fail(err, IX_EXIT_FAIL, "fleet.nodes: not an array of at most %d nodes",
			       IX_HOSTLIST_MAX);
	if (ix_fleet_init(out, &none) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	free(out->nodes);
	out->nodes = calloc(json_array_size(nodes) + 1, sizeof(*out->nodes));
	if (!out->nodes)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(nodes, i, nd)
	{
		struct ix_fleet_node *n = &out->nodes[i];
		json_t *inv = json_object_get(nd, "inventory");

		out->n++;
		if (node_str(nd, i, "host", n->host, sizeof(n->host), err) < 0)
			goto fail;
		if (json_is_null(inv)) {
			if (node_str(nd, i, "error", n->error, sizeof(n->error), err) < 0)
				goto fail;
			continue;
		}
		if (ix_inv_reply_parse(inv, &n->inv, err) < 0) {
			ix_fail_prefix(err, "fleet.nodes[%zu]", i);
			goto fail;
		}
		n->ok = true;
	}
	if (ix_fleet_analyze(out) < 0) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto fail;
	}
	return 0;
fail:
	ix_fleet_free(out);
	return -1;
}
