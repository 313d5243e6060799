/* Paths through the subnet (probes/ibfab/ibfab.h): from an adapter's
 * port, cable by cable, through each switch's linear forwarding table, as
 * ibtracert follows them. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "probes/ibfab/ibfab.h"

int32_t ix_ibfab_by_lid(const struct ix_ibfab *f, uint16_t lid, uint32_t *port)
{
	for (uint32_t i = 0; lid && i < f->n; i++) {
		const struct ix_ibfab_node *nd = &f->nodes[i];

		if (nd->is_switch) {
			if (nd->ports[0].lid == lid) {
				*port = 0;
				return (int32_t)i;
			}
			continue;
		}
		for (uint32_t p = 1; p <= nd->nports; p++)
			if (nd->ports[p].lid == lid) {
				*port = p;
				return (int32_t)i;
			}
	}
	return -1;
}

int32_t ix_ibfab_by_port_guid(const struct ix_ibfab *f, uint64_t guid, uint32_t *port)
{
	for (uint32_t i = 0; guid && i < f->n; i++) {
		const struct ix_ibfab_node *nd = &f->nodes[i];

		for (uint32_t p = 1; !nd->is_switch && p <= nd->nports; p++)
			if (nd->ports[p].guid == guid) {
				*port = p;
				return (int32_t)i;
			}
	}
	return -1;
}

int ix_ibfab_path(const struct ix_ibfab *f, int32_t src, uint32_t sport, uint16_t dlid,
		  struct ix_ibfab_hop *hops, uint32_t *nhops, char *why, size_t whylen)
{
	char a[96];
	int32_t node = src;
	uint32_t port = sport;

	*nhops = 0;
	for (;;) {
		const struct ix_ibfab_port *pt = ix_ibfab_port(f, node, port);
		const struct ix_ibfab_node *next;

		if (!pt || pt->peer_node < 0) {
			snprintf(why, whylen, "%s has no cable",
				 ix_ibfab_port_label(f, node, port, a, sizeof(a)));
			return -1;
		}
		if (*nhops == IX_IBFAB_MAX_HOPS) {
			snprintf(why, whylen, "no end after %d cables towards LID %u (a loop)",
				 IX_IBFAB_MAX_HOPS, dlid);
			return -1;
		}
		hops[(*nhops)++] = (struct ix_ibfab_hop){ node, (uint8_t)port };
		node = pt->peer_node;
		next = &f->nodes[node];
		if (!next->is_switch) {
			if (next->ports[pt->peer_port].lid == dlid)
				return 0;
			snprintf(why, whylen, "the route towards LID %u ends at %s", dlid,
				 ix_ibfab_port_label(f, node, pt->peer_port, a, sizeof(a)));
			return -1;
		}
		if (next->ports[0].lid == dlid)
			return 0;
		if (dlid >= next->nlft || next->lft[dlid] == IX_IBFAB_NO_ROUTE) {
			snprintf(why, whylen, "switch \"%.64s\" has %s towards LID %u", next->desc,
				 next->nlft ? "no route" : "no forwarding table read", dlid);
			return -1;
		}
		port = next->lft[dlid];
		if (port == 0 || port > next->nports) {
			snprintf(why, whylen,
				 "switch \"%.64s\" sends LID %u to port %u, not a cable",
				 next->desc, dlid, port);
			return -1;
		}
	}
}
