#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/cluster/coord.h"
#include "probes/core/clock.h"
#include "probes/ctl/client.h"
#include "probes/net/net.h"
#include "probes/net/seal.h"

#define PINGS           3
#define START_MARGIN_NS (5 * 1000000LL) /* on top of the slowest round trip */
#define SEND_TIMEOUT_NS (2 * IX_NSEC_PER_SEC)
#define RETRY_NS        (100 * 1000000LL) /* between connects to a starting agent */
#define EVENTS          256               /* epoll events taken per wake-up */

enum peer_state {
	P_CONNECTING,
	P_HELLO, /* HELLO sent, waiting for HELLO_ACK */
	P_AUTH,  /* AUTH sent, waiting for AUTH_OK */
	P_PING,  /* PING sent, waiting for PONG */
	P_READY,
	P_RUNNING, /* RUN sent, waiting for REPORT */
	P_FAILED,
};

static void free_addrs(struct ix_coord_peer *p)
{
	if (p->addrs)
		freeaddrinfo(p->addrs);
	p->addrs = p->next_addr = NULL;
}

/* Closing the descriptor takes it out of the epoll set too. */
static void close_fd(struct ix_coord_peer *p)
{
	if (p->fd >= 0) {
		ix_seal_unbind(p->fd);
		close(p->fd);
	}
	p->fd = -1;
	p->events = 0;
}

static void peer_fail(struct ix_coord_peer *p, const char *prefix, const char *why)
{
	size_t n;

	close_fd(p);
	free_addrs(p);
	ix_frame_reader_reset(&p->rd);
	p->state = P_FAILED;
	/* "prefix: why", the reason truncated rather than the prefix */
	n = (size_t)snprintf(p->error, sizeof(p->error), "%s%s", prefix, prefix[0] ? ": " : "");
	if (n < sizeof(p->error))
		snprintf(p->error + n, sizeof(p->error) - n, "%.*s",
			 (int)(sizeof(p->error) - n - 1), why);
}

bool ix_coord_ready(const struct ix_coord *co, uint32_t peer)
{
	return co->peers[peer].state == P_READY;
}

/* Whether the coordinator waits on the peer (connecting, in the handshake
 * or running a job), rather than it being ready or failed. */
static bool waiting(const struct ix_coord_peer *p)
{
	return p->state != P_READY && p->state != P_FAILED;
}

/* Register p's descriptor for what its state waits on: writing while it
 * connects, reading during the handshake or a job. A ready peer's stays
 * registered for reading between jobs, so a job costs no call to watch
 * it (a failed one's was closed, which took it out). */
static void watch(struct ix_coord *co, struct ix_coord_peer *p)
{
	uint32_t want = p->state == P_CONNECTING ? (uint32_t)EPOLLOUT : (uint32_t)EPOLLIN;
	struct epoll_event ev = { .events = want, .data.u32 = (uint32_t)(p - co->peers) };
	char why[128];

	if (p->fd < 0 || !waiting(p) || want == p->events)
		return;
	if (epoll_ctl(co->ep, p->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, p->fd, &ev) == 0) {
		p->events = want;
		return;
	}
	snprintf(why, sizeof(why), "cannot watch the connection: %s", strerror(errno));
	peer_fail(p, "", why);
}

/* An idle connection became readable (its agent closed it or spoke out of
 * turn): out of the set, so that it does not wake the loop again, until
 * the next exchange with it reads what came, as it would have anyway. */
static void quiet(struct ix_coord *co, struct ix_coord_peer *p)
{
	if (p->fd >= 0 && p->events && epoll_ctl(co->ep, EPOLL_CTL_DEL, p->fd, NULL) == 0)
		p->events = 0;
}

/* A peer's connect deadline (INT64_MAX: none): the end of the address
 * tried now while others are left, or its next retry. */
static int64_t peer_timer(const struct ix_coord_peer *p)
{
	if (p->state != P_CONNECTING)
		return INT64_MAX;
	if (p->fd >= 0)
		return p->next_addr ? p->attempt_end : INT64_MAX;
	return p->retry_at;
}

