/* The agent (ixperf server): serves many clients and tests at once. */
#ifndef IX_AGENT_H
#define IX_AGENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "probes/core/err.h"
#include "probes/ctl/auth.h"
#include "probes/ctl/wire.h"

struct ix_agent_config {
	const char *bind_addr; /* NULL = any */
	uint16_t port;
	bool one_shot;      /* exit after the first client's session */
	uint32_t max_tests; /* concurrent tests */
	uint32_t max_conns; /* connections being served at once */
	struct ix_limits limits;
	const struct ix_token *token; /* shared token; NULL or unset = none */
	double handshake_s;           /* first frame must arrive within this */
	double idle_s;                /* a control session idle this long is closed */
	const char *rdma_dev;         /* RDMA device for --path rdma tests, NULL: choose */
	int rdma_gpu;                 /* their buffers in this GPU's memory, -1: host */
	/* Log sink (the command prints; the agent never does). */
	void (*log)(void *arg, const char *msg);
	void *log_arg;
};

struct ix_agent_test;

struct ix_agent {
	struct ix_agent_config cfg;
	int listen_fd;
	atomic_int *stop; /* set by the owner (signal) or one-shot */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ix_agent_test *tests; /* tests accepting data connections */
	uint32_t active_tests;
	uint32_t active_conns;
	uint64_t tests_run, refused;
};

/* Bind and listen; cfg->port 0 picks a free port (see ix_agent_port). */
int ix_agent_open(struct ix_agent *a, const struct ix_agent_config *cfg, atomic_int *stop,
		  struct ix_err *err);
uint16_t ix_agent_port(const struct ix_agent *a);
/* Serve until *stop is set; waits for running sessions to end. */
int ix_agent_run(struct ix_agent *a, struct ix_err *err);
void ix_agent_close(struct ix_agent *a);

#endif
