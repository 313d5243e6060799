/*
 * The coordinator's side of many agents: one control connection each, all
 * driven by one thread with epoll, whatever the number of hosts. Each
 * connection is registered once (for writing while it connects, for reading
 * from then on; an idle one that speaks out of turn is taken out until the
 * next exchange reads it), so a wake-up costs the peers that are ready, not
 * all of them, and a job no call to watch its peer; the connect deadlines
 * are scanned only when the earliest one has passed.
 * Memory is O(agents); a RUN dispatch starts every job at one moment,
 * computed from each connection's measured round trip.
 */
#ifndef IX_COORD_H
#define IX_COORD_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "probes/cluster/hostlist.h"
#include "probes/core/err.h"
#include "probes/ctl/auth.h"
#include "probes/net/proto.h"

struct addrinfo;

struct ix_coord_peer {
	struct ix_host host;
	int fd;
	int state;                  /* private */
	struct addrinfo *addrs;     /* private: the host's addresses, */
	struct addrinfo *next_addr; /* the next one to try while connecting */
	int64_t attempt_end;        /* when the address tried now is given up */
	int64_t retry_end;          /* connects refused until then are retried */
	int64_t retry_at;           /* the next retry, while fd < 0 */
	struct ix_frame_reader rd;
	char nonce[IX_AUTH_HEX];
	char challenge[IX_AUTH_HEX]; /* the agent's, from HELLO_ACK */
	int pings;
	int64_t sent_at;
	int64_t rtt_ns;         /* smallest round trip seen */
	bool unauthenticated;   /* the agent runs without a token */
	char error[IX_ERR_MAX]; /* why the peer failed; "" while it works */
	uint32_t events;        /* private: what epoll watches on fd; 0: not registered */
	uint32_t job;           /* private: its job's index while it runs one */
};

struct ix_coord {
	struct ix_coord_peer *peers;
	uint32_t n;
	const struct ix_token *token;
	double timeout_s; /* connect + handshake */
	int ep;           /* private: the epoll descriptor, -1 when none */
	int64_t timer;    /* private: the earliest connect deadline of a peer */
};

/* Connect to every host at once, authenticate, measure round trips.
 * Each host's addresses are tried in turn until one connects; a peer that
 * cannot be reached names its host and the last address's failure.
 * Returns the number of peers ready; failed peers keep their reason. */
int ix_coord_open(struct ix_coord *co, const struct ix_hostlist *hosts,
		  const struct ix_token *token, double timeout_s, struct ix_err *err);
/* The same for agents that may still be starting (tasks of one launch):
 * a refused connect is retried every 100 ms for startup_s. */
int ix_coord_open_patient(struct ix_coord *co, const struct ix_hostlist *hosts,
			  const struct ix_token *token, double timeout_s, double startup_s,
			  struct ix_err *err);
bool ix_coord_ready(const struct ix_coord *co, uint32_t peer);
void ix_coord_close(struct ix_coord *co);

struct ix_coord_job {
	uint32_t peer;  /* who runs it */
	json_t *run;    /* RUN body (the coordinator sets delay_us) */
	json_t *report; /* REPORT body, or NULL when failed */
	char error[IX_ERR_MAX];
};

/* Send every job's RUN so that all start together, then wait for every
 * REPORT until timeout_s after the start. A peer that fails takes its
 * job down (report NULL, error set) and is marked failed; the others go on.
 * Returns the number of jobs that reported. */
uint32_t ix_coord_dispatch(struct ix_coord *co, struct ix_coord_job *jobs, uint32_t n,
			   double timeout_s);

/* Send every job's body (run) as a frame of type to its peer at once and
 * wait up to timeout_s for each one's frame of type want (report: a new
 * reference). A peer that answers otherwise (an ERROR: its agent ends the
 * session) or not at all is marked failed, as in ix_coord_dispatch.
 * Returns the number of jobs answered. */
uint32_t ix_coord_ask(struct ix_coord *co, struct ix_coord_job *jobs, uint32_t n, uint16_t type,
		      uint16_t want, double timeout_s);

/* Mark a peer failed for why (its connection, if any, closed): a host known
 * to be absent before it is reached, such as a launched task that never
 * published its agent. */
void ix_coord_fail_peer(struct ix_coord *co, uint32_t peer, const char *why);

#endif
