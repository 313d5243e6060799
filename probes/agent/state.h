/* The agent's configuration and state, shared by its connection loop
 * (agent.c) and its sessions (session.c). */
#ifndef IX_AGENT_STATE_H
#define IX_AGENT_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "probes/ctl/auth.h"
#include "probes/ctl/wire.h"
#include "probes/host/linkcache.h"

#define IX_AGENT_MAX_ALLOW 32

struct ix_agent_config {
	const char *bind_addr; /* NULL = any */
	uint16_t port;
	bool one_shot; /* exit after the first client's session */
	/* Stop when a coordinator's session ends (one task of a launch: the
	 * job is over, or its coordinator died). */
	bool exit_after_coordinator;
	uint32_t max_tests; /* concurrent tests */
	/* Concurrent tests from one address; loopback is not capped. 0 = none. */
	uint32_t max_tests_per_addr;
	uint32_t max_conns; /* connections being served at once */
	/* Connections from one address: control sessions (after HELLO), and
	 * connections that have not said what they are yet. 0 = no cap. */
	uint32_t max_sessions_per_addr;
	uint32_t max_pending_per_addr;
	/* Buffer memory (message buffers of every stream) one test and all
	 * tests together may use; a test over either is refused. 0 = none. */
	uint64_t max_test_mem;
	uint64_t max_mem;
	double silence_s; /* a test whose streams move nothing this long ends */
	/* Without a token, RUN (traffic towards hosts the coordinator names)
	 * is accepted from loopback and from these addresses only. */
	struct sockaddr_storage allow_run[IX_AGENT_MAX_ALLOW];
	uint32_t n_allow_run;
	bool allow_run_any;
	struct ix_limits limits;
	const struct ix_token *token; /* shared token; NULL or unset = none */
	double handshake_s;           /* first frame must arrive within this */
	double idle_s;                /* a control session idle this long is closed */
	uint32_t stop_check_ms;       /* the stop flag set without ix_agent_stop is seen
				   this often (0: every second) */
	const char *rdma_dev;         /* RDMA device for --path rdma tests, NULL: choose */
	const char *source_addr;      /* RUN jobs' tests send from it, NULL: any */
	int rdma_gpu;                 /* their buffers in this GPU's memory, -1: host */
	const char *sysfs;            /* links are read below it; NULL: the live /sys */
	/* Log sink (the command prints; the agent never does). */
	void (*log)(void *arg, const char *msg);
	void *log_arg;
};

/* Why a test or a connection was refused (counted per reason). */
enum ix_agent_refusal {
	IX_AGENT_REFUSE_TESTS,       /* max_tests running already */
	IX_AGENT_REFUSE_ADDRESS,     /* max_tests_per_addr from its address */
	IX_AGENT_REFUSE_MEMORY,      /* over max_mem or max_test_mem */
	IX_AGENT_REFUSE_CONNECTIONS, /* too many connections or sessions */
	IX_AGENT_REFUSE_N,
};

/* What an agent has done, read at once (ix_agent_stats_read, agent.h). */
struct ix_agent_stats {
	uint64_t tests_served; /* tests that held a slot and ended */
	uint64_t refused[IX_AGENT_REFUSE_N];
	uint32_t tests_running, connections;
	uint64_t mem_held;  /* buffer memory of the running tests */
	uint64_t mem_limit; /* max_mem; 0: none */
};

struct ix_agent_test;
struct ix_agent_conn;
struct ix_agent_slot;

struct ix_agent {
	struct ix_agent_config cfg;
	int listen_fd;
	atomic_int *stop; /* set by the owner (signal) or one-shot */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ix_agent_test *tests; /* tests accepting data connections */
	uint32_t active_tests;
	uint32_t active_conns;
	uint64_t mem_in_use;         /* buffer memory of the running tests */
	struct ix_agent_slot *slots; /* their claims (slots.c) */
	struct ix_agent_conn *conns; /* connections being served */
	uint64_t tests_run, refused;
	uint64_t refused_by[IX_AGENT_REFUSE_N]; /* the same, per reason */
	uint64_t evicted;           /* connections shut while stalled in their handshake */
	uint32_t inventories;       /* inventory requests being answered */
	bool coordinator_seen;      /* a coordinator has been greeted */
	struct ix_link_cache links; /* what tests leave by, for RESULT and REPORT */
	int wake[2];                /* written by ix_agent_stop: the accept loop ends */
	/* Threads that served a connection wait a while for the next one
	 * (agent.c): a mesh's tests do not each start and end threads. */
	pthread_cond_t work;
	struct ix_agent_conn *queue; /* accepted, for an idle worker */
	uint32_t workers, idle_workers;
	/* Refusals are logged at most once a second, with the count between. */
	int64_t refusal_logged_ns;
	uint64_t refusals_unlogged;
};

/* Set the stop flag and wake the accept loop (agent.c): async-signal-safe
 * (a signal handler may call it once ix_agent_open has succeeded). */
void ix_agent_stop(struct ix_agent *a);

#endif
