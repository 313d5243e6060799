/* An "ib_fabric" result read back (report/json/read.h): the nodes and
 * cables a baseline holds. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probes/ibfab/ibfab.h"
#include "report/json/read.h"

static int guid_of(json_t *j, uint64_t *out)
{
	const char *s = json_string_value(j);
	char *end;

	if (!s || strncmp(s, "0x", 2) != 0 || !s[2])
		return -1;
	*out = strtoull(s + 2, &end, 16);
	return *end ? -1 : 0;
}

static int bad(struct ix_err *err, size_t node, const char *what)
{
	return ix_fail(err, IX_EXIT_FAIL, "ib_fabric result: node %zu: %s", node, what);
}

int ix_json_read_ibfab(json_t *res, struct ix_ibfab *f, struct ix_err *err)
{
	json_t *nodes = json_object_get(res, "nodes"), *nd, *pt;
	size_t i, k;

	ix_ibfab_init(f);
	if (!json_is_array(nodes))
		return ix_fail(err, IX_EXIT_FAIL, "ib_fabric result: no 'nodes' array");
	json_array_foreach(nodes, i, nd)
	{
		json_int_t np = json_integer_value(json_object_get(nd, "ports_total"));
		const char *type = json_string_value(json_object_get(nd, "type"));
		const char *desc = json_string_value(json_object_get(nd, "desc"));
		uint64_t g;

		if (guid_of(json_object_get(nd, "guid"), &g) < 0 || !type || np < 0 || np > 255)
			return ix_ibfab_free(f),
			       bad(err, i, "'guid', 'type' or 'ports_total' is bad");
		if (!ix_ibfab_add(f, g, strcmp(type, "switch") == 0, desc, (uint8_t)np))
			return ix_ibfab_free(f), ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	json_array_foreach(nodes, i, nd)
	{
		json_array_foreach(json_object_get(nd, "ports"), k, pt)
		{
			json_int_t num = json_integer_value(json_object_get(pt, "port"));
			json_t *peer = json_object_get(pt, "peer");
			struct ix_ibfab_port *p = ix_ibfab_port(f, (int32_t)i, (uint32_t)num);
			json_int_t pp = json_integer_value(json_object_get(peer, "port"));
			uint64_t g;

			if (!p || num < 1)
				return ix_ibfab_free(f),
				       bad(err, i, "a port number is out of range");
			if (json_is_null(peer) || !peer)
				continue;
			if (guid_of(json_object_get(peer, "guid"), &g) < 0 || pp < 1 || pp > 255)
				return ix_ibfab_free(f), bad(err, i, "a port's 'peer' is bad");
			p->peer_node = ix_ibfab_find(f, g);
			p->peer_port = (uint8_t)pp;
		}
	}
	return 0;
}
