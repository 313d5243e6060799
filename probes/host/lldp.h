/* The switch port a network interface is cabled to, as its LLDP neighbour
 * announces it: asked of the host's lldpd (liblldpctl) over its control
 * socket, IXPERF_LLDPD_SOCKET when set (an lldpd per network namespace),
 * else lldpd's default. */
#ifndef IX_LLDP_H
#define IX_LLDP_H

#include <stddef.h>

#include "probes/core/probe.h"

/* Fill out with iface's first LLDP neighbour. Returns 0 when one was
 * found; -1 with why (a sentence, "" when there is no reason to give)
 * when lldpd is not running, is not built in, or knows no neighbour on
 * iface; out is then empty. */
int ix_lldp_neighbor(const char *iface, struct ix_neighbor *out, char *why, size_t whylen);

#endif
