/* The metrics listener: one thread, poll(2), every client bounded in
 * size, time and number (see httpd.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/core/clock.h"
#include "probes/net/http.h"
#include "probes/net/httpd.h"
#include "probes/net/net.h"

#define SERVE_SLICE_NS  250000000LL
#define DEFAULT_CLIENTS 16
#define MAX_CLIENTS     1024
#define DRAIN_MAX       (256 * 1024) /* bytes read and dropped after an answer */

struct client {
	int fd;        /* -1: a free slot */
	bool writing;  /* the answer is going out */
	bool draining; /* answered: what it still sends is read and dropped */
	size_t drained;
	int64_t deadline; /* closed when it passes */
	size_t inlen;     /* bytes of the request head read */
	char in[IX_HTTP_HEAD_MAX];
	char *out; /* the answer, head and body */
	size_t outlen, outpos;
};

struct ix_httpd {
	struct ix_httpd_config cfg;
	int fd;
	struct client *c;
	struct pollfd *pfd;
	struct ix_httpd_stats st;
};

int ix_httpd_open(struct ix_httpd **out, const struct ix_httpd_config *cfg, struct ix_err *err)
{
	struct ix_httpd *h = calloc(1, sizeof(*h));
	const char *host = cfg->host && cfg->host[0] ? cfg->host : NULL;

	*out = NULL;
	if (!h)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	h->fd = -1;
	h->cfg = *cfg;
	if (!h->cfg.timeout_s)
		h->cfg.timeout_s = 10;
	if (!h->cfg.max_clients)
		h->cfg.max_clients = DEFAULT_CLIENTS;
	if (h->cfg.max_clients > MAX_CLIENTS)
		h->cfg.max_clients = MAX_CLIENTS;
	h->c = calloc(h->cfg.max_clients, sizeof(*h->c));
	h->pfd = calloc(h->cfg.max_clients + 1, sizeof(*h->pfd));
	if (!h->c || !h->pfd) {
		ix_httpd_close(h);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	for (unsigned i = 0; i < h->cfg.max_clients; i++)
		h->c[i].fd = -1;
	h->fd = ix_net_listen(host, cfg->port, 64, err);
	if (h->fd < 0) {
		free(h->c);
		free(h->pfd);
		free(h);
		return -1;
	}
	ix_net_set_nonblock(h->fd, 1);
	*out = h;
	return 0;
}

uint16_t ix_httpd_port(const struct ix_httpd *h)
{
	return ix_net_local_port(h->fd);
}

static void drop(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	c->writing = c->draining = false;
	c->inlen = c->outlen = c->outpos = c->drained = 0;
}

/* The answer: a head, and the body unless head_only. Takes body. */
static void answer(struct ix_httpd *h, struct client *c, int status, const char *type, char *body,
		   size_t len, bool head_only)
{
	char head[256];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
			 "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
			 status, ix_http_reason(status), type, len,
			 status == 405 ? "Allow: GET, HEAD\r\n" : "");
	size_t blen = head_only ? 0 : len;

	if (status == 200)
		h->st.answered++;
	else
		h->st.refused++;
	c->out = malloc((size_t)n + blen);
	if (!c->out) {
		free(body);
		drop(c);
		return;
	}
	memcpy(c->out, head, (size_t)n);
	if (blen)
		memcpy(c->out + n, body, blen);
	free(body);
	c->outlen = (size_t)n + blen;
	c->outpos = 0;
	c->writing = true;
}

static void answer_text(struct ix_httpd *h, struct client *c, int status, bool head_only)
{
	char *body = NULL;
	int n = asprintf(&body, "%d %s\n", status, ix_http_reason(status));

	answer(h, c, status, "text/plain; charset=utf-8", n < 0 ? NULL : body,
	       n < 0 ? 0 : (size_t)n, head_only);
}

static void route(struct ix_httpd *h, struct client *c, const struct ix_http_req *req)
{
	bool head = !strcmp(req->method, "HEAD");
	char *body = NULL;
	size_t len = 0;
	int n;

	if (strcmp(req->method, "GET") && !head) {
		answer_text(h, c, 405, false);
	} else if (!strcmp(req->path, "/metrics")) {
		if (h->cfg.render(h->cfg.arg, &body, &len) < 0)
			answer_text(h, c, 500, head);
		else
			answer(h, c, 200, "text/plain; version=0.0.4; charset=utf-8", body, len,
			       head);
	} else if (!strcmp(req->path, "/")) {
		n = asprintf(&body,
			     "<!DOCTYPE html>\n<html><head><title>%s</title></head><body>\n"
			     "<h1>%s</h1>\n<p><a href=\"/metrics\">Metrics</a></p>\n"
			     "</body></html>\n",
			     h->cfg.title, h->cfg.title);
		if (n < 0)
			answer_text(h, c, 500, head);
		else
			answer(h, c, 200, "text/html; charset=utf-8", body, (size_t)n, head);
	} else {
		answer_text(h, c, 404, head);
	}
}

