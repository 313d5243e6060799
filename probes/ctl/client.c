#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "probes/core/clock.h"
#include "probes/core/link.h"
#include "probes/ctl/auth.h"
#include "probes/ctl/client.h"
#include "probes/ctl/wire.h"
#include "probes/host/fabric.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/sampler.h"
#include "probes/net/seal.h"
#include "probes/net/transport.h"
#include "probes/net/watchdog.h"

#define REPLY_TIMEOUT_S 10.0
#define FINISH_GRACE_S  2.0
#define HARD_EXTRA_S    10.0
#define STALL_S         10.0

static int64_t after_s(double s)
{
	return ix_now_ns() + ix_seconds_to_ns(s);
}

/* Receive a frame of the wanted type; ERROR frames become errors. */
int ix_client_expect(struct ix_client *c, uint16_t want, json_t **body, double timeout_s,
		     struct ix_err *err)
{
	return ix_client_expect_past(c, want, 0, body, timeout_s, err);
}

int ix_client_expect_past(struct ix_client *c, uint16_t want, uint16_t skip, json_t **body,
			  double timeout_s, struct ix_err *err)
{
	uint16_t type;
	int64_t deadline = after_s(timeout_s);

	if (ix_frame_recv(c->fd, &type, body, deadline, err) < 0)
		return ix_fail_prefix(err, "server %s", c->host);
	if (skip && type == skip) {
		json_decref(*body);
		*body = NULL;
		if (ix_frame_recv(c->fd, &type, body, deadline, err) < 0)
			return ix_fail_prefix(err, "server %s", c->host);
	}
	if (type == IX_MSG_ERROR) {
		const char *m = json_string_value(json_object_get(*body, "error"));
		json_int_t code = json_integer_value(json_object_get(*body, "code"));
		/* Only "path unavailable" keeps its own exit code; any other
		 * refusal by the server is a runtime failure here. */
		ix_fail(err, code == IX_EXIT_UNAVAILABLE ? IX_EXIT_UNAVAILABLE : IX_EXIT_FAIL,
			"server %s: %s", c->host, m ? m : "error");
		json_decref(*body);
		*body = NULL;
		return -1;
	}
	if (type != want) {
		json_decref(*body);
		*body = NULL;
		return ix_fail(err, IX_EXIT_FAIL, "server %s sent %s, expected %s", c->host,
			       ix_msg_name(type), ix_msg_name(want));
	}
	return 0;
}

int ix_client_answer_hello(const char *host, const struct ix_token *token, json_t *ack,
			   const char *cc, char mac[IX_AUTH_HEX], bool *unauthenticated,
			   struct ix_err *err)
{
	const char *mode = json_string_value(json_object_get(ack, "auth"));
	const char *sc = json_string_value(json_object_get(ack, "challenge"));
	const char *proof = json_string_value(json_object_get(ack, "proof"));

	mac[0] = '\0';
	*unauthenticated = !mode || strcmp(mode, "none") == 0;
	/* A client with a token never drops to none: whoever answers so may
	 * be an impostor between it and the agent. */
	if (*unauthenticated && token && token->set)
		return ix_fail(err, IX_EXIT_FAIL,
			       "server %s runs without a token, but one was given: refused (run "
			       "the agent with the same --token-file)",
			       host);
	if (*unauthenticated)
		return 0;
	if (strcmp(mode, "hmac-sha256") != 0)
		return ix_fail(err, IX_EXIT_FAIL,
			       "server %s asks for unknown authentication '%.32s'", host, mode);
	if (!token || !token->set)
		return ix_fail(err, IX_EXIT_FAIL,
			       "server %s requires the shared token: give --token-file", host);
	if (!json_is_string(json_object_get(ack, "seal")) ||
	    strcmp(json_string_value(json_object_get(ack, "seal")), IX_SEAL_NAME) != 0)
		return ix_fail(err, IX_EXIT_FAIL,
			       "server %s does not seal its frames (an older ixperf): refused",
			       host);
	if (!sc || !proof || !ix_auth_verify(token, "agent", sc, cc, proof))
		return ix_fail(err, IX_EXIT_FAIL,
			       "server %s did not prove the shared token (a different token, "
			       "or not the agent meant)",
			       host);
	if (ix_auth_mac(token, "client", sc, cc, mac) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "server %s: malformed challenge", host);
	return 0;
}

