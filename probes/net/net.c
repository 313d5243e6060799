#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/core/clock.h"
#include "probes/net/net.h"

int ix_net_set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

uint64_t ix_net_buffer_size(int fd, bool send_side)
{
	int v = 0;
	socklen_t sl = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, send_side ? SO_SNDBUF : SO_RCVBUF, &v, &sl) < 0 || v < 0)
		return 0;
	return (uint64_t)v;
}

int ix_net_set_buffers(int fd, uint64_t bytes, uint64_t *granted, struct ix_err *err)
{
	static const struct {
		int opt;
		const char *name;
	} opts[] = { { SO_SNDBUF, "SO_SNDBUF" }, { SO_RCVBUF, "SO_RCVBUF" } };
	int w = bytes > INT32_MAX / 2 ? INT32_MAX / 2 : (int)bytes;
	uint64_t snd, rcv;

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (setsockopt(fd, SOL_SOCKET, opts[i].opt, &w, sizeof(w)) < 0)
			return ix_fail(err, IX_EXIT_FAIL,
				       "cannot set %s to %d bytes (--window): %s", opts[i].name, w,
				       strerror(errno));
	snd = ix_net_buffer_size(fd, true);
	rcv = ix_net_buffer_size(fd, false);
	if (!snd || !rcv)
		return ix_fail(err, IX_EXIT_FAIL, "cannot read back the socket buffer size: %s",
			       strerror(errno));
	if (granted)
		*granted = snd < rcv ? snd : rcv;
	return 0;
}

/* A net.core sysctl's value; UINT64_MAX when it cannot be read. */
static uint64_t core_sysctl(const char *name)
{
	char path[64];
	unsigned long long v;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/sys/net/core/%s", name);
	f = fopen(path, "re");
	if (!f)
		return UINT64_MAX;
	n = fscanf(f, "%llu", &v);
	fclose(f);
	return n == 1 ? (uint64_t)v : UINT64_MAX;
}

uint64_t ix_net_window_bytes(uint64_t bytes)
{
	uint64_t w = bytes > INT32_MAX / 2 ? INT32_MAX / 2 : bytes;
	uint64_t snd = core_sysctl("wmem_max"), rcv = core_sysctl("rmem_max");

	if (!bytes)
		return 0;
	return 2 * (w < snd ? w : snd) + 2 * (w < rcv ? w : rcv);
}

int ix_net_set_send_timeout(int fd, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	return setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

int ix_net_set_recv_timeout(int fd, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

int ix_net_set_timeouts(int fd, int ms)
{
	if (ix_net_set_send_timeout(fd, ms) < 0)
		return -1;
	return ix_net_set_recv_timeout(fd, ms);
}

static int resolve(const char *host, uint16_t port, int type, int passive, struct addrinfo **res,
		   struct ix_err *err)
{
	struct addrinfo hints;
	char portstr[8];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = type;
	hints.ai_flags = passive ? AI_PASSIVE : 0;
	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, res);
	if (rc != 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot resolve '%s': %s", host ? host : "*",
			       gai_strerror(rc));
	return 0;
}

/* A fixed source port: any address of the family, or bind_addr's. */
static int bind_port(int fd, int family, uint16_t lport, struct ix_err *err)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(lport);
		sl = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(lport);
		sl = sizeof(*a);
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) == 0)
		return 0;
	return ix_fail(err, IX_EXIT_FAIL, "cannot bind source port %u: %s", lport,
		       errno == EADDRINUSE ? "the port is in use on this host" : strerror(errno));
}

static int bind_to(int fd, const char *bind_addr, int family, uint16_t lport, struct ix_err *err)
{
	struct addrinfo *res, *ai;
	int e = 0;

	if (!bind_addr)
		return lport ? bind_port(fd, family, lport, err) : 0;
	if (resolve(bind_addr, lport, SOCK_STREAM, 1, &res, err) < 0)
		return -1;
	for (ai = res; ai; ai = ai->ai_next) {
		if (ai->ai_family != family)
			continue;
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			freeaddrinfo(res);
			return 0;
		}
		e = errno;
	}
	freeaddrinfo(res);
	if (lport && e == EADDRINUSE)
		return ix_fail(
			err, IX_EXIT_FAIL,
			"cannot bind source port %u of '%s': the port is in use on this host",
			lport, bind_addr);
	return ix_fail(err, IX_EXIT_FAIL, "cannot bind to '%s': %s", bind_addr,
		       strerror(e ? e : errno));
}

