/* The agent's sessions (probes/agent/session.h): the handshake, tests,
 * RUN jobs and data connections of one control connection. */
#include "config.h"

#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "probes/agent/session.h"
#include "probes/agent/slots.h"
#include "probes/cluster/runner.h"
#include "probes/core/clock.h"
#include "probes/core/link.h"
#include "probes/core/text.h"
#include "probes/ctl/auth.h"
#include "probes/host/fabric.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/sampler.h"
#include "probes/net/seal.h"
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

/* One log line. Peers name things (hosts, versions, paths, errors) that
 * end up in it: the whole line is made safe (ix_text_safe), so no peer can
 * forge a line or send the terminal that shows the log a control sequence,
 * C1 ones and bytes that are not UTF-8 (a name cut short by a precision)
 * included. */
void ix_agent_logf(struct ix_agent *a, const char *fmt, ...)
{
	char raw[768], buf[768];
	va_list ap;

	if (!a->cfg.log)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	ix_text_safe(raw, buf, sizeof(buf));
	a->cfg.log(a->cfg.log_arg, buf);
}

/* A refused connection or test: logged at most once a second, with how
 * many went unlogged since, so a flood cannot flood the log. */
void ix_agent_log_refusal(struct ix_agent *a, const char *peer, const char *why)
{
	int64_t now = ix_now_ns();
	uint64_t unlogged;

	pthread_mutex_lock(&a->lock);
	if (now - a->refusal_logged_ns < IX_NSEC_PER_SEC) {
		a->refusals_unlogged++;
		pthread_mutex_unlock(&a->lock);
		return;
	}
	a->refusal_logged_ns = now;
	unlogged = a->refusals_unlogged;
	a->refusals_unlogged = 0;
	pthread_mutex_unlock(&a->lock);
	if (unlogged)
		ix_agent_logf(a,
			      "%s: refused: %s (and %" PRIu64 " more refusals in the last second)",
			      peer, why, unlogged);
	else
		ix_agent_logf(a, "%s: refused: %s", peer, why);
}

void ix_agent_send_error(int fd, int code, const char *msg)
{
	json_t *j = json_pack("{s:s,s:i}", "error", msg, "code", code);
	ix_frame_send(fd, IX_MSG_ERROR, j, ix_now_ns() + 500 * 1000000LL, NULL);
	json_decref(j);
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

/* ---- data connections ---------------------------------------------- */

void ix_agent_attach(struct ix_agent *a, int fd, json_t *body, const char *peer)
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
	ix_agent_logf(a, "%s: data connection refused: %s", peer, why);
	ix_agent_send_error(fd, IX_EXIT_FAIL, why);
	close(fd);
}

/* ---- tests ------------------------------------------------------------- */

struct session {
	struct ix_agent *a;
	struct ix_agent_conn *conn; /* in the connection loop's list, or NULL */
	int fd;
	const char *peer;
	bool authenticated;
	bool coordinator; /* a coordinator's session (after greet) */
	struct ix_err err;
};

/* A test slot with mem bytes of buffers for this session's client. */
static int claim_slot(struct session *ss, struct ix_agent_slot *slot, uint64_t mem)
{
	struct sockaddr_storage from;

	if (ix_net_peer_addr(ss->fd, &from) < 0)
		return ix_fail(&ss->err, IX_EXIT_FAIL, "the client's address is unknown");
	return ix_agent_slot_claim(ss->a, slot, &from, mem, &ss->err);
}

static void unregister_test(struct ix_agent *a, struct ix_agent_test *t)
{
	pthread_mutex_lock(&a->lock);
	for (struct ix_agent_test **pp = &a->tests; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
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

/* What the streams have moved so far, both ways. */
static uint64_t streams_progress(const struct ix_agent_test *t)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->n; i++)
		n += atomic_load_explicit(&t->streams[i].c.bytes, memory_order_relaxed) +
		     atomic_load_explicit(&t->streams[i].c.packets, memory_order_relaxed);
	return n;
}

/* A slowly paced test's message gaps stretch the silence limit this many
 * times at most: a test at 1 bit/s does not hold its slot for the whole
 * --max-duration. */
#define SILENCE_STRETCH_MAX 6.0

/* How long the streams may move nothing before the test ends: the
 * agent's silence limit, or three message gaps of a slowly paced test, at
 * most SILENCE_STRETCH_MAX times the limit. */
