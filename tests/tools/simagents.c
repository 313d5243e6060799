/* simagents: simulated agents for the coordinator's scale tests. One
 * process, one thread and one epoll loop listen on N loopback ports and
 * answer the real control protocol on each (HELLO with or without the
 * shared token and its sealed frames, PING, INVENTORY, RUN), so that a
 * coordinator (ixperf mesh) can be pointed at thousands of agents on one
 * small machine. They move no data: a RUN is answered, after the job's
 * own duration, by a REPORT whose figures are synthetic and say so
 * ("simulated": true): a fixed bandwidth and latency with a per-pair
 * variation, which --log writes down as the oracle of what was sent.
 *
 *   simagents -n N [-B ADDR] [--token-file F] [--bw BPS] [--lat NS]
 *             [--spread PCT] [--hosts FILE] [--log FILE]
 *
 * Prints "simulated agents: N on ADDR" once every port listens (and the
 * host file, one host:port a line in agent order, is written); stops on
 * SIGTERM or SIGINT. "simagents --cells-bytes N" prints the bytes of the
 * cells of an N-host mesh of one test per pair (ix_cells_bytes) for the
 * benchmark's memory figures. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "probes/cluster/analysis.h"
#include "probes/core/clock.h"
#include "probes/ctl/auth.h"
#include "probes/ctl/invwire.h"
#include "probes/ctl/wire.h"
#include "probes/host/nodeinv.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/seal.h"

#define SEND_NS     (2 * IX_NSEC_PER_SEC)
#define MAX_AGENTS  16384
#define EVENTS      256
#define STEPS       8 /* distinct per-pair figures */
#define LISTEN_BACK 64

enum { K_LISTENER, K_CONN };
enum { S_HELLO, S_AUTH, S_READY };

struct sim_listener {
	int kind;
	int fd;
	uint32_t agent;
};

struct sim_conn {
	int kind;
	int fd;
	uint32_t agent;
	int state;
	struct ix_frame_reader rd;
	char cc[IX_AUTH_HEX], sc[IX_AUTH_HEX];
	json_t *report; /* due at due, NULL when none */
	int64_t due;
};

