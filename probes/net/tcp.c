/* TCP: one connection per stream, attached to the agent's port. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/core/clock.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/transport.h"
#include "probes/net/watchdog.h"
#include "probes/net/zcopy.h"

#define TCP_RECV_MIN (128u * 1024)
#define ZC_DRAIN_NS  (2 * 1000000000LL) /* completions still open at the end */
/* Receiver wake-ups (SO_RCVLOWAT): no more than one a LOWAT_MAX bytes, and
 * no byte held longer than about LOWAT_HOLD_NS at the rate of the last
 * LOWAT_EVERY_NS. */
#define LOWAT_MAX      TCP_RECV_MIN
#define LOWAT_HOLD_NS  1000000LL
#define LOWAT_EVERY_NS (10 * 1000000LL)
#define MUX_WAIT_NS    (20 * 1000000LL) /* a thread of several streams waits no longer */

static void tcp_finish(struct ix_stream *s);

static uint8_t *pattern_buf(uint64_t len)
{
	uint8_t *b = malloc(len ? len : 1);
	if (b)
		for (uint64_t i = 0; i < len; i++)
			b[i] = (uint8_t)(i * 131u + 7u);
	return b;
}

static int tcp_info(int fd, struct tcp_info *ti)
{
	socklen_t sl = sizeof(*ti);
	memset(ti, 0, sizeof(*ti));
	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &sl);
}

static int tcp_send(struct ix_stream *s)
{
	uint8_t *buf = pattern_buf(s->msg_size);
	uint64_t sent = 0;
	int64_t t0 = ix_now_ns(), now;
	bool warm = false;
	struct ix_zc zc = { .fd = -1 };
	int rc = 0;

	if (!buf)
		return ix_fail(&s->err, IX_EXIT_FAIL, "out of memory");
	/* The pattern is never written again, so every send in flight can
	 * share it (zcopy.h). */
	if (s->zerocopy)
		ix_zc_open(&zc, s->fd);
	for (;;) {
		size_t len = s->msg_size;
		ssize_t n;

		now = ix_now_ns();
		if (!warm && now >= s->warm_until) {
			struct tcp_info ti;
			if (tcp_info(s->fd, &ti) == 0)
				s->warm_retrans = ti.tcpi_total_retrans;
			ix_stream_mark_warm(s, now, sent, 0);
			warm = true;
		}
		if (ix_stream_stopped(s) || (s->send_until && now >= s->send_until))
			break;
		if (s->byte_limit) {
			if (sent >= s->byte_limit)
				break;
			if (s->byte_limit - sent < len)
				len = s->byte_limit - sent;
		}
		if (!ix_stream_pace(s, t0, sent, now))
			break;
		n = s->zerocopy ? ix_zc_send(&zc, buf, len, MSG_NOSIGNAL)
				: send(s->fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			rc = ix_fail(&s->err, IX_EXIT_FAIL, "stream %u: send failed: %s", s->id,
				     strerror(errno));
			break;
		}
		sent += (uint64_t)n;
		atomic_store_explicit(&s->c.bytes, sent, memory_order_relaxed);
	}
	s->last_t = ix_now_ns();
	if (s->zerocopy) {
		/* The last completions come as the peer acknowledges the data. */
		if (rc == 0)
			ix_zc_drain(&zc, s->last_t + ZC_DRAIN_NS);
		s->zc = zc.st;
	}
	free(buf);
	return rc;
}

/* How many bytes wake the receiver. Woken for every segment, a receiver
 * that keeps up costs its sender a wake-up (an IPI) a segment: on
 * loopback one 128 KiB stream ran at half the goodput of one that is
 * woken once its read is full. A slow stream must not hold its bytes
 * back, though: the mark follows the stream's recent rate, about a
 * millisecond's worth, so that interval and window edges stay within a
 * millisecond of the bytes' arrival. When the sender pauses, what is
 * below the mark waits for more, for its FIN (sent as its loop ends), or
 * for the receive timeout (200 ms), whichever comes first. */
struct lowat {
	int64_t t;
	uint64_t bytes;
	int mark;
};

