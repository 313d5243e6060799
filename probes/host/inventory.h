/* What machine a run happened on: kernel, OS, CPUs, memory, interfaces. */
#ifndef IX_INVENTORY_H
#define IX_INVENTORY_H

#include <jansson.h>

#include "probes/core/probe.h"

/* sysroot: "" for the live system, or a fixture tree (tests). */
json_t *ix_inventory(const char *sysroot);
/* The rate of network interface iface: for IPoIB (type 32, or a netdev of
 * an InfiniBand-layer port under device/infiniband) the IB port's "rate",
 * else the netdev's "speed" (ethtool's figure, Mb/s), else the rate of a
 * RoCE port it belongs to. Loopback, and links that report no speed (or
 * -1), leave bps 0 and source "unknown". out is always filled; returns 0
 * when the rate is known, -1 otherwise. */
int ix_link_limit_of(const char *iface, const char *sysroot, struct ix_link_limit *out);
/* The link of an RDMA port: rate_bps (its rate), the PCIe link of the
 * RDMA device's PCI function and, when gpu_bdf is not NULL (the test's
 * buffers are in that GPU's memory), the GPU's; iface is netdev, or the
 * device's name when there is none. Returns 0 when a ceiling is known.
 * The PCI tree is read at most once a minute for a given sysroot. */
int ix_link_of_rdma(const char *sysroot, const char *rdma_dev, const char *netdev, double rate_bps,
		    const char *gpu_bdf, struct ix_link_limit *out);
/* The same for the local interface that routes to host (a name or an
 * address; a local address gives the interface holding it). out->iface is
 * "" when no route or interface was found. */
int ix_link_toward(const char *host, const char *sysroot, struct ix_link_limit *out);
/* The local interface that routes to host: "lo" for loopback; -1 when
 * no route or interface was found. */
int ix_route_iface(const char *host, char *iface, size_t len);
/* The speed in bit/s of the local interface that routes to host, or 0 when
 * unknown (loopback, virtual links without a speed). */
double ix_link_rate_bps(const char *host, const char *sysroot);

#endif
