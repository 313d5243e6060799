/*
 * The InfiniBand switch port a local adapter port is cabled to, as the
 * subnet itself says: a directed-route SMP one hop out through the port
 * (NodeInfo: the node's type, GUID and the port number it was reached
 * on; NodeDescription: its name), as ibnetdiscover reads its first hop.
 * The InfiniBand counterpart of an LLDP neighbour: the mesh's fabric
 * groups hosts under it. Needs access to /dev/infiniband/umad* (root);
 * answers are kept a minute.
 */
#ifndef IX_IBNBR_H
#define IX_IBNBR_H

#include <stddef.h>

#include "probes/core/probe.h"

/* Into out (source "ib", chassis "ib 0xGUID", the switch's description,
 * port "N"): 0; -1 with why (no libibmad in this build, no access, no
 * answer, not a switch at the other end). dev NULL and port 0: the first
 * active port. */
int ix_ib_neighbor(const char *dev, int port, struct ix_neighbor *out, char *why, size_t whylen);

#endif
