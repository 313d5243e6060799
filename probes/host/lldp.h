/* The switch port a network interface is cabled to, as its LLDP neighbour
 * announces it: asked of the host's lldpd (liblldpctl) over its control
 * socket, IXPERF_LLDPD_SOCKET when set (an lldpd per network namespace),
 * else lldpd's default. */
#ifndef IX_LLDP_H
#define IX_LLDP_H

#include <stdbool.h>
#include <stddef.h>

#include "probes/core/probe.h"

/* Fill out with iface's first LLDP neighbour. Returns 0 when one was
 * found; -1 with why (a sentence, "" when there is no reason to give)
 * when lldpd is not running, is not built in, or knows no neighbour on
 * iface; out is then empty. */
int ix_lldp_neighbor(const char *iface, struct ix_neighbor *out, char *why, size_t whylen);
/* A neighbour's strings as lldpd gives them (any may be NULL) into out:
 * each cut to fit and made printable ('?' for other bytes); the port is
 * its description, else its id. Returns whether it names a chassis, and
 * then sets out->source to "lldp". */
bool ix_lldp_copy(struct ix_neighbor *out, const char *chassis_id, const char *chassis_name,
		  const char *port_descr, const char *port_id);

#endif