int ix_client_seal(int fd, const char *host, const struct ix_token *token, const char *sc,
		   const char *cc, struct ix_err *err)
{
	uint8_t key[IX_SEAL_KEY];
	int rc;

	if (!sc || ix_auth_session_key(token, sc, cc, key) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "server %s: malformed challenge", host);
	rc = ix_seal_bind(fd, key, 'c', err);
	OPENSSL_cleanse(key, sizeof(key));
	return rc;
}

/* The shared-token handshake that follows HELLO_ACK (see auth.h). */
static int client_auth(struct ix_client *c, json_t *ack, const char *cc, struct ix_err *err)
{
	char mac[IX_AUTH_HEX];
	json_t *j, *ok;
	int rc;

	if (ix_client_answer_hello(c->host, c->token, ack, cc, mac, &c->unauthenticated, err) < 0)
		return -1;
	if (!mac[0])
		return 0;
	j = json_pack("{s:s,s:s}", "mac", mac, "seal", IX_SEAL_NAME);
	rc = ix_frame_send(c->fd, IX_MSG_AUTH, j, after_s(REPLY_TIMEOUT_S), err);
	json_decref(j);
	if (rc < 0 || ix_client_expect(c, IX_MSG_AUTH_OK, &ok, REPLY_TIMEOUT_S, err) < 0)
		return -1;
	json_decref(ok);
	return ix_client_seal(c->fd, c->host, c->token,
			      json_string_value(json_object_get(ack, "challenge")), cc, err);
}

int ix_client_connect(struct ix_client *c, struct ix_err *err)
{
	char host[256] = "", cc[IX_AUTH_HEX];
	json_t *hello, *ack;
	int rc;

	if (ix_auth_challenge(cc, err) < 0)
		return -1;
	c->fd = ix_net_connect(c->host, c->port, SOCK_STREAM, c->bind_addr,
			       after_s(c->connect_timeout_s > 0 ? c->connect_timeout_s : 5), err);
	if (c->fd < 0)
		return -1;
	gethostname(host, sizeof(host) - 1);
	hello = json_pack("{s:s,s:s,s:i,s:s}", "host", host, "version", PACKAGE_VERSION, "protocol",
			  IX_PROTO_VERSION, "nonce", cc);
	rc = ix_frame_send(c->fd, IX_MSG_HELLO, hello, after_s(REPLY_TIMEOUT_S), err);
	json_decref(hello);
	if (rc < 0 || ix_client_expect(c, IX_MSG_HELLO_ACK, &ack, REPLY_TIMEOUT_S, err) < 0) {
		ix_client_close(c);
		return -1;
	}
	snprintf(c->server_host, sizeof(c->server_host), "%s",
		 json_string_value(json_object_get(ack, "host")) ?: "?");
	snprintf(c->server_version, sizeof(c->server_version), "%s",
		 json_string_value(json_object_get(ack, "version")) ?: "?");
	rc = client_auth(c, ack, cc, err);
	json_decref(ack);
	if (rc < 0)
		ix_client_close(c);
	return rc;
}

void ix_client_close(struct ix_client *c)
{
	if (c->fd >= 0) {
		ix_seal_unbind(c->fd);
		close(c->fd);
	}
	c->fd = -1;
}

static double ru_s(const struct timeval *a, const struct timeval *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_usec - a->tv_usec) / 1e6;
}

static void cpu_since(const struct rusage *r0, int64_t t0, struct ix_cpu *cpu)
{
	struct rusage r1;

	memset(cpu, 0, sizeof(*cpu));
	if (getrusage(RUSAGE_SELF, &r1) < 0)
		return;
	cpu->valid = true;
	cpu->user_s = ru_s(&r0->ru_utime, &r1.ru_utime);
	cpu->system_s = ru_s(&r0->ru_stime, &r1.ru_stime);
	cpu->wall_s = (double)(ix_now_ns() - t0) / 1e9;
}

