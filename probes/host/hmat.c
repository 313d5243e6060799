#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/hmat.h"
#include "probes/host/sysfs.h"

static uint64_t read_u64(const char *dir, const char *name)
{
	char path[PATH_MAX];
	long v;
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	return n > 0 && (size_t)n < sizeof(path) && ix_sysfs_read_long(path, &v) == 0 && v > 0
		       ? (uint64_t)v
		       : 0;
}

void ix_hmat_read(const char *node_dir, int c, struct ix_hmat *h)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = snprintf(path, sizeof(path), "%s/access%d/initiators", node_dir, c);

	memset(h, 0, sizeof(*h));
	if (n < 0 || (size_t)n >= sizeof(path) || !(d = opendir(path)))
		return;
	h->present = true;
	h->read_mbps = read_u64(path, "read_bandwidth");
	h->write_mbps = read_u64(path, "write_bandwidth");
	h->read_ns = read_u64(path, "read_latency");
	h->write_ns = read_u64(path, "write_latency");
	/* nodeN entries: the initiators that have these figures. */
	while ((e = readdir(d))) {
		char *end;
		long id = strtol(e->d_name + 4, &end, 10);

		if (!strncmp(e->d_name, "node", 4) && end != e->d_name + 4 && !*end && id >= 0 &&
		    id < IX_HMAT_MAX_INITIATORS)
			h->initiators |= 1ull << id;
	}
	closedir(d);
}
