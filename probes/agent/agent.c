#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/agent/agent.h"
#include "probes/cluster/runner.h"
#include "probes/core/clock.h"
#include "probes/ctl/auth.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/sampler.h"
#include "probes/net/transport.h"
#include "probes/rdma/session.h"

#define SETUP_TIMEOUT_S 10.0
#define FINISH_GRACE_S  3.0
#define HARD_EXTRA_S    30.0

struct ix_agent_test {
	struct ix_agent_test *next;
	char cookie[IX_COOKIE_LEN + 1];
	uint32_t n;
	struct ix_stream *streams;
	uint32_t attached;
};

struct conn {
	struct ix_agent *a;
	int fd;
	char peer[64];
};

static void logf_(struct ix_agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct ix_agent *a, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	if (!a->cfg.log)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	a->cfg.log(a->cfg.log_arg, buf);
}

static void make_cookie(char *out)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t raw[IX_COOKIE_LEN / 2];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		/* getrandom on Linux does not fail for small sizes once seeded. */
		for (size_t i = 0; i < sizeof(raw); i++)
			raw[i] = (uint8_t)(ix_now_ns() >> (i % 8));
	}
	for (size_t i = 0; i < sizeof(raw); i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[IX_COOKIE_LEN] = '\0';
}

static void send_error(int fd, int code, const char *msg)
{
	json_t *j = json_pack("{s:s,s:i}", "error", msg, "code", code);
	ix_frame_send(fd, IX_MSG_ERROR, j, ix_now_ns() + 500 * 1000000LL, NULL);
	json_decref(j);
}

/* ---- data connections ---------------------------------------------- */

static void handle_attach(struct ix_agent *a, int fd, json_t *body, const char *peer)
{
	const char *cookie = json_string_value(json_object_get(body, "cookie"));
	json_t *jid = json_object_get(body, "stream");
	struct ix_agent_test *t;
	struct sockaddr_storage from;
	const char *why = "unknown test cookie";

	pthread_mutex_lock(&a->lock);
	for (t = a->tests; t && cookie; t = t->next) {
		json_int_t id;

		if (strcmp(t->cookie, cookie) != 0)
			continue;
		id = json_is_integer(jid) ? json_integer_value(jid) : -1;
		/* The whole 64-bit value: the peer chose it. */
		if (id < 0 || id >= (json_int_t)t->n) {
			why = "stream index out of range";
		} else if (t->streams[id].fd >= 0) {
			why = "stream already attached";
		} else if (ix_net_peer_addr(fd, &from) < 0 ||
			   !ix_net_same_host(&from, &t->streams[id].ctrl_peer)) {
			why = "data connection from another host than the test's client";
		} else {
			t->streams[id].fd = fd;
			t->attached++;
			pthread_cond_broadcast(&a->cond);
			pthread_mutex_unlock(&a->lock);
			return;
		}
		break;
	}
	pthread_mutex_unlock(&a->lock);
	logf_(a, "%s: data connection refused: %s", peer, why);
	send_error(fd, IX_EXIT_FAIL, why);
	close(fd);
}

/* ---- tests ------------------------------------------------------------- */

struct session {
	struct ix_agent *a;
	int fd;
	const char *peer;
	bool authenticated;
	struct ix_err err;
};

static int claim_test_slot(struct ix_agent *a)
{
	int ok;

	pthread_mutex_lock(&a->lock);
	ok = !a->cfg.max_tests || a->active_tests < a->cfg.max_tests;
	if (ok)
		a->active_tests++;
	else
		a->refused++;
	pthread_mutex_unlock(&a->lock);
	return ok ? 0 : -1;
}

static void release_test(struct ix_agent *a, struct ix_agent_test *t, bool registered)
{
	pthread_mutex_lock(&a->lock);
	if (registered && t) {
		struct ix_agent_test **pp = &a->tests;
		while (*pp && *pp != t)
			pp = &(*pp)->next;
		if (*pp)
			*pp = t->next;
	}
	a->active_tests--;
	a->tests_run++;
	pthread_mutex_unlock(&a->lock);
}