/* TEST -> TEST_ACK -> open channels -> READY. */
int ix_client_negotiate(struct ix_client *c, json_t *req, struct ix_stream *s, uint32_t n,
			const struct ix_transport *tp, const struct ix_bw_params *bw, char *cc,
			size_t cclen, struct ix_err *err)
{
	struct ix_dial dial = { c->host, c->port, c->bind_addr, NULL, c->fd };
	json_t *ack, *ready, *setups;
	int64_t deadline;
	int rc = -1;

	if (ix_frame_send(c->fd, IX_MSG_TEST, req, after_s(REPLY_TIMEOUT_S), err) < 0 ||
	    ix_client_expect(c, IX_MSG_TEST_ACK, &ack, REPLY_TIMEOUT_S, err) < 0)
		return -1;
	dial.cookie = json_string_value(json_object_get(ack, "cookie"));
	setups = json_object_get(ack, "streams");
	if (!dial.cookie || !json_is_array(setups) || json_array_size(setups) != n) {
		ix_fail(err, IX_EXIT_FAIL, "server %s: malformed TEST_ACK", c->host);
		goto out;
	}
	deadline = after_s(REPLY_TIMEOUT_S);
	for (uint32_t i = 0; i < n; i++) {
		s[i].tp = tp;
		if (tp->client_open(&s[i], &dial, json_array_get(setups, i), deadline, err) < 0)
			goto out;
		if (bw && tp->tune && tp->tune(&s[i], bw, cc, cclen, err) < 0)
			goto out;
	}
	if (ix_client_expect(c, IX_MSG_READY, &ready, REPLY_TIMEOUT_S, err) < 0)
		goto out;
	json_decref(ready);
	rc = 0;
out:
	json_decref(ack);
	return rc;
}

int ix_client_send(struct ix_client *c, uint16_t type, struct ix_err *err)
{
	json_t *j = json_object();
	int rc = ix_frame_send(c->fd, type, j, after_s(REPLY_TIMEOUT_S), err);
	json_decref(j);
	return rc;
}

/* An interval is ready once both ends reported every stream. */
static bool interval_ready(const struct ix_interval *iv)
{
	for (uint32_t i = 0; i < iv->nstreams; i++)
		if (!iv->streams[i].have_tx || !iv->streams[i].have_rx)
			return false;
	return true;
}

static void emit_ready(struct ix_bw_result *r, const struct ix_bw_hooks *hooks, size_t *emitted)
{
	while (*emitted < r->nintervals && interval_ready(&r->intervals[*emitted])) {
		if (hooks && hooks->on_interval)
			hooks->on_interval(hooks->arg, r, *emitted);
		(*emitted)++;
	}
}

/* What moved since before (which is released). */
static void counters_since(const struct ix_client *c, struct ix_ctr_set *before,
			   struct ix_ctr_set *moved)
{
	struct ix_ctr_set after;

	ix_fabric_snapshot_socket(c->fd, &after);
	ix_ctr_delta(before, &after, moved);
	ix_ctr_set_free(&after);
	ix_ctr_set_free(before);
}

/* The server's, from its RESULT: malformed ones are left out (the figures
 * stand without them) and said in the set's absence. */
static void counters_remote(json_t *res, struct ix_ctr_set *s)
{
	struct ix_err e = { 0 };

	if (ix_ctr_parse(json_object_get(res, "counters"), s, &e) < 0)
		ix_ctr_set_init(s);
}

static int fill_remote(struct ix_bw_result *r, json_t *res, struct ix_stream *s, uint32_t n)
{
	json_t *arr = json_object_get(res, "streams"), *o;
	size_t i;

	if (!json_is_array(arr) || json_array_size(arr) != n)
		return -1;
	json_array_foreach(arr, i, o)
	{
		struct ix_stream_result *sr = &r->streams[i];
		struct ix_stream_end e;

		if (ix_wire_parse_stream_end(json_object_get(o, "end"), &e) < 0)
			return -1;
		if (s[i].sending)
			sr->receiver = e;
		else
			sr->sender = e;
	}
	ix_wire_parse_cpu(json_object_get(res, "cpu"), &r->cpu_remote);
	counters_remote(res, &r->ctr_remote);
	/* The server's link: a malformed one is left out, as counters are. */
	if (ix_link_parse(json_object_get(res, "link"), &r->link_remote, NULL) < 0)
		memset(&r->link_remote, 0, sizeof(r->link_remote));
	return 0;
}

