/*
 * A tiny HTTP/1.x server for a metrics endpoint: one thread, poll(2), one
 * request per connection. GET (or HEAD) /metrics answers with what the
 * owner's callback renders, / with a small page linking to it; any other
 * path is 404, any other method 405. Every client is bounded: its request
 * head (IX_HTTP_HEAD_MAX bytes, else 431), the time it may take to send
 * it and read the answer (the timeout; then it is closed), and how many
 * are served at once (more get 503 and are closed). A client that
 * misbehaves is closed and the others are served on.
 */
#ifndef IX_HTTPD_H
#define IX_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

/* Renders the metrics: *body (malloc'd, the server frees it) and *len.
 * -1: the server answers 500. */
typedef int (*ix_httpd_render_fn)(void *arg, char **body, size_t *len);

struct ix_httpd_config {
	const char *host; /* address to listen on; NULL or "": every address */
	uint16_t port;    /* 0: a free one (ix_httpd_port says which) */
	ix_httpd_render_fn render;
	void *arg;
	const char *title;    /* named on the page at / ("ixperf top") */
	double timeout_s;     /* per client, request and answer; 0: 10 s */
	unsigned max_clients; /* at once; 0: 16 */
};

/* What the server did, for its owner's log and tests. */
struct ix_httpd_stats {
	uint64_t answered;  /* 200s */
	uint64_t refused;   /* 4xx and 5xx answered */
	uint64_t timed_out; /* closed for taking too long */
	uint64_t busy;      /* turned away with 503: too many clients */
};

struct ix_httpd;

/* Listen; -1 with err when the address cannot be bound. */
int ix_httpd_open(struct ix_httpd **out, const struct ix_httpd_config *cfg, struct ix_err *err);
uint16_t ix_httpd_port(const struct ix_httpd *h);
/* Serve until until_ns (ix_now_ns clock) or for 250 ms at most, whichever
 * comes first: accept, read, answer and close what is ready. A signal
 * ends the wait early. */
void ix_httpd_serve(struct ix_httpd *h, int64_t until_ns);
void ix_httpd_stats(const struct ix_httpd *h, struct ix_httpd_stats *out);
void ix_httpd_close(struct ix_httpd *h);

#endif
