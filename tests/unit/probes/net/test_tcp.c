/* Unit tests for probes/net/tcp.c: a latency ping towards a peer that
 * stops reading ends at its deadline or at the stop flag; the responder
 * echoes every byte, in order, when its replies must wait; a bandwidth
 * receiver's wake-up mark follows its stream's rate; streams sharing a
 * thread (tcp_mux) move every byte, keep their deadline and stop. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/net/net.h"
#include "probes/net/transport.h"
#include "tests/unit/common.h"

#define MSG (8u * 1024 * 1024) /* far more than the socket buffers hold */

struct rig {
	int sv[2];
	atomic_int stop;
	struct ix_stream s;
	uint8_t *buf;
};

/* sv[0] pings; sv[1] is a peer that never reads. */
static void rig_open(struct rig *r)
{
	int small = 4096;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, r->sv), 0);
	setsockopt(r->sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	setsockopt(r->sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	/* As the client sets it: blocked sends wake up to check. */
	cr_assert_eq(ix_net_set_timeouts(r->sv[0], 100), 0);
	atomic_init(&r->stop, 0);
	ix_stream_init(&r->s, 0, IX_DIR_FORWARD, true);
	r->s.fd = r->sv[0];
	r->s.tp = &ix_tcp_transport;
	r->s.stop = &r->stop;
	r->s.msg_size = MSG;
	r->buf = calloc(1, MSG);
	cr_assert_not_null(r->buf);
}

static void rig_close(struct rig *r)
{
	close(r->sv[0]);
	close(r->sv[1]);
	free(r->buf);
}

/* The deadline is 0.5 s; the 10 s limit only catches a hang. */
Test(tcp_ping, peer_not_reading_hits_the_deadline, .timeout = 10)
{
	struct rig r;

	rig_open(&r);
	cr_assert_eq(ix_tcp_transport.ping(&r.s, r.buf, 0, 500 * 1000000LL), -1);
	cr_assert_not_null(strstr(r.s.err.msg, "not reading"), "message: %s", r.s.err.msg);
	rig_close(&r);
}

Test(tcp_ping, peer_not_reading_honours_stop, .timeout = 10)
{
	struct rig r;

	rig_open(&r);
	atomic_store(&r.stop, 1);
	cr_assert_eq(ix_tcp_transport.ping(&r.s, r.buf, 0, 3600 * IX_NSEC_PER_SEC), -1);
	cr_assert_str_eq(r.s.err.msg, "stopped");
	rig_close(&r);
}

struct feed {
	int fd;
	size_t len;
};

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 % 251);
}

/* Writes len pattern bytes, then ends its side. */
static void *feed(void *arg)
{
	struct feed *f = arg;
	uint8_t chunk[4096];

	for (size_t off = 0; off < f->len;) {
		size_t n = f->len - off < sizeof(chunk) ? f->len - off : sizeof(chunk);
		ssize_t w;

		for (size_t i = 0; i < n; i++)
			chunk[i] = pattern(off + i);
		w = write(f->fd, chunk, n);
		if (w <= 0)
			return (void *)1;
		off += (size_t)w;
	}
	shutdown(f->fd, SHUT_WR);
	return NULL;
}

static void *echo(void *arg)
{
	struct ix_stream *s = arg;

	return (void *)(intptr_t)ix_tcp_transport.echo(s);
}

/* The responder's one send per echo is the fast path; when the reply
 * cannot all go at once (the pinger is not reading yet), the rest waits
 * for room. 4 MiB through 4 KiB buffers, read only after 200 ms: every
 * byte comes back in order, and the responder ends at the pinger's EOF. */
Test(tcp_echo, echoes_every_byte_when_the_reply_must_wait, .timeout = 30)
{
	enum { LEN = 4 << 20 };
	int sv[2], small = 4096;
	atomic_int stop;
	struct ix_stream s;
	struct feed f;
	pthread_t te, tf;
	uint8_t *got = malloc(LEN);
	size_t have = 0;
	void *rc_echo, *rc_feed;

	cr_assert_not_null(got);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	cr_assert_eq(ix_net_set_recv_timeout(sv[0], 5000), 0); /* a lost byte fails, not hangs */
	atomic_init(&stop, 0);
	ix_stream_init(&s, 0, IX_DIR_FORWARD, true);
	s.fd = sv[1];
	s.tp = &ix_tcp_transport;
	s.stop = &stop;
	f = (struct feed){ .fd = sv[0], .len = LEN };
	cr_assert_eq(pthread_create(&te, NULL, echo, &s), 0);
	cr_assert_eq(pthread_create(&tf, NULL, feed, &f), 0);
	usleep(200 * 1000);
	while (have < LEN) {
		ssize_t n = read(sv[0], got + have, LEN - have);

		cr_assert_gt(n, 0, "echo ended after %zu of %d bytes", have, LEN);
		have += (size_t)n;
	}
	pthread_join(tf, &rc_feed);
	pthread_join(te, &rc_echo);
	cr_assert_null(rc_feed);
	cr_assert_eq((intptr_t)rc_echo, 0, "%s", s.err.msg);
	for (size_t i = 0; i < LEN; i++)
		cr_assert_eq(got[i], pattern(i), "byte %zu", i);
	cr_assert_gt(atomic_load(&s.c.packets), 1, "several receives, each echoed");
	close(sv[0]);
	close(sv[1]);
	free(got);
}

