/* The explicit table of transports. Add a path: one file, one row. */
#include "config.h"

#include <string.h>

#include "probes/net/transport.h"

static const struct ix_transport *const transports[] = {
	&ix_tcp_transport,
	&ix_udp_transport,
	NULL,
};

const struct ix_transport *ix_transport_find(const char *name)
{
	for (size_t i = 0; transports[i]; i++)
		if (strcmp(transports[i]->name, name) == 0)
			return transports[i];
	return NULL;
}

int ix_path_lookup(const char *name, const struct ix_transport **tp, struct ix_err *err)
{
	static const char *const elsewhere[] = { "pcie", "gpu", NULL };
	static const char *const where[] = { "ixperf bw --path pcie or ixperf gpu", "ixperf gpu" };

	/* The coordinator of mesh and incast needs no device itself: its
	 * agents run the tests on theirs (probes/rdma/session.c) and say when they
	 * cannot. */
	static const struct ix_transport rdma = { .name = "rdma",
						  .desc = "RDMA (RC) on the agents' devices",
						  .caps = IX_CAP_RDMA,
						  .default_msg_size = 65536,
						  .min_msg_size = 1,
						  .max_msg_size = 1ull << 31,
						  .min_lat_size = 1 };

	*tp = ix_transport_find(name ? name : "tcp");
	if (*tp)
		return 0;
	if (strcmp(name, "rdma") == 0) {
		*tp = &rdma;
		return 0;
	}
	/* The GPU paths take no server: bw reaches pcie before its options,
	 * and the GPU tests are ixperf gpu's. */
	for (size_t i = 0; elsewhere[i]; i++)
		if (strcmp(name, elsewhere[i]) == 0)
			return ix_fail(err, IX_EXIT_USAGE,
				       "--path %s is not a network path: use %s", name, where[i]);
	return ix_fail(err, IX_EXIT_USAGE, "invalid value for --path: '%s' (tcp, udp or rdma)",
		       name);
}