static void lowat_follow(int fd, struct lowat *lw, uint64_t got, int64_t now)
{
	uint64_t per;
	int want, buf = 0;
	socklen_t bl = sizeof(buf);

	if (now - lw->t < LOWAT_EVERY_NS)
		return;
	per = (got - lw->bytes) * (uint64_t)LOWAT_HOLD_NS / (uint64_t)(now - lw->t);
	/* At most a quarter of the receive buffer: Linux clamps the window
	 * to a mark the buffer cannot hold twice over. */
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, &bl) == 0 && buf > 0 &&
	    per > (uint64_t)buf / 4)
		per = (uint64_t)buf / 4;
	want = per >= LOWAT_MAX ? (int)LOWAT_MAX : per < 1 ? 1 : (int)per;
	/* Only a change of a quarter or more is worth a system call. */
	if (want * 4 < lw->mark * 3 || want * 4 > lw->mark * 5) {
		if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &want, sizeof(want)) == 0)
			lw->mark = want;
	}
	lw->t = now;
	lw->bytes = got;
}

static int tcp_recv(struct ix_stream *s)
{
	size_t len = s->msg_size > TCP_RECV_MIN ? s->msg_size : TCP_RECV_MIN;
	uint8_t *buf = malloc(len);
	uint64_t got = 0;
	bool warm = false;
	struct lowat lw = { .t = ix_now_ns(), .mark = 1 };
	int rc = 0;

	if (!buf)
		return ix_fail(&s->err, IX_EXIT_FAIL, "out of memory");
	for (;;) {
		ssize_t n = recv(s->fd, buf, len, 0);
		int64_t now = ix_now_ns();

		if (!warm && now >= s->warm_until) {
			ix_stream_mark_warm(s, now, got, 0);
			warm = true;
		}
		if (n > 0) {
			got += (uint64_t)n;
			atomic_store_explicit(&s->c.bytes, got, memory_order_relaxed);
			s->last_t = now;
			lowat_follow(s->fd, &lw, got, now);
			continue;
		}
		if (n == 0)
			break;
		if (errno == EAGAIN || errno == EINTR) {
			if (ix_stream_stopped(s))
				break;
			continue;
		}
		rc = ix_fail(&s->err, IX_EXIT_FAIL, "stream %u: receive failed: %s", s->id,
			     strerror(errno));
		break;
	}
	free(buf);
	return rc;
}

/* Several streams in one thread (ix_streams_start's groups): each socket
 * is driven without blocking, round robin, and the thread sleeps in
 * poll(2) only when none of them can move. Unpaced, copying sends only
 * (engine.c keeps paced and zero-copy streams a thread each). */
struct mux_end {
	struct ix_stream *s;
	uint64_t bytes;
	bool warm, done;
	struct lowat lw;
};

/* Mark a stream's warm-up boundary once its time has come. */
static void mux_warm(struct mux_end *m, int64_t now)
{
	struct tcp_info ti;

	if (m->warm || now < m->s->warm_until)
		return;
	if (m->s->sending && tcp_info(m->s->fd, &ti) == 0)
		m->s->warm_retrans = ti.tcpi_total_retrans;
	ix_stream_mark_warm(m->s, now, m->bytes, 0);
	m->warm = true;
}

/* One non-blocking step of stream m: 1 moved bytes, 0 would block, -1 done
 * (ended or failed; its error recorded). */