/* Open every stream's channel: TEST_ACK with setup, wait for attachments. */
static int setup_streams(struct session *ss, struct ix_agent_test *t, const struct ix_transport *tp,
			 bool *registered)
{
	struct ix_agent *a = ss->a;
	json_t *setups = json_array(), *ack;
	int64_t deadline = ix_now_ns() + ix_seconds_to_ns(SETUP_TIMEOUT_S);
	int rc;

	make_cookie(t->cookie);
	for (uint32_t i = 0; i < t->n; i++) {
		json_t *o = json_object();
		t->streams[i].tp = tp;
		ix_net_peer_addr(ss->fd, &t->streams[i].ctrl_peer);
		if (tp->server_open && tp->server_open(&t->streams[i], ss->fd, o, &ss->err) < 0) {
			json_decref(o);
			json_decref(setups);
			return -1;
		}
		json_array_append_new(setups, o);
	}
	if (tp->caps & IX_CAP_ATTACH) {
		pthread_mutex_lock(&a->lock);
		t->next = a->tests;
		a->tests = t;
		pthread_mutex_unlock(&a->lock);
		*registered = true;
	}
	ack = json_pack("{s:s,s:o}", "cookie", t->cookie, "streams", setups);
	rc = ix_frame_send(ss->fd, IX_MSG_TEST_ACK, ack, deadline, &ss->err);
	json_decref(ack);
	if (rc < 0)
		return -1;
	if (tp->caps & IX_CAP_ATTACH) {
		struct timespec ts;
		pthread_mutex_lock(&a->lock);
		while (t->attached < t->n) {
			ts.tv_sec = time(NULL) + 1;
			ts.tv_nsec = 0;
			pthread_cond_timedwait(&a->cond, &a->lock, &ts);
			if (ix_now_ns() > deadline)
				break;
		}
		rc = t->attached == t->n ? 0 : -1;
		pthread_mutex_unlock(&a->lock);
		if (rc < 0)
			return ix_fail(&ss->err, IX_EXIT_FAIL,
				       "only %u of %u data connections arrived in %.0f s",
				       t->attached, t->n, SETUP_TIMEOUT_S);
	}
	for (uint32_t i = 0; i < t->n; i++)
		if (tp->server_accept(&t->streams[i], t->cookie, deadline, &ss->err) < 0)
			return -1;
	return 0;
}

static int wait_start(struct session *ss)
{
	uint16_t type;
	json_t *body;

	if (ix_frame_recv(ss->fd, &type, &body, ix_now_ns() + ix_seconds_to_ns(SETUP_TIMEOUT_S),
			  &ss->err) < 0)
		return -1;
	json_decref(body);
	if (type != IX_MSG_START)
		return ix_fail(&ss->err, IX_EXIT_FAIL, "expected START, got %s", ix_msg_name(type));
	return 0;
}

/* Run the armed streams until the client says STOP; send INTERVALs. */
static int run_streams(struct session *ss, struct ix_agent_test *t, double interval_s,
		       int64_t hard_deadline, atomic_int *stop)
{
	struct ix_sampler sm;
	struct ix_interval_stream e[2 * IX_MAX_STREAMS];
	int rc = 0;

	ix_sampler_init(&sm, interval_s, t->streams[0].t_start, t->n);
	if (ix_streams_start(t->streams, t->n, &ss->err) < 0)
		return -1;
	for (;;) {
		int64_t now = ix_now_ns(), next = ix_sampler_next(&sm), wake = hard_deadline;
		struct pollfd pfd = { .fd = ss->fd, .events = POLLIN };
		uint16_t type;
		json_t *body;

		if (now >= hard_deadline) {
			rc = ix_fail(&ss->err, IX_EXIT_FAIL,
				     "test exceeded the server's time limit");
			break;
		}
		if (atomic_load(ss->a->stop)) {
			rc = ix_fail(&ss->err, IX_EXIT_FAIL, "server shutting down");
			break;
		}
		if (next && next <= now) {
			json_t *iv;
			ix_sampler_take(&sm, t->streams, e);
			iv = ix_interval_to_wire(sm.next_k - 1, e, t->n);
			rc = ix_frame_send(ss->fd, IX_MSG_INTERVAL, iv, now + IX_NSEC_PER_SEC,
					   &ss->err);
			json_decref(iv);
			if (rc < 0)
				break;
			continue;
		}
		if (next && next < wake)
			wake = next;
		if (wake > now + 200 * 1000000LL)
			wake = now + 200 * 1000000LL;
		if (poll(&pfd, 1, ix_ms_until(wake)) <= 0)
			continue;
		if (ix_frame_recv(ss->fd, &type, &body, now + 5 * IX_NSEC_PER_SEC, &ss->err) < 0) {
			rc = ix_fail_prefix(&ss->err, "client vanished mid-test");
			break;
		}
		json_decref(body);
		if (type == IX_MSG_STOP)
			break;
		rc = ix_fail(&ss->err, IX_EXIT_FAIL, "unexpected %s during a test",
			     ix_msg_name(type));
		break;
	}
	/* Receivers normally end on their own (EOF, end markers); give them a
	 * grace period, then stop everything. Echo responders end on STOP. */
	{
		bool echo = t->streams[0].echo || t->streams[0].blocks;
		int64_t grace = ix_now_ns() + ix_seconds_to_ns(rc < 0 || echo ? 0 : FINISH_GRACE_S);
		while (!ix_streams_done(t->streams, t->n) && ix_now_ns() < grace)
			usleep(2000);
	}
	atomic_store(stop, 1);
	ix_streams_join(t->streams, t->n);
	if (rc == 0 && interval_s > 0) {
		/* The tail since the last tick. */
		json_t *iv;
		ix_sampler_take(&sm, t->streams, e);
		iv = ix_interval_to_wire(sm.next_k - 1, e, t->n);
		rc = ix_frame_send(ss->fd, IX_MSG_INTERVAL, iv, ix_now_ns() + IX_NSEC_PER_SEC,
				   &ss->err);
		json_decref(iv);
	}
	return rc;
}

