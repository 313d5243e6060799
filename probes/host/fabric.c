/* A host's fabric counters, read from sysfs, SIOCETHTOOL and rtnetlink. */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/host/fabric.h"
#include "probes/host/sysfs.h"

#define ETHTOOL_MAX_STATS 16384 /* more than any driver reports */
#define NL_BUF            32768 /* one read of an rtnetlink answer */

static const char *rootp(const char *root)
{
	return root ? root : "";
}

static bool live(const char *root)
{
	return !root || !*root;
}

/* src into dst when it fits whole. */
static bool copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		return false;
	memcpy(dst, src, n + 1);
	return true;
}

/* The first line of a file (sysfs.h), as a condition. */
static bool read_line(const char *path, char *buf, size_t len)
{
	return ix_sysfs_read(path, buf, len) >= 0;
}

static bool read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	unsigned long long x;

	if (!read_line(path, buf, sizeof(buf)))
		return false;
	errno = 0;
	x = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || buf[0] == '-')
		return false;
	*v = x;
	return true;
}

/* Every counter file of dir as source src; false when dir is absent. */
static bool read_dir(const char *dir, enum ix_ctr_source src, struct ix_ctr_set *out)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while ((e = readdir(d))) {
		uint64_t v;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= IX_CTR_NAME_MAX)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path) ||
		    !read_u64(path, &v))
			continue;
		ix_ctr_set_add(out, src, e->d_name, v);
	}
	closedir(d);
	out->sources |= 1u << src;
	out->valid = true;
	return true;
}

int ix_fabric_parse_ethtool_text(const char *text, struct ix_ctr_set *out)
{
	int n = 0;

	for (const char *p = text; p && *p;) {
		const char *eol = strchr(p, '\n'), *colon;
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[256], *name, *end;
		unsigned long long v;

		if (len < sizeof(line)) {
			memcpy(line, p, len);
			line[len] = '\0';
			colon = strrchr(line, ':');
			name = line + strspn(line, " \t");
			if (colon && colon > name && colon[1] == ' ') {
				errno = 0;
				v = strtoull(colon + 1, &end, 10);
				line[colon - line] = '\0';
				if (!errno && end != colon + 1 && *end == '\0' && colon[2] != '-' &&
				    strlen(name) < IX_CTR_NAME_MAX &&
				    ix_ctr_set_add(out, IX_SRC_ETHTOOL, name, v) == 0)
					n++;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	if (n > 0) {
		out->sources |= 1u << IX_SRC_ETHTOOL;
		out->valid = true;
	}
	return n;
}

static void ethtool_fixture(const char *root, const char *iface, struct ix_ctr_set *out)
{
	char path[PATH_MAX], *text;
	FILE *f;
	long size;

	snprintf(path, sizeof(path), "%s/ethtool/%s", root, iface);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && size < (1L << 22) &&
	    fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1))) {
		size_t got = fread(text, 1, (size_t)size, f);

		text[got] = '\0';
		ix_fabric_parse_ethtool_text(text, out);
		free(text);
	}
	fclose(f);
}

static int ethtool_ioctl(int fd, const char *iface, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (!copy(ifr.ifr_name, sizeof(ifr.ifr_name), iface))
		return -1;
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

/* ETHTOOL_GSSET_INFO for the count, then the names and the values. */
static void ethtool_live(const char *iface, struct ix_ctr_set *out)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} sset = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_STATS } };
	struct ethtool_gstrings *names = NULL;
	struct ethtool_stats *stats = NULL;
	uint32_t n;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	if (ethtool_ioctl(fd, iface, &sset) < 0 || !(sset.hdr.sset_mask & (1ull << ETH_SS_STATS)))
		goto out;
	n = sset.len;
	if (n == 0 || n > ETHTOOL_MAX_STATS)
		goto out;
	names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	stats = calloc(1, sizeof(*stats) + (size_t)n * sizeof(uint64_t));
	if (!names || !stats)
		goto out;
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	stats->cmd = ETHTOOL_GSTATS;
	stats->n_stats = n;
	if (ethtool_ioctl(fd, iface, names) < 0 || ethtool_ioctl(fd, iface, stats) < 0)
		goto out;
	if (names->len < n)
		n = names->len;
	if (stats->n_stats < n)
		n = stats->n_stats;
	for (uint32_t i = 0; i < n; i++) {
		char name[ETH_GSTRING_LEN + 1];

		memcpy(name, names->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		if (name[0])
			ix_ctr_set_add(out, IX_SRC_ETHTOOL, name, stats->data[i]);
	}
	out->sources |= 1u << IX_SRC_ETHTOOL;
	out->valid = true;
out:
	free(names);
	free(stats);
	close(fd);
}