static int64_t silence_ns(const struct ix_agent *a, const struct ix_agent_test *t)
{
	const struct ix_stream *s = &t->streams[0];
	double gap = s->rate_bps ? (double)s->msg_size * 8.0 / (double)s->rate_bps : 0;
	double lim = a->cfg.silence_s, wait = 3 * gap > lim ? 3 * gap : lim;

	if (wait > SILENCE_STRETCH_MAX * lim)
		wait = SILENCE_STRETCH_MAX * lim;
	return lim > 0 ? ix_seconds_to_ns(wait) : INT64_MAX;
}

/* Run the armed streams until the client says STOP; send INTERVALs. */
static int run_streams(struct session *ss, struct ix_agent_test *t, double interval_s,
		       int64_t hard_deadline, atomic_int *stop)
{
	struct ix_sampler sm;
	struct ix_interval_stream e[2 * IX_MAX_STREAMS];
	int64_t silence = silence_ns(ss->a, t), moved_t = ix_now_ns();
	uint64_t moved = 0;
	int rc = 0;

	ix_sampler_init(&sm, interval_s, t->streams[0].t_start, t->n);
	if (ix_streams_start(t->streams, t->n, &ss->err) < 0)
		return -1;
	for (;;) {
		int64_t now = ix_now_ns(), next = ix_sampler_next(&sm), wake = hard_deadline;
		struct pollfd pfd = { .fd = ss->fd, .events = POLLIN };
		uint64_t progress = streams_progress(t);
		uint16_t type;
		json_t *body;

		if (now >= hard_deadline) {
			rc = ix_fail(&ss->err, IX_EXIT_FAIL,
				     "test exceeded the server's time limit");
			break;
		}
		if (progress != moved) {
			moved = progress;
			moved_t = now;
		} else if (now - moved_t >= silence) {
			rc = ix_fail(&ss->err, IX_EXIT_FAIL,
				     "nothing moved for %.0f s: the test is ended (server's "
				     "silence limit)",
				     (double)silence / 1e9);
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
	ix_streams_stop(t->streams, t->n);
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

static int send_result(struct session *ss, struct ix_agent_test *t, int64_t t0, struct rusage *ru0,
		       struct ix_ctr_set *ctr0)
{
	struct ix_ctr_set after, moved;
	struct ix_link_limit link;
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
	ix_fabric_snapshot_socket(ss->fd, &after); /* where the client reached us */
	ix_ctr_delta(ctr0, &after, &moved);
	ix_link_cache_socket(&ss->a->links, ss->fd, &link); /* this end's ceiling */
	res = json_pack("{s:o,s:o,s:o,s:o}", "streams", arr, "cpu", ix_wire_cpu(&cpu), "counters",
			ix_ctr_json(&moved), "link", ix_link_json(&link));
	ix_ctr_set_free(&after);
	ix_ctr_set_free(&moved);
	rc = ix_frame_send(ss->fd, IX_MSG_RESULT, res, ix_now_ns() + 5 * IX_NSEC_PER_SEC, &ss->err);
	json_decref(res);
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
	struct ix_agent_slot slot;
	struct ix_ctr_set ctr0;
	uint64_t mem = 0;
	json_t *ready;
	int rc = -1;

	memset(&t, 0, sizeof(t));
	ix_ctr_set_init(&ctr0);
	if (kind && strcmp(kind, "rdma") == 0)
		return ix_agent_serve_rdma(ss->a, ss->fd, ss->peer, ss->authenticated, req,
					   &ss->err);
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
	/* bw: its streams' buffers and windows; lat and block: one stream's */
	mem = is_bw ? ix_bw_mem(&bw, tp) : ix_stream_buf_bytes(streams[0].msg_size);
	if (claim_slot(ss, &slot, mem) < 0)
		return -1;
	t.streams = streams;
	ix_agent_logf(a, "%s: %s test over %s, %u stream(s)", ss->peer, kind, tp->name, t.n);
	if (setup_streams(ss, &t, tp, &registered) < 0)
		goto out;
	if (is_bw && tp->tune) {
		for (uint32_t i = 0; i < t.n; i++)
			if (tp->tune(&streams[i], &bw, cc, sizeof(cc), &ss->err) < 0)
				goto out;
	}
	ix_fabric_snapshot_socket(ss->fd, &ctr0);
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
		rc = send_result(ss, &t, t0, &ru0, &ctr0);
out:
	ix_ctr_set_free(&ctr0);
	for (uint32_t i = 0; i < t.n; i++)
		if (streams[i].failed && rc == 0)
			ix_agent_logf(a, "%s: stream %u: %s", ss->peer, i, streams[i].err.msg);
	if (registered)
		unregister_test(a, &t);
	ix_agent_slot_release(a, &slot);
	ix_streams_close(streams, t.n);
	return rc;
}

/* HELLO_ACK, then the token handshake when the agent has a token. */
static int greet(struct session *ss, json_t *hello)
{
	struct ix_agent *a = ss->a;
	const char *cc = json_string_value(json_object_get(hello, "nonce"));
	char host[256] = "", sc[IX_AUTH_HEX], proof[IX_AUTH_HEX];
	bool token = a->cfg.token && a->cfg.token->set, seal_ok;
	const char *seal;
	uint8_t key[IX_SEAL_KEY];
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
		json_object_set_new(ack, "seal", json_string(IX_SEAL_NAME));
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
	seal = json_string_value(json_object_get(body, "seal"));
	seal_ok = seal && strcmp(seal, IX_SEAL_NAME) == 0;
	json_decref(body);
	if (!rc)
		return ix_fail(&ss->err, IX_EXIT_FAIL, "authentication failed");
	if (!seal_ok)
		return ix_fail(&ss->err, IX_EXIT_FAIL,
			       "the client does not seal its frames (an older ixperf): refused");
	ss->authenticated = true;
	body = json_object();
	rc = ix_frame_send(ss->fd, IX_MSG_AUTH_OK, body, ix_now_ns() + IX_NSEC_PER_SEC, &ss->err);
	json_decref(body);
	/* From here on every frame either way carries its tag. */
	if (rc == 0 && (ix_auth_session_key(a->cfg.token, sc, cc, key) < 0 ||
			ix_seal_bind(ss->fd, key, 'a', &ss->err) < 0))
		rc = ix_fail(&ss->err, IX_EXIT_FAIL, "cannot seal the session");
	OPENSSL_cleanse(key, sizeof(key));
	return rc;
}

/* Whether this session may send RUN: authenticated with the token; or, on
 * an agent without one, from loopback or an --allow-run address. Else
 * err says why. */
static int may_run(struct session *ss)
{
	const struct ix_agent_config *c = &ss->a->cfg;
	struct sockaddr_storage from;

	if (ss->authenticated)
		return 0;
	if (c->token && c->token->set)
		return ix_fail(&ss->err, IX_EXIT_FAIL, "RUN needs authentication");
	if (c->allow_run_any)
		return 0;
	if (ix_net_peer_addr(ss->fd, &from) == 0) {
		if (ix_net_is_loopback(&from))
			return 0;
		for (uint32_t i = 0; i < c->n_allow_run; i++)
			if (ix_net_same_host(&from, &c->allow_run[i]))
				return 0;
	}
	return ix_fail(&ss->err, IX_EXIT_FAIL,
		       "RUN refused: this agent has no token (--token-file) and %s is not in its "
		       "--allow-run list",
		       ss->peer);
}

static int serve_run(struct session *ss, json_t *req)
{
	struct ix_agent *a = ss->a;
	struct ix_agent_slot slot;
	/* a RUN job's memory counts in the limits, as a test's does */
	struct ix_agent_charge claim = { a, &slot };
	struct ix_runner_ctx ctx = { .token = a->cfg.token,
				     .limits = &a->cfg.limits,
				     .stop = a->stop,
				     .bind_addr = a->cfg.source_addr,
				     .rdma_dev = a->cfg.rdma_dev,
				     .links = &a->links,
				     .claim = ix_agent_slot_charge,
				     .claim_arg = &claim };
	json_t *report, *tg;
	char targets[256] = "";
	size_t i, used = 0;
	int rc;

	if (claim_slot(ss, &slot, 0) < 0)
		return -1;
	/* Which hosts this agent is asked to send to, in the log. */
	json_array_foreach(json_object_get(req, "targets"), i, tg)
	{
		const char *h = json_string_value(json_object_get(tg, "host"));
		int n = snprintf(targets + used, sizeof(targets) - used,
				 "%s%.64s:%" JSON_INTEGER_FORMAT, i ? ", " : "", h ? h : "?",
				 json_integer_value(json_object_get(tg, "port")));

		if (n < 0 || (size_t)n >= sizeof(targets) - used)
			break;
		used += (size_t)n;
	}
	ix_agent_logf(a, "%s: RUN %s towards %s", ss->peer, ix_runner_describe(req),
		      used ? targets : "(no targets)");
	report = ix_runner_run(&ctx, req, &ss->err);
	ix_agent_slot_release(a, &slot);
	if (!report) {
		/* A refused job is reported, and the session goes on. */
		ix_agent_logf(a, "%s: RUN refused: %s", ss->peer, ss->err.msg);
		report = json_pack("{s:b,s:s}", "ok", 0, "error", ss->err.msg);
	}
	rc = ix_frame_send(ss->fd, IX_MSG_REPORT, report, ix_now_ns() + 5 * IX_NSEC_PER_SEC,
			   &ss->err);
	json_decref(report);
	return rc;
}

static void serve_session(struct session *ss_, json_t *hello)
{
	struct session ss = *ss_;
	struct ix_agent *a = ss.a;
	int fd = ss.fd;
	const char *peer = ss.peer;
	const char *role = json_string_value(json_object_get(hello, "role"));
	bool coordinator = role && strcmp(role, "coordinator") == 0;
	int rc = greet(&ss, hello);

	json_decref(hello);
	/* A coordinator that proved the token (or any, on an agent without). */
	ss_->coordinator = rc == 0 && coordinator;
	if (ss_->coordinator) {
		pthread_mutex_lock(&a->lock);
		a->coordinator_seen = true;
		pthread_mutex_unlock(&a->lock);
	}
	if (rc < 0) {
		ix_agent_logf(a, "%s: refused: %s", peer, ss.err.msg);
		ix_agent_send_error(fd, IX_EXIT_FAIL, ss.err.msg);
		return;
	}
	ix_agent_conn_greeted(a, ss.conn, ss.authenticated);
	/* Idle means no test: PINGs are answered but keep nothing open. */
	int64_t idle_end = ix_now_ns() + ix_seconds_to_ns(a->cfg.idle_s);

	while (!atomic_load(a->stop)) {
		uint16_t type;
		json_t *body;

		if (ix_frame_recv(fd, &type, &body, idle_end, &ss.err) < 0) {
			if (strstr(ss.err.msg, "closed by peer") == NULL)
				ix_agent_logf(a, "%s: %s", peer, ss.err.msg);
			ix_agent_send_error(fd, IX_EXIT_FAIL, ss.err.msg);
			return;
		}
		if (type == IX_MSG_TEST || type == IX_MSG_RUN)
			idle_end = INT64_MAX; /* until it ends */
		if (type == IX_MSG_TEST) {
			rc = serve_test(&ss, body);
		} else if (type == IX_MSG_PING) {
			/* Answered empty: what a PING carries is not kept. */
			json_decref(body);
			body = json_object();
			rc = ix_frame_send(fd, IX_MSG_PONG, body, ix_now_ns() + IX_NSEC_PER_SEC,
					   &ss.err);
		} else if (type == IX_MSG_INVENTORY) {
			ix_agent_logf(a, "%s: INVENTORY", peer);
			rc = ix_agent_serve_inventory(a, fd, body, &ss.err);
		} else if (type == IX_MSG_IFSTATS) {
			rc = ix_agent_serve_ifstats(a, fd, body, &ss.err);
		} else if (type == IX_MSG_RUN) {
			/* Traffic towards third hosts: only for a coordinator
			 * this agent trusts. */
			rc = may_run(&ss) == 0 ? serve_run(&ss, body) : -1;
		} else {
			rc = ix_fail(&ss.err, IX_EXIT_FAIL, "unexpected %s", ix_msg_name(type));
		}
		json_decref(body);
		if (rc < 0) {
			ix_agent_logf(a, "%s: failed: %s", peer, ss.err.msg);
			ix_agent_send_error(fd, ss.err.code ? ss.err.code : IX_EXIT_FAIL,
					    ss.err.msg);
			return;
		}
		if (idle_end == INT64_MAX)
			idle_end = ix_now_ns() + ix_seconds_to_ns(a->cfg.idle_s);
	}
}

void ix_agent_serve_control(struct ix_agent *a, struct ix_agent_conn *c, int fd, json_t *hello,
			    const char *peer)
{
	struct session ss = { .a = a, .conn = c, .fd = fd, .peer = peer };

	serve_session(&ss, hello);
	if (ss.coordinator && a->cfg.exit_after_coordinator) {
		ix_agent_logf(a, "%s: the coordinator is done: stopping", peer);
		ix_agent_stop(a);
	}
}
