#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "probes/agent/agent.h"
#include "probes/agent/session.h"
#include "probes/core/clock.h"
#include "probes/core/probe.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/seal.h"

#define STOP_WAIT_S      30.0
#define WORKER_IDLE_S    10 /* a worker without a connection for this long ends */
#define MAX_IDLE_WORKERS 32
#define STOP_CHECK_MS    1000 /* the stop flag without ix_agent_stop, at the latest */
/* A connection's first message, HELLO or ATTACH, takes a few hundred
 * bytes: a stranger gets no more before it says what it is. */
#define FIRST_FRAME_MAX 4096
/* A connection in its handshake this long is stalled: a newer one may
 * take its place when connections are short (a client sends at once). */
#define STALLED_NS (1000LL * 1000 * 1000)

/* A connection being served, on the agent's list (a->conns). */
struct ix_agent_conn {
	struct ix_agent_conn *next;
	struct ix_agent_conn *qnext; /* on a->queue */
	struct ix_agent *a;
	int fd;
	bool session; /* said HELLO: a control session */
	bool greeted; /* its session's handshake is done */
	bool proven;  /* ... with the token */
	bool evicted; /* shut for a newer one while it had said nothing */
	int64_t accepted_ns;
	struct sockaddr_storage addr;
	char peer[64];
};

void ix_agent_config_defaults(struct ix_agent_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_tests = 16;
	cfg->max_tests_per_addr = 8;
	cfg->max_conns = 1024;
	cfg->max_sessions_per_addr = 32;
	/* Room for a whole test's data connections arriving at once. */
	cfg->max_pending_per_addr = 2 * IX_MAX_STREAMS + 64;
	cfg->max_mem = 2ull << 30;
	cfg->max_test_mem = 512ull << 20;
	cfg->silence_s = 10;
	cfg->limits.max_duration_s = 3600;
	cfg->limits.max_streams = IX_MAX_STREAMS;
	cfg->handshake_s = 5;
	cfg->idle_s = 60;
	cfg->rdma_gpu = -1;
}

