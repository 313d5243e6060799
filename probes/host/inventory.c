#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probes/core/clock.h"
#include "probes/core/link.h"
#include "probes/host/ibnbr.h"
#include "probes/host/inventory.h"
#include "probes/host/lldp.h"
#include "probes/host/links.h"
#include "probes/host/pci.h"

/* Values of /sys/class/net/IF/type (ARPHRD_* of <linux/if_arp.h>). */
#define IX_ARPHRD_INFINIBAND 32
#define IX_ARPHRD_LOOPBACK   772

/* First line of the file at full, trimmed; "" when unreadable. */
static void read_full(const char *full, char *buf, size_t len)
{
	FILE *f;

	buf[0] = '\0';
	f = fopen(full, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* First line of a file under sysroot, trimmed; "" when unreadable. */
static void read_line(const char *sysroot, const char *path, char *buf, size_t len)
{
	char full[512];

	buf[0] = '\0';
	if ((size_t)snprintf(full, sizeof(full), "%s%s", sysroot, path) < sizeof(full))
		read_full(full, buf, len);
}

/* The value after "key" in a "key: value" or KEY="value" file. */
static void read_field(const char *sysroot, const char *path, const char *key, char *buf,
		       size_t len)
{
	char full[512], line[512];
	size_t kl = strlen(key);
	FILE *f;

	buf[0] = '\0';
	snprintf(full, sizeof(full), "%s%s", sysroot, path);
	f = fopen(full, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v;

		if (strncmp(line, key, kl) != 0)
			continue;
		v = line + kl;
		v += strspn(v, " \t:=\"");
		v[strcspn(v, "\"\n")] = '\0';
		snprintf(buf, len, "%s", v);
		break;
	}
	fclose(f);
}

static double iface_speed(const char *sysroot, const char *name)
{
	char path[300], buf[64];
	long mbps;

	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", name);
	read_line(sysroot, path, buf, sizeof(buf));
	mbps = strtol(buf, NULL, 10);
	return mbps > 0 ? (double)mbps * 1e6 : 0;
}

json_t *ix_inventory(const char *sysroot)
{
	char host[256] = "", buf[256], os[256], cpu[256], mem[64];
	struct utsname u;
	json_t *ifs = json_array();
	DIR *d;
	char path[512];

	gethostname(host, sizeof(host) - 1);
	if (uname(&u) == 0)
		snprintf(buf, sizeof(buf), "%s %s %s", u.sysname, u.release, u.machine);
	else
		buf[0] = '\0';
	read_field(sysroot, "/etc/os-release", "PRETTY_NAME", os, sizeof(os));
	read_field(sysroot, "/proc/cpuinfo", "model name", cpu, sizeof(cpu));
	read_field(sysroot, "/proc/meminfo", "MemTotal", mem, sizeof(mem));
	snprintf(path, sizeof(path), "%s/sys/class/net", sysroot);
	d = opendir(path);
	while (d) {
		struct dirent *e = readdir(d);
		char p[300], mtu[32], state[32], why[128];
		struct ix_neighbor nb;
		json_t *o;
		double sp;

		if (!e)
			break;
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/sys/class/net/%s/mtu", e->d_name);
		read_line(sysroot, p, mtu, sizeof(mtu));
		snprintf(p, sizeof(p), "/sys/class/net/%s/operstate", e->d_name);
		read_line(sysroot, p, state, sizeof(state));
		sp = iface_speed(sysroot, e->d_name);
		o = json_pack("{s:s,s:I,s:o,s:s}", "name", e->d_name, "mtu",
			      (json_int_t)strtol(mtu, NULL, 10), "speed_bps",
			      sp > 0 ? json_real(sp) : json_null(), "state",
			      state[0] ? state : "unknown");
		/* The switch port it is cabled to, as the live system's lldpd says. */
		if ((!sysroot || !sysroot[0]) &&
		    ix_lldp_neighbor(e->d_name, &nb, why, sizeof(why)) == 0)
			json_object_set_new(o, "neighbor", ix_neighbor_json(&nb));
		json_array_append_new(ifs, o);
	}
	if (d)
		closedir(d);
	return json_pack("{s:s,s:s,s:s,s:I,s:s,s:I,s:o}", "hostname", host, "kernel", buf, "os",
			 os[0] ? os : "unknown", "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
			 "cpu_model", cpu[0] ? cpu : "unknown", "memory_bytes",
			 (json_int_t)strtoll(mem, NULL, 10) * 1024, "interfaces", ifs);
}

/* A non-negative decimal integer from /sys/class/net/IF/attr; -1 when
 * there is none. */
static long read_long(const char *sysroot, const char *iface, const char *attr)
{
	char path[300], buf[64], *end;
	long v;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", iface, attr);
	read_line(sysroot, path, buf, sizeof(buf));
	v = strtol(buf, &end, 10);
	return end == buf || v < 0 ? -1 : v;
}

/* The port number an entry of an InfiniBand device's ports/ directory
 * names; 0 when it names none. */
static long port_number(const char *name)
{
	char *end;
	long n = strtol(name, &end, 10);

	return end != name && *end == '\0' && n > 0 && n < 256 ? n : 0;
}

/* The InfiniBand port network device iface belongs to, through
 * /sys/class/net/IF/device/infiniband/DEV/ports/N: the port whose GID 0
 * names iface (RoCE), else port dev_port + 1 (IPoIB on a multi-port
 * adapter), else the lowest-numbered port. Its rate (0 when unreadable)
 * and whether its link layer is InfiniBand; false when there is none. */
static bool ib_port_rate(const char *sysroot, const char *iface, double *bps, bool *ib_layer,
			 char *dev, size_t devlen, long *port)
{
	char dir[512], best[1024] = "", path[1100], buf[128];
	long want = read_long(sysroot, iface, "dev_port");
	int best_score = 0;
	long best_port = 0;
	struct dirent *e;
	DIR *d;

	*bps = 0;
	*ib_layer = false;
	snprintf(dir, sizeof(dir), "%s/sys/class/net/%s/device/infiniband", sysroot, iface);
	d = opendir(dir);
	if (!d)
		return false;
	while ((e = readdir(d))) {
		char ports[800];
		struct dirent *pe;
		DIR *pd;

		if (e->d_name[0] == '.' || (size_t)snprintf(ports, sizeof(ports), "%s/%s/ports",
							    dir, e->d_name) >= sizeof(ports))
			continue;
		pd = opendir(ports);
		while (pd && (pe = readdir(pd))) {
			long n = port_number(pe->d_name);
			int score = 1;

			if (!n)
				continue;
			snprintf(path, sizeof(path), "%s/%ld/gid_attrs/ndevs/0", ports, n);
			read_full(path, buf, sizeof(buf));
			if (strcmp(buf, iface) == 0)
				score = 3;
			else if (want >= 0 && n == want + 1)
				score = 2;
			if (score > best_score || (score == best_score && n < best_port)) {
				best_score = score;
				best_port = n;
				snprintf(best, sizeof(best), "%s/%ld", ports, n);
			}
		}
		if (pd)
			closedir(pd);
	}
	closedir(d);
	if (!best_score)
		return false;
	if (dev) { /* best is DIR/DEV/ports/N */
		const char *d0 = best + strlen(dir) + 1;

		snprintf(dev, devlen, "%.*s", (int)strcspn(d0, "/"), d0);
		*port = best_port;
	}
	snprintf(path, sizeof(path), "%s/rate", best);
	read_full(path, buf, sizeof(buf));
	if (ix_links_parse_rate(buf, bps) < 0 || *bps <= 0)
		*bps = 0;
	snprintf(path, sizeof(path), "%s/link_layer", best);
	read_full(path, buf, sizeof(buf));
	/* No link_layer attribute: an InfiniBand-only device. */
	*ib_layer = buf[0] == '\0' || strcmp(buf, "InfiniBand") == 0;
	return true;
}

static int link_limit_set(struct ix_link_limit *out, double bps, const char *source)
{
	out->bps = bps > 0 ? bps : 0;
	snprintf(out->source, sizeof(out->source), "%s", bps > 0 ? source : "unknown");
	return bps > 0 ? 0 : -1;
}

static void fill_pcie(const struct ix_pci_dev *d, struct ix_link_pcie *l)
{
	l->known = true;
	snprintf(l->bdf, sizeof(l->bdf), "%s", d->bdf);
	l->gen = d->link.gen;
	l->width = d->link.width;
	l->expected_gen = d->link.expected_gen;
	l->expected_width = d->link.expected_width;
	l->bps = d->link.bps;
	l->downtrained = d->link.downtrained;
}

static bool has_link(const struct ix_pci_dev *d)
{
	return d->link.present && d->link.bps > 0;
}

/* The PCIe link of the function iface belongs to, and the ceiling. */
static void pcie_of(const char *iface, const char *sysroot, struct ix_link_limit *out)
{
	struct ix_err err = { 0 };
	struct ix_pci pci;

	if (ix_pci_read(sysroot, &pci, &err) == 0) {
		for (size_t i = 0; i < pci.n && !out->pcie.known; i++)
			for (size_t k = 0; k < pci.v[i].nnetdevs && !out->pcie.known; k++)
				if (strcmp(pci.v[i].netdevs[k], iface) == 0 && has_link(&pci.v[i]))
					fill_pcie(&pci.v[i], &out->pcie);
		ix_pci_free(&pci);
	}
	ix_link_settle(out);
}

/* The PCI tree behind RDMA tests' ceilings, read at most once a minute
 * (the agents' link cache does the same for sockets): each RDMA test's
 * setup asks, and a walk takes about 170 ms on a large host. One tree, of
 * the last root asked for; lookups hold the lock. */
#define PCI_TTL_NS (60 * IX_NSEC_PER_SEC)
static pthread_mutex_t pci_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool valid;
	char root[512];
	int64_t at;
	struct ix_pci pci;
} pci_cache;

/* Locks; NULL when the tree cannot be read (still locked). */
static const struct ix_pci *pci_lock(const char *sysroot)
{
	int64_t now = ix_now_ns();
	struct ix_err err = { 0 };

	pthread_mutex_lock(&pci_mu);
	if (pci_cache.valid && now - pci_cache.at < PCI_TTL_NS &&
	    strcmp(pci_cache.root, sysroot) == 0)
		return &pci_cache.pci;
	if (pci_cache.valid)
		ix_pci_free(&pci_cache.pci);
	pci_cache.valid = ix_pci_read(sysroot, &pci_cache.pci, &err) == 0;
	snprintf(pci_cache.root, sizeof(pci_cache.root), "%s", sysroot);
	pci_cache.at = now;
	return pci_cache.valid ? &pci_cache.pci : NULL;
}

int ix_link_of_rdma(const char *sysroot, const char *rdma_dev, const char *netdev, double rate_bps,
		    const char *gpu_bdf, struct ix_link_limit *out)
{
	char path[512], target[512], *bdf = NULL;
	ssize_t n = -1;
	int k;

	memset(out, 0, sizeof(*out));
	snprintf(out->iface, sizeof(out->iface), "%s", netdev && netdev[0] ? netdev : rdma_dev);
	link_limit_set(out, rate_bps, "infiniband rate");
	/* The RDMA device's PCI function: the basename of its device link. */
	if (!strchr(rdma_dev, '/') && strcmp(rdma_dev, "..") != 0) {
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/device", sysroot,
			 rdma_dev);
		n = readlink(path, target, sizeof(target) - 1);
	}
	if (n > 0) {
		target[n] = '\0';
		bdf = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	}
	if (bdf || gpu_bdf) {
		const struct ix_pci *pci = pci_lock(sysroot);

		if (pci && bdf && (k = ix_pci_find(pci, bdf)) >= 0 && has_link(&pci->v[k]))
			fill_pcie(&pci->v[k], &out->pcie);
		if (pci && gpu_bdf && (k = ix_pci_find(pci, gpu_bdf)) >= 0 && has_link(&pci->v[k]))
			fill_pcie(&pci->v[k], &out->gpu);
		pthread_mutex_unlock(&pci_mu);
	}
	ix_link_settle(out);
	return ix_link_ceiling(out) > 0 ? 0 : -1;
}