static int mux_step(struct mux_end *m, uint8_t *buf, size_t len, int64_t now)
{
	struct ix_stream *s = m->s;
	ssize_t n;

	mux_warm(m, now);
	if (s->sending) {
		if (ix_stream_stopped(s) || (s->send_until && now >= s->send_until) ||
		    (s->byte_limit && m->bytes >= s->byte_limit))
			return -1;
		if (s->byte_limit && s->byte_limit - m->bytes < len)
			len = (size_t)(s->byte_limit - m->bytes);
		n = send(s->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	} else {
		n = recv(s->fd, buf, len, MSG_DONTWAIT);
		if (n == 0)
			return -1;
	}
	if (n > 0) {
		m->bytes += (uint64_t)n;
		atomic_store_explicit(&s->c.bytes, m->bytes, memory_order_relaxed);
		if (!s->sending) {
			s->last_t = now;
			lowat_follow(s->fd, &m->lw, m->bytes, now);
		}
		return 1;
	}
	if (errno == EAGAIN || errno == EINTR)
		return ix_stream_stopped(s) && !s->sending ? -1 : 0;
	ix_fail(&s->err, IX_EXIT_FAIL, "stream %u: %s failed: %s", s->id,
		s->sending ? "send" : "receive", strerror(errno));
	s->failed = true;
	return -1;
}

static void mux_end_stream(struct mux_end *m)
{
	m->done = true;
	if (m->s->sending) {
		m->s->last_t = ix_now_ns();
		tcp_finish(m->s);
	}
}

static int tcp_mux(struct ix_stream **ss, uint32_t n)
{
	size_t len = 0;
	uint32_t left = n;
	struct mux_end *m = calloc(n, sizeof(*m));
	struct pollfd *pf = calloc(n, sizeof(*pf));
	uint8_t *buf;
	int64_t t0 = ix_now_ns();

	for (uint32_t i = 0; i < n; i++)
		if (ss[i]->msg_size > len)
			len = ss[i]->msg_size;
	if (!ss[0]->sending && len < TCP_RECV_MIN)
		len = TCP_RECV_MIN;
	buf = pattern_buf(len);
	if (!m || !pf || !buf) {
		for (uint32_t i = 0; i < n; i++) {
			ix_fail(&ss[i]->err, IX_EXIT_FAIL, "out of memory");
			ss[i]->failed = true;
		}
		free(m);
		free(pf);
		free(buf);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		m[i] = (struct mux_end){ .s = ss[i], .lw = { .t = t0, .mark = 1 } };
	while (left > 0) {
		bool moved = false;
		nfds_t k = 0;
		int64_t now = ix_now_ns(), wait_ns = MUX_WAIT_NS;

		for (uint32_t i = 0; i < n; i++) {
			int r;

			if (m[i].done)
				continue;
			r = mux_step(&m[i], buf, m[i].s->sending ? m[i].s->msg_size : len, now);
			if (r < 0) {
				mux_end_stream(&m[i]);
				left--;
			} else if (r > 0)
				moved = true;
		}
		if (moved || left == 0)
			continue;
		for (uint32_t i = 0; i < n; i++) {
			if (m[i].done)
				continue;
			pf[k++] = (struct pollfd){ .fd = m[i].s->fd,
						   .events = m[i].s->sending ? POLLOUT : POLLIN };
			if (m[i].s->sending && m[i].s->send_until &&
			    m[i].s->send_until - now < wait_ns)
				wait_ns = m[i].s->send_until - now;
		}
		/* A sender's deadline is kept to the millisecond, the stop flag
		 * seen within MUX_WAIT_NS. */
		poll(pf, k, wait_ns > 0 ? (int)((wait_ns + 999999) / 1000000) : 0);
	}
	free(m);
	free(pf);
	free(buf);
	return 0;
}

static void tcp_sender_info(struct ix_stream *s, struct ix_stream_end *e)
{
	struct tcp_info ti;

	if (s->fd < 0 || tcp_info(s->fd, &ti) < 0)
		return;
	/* Totals: the sampler takes differences, and ix_stream_end_fill
	 * subtracts the warm-up baseline once this stream's thread is done. */
	e->retransmits = ix_u64(ti.tcpi_total_retrans);
	e->rtt_us = ix_u64(ti.tcpi_rtt);
	e->rttvar_us = ix_u64(ti.tcpi_rttvar);
	e->cwnd_bytes = ix_u64((uint64_t)ti.tcpi_snd_cwnd * ti.tcpi_snd_mss);
}

static void tcp_finish(struct ix_stream *s)
{
	if (s->fd >= 0)
		shutdown(s->fd, SHUT_WR);
}

static int tcp_tune(struct ix_stream *s, const struct ix_bw_params *p, char *cc_used, size_t cc_len,
		    struct ix_err *err)
{
	socklen_t sl;

	if (p->congestion[0] && setsockopt(s->fd, IPPROTO_TCP, TCP_CONGESTION, p->congestion,
					   strlen(p->congestion)) < 0)
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "congestion control '%s' is not available here: %s "
			       "(see /proc/sys/net/ipv4/tcp_allowed_congestion_control)",
			       p->congestion, strerror(errno));
	if (p->window && ix_net_set_buffers(s->fd, p->window, NULL, err) < 0)
		return ix_fail_prefix(err, "stream %u", s->id);
	if (cc_used && cc_len) {
		sl = (socklen_t)cc_len;
		if (getsockopt(s->fd, IPPROTO_TCP, TCP_CONGESTION, cc_used, &sl) < 0)
			cc_used[0] = '\0';
		else
			cc_used[cc_len - 1] = '\0';
	}
	return 0;
}

/* Server: the connection arrived through ATTACH; make it ready. */
static int tcp_server_accept(struct ix_stream *s, const char *cookie, int64_t deadline,
			     struct ix_err *err)
{
	int one = 1;

	(void)cookie;
	(void)deadline;
	setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (ix_net_set_timeouts(s->fd, 200) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "stream %u: %s", s->id, strerror(errno));
	return 0;
}

static int tcp_client_open(struct ix_stream *s, const struct ix_dial *d, json_t *setup,
			   int64_t deadline, struct ix_err *err)
{
	json_t *att;
	int rc;

	s->fd = ix_net_connect_from(d->host, d->port, SOCK_STREAM, d->bind_addr, s->local_port,
				    deadline, err);
	if (s->fd < 0)
		return -1;
	att = json_pack("{s:s,s:i}", "cookie", d->cookie, "stream", (json_int_t)s->id);
	rc = ix_frame_send(s->fd, IX_MSG_ATTACH, att, deadline, err);
	json_decref(att);
	if (rc < 0)
		return ix_fail_prefix(err, "stream %u", s->id);
	return ix_net_set_timeouts(s->fd, 200);
}

/* Latency: the responder echoes whatever bytes arrive. */
static int tcp_echo(struct ix_stream *s)
{
	uint8_t *buf = malloc(TCP_RECV_MIN);
	int rc = 0;

	if (!buf)
		return ix_fail(&s->err, IX_EXIT_FAIL, "out of memory");
	/* Each receive blocks without a timeout: SO_RCVTIMEO would arm a
	 * kernel timer at every wait, about 0.5 % of a loopback round trip. A
	 * stop shuts the reading side down instead (ix_streams_stop), and a
	 * send still times out (SO_SNDTIMEO). */
	if (!s->busy_poll) {
		atomic_store(&s->wakes_by_shutdown, true);
		if (ix_stream_stopped(s)) {
			free(buf);
			return 0;
		}
		ix_net_set_recv_timeout(s->fd, 0);
	}
	/* The turnaround between the receive and the send is inside the
	 * client's round trip, so it touches no page it need not: where
	 * page-table isolation runs without PCID, each system call leaves the
	 * TLB cold. The socket and flags stay in registers, and the clock is
	 * read only when a send cannot take the whole echo. */
	const int fd = s->fd, rflags = s->busy_poll ? MSG_DONTWAIT : 0;

	for (;;) {
		ssize_t sent, n = ix_net_recv(fd, buf, TCP_RECV_MIN, rflags);

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				if (ix_stream_stopped(s))
					break;
				continue;
			}
			rc = ix_fail(&s->err, IX_EXIT_FAIL, "echo: receive failed: %s",
				     strerror(errno));
			break;
		}
		sent = ix_net_send(fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (sent < 0)
			sent = 0; /* ix_net_write_full sends again, and names a failure */
		if (sent < n && ix_net_write_full(fd, buf + sent, (size_t)(n - sent),
						  ix_now_ns() + 5 * IX_NSEC_PER_SEC, &s->err) < 0) {
			rc = -1;
			break;
		}
		atomic_fetch_add_explicit(&s->c.packets, 1, memory_order_relaxed);
	}
	free(buf);
	return rc;
}