static int send_result(struct session *ss, struct ix_agent_test *t, int64_t t0, struct rusage *ru0)
{
	json_t *arr = json_array(), *res;
	struct ix_cpu cpu;
	struct rusage ru1;
	int rc;

	for (uint32_t i = 0; i < t->n; i++) {
		struct ix_stream_end e;
		ix_stream_end_fill(&t->streams[i], &e);
		json_array_append_new(arr, json_pack("{s:i,s:b,s:o,s:o}", "id", (int)i, "sending",
						     t->streams[i].sending, "end",
						     ix_wire_stream_end(&e), "failed",
						     json_boolean(t->streams[i].failed)));
	}
	ix_streams_cpu(t->streams, t->n, ix_now_ns() - t0, &cpu);
	if (getrusage(RUSAGE_THREAD, &ru1) == 0) {
		cpu.user_s += (double)(ru1.ru_utime.tv_sec - ru0->ru_utime.tv_sec) +
			      (double)(ru1.ru_utime.tv_usec - ru0->ru_utime.tv_usec) / 1e6;
		cpu.system_s += (double)(ru1.ru_stime.tv_sec - ru0->ru_stime.tv_sec) +
				(double)(ru1.ru_stime.tv_usec - ru0->ru_stime.tv_usec) / 1e6;
	}
	res = json_pack("{s:o,s:o}", "streams", arr, "cpu", ix_wire_cpu(&cpu));
	rc = ix_frame_send(ss->fd, IX_MSG_RESULT, res, ix_now_ns() + 5 * IX_NSEC_PER_SEC, &ss->err);
	json_decref(res);
	return rc;
}

/* An RDMA test: the exchange and both engines live in probes/rdma/session.c. */
static int serve_rdma(struct session *ss, json_t *req)
{
	struct ix_agent *a = ss->a;
	struct ix_rdma_dev dev;
	struct ix_rdma_serve_cfg cfg = { .dev = &dev,
					 .devname = a->cfg.rdma_dev,
					 .limits = { .max_qps = a->cfg.limits.max_streams,
						     .max_duration_s =
							     a->cfg.limits.max_duration_s } };
	int rc;

	if (claim_test_slot(a) < 0)
		return ix_fail(&ss->err, IX_EXIT_FAIL, "server busy: %u tests already running",
			       a->cfg.max_tests);
	logf_(a, "%s: rdma test", ss->peer);
	rc = ix_rdma_hw_dev_new(&dev, NULL, a->cfg.rdma_gpu, &ss->err);
	if (rc == 0) {
		rc = ix_rdma_serve(ss->fd, req, &cfg, &ss->err);
		ix_rdma_hw_dev_free(&dev);
	}
	release_test(a, NULL, false);
	return rc;
}

