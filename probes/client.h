/* The client side of a test: connect to an agent, run, collect figures. */
#ifndef IX_CLIENT_H
#define IX_CLIENT_H

#include <stdint.h>

#include "probes/err.h"
#include "probes/probe.h"

struct ix_client {
	const char *host;
	uint16_t port;
	const char *bind_addr;
	double connect_timeout_s;
	int fd;
	char server_host[256];
	char server_version[32];
};

/* Live hooks for renderers that show progress; may be NULL. */
struct ix_bw_hooks {
	void (*on_interval)(void *arg, const struct ix_bw_result *r, size_t k);
	void *arg;
};

int ix_client_connect(struct ix_client *c, struct ix_err *err);
void ix_client_close(struct ix_client *c);

/* Run one bandwidth test. On failure r keeps what was measured, with
 * r->complete false and r->error set. */
int ix_bw_run(struct ix_client *c, const struct ix_bw_params *p, struct ix_bw_result *r,
	      const struct ix_bw_hooks *hooks, struct ix_err *err);
int ix_lat_run(struct ix_client *c, const struct ix_lat_params *p, struct ix_lat_result *r,
	       struct ix_err *err);

#endif