static void *receive(void *arg)
{
	struct ix_stream *s = arg;

	return (void *)(intptr_t)ix_tcp_transport.recv(s);
}

static int lowat(int fd)
{
	int v = 0;
	socklen_t l = sizeof(v);

	cr_assert_eq(getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, &l), 0);
	return v;
}

static void wait_bytes(struct ix_stream *s, uint64_t n)
{
	int64_t until = ix_now_ns() + 10 * IX_NSEC_PER_SEC;

	while (atomic_load(&s->c.bytes) < n && ix_now_ns() < until)
		usleep(1000);
	cr_assert_eq(atomic_load(&s->c.bytes), n);
}

/* After a fast stretch the receiver wakes once a read's worth has come
 * (the mark is high); once the stream slows to 1000 bytes every 20 ms,
 * the mark comes down to about a millisecond's worth, so that no byte
 * waits for the receive timeout. Rates decide, not times: loopback moves
 * far more than 4 KiB a millisecond, the slow stretch 50 bytes. */
Test(tcp_recv, wake_up_mark_follows_the_rate, .timeout = 30)
{
	static uint8_t chunk[1 << 20];
	struct ix_stream s;
	atomic_int stop;
	pthread_t th;
	void *rc;
	int fds[2];
	uint64_t total = 0;
	int fast_mark = 0;

	ix_test_tcp_pair(fds);
	cr_assert_eq(ix_net_set_timeouts(fds[1], 200), 0);
	atomic_init(&stop, 0);
	ix_stream_init(&s, 0, IX_DIR_FORWARD, false);
	s.fd = fds[1];
	s.tp = &ix_tcp_transport;
	s.stop = &stop;
	s.msg_size = 128 * 1024;
	cr_assert_eq(pthread_create(&th, NULL, receive, &s), 0);
	/* The mark is read while the stream runs (once it stops, the tail
	 * below the mark waits for the receive timeout, and the rate is 0),
	 * until it rose or 3 s passed: the receiver takes the rate every
	 * 10 ms of its own running, which a machine busy on every core may
	 * give it late, not never. */
	for (int64_t t0 = ix_now_ns(); ix_now_ns() < t0 + 3000 * 1000000LL;) {
		cr_assert_eq(send(fds[0], chunk, sizeof(chunk), MSG_NOSIGNAL),
			     (ssize_t)sizeof(chunk));
		total += sizeof(chunk);
		if (ix_now_ns() > t0 + 100 * 1000000LL) {
			int m = lowat(fds[1]);

			fast_mark = m > fast_mark ? m : fast_mark;
			if (fast_mark > 4096)
				break;
		}
	}
	wait_bytes(&s, total);
	cr_expect_gt(fast_mark, 4096, "mark during the fast stretch: %d", fast_mark);
	for (int i = 0; i < 15; i++) {
		cr_assert_eq(send(fds[0], chunk, 1000, MSG_NOSIGNAL), 1000);
		total += 1000;
		usleep(20000);
	}
	wait_bytes(&s, total);
	cr_expect_lt(lowat(fds[1]), 4096, "mark after the slow stretch: %d", lowat(fds[1]));
	shutdown(fds[0], SHUT_WR);
	pthread_join(th, &rc);
	cr_expect_eq((intptr_t)rc, 0, "%s", s.err.msg);
	close(fds[0]);
	close(fds[1]);
}

/* Streams sharing threads (ix_streams_start with --threads 1): n loopback
 * TCP connections, senders s[0..n-1], their receivers s[n..2n-1]. */
struct mux {
	struct ix_stream s[6];
	int fds[3][2];
	uint32_t n;
	atomic_int stop;
	struct ix_err err;
};

