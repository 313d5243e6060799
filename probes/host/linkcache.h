/* The links an agent's tests leave by, read once a minute: reading a NIC's
 * PCIe link walks every PCI function (tens of milliseconds on a large
 * host), too slow for every test of a mesh. */
#ifndef IX_LINKCACHE_H
#define IX_LINKCACHE_H

#include <pthread.h>
#include <stdint.h>

#include "probes/core/probe.h"

#define IX_LINK_CACHE_N     16
#define IX_LINK_CACHE_TTL_S 60

struct ix_link_cache_entry {
	char iface[64];
	int64_t read_ns; /* 0: unused */
	int rc;
	struct ix_link_limit link;
};

struct ix_link_cache {
	pthread_mutex_t lock;
	char sysroot[256]; /* "" for the live system, or a fixture tree */
	struct ix_link_cache_entry v[IX_LINK_CACHE_N];
	uint64_t reads; /* lookups that read sysfs (for tests) */
};

void ix_link_cache_init(struct ix_link_cache *c, const char *sysroot);
void ix_link_cache_destroy(struct ix_link_cache *c);
/* ix_link_limit_of(iface) as read at most IX_LINK_CACHE_TTL_S ago.
 * Loopback ("lo") has no rate. Thread-safe. */
int ix_link_cache_get(struct ix_link_cache *c, const char *iface, struct ix_link_limit *out);
/* The link of the interface a connected socket leaves by; out->iface is
 * "" when it is not found. */
int ix_link_cache_socket(struct ix_link_cache *c, int fd, struct ix_link_limit *out);
/* The link of the interface that routes to host. */
int ix_link_cache_toward(struct ix_link_cache *c, const char *host, struct ix_link_limit *out);

#endif