static int serve_test(struct session *ss, json_t *req)
{
	struct ix_agent *a = ss->a;
	const char *kind = json_string_value(json_object_get(req, "kind"));
	struct ix_stream streams[2 * IX_MAX_STREAMS];
	struct ix_agent_test t;
	struct ix_bw_params bw;
	struct ix_lat_params lat;
	const struct ix_transport *tp;
	atomic_int stop = 0;
	bool registered = false, is_bw;
	struct rusage ru0;
	int64_t t0, hard;
	double interval = 0, total_s;
	char cc[IX_CC_NAME_MAX] = "";
	json_t *ready;
	int rc = -1;

	memset(&t, 0, sizeof(t));
	if (kind && strcmp(kind, "rdma") == 0)
		return serve_rdma(ss, req);
	is_bw = kind && strcmp(kind, "bw") == 0;
	if (is_bw) {
		if (ix_wire_parse_bw(json_object_get(req, "bw"), &a->cfg.limits, &bw, &ss->err) < 0)
			return -1;
		ix_bw_layout(&bw, false, streams, &t.n);
		tp = ix_transport_find(bw.path);
		interval = bw.interval_s;
		total_s = bw.bytes ? a->cfg.limits.max_duration_s : bw.warmup_s + bw.duration_s;
	} else if (kind && strcmp(kind, "lat") == 0) {
		if (ix_wire_parse_lat(json_object_get(req, "lat"), &a->cfg.limits, &lat, &ss->err) <
		    0)
			return -1;
		ix_stream_init(&streams[0], 0, IX_DIR_FORWARD, false);
		streams[0].msg_size = lat.msg_size;
		streams[0].busy_poll = lat.busy_poll;
		streams[0].echo = true;
		t.n = 1;
		tp = ix_transport_find(lat.path);
		total_s = lat.iters ? a->cfg.limits.max_duration_s : lat.warmup_s + lat.duration_s;
	} else if (kind && strcmp(kind, "block") == 0) {
		struct ix_read_params rp;

		if (ix_wire_parse_read(json_object_get(req, "block"), &a->cfg.limits, &rp,
				       &ss->err) < 0)
			return -1;
		/* One sending stream that answers block requests. */
		ix_stream_init(&streams[0], 0, IX_DIR_REVERSE, true);
		streams[0].msg_size = rp.sru;
		streams[0].blocks = true;
		t.n = 1;
		tp = ix_transport_find(rp.path);
		total_s = a->cfg.limits.max_duration_s;
	} else {
		return ix_fail(&ss->err, IX_EXIT_USAGE, "test request: unknown kind");
	}
	if (claim_test_slot(a) < 0)
		return ix_fail(&ss->err, IX_EXIT_FAIL, "server busy: %u tests already running",
			       a->cfg.max_tests);
	t.streams = streams;
	logf_(a, "%s: %s test over %s, %u stream(s)", ss->peer, kind, tp->name, t.n);
	if (setup_streams(ss, &t, tp, &registered) < 0)
		goto out;
	if (is_bw && tp->tune) {
		for (uint32_t i = 0; i < t.n; i++)
			if (tp->tune(&streams[i], &bw, cc, sizeof(cc), &ss->err) < 0)
				goto out;
	}
	ready = json_pack("{s:s}", "congestion", cc);
	rc = ix_frame_send(ss->fd, IX_MSG_READY, ready, ix_now_ns() + IX_NSEC_PER_SEC, &ss->err);
	json_decref(ready);
	if (rc < 0 || (rc = wait_start(ss)) < 0)
		goto out;
	t0 = ix_now_ns();
	getrusage(RUSAGE_THREAD, &ru0);
	if (is_bw) {
		ix_bw_arm(streams, t.n, &bw, tp, &stop, t0);
	} else { /* one responder stream: echo or blocks */
		streams[0].tp = tp;
		streams[0].stop = &stop;
		streams[0].t_start = streams[0].warm_until = t0;
	}
	hard = t0 + ix_seconds_to_ns((total_s > 0 ? total_s : 3600) + HARD_EXTRA_S);
	rc = run_streams(ss, &t, interval, hard, &stop);
	if (rc == 0)
		rc = send_result(ss, &t, t0, &ru0);
out:
	for (uint32_t i = 0; i < t.n; i++)
		if (streams[i].failed && rc == 0)
			logf_(a, "%s: stream %u: %s", ss->peer, i, streams[i].err.msg);
	release_test(a, &t, registered);
	ix_streams_close(streams, t.n);
	return rc;
}