static int tcp_serve_blocks(struct ix_stream *s)
{
	uint8_t *buf = pattern_buf(TCP_RECV_MIN), req[8];
	uint64_t sent = 0;
	int rc = 0;

	if (!buf)
		return ix_fail(&s->err, IX_EXIT_FAIL, "out of memory");
	ix_stream_mark_warm(s, ix_now_ns(), 0, 0);
	for (;;) {
		uint64_t want = 0;
		ssize_t n = recv(s->fd, req, sizeof(req), MSG_WAITALL);

		if (n == 0)
			break;
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (ix_stream_stopped(s))
				break;
			continue;
		}
		if (n != (ssize_t)sizeof(req)) {
			rc = ix_fail(&s->err, IX_EXIT_FAIL, "block request: %s",
				     n < 0 ? strerror(errno) : "truncated");
			break;
		}
		for (int i = 0; i < 8; i++)
			want = want << 8 | req[i];
		if (want == 0 || want > s->msg_size) {
			rc = ix_fail(&s->err, IX_EXIT_FAIL, "block request of %llu bytes refused",
				     (unsigned long long)want);
			break;
		}
		while (want > 0) {
			size_t len = want < TCP_RECV_MIN ? (size_t)want : TCP_RECV_MIN;
			if (ix_net_write_full(s->fd, buf, len, ix_now_ns() + 30 * IX_NSEC_PER_SEC,
					      &s->err) < 0) {
				rc = -1;
				goto out;
			}
			want -= len;
			sent += len;
		}
		atomic_store_explicit(&s->c.bytes, sent, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->c.packets, 1, memory_order_relaxed);
		s->last_t = ix_now_ns();
	}
