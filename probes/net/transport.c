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
