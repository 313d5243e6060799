/*
 * Every network interface of this network namespace with its traffic
 * counters (the kernel's netdev statistics), as a switch's agent answers
 * IFSTATS: what moved on which port while a flow ran.
 */
#ifndef IX_IFSTATS_H
#define IX_IFSTATS_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/core/counters.h"

#define IX_IFSTAT_MAX  256 /* interfaces one answer carries */
#define IX_IFNAME_SIZE 16  /* IFNAMSIZ */

struct ix_ifstat {
	char name[IX_IFNAME_SIZE];
	bool up;      /* administratively up and carrier (IFF_UP, IFF_RUNNING) */
	bool control; /* the asking connection's own interface */
	uint64_t rx_bytes, tx_bytes, rx_packets, tx_packets;
};

/* The interfaces of this namespace, loopback left out, sorted by name (at
 * most cap; *truncated when there were more). control names the
 * interface to mark (NULL: none). Returns the number read. */
uint32_t ix_ifstats_read(struct ix_ifstat *out, uint32_t cap, const char *control, bool *truncated);

/* The byte and packet counters of a netdev snapshot (ix_fabric_snapshot)
 * into st; false when the snapshot has no tx_bytes and rx_bytes. */
bool ix_ifstats_from_set(const struct ix_ctr_set *set, struct ix_ifstat *st);

/* The entry named name in v[0..n), or NULL. */
const struct ix_ifstat *ix_ifstats_find(const struct ix_ifstat *v, uint32_t n, const char *name);

#endif