out:
	free(buf);
	return rc;
}

/* A ping's send or receive found nothing to do (EAGAIN, EINTR): -1 with
 * the stream's error once the test stopped or the deadline passed. */
static int ping_wait(struct ix_stream *s, int64_t deadline, const char *late)
{
	if (ix_stream_stopped(s))
		return ix_fail(&s->err, IX_EXIT_FAIL, "stopped");
	if (ix_now_ns() > deadline)
		return ix_fail(&s->err, IX_EXIT_FAIL, "%s", late);
	return 0;
}

static int64_t tcp_ping(struct ix_stream *s, uint8_t *buf, uint64_t seq, int64_t timeout_ns)
{
	char late[96];

	int64_t t0, deadline;
	size_t len = s->msg_size, off = 0;
	const int fd = s->fd, flags = s->busy_poll ? MSG_DONTWAIT : 0;

	/* The timed window holds the two system calls and as little else as
	 * can be (see tcp_echo): the beat comes before the clock starts, and
	 * the socket stays in a register. */
	if (s->wd)
		ix_watchdog_beat(s->wd, ix_now_ns());
	t0 = ix_now_ns();
	deadline = t0 + timeout_ns;

	/* A blocked send wakes with EAGAIN at SO_SNDTIMEO: a server that stops
	 * reading must not hold the client past the deadline. The receive
	 * wakes at SO_RCVTIMEO, or, without one (IX_CAP_PING_BLOCKS), when the
	 * caller's watchdog shuts the socket down. */
	while (off < len) {
		ssize_t n = ix_net_send(fd, buf + off, len - off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return ix_fail(&s->err, IX_EXIT_FAIL, "send failed: %s",
					       strerror(errno));
			snprintf(late, sizeof(late),
				 "server not reading: %zu of %zu bytes sent within %.1f s", off,
				 len, timeout_ns / 1e9);
			if (ping_wait(s, deadline, late) < 0)
				return -1;
			continue;
		}
		off += (size_t)n;
	}
	off = 0;
	while (off < len) {
		ssize_t n = ix_net_recv(fd, buf + off, len - off, flags);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0)
			return ix_fail(&s->err, IX_EXIT_FAIL, "connection closed by the server");
		if (errno != EAGAIN && errno != EINTR)
			return ix_fail(&s->err, IX_EXIT_FAIL, "receive failed: %s",
				       strerror(errno));
		snprintf(late, sizeof(late), "no echo from the server within %.1f s",
			 timeout_ns / 1e9);
		if (ping_wait(s, deadline, late) < 0)
			return -1;
	}
	(void)seq;
	return ix_now_ns() - t0;
}

const struct ix_transport ix_tcp_transport = {
	.name = "tcp",
	.desc = "TCP over IPv4/IPv6, one connection per stream",
	.caps = IX_CAP_ATTACH | IX_CAP_RETRANS | IX_CAP_CONGESTION | IX_CAP_EOF | IX_CAP_BLOCKS |
		IX_CAP_PING_BLOCKS,
	.default_msg_size = 128 * 1024,
	.min_msg_size = 1,
	.min_lat_size = 1,
	.max_msg_size = 64ull * 1024 * 1024,
	.server_accept = tcp_server_accept,
	.client_open = tcp_client_open,
	.tune = tcp_tune,
	.send = tcp_send,
	.recv = tcp_recv,
	.mux = tcp_mux,
	.echo = tcp_echo,
	.serve_blocks = tcp_serve_blocks,
	.ping = tcp_ping,
	.sender_info = tcp_sender_info,
	.finish = tcp_finish,
};
