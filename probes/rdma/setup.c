#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/sysfs.h"
#include "probes/rdma/setup.h"

#define USAGE(...)   ix_fail(err, IX_EXIT_USAGE, __VA_ARGS__)
#define UNAVAIL(...) ix_fail(err, IX_EXIT_UNAVAILABLE, __VA_ARGS__)

/* ---- GID text ---- */

void ix_rdma_gid_format(const uint8_t raw[16], char text[IX_RDMA_GID_TEXT])
{
	for (int i = 0; i < 8; i++)
		snprintf(text + i * 5, (size_t)(IX_RDMA_GID_TEXT - i * 5), "%02x%02x%s", raw[2 * i],
			 raw[2 * i + 1], i < 7 ? ":" : "");
}

static int hexval(char c)
{
	if (!isxdigit((unsigned char)c))
		return -1;
	return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

int ix_rdma_gid_parse(const char *text, uint8_t raw[16])
{
	if (!text || strlen(text) != IX_RDMA_GID_TEXT - 1)
		return -1;
	for (int i = 0; i < IX_RDMA_GID_TEXT - 1; i++)
		if (i % 5 == 4 ? text[i] != ':' : hexval(text[i]) < 0)
			return -1;
	for (int i = 0; i < 16; i++) {
		const char *p = text + (i / 2) * 5 + (i % 2) * 2;

		raw[i] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
	}
	return 0;
}

static bool gid_zero(const uint8_t g[16])
{
	static const uint8_t zero[16];

	return memcmp(g, zero, 16) == 0;
}

static bool gid_v4mapped(const uint8_t g[16])
{
	static const uint8_t pre[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(g, pre, sizeof(pre)) == 0;
}

static bool gid_link_local(const uint8_t g[16])
{
	return g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

/* ---- The GID table of one port ---- */

struct gid_entry {
	bool present, used;
	uint8_t raw[16];
	enum ix_rdma_gid_type type;
	char ndev[IX_RDMA_IFNAME_MAX];
};

struct port_table {
	struct gid_entry v[IX_RDMA_GID_TABLE];
	int size;  /* highest present index + 1 */
	int nused; /* entries with a nonzero GID */
	bool infiniband;
	char name[96]; /* "mlx5_0 port 1" */
	char dir[PATH_MAX];
};

static bool safe_name(const char *s)
{
	return s && *s && strlen(s) < 64 && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

static void read_entry(struct port_table *t, unsigned long idx)
{
	struct gid_entry *g = &t->v[idx];
	char path[PATH_MAX + 64], buf[64];

	g->present = true;
	t->size = (int)idx >= t->size ? (int)idx + 1 : t->size;
	snprintf(path, sizeof(path), "%s/gids/%lu", t->dir, idx);
	if (ix_sysfs_read(path, buf, sizeof(buf)) < 0 || ix_rdma_gid_parse(buf, g->raw) < 0 ||
	    gid_zero(g->raw))
		return; /* an unused entry */
	g->used = true;
	t->nused++;
	/* Kernels before gid_attrs had RoCE v1 only. */
	g->type = t->infiniband ? IX_RDMA_GID_IB : IX_RDMA_GID_ROCE_V1;
	snprintf(path, sizeof(path), "%s/gid_attrs/types/%lu", t->dir, idx);
	if (!t->infiniband && ix_sysfs_read(path, buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "RoCE v2") == 0)
		g->type = IX_RDMA_GID_ROCE_V2;
	snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%lu", t->dir, idx);
	if (ix_sysfs_read(path, g->ndev, sizeof(g->ndev)) < 0)
		g->ndev[0] = '\0';
}

static int read_table(const char *root, const char *dev, unsigned port, struct port_table *t,
		      struct ix_err *err)
{
	char rel[160], path[PATH_MAX + 16], ll[32];
	struct dirent *e;
	DIR *dir;

	memset(t, 0, sizeof(*t));
	if (!safe_name(dev))
		return USAGE("'%.64s' is not an RDMA device name", dev ? dev : "");
	snprintf(t->name, sizeof(t->name), "%s port %u", dev, port);
	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports/%u", dev, port);
	if (!ix_sysfs_path(t->dir, sizeof(t->dir), root, rel))
		return ix_fail(err, IX_EXIT_FAIL, "sysfs path too long for %s", t->name);
	snprintf(path, sizeof(path), "%s/link_layer", t->dir);
	if (ix_sysfs_read(path, ll, sizeof(ll)) < 0)
		return UNAVAIL("there is no RDMA port %s/%u here: check `rdma link`", dev, port);
	t->infiniband = strcmp(ll, "InfiniBand") == 0;
	snprintf(path, sizeof(path), "%s/gids", t->dir);
	if ((dir = opendir(path))) {
		while ((e = readdir(dir))) {
			char *end;
			unsigned long idx = strtoul(e->d_name, &end, 10);

			/* Entries past 255 cannot be named in an address handle. */
			if (isdigit((unsigned char)e->d_name[0]) && !*end &&
			    idx < IX_RDMA_GID_TABLE)
				read_entry(t, idx);
		}
		closedir(dir);
	}
	if (!t->nused)
		return UNAVAIL("%s has no GIDs in use: is the port up%s? check `rdma link`",
			       t->name, t->infiniband ? "" : " and its interface addressed");
	return 0;
}

/* ---- Addresses ---- */

struct ipaddr {
	int family; /* AF_INET (a[0..3]) or AF_INET6 */
	uint8_t a[16];
};

/* An IPv4 address in an IPv6 socket (::ffff:a.b.c.d) counts as IPv4. */
static bool to_ip(const struct sockaddr_storage *ss, struct ipaddr *ip)
{
	memset(ip, 0, sizeof(*ip));
	ip->family = ss->ss_family;
	if (ss->ss_family == AF_INET)
		memcpy(ip->a, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	else if (ss->ss_family == AF_INET6)
		memcpy(ip->a, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	else
		return false;
	if (ip->family == AF_INET6 && gid_v4mapped(ip->a)) {
		memmove(ip->a, ip->a + 12, 4);
		memset(ip->a + 4, 0, 12);
		ip->family = AF_INET;
	}
	return true;
}

/* The GID holding ip, as the kernel fills it (rdma_ip2gid). */
static void ip_gid(const struct ipaddr *ip, uint8_t g[16])
{
	static const uint8_t pre[12] = { [10] = 0xff, [11] = 0xff };

	if (ip->family == AF_INET6) {
		memcpy(g, ip->a, 16);
	} else {
		memcpy(g, pre, 12);
		memcpy(g + 12, ip->a, 4);
	}
}

int ix_rdma_addrs_read(struct ix_rdma_addr **out, size_t *n, struct ix_err *err)
{
	struct ifaddrs *ifa, *i;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (getifaddrs(&ifa) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot list interface addresses: %s",
			       strerror(errno));
	for (i = ifa; i; i = i->ifa_next)
		cap++;
	if (!(*out = calloc(cap + 1, sizeof(**out)))) {
		freeifaddrs(ifa);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	for (i = ifa; i; i = i->ifa_next) {
		struct ix_rdma_addr *a = &(*out)[*n];
		int fam = i->ifa_addr ? i->ifa_addr->sa_family : AF_UNSPEC;

		if ((fam != AF_INET && fam != AF_INET6) || !i->ifa_name ||
		    strlen(i->ifa_name) >= sizeof(a->ifname))
			continue;
		snprintf(a->ifname, sizeof(a->ifname), "%s", i->ifa_name);
		memcpy(&a->addr, i->ifa_addr,
		       fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
		(*n)++;
	}
	freeifaddrs(ifa);
	return 0;
}

/* ---- GID selection ---- */

/* "ens1f0.100 (over ens1f0)" when the device sits on a lower one (a VLAN,
 * a bond over the port), else just the name. */
static void ifdesc(const char *root, const char *ifname, char *buf, size_t len)
{
	char rel[128], path[PATH_MAX];
	struct dirent *e;
	DIR *dir;

	snprintf(buf, len, "%s", ifname);
	snprintf(rel, sizeof(rel), "/sys/class/net/%s", ifname);
	if (!safe_name(ifname) || !ix_sysfs_path(path, sizeof(path), root, rel) ||
	    !(dir = opendir(path)))
		return;
	while ((e = readdir(dir)))
		if (strncmp(e->d_name, "lower_", 6) == 0 && e->d_name[6]) {
			snprintf(buf, len, "%s (over %.31s)", ifname, e->d_name + 6);
			break;
		}
	closedir(dir);
}

static int pick_index(const struct port_table *t, unsigned idx, struct ix_err *err)
{
	if (idx >= (unsigned)t->size || !t->v[idx].present)
		return UNAVAIL("GID index %u is out of range: %s has GIDs 0..%d (`ibv_devinfo -v`)",
			       idx, t->name, t->size - 1);
	if (!t->v[idx].used)
		return UNAVAIL("GID index %u of %s is not in use: pick one from `ibv_devinfo -v`",
			       idx, t->name);
	return (int)idx;
}

int ix_rdma_gid_pref_check(const struct ix_rdma_gid_pref *p, struct ix_err *err)
{
	if (p->type[0] && strcmp(p->type, "v1") != 0 && strcmp(p->type, "v2") != 0)
		return USAGE("--gid-type must be v1 or v2");
	if (p->family && p->family != AF_INET && p->family != AF_INET6)
		return USAGE("--gid-family must be IPv4 or IPv6");
	if (p->by_index && p->index >= IX_RDMA_GID_TABLE)
		return USAGE("--gid-index %u is above 255", p->index);
	return 0;
}

/* Higher is better: v2 holding the local address, v2 of the family asked
 * for or the local address's (not link-local), any v2, v1 holding the
 * address, any v1. */
static int score(const struct gid_entry *g, const struct ipaddr *ip, const uint8_t want[16],
		 const struct ix_rdma_gid_pref *p)
{
	int fam = p->family ? p->family : ip ? ip->family : 0;
	bool exact = ip && memcmp(g->raw, want, 16) == 0;
	bool family = !gid_link_local(g->raw) && (!fam || (fam == AF_INET) == gid_v4mapped(g->raw));

	if (g->type == IX_RDMA_GID_ROCE_V2)
		return exact ? 60 : family ? 50 : 40;
	return exact ? 30 : 20;
}

static bool allowed(const struct gid_entry *g, const struct ix_rdma_gid_pref *p, const char *target)
{
	if (!g->used || (*target && strcmp(g->ndev, target) != 0))
		return false;
	if (p->type[0] && (g->type == IX_RDMA_GID_ROCE_V2) != (strcmp(p->type, "v2") == 0))
		return false;
	return !p->family || (p->family == AF_INET) == gid_v4mapped(g->raw);
}

/* The interface of the address list holding ip, or NULL. */
static const char *ifname_of(const struct ipaddr *ip, const struct ix_rdma_addr *addrs,
			     size_t naddrs)
{
	for (size_t i = 0; i < naddrs; i++) {
		struct ipaddr a;

		if (to_ip(&addrs[i].addr, &a) && a.family == ip->family &&
		    memcmp(a.a, ip->a, 16) == 0)
			return addrs[i].ifname;
	}
	return NULL;
}

const char *ix_rdma_addr_ifname(const struct sockaddr_storage *addr,
				const struct ix_rdma_addr *addrs, size_t naddrs)
{
	struct ipaddr ip;

	return addr && to_ip(addr, &ip) ? ifname_of(&ip, addrs, naddrs) : NULL;
}

/* The interface holding ip: from the address list, else the netdev of a
 * GID equal to it. */
static int find_target(const struct port_table *t, const struct ipaddr *ip, const uint8_t want[16],
		       const struct ix_rdma_addr *addrs, size_t naddrs, char *target,
		       const char *txt, struct ix_err *err)
{
	const char *name = ifname_of(ip, addrs, naddrs);

	if (name) {
		snprintf(target, IX_RDMA_IFNAME_MAX, "%s", name);
		return 0;
	}
	for (int i = 0; i < t->size; i++)
		if (t->v[i].used && t->v[i].ndev[0] && memcmp(t->v[i].raw, want, 16) == 0) {
			snprintf(target, IX_RDMA_IFNAME_MAX, "%s", t->v[i].ndev);
			return 0;
		}
	return UNAVAIL("no interface holds the local address %s: check `ip addr`", txt);
}

static int no_gid(const struct port_table *t, const struct ix_rdma_gid_pref *p, const char *target,
		  struct ix_err *err)
{
	char others[128] = "";
	size_t o = 0;

	for (int i = 0; i < t->size && o < sizeof(others) - 40; i++) {
		const char *nd = t->v[i].ndev;

		if (t->v[i].used && *nd && strcmp(nd, target) != 0 && !strstr(others, nd))
			o += (size_t)snprintf(others + o, sizeof(others) - o, "%s%.31s",
					      o ? ", " : " (its GIDs are on ", nd);
	}
	return UNAVAIL("%s has no RoCE %s%s GID%s%s%s%s: is the interface up with an IP address? "
		       "check `rdma link` and `ip addr`",
		       t->name, strcmp(p->type, "v1") == 0 ? "v1" : "v2",
		       p->family == AF_INET    ? " IPv4"
		       : p->family == AF_INET6 ? " IPv6"
					       : "",
		       *target ? " on " : "", target, others, o ? ")" : "");
}

static void fill(const struct port_table *t, int idx, struct ix_rdma_gid *out)
{
	const struct gid_entry *g = &t->v[idx];

	out->index = idx;
	memcpy(out->raw, g->raw, 16);
	ix_rdma_gid_format(g->raw, out->text);
	out->type = g->type;
	snprintf(out->netdev, sizeof(out->netdev), "%s", g->ndev);
	out->infiniband = t->infiniband;
}

static int pick_ib(const struct port_table *t, const struct ix_rdma_gid_pref *p,
		   struct ix_rdma_gid *out, struct ix_err *err)
{
	char path[PATH_MAX + 8];
	int idx = pick_index(t, p->by_index ? p->index : 0, err);
	long lid;

	if (idx < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/lid", t->dir);
	if (ix_sysfs_read_long(path, &lid) < 0 || lid <= 0 || lid > 0xbfff)
		return UNAVAIL("%s is InfiniBand but has no LID: is a subnet manager running? "
			       "check `ibstat`",
			       t->name);
	fill(t, idx, out);
	out->lid = (uint16_t)lid;
	snprintf(out->reason, sizeof(out->reason), "GID %d of InfiniBand port %s (LID %ld)%s", idx,
		 t->name, lid, p->by_index ? ", as asked" : "");
	return 0;
}

static int pick_roce(const char *root, const struct port_table *t,
		     const struct sockaddr_storage *local, const struct ix_rdma_addr *addrs,
		     size_t naddrs, const struct ix_rdma_gid_pref *p, struct ix_rdma_gid *out,
		     struct ix_err *err)
{
	char target[IX_RDMA_IFNAME_MAX] = "", where[96], txt[INET6_ADDRSTRLEN] = "";
	struct ipaddr ip, *ipp = NULL;
	uint8_t want[16] = { 0 };
	int best = -1, best_score = -1;

	if (local && to_ip(local, &ip)) {
		ipp = &ip;
		ip_gid(&ip, want);
		inet_ntop(ip.family, ip.a, txt, sizeof(txt));
		if (find_target(t, &ip, want, addrs, naddrs, target, txt, err) < 0)
			return -1;
	}
	for (int i = 0; i < t->size; i++)
		if (allowed(&t->v[i], p, target) && score(&t->v[i], ipp, want, p) > best_score) {
			best = i;
			best_score = score(&t->v[i], ipp, want, p);
		}
	if (best < 0)
		return no_gid(t, p, target, err);
	fill(t, best, out);
	ifdesc(root, out->netdev[0] ? out->netdev : "?", where, sizeof(where));
	if (best_score == 60)
		snprintf(out->reason, sizeof(out->reason),
			 "RoCE v2 GID %d holds %s, the address of %s that routes to the peer", best,
			 txt, where);
	else if (best_score >= 40)
		snprintf(out->reason, sizeof(out->reason), "RoCE v2 GID %d on %s (%s%s)", best,
			 where, ipp ? "no RoCE v2 GID holds " : "no local address to match", txt);
	else
		snprintf(out->reason, sizeof(out->reason),
			 "RoCE v1 GID %d on %s, %s (RoCE v1 does not cross IP routers)", best,
			 where, p->type[0] ? "as asked" : "no RoCE v2 GID there");
	return 0;
}

int ix_rdma_pick_gid(const char *root, const char *dev, unsigned port,
		     const struct sockaddr_storage *local, const struct ix_rdma_addr *addrs,
		     size_t naddrs, const struct ix_rdma_gid_pref *pref, struct ix_rdma_gid *out,
		     struct ix_err *err)
{
	static const struct ix_rdma_gid_pref none;
	const struct ix_rdma_gid_pref *p = pref ? pref : &none;
	struct port_table *t = calloc(1, sizeof(*t));
	int rc = -1, idx;

	memset(out, 0, sizeof(*out));
	if (!t)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (ix_rdma_gid_pref_check(p, err) < 0 || read_table(root, dev, port, t, err) < 0) {
		rc = -1;
	} else if (t->infiniband) {
		rc = pick_ib(t, p, out, err);
	} else if (!p->by_index) {
		rc = pick_roce(root, t, local, addrs, naddrs, p, out, err);
	} else if ((idx = pick_index(t, p->index, err)) >= 0) {
		fill(t, idx, out);
		snprintf(out->reason, sizeof(out->reason), "GID %d as asked (RoCE %s on %s)", idx,
			 out->type == IX_RDMA_GID_ROCE_V2 ? "v2" : "v1",
			 out->netdev[0] ? out->netdev : "no netdev");
		rc = 0;
	}
	free(t);
	return rc;
}

/* ---- MTU ---- */

/* What iboe_get_mtu() (include/rdma/ib_addr.h) takes off a netdev MTU, in
 * the terms of include/rdma/ib_pack.h: IB_GRH_BYTES 40 + IB_UDP_BYTES 8 +
 * IB_BTH_BYTES 12 + IB_EXT_XRC_BYTES 4 + IB_EXT_ATOMICETH_BYTES 28 +
 * IB_ICRC_BYTES 4. */
#define ROCE_HEADERS (40 + 8 + 12 + 4 + 28 + 4)

int ix_rdma_mtu_bytes(int mtu)
{
	return mtu >= IX_RDMA_MTU_256 && mtu <= IX_RDMA_MTU_4096 ? 128 << mtu : -1;
}

int ix_rdma_mtu_from_bytes(uint32_t bytes)
{
	for (int m = IX_RDMA_MTU_256; m <= IX_RDMA_MTU_4096; m++)
		if ((uint32_t)ix_rdma_mtu_bytes(m) == bytes)
			return m;
	return -1;
}

int ix_rdma_mtu_from_netdev(uint32_t netdev_mtu)
{
	for (int m = IX_RDMA_MTU_4096; m >= IX_RDMA_MTU_256; m--)
		if (netdev_mtu >= (uint32_t)ix_rdma_mtu_bytes(m) + ROCE_HEADERS)
			return m;
	return 0;
}

int ix_rdma_path_mtu(int local_active, int peer_active, int cap)
{
	int m = local_active < peer_active ? local_active : peer_active;

	if (ix_rdma_mtu_bytes(local_active) < 0 || ix_rdma_mtu_bytes(peer_active) < 0 ||
	    (cap && ix_rdma_mtu_bytes(cap) < 0))
		return -1;
	return cap && cap < m ? cap : m;
}

/* ---- NUMA ---- */

int ix_rdma_numa_of(const char *root, const char *dev)
{
	char rel[160], path[PATH_MAX];
	long node;

	if (!safe_name(dev))
		return -1;
	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/device/numa_node", dev);
	if (!ix_sysfs_path(path, sizeof(path), root, rel) || ix_sysfs_read_long(path, &node) < 0 ||
	    node < 0 || node >= 1024)
		return -1;
	return (int)node;
}

static int cpu_number(const char **s, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	*out = strtoul(*s, &end, 10);
	*s = end;
	return errno || *out >= CPU_SETSIZE ? -1 : 0;
}

int ix_rdma_parse_cpulist(const char *s, cpu_set_t *out)
{
	CPU_ZERO(out);
	if (!s)
		return -1;
	while (*s) {
		unsigned long lo, hi;

		if (cpu_number(&s, &lo) < 0)
			return -1;
		hi = lo;
		if (*s == '-') {
			s++;
			if (cpu_number(&s, &hi) < 0 || hi < lo)
				return -1;
		}
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET(c, out);
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -1;
	}
	return CPU_COUNT(out);
}

int ix_rdma_cpus_of_node(const char *root, int node, cpu_set_t *out, struct ix_err *err)
{
	char rel[96], path[PATH_MAX], buf[8192];
	int n;

	CPU_ZERO(out);
	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/cpulist", node);
	if (node < 0 || node >= 1024 || !ix_sysfs_path(path, sizeof(path), root, rel))
		return UNAVAIL("there is no NUMA node %d", node);
	if (ix_sysfs_read(path, buf, sizeof(buf)) < 0)
		return errno == ENODATA
			       ? 0 /* a node with memory only */
			       : UNAVAIL("there is no NUMA node %d here: check `lscpu`", node);
	if (strlen(buf) >= sizeof(buf) - 1 || (n = ix_rdma_parse_cpulist(buf, out)) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "the CPU list of NUMA node %d is malformed",
			       node);
	return n;
}

int ix_rdma_placement(const char *root, const char *dev, enum ix_rdma_numa_policy policy, int node,
		      struct ix_rdma_placement *out, struct ix_err *err)
{
	int dnode = ix_rdma_numa_of(root, dev), n;
	const char *d = safe_name(dev) ? dev : "?";
	char why[96] = "as asked";

	memset(out, 0, sizeof(*out));
	out->node = -1;
	CPU_ZERO(&out->cpus);
	if (policy == IX_RDMA_NUMA_NONE || (policy != IX_RDMA_NUMA_NODE && dnode < 0)) {
		snprintf(out->reason, sizeof(out->reason), "no NUMA placement (%s%s)",
			 policy == IX_RDMA_NUMA_NONE ? "--numa none" : d,
			 policy == IX_RDMA_NUMA_NONE ? "" : "'s NUMA node is unknown");
		return 0;
	}
	if (policy != IX_RDMA_NUMA_NODE)
		snprintf(why, sizeof(why), "%s's node", d);
	else if (dnode >= 0)
		snprintf(why, sizeof(why), "as asked; %s is on node %d", d, dnode);
	node = policy == IX_RDMA_NUMA_NODE ? node : dnode;
	if ((n = ix_rdma_cpus_of_node(root, node, &out->cpus, err)) < 0)
		return -1;
	out->node = node;
	out->ncpus = n;
	snprintf(out->reason, sizeof(out->reason), "buffers %son NUMA node %d (%s%s)",
		 n ? "and CPUs " : "", node, why, n ? "" : "; it has no CPUs, threads not pinned");
	return 0;
}