static int send_frame(struct ix_coord_peer *p, uint16_t type, json_t *body)
{
	struct ix_err e = { 0 };

	if (ix_frame_send(p->fd, type, body, ix_now_ns() + SEND_TIMEOUT_NS, &e) < 0) {
		peer_fail(p, "", e.msg);
		return -1;
	}
	return 0;
}

static void send_ping(struct ix_coord_peer *p)
{
	json_t *j = json_object();

	p->sent_at = ix_now_ns();
	if (send_frame(p, IX_MSG_PING, j) == 0)
		p->state = P_PING;
	json_decref(j);
}

/* Start a non-blocking connect to the host's next address; when none is
 * left, the peer fails with the last address's reason (why). Each address
 * gets an equal share of the time left, the last one all of it. */
static void connect_next(struct ix_coord *co, struct ix_coord_peer *p, const char *why,
			 int64_t deadline)
{
	char prefix[IX_HOST_NAME_MAX + 48], last[128];
	int one = 1;

	snprintf(last, sizeof(last), "%s", why);
	close_fd(p);
	while (p->next_addr) {
		struct addrinfo *ai = p->next_addr;
		uint32_t left = 0;
		int fd;

		for (struct addrinfo *x = ai; x; x = x->ai_next)
			left++;
		p->next_addr = ai->ai_next;
		p->attempt_end = ix_now_ns() + (deadline - ix_now_ns()) / (int64_t)left;
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			snprintf(last, sizeof(last), "%s", strerror(errno));
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS) {
			p->fd = fd;
			watch(co, p);
			if (peer_timer(p) < co->timer)
				co->timer = peer_timer(p);
			return;
		}
		snprintf(last, sizeof(last), "%s", strerror(errno));
		close(fd);
	}
	if (ix_now_ns() + RETRY_NS < p->retry_end && p->addrs) {
		/* Not listening yet (a task still starting): again shortly. */
		p->retry_at = ix_now_ns() + RETRY_NS;
		if (p->retry_at < co->timer)
			co->timer = p->retry_at;
		return;
	}
	snprintf(prefix, sizeof(prefix), "cannot connect to %s port %u", p->host.name,
		 p->host.port);
	peer_fail(p, prefix, last);
}

/* Resolve the host and start connecting to its first address. */
static void connect_start(struct ix_coord *co, struct ix_coord_peer *p, int64_t deadline)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	char port[8], why[IX_HOST_NAME_MAX + 64];
	int rc;

	p->fd = -1;
	snprintf(port, sizeof(port), "%u", p->host.port);
	rc = getaddrinfo(p->host.name, port, &hints, &p->addrs);
	if (rc != 0) {
		p->addrs = NULL;
		snprintf(why, sizeof(why), "cannot resolve '%s': %s", p->host.name,
			 gai_strerror(rc));
		peer_fail(p, "", why);
		return;
	}
	p->next_addr = p->addrs;
	connect_next(co, p, "no address", deadline);
}

/* The connect finished: say HELLO. */
static void on_connected(struct ix_coord *co, struct ix_coord_peer *p, int64_t deadline)
{
	struct ix_err e = { 0 };
	char host[256] = "";
	int soerr = 0;
	socklen_t sl = sizeof(soerr);
	json_t *hello;

	if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
		connect_next(co, p, strerror(soerr ? soerr : errno), deadline);
		return;
	}
	free_addrs(p);
	if (ix_auth_challenge(p->nonce, &e) < 0) {
		peer_fail(p, "", e.msg);
		return;
	}
	gethostname(host, sizeof(host) - 1);
	hello = json_pack("{s:s,s:s,s:i,s:s,s:s}", "host", host, "version", PACKAGE_VERSION,
			  "protocol", IX_PROTO_VERSION, "nonce", p->nonce, "role", "coordinator");
	if (send_frame(p, IX_MSG_HELLO, hello) == 0)
		p->state = P_HELLO;
	json_decref(hello);
}