/* A final interval shorter than a tenth of the others is noise: drop it,
 * as the summary covers the whole window anyway. */
static void drop_short_tail(struct ix_bw_result *r)
{
	struct ix_interval *iv;

	if (!r->nintervals)
		return;
	iv = &r->intervals[r->nintervals - 1];
	if (iv->end_s - iv->start_s < 0.1 * r->params.interval_s) {
		free(iv->streams);
		r->nintervals--;
	}
}

/* An unexpected frame from the server becomes an error naming it. */
static int peer_error(struct ix_client *c, uint16_t type, json_t *body, struct ix_err *err)
{
	const char *m = json_string_value(json_object_get(body, "error"));

	return ix_fail(err, IX_EXIT_FAIL, "server %s: %s", c->host, m ? m : ix_msg_name(type));
}

/* The state of one running bandwidth test on the client. */
struct bw_run {
	struct ix_client *c;
	const struct ix_bw_params *p;
	struct ix_bw_result *r;
	const struct ix_bw_hooks *hooks;
	struct ix_stream s[2 * IX_MAX_STREAMS];
	struct ix_interval_stream e[2 * IX_MAX_STREAMS];
	uint32_t n;
	struct ix_sampler sm;
	size_t emitted;
	atomic_int stop;
	struct rusage ru0;
	int64_t t0;
	struct ix_ctr_set ctr0; /* this end's counters at the start */
};

/* The caller's bounds on a run (struct ix_client's stop and deadline). */
static int over_bounds(const struct ix_client *c, int64_t now, struct ix_err *err)
{
	if (c->stop && atomic_load(c->stop))
		return ix_fail(err, IX_EXIT_FAIL, "stopped: the agent is shutting down");
	if (c->deadline_ns && now >= c->deadline_ns)
		return ix_fail(err, IX_EXIT_FAIL, "the test ran past this agent's time limit");
	return 0;
}

/* No data for this long means the path is dead, unless the pacing itself
 * spaces messages further apart. */
static int64_t stall_limit_ns(const struct ix_bw_params *p)
{
	double gap = p->rate_bps ? (double)p->msg_size * 8.0 / (double)p->rate_bps : 0;

	return ix_seconds_to_ns(gap * 3 > STALL_S ? gap * 3 : STALL_S);
}

/* Run the streams until they finish, taking intervals on the way; the
 * control connection is watched for INTERVALs, ERRORs and the server's end. */