struct sim {
	uint32_t n;
	const char *bind;
	struct ix_token token;
	double bw_bps, lat_ns, spread;
	FILE *log;
	int ep;
	struct sim_listener *ls;
	uint32_t *agent_of_port; /* 65536 entries; UINT32_MAX: not ours */
	struct sim_conn **pending;
	uint32_t npending, cap_pending;
	int64_t next_due;
	struct ix_node_inv *inv;
	uint64_t accepted, reports, refused;
	uint32_t conns, peak_conns;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* The figures of pair a -> b: one of STEPS values spread below the
 * bandwidth and above the latency, the same for the same pair. */
static unsigned pair_step(uint32_t a, uint32_t b)
{
	return (a * 7u + b * 13u) % STEPS;
}

static void conn_close(struct sim *s, struct sim_conn *c)
{
	for (uint32_t i = 0; c->report && i < s->npending; i++)
		if (s->pending[i] == c) {
			s->pending[i] = s->pending[--s->npending];
			break;
		}
	json_decref(c->report);
	ix_seal_unbind(c->fd);
	close(c->fd);
	ix_frame_reader_reset(&c->rd);
	s->conns--;
	free(c);
}

static int refuse(struct sim *s, struct sim_conn *c, const char *why)
{
	ix_frame_send_error(c->fd, why);
	s->refused++;
	return -1;
}

static int send_body(struct sim_conn *c, uint16_t type, json_t *body)
{
	int rc = ix_frame_send(c->fd, type, body, ix_now_ns() + SEND_NS, NULL);

	json_decref(body);
	return rc;
}

static int on_hello(struct sim *s, struct sim_conn *c, json_t *hello)
{
	const char *cc = json_string_value(json_object_get(hello, "nonce"));
	char host[64], proof[IX_AUTH_HEX];
	json_t *ack;

	snprintf(host, sizeof(host), "simulated-agent-%u", c->agent);
	ack = json_pack("{s:s,s:s,s:i,s:f,s:i,s:s,s:b}", "host", host, "version", PACKAGE_VERSION,
			"protocol", IX_PROTO_VERSION, "max_duration", 0.0, "max_streams", 128,
			"auth", s->token.set ? "hmac-sha256" : "none", "simulated", 1);
	if (s->token.set) {
		if (!cc || strlen(cc) != IX_AUTH_HEX - 1 || ix_auth_challenge(c->sc, NULL) < 0 ||
		    ix_auth_mac(&s->token, "agent", c->sc, cc, proof) < 0) {
			json_decref(ack);
			return refuse(s, c, "HELLO without a valid nonce");
		}
		snprintf(c->cc, sizeof(c->cc), "%s", cc);
		json_object_set_new(ack, "challenge", json_string(c->sc));
		json_object_set_new(ack, "proof", json_string(proof));
		json_object_set_new(ack, "seal", json_string(IX_SEAL_NAME));
	}
	c->state = s->token.set ? S_AUTH : S_READY;
	return send_body(c, IX_MSG_HELLO_ACK, ack);
}

static int on_auth(struct sim *s, struct sim_conn *c, json_t *body)
{
	const char *seal = json_string_value(json_object_get(body, "seal"));
	uint8_t key[IX_SEAL_KEY];
	int rc;

	if (!ix_auth_verify(&s->token, "client", c->sc, c->cc,
			    json_string_value(json_object_get(body, "mac"))))
		return refuse(s, c, "authentication failed");
	if (!seal || strcmp(seal, IX_SEAL_NAME) != 0)
		return refuse(s, c, "the client does not seal its frames: refused");
	if (send_body(c, IX_MSG_AUTH_OK, json_object()) < 0)
		return -1;
	rc = ix_auth_session_key(&s->token, c->sc, c->cc, key) < 0 ||
			     ix_seal_bind(c->fd, key, 'a', NULL) < 0
		     ? -1
		     : 0;
	OPENSSL_cleanse(key, sizeof(key));
	c->state = S_READY;
	return rc;
}

/* A RUN's REPORT, kept until the job would have ended. */
static int on_run(struct sim *s, struct sim_conn *c, json_t *run)
{
	const char *kind = json_string_value(json_object_get(run, "kind"));
	json_t *tg = json_array_get(json_object_get(run, "targets"), 0);
	json_t *delay = json_object_get(run, "delay_us"), *rep;
	json_int_t port = json_integer_value(json_object_get(tg, "port"));
	struct ix_limits lim = { .max_streams = 1024 };
	struct ix_err err = { 0 };
	uint32_t b;
	double k, secs;

	if (!kind || !json_is_integer(delay) || json_integer_value(delay) < 0 ||
	    json_array_size(json_object_get(run, "targets")) != 1 || port <= 0 || port > 65535 ||
	    s->agent_of_port[port] == UINT32_MAX)
		return refuse(s, c, "RUN: a simulated agent takes one target among its own ports");
	b = s->agent_of_port[port];
	k = (double)pair_step(c->agent, b) / (STEPS - 1) * s->spread / 100;
	if (strcmp(kind, "bw") == 0) {
		struct ix_bw_params p = { 0 };
		double bps = s->bw_bps * (1 - k);

		if (ix_wire_parse_bw(json_object_get(run, "bw"), &lim, &p, &err) < 0)
			return refuse(s, c, err.msg);
		secs = p.duration_s > 0 ? p.duration_s : (double)p.bytes * 8 / bps;
		rep = json_pack("{s:b,s:n,s:b,s:{s:f,s:I,s:f}}", "ok", 1, "error", "simulated", 1,
				"bw", "bps", bps, "bytes", (json_int_t)(bps / 8 * secs), "seconds",
				secs);
		secs += p.warmup_s;
		if (s->log)
			fprintf(s->log,
				"{\"from\":%u,\"to\":%u,\"kind\":\"bw\",\"bps\":%.17g,"
				"\"delay_us\":%lld}\n",
				c->agent, b, bps, (long long)json_integer_value(delay));
	} else if (strcmp(kind, "lat") == 0) {
		struct ix_lat_params p = { 0 };
		json_int_t p50 = (json_int_t)llround(s->lat_ns * (1 + k));

		if (ix_wire_parse_lat(json_object_get(run, "lat"), &lim, &p, &err) < 0)
			return refuse(s, c, err.msg);
		secs = p.duration_s > 0 ? p.duration_s : (double)p.iters * (double)p50 / 1e9;
		rep = json_pack("{s:b,s:n,s:b,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:f}}", "ok", 1, "error",
				"simulated", 1, "lat", "samples",
				(json_int_t)(p.iters ? p.iters : 1), "lost", (json_int_t)0, "min",
				p50 * 9 / 10, "p50", p50, "p99", 2 * p50, "max", 3 * p50, "mean",
				(double)p50 * 1.1);
		secs += p.warmup_s;
		if (s->log)
			fprintf(s->log,
				"{\"from\":%u,\"to\":%u,\"kind\":\"lat\",\"p50_ns\":%lld,"
				"\"delay_us\":%lld}\n",
				c->agent, b, (long long)p50, (long long)json_integer_value(delay));
	} else {
		return refuse(s, c, "RUN: a simulated agent runs bw and lat jobs only");
	}
	if (s->npending == s->cap_pending) {
		json_decref(rep);
		return refuse(s, c, "too many simulated jobs at once");
	}
	c->report = rep;
	c->due = ix_now_ns() + json_integer_value(delay) * 1000 + ix_seconds_to_ns(secs);
	s->pending[s->npending++] = c;
	if (c->due < s->next_due)
		s->next_due = c->due;
	return 0;
}

static int on_frame(struct sim *s, struct sim_conn *c, uint16_t type, json_t *body)
{
	char host[64];

	if (c->state == S_HELLO)
		return type == IX_MSG_HELLO ? on_hello(s, c, body) : refuse(s, c, "expected HELLO");
	if (c->state == S_AUTH)
		return type == IX_MSG_AUTH ? on_auth(s, c, body) : refuse(s, c, "expected AUTH");
	if (c->report)
		return refuse(s, c, "a frame while a job runs");
	switch (type) {
	case IX_MSG_PING:
		return send_body(c, IX_MSG_PONG, json_object());
	case IX_MSG_INVENTORY:
		if (ix_inv_request_parse(body, NULL) < 0)
			return refuse(s, c, "malformed INVENTORY");
		snprintf(host, sizeof(host), "simulated-agent-%u", c->agent);
		snprintf(s->inv->hostname, sizeof(s->inv->hostname), "%s", host);
		return send_body(c, IX_MSG_INVENTORY_REPLY, ix_inv_reply(s->inv));
	case IX_MSG_RUN:
		return on_run(s, c, body);
	default:
		return refuse(s, c,
			      "a simulated agent answers HELLO, PING, INVENTORY and RUN only");
	}
}

static void on_readable(struct sim *s, struct sim_conn *c)
{
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *body;
	int got;

	while ((got = ix_frame_reader_feed(&c->rd, c->fd, &type, &body, &err)) > 0) {
		int rc = on_frame(s, c, type, body);

		json_decref(body);
		if (rc < 0) {
			conn_close(s, c);
			return;
		}
	}
	if (got < 0)
		conn_close(s, c);
}

static void on_accept(struct sim *s, struct sim_listener *l)
{
	for (;;) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct sim_conn *c;
		struct epoll_event ev = { .events = EPOLLIN };

		if (fd < 0)
			return;
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		*c = (struct sim_conn){ .kind = K_CONN, .fd = fd, .agent = l->agent };
		ev.data.ptr = c;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			return;
		}
		s->accepted++;
		if (++s->conns > s->peak_conns)
			s->peak_conns = s->conns;
	}
}