static int connect_one(const struct addrinfo *ai, const char *bind_addr, uint16_t lport,
		       int64_t deadline, struct ix_err *err)
{
	struct pollfd pfd;
	int fd, rc, soerr = 0;
	socklen_t sl = sizeof(soerr);

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return ix_fail(err, IX_EXIT_FAIL, "socket: %s", strerror(errno));
	if (lport && ai->ai_socktype == SOCK_STREAM) {
		/* The same 5-tuple again: over the TIME_WAIT of the last test
		 * from this port (a bound connect reuses it, with timestamps);
		 * a listener or a socket without SO_REUSEADDR on the port still
		 * refuses the bind. */
		struct linger lg = { 1, 0 };
		int one = 1;

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	if (bind_to(fd, bind_addr, ai->ai_family, lport, err) < 0)
		goto fail_quiet;
	ix_net_set_nonblock(fd, 1);
	rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
	if (rc < 0 && errno != EINPROGRESS) {
		if (lport && errno == EADDRNOTAVAIL)
			ix_fail(err, IX_EXIT_FAIL,
				"source port %u is in use towards this peer by another connection",
				lport);
		else
			ix_fail(err, IX_EXIT_FAIL, "%s", strerror(errno));
		goto fail_quiet;
	}
	if (rc < 0) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do {
			rc = poll(&pfd, 1, ix_ms_until(deadline));
		} while (rc < 0 && errno == EINTR);
		if (rc == 0) {
			ix_fail(err, IX_EXIT_FAIL, "timed out");
			goto fail_quiet;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
			ix_fail(err, IX_EXIT_FAIL, "%s", strerror(soerr ? soerr : errno));
			goto fail_quiet;
		}
	}
	ix_net_set_nonblock(fd, 0);
	return fd;
fail_quiet:
	close(fd);
	return -1;
}

int ix_net_connect(const char *host, uint16_t port, int type, const char *bind_addr,
		   int64_t deadline_ns, struct ix_err *err)
{
	return ix_net_connect_from(host, port, type, bind_addr, 0, deadline_ns, err);
}

int ix_net_connect_from(const char *host, uint16_t port, int type, const char *bind_addr,
			uint16_t lport, int64_t deadline_ns, struct ix_err *err)
{
	struct addrinfo *res, *ai;
	int fd = -1, one = 1;

	if (resolve(host, port, type, 0, &res, err) < 0)
		return -1;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = connect_one(ai, bind_addr, lport, deadline_ns, err);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return ix_fail_prefix(err, "cannot connect to %s port %u", host, port);
	if (type == SOCK_STREAM)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

void ix_net_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int ix_net_listen(const char *bind_addr, uint16_t port, int backlog, struct ix_err *err)
{
	struct addrinfo *res, *ai;
	int fd = -1, one = 1, zero = 0;

	if (resolve(bind_addr, port, SOCK_STREAM, 1, &res, err) < 0)
		return -1;
	/* Prefer IPv6 dual-stack when binding to any address. */
	for (int pass = 0; pass < 2 && fd < 0; pass++) {
		for (ai = res; ai; ai = ai->ai_next) {
			if (!bind_addr && pass == 0 && ai->ai_family != AF_INET6)
				continue;
			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
			if (fd < 0)
				continue;
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (ai->ai_family == AF_INET6 && !bind_addr)
				setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, backlog) == 0)
				break;
			ix_fail(err, IX_EXIT_FAIL, "cannot listen on %s port %u: %s",
				bind_addr ? bind_addr : "*", port, strerror(errno));
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

int ix_net_udp_bind_like(int ref_fd, uint16_t *port, struct ix_err *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd;

	if (getsockname(ref_fd, (struct sockaddr *)&ss, &sl) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "getsockname: %s", strerror(errno));
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(*port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(*port);
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ix_fail(err, IX_EXIT_FAIL, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0) {
		int e = errno;

		close(fd);
		if (*port && e == EADDRINUSE)
			return ix_fail(err, IX_EXIT_FAIL,
				       "cannot bind UDP port %u: the port is in use on this host",
				       *port);
		return ix_fail(err, IX_EXIT_FAIL, "cannot bind UDP socket: %s", strerror(e));
	}
	*port = ix_net_local_port(fd);
	return fd;
}

static int wait_fd(int fd, short ev, int64_t deadline, struct ix_err *err)
{
	struct pollfd pfd = { .fd = fd, .events = ev };
	int rc;

	do {
		rc = poll(&pfd, 1, ix_ms_until(deadline));
	} while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return ix_fail(err, IX_EXIT_FAIL, "poll: %s", strerror(errno));
	if (rc == 0)
		return ix_fail(err, IX_EXIT_FAIL, "timed out waiting for the peer");
	return 0;
}

/* Both loops try the call first and wait only when it would block: one
 * system call per message on the latency path, not two. */
int ix_net_read_full(int fd, void *buf, size_t len, int64_t deadline_ns, struct ix_err *err)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
		if (n == 0)
			return ix_fail(err, IX_EXIT_FAIL, "connection closed by peer");
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return ix_fail(err, IX_EXIT_FAIL, "receive failed: %s", strerror(errno));
		if (wait_fd(fd, POLLIN, deadline_ns, err) < 0)
			return -1;
	}
	return 0;
}

int ix_net_write_full(int fd, const void *buf, size_t len, int64_t deadline_ns, struct ix_err *err)
{
	size_t put = 0;
	ssize_t n;

	while (put < len) {
		n = send(fd, (const char *)buf + put, len - put, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			put += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return ix_fail(err, IX_EXIT_FAIL, "send failed: %s", strerror(errno));
		if (wait_fd(fd, POLLOUT, deadline_ns, err) < 0)
			return -1;
	}
	return 0;
}

void ix_net_peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN], port[8];

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		snprintf(buf, len, "?");
		return;
	}
	if (ss.ss_family == AF_INET6)
		snprintf(buf, len, "[%s]:%s", host, port);
	else
		snprintf(buf, len, "%s:%s", host, port);
}