static int bw_drive(struct bw_run *b, struct ix_err *err)
{
	int64_t grace_t = 0, hard_t = 0, last_progress = b->t0, stall = stall_limit_ns(b->p);
	uint64_t last_bytes = 0;

	if (!b->p->bytes) {
		int64_t end_t = b->t0 + ix_seconds_to_ns(b->p->warmup_s + b->p->duration_s);
		grace_t = end_t + ix_seconds_to_ns(FINISH_GRACE_S);
		hard_t = end_t + ix_seconds_to_ns(HARD_EXTRA_S);
	}
	if (ix_streams_start(b->s, b->n, err) < 0)
		return -1;
	while (!ix_streams_done(b->s, b->n)) {
		int64_t now = ix_now_ns(), next = ix_sampler_next(&b->sm);
		int64_t wake = now + 50 * 1000000LL;
		struct pollfd pfd = { .fd = b->c->fd, .events = POLLIN };
		uint64_t bytes = 0;
		uint16_t type;
		json_t *body;

		if (next && next <= now) {
			uint64_t k = b->sm.next_k;
			ix_sampler_take(&b->sm, b->s, b->e);
			ix_interval_merge(b->r, k, b->e, b->n);
			emit_ready(b->r, b->hooks, &b->emitted);
			continue;
		}
		if (over_bounds(b->c, now, err) < 0)
			return -1;
		if (grace_t && now >= grace_t)
			atomic_store(&b->stop, 1); /* receivers that missed the end */
		if (hard_t && now >= hard_t)
			return ix_fail(err, IX_EXIT_FAIL,
				       "streams did not finish %.0f s after the deadline",
				       HARD_EXTRA_S);
		for (uint32_t i = 0; i < b->n; i++)
			bytes += atomic_load_explicit(&b->s[i].c.bytes, memory_order_relaxed);
		if (bytes != last_bytes) {
			last_bytes = bytes;
			last_progress = now;
		} else if (now - last_progress > stall) {
			return ix_fail(err, IX_EXIT_FAIL, "no data moved for %.0f s", stall / 1e9);
		}
		if (next && next < wake)
			wake = next;
		if (poll(&pfd, 1, ix_ms_until(wake)) <= 0)
			continue;
		if (ix_frame_recv(b->c->fd, &type, &body, after_s(REPLY_TIMEOUT_S), err) < 0)
			return ix_fail_prefix(err,
					      "server %s closed the control connection %.1f s into "
					      "the test",
					      b->c->host, (double)(ix_now_ns() - b->t0) / 1e9);
		if (type != IX_MSG_INTERVAL) {
			peer_error(b->c, type, body, err);
			json_decref(body);
			return -1;
		}
		ix_interval_merge_wire(b->r, body);
		emit_ready(b->r, b->hooks, &b->emitted);
		json_decref(body);
	}
	return 0;
}

/* Local figures, as far as they got. */
static void bw_fill_local(struct bw_run *b)
{
	for (uint32_t i = 0; i < b->n; i++)
		ix_stream_end_fill(&b->s[i], b->s[i].sending ? &b->r->streams[i].sender
							     : &b->r->streams[i].receiver);
	cpu_since(&b->ru0, b->t0, &b->r->cpu_local);
	b->r->cpu_local.threads = ix_streams_threads(b->s, b->n);
}

/* STOP, then the server's late INTERVALs and its RESULT. */
static int bw_collect(struct bw_run *b, struct ix_err *err)
{
	json_t *res;
	int rc;

	if (b->p->interval_s > 0) {
		/* The tail since the last tick; the server sends its own. */
		uint64_t k = b->sm.next_k;
		int64_t now = ix_now_ns();

		ix_sampler_take(&b->sm, b->s, b->e);
		if (ix_interval_merge(b->r, k, b->e, b->n) == 0)
			b->r->intervals[k].end_s = (double)(now - b->t0) / 1e9;
	}
	if (ix_client_send(b->c, IX_MSG_STOP, err) < 0)
		return -1;
	for (;;) {
		uint16_t type;

		if (ix_frame_recv(b->c->fd, &type, &res, after_s(REPLY_TIMEOUT_S), err) < 0)
			return ix_fail_prefix(err, "server %s: no result", b->c->host);
		if (type == IX_MSG_RESULT)
			break;
		if (type != IX_MSG_INTERVAL) {
			peer_error(b->c, type, res, err);
			json_decref(res);
			return -1;
		}
		ix_interval_merge_wire(b->r, res);
		json_decref(res);
	}
	rc = fill_remote(b->r, res, b->s, b->n);
	json_decref(res);
	drop_short_tail(b->r);
	emit_ready(b->r, b->hooks, &b->emitted);
	if (rc < 0)
		return ix_fail(err, IX_EXIT_FAIL, "server %s: malformed RESULT", b->c->host);
	for (uint32_t i = 0; i < b->n; i++) {
		if (b->s[i].failed) {
			*err = b->s[i].err;
			return -1;
		}
	}
	return 0;
}