/* The rate alone; -2 for names that are not interfaces' or loopback. */
static int link_rate_of(const char *iface, const char *sysroot, struct ix_link_limit *out)
{
	double ib_bps, speed;
	bool ib_port, ib_layer;
	long type;

	memset(out, 0, sizeof(*out));
	snprintf(out->iface, sizeof(out->iface), "%s", iface);
	link_limit_set(out, 0, NULL);
	/* A name from outside becomes a path: no separators, no "." or "..". */
	if (!iface[0] || strlen(iface) >= sizeof(out->iface) || strchr(iface, '/') ||
	    strcmp(iface, ".") == 0 || strcmp(iface, "..") == 0)
		return -2;
	type = read_long(sysroot, iface, "type");
	if (type == IX_ARPHRD_LOOPBACK)
		return -2;
	ib_port = ib_port_rate(sysroot, iface, &ib_bps, &ib_layer, NULL, 0, NULL);
	if ((type == IX_ARPHRD_INFINIBAND || (ib_port && ib_layer)) && ib_bps > 0)
		return link_limit_set(out, ib_bps, "infiniband rate");
	speed = iface_speed(sysroot, iface);
	if (speed > 0)
		return link_limit_set(out, speed, "ethtool speed");
	if (ib_port && ib_bps > 0)
		return link_limit_set(out, ib_bps, "infiniband rate");
	return -1;
}

