/* Inside the agent: what one connection says (session.c), for the
 * connection loop (agent.c). Not for other subsystems. */
#ifndef IX_AGENT_SESSION_H
#define IX_AGENT_SESSION_H

#include <jansson.h>

#include "probes/agent/state.h"

/* One log line, made safe whole (ix_text_safe): what peers send in it
 * reaches neither a new line nor a terminal as a control. */
void ix_agent_logf(struct ix_agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A refusal: logged at most once a second, with the count between. */
void ix_agent_log_refusal(struct ix_agent *a, const char *peer, const char *why);
void ix_agent_send_error(int fd, int code, const char *msg);

/* A data connection's ATTACH: fd goes to its test, or is refused and
 * closed. */
void ix_agent_attach(struct ix_agent *a, int fd, json_t *body, const char *peer);
/* A control session after its HELLO on connection c (NULL: none to
 * mark), until it ends (the caller closes fd). Takes the reference to
 * hello, and drops it once answered: a session holds no more than the
 * message it is handling. */
void ix_agent_serve_control(struct ix_agent *a, struct ix_agent_conn *c, int fd, json_t *hello,
			    const char *peer);
/* The connection loop's (agent.c): c's session is past its handshake,
 * authenticated with the token or not. */
void ix_agent_conn_greeted(struct ix_agent *a, struct ix_agent_conn *c, bool authenticated);

/* INVENTORY (inventory.c): what this node is made of, read below the
 * agent's --sysfs root. -1 with err when the request is malformed or too
 * many are being answered (the session then ends with an ERROR). */
int ix_agent_serve_inventory(struct ix_agent *a, int fd, json_t *req, struct ix_err *err);
/* IFSTATS (inventory.c): every interface of this network namespace with
 * its byte counters, the one fd's connection came by marked. Read-only;
 * -1 with err when the request is malformed. */
int ix_agent_serve_ifstats(struct ix_agent *a, int fd, json_t *req, struct ix_err *err);

/* TEST of kind rdma (rdma.c) on a session from peer, authenticated or not
 * (ixperf-server(1), RDMA TESTS): refused with err unless this session
 * may make this host's NIC send where it asks; -1 with err when refused or
 * failed (the session then ends with an ERROR). */
int ix_agent_serve_rdma(struct ix_agent *a, int fd, const char *peer, bool authenticated,
			json_t *req, struct ix_err *err);

#endif