/* The attributes of a netlink message after its family header. */
static struct rtattr *attr_find(struct rtattr *a, int len, unsigned short type)
{
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == type)
			return a;
	return NULL;
}

static void qdisc_add(struct tcmsg *tc, int len, struct ix_ctr_set *out)
{
	struct rtattr *kind = attr_find(TCA_RTA(tc), len, TCA_KIND);
	struct rtattr *st2 = attr_find(TCA_RTA(tc), len, TCA_STATS2), *q;
	struct gnet_stats_queue qs;
	char k[IFNAMSIZ], name[IX_CTR_NAME_MAX];

	if (!kind || !st2 || RTA_PAYLOAD(kind) == 0)
		return;
	snprintf(k, sizeof(k), "%.*s", (int)RTA_PAYLOAD(kind), (const char *)RTA_DATA(kind));
	q = attr_find(RTA_DATA(st2), (int)RTA_PAYLOAD(st2), TCA_STATS_QUEUE);
	if (!q || RTA_PAYLOAD(q) < sizeof(qs))
		return;
	memcpy(&qs, RTA_DATA(q), sizeof(qs));
	snprintf(name, sizeof(name), "%s_drops", k);
	ix_ctr_set_add(out, IX_SRC_QDISC, name, qs.drops);
	snprintf(name, sizeof(name), "%s_overlimits", k);
	ix_ctr_set_add(out, IX_SRC_QDISC, name, qs.overlimits);
	snprintf(name, sizeof(name), "%s_requeues", k);
	ix_ctr_set_add(out, IX_SRC_QDISC, name, qs.requeues);
}

/* The messages of one read of an rtnetlink answer (len bytes at buf, which
 * is aligned for a struct nlmsghdr), each to each(); a dump ends with
 * NLMSG_DONE, a single answer with its first message. Returns whether
 * the answer is over. */
static bool nl_walk(char *buf, int len, bool dump, void (*each)(struct nlmsghdr *nh, void *arg),
		    void *arg)
{
	struct nlmsghdr *nh;
	bool done = false;

	for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
		if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR)
			return true;
		each(nh, arg);
		done = done || !dump;
	}
	return done;
}

/* One rtnetlink request: its answer, read by nl_walk. */
static void nl_talk(struct nlmsghdr *req, bool dump, void (*each)(struct nlmsghdr *nh, void *arg),
		    void *arg)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { 1, 0 };
	char *buf = malloc(NL_BUF);
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	bool done = false;

	if (fd < 0 || !buf)
		goto out;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto out;
	while (!done) {
		ssize_t got = recv(fd, buf, NL_BUF, 0);

		if (got <= 0)
			break;
		done = nl_walk(buf, (int)got, dump, each, arg);
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
}

struct qdisc_req {
	unsigned ifindex;
	struct ix_ctr_set *out;
};

static void qdisc_each(struct nlmsghdr *nh, void *arg)
{
	struct qdisc_req *q = arg;
	struct tcmsg *tc = NLMSG_DATA(nh);

	if (nh->nlmsg_type != RTM_NEWQDISC || nh->nlmsg_len < NLMSG_LENGTH(sizeof(*tc)) ||
	    tc->tcm_ifindex != (int)q->ifindex || tc->tcm_parent != TC_H_ROOT)
		return;
	qdisc_add(tc, (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc))), q->out);
}

/* The root qdisc of ifindex, from an RTM_GETQDISC dump. */
static void qdisc_live(unsigned ifindex, struct ix_ctr_set *out)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
			  .nlmsg_type = RTM_GETQDISC,
			  .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			  .nlmsg_seq = 1 },
		  .tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = (int)ifindex } };
	struct qdisc_req q = { ifindex, out };

	nl_talk(&req.nh, true, qdisc_each, &q);
	out->sources |= 1u << IX_SRC_QDISC;
}

/* The kernel's netdev statistics in one RTM_GETLINK answer (IFLA_STATS64),
 * named as /sys/class/net/IF/statistics names them: reading those files one
 * by one costs twenty times more. */
#define STAT(f)                                           \
	{                                                 \
#f, offsetof(struct rtnl_link_stats64, f) \
	}
static const struct {
	const char *name;
	size_t off;
} link_stats[] = {
	STAT(rx_packets),       STAT(tx_packets),          STAT(rx_bytes),
	STAT(tx_bytes),         STAT(rx_errors),           STAT(tx_errors),
	STAT(rx_dropped),       STAT(tx_dropped),          STAT(multicast),
	STAT(collisions),       STAT(rx_length_errors),    STAT(rx_over_errors),
	STAT(rx_crc_errors),    STAT(rx_frame_errors),     STAT(rx_fifo_errors),
	STAT(rx_missed_errors), STAT(tx_aborted_errors),   STAT(tx_carrier_errors),
	STAT(tx_fifo_errors),   STAT(tx_heartbeat_errors), STAT(tx_window_errors),
	STAT(rx_compressed),    STAT(tx_compressed),       STAT(rx_nohandler),
};