int ix_bw_run(struct ix_client *c, const struct ix_bw_params *p, struct ix_bw_result *r,
	      const struct ix_bw_hooks *hooks, struct ix_err *err)
{
	const struct ix_transport *tp = ix_transport_find(p->path);
	struct bw_run *b;
	json_t *req;
	int rc = -1;

	ix_bw_result_init(r, p);
	snprintf(r->remote_host, sizeof(r->remote_host), "%s", c->server_host);
	snprintf(r->remote_version, sizeof(r->remote_version), "%s", c->server_version);
	if (!tp)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "unknown path '%s'", p->path);
	b = calloc(1, sizeof(*b));
	if (!b || !r->streams) {
		free(b);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	b->c = c;
	b->p = p;
	b->r = r;
	b->hooks = hooks;
	ix_bw_layout(p, true, b->s, &b->n);
	for (uint32_t i = 0; i < b->n; i++) {
		r->streams[i].id = i;
		r->streams[i].dir = b->s[i].dir;
	}
	req = json_pack("{s:s,s:o}", "kind", "bw", "bw", ix_wire_bw_params(p));
	rc = ix_client_negotiate(c, req, b->s, b->n, tp, p, r->congestion_used,
				 sizeof(r->congestion_used), err);
	json_decref(req);
	for (uint32_t i = 0; rc == 0 && i < b->n; i++) {
		r->streams[i].local_port = ix_net_local_port(b->s[i].fd);
		r->streams[i].remote_port = ix_net_peer_port(b->s[i].fd);
	}
	if (rc == 0) {
		ix_fabric_snapshot_socket(c->fd, &b->ctr0); /* this end's */
		getrusage(RUSAGE_SELF, &b->ru0);
		rc = ix_client_send(c, IX_MSG_START, err);
	}
	if (rc == 0) {
		b->t0 = ix_now_ns();
		ix_bw_arm(b->s, b->n, p, tp, &b->stop, b->t0);
		ix_sampler_init(&b->sm, p->interval_s, b->t0, b->n);
		rc = bw_drive(b, err);
		if (rc < 0) {
			atomic_store(&b->stop, 1);
			ix_streams_join(b->s, b->n);
		}
		bw_fill_local(b);
		counters_since(c, &b->ctr0, &r->ctr_local);
		if (rc == 0)
			rc = bw_collect(b, err);
	}
	ix_ctr_set_free(&b->ctr0);
	ix_streams_close(b->s, b->n);
	free(b);
	r->complete = rc == 0;
	if (rc == 0)
		return 0;
	ix_client_close(c);
	snprintf(r->error, sizeof(r->error), "%s", err->msg);
	if (!err->code)
		err->code = IX_EXIT_FAIL;
	return -1;
}

/* Is the control connection saying something (an ERROR, or closed)? */
static int control_alive(struct ix_client *c, struct ix_err *err)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	uint16_t type;
	json_t *body;

	if (poll(&pfd, 1, 0) <= 0)
		return 0;
	if (ix_frame_recv(c->fd, &type, &body, after_s(1), err) < 0)
		return ix_fail_prefix(err, "server %s closed the control connection", c->host);
	peer_error(c, type, body, err);
	json_decref(body);
	return -1;
}

int ix_lat_run(struct ix_client *c, const struct ix_lat_params *p, struct ix_lat_result *r,
	       struct ix_err *err)
{
	const struct ix_transport *tp = ix_transport_find(p->path);
	struct ix_stream s;
	atomic_int stop = 0;
	struct rusage ru0;
	uint8_t *buf = NULL;
	int64_t t0, warm_until, end_t, timeout_ns, last_check, last_reply;
	uint64_t seq = 0;
	struct ix_ctr_set ctr0;
	json_t *req, *res;
	int rc;