/* Every report whose job has ended goes out; one pass when the earliest
 * is due. */
static void send_due(struct sim *s)
{
	int64_t now = ix_now_ns();

	s->next_due = INT64_MAX;
	for (uint32_t i = 0; i < s->npending;) {
		struct sim_conn *c = s->pending[i];

		if (c->due > now) {
			if (c->due < s->next_due)
				s->next_due = c->due;
			i++;
			continue;
		}
		s->pending[i] = s->pending[--s->npending];
		s->reports++;
		if (ix_frame_send(c->fd, IX_MSG_REPORT, c->report, now + SEND_NS, NULL) < 0) {
			json_decref(c->report);
			c->report = NULL;
			conn_close(s, c);
			continue;
		}
		json_decref(c->report);
		c->report = NULL;
	}
}

static int listen_all(struct sim *s, FILE *hosts)
{
	struct ix_err err = { 0 };

	for (uint32_t i = 0; i < s->n; i++) {
		struct sim_listener *l = &s->ls[i];
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = l };
		uint16_t port;

		l->kind = K_LISTENER;
		l->agent = i;
		l->fd = ix_net_listen(s->bind, 0, LISTEN_BACK, &err);
		if (l->fd < 0 || ix_net_set_nonblock(l->fd, 1) < 0 ||
		    epoll_ctl(s->ep, EPOLL_CTL_ADD, l->fd, &ev) < 0) {
			fprintf(stderr, "simagents: agent %u cannot listen: %s\n", i,
				err.msg[0] ? err.msg : strerror(errno));
			return -1;
		}
		port = ix_net_local_port(l->fd);
		s->agent_of_port[port] = i;
		if (hosts)
			fprintf(hosts, "%s:%u\n", s->bind, port);
	}
	return 0;
}

static int parse_num(const char *opt, const char *v, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(*out) || *out < lo || *out > hi) {
		fprintf(stderr, "simagents: %s '%s': not a number in [%g, %g]\n", opt, v, lo, hi);
		return -1;
	}
	return 0;
}