/* One frame from a peer during the handshake. */
static void on_handshake_frame(struct ix_coord *co, struct ix_coord_peer *p, uint16_t type,
			       json_t *body)
{
	struct ix_err e = { 0 };
	char mac[IX_AUTH_HEX];

	if (type == IX_MSG_ERROR) {
		peer_fail(p, "refused", json_string_value(json_object_get(body, "error")) ?: "?");
		return;
	}
	if (p->state == P_HELLO && type == IX_MSG_HELLO_ACK) {
		if (ix_client_answer_hello(p->host.name, co->token, body, p->nonce, mac,
					   &p->unauthenticated, &e) < 0) {
			peer_fail(p, "", e.msg);
		} else if (mac[0]) {
			json_t *j = json_pack("{s:s,s:s}", "mac", mac, "seal", IX_SEAL_NAME);

			snprintf(p->challenge, sizeof(p->challenge), "%s",
				 json_string_value(json_object_get(body, "challenge")));
			if (send_frame(p, IX_MSG_AUTH, j) == 0)
				p->state = P_AUTH;
			json_decref(j);
		} else {
			send_ping(p);
		}
	} else if (p->state == P_AUTH && type == IX_MSG_AUTH_OK) {
		if (ix_client_seal(p->fd, p->host.name, co->token, p->challenge, p->nonce, &e) < 0)
			peer_fail(p, "", e.msg);
		else
			send_ping(p);
	} else if (p->state == P_PING && type == IX_MSG_PONG) {
		int64_t rtt = ix_now_ns() - p->sent_at;

		if (!p->rtt_ns || rtt < p->rtt_ns)
			p->rtt_ns = rtt;
		if (++p->pings < PINGS)
			send_ping(p);
		else
			p->state = P_READY;
	} else {
		peer_fail(p, "protocol error: unexpected", ix_msg_name(type));
	}
}

int ix_coord_open(struct ix_coord *co, const struct ix_hostlist *hosts,
		  const struct ix_token *token, double timeout_s, struct ix_err *err)
{
	return ix_coord_open_patient(co, hosts, token, timeout_s, 0, err);
}

/* One peer's descriptor is ready during the handshake. */
static void on_handshake_event(struct ix_coord *co, struct ix_coord_peer *p, int64_t deadline)
{
	struct ix_err e = { 0 };
	uint16_t type;
	json_t *body;
	int got;

	if (p->state == P_CONNECTING) {
		on_connected(co, p, deadline);
		return;
	}
	while (p->state != P_FAILED && p->state != P_READY &&
	       (got = ix_frame_reader_feed(&p->rd, p->fd, &type, &body, &e)) != 0) {
		if (got < 0) {
			peer_fail(p, "", e.msg);
			break;
		}
		on_handshake_frame(co, p, type, body);
		json_decref(body);
	}
}

/* The earliest connect deadline has passed: an address that did not
 * answer in its share gives way to the next one, a starting agent is
 * tried again. The only pass over every peer, once per deadline, not per
 * wake-up; returns the peers that stopped waiting. */
static uint32_t fire_timers(struct ix_coord *co, int64_t deadline)
{
	int64_t now = ix_now_ns();
	uint32_t settled = 0;

	co->timer = INT64_MAX;
	for (uint32_t i = 0; i < co->n; i++) {
		struct ix_coord_peer *p = &co->peers[i];
		int64_t t = peer_timer(p);

		if (t <= now) {
			if (p->fd < 0)
				p->next_addr = p->addrs;
			connect_next(co, p, p->fd < 0 ? "no address" : "timed out", deadline);
			settled += !waiting(p);
			t = peer_timer(p);
		}
		if (t < co->timer)
			co->timer = t;
	}
	return settled;
}