static void mux_open(struct mux *x, uint32_t n)
{
	memset(x, 0, sizeof(*x));
	x->n = n;
	atomic_init(&x->stop, 0);
	for (uint32_t i = 0; i < n; i++) {
		ix_test_tcp_pair(x->fds[i]);
		ix_stream_init(&x->s[i], i, IX_DIR_FORWARD, true);
		ix_stream_init(&x->s[n + i], n + i, IX_DIR_FORWARD, false);
		x->s[i].fd = x->fds[i][0];
		x->s[n + i].fd = x->fds[i][1];
	}
	for (uint32_t i = 0; i < 2 * n; i++) {
		x->s[i].tp = &ix_tcp_transport;
		x->s[i].stop = &x->stop;
		x->s[i].msg_size = 128 * 1024;
		x->s[i].threads = 1;
		cr_assert_eq(ix_net_set_timeouts(x->s[i].fd, 200), 0);
	}
}

static void mux_close(struct mux *x)
{
	for (uint32_t i = 0; i < x->n; i++) {
		close(x->fds[i][0]);
		close(x->fds[i][1]);
	}
}

/* Three senders in one thread and their three receivers in another, each
 * sender with a byte limit of its own: every byte arrives, each receiver
 * sees its sender's end, two threads ran. */
Test(tcp_mux, streams_share_a_thread_each_way, .timeout = 30)
{
	struct mux x;
	struct ix_stream *s = x.s;

	mux_open(&x, 3);
	for (uint32_t i = 0; i < 3; i++)
		s[i].byte_limit = (2 * i + 1) * (1u << 20) + 77 * i;
	cr_assert_eq(ix_streams_start(s, 6, &x.err), 0, "%s", x.err.msg);
	ix_streams_join(s, 6);
	cr_assert_eq(ix_streams_threads(s, 6), 2, "one thread each way");
	for (uint32_t i = 0; i < 3; i++) {
		cr_assert_not(s[i].failed, "sender %u: %s", i, s[i].err.msg);
		cr_assert_not(s[3 + i].failed, "receiver %u: %s", i, s[3 + i].err.msg);
		cr_assert_eq(atomic_load(&s[i].c.bytes), s[i].byte_limit);
		cr_assert_eq(atomic_load(&s[3 + i].c.bytes), s[i].byte_limit, "receiver %u", i);
		cr_assert_gt(s[3 + i].last_t, 0);
	}
	mux_close(&x);
}

/* By time: the senders stop at their deadline (kept to the millisecond,
 * not the poll's wait), and the receivers end on their EOF. */
Test(tcp_mux, senders_keep_their_deadline, .timeout = 30)
{
	struct mux x;
	struct ix_stream *s = x.s;
	int64_t t0 = ix_now_ns();

	mux_open(&x, 2);
	for (uint32_t i = 0; i < 4; i++) {
		s[i].t_start = t0;
		s[i].warm_until = t0 + 100 * 1000000LL;
		s[i].send_until = t0 + 300 * 1000000LL;
	}
	cr_assert_eq(ix_streams_start(s, 4, &x.err), 0, "%s", x.err.msg);
	ix_streams_join(s, 4);
	for (uint32_t i = 0; i < 2; i++) {
		cr_assert_not(s[i].failed, "%s", s[i].err.msg);
		cr_assert_geq(s[i].last_t, s[i].send_until);
		cr_assert_lt(s[i].last_t, s[i].send_until + 150 * 1000000LL,
			     "sender %u ended %.1f ms late", i,
			     (double)(s[i].last_t - s[i].send_until) / 1e6);
		cr_assert_geq(s[i].warm_t, s[i].warm_until, "warm-up marked");
		cr_assert_gt(s[i].warm_bytes, 0);
		cr_assert_eq(atomic_load(&s[2 + i].c.bytes), atomic_load(&s[i].c.bytes));
	}
	mux_close(&x);
}

/* A receiver whose sender never sends ends at the stop flag, within the
 * poll's wait. */
Test(tcp_mux, silent_streams_end_at_stop, .timeout = 30)
{
	struct mux x;
	int64_t t;

	mux_open(&x, 2);
	/* Only the receivers run: their senders are this test, silent. */
	cr_assert_eq(ix_streams_start(x.s + 2, 2, &x.err), 0, "%s", x.err.msg);
	usleep(100 * 1000);
	t = ix_now_ns();
	atomic_store(&x.stop, 1);
	ix_streams_join(x.s + 2, 2);
	cr_assert_lt(ix_now_ns() - t, 500 * 1000000LL, "stop seen late");
	cr_assert_eq(ix_streams_threads(x.s + 2, 2), 1);
	mux_close(&x);
}
