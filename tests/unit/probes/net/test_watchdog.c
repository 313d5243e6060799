/* Unit tests for probes/net/watchdog.c: a receive blocked without a socket
 * timeout is ended when no beat comes for the timeout, never while beats
 * come, and stopping the watchdog leaves the socket as it was. */
#include "config.h"

#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/net/watchdog.h"
#include "tests/unit/common.h"

/* A loopback TCP pair with a watchdog over fds[0]. */
static struct ix_watchdog *watched_pair(int fds[2], int64_t timeout_ns)
{
	struct ix_err err = { 0 };
	struct ix_watchdog *w;

	ix_test_tcp_pair(fds);
	cr_assert_eq(ix_watchdog_start(&w, fds[0], timeout_ns, &err), 0, "%s", err.msg);
	return w;
}

static void close_pair(int fds[2])
{
	close(fds[0]);
	close(fds[1]);
}

Test(watchdog, a_silent_peer_ends_the_blocked_receive_at_the_timeout)
{
	int fds[2];
	char b;
	int64_t t0 = ix_now_ns(), took;
	struct ix_watchdog *w = watched_pair(fds, 200 * 1000000LL);

	cr_assert_eq(recv(fds[0], &b, 1, 0), 0, "the shut socket reads its end");
	took = ix_now_ns() - t0;
	cr_assert(ix_watchdog_fired(w));
	cr_assert_geq(took, 200 * 1000000LL, "not before the timeout (%lld ns)", (long long)took);
	cr_assert_lt(took, 2 * IX_NSEC_PER_SEC, "soon after it (%lld ns)", (long long)took);
	ix_watchdog_stop(w);
	close_pair(fds);
}

Test(watchdog, beats_keep_the_socket_open)
{
	int fds[2];
	char b = 'x';
	struct ix_watchdog *w = watched_pair(fds, 100 * 1000000LL);

	/* 20 replies 30 ms apart: 600 ms, six timeouts, each beat in time. */
	for (int i = 0; i < 20; i++) {
		struct timespec ts = { 0, 30 * 1000000L };

		nanosleep(&ts, NULL);
		cr_assert_eq(send(fds[1], &b, 1, 0), 1);
		cr_assert_eq(recv(fds[0], &b, 1, 0), 1, "reply %d", i);
		ix_watchdog_beat(w, ix_now_ns());
	}
	cr_assert_not(ix_watchdog_fired(w));
	ix_watchdog_stop(w);
	/* Stopped: the socket still carries data. */
	cr_assert_eq(send(fds[1], &b, 1, 0), 1);
	cr_assert_eq(recv(fds[0], &b, 1, 0), 1);
	close_pair(fds);
}

Test(watchdog, stop_returns_at_once_and_a_null_one_is_nothing)
{
	int fds[2];
	struct ix_watchdog *w;
	int64_t t0;

	ix_watchdog_stop(NULL);
	w = watched_pair(fds, 3600 * IX_NSEC_PER_SEC);
	t0 = ix_now_ns();
	ix_watchdog_stop(w);
	cr_assert_lt(ix_now_ns() - t0, IX_NSEC_PER_SEC, "an hour's watchdog stops at once");
	close_pair(fds);
}
