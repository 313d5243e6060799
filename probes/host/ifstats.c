/* Interfaces and their traffic counters (probes/host/ifstats.h). */
#include "config.h"

#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/host/fabric.h"
#include "probes/host/ifstats.h"

bool ix_ifstats_from_set(const struct ix_ctr_set *set, struct ix_ifstat *st)
{
	static const struct {
		const char *name;
		size_t off;
	} want[] = {
		{ "rx_bytes", offsetof(struct ix_ifstat, rx_bytes) },
		{ "tx_bytes", offsetof(struct ix_ifstat, tx_bytes) },
		{ "rx_packets", offsetof(struct ix_ifstat, rx_packets) },
		{ "tx_packets", offsetof(struct ix_ifstat, tx_packets) },
	};
	unsigned found = 0;

	for (size_t i = 0; set->valid && i < set->n; i++) {
		if (set->v[i].source != IX_SRC_NETDEV)
			continue;
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			if (strcmp(set->v[i].name, want[k].name) != 0)
				continue;
			memcpy((char *)st + want[k].off, &set->v[i].value, sizeof(uint64_t));
			found |= 1u << k;
		}
	}
	return (found & 3u) == 3u;
}

const struct ix_ifstat *ix_ifstats_find(const struct ix_ifstat *v, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct ix_ifstat *)a)->name, ((const struct ix_ifstat *)b)->name);
}

/* IFF_* of an interface; 0 when it cannot be asked. */
static unsigned flags_of(int sock, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, strnlen(name, IFNAMSIZ - 1));
	if (sock < 0 || ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
		return 0;
	return (unsigned)(unsigned short)ifr.ifr_flags;
}

uint32_t ix_ifstats_read(struct ix_ifstat *out, uint32_t cap, const char *control, bool *truncated)
{
	struct if_nameindex *ni = if_nameindex();
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint32_t n = 0;

	*truncated = false;
	for (size_t i = 0; ni && ni[i].if_index; i++) {
		const char *name = ni[i].if_name;
		struct ix_fabric_where w = { .iface = name, .sources = 1u << IX_SRC_NETDEV };
		struct ix_ctr_set set;
		unsigned fl = flags_of(sock, name);

		if ((fl & IFF_LOOPBACK) || strlen(name) >= IX_IFNAME_SIZE)
			continue;
		if (n == cap) {
			*truncated = true;
			break;
		}
		memset(&out[n], 0, sizeof(out[n]));
		ix_ctr_set_init(&set);
		ix_fabric_snapshot(NULL, &w, &set);
		if (ix_ifstats_from_set(&set, &out[n])) {
			memcpy(out[n].name, name, strlen(name) + 1);
			out[n].up = (fl & IFF_UP) && (fl & IFF_RUNNING);
			out[n].control = control && strcmp(control, name) == 0;
			n++;
		}
		ix_ctr_set_free(&set);
	}
	if (ni)
		if_freenameindex(ni);
	if (sock >= 0)
		close(sock);
	qsort(out, n, sizeof(*out), by_name);
	return n;
}