static void on_read(struct ix_httpd *h, struct client *c)
{
	struct ix_http_req req;
	ssize_t n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen, MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		drop(c);
		return;
	}
	if (n < 0)
		return;
	c->inlen += (size_t)n;
	switch (ix_http_parse(c->in, c->inlen, &req)) {
	case IX_HTTP_MORE:
		break;
	case IX_HTTP_BAD:
		answer_text(h, c, req.status, false);
		break;
	case IX_HTTP_DONE:
		route(h, c, &req);
		break;
	}
}

static void on_write(struct client *c)
{
	ssize_t n =
		send(c->fd, c->out + c->outpos, c->outlen - c->outpos, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		drop(c);
		return;
	}
	c->outpos += (size_t)n;
	if (c->outpos < c->outlen)
		return;
	/* Closing with unread bytes would reset the connection and lose the
	 * answer on the way: say we are done, and read until the client
	 * closes too (within its deadline and DRAIN_MAX bytes). */
	shutdown(c->fd, SHUT_WR);
	c->writing = false;
	c->draining = true;
}

static void on_drain(struct client *c)
{
	char buf[4096];
	ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	c->drained += n > 0 ? (size_t)n : 0;
	if (n <= 0 || c->drained > DRAIN_MAX)
		drop(c);
}

/* A free slot; when none is free, the one of the client that has been
 * sending its request longest is taken from it (a client that trickles a
 * request or sends none must not hold the slots others need). NULL when
 * every client is taking its answer. */
static struct client *free_slot(struct ix_httpd *h)
{
	struct client *oldest = NULL;

	for (unsigned i = 0; i < h->cfg.max_clients; i++) {
		struct client *c = &h->c[i];

		if (c->fd < 0)
			return c;
		if (c->draining) {
			drop(c); /* answered already */
			return c;
		}
		if (!c->writing && (!oldest || c->deadline < oldest->deadline))
			oldest = c;
	}
	if (oldest) {
		h->st.timed_out++;
		drop(oldest);
	}
	return oldest;
}

static void on_accept(struct ix_httpd *h)
{
	for (int k = 0; k < 64; k++) {
		int fd = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct client *c = NULL;

		if (fd < 0)
			return;
		c = free_slot(h);
		if (!c) {
			static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
						   "Content-Length: 0\r\nConnection: close\r\n\r\n";

			h->st.busy++;
			(void)!send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->deadline = ix_now_ns() + ix_seconds_to_ns(h->cfg.timeout_s);
	}
}

void ix_httpd_serve(struct ix_httpd *h, int64_t until_ns)
{
	int64_t now = ix_now_ns(), end = until_ns, wake;
	unsigned n = 0;
	int rc;

	if (end > now + SERVE_SLICE_NS)
		end = now + SERVE_SLICE_NS;
	wake = end;
	h->pfd[n++] = (struct pollfd){ .fd = h->fd, .events = POLLIN };
	for (unsigned i = 0; i < h->cfg.max_clients; i++) {
		struct client *c = &h->c[i];

		if (c->fd < 0)
			continue;
		if (c->deadline <= now) {
			h->st.timed_out++;
			drop(c);
			continue;
		}
		if (c->deadline < wake)
			wake = c->deadline;
		h->pfd[n++] =
			(struct pollfd){ .fd = c->fd, .events = c->writing ? POLLOUT : POLLIN };
	}
	rc = poll(h->pfd, n, wake > now ? ix_ms_until(wake) : 0);
	if (rc <= 0)
		return;
	for (unsigned k = 1; k < n; k++) {
		struct client *c = NULL;

		for (unsigned i = 0; i < h->cfg.max_clients && !c; i++)
			if (h->c[i].fd == h->pfd[k].fd)
				c = &h->c[i];
		if (!c || !h->pfd[k].revents)
			continue;
		if (c->writing)
			on_write(c);
		else if (c->draining)
			on_drain(c);
		else
			on_read(h, c);
	}
	if (h->pfd[0].revents & POLLIN)
		on_accept(h);
}

void ix_httpd_stats(const struct ix_httpd *h, struct ix_httpd_stats *out)
{
	*out = h->st;
}

void ix_httpd_close(struct ix_httpd *h)
{
	if (!h)
		return;
	for (unsigned i = 0; h->c && i < h->cfg.max_clients; i++)
		drop(&h->c[i]);
	if (h->fd >= 0)
		close(h->fd);
	free(h->c);
	free(h->pfd);
	free(h);
}