int ix_coord_open_patient(struct ix_coord *co, const struct ix_hostlist *hosts,
			  const struct ix_token *token, double timeout_s, double startup_s,
			  struct ix_err *err)
{
	struct epoll_event ev[EVENTS];
	int64_t now = ix_now_ns(), deadline = now + ix_seconds_to_ns(timeout_s);
	int64_t retry_end = startup_s > 0 ? now + ix_seconds_to_ns(startup_s) : 0;
	uint32_t ready = 0, busy = 0;
	char why[128];

	memset(co, 0, sizeof(*co));
	co->n = (uint32_t)hosts->n;
	co->token = token;
	co->timeout_s = timeout_s;
	co->timer = INT64_MAX;
	co->peers = calloc(co->n ? co->n : 1, sizeof(*co->peers));
	if (!co->peers)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	co->ep = epoll_create1(EPOLL_CLOEXEC);
	if (co->ep < 0)
		snprintf(why, sizeof(why), "cannot create an epoll descriptor: %s",
			 strerror(errno));
	ix_net_raise_nofile();
	for (uint32_t i = 0; i < co->n; i++) {
		struct ix_coord_peer *p = &co->peers[i];

		p->host = hosts->v[i];
		p->fd = -1;
		p->state = P_CONNECTING;
		p->retry_end = retry_end;
		if (co->ep < 0)
			peer_fail(p, "", why);
		else
			connect_start(co, p, deadline);
		busy += waiting(p);
	}
	if (co->ep < 0)
		return ix_fail(err, IX_EXIT_FAIL, "%s", why);
	while (busy && ix_now_ns() < deadline) {
		int64_t wake = co->timer < deadline ? co->timer : deadline;
		int rc = epoll_wait(co->ep, ev, EVENTS, ix_ms_until(wake));

		if (rc < 0 && errno != EINTR)
			break;
		for (int k = 0; k < rc; k++) {
			struct ix_coord_peer *p = &co->peers[ev[k].data.u32];

			if (!waiting(p)) {
				quiet(co, p);
				continue;
			}
			on_handshake_event(co, p, deadline);
			watch(co, p);
			busy -= !waiting(p);
		}
		if (ix_now_ns() >= co->timer)
			busy -= fire_timers(co, deadline);
	}
	for (uint32_t i = 0; i < co->n; i++) {
		struct ix_coord_peer *p = &co->peers[i];

		if (p->state == P_READY)
			ready++;
		else if (p->state != P_FAILED)
			peer_fail(p, "", "no answer to the handshake in time");
	}
	return (int)ready;
}

static void finish_job(struct ix_coord_job *j, json_t *report, const char *error)
{
	j->report = report;
	snprintf(j->error, sizeof(j->error), "%s", error ? error : "");
}

/* Wait until deadline for each sent job's frame of type want (peers in
 * P_RUNNING); a peer that fails or answers otherwise takes its job down,
 * its reason after gone or refused, or late when it is silent. Returns the
 * jobs answered. */
static uint32_t collect(struct ix_coord *co, struct ix_coord_job *jobs, uint32_t n, uint16_t want,
			int64_t deadline, const char *gone, const char *refused, const char *late)
{
	struct epoll_event ev[EVENTS];
	uint32_t pending = 0, done = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct ix_coord_peer *p = &co->peers[jobs[i].peer];

		if (p->state == P_RUNNING) {
			p->job = i;
			pending++;
		}
	}
	while (pending && ix_now_ns() < deadline) {
		int rc = epoll_wait(co->ep, ev, EVENTS, ix_ms_until(deadline));

		if (rc < 0 && errno != EINTR)
			break;
		for (int k = 0; k < rc; k++) {
			uint32_t peer = ev[k].data.u32, i;
			struct ix_coord_peer *p = &co->peers[peer];
			struct ix_err e = { 0 };
			uint16_t type;
			json_t *body;
			int got;

			if (p->state != P_RUNNING || p->job >= n || jobs[p->job].peer != peer) {
				quiet(co, p);
				continue;
			}
			i = p->job;
			got = ix_frame_reader_feed(&p->rd, p->fd, &type, &body, &e);
			if (got == 0)
				continue;
			pending--;
			if (got < 0) {
				peer_fail(p, gone, e.msg);
				finish_job(&jobs[i], NULL, p->error);
			} else if (type == want) {
				p->state = P_READY;
				finish_job(&jobs[i], body, NULL);
				done++;
			} else {
				const char *m = json_string_value(json_object_get(body, "error"));
				peer_fail(p, refused, m ? m : ix_msg_name(type));
				finish_job(&jobs[i], NULL, p->error);
				json_decref(body);
			}
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct ix_coord_peer *p = &co->peers[jobs[i].peer];
		if (p->state == P_RUNNING) {
			peer_fail(p, "", late);
			finish_job(&jobs[i], NULL, p->error);
		}
	}
	return done;
}

