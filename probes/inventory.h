/* What machine a run happened on: kernel, OS, CPUs, memory, interfaces. */
#ifndef IX_INVENTORY_H
#define IX_INVENTORY_H

#include <jansson.h>

/* sysroot: "" for the live system, or a fixture tree (tests). */
json_t *ix_inventory(const char *sysroot);
/* The speed in bit/s of the local interface that routes to host, or 0 when
 * unknown (loopback, virtual links without a speed). */
double ix_link_rate_bps(const char *host, const char *sysroot);

#endif
