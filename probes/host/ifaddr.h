/* The addresses of this host's network interfaces, each with the RDMA
 * device over its interface and the LLDP neighbour (leaf switch) it is
 * cabled to: what a coordinator needs to find every node's NICs per
 * subnet (the rails of a GPU cluster: NIC i of every node on subnet i).
 * The addresses are the live ones of the caller's network namespace; the
 * RDMA devices are read from sysfs under a root. */
#ifndef IX_IFADDR_H
#define IX_IFADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IX_IFADDR_MAX 32

struct ix_ifaddr {
	char iface[32]; /* network interface */
	int family;     /* AF_INET or AF_INET6 */
	char addr[46];  /* numeric address (inet_ntop) */
	uint8_t prefix; /* prefix length */
	char rdma[32];  /* the RDMA device over this interface, "" when none */
	char leaf
		[80]; /* its LLDP neighbour: the system name, else the chassis ID; "" when unknown */
};

/* The addresses of this host's interfaces that are up, loopback and IPv6
 * link-local left out, in getifaddrs order, at most cap (IX_IFADDR_MAX);
 * RDMA devices read under root ("" for the live /sys). Returns how many. */
size_t ix_ifaddr_list(const char *root, struct ix_ifaddr *out, size_t cap);
/* The RDMA device over iface under root into dev: a device with a GID on
 * iface (ROOT/sys/class/infiniband/DEV/ports/N/gid_attrs/ndevs/K names it:
 * RoCE, soft-RoCE), else the device of an IPoIB interface
 * (ROOT/sys/class/net/IF/device/infiniband/DEV). false, dev "", when none. */
bool ix_ifaddr_rdma(const char *root, const char *iface, char *dev, size_t len);

/* Pure helpers: */
/* Whether addr (numeric, family) lies in the subnet net/prefix. */
bool ix_ifaddr_in_subnet(int family, const char *addr, const char *net, unsigned prefix);
/* "10.1.0.0/24": the subnet of an address, into buf. */
void ix_ifaddr_subnet(const struct ix_ifaddr *a, char *buf, size_t len);

#endif