static int parse_args(struct sim *s, int argc, char **argv, const char **hosts, const char **log)
{
	static const struct option opts[] = { { "agents", required_argument, NULL, 'n' },
					      { "bind", required_argument, NULL, 'B' },
					      { "token-file", required_argument, NULL, 'T' },
					      { "bw", required_argument, NULL, 'w' },
					      { "lat", required_argument, NULL, 'l' },
					      { "spread", required_argument, NULL, 's' },
					      { "hosts", required_argument, NULL, 'H' },
					      { "log", required_argument, NULL, 'L' },
					      { NULL, 0, NULL, 0 } };
	struct ix_err err = { 0 };
	double n = 0;
	int o;

	while ((o = getopt_long(argc, argv, "n:B:", opts, NULL)) != -1) {
		int rc = 0;

		if (o == 'n')
			rc = parse_num("-n", optarg, 1, MAX_AGENTS, &n);
		else if (o == 'B')
			s->bind = optarg;
		else if (o == 'T')
			rc = ix_token_load(optarg, &s->token, &err);
		else if (o == 'w')
			rc = parse_num("--bw", optarg, 1, 1e13, &s->bw_bps);
		else if (o == 'l')
			rc = parse_num("--lat", optarg, 1, 1e9, &s->lat_ns);
		else if (o == 's')
			rc = parse_num("--spread", optarg, 0, 90, &s->spread);
		else if (o == 'H')
			*hosts = optarg;
		else if (o == 'L')
			*log = optarg;
		else
			rc = -1;
		if (rc < 0) {
			if (err.msg[0])
				fprintf(stderr, "simagents: %s\n", err.msg);
			return -1;
		}
	}
	if (n < 1 || optind != argc || n != floor(n)) {
		fprintf(stderr, "usage: simagents -n N [-B ADDR] [--token-file F] [--bw BPS] "
				"[--lat NS] [--spread PCT] [--hosts FILE] [--log FILE]\n");
		return -1;
	}
	s->n = (uint32_t)n;
	return 0;
}

static void loop(struct sim *s)
{
	struct epoll_event ev[EVENTS];

	while (!stop_flag) {
		int rc = epoll_wait(s->ep, ev, EVENTS,
				    s->next_due == INT64_MAX ? 1000 : ix_ms_until(s->next_due));

		if (rc < 0 && errno != EINTR)
			break;
		for (int i = 0; i < rc; i++) {
			int kind = *(int *)ev[i].data.ptr;

			if (kind == K_LISTENER)
				on_accept(s, ev[i].data.ptr);
			else
				on_readable(s, ev[i].data.ptr);
		}
		if (ix_now_ns() >= s->next_due)
			send_due(s);
		if (s->log)
			fflush(s->log);
	}
}

int main(int argc, char **argv)
{
	struct sim s = { .bind = "127.0.0.1", .bw_bps = 10e9, .lat_ns = 20000, .spread = 5 };
	const char *hosts_path = NULL, *log_path = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	FILE *hosts = NULL;
	int rc = 1;

	if (argc == 3 && strcmp(argv[1], "--cells-bytes") == 0) {
		printf("%zu\n",
		       ix_cells_bytes((uint32_t)strtoul(argv[2], NULL, 10), IX_CELLS_PAIR));
		return 0;
	}
	if (parse_args(&s, argc, argv, &hosts_path, &log_path) < 0)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	ix_net_raise_nofile();
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	s.ls = calloc(s.n, sizeof(*s.ls));
	s.agent_of_port = malloc(65536 * sizeof(*s.agent_of_port));
	s.cap_pending = s.n * 4;
	s.pending = calloc(s.cap_pending, sizeof(*s.pending));
	s.inv = calloc(1, sizeof(*s.inv));
	s.next_due = INT64_MAX;
	if (s.ep < 0 || !s.ls || !s.agent_of_port || !s.pending || !s.inv) {
		fprintf(stderr, "simagents: out of memory\n");
		goto out;
	}
	memset(s.agent_of_port, 0xff, 65536 * sizeof(*s.agent_of_port));
	snprintf(s.inv->kernel, sizeof(s.inv->kernel), "simulated");
	if (log_path && !(s.log = fopen(log_path, "w"))) {
		fprintf(stderr, "simagents: %s: %s\n", log_path, strerror(errno));
		goto out;
	}
	if (hosts_path && !(hosts = fopen(hosts_path, "w"))) {
		fprintf(stderr, "simagents: %s: %s\n", hosts_path, strerror(errno));
		goto out;
	}
	if (listen_all(&s, hosts) < 0 || (hosts && fclose(hosts) != 0))
		goto out;
	hosts = NULL;
	printf("simulated agents: %u on %s\n", s.n, s.bind);
	fflush(stdout);
	loop(&s);
	fprintf(stderr,
		"simagents: %" PRIu64 " connections, %u at most at once, %" PRIu64
		" simulated reports, %" PRIu64 " refusals\n",
		s.accepted, s.peak_conns, s.reports, s.refused);
	rc = 0;
out:
	if (hosts)
		fclose(hosts);
	if (s.log)
		fclose(s.log);
	return rc;
}