/* HELLO_ACK, then the token handshake when the agent has a token. */
static int greet(struct session *ss, json_t *hello)
{
	struct ix_agent *a = ss->a;
	const char *cc = json_string_value(json_object_get(hello, "nonce"));
	char host[256] = "", sc[IX_AUTH_HEX], proof[IX_AUTH_HEX];
	bool token = a->cfg.token && a->cfg.token->set;
	uint16_t type;
	json_t *ack, *body;
	int rc;

	gethostname(host, sizeof(host) - 1);
	ack = json_pack("{s:s,s:s,s:i,s:f,s:i,s:s}", "host", host, "version", PACKAGE_VERSION,
			"protocol", IX_PROTO_VERSION, "max_duration", a->cfg.limits.max_duration_s,
			"max_streams", (int)a->cfg.limits.max_streams, "auth",
			token ? "hmac-sha256" : "none");
	if (token) {
		if (!cc || ix_auth_challenge(sc, &ss->err) < 0 ||
		    ix_auth_mac(a->cfg.token, "agent", sc, cc, proof) < 0) {
			json_decref(ack);
			return ix_fail(&ss->err, IX_EXIT_FAIL, "HELLO without a valid nonce");
		}
		json_object_set_new(ack, "challenge", json_string(sc));
		json_object_set_new(ack, "proof", json_string(proof));
	}
	rc = ix_frame_send(ss->fd, IX_MSG_HELLO_ACK, ack, ix_now_ns() + IX_NSEC_PER_SEC, &ss->err);
	json_decref(ack);
	if (rc < 0 || !token)
		return rc;
	if (ix_frame_recv(ss->fd, &type, &body, ix_now_ns() + ix_seconds_to_ns(a->cfg.handshake_s),
			  &ss->err) < 0)
		return -1;
	rc = type == IX_MSG_AUTH && ix_auth_verify(a->cfg.token, "client", sc, cc,
						   json_string_value(json_object_get(body, "mac")));
	json_decref(body);
	if (!rc)
		return ix_fail(&ss->err, IX_EXIT_FAIL, "authentication failed");
	ss->authenticated = true;
	body = json_object();
	rc = ix_frame_send(ss->fd, IX_MSG_AUTH_OK, body, ix_now_ns() + IX_NSEC_PER_SEC, &ss->err);
	json_decref(body);
	return rc;
}

static int serve_run(struct session *ss, json_t *req)
{
	struct ix_agent *a = ss->a;
	struct ix_runner_ctx ctx = { .token = a->cfg.token, .limits = &a->cfg.limits };
	json_t *report;
	int rc;

	if (claim_test_slot(a) < 0)
		return ix_fail(&ss->err, IX_EXIT_FAIL, "server busy: %u tests already running",
			       a->cfg.max_tests);
	logf_(a, "%s: RUN %s", ss->peer, ix_runner_describe(req));
	report = ix_runner_run(&ctx, req, &ss->err);
	release_test(a, NULL, false);
	if (!report) {
		/* A refused job is reported, and the session goes on. */
		logf_(a, "%s: RUN refused: %s", ss->peer, ss->err.msg);
		report = json_pack("{s:b,s:s}", "ok", 0, "error", ss->err.msg);
	}
	rc = ix_frame_send(ss->fd, IX_MSG_REPORT, report, ix_now_ns() + 5 * IX_NSEC_PER_SEC,
			   &ss->err);
	json_decref(report);
	return rc;
}