static void link_each(struct nlmsghdr *nh, void *arg)
{
	struct qdisc_req *q = arg;
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	struct rtattr *st;
	size_t have;

	if (nh->nlmsg_type != RTM_NEWLINK || nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
	    ifi->ifi_index != (int)q->ifindex)
		return;
	st = attr_find(IFLA_RTA(ifi), (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi))),
		       IFLA_STATS64);
	if (!st)
		return;
	have = RTA_PAYLOAD(st);
	for (size_t i = 0; i < sizeof(link_stats) / sizeof(link_stats[0]); i++) {
		uint64_t v;

		if (link_stats[i].off + sizeof(v) > have)
			continue;
		memcpy(&v, (const char *)RTA_DATA(st) + link_stats[i].off, sizeof(v));
		ix_ctr_set_add(q->out, IX_SRC_NETDEV, link_stats[i].name, v);
	}
}

static void netdev_live(unsigned ifindex, struct ix_ctr_set *out)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
			  .nlmsg_type = RTM_GETLINK,
			  .nlmsg_flags = NLM_F_REQUEST,
			  .nlmsg_seq = 1 },
		  .ifi = { .ifi_family = AF_UNSPEC, .ifi_index = (int)ifindex } };
	struct qdisc_req q = { ifindex, out };

	nl_talk(&req.nh, false, link_each, &q);
}

bool ix_fabric_parse_rtnl(const void *buf, size_t len, bool qdisc, unsigned ifindex,
			  struct ix_ctr_set *out)
{
	struct qdisc_req q = { ifindex, out };
	char *copy;
	bool done;

	if (len > NL_BUF)
		len = NL_BUF;
	/* malloc's alignment suits the headers; buf's need not. */
	copy = malloc(len ? len : 1);
	if (!copy)
		return true;
	memcpy(copy, buf, len);
	done = nl_walk(copy, (int)len, qdisc, qdisc ? qdisc_each : link_each, &q);
	free(copy);
	return done;
}

static bool is_dir(const char *path)
{
	DIR *d = opendir(path);

	if (d)
		closedir(d);
	return d != NULL;
}

/* The RDMA port whose GID 0 sits on iface (RoCE), or the port of an IPoIB
 * device. */
static bool rdma_of_iface(const char *root, const char *iface, char *dev, size_t len,
			  unsigned *port)
{
	char dir[PATH_MAX], path[PATH_MAX + 512], nd[64];
	struct dirent *e, *pe;
	bool found = false;
	DIR *d, *pd;

	snprintf(dir, sizeof(dir), "%s/sys/class/net/%s/device/infiniband", rootp(root), iface);
	d = opendir(dir);
	if (d) {
		uint64_t dev_port = 0;

		while (!found && (e = readdir(d)))
			if (e->d_name[0] != '.')
				found = copy(dev, len, e->d_name);
		closedir(d);
		snprintf(path, sizeof(path), "%s/sys/class/net/%s/dev_port", rootp(root), iface);
		read_u64(path, &dev_port);
		*port = (unsigned)dev_port + 1;
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/%u/link_layer",
			 rootp(root), dev, *port);
		if (found && read_line(path, nd, sizeof(nd)) && strcmp(nd, "InfiniBand") == 0)
			return true;
		found = false;
	}
	snprintf(dir, sizeof(dir), "%s/sys/class/infiniband", rootp(root));
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/ports", dir, e->d_name);
		pd = opendir(path);
		while (pd && !found && (pe = readdir(pd))) {
			char gp[2 * PATH_MAX];

			if (pe->d_name[0] == '.')
				continue;
			if ((size_t)snprintf(gp, sizeof(gp), "%s/%s/gid_attrs/ndevs/0", path,
					     pe->d_name) < sizeof(gp) &&
			    read_line(gp, nd, sizeof(nd)) && strcmp(nd, iface) == 0 &&
			    copy(dev, len, e->d_name)) {
				*port = (unsigned)strtoul(pe->d_name, NULL, 10);
				found = true;
			}
		}
		if (pd)
			closedir(pd);
	}
	closedir(d);
	return found;
}

/* The first port of dev, and the network device of its GID 0. */
static void port_of_dev(const char *root, const char *dev, unsigned *port, char *iface, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], nd[64];
	struct dirent *e;
	DIR *d;

	if (*port == 0) {
		snprintf(dir, sizeof(dir), "%s/sys/class/infiniband/%s/ports", rootp(root), dev);
		d = opendir(dir);
		while (d && (e = readdir(d))) {
			unsigned p = (unsigned)strtoul(e->d_name, NULL, 10);

			if (p > 0 && (*port == 0 || p < *port))
				*port = p;
		}
		if (d)
			closedir(d);
	}
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
		 rootp(root), dev, *port);
	if (!iface[0] && read_line(path, nd, sizeof(nd)) && strlen(nd) < len)
		snprintf(iface, len, "%s", nd);
}