	ix_ctr_set_init(&ctr0);
	ix_lat_result_init(r, p);
	snprintf(r->remote_host, sizeof(r->remote_host), "%s", c->server_host);
	snprintf(r->remote_version, sizeof(r->remote_version), "%s", c->server_version);
	if (!tp)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "unknown path '%s'", p->path);
	ix_stream_init(&s, 0, IX_DIR_FORWARD, true);
	s.msg_size = p->msg_size;
	s.busy_poll = p->busy_poll;
	s.stop = &stop;
	buf = calloc(1, p->msg_size);
	if (!buf || !r->samples.hist) {
		free(buf);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	req = json_pack("{s:s,s:o}", "kind", "lat", "lat", ix_wire_lat_params(p));
	rc = ix_client_negotiate(c, req, &s, 1, tp, NULL, NULL, 0, err);
	json_decref(req);
	if (rc == 0)
		ix_fabric_snapshot_socket(c->fd, &ctr0);
	if (rc < 0 || ix_client_send(c, IX_MSG_START, err) < 0)
		goto fail;
	/* Blocking receives wake at least as often as a reply may be late;
	 * where the transport's may block without a timer, the watchdog ends
	 * a late one instead (a timed wait costs a timer per reply). */
	ix_net_set_timeouts(s.fd, p->timeout_s < 0.2 ? (int)(p->timeout_s * 1000) + 1 : 200);
	timeout_ns = ix_seconds_to_ns(p->timeout_s);
	if ((tp->caps & IX_CAP_PING_BLOCKS) && !p->busy_poll) {
		if (ix_watchdog_start(&s.wd, s.fd, timeout_ns, err) < 0)
			goto fail;
		ix_net_set_recv_timeout(s.fd, 0);
	}
	getrusage(RUSAGE_SELF, &ru0);
	t0 = last_check = last_reply = ix_now_ns();
	warm_until = t0 + ix_seconds_to_ns(p->warmup_s);
	end_t = p->iters ? 0 : warm_until + ix_seconds_to_ns(p->duration_s);
	for (;;) {
		int64_t rtt = tp->ping(&s, buf, seq++, timeout_ns), now = ix_now_ns();

		if (rtt < 0) {
			*err = s.err;
			if (s.wd && ix_watchdog_fired(s.wd))
				ix_fail(err, IX_EXIT_FAIL, "no echo from the server within %.1f s",
					p->timeout_s);
			ix_fail_prefix(err, "server %s", c->host);
			goto fail_measured;
		}
		if (rtt == 0) {
			if (now >= warm_until)
				r->lost++;
			if (now - last_reply > 5 * IX_NSEC_PER_SEC) {
				ix_fail(err, IX_EXIT_FAIL, "server %s: no reply for 5 s", c->host);
				goto fail_measured;
			}
		} else {
			last_reply = now;
			if (now >= warm_until &&
			    ix_samples_add(&r->samples, (uint64_t)rtt / 2) < 0) {
				ix_fail(err, IX_EXIT_FAIL, "out of memory");
				goto fail_measured;
			}
		}
		if (p->iters ? r->samples.seen >= p->iters : now >= end_t)
			break;
		if (now - last_check > 100 * 1000000LL) {
			last_check = now;
			if (over_bounds(c, now, err) < 0 || control_alive(c, err) < 0)
				goto fail_measured;
		}
	}
	r->seconds = (double)(ix_now_ns() - (warm_until > t0 ? warm_until : t0)) / 1e9;
	ix_watchdog_stop(s.wd);
	s.wd = NULL;
	cpu_since(&ru0, t0, &r->cpu_local);
	counters_since(c, &ctr0, &r->ctr_local);
	if (tp->caps & IX_CAP_EOF)
		shutdown(s.fd, SHUT_WR);
	if (ix_client_send(c, IX_MSG_STOP, err) < 0 ||
	    ix_client_expect(c, IX_MSG_RESULT, &res, REPLY_TIMEOUT_S, err) < 0)
		goto fail_measured;
	ix_wire_parse_cpu(json_object_get(res, "cpu"), &r->cpu_remote);
	counters_remote(res, &r->ctr_remote);
	json_decref(res);
	ix_stats_compute(&r->samples, &r->stats);
	ix_streams_close(&s, 1);
	free(buf);
	r->complete = true;
	return 0;

fail_measured:
	r->seconds = (double)(ix_now_ns() - t0) / 1e9;
	if (ctr0.valid)
		counters_since(c, &ctr0, &r->ctr_local);
fail:
	ix_watchdog_stop(s.wd);
	ix_ctr_set_free(&ctr0);
	ix_stats_compute(&r->samples, &r->stats);
	ix_streams_close(&s, 1);
	ix_client_close(c);
	free(buf);
	r->complete = false;
	snprintf(r->error, sizeof(r->error), "%s", err->msg);
	if (!err->code)
		err->code = IX_EXIT_FAIL;
	return -1;
}
