/* Interface addresses with their RDMA devices and leaf switches
 * (probes/host/ifaddr.h). */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "probes/host/ifaddr.h"
#include "probes/host/lldp.h"
#include "probes/host/sysfs.h"

/* A name from sysfs or the caller used in a path: no separators, not "."
 * or "..". */
static bool plain_name(const char *s)
{
	return s[0] && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* Whether the directory entry is one to descend into. */
static bool entry(const struct dirent *e)
{
	return e->d_name[0] != '.' && plain_name(e->d_name);
}

/* Whether a GID of port dir (ROOT/sys/class/infiniband/DEV/ports/N) sits
 * on iface. */
static bool port_on_iface(const char *port, const char *iface)
{
	char dir[1024], path[1400], nd[64];
	struct dirent *e;
	bool found = false;
	DIR *d;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/gid_attrs/ndevs", port) >= sizeof(dir))
		return false;
	d = opendir(dir);
	while (d && !found && (e = readdir(d)))
		found = entry(e) &&
			(size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
				sizeof(path) &&
			ix_sysfs_read(path, nd, sizeof(nd)) == 0 && strcmp(nd, iface) == 0;
	if (d)
		closedir(d);
	return found;
}

/* The first device under ROOT/sys/class/infiniband with a GID on iface. */
static bool rdma_by_gid(const char *root, const char *iface, char *dev, size_t len)
{
	char dir[512], ports[800], port[1024];
	struct dirent *e, *pe;
	bool found = false;
	DIR *d, *pd;

	if (!ix_sysfs_path(dir, sizeof(dir), root, "/sys/class/infiniband"))
		return false;
	d = opendir(dir);
	while (d && !found && (e = readdir(d))) {
		if (!entry(e) || strlen(e->d_name) >= len ||
		    (size_t)snprintf(ports, sizeof(ports), "%s/%s/ports", dir, e->d_name) >=
			    sizeof(ports))
			continue;
		pd = opendir(ports);
		while (pd && !found && (pe = readdir(pd)))
			found = entry(pe) &&
				(size_t)snprintf(port, sizeof(port), "%s/%s", ports, pe->d_name) <
					sizeof(port) &&
				port_on_iface(port, iface);
		if (pd)
			closedir(pd);
		if (found)
			snprintf(dev, len, "%s", e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/* The device of an IPoIB interface: ROOT/sys/class/net/IF/device/infiniband/DEV. */
static bool rdma_of_device(const char *root, const char *iface, char *dev, size_t len)
{
	char rel[128], dir[640];
	struct dirent *e;
	bool found = false;
	DIR *d;

	if ((size_t)snprintf(rel, sizeof(rel), "/sys/class/net/%s/device/infiniband", iface) >=
		    sizeof(rel) ||
	    !ix_sysfs_path(dir, sizeof(dir), root, rel))
		return false;
	d = opendir(dir);
	while (d && !found && (e = readdir(d)))
		if (entry(e) && strlen(e->d_name) < len) {
			snprintf(dev, len, "%s", e->d_name);
			found = true;
		}
	if (d)
		closedir(d);
	return found;
}

bool ix_ifaddr_rdma(const char *root, const char *iface, char *dev, size_t len)
{
	if (len)
		dev[0] = '\0';
	if (!len || !iface || !plain_name(iface))
		return false;
	return rdma_by_gid(root ? root : "", iface, dev, len) ||
	       rdma_of_device(root ? root : "", iface, dev, len);
}

/* The prefix length of a netmask: its leading one bits. */
static uint8_t mask_bits(const unsigned char *m, size_t n)
{
	uint8_t bits = 0;

	for (size_t i = 0; i < n && m[i] == 0xff; i++)
		bits += 8;
	if (bits < n * 8)
		for (unsigned char b = m[bits / 8]; b & 0x80; b = (unsigned char)(b << 1))
			bits++;
	return bits;
}

/* The bytes of a socket address and its netmask; false for other families. */
static bool addr_bytes(const struct sockaddr *sa, const struct sockaddr *mask,
		       const unsigned char **a, const unsigned char **m, size_t *n)
{
	if (sa->sa_family == AF_INET && (!mask || mask->sa_family == AF_INET)) {
		*a = (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)
			     ->sin_addr;
		*m = mask ? (const unsigned char *)&((const struct sockaddr_in *)(const void *)mask)
				     ->sin_addr
			  : NULL;
		*n = 4;
		return true;
	}
	if (sa->sa_family == AF_INET6 && (!mask || mask->sa_family == AF_INET6)) {
		*a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
		*m = mask ? ((const struct sockaddr_in6 *)(const void *)mask)->sin6_addr.s6_addr
			  : NULL;
		*n = 16;
		return true;
	}
	return false;
}

/* One getifaddrs entry into a; false when it is not listed. */
static bool from_ifaddrs(const struct ifaddrs *ifa, struct ix_ifaddr *a)
{
	const unsigned char *bytes, *mask;
	size_t n;

	if (!ifa->ifa_addr || !ifa->ifa_name || !(ifa->ifa_flags & IFF_UP) ||
	    (ifa->ifa_flags & IFF_LOOPBACK) ||
	    !addr_bytes(ifa->ifa_addr, ifa->ifa_netmask, &bytes, &mask, &n))
		return false;
	/* fe80::/10 */
	if (n == 16 && bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80)
		return false;
	memset(a, 0, sizeof(*a));
	if (strlen(ifa->ifa_name) >= sizeof(a->iface) ||
	    !inet_ntop(ifa->ifa_addr->sa_family, bytes, a->addr, sizeof(a->addr)))
		return false;
	snprintf(a->iface, sizeof(a->iface), "%s", ifa->ifa_name);
	a->family = ifa->ifa_addr->sa_family;
	a->prefix = mask ? mask_bits(mask, n) : (uint8_t)(n * 8);
	return true;
}

/* The LLDP leaf of iface: the neighbour's system name, else its chassis ID. */
static void leaf_of(const char *iface, char *leaf, size_t len)
{
	struct ix_neighbor nb;
	char why[128];

	leaf[0] = '\0';
	if (ix_lldp_neighbor(iface, &nb, why, sizeof(why)) == 0)
		snprintf(leaf, len, "%s", nb.name[0] ? nb.name : nb.chassis);
}

size_t ix_ifaddr_list(const char *root, struct ix_ifaddr *out, size_t cap)
{
	struct ifaddrs *all, *ifa;
	size_t n = 0;

	if (cap > IX_IFADDR_MAX)
		cap = IX_IFADDR_MAX;
	if (getifaddrs(&all) < 0)
		return 0;
	for (ifa = all; ifa && n < cap; ifa = ifa->ifa_next) {
		struct ix_ifaddr *a = &out[n];
		size_t k;

		if (!from_ifaddrs(ifa, a))
			continue;
		/* sysfs and lldpd are asked once per interface. */
		for (k = 0; k < n && strcmp(out[k].iface, a->iface) != 0; k++)
			;
		if (k < n) {
			memcpy(a->rdma, out[k].rdma, sizeof(a->rdma));
			memcpy(a->leaf, out[k].leaf, sizeof(a->leaf));
		} else {
			ix_ifaddr_rdma(root, a->iface, a->rdma, sizeof(a->rdma));
			leaf_of(a->iface, a->leaf, sizeof(a->leaf));
		}
		n++;
	}
	freeifaddrs(all);
	return n;
}

/* The bytes of a numeric address of family into buf (16 bytes); its
 * length, 0 when it does not parse. */
static size_t parse(int family, const char *s, unsigned char *buf)
{
	if (!s || (family != AF_INET && family != AF_INET6) || inet_pton(family, s, buf) != 1)
		return 0;
	return family == AF_INET ? 4 : 16;
}

/* Whether the first prefix bits of a and b agree. */
static bool same_prefix(const unsigned char *a, const unsigned char *b, unsigned prefix)
{
	unsigned full = prefix / 8, rest = prefix % 8;
	unsigned char m = (unsigned char)(0xff << (8 - rest));

	return memcmp(a, b, full) == 0 && (!rest || ((a[full] ^ b[full]) & m) == 0);
}

bool ix_ifaddr_in_subnet(int family, const char *addr, const char *net, unsigned prefix)
{
	unsigned char a[16], b[16];
	size_t n = parse(family, addr, a);

	return n && parse(family, net, b) == n && prefix <= n * 8 && same_prefix(a, b, prefix);
}

void ix_ifaddr_subnet(const struct ix_ifaddr *a, char *buf, size_t len)
{
	unsigned char b[16];
	char s[INET6_ADDRSTRLEN];
	size_t n = parse(a->family, a->addr, b);

	if (!len)
		return;
	buf[0] = '\0';
	if (!n || a->prefix > n * 8)
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned keep = a->prefix >= (i + 1) * 8 ? 8
				: a->prefix > i * 8      ? a->prefix - i * 8
							 : 0;

		b[i] &= (unsigned char)(0xff00 >> keep);
	}
	if (inet_ntop(a->family, b, s, sizeof(s)))
		snprintf(buf, len, "%s/%u", s, (unsigned)a->prefix);
}