int ix_agent_parse_allow(const char *list, struct ix_agent_config *cfg, struct ix_err *err)
{
	const char *p = list;

	cfg->n_allow_run = 0;
	cfg->allow_run_any = false;
	while (p && *p) {
		size_t len = strcspn(p, ",");
		char item[INET6_ADDRSTRLEN + 1];
		struct sockaddr_storage *ss = &cfg->allow_run[cfg->n_allow_run];

		if (len == 0 || len >= sizeof(item))
			return ix_fail(err, IX_EXIT_USAGE, "--allow-run: '%.*s' is not an address",
				       (int)(len > 64 ? 64 : len), p);
		memcpy(item, p, len);
		item[len] = '\0';
		if (strcmp(item, "any") == 0) {
			cfg->allow_run_any = true;
		} else if (cfg->n_allow_run == IX_AGENT_MAX_ALLOW) {
			return ix_fail(err, IX_EXIT_USAGE, "--allow-run: more than %d addresses",
				       IX_AGENT_MAX_ALLOW);
		} else {
			memset(ss, 0, sizeof(*ss));
			if (inet_pton(AF_INET, item, &((struct sockaddr_in *)ss)->sin_addr) == 1)
				ss->ss_family = AF_INET;
			else if (inet_pton(AF_INET6, item,
					   &((struct sockaddr_in6 *)ss)->sin6_addr) == 1)
				ss->ss_family = AF_INET6;
			else
				return ix_fail(err, IX_EXIT_USAGE,
					       "--allow-run: '%s' is not an IPv4 or IPv6 address "
					       "(nor 'any')",
					       item);
			cfg->n_allow_run++;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Connections from c's address on the list, sessions only or all. */
static uint32_t from_same_addr(const struct ix_agent *a, const struct ix_agent_conn *c,
			       bool sessions)
{
	uint32_t n = 0;

	for (const struct ix_agent_conn *o = a->conns; o; o = o->next)
		if (o != c && (!sessions || o->session) && ix_net_same_source(&o->addr, &c->addr))
			n++;
	return n;
}

/* HELLO: c becomes a control session, unless its address holds enough. */
static int become_session(struct ix_agent *a, struct ix_agent_conn *c)
{
	uint32_t cap = a->cfg.max_sessions_per_addr;
	int rc = 0;

	pthread_mutex_lock(&a->lock);
	if (cap && from_same_addr(a, c, true) >= cap) {
		rc = -1;
		a->refused_by[IX_AGENT_REFUSE_CONNECTIONS]++;
	} else
		c->session = true;
	pthread_mutex_unlock(&a->lock);
	return rc;
}

static void conn_end(struct ix_agent *a, struct ix_agent_conn *c)
{
	pthread_mutex_lock(&a->lock);
	for (struct ix_agent_conn **pp = &a->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	a->active_conns--;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	free(c);
}

/* The connection's socket is closed: the shutdown at stop must not touch
 * its number, which another connection may get next. */
static void drop_fd(struct ix_agent *a, struct ix_agent_conn *c, int fd)
{
	pthread_mutex_lock(&a->lock);
	c->fd = -1;
	pthread_mutex_unlock(&a->lock);
	if (fd >= 0) {
		ix_seal_unbind(fd);
		close(fd);
	}
}

static void serve_conn(struct ix_agent_conn *c)
{
	struct ix_agent *a = c->a;
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *body;
	int fd = c->fd;

	if (ix_frame_recv_upto(fd, FIRST_FRAME_MAX, &type, &body,
			       ix_now_ns() + ix_seconds_to_ns(a->cfg.handshake_s), &err) < 0) {
		ix_agent_logf(a, "%s: refused: %s", c->peer, err.msg);
		ix_agent_send_error(fd, IX_EXIT_FAIL, err.msg);
		drop_fd(a, c, fd);
	} else if (type == IX_MSG_ATTACH) {
		/* The test owns fd from here, or handle_attach closed it. */
		drop_fd(a, c, -1);
		ix_agent_attach(a, fd, body, c->peer);
		json_decref(body);
	} else if (type == IX_MSG_HELLO && become_session(a, c) < 0) {
		ix_agent_log_refusal(a, c->peer, "too many sessions from this address");
		ix_agent_send_error(fd, IX_EXIT_FAIL,
				    "server busy: too many sessions from your address");
		json_decref(body);
		drop_fd(a, c, fd);
	} else if (type == IX_MSG_HELLO) {
		const char *host = json_string_value(json_object_get(body, "host"));
		const char *ver = json_string_value(json_object_get(body, "version"));

		ix_agent_logf(a, "%s: client connected (%.64s, ixperf %.16s)", c->peer,
			      host ? host : "?", ver ? ver : "?");
		ix_agent_serve_control(a, c, fd, body, c->peer);
		drop_fd(a, c, fd);
		ix_agent_logf(a, "%s: session ended", c->peer);
		if (a->cfg.one_shot)
			ix_agent_stop(a);
	} else {
		ix_agent_logf(a, "%s: refused: %s before HELLO", c->peer, ix_msg_name(type));
		ix_agent_send_error(fd, IX_EXIT_FAIL, "expected HELLO or ATTACH");
		json_decref(body);
		drop_fd(a, c, fd);
	}
	conn_end(a, c);
}

/* A worker: serves its connection, then the ones the accept loop queues,
 * until none came for WORKER_IDLE_S, or the agent stops. */
/* A worker about to end lets go of libcrypto's state for its thread now,
 * before it counts itself out: left to the thread's exit, that cleanup
 * could run after the agent's stop saw no worker left and the process's
 * exit had freed libcrypto's locks (ThreadSanitizer caught one). */
static void thread_done(void)
{
	OPENSSL_thread_stop();
}

static void *worker_main(void *arg)
{
	struct ix_agent_conn *c = arg;
	struct ix_agent *a = c->a;

	for (;;) {
		struct timespec until;

		serve_conn(c);
		c = NULL;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += WORKER_IDLE_S;
		pthread_mutex_lock(&a->lock);
		if (a->idle_workers >= MAX_IDLE_WORKERS) {
			thread_done();
			a->workers--;
			pthread_cond_broadcast(&a->cond);
			pthread_mutex_unlock(&a->lock);
			return NULL;
		}
		a->idle_workers++;
		while (!a->queue && !atomic_load(a->stop))
			if (pthread_cond_timedwait(&a->work, &a->lock, &until) != 0)
				break;
		if (a->queue) {
			/* the accept loop counted this worker busy already */
			c = a->queue;
			a->queue = c->qnext;
		} else {
			thread_done();
			a->idle_workers--;
			a->workers--;
			pthread_cond_broadcast(&a->cond);
		}
		pthread_mutex_unlock(&a->lock);
		if (!c)
			return NULL;
	}
}

/* c to an idle worker, or to a new one; 0, or -1 when no thread starts. */
static int hand_over(struct ix_agent *a, struct ix_agent_conn *c, pthread_attr_t *attr)
{
	pthread_t th;
	int rc = 0;

	pthread_mutex_lock(&a->lock);
	if (a->idle_workers > 0) {
		a->idle_workers--;
		c->qnext = NULL;
		struct ix_agent_conn **pp = &a->queue;
		while (*pp)
			pp = &(*pp)->qnext;
		*pp = c;
		pthread_cond_signal(&a->work);
	} else if (pthread_create(&th, attr, worker_main, c) == 0) {
		a->workers++;
	} else {
		rc = -1;
	}
	pthread_mutex_unlock(&a->lock);
	return rc;
}

/* As many descriptors as the hard limit allows; the connection cap then
 * leaves room for the tests' own sockets (a quarter of the rest). */
static void fit_descriptors(struct ix_agent *a)
{
	struct rlimit rl;
	uint64_t room;

	ix_net_raise_nofile();
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return;
	room = rl.rlim_cur > 64 ? (rl.rlim_cur - 32) / 4 : 8;
	if (!a->cfg.max_conns || a->cfg.max_conns > room)
		a->cfg.max_conns = (uint32_t)(room > 8 ? room : 8);
}

int ix_agent_open(struct ix_agent *a, const struct ix_agent_config *cfg, atomic_int *stop,
		  struct ix_err *err)
{
	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	a->stop = stop;
	a->wake[0] = a->wake[1] = -1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	pthread_cond_init(&a->work, NULL);
	ix_link_cache_init(&a->links, cfg->sysfs);
	fit_descriptors(a);
	if (pipe2(a->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		a->listen_fd = -1;
		return ix_fail(err, IX_EXIT_FAIL, "cannot create a pipe: %s", strerror(errno));
	}
	a->listen_fd = ix_net_listen(cfg->bind_addr, cfg->port, 128, err);
	if (a->listen_fd < 0) {
		close(a->wake[0]);
		close(a->wake[1]);
		a->wake[0] = a->wake[1] = -1;
		return -1;
	}
	return 0;
}

void ix_agent_stop(struct ix_agent *a)
{
	int saved = errno;

	atomic_store(a->stop, 1);
	if (a->wake[1] >= 0 && write(a->wake[1], "x", 1) < 0) {
		/* full: the loop is awake already */
	}
	errno = saved;
}

uint16_t ix_agent_port(const struct ix_agent *a)
{
	return ix_net_local_port(a->listen_fd);
}

void ix_agent_conn_greeted(struct ix_agent *a, struct ix_agent_conn *c, bool authenticated)
{
	if (!c)
		return;
	pthread_mutex_lock(&a->lock);
	c->greeted = true;
	c->proven = authenticated;
	pthread_mutex_unlock(&a->lock);
}

/* Room for a new connection (caller holds a->lock): NULL, or why there
 * is none. Connections that have not proved the token may hold all but a
 * quarter of --max-conns on an agent with one, the rest is kept for
 * authenticated sessions; at either bound the oldest connection stalled
 * in its handshake is shut to make room (its thread then ends), so that
 * idle connections never lock a coordinator out. */
static const char *make_room(struct ix_agent *a, int64_t now, char *shut, size_t len)
{
	uint32_t max = a->cfg.max_conns, share, live = 0, unproven = 0;
	struct ix_agent_conn *stalled = NULL;
	bool token = a->cfg.token && a->cfg.token->set;

	if (!max)
		return NULL;
	share = token ? max - max / 4 : max;
	for (struct ix_agent_conn *o = a->conns; o; o = o->next) {
		if (o->evicted)
			continue;
		live++;
		unproven += !o->proven;
		/* newest first: the last one found is the oldest */
		if (!o->greeted && o->fd >= 0 && now - o->accepted_ns >= STALLED_NS)
			stalled = o;
	}
	if (live < max && unproven < share)
		return NULL;
	if (!stalled)
		return live >= max ? "too many connections"
				   : "too many connections not yet authenticated";
	stalled->evicted = true;
	snprintf(shut, len, "%s", stalled->peer);
	shutdown(stalled->fd, SHUT_RDWR);
	a->evicted++;
	return NULL;
}

/* Why a new connection is turned away, or NULL; counts it when not.
 * shut gets the peer of a stalled connection closed for it, or "". */
static const char *admit(struct ix_agent *a, struct ix_agent_conn *c, char *shut, size_t len)
{
	const char *why = NULL;

	shut[0] = '\0';
	pthread_mutex_lock(&a->lock);
	c->accepted_ns = ix_now_ns();
	if ((why = make_room(a, c->accepted_ns, shut, len)) != NULL) {
		/* no room */
	} else if (a->cfg.max_pending_per_addr &&
		   from_same_addr(a, c, false) >= a->cfg.max_pending_per_addr)
		why = "too many connections from this address";
	if (!why) {
		a->active_conns++;
		c->next = a->conns;
		a->conns = c;
	} else {
		a->refused_by[IX_AGENT_REFUSE_CONNECTIONS]++;
	}
	pthread_mutex_unlock(&a->lock);
	return why;
}

/* One connection from the listening socket, served by its own thread. A
 * descriptor shortage is waited out, not spun on. */
static void accept_one(struct ix_agent *a, pthread_attr_t *attr)
{
	struct ix_agent_conn *c = calloc(1, sizeof(*c));
	socklen_t alen = sizeof(struct sockaddr_storage);
	char busy[96], shut[sizeof(c->peer)];
	const char *why;
	int fd;

	if (!c) {
		poll(NULL, 0, 100);
		return;
	}
	fd = accept4(a->listen_fd, (struct sockaddr *)&c->addr, &alen, SOCK_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(c);
		if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) {
			ix_agent_log_refusal(a, "agent",
					     e == EMFILE ? "out of file descriptors: new "
							   "connections wait in the backlog"
							 : strerror(e));
			poll(NULL, 0, 100);
		}
		return;
	}
	c->a = a;
	c->fd = fd;
	ix_net_peer_name(fd, c->peer, sizeof(c->peer));
	why = admit(a, c, shut, sizeof(shut));
	if (shut[0])
		ix_agent_log_refusal(a, shut,
				     "closed: stalled in its handshake while connections "
				     "were short");
	if (why) {
		ix_agent_log_refusal(a, c->peer, why);
		snprintf(busy, sizeof(busy), "server busy: %s", why);
		ix_agent_send_error(fd, IX_EXIT_FAIL, busy);
		close(fd);
		free(c);
		return;
	}
	if (hand_over(a, c, attr) < 0) {
		ix_agent_log_refusal(a, c->peer, "cannot start a thread for the connection");
		ix_agent_send_error(fd, IX_EXIT_FAIL, "server busy: cannot start a thread");
		drop_fd(a, c, fd);
		conn_end(a, c);
	}
}

int ix_agent_run(struct ix_agent *a, struct ix_err *err)
{
	pthread_attr_t attr;
	int64_t deadline;
	int rc = 0;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	while (!atomic_load(a->stop)) {
		struct pollfd pfd[2] = { { .fd = a->listen_fd, .events = POLLIN },
					 { .fd = a->wake[0], .events = POLLIN } };

		/* Asleep until a connection or ix_agent_stop: idle agents
		 * cost nothing (many share a node under a launcher). */
		if (poll(pfd, 2, a->cfg.stop_check_ms ? (int)a->cfg.stop_check_ms : STOP_CHECK_MS) >
			    0 &&
		    (pfd[0].revents & POLLIN))
			accept_one(a, &attr);
	}
	pthread_attr_destroy(&attr);
	/* End every session: their blocking reads end at once (they can still
	 * say why), running tests and RUN jobs see the stop flag. Then wait
	 * for their threads, which use a. */
	pthread_mutex_lock(&a->lock);
	for (struct ix_agent_conn *c = a->conns; c; c = c->next)
		if (c->fd >= 0)
			shutdown(c->fd, SHUT_RD);
	pthread_cond_broadcast(&a->work); /* idle workers end */
	deadline = ix_now_ns() + ix_seconds_to_ns(STOP_WAIT_S);
	while ((a->active_conns > 0 || a->workers > 0) && ix_now_ns() < deadline) {
		struct timespec ts = { time(NULL) + 1, 0 };
		pthread_cond_timedwait(&a->cond, &a->lock, &ts);
	}
	if (a->active_conns > 0 || a->workers > 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "%u session(s) still running %.0f s after the stop",
			     a->active_conns, STOP_WAIT_S);
	pthread_mutex_unlock(&a->lock);
	return rc;
}

void ix_agent_stats_read(struct ix_agent *a, struct ix_agent_stats *out)
{
	pthread_mutex_lock(&a->lock);
	out->tests_served = a->tests_run;
	memcpy(out->refused, a->refused_by, sizeof(out->refused));
	out->tests_running = a->active_tests;
	out->connections = a->active_conns;
	out->mem_held = a->mem_in_use;
	out->mem_limit = a->cfg.max_mem;
	pthread_mutex_unlock(&a->lock);
}

void ix_agent_close(struct ix_agent *a)
{
	if (a->listen_fd >= 0)
		close(a->listen_fd);
	a->listen_fd = -1;
	for (int i = 0; i < 2; i++) {
		if (a->wake[i] >= 0)
			close(a->wake[i]);
		a->wake[i] = -1;
	}
	ix_link_cache_destroy(&a->links);
}