/* The sources a network device and an RDMA port give. */
#define NET_SOURCES  ((1u << IX_SRC_NETDEV) | (1u << IX_SRC_ETHTOOL) | (1u << IX_SRC_QDISC))
#define RDMA_SOURCES ((1u << IX_SRC_HW) | (1u << IX_SRC_PORT))

void ix_fabric_snapshot(const char *root, const struct ix_fabric_where *w, struct ix_ctr_set *out)
{
	char dir[PATH_MAX], dev[64] = "";
	unsigned port = w->port;
	uint32_t want = w->sources ? w->sources : ~0u;

	ix_ctr_set_init(out);
	if (w->iface && *w->iface)
		snprintf(out->iface, sizeof(out->iface), "%s", w->iface);
	if (w->rdma_dev && *w->rdma_dev)
		snprintf(dev, sizeof(dev), "%s", w->rdma_dev);
	else if (out->iface[0] && (want & RDMA_SOURCES))
		rdma_of_iface(root, out->iface, dev, sizeof(dev), &port);
	if (dev[0]) {
		port_of_dev(root, dev, &port, out->iface, sizeof(out->iface));
		snprintf(out->rdma, sizeof(out->rdma), "%s/%u", dev, port);
	}
	if (out->iface[0] && (want & NET_SOURCES)) {
		unsigned idx = live(root) ? if_nametoindex(out->iface) : 0;
		size_t before = out->n;

		snprintf(dir, sizeof(dir), "%s/sys/class/net/%s/statistics", rootp(root),
			 out->iface);
		if ((want & (1u << IX_SRC_NETDEV)) && idx)
			netdev_live(idx, out);
		if ((want & (1u << IX_SRC_NETDEV)) && out->n == before)
			read_dir(dir, IX_SRC_NETDEV, out); /* a fixture, or no answer */
		if (live(root)) {
			if (want & (1u << IX_SRC_ETHTOOL))
				ethtool_live(out->iface, out);
			if (idx && (want & (1u << IX_SRC_QDISC)))
				qdisc_live(idx, out);
		} else if (want & (1u << IX_SRC_ETHTOOL)) {
			ethtool_fixture(root, out->iface, out);
		}
	}
	if (dev[0] && (want & RDMA_SOURCES)) {
		snprintf(dir, sizeof(dir), "%s/sys/class/infiniband/%s/ports/%u/hw_counters",
			 rootp(root), dev, port);
		if (want & (1u << IX_SRC_HW))
			read_dir(dir, IX_SRC_HW, out);
		snprintf(dir, sizeof(dir), "%s/sys/class/infiniband/%s/ports/%u/counters",
			 rootp(root), dev, port);
		if (want & (1u << IX_SRC_PORT))
			read_dir(dir, IX_SRC_PORT, out);
		snprintf(dir, sizeof(dir), "%s/sys/class/infiniband/%s/ports/%u/counters_ext",
			 rootp(root), dev, port);
		if ((want & (1u << IX_SRC_PORT)) && is_dir(dir))
			read_dir(dir, IX_SRC_PORT, out);
	}
}

static bool same_addr(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	if (a->sa_family == AF_INET && b->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6 && b->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr,
			      sizeof(struct in6_addr)) == 0;
	return false;
}

void ix_fabric_snapshot_socket(int fd, struct ix_ctr_set *out)
{
	struct ix_fabric_where w = { 0 };
	char iface[32];

	if (ix_fabric_iface_of_socket(fd, iface, sizeof(iface)) == 0)
		w.iface = iface;
	ix_fabric_snapshot(NULL, &w, out);
}

int ix_fabric_iface_of_socket(int fd, char *iface, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct ifaddrs *ifa, *i;
	int rc = -1;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return -1;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) { /* a dual-stack socket */
			struct sockaddr_in s4 = { .sin_family = AF_INET };

			memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
			memcpy(&ss, &s4, sizeof(s4));
		}
	}
	if ((ss.ss_family == AF_INET &&
	     (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127) ||
	    (ss.ss_family == AF_INET6 &&
	     IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr))) {
		snprintf(iface, len, "lo");
		return 0;
	}
	if (getifaddrs(&ifa) < 0)
		return -1;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && same_addr(i->ifa_addr, &ss) && strlen(i->ifa_name) < len) {
			snprintf(iface, len, "%s", i->ifa_name);
			rc = 0;
			break;
		}
	freeifaddrs(ifa);
	return rc;
}
