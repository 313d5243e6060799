/* Unit tests for probes/net/engine.c: a stream end's summary figures from
 * what its thread recorded (retransmits and loss in the measured window,
 * never below zero; the socket buffer the kernel kept), and a stop that
 * wakes a receive blocked without a timeout. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/net/net.h"
#include "probes/net/transport.h"
#include "tests/unit/common.h"

static uint64_t fake_total; /* retransmits since the connection opened */

static void fake_info(struct ix_stream *s, struct ix_stream_end *e)
{
	(void)s;
	e->retransmits = ix_u64(fake_total);
}

static const struct ix_transport fake_tcp = {
	.name = "fake",
	.caps = IX_CAP_RETRANS,
	.sender_info = fake_info,
};

static const struct ix_transport fake_udp = {
	.name = "fake",
	.caps = IX_CAP_DATAGRAM,
};

Test(end_fill, retransmits_since_the_warmup_mark)
{
	struct ix_stream s;
	struct ix_stream_end e;

	ix_stream_init(&s, 0, IX_DIR_FORWARD, true);
	s.tp = &fake_tcp;
	s.warm_retrans = 4;
	fake_total = 10;
	ix_stream_end_fill(&s, &e);
	cr_assert(e.retransmits.valid);
	cr_assert_eq(e.retransmits.v, 6);

	s.warm_retrans = 12; /* a baseline above the total shows 0 */
	ix_stream_end_fill(&s, &e);
	cr_assert_eq(e.retransmits.v, 0);
}

/* A baseline above the current count (a late warm-up datagram lowered
 * it) gives 0, not 2^64 - 1. */
Test(end_fill, loss_never_below_zero)
{
	struct ix_stream s;
	struct ix_stream_end e;

	ix_stream_init(&s, 0, IX_DIR_FORWARD, false);
	s.tp = &fake_udp;
	atomic_store(&s.c.gaps, 2);
	s.warm_gaps = 5;
	atomic_store(&s.c.out_of_order, 1);
	s.warm_ooo = 3;
	atomic_store(&s.c.duplicates, 1);
	s.warm_dup = 4;
	ix_stream_end_fill(&s, &e);
	cr_assert(e.lost.valid && e.out_of_order.valid && e.duplicates.valid);
	cr_assert_eq(e.lost.v, 0, "lost %llu", (unsigned long long)e.lost.v);
	cr_assert_eq(e.out_of_order.v, 0);
	cr_assert_eq(e.duplicates.v, 0, "duplicates %llu", (unsigned long long)e.duplicates.v);

	atomic_store(&s.c.gaps, 7);
	atomic_store(&s.c.duplicates, 6);
	ix_stream_end_fill(&s, &e);
	cr_assert_eq(e.lost.v, 2);
	cr_assert_eq(e.duplicates.v, 2);
}

Test(end_fill, socket_buffer_as_granted)
{
	struct ix_stream s;
	struct ix_stream_end e;
	uint64_t granted = 0;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(ix_net_set_buffers(fd, 65536, &granted, NULL), 0);
	ix_stream_init(&s, 0, IX_DIR_FORWARD, false);
	s.tp = &fake_udp;
	s.fd = fd;
	ix_stream_end_fill(&s, &e);
	cr_assert(e.sock_buffer.valid);
	cr_assert_eq(e.sock_buffer.v, ix_net_buffer_size(fd, false));
	cr_assert_geq(e.sock_buffer.v, granted);
	close(fd);

	s.fd = -1; /* no socket: not measured */
	ix_stream_end_fill(&s, &e);
	cr_assert_not(e.sock_buffer.valid);
}

/* Streams that only wait for the stop flag. */
static int parked(struct ix_stream *s)
{
	while (!atomic_load(s->stop))
		usleep(1000);
	return 0;
}

static const struct ix_transport fake_parked = {
	.name = "parked",
	.send = parked,
	.recv = parked,
};

Test(streams, a_thread_that_cannot_start_leaves_none_running)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	cr_skip_test("an address-space limit and a sanitizer's shadow memory do not mix");
#else
	static struct ix_stream s[64];
	atomic_int stop = 0;
	struct ix_err err = { 0 };
	struct rlimit old, tight;
	long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	int rc;

	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%ld", &pages), 1);
	fclose(f);
	for (uint32_t i = 0; i < 64; i++) {
		ix_stream_init(&s[i], i, IX_DIR_FORWARD, false);
		s[i].tp = &fake_parked;
		s[i].stop = &stop;
	}
	/* Room for a few 8 MiB thread stacks, not 64: thread creation fails
	 * part way, as under a thread or memory limit. */
	cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
	tight = old;
	tight.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (48u << 20);
	cr_assert_eq(setrlimit(RLIMIT_AS, &tight), 0);
	rc = ix_streams_start(s, 64, &err);
	setrlimit(RLIMIT_AS, &old);
	cr_assert_eq(rc, -1, "64 threads started under the limit");
	cr_assert(strstr(err.msg, "cannot start stream thread"), "%s", err.msg);
	for (uint32_t i = 0; i < 64; i++)
		cr_assert_not(s[i].running, "stream %u still running after the failed start", i);
