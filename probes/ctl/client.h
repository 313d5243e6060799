/* The client side of a test: connect to an agent, run, collect figures. */
#ifndef IX_CLIENT_H
#define IX_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "probes/core/err.h"
#include "probes/core/probe.h"

struct ix_token;

struct ix_client {
	const char *host;
	uint16_t port;
	const char *bind_addr;
	double connect_timeout_s;
	const struct ix_token *token; /* shared token, NULL = none */
	int fd;
	char server_host[256];
	char server_version[32];
	bool unauthenticated; /* the server runs without a token */
	/* Bounds a test run through this client: set, *stop ends it; past
	 * deadline_ns (CLOCK_MONOTONIC, 0 = none) it fails. */
	atomic_int *stop;
	int64_t deadline_ns;
};

/* Live hooks for renderers that show progress; may be NULL. */
struct ix_bw_hooks {
	void (*on_interval)(void *arg, const struct ix_bw_result *r, size_t k);
	void *arg;
};

/* Connect, HELLO, and the token handshake when the server asks for it. */
int ix_client_connect(struct ix_client *c, struct ix_err *err);
void ix_client_close(struct ix_client *c);

/* After AUTH_OK: seal fd with the session key of this handshake (sc: the
 * HELLO_ACK's challenge, cc: this end's), see probes/net/seal.h. */
int ix_client_seal(int fd, const char *host, const struct ix_token *token, const char *sc,
		   const char *cc, struct ix_err *err);

/* HELLO_ACK's authentication: when the server asks for the shared token,
 * check its proof and write the MAC to send in AUTH (mac[0] == 0: none to
 * send; *unauthenticated: the server runs without a token). */
int ix_client_answer_hello(const char *host, const struct ix_token *token, json_t *ack,
			   const char *cc, char mac[65], bool *unauthenticated, struct ix_err *err);

/* Building blocks for probes that drive tests of their own. */
struct ix_stream;
struct ix_transport;
/* Receive a frame of the wanted type; an ERROR frame becomes the error. */
int ix_client_expect(struct ix_client *c, uint16_t want, json_t **body, double timeout_s,
		     struct ix_err *err);
/* The same, past one frame of type skip (a peer's STOP that may come first). */
int ix_client_expect_past(struct ix_client *c, uint16_t want, uint16_t skip, json_t **body,
			  double timeout_s, struct ix_err *err);
/* A frame with an empty body. */
int ix_client_send(struct ix_client *c, uint16_t type, struct ix_err *err);
/* TEST -> TEST_ACK -> open the n data channels -> READY. bw may be NULL. */
int ix_client_negotiate(struct ix_client *c, json_t *req, struct ix_stream *s, uint32_t n,
			const struct ix_transport *tp, const struct ix_bw_params *bw, char *cc,
			size_t cclen, struct ix_err *err);

/* Run one bandwidth test. On failure r keeps what was measured, with
 * r->complete false and r->error set. */
int ix_bw_run(struct ix_client *c, const struct ix_bw_params *p, struct ix_bw_result *r,
	      const struct ix_bw_hooks *hooks, struct ix_err *err);
int ix_lat_run(struct ix_client *c, const struct ix_lat_params *p, struct ix_lat_result *r,
	       struct ix_err *err);

#endif
