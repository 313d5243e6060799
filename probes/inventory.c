#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probes/inventory.h"

/* First line of a file, trimmed; "" when unreadable. */
static void read_line(const char *sysroot, const char *path, char *buf, size_t len)
{
	char full[512];
	FILE *f;

	buf[0] = '\0';
	snprintf(full, sizeof(full), "%s%s", sysroot, path);
	f = fopen(full, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
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
		char p[300], mtu[32], state[32];
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
		json_array_append_new(ifs, json_pack("{s:s,s:I,s:o,s:s}", "name", e->d_name, "mtu",
						     (json_int_t)strtol(mtu, NULL, 10), "speed_bps",
						     sp > 0 ? json_real(sp) : json_null(), "state",
						     state[0] ? state : "unknown"));
	}
	if (d)
		closedir(d);
	return json_pack("{s:s,s:s,s:s,s:I,s:s,s:I,s:o}", "hostname", host, "kernel", buf, "os",
			 os[0] ? os : "unknown", "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
			 "cpu_model", cpu[0] ? cpu : "unknown", "memory_bytes",
			 (json_int_t)strtoll(mem, NULL, 10) * 1024, "interfaces", ifs);
}

double ix_link_rate_bps(const char *host, const char *sysroot)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res;
	struct sockaddr_storage local;
	socklen_t sl = sizeof(local);
	struct ifaddrs *ifa, *i;
	double rate = 0;
	int fd;

	/* Which local address routes to host: a connected UDP socket says. */
	if (getaddrinfo(host, "9", &hints, &res) != 0)
		return 0;
	fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) < 0 ||
	    getsockname(fd, (struct sockaddr *)&local, &sl) < 0) {
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return 0;
	}
	close(fd);
	freeaddrinfo(res);
	if (getifaddrs(&ifa) < 0)
		return 0;
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
		if (!(i->ifa_flags & IFF_LOOPBACK))
			rate = iface_speed(sysroot, i->ifa_name);
		break;
	}
	freeifaddrs(ifa);
	return rate;
}