#endif
}

/* The data threads of one direction: what was asked (never more than the
 * streams); on the same host or beyond twice the CPUs a thread a stream;
 * else at most half the CPUs. */
Test(bw_threads, asked_automatic_and_bounds)
{
	cr_assert_eq(ix_bw_threads(2, 8, 2, false), 2, "asked");
	cr_assert_eq(ix_bw_threads(16, 4, 2, false), 4, "no more than the streams");
	cr_assert_eq(ix_bw_threads(1, 8, 64, true), 1, "asked, even on loopback");
	cr_assert_eq(ix_bw_threads(0, 4, 2, true), 4, "loopback: a thread each");
	cr_assert_eq(ix_bw_threads(0, 2, 2, false), 1, "2 CPUs: one");
	cr_assert_eq(ix_bw_threads(0, 4, 2, false), 1, "2 CPUs, 4 streams: one");
	cr_assert_eq(ix_bw_threads(0, 5, 2, false), 5, "beyond twice the CPUs: a thread each");
	cr_assert_eq(ix_bw_threads(0, 1, 1, false), 1);
	cr_assert_eq(ix_bw_threads(0, 16, 64, false), 16, "fewer streams than half the CPUs");
	cr_assert_eq(ix_bw_threads(0, 100, 64, false), 32, "half of 64 CPUs");
	cr_assert_eq(ix_bw_threads(0, 0, 4, false), 0, "no stream, no thread");
}

/* A bandwidth test's end holds each stream's buffers and its window. */
Test(bw_mem, streams_buffers_and_windows)
{
	struct ix_bw_params p = { .path = "tcp", .msg_size = 64ull << 20, .streams = 128 };
	const struct ix_transport udp = { .name = "udp", .stream_mem = 4u << 20 };

	cr_assert_eq(ix_bw_mem(&p, &fake_tcp), 128 * (64ull << 20), "128 x 64 MiB: 8 GiB");
	p.mode = IX_MODE_BIDIR;
	cr_assert_eq(ix_bw_mem(&p, &fake_tcp), 256 * (64ull << 20), "both ways: twice");
	p.msg_size = 1000; /* small messages still take a receive buffer's floor */
	p.mode = IX_MODE_REVERSE;
	cr_assert_eq(ix_bw_mem(&p, &fake_tcp), 128ull * IX_STREAM_BUF_MIN);
	cr_assert_eq(ix_bw_mem(&p, &udp), 128ull * (4u << 20), "the transport's own floor");
	p.window = 1ull << 31;
	cr_assert_eq(ix_bw_mem(&p, &fake_tcp),
		     128ull * (IX_STREAM_BUF_MIN + ix_net_window_bytes(1ull << 31)));
	cr_assert_gt(ix_net_window_bytes(1ull << 31), 0);
}

Test(layout, streams_take_consecutive_source_ports)
{
	struct ix_bw_params p = { .path = "tcp", .msg_size = 1000, .streams = 3, .duration_s = 1 };
	struct ix_stream s[6];
	uint32_t n;

	ix_bw_layout(&p, true, s, &n);
	cr_assert_eq(n, 3);
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(s[i].local_port, 0, "no base: the kernel's ports");
	p.src_port = 40000;
	p.mode = IX_MODE_BIDIR;
	ix_bw_layout(&p, true, s, &n);
	cr_assert_eq(n, 6);
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(s[i].local_port, 40000 + i);
}

/* A responder blocked in recv without a socket timeout, as TCP's echo is. */
static void *blocked_recv(void *arg)
{
	struct ix_stream *s = arg;
	char b;

	atomic_store(&s->wakes_by_shutdown, true);
	if (!ix_stream_stopped(s))
		s->failed = recv(s->fd, &b, 1, 0) != 0;
	return NULL;
}

Test(streams_stop, wakes_a_receive_blocked_without_a_timeout)
{
	struct ix_stream s;
	atomic_int stop = 0;
	int fds[2];
	pthread_t th;
	struct timespec ts = { 0, 50 * 1000000L };

	ix_test_tcp_pair(fds);
	ix_stream_init(&s, 0, IX_DIR_FORWARD, false);
	s.fd = fds[1];
	s.stop = &stop;
	cr_assert_eq(pthread_create(&th, NULL, blocked_recv, &s), 0);
	nanosleep(&ts, NULL);
	ix_streams_stop(&s, 1);
	cr_assert_eq(pthread_join(th, NULL), 0);
	cr_assert_eq(atomic_load(&stop), 1);
	cr_assert_not(s.failed, "the receive returned the socket's end");
	close(fds[0]);
	close(fds[1]);
}
