/*
 * Snapshots of a host's fabric counters (the model is probes/core/
 * counters.h): the network device a test runs over, its root qdisc, and
 * the RDMA port behind it (RoCE) or in front of it (IPoIB).
 *
 * root is a prefix put before "/sys/..." paths: "" (or NULL) for the live
 * system, a fixture tree in tests. Under a fixture root the ethtool
 * statistics come from root/ethtool/IF, a file as `ethtool -S IF` prints
 * it, and no qdisc is read; the live system asks the kernel (rtnetlink
 * RTM_GETLINK for the netdev statistics, SIOCETHTOOL ETHTOOL_GSTATS,
 * RTM_GETQDISC) in the caller's network namespace.
 */
#ifndef IX_FABRIC_H
#define IX_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/counters.h"

/* What to read. iface and rdma_dev may be NULL or "": an interface alone
 * finds its RDMA port (a RoCE port whose GID 0 sits on it, or the port of
 * an IPoIB device), a device alone finds its network device. */
struct ix_fabric_where {
	const char *iface;
	const char *rdma_dev;
	unsigned port; /* 0: the first port of rdma_dev */
	/* The sources to read, 1 << IX_SRC_*; 0: all of them. A port's
	 * hw_counters and port counters alone keep a RoCE port from counting
	 * what its network device counts too. */
	uint32_t sources;
};

/* Read every source there is; out is replaced. A source that is absent or
 * unreadable is left out (out->sources says which were read); nothing read
 * at all leaves out->valid false. Never fails otherwise. */
void ix_fabric_snapshot(const char *root, const struct ix_fabric_where *w, struct ix_ctr_set *out);

/* The interface holding the local address of socket fd ("lo" for
 * loopback); -1 when none holds it. */
int ix_fabric_iface_of_socket(int fd, char *iface, size_t len);
/* A live snapshot of the interface a connected socket runs over (and the
 * RDMA port over it); not valid when that interface is not found. */
void ix_fabric_snapshot_socket(int fd, struct ix_ctr_set *out);

/* The counters of ifindex in one read (len bytes, at most 32 KiB taken)
 * of an rtnetlink answer, as a live snapshot reads them into out: its
 * netdev statistics from an RTM_GETLINK answer (qdisc false: the first
 * message only), or its root qdisc's from an RTM_GETQDISC dump (qdisc
 * true: up to NLMSG_DONE or NLMSG_ERROR). Returns whether the answer is
 * over. */
bool ix_fabric_parse_rtnl(const void *buf, size_t len, bool qdisc, unsigned ifindex,
			  struct ix_ctr_set *out);

/* The statistics of `ethtool -S` output (tests, fixtures): "name: value"
 * lines under a header. Returns the number added. */
int ix_fabric_parse_ethtool_text(const char *text, struct ix_ctr_set *out);

#endif