int ix_link_limit_of(const char *iface, const char *sysroot, struct ix_link_limit *out)
{
	int rc = link_rate_of(iface, sysroot, out);
	bool live;

	char why[128];

	if (out->iface[0] && rc != -2)
		pcie_of(out->iface, sysroot, out);
	/* The switch port: the live system's lldpd (a saved tree has none, but
	 * beside one the lldpd IXPERF_LLDPD_SOCKET names is read), else, on
	 * InfiniBand, the live subnet's first hop. */
	live = !sysroot || !sysroot[0];
	if (out->iface[0] && (live || getenv("IXPERF_LLDPD_SOCKET")) &&
	    ix_lldp_neighbor(out->iface, &out->neighbor, why, sizeof(why)) < 0 && live) {
		char dev[64];
		double bps;
		bool ib_layer;
		long port;

		if (ib_port_rate("", out->iface, &bps, &ib_layer, dev, sizeof(dev), &port) &&
		    ib_layer)
			(void)ix_ib_neighbor(dev, (int)port, &out->neighbor, why, sizeof(why));
	}
	return rc < 0 ? -1 : 0;
}

int ix_route_iface(const char *host, char *iface, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res;
	struct sockaddr_storage local;
	socklen_t sl = sizeof(local);
	struct ifaddrs *ifa, *i;
	int fd, rc = -1;

	iface[0] = '\0';
	/* Which local address routes to host: a connected UDP socket says. */
	if (getaddrinfo(host, "9", &hints, &res) != 0)
		return -1;
	fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) < 0 ||
	    getsockname(fd, (struct sockaddr *)&local, &sl) < 0) {
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return -1;
	}
	close(fd);
	freeaddrinfo(res);
	if (getifaddrs(&ifa) < 0)
		return -1;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != local.ss_family)
			continue;
		if (local.ss_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr !=
			    ((struct sockaddr_in *)&local)->sin_addr.s_addr)
			continue;
		if (local.ss_family == AF_INET6 &&
		    memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			   &((struct sockaddr_in6 *)&local)->sin6_addr, 16) != 0)
			continue;
		if (strlen(i->ifa_name) < len) {
			snprintf(iface, len, "%s",
				 (i->ifa_flags & IFF_LOOPBACK) ? "lo" : i->ifa_name);
			rc = 0;
		}
		break;
	}
	freeifaddrs(ifa);
	return rc;
}

int ix_link_toward(const char *host, const char *sysroot, struct ix_link_limit *out)
{
	char iface[64];

	memset(out, 0, sizeof(*out));
	link_limit_set(out, 0, NULL);
	if (ix_route_iface(host, iface, sizeof(iface)) < 0)
		return -1;
	if (strcmp(iface, "lo") == 0) {
		snprintf(out->iface, sizeof(out->iface), "%s", iface);
		return -1;
	}
	return ix_link_limit_of(iface, sysroot, out);
}

double ix_link_rate_bps(const char *host, const char *sysroot)
{
	struct ix_link_limit l;

	return ix_link_toward(host, sysroot, &l) == 0 ? l.bps : 0;
}