static void serve_control(struct ix_agent *a, int fd, json_t *hello, const char *peer)
{
	struct session ss = { .a = a, .fd = fd, .peer = peer };
	int rc;

	if (greet(&ss, hello) < 0) {
		logf_(a, "%s: refused: %s", peer, ss.err.msg);
		send_error(fd, IX_EXIT_FAIL, ss.err.msg);
		return;
	}
	while (!atomic_load(a->stop)) {
		uint16_t type;
		json_t *body;

		if (ix_frame_recv(fd, &type, &body, ix_now_ns() + ix_seconds_to_ns(a->cfg.idle_s),
				  &ss.err) < 0) {
			if (strstr(ss.err.msg, "closed by peer") == NULL)
				logf_(a, "%s: %s", peer, ss.err.msg);
			send_error(fd, IX_EXIT_FAIL, ss.err.msg);
			return;
		}
		if (type == IX_MSG_TEST) {
			rc = serve_test(&ss, body);
		} else if (type == IX_MSG_PING) {
			rc = ix_frame_send(fd, IX_MSG_PONG, body, ix_now_ns() + IX_NSEC_PER_SEC,
					   &ss.err);
		} else if (type == IX_MSG_RUN) {
			/* Traffic towards third hosts: only for an authenticated
			 * coordinator, or on an agent run without a token. */
			rc = ss.authenticated || !(a->cfg.token && a->cfg.token->set)
				     ? serve_run(&ss, body)
				     : ix_fail(&ss.err, IX_EXIT_FAIL, "RUN needs authentication");
		} else {
			rc = ix_fail(&ss.err, IX_EXIT_FAIL, "unexpected %s", ix_msg_name(type));
		}
		json_decref(body);
		if (rc < 0) {
			logf_(a, "%s: failed: %s", peer, ss.err.msg);
			send_error(fd, ss.err.code ? ss.err.code : IX_EXIT_FAIL, ss.err.msg);
			return;
		}
	}
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;
	struct ix_agent *a = c->a;
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *body;

	if (ix_frame_recv(c->fd, &type, &body, ix_now_ns() + ix_seconds_to_ns(a->cfg.handshake_s),
			  &err) < 0) {
		logf_(a, "%s: refused: %s", c->peer, err.msg);
		send_error(c->fd, IX_EXIT_FAIL, err.msg);
		close(c->fd);
	} else if (type == IX_MSG_ATTACH) {
		handle_attach(a, c->fd, body, c->peer);
		json_decref(body);
	} else if (type == IX_MSG_HELLO) {
		const char *host = json_string_value(json_object_get(body, "host"));
		const char *ver = json_string_value(json_object_get(body, "version"));

		logf_(a, "%s: client connected (%.64s, ixperf %.16s)", c->peer, host ? host : "?",
		      ver ? ver : "?");
		serve_control(a, c->fd, body, c->peer);
		json_decref(body);
		close(c->fd);
		logf_(a, "%s: session ended", c->peer);
		if (a->cfg.one_shot)
			atomic_store(a->stop, 1);
	} else {
		logf_(a, "%s: refused: %s before HELLO", c->peer, ix_msg_name(type));
		send_error(c->fd, IX_EXIT_FAIL, "expected HELLO or ATTACH");
		json_decref(body);
		close(c->fd);
	}
	pthread_mutex_lock(&a->lock);
	a->active_conns--;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	free(c);
	return NULL;
}

int ix_agent_open(struct ix_agent *a, const struct ix_agent_config *cfg, atomic_int *stop,
		  struct ix_err *err)
{
	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	a->stop = stop;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	a->listen_fd = ix_net_listen(cfg->bind_addr, cfg->port, 128, err);
	return a->listen_fd < 0 ? -1 : 0;
}

uint16_t ix_agent_port(const struct ix_agent *a)
{
	return ix_net_local_port(a->listen_fd);
}

int ix_agent_run(struct ix_agent *a, struct ix_err *err)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	while (!atomic_load(a->stop)) {
		struct pollfd pfd = { .fd = a->listen_fd, .events = POLLIN };
		struct conn *c;
		pthread_t th;
		int fd, full;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		fd = accept4(a->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		pthread_mutex_lock(&a->lock);
		full = a->cfg.max_conns && a->active_conns >= a->cfg.max_conns;
		if (!full)
			a->active_conns++;
		pthread_mutex_unlock(&a->lock);
		c = full ? NULL : calloc(1, sizeof(*c));
		if (!c) {
			if (!full) {
				pthread_mutex_lock(&a->lock);
				a->active_conns--;
				pthread_mutex_unlock(&a->lock);
			}
			send_error(fd, IX_EXIT_FAIL, "server busy: too many connections");
			close(fd);
			continue;
		}
		c->a = a;
		c->fd = fd;
		ix_net_peer_name(fd, c->peer, sizeof(c->peer));
		if (pthread_create(&th, &attr, conn_main, c) != 0) {
			close(fd);
			free(c);
			pthread_mutex_lock(&a->lock);
			a->active_conns--;
			pthread_mutex_unlock(&a->lock);
		}
	}
	pthread_attr_destroy(&attr);
	/* Let running sessions notice the stop and finish (bounded). */
	pthread_mutex_lock(&a->lock);
	{
		int64_t deadline = ix_now_ns() + 5 * IX_NSEC_PER_SEC;
		while (a->active_conns > 0 && ix_now_ns() < deadline) {
			struct timespec ts = { time(NULL) + 1, 0 };
			pthread_cond_timedwait(&a->cond, &a->lock, &ts);
		}
	}
	pthread_mutex_unlock(&a->lock);
	(void)err;
	return 0;
}

void ix_agent_close(struct ix_agent *a)
{
	if (a->listen_fd >= 0)
		close(a->listen_fd);
	a->listen_fd = -1;
}