uint16_t ix_net_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

uint16_t ix_net_peer_port(int fd)
{
	struct sockaddr_storage ss;

	if (ix_net_peer_addr(fd, &ss) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

int ix_net_peer_addr(int fd, struct sockaddr_storage *ss)
{
	socklen_t sl = sizeof(*ss);

	memset(ss, 0, sizeof(*ss));
	return getpeername(fd, (struct sockaddr *)ss, &sl);
}

/* The IPv4 address in a (possibly IPv4-mapped IPv6) address, or 0. */
static bool as_v4(const struct sockaddr_storage *a, struct in_addr *out)
{
	if (a->ss_family == AF_INET) {
		*out = ((const struct sockaddr_in *)a)->sin_addr;
		return true;
	}
	if (a->ss_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)a)->sin6_addr)) {
		memcpy(out, ((const struct sockaddr_in6 *)a)->sin6_addr.s6_addr + 12, 4);
		return true;
	}
	return false;
}

bool ix_net_is_loopback(const struct sockaddr_storage *a)
{
	struct in_addr x;

	if (as_v4(a, &x))
		return (ntohl(x.s_addr) >> 24) == 127;
	return a->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

bool ix_net_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	struct in_addr x, y;

	if (as_v4(a, &x) && as_v4(b, &y))
		return x.s_addr == y.s_addr;
	if (a->ss_family == AF_INET6 && b->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
	return false;
}

bool ix_net_peer_local(int fd)
{
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof(me);

	if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0 || ix_net_peer_addr(fd, &peer) < 0)
		return false;
	return ix_net_is_loopback(&peer) || ix_net_same_host(&me, &peer);
}

bool ix_net_same_source(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	struct in_addr x, y;

	if (as_v4(a, &x) && as_v4(b, &y))
		return x.s_addr == y.s_addr;
	/* One IPv6 host holds a whole /64: counting it by address would let
	 * it take every slot. */
	if (a->ss_family == AF_INET6 && b->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, 8) == 0;
	return false;
}

void ix_net_seq_init(struct ix_net_seq *q)
{
	memset(q, 0, sizeof(*q));
}

void ix_net_seq_open(struct ix_net_seq *q)
{
	if (q->open)
		return;
	q->open = true;
	q->base = q->next;
}

static struct ix_net_seq_count *seq_side(struct ix_net_seq *q, uint64_t seq)
{
	return q->open && seq >= q->base ? &q->measured : &q->warm;
}

static void seq_mark(struct ix_net_seq *q, uint64_t seq, bool missing)
{
	uint64_t bit = 1ull << (seq % 64);
	uint64_t *w = &q->missing[(seq % IX_NET_SEQ_WINDOW) / 64];

	*w = missing ? *w | bit : *w & ~bit;
}

/* Everything from next up to (not including) upto is missing. */
static void seq_advance(struct ix_net_seq *q, uint64_t upto)
{
	uint64_t from = upto - q->next > IX_NET_SEQ_WINDOW ? upto - IX_NET_SEQ_WINDOW : q->next;

	/* next >= base once open: the whole gap is on one side. */
	seq_side(q, q->next)->lost += upto - q->next;
	for (uint64_t k = from; k < upto; k++)
		seq_mark(q, k, true);
	q->next = upto;
}

enum ix_net_seq_kind ix_net_seq_add(struct ix_net_seq *q, uint64_t seq)
{
	struct ix_net_seq_count *c = seq_side(q, seq);
	uint64_t *w = &q->missing[(seq % IX_NET_SEQ_WINDOW) / 64];

	if (seq == UINT64_MAX) /* no room after it: not from a real sender */
		return IX_NET_SEQ_STALE;
	if (seq >= q->next) {
		seq_advance(q, seq);
		seq_mark(q, seq, false);
		q->next = seq + 1;
		return IX_NET_SEQ_NEW;
	}
	if (q->next - seq > IX_NET_SEQ_WINDOW) {
		c->out_of_order++;
		return IX_NET_SEQ_STALE;
	}
	if (!(*w & (1ull << (seq % 64)))) {
		c->duplicates++;
		return IX_NET_SEQ_DUP;
	}
	seq_mark(q, seq, false);
	c->lost--; /* counted on this side when the gap opened */
	c->out_of_order++;
	return IX_NET_SEQ_FILL;
}

void ix_net_seq_end(struct ix_net_seq *q, uint64_t total)
{
	if (total > q->next)
		seq_advance(q, total);
}