/* Send job i's body as a frame of type to its peer; false (the job
 * finished with the reason) when the peer is not ready or the send fails. */
static bool send_job(struct ix_coord *co, struct ix_coord_job *j, uint16_t type)
{
	struct ix_coord_peer *p = &co->peers[j->peer];

	if (p->state != P_READY) {
		finish_job(j, NULL, p->error[0] ? p->error : "agent not ready");
		return false;
	}
	if (send_frame(p, type, j->run) < 0) {
		finish_job(j, NULL, p->error);
		return false;
	}
	p->state = P_RUNNING;
	watch(co, p);
	if (p->state != P_RUNNING) { /* it cannot be waited on */
		finish_job(j, NULL, p->error);
		return false;
	}
	return true;
}

uint32_t ix_coord_dispatch(struct ix_coord *co, struct ix_coord_job *jobs, uint32_t n,
			   double timeout_s)
{
	int64_t max_rtt = 0, start;

	for (uint32_t i = 0; i < n; i++) {
		struct ix_coord_peer *p = &co->peers[jobs[i].peer];

		jobs[i].report = NULL;
		jobs[i].error[0] = '\0';
		if (p->rtt_ns > max_rtt)
			max_rtt = p->rtt_ns;
	}
	/* One moment for everyone: after the slowest RUN has arrived. */
	start = ix_now_ns() + START_MARGIN_NS + max_rtt + (int64_t)n * 20000;
	for (uint32_t i = 0; i < n; i++) {
		struct ix_coord_peer *p = &co->peers[jobs[i].peer];
		int64_t delay = start - ix_now_ns() - p->rtt_ns / 2;

		if (p->state == P_READY)
			json_object_set_new(jobs[i].run, "delay_us",
					    json_integer(delay > 0 ? delay / 1000 : 0));
		send_job(co, &jobs[i], IX_MSG_RUN);
	}
	return collect(co, jobs, n, IX_MSG_REPORT, start + ix_seconds_to_ns(timeout_s),
		       "agent went away during the test", "agent refused the job",
		       "no report before the deadline");
}

uint32_t ix_coord_ask(struct ix_coord *co, struct ix_coord_job *jobs, uint32_t n, uint16_t type,
		      uint16_t want, double timeout_s)
{
	for (uint32_t i = 0; i < n; i++) {
		jobs[i].report = NULL;
		jobs[i].error[0] = '\0';
		send_job(co, &jobs[i], type);
	}
	return collect(co, jobs, n, want, ix_now_ns() + ix_seconds_to_ns(timeout_s),
		       "agent went away", "agent refused the request",
		       "no answer before the deadline");
}

void ix_coord_close(struct ix_coord *co)
{
	for (uint32_t i = 0; co->peers && i < co->n; i++) {
		close_fd(&co->peers[i]);
		free_addrs(&co->peers[i]);
		ix_frame_reader_reset(&co->peers[i].rd);
	}
	if (co->peers && co->ep >= 0)
		close(co->ep);
	free(co->peers);
	memset(co, 0, sizeof(*co));
	co->ep = -1;
}

void ix_coord_fail_peer(struct ix_coord *co, uint32_t peer, const char *why)
{
	if (peer < co->n)
		peer_fail(&co->peers[peer], "", why);
}
