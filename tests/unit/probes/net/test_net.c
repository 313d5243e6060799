/* Unit tests for probes/net/net.c: datagram sequence accounting (loss,
 * late arrivals, duplicates, the warm-up boundary), socket buffer sizes
 * as the kernel grants them, and the bare send and receive calls. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/net/net.h"

static void feed(struct ix_net_seq *q, const uint64_t *seqs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ix_net_seq_add(q, seqs[i]);
}

static void assert_count(const struct ix_net_seq_count *c, uint64_t lost, uint64_t ooo,
			 uint64_t dup)
{
	cr_assert_eq(c->lost, lost, "lost %llu, want %llu", (unsigned long long)c->lost,
		     (unsigned long long)lost);
	cr_assert_eq(c->out_of_order, ooo, "out of order %llu, want %llu",
		     (unsigned long long)c->out_of_order, (unsigned long long)ooo);
	cr_assert_eq(c->duplicates, dup, "duplicates %llu, want %llu",
		     (unsigned long long)c->duplicates, (unsigned long long)dup);
}

/* ---- sequence accounting ------------------------------------------------ */

Test(seq, in_order_counts_nothing)
{
	struct ix_net_seq q;

	ix_net_seq_init(&q);
	ix_net_seq_open(&q);
	for (uint64_t s = 0; s < 10; s++)
		cr_assert_eq(ix_net_seq_add(&q, s), IX_NET_SEQ_NEW);
	ix_net_seq_end(&q, 10);
	assert_count(&q.measured, 0, 0, 0);
	assert_count(&q.warm, 0, 0, 0);
}

Test(seq, gap_then_late_fill)
{
	struct ix_net_seq q;

	ix_net_seq_init(&q);
	ix_net_seq_open(&q);
	feed(&q, (uint64_t[]){ 0, 1, 4 }, 3); /* 2 and 3 missing */
	assert_count(&q.measured, 2, 0, 0);
	cr_assert_eq(ix_net_seq_add(&q, 3), IX_NET_SEQ_FILL);
	assert_count(&q.measured, 1, 1, 0);
	cr_assert_eq(ix_net_seq_add(&q, 5), IX_NET_SEQ_NEW);
	ix_net_seq_end(&q, 6);
	assert_count(&q.measured, 1, 1, 0); /* 2 never came */
}

/* A copy of a datagram already seen fills no gap and hides no loss. */
Test(seq, duplicate_is_not_a_fill)
{
	struct ix_net_seq q;

	ix_net_seq_init(&q);
	ix_net_seq_open(&q);
	feed(&q, (uint64_t[]){ 0, 2 }, 2); /* 1 missing */
	cr_assert_eq(ix_net_seq_add(&q, 2), IX_NET_SEQ_DUP);
	cr_assert_eq(ix_net_seq_add(&q, 0), IX_NET_SEQ_DUP);
	assert_count(&q.measured, 1, 0, 2);
	cr_assert_eq(ix_net_seq_add(&q, 1), IX_NET_SEQ_FILL);
	cr_assert_eq(ix_net_seq_add(&q, 1), IX_NET_SEQ_DUP); /* filled once only */
	ix_net_seq_end(&q, 4);
	assert_count(&q.measured, 1, 1, 3); /* 3 lost at the tail */
}

/* Warm-up datagram 1 arrives after the measured window opened at 3: it
 * fills a warm-up gap and leaves the window's figures alone. */
Test(seq, late_warmup_datagram_after_window_opens)
{
	struct ix_net_seq q;

	ix_net_seq_init(&q);
	feed(&q, (uint64_t[]){ 0, 2 }, 2);
	assert_count(&q.warm, 1, 0, 0);
	ix_net_seq_open(&q);
	cr_assert_eq(q.base, 3);
	feed(&q, (uint64_t[]){ 3, 4 }, 2);
	cr_assert_eq(ix_net_seq_add(&q, 1), IX_NET_SEQ_FILL);
	ix_net_seq_end(&q, 5);
	assert_count(&q.warm, 0, 1, 0);
	assert_count(&q.measured, 0, 0, 0);
}

/* Gaps that open with the first measured datagram belong to the window. */
Test(seq, gap_at_the_boundary_is_measured)
{
	struct ix_net_seq q;

	ix_net_seq_init(&q);
	feed(&q, (uint64_t[]){ 0, 1 }, 2);
	ix_net_seq_open(&q);
	feed(&q, (uint64_t[]){ 4, 5 }, 2); /* 2 and 3 missing */
	cr_assert_eq(ix_net_seq_add(&q, 2), IX_NET_SEQ_FILL);
	ix_net_seq_end(&q, 6);
	assert_count(&q.measured, 1, 1, 0);
	assert_count(&q.warm, 0, 0, 0);
}

/* Older than the window: cannot be told from a duplicate, stays lost. */
Test(seq, beyond_the_window_is_stale)
{
	struct ix_net_seq q;

	ix_net_seq_init(&q);
	ix_net_seq_open(&q);
	feed(&q, (uint64_t[]){ 0, 2 }, 2);
	cr_assert_eq(ix_net_seq_add(&q, 2 + IX_NET_SEQ_WINDOW), IX_NET_SEQ_NEW);
	cr_assert_eq(q.measured.lost, IX_NET_SEQ_WINDOW);
	cr_assert_eq(ix_net_seq_add(&q, 1), IX_NET_SEQ_STALE);
	assert_count(&q.measured, IX_NET_SEQ_WINDOW, 1, 0);
	/* The last IX_NET_SEQ_WINDOW - 1 missing numbers are still tracked. */
	cr_assert_eq(ix_net_seq_add(&q, 3), IX_NET_SEQ_FILL);
	cr_assert_eq(ix_net_seq_add(&q, 1 + IX_NET_SEQ_WINDOW), IX_NET_SEQ_FILL);
	assert_count(&q.measured, IX_NET_SEQ_WINDOW - 2, 3, 0);
}

Test(seq, missing_tail_is_lost_and_fillable)
{
	struct ix_net_seq q;

	ix_net_seq_init(&q);
	ix_net_seq_open(&q);
	feed(&q, (uint64_t[]){ 0, 1 }, 2);
	ix_net_seq_end(&q, 5);
	assert_count(&q.measured, 3, 0, 0);
	cr_assert_eq(ix_net_seq_add(&q, 3), IX_NET_SEQ_FILL);
	assert_count(&q.measured, 2, 1, 0);
}

/* ---- socket buffers ----------------------------------------------------- */

static uint64_t read_sysctl(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* A request above net.core.rmem_max is capped without an error: the size
 * the kernel kept is reported, not the one asked for. */
Test(buffers, granted_size_above_rmem_max)
{
	uint64_t rmax = read_sysctl("/proc/sys/net/core/rmem_max"), want, granted = 0;
	struct ix_err err = { 0 };
	int fd;

	if (!rmax || rmax >= INT32_MAX / 8)
		cr_skip_test("net.core.rmem_max unreadable or too large to exceed");
	want = rmax * 2 + 4096;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ix_net_set_buffers(fd, want, &granted, &err), 0, "%s", err.msg);
	cr_assert_gt(granted, 0);
	cr_assert_neq(granted, want);
	/* Linux: the capped request, doubled. */
	cr_assert_eq(ix_net_buffer_size(fd, false), 2 * rmax);
	cr_assert_leq(granted, 2 * rmax);
	close(fd);
}

/* What a window books is what the kernel grants both ways: a window is
 * charged at that size, never less, and never more than the caps allow. */
Test(buffers, window_bytes_are_what_the_kernel_books)
{
	uint64_t rmax = read_sysctl("/proc/sys/net/core/rmem_max");
	uint64_t wmax = read_sysctl("/proc/sys/net/core/wmem_max");
	uint64_t small = 65536;
	int fd;

	cr_assert_gt(rmax, 0);
	cr_assert_gt(wmax, 0);
	cr_assert_eq(ix_net_window_bytes(0), 0, "no window: the kernel's own tuning");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_geq(fd, 0);
	if (small <= rmax && small <= wmax) {
		cr_assert_eq(ix_net_set_buffers(fd, small, NULL, &(struct ix_err){ 0 }), 0);
		cr_assert_eq(ix_net_window_bytes(small),
			     ix_net_buffer_size(fd, true) + ix_net_buffer_size(fd, false));
	}
	/* 2^31 across 256 streams: capped, as setsockopt caps it. */
	cr_assert_eq(ix_net_window_bytes(1ull << 31),
		     2 * (wmax < INT32_MAX / 2 ? wmax : INT32_MAX / 2) +
			     2 * (rmax < INT32_MAX / 2 ? rmax : INT32_MAX / 2));
	close(fd);
}

Test(buffers, refused_option_is_named)
{
	struct ix_err err = { 0 };
	int p[2];

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(ix_net_set_buffers(p[0], 65536, NULL, &err), -1);
	cr_assert_not_null(strstr(err.msg, "SO_SNDBUF"), "message: %s", err.msg);
	cr_assert_not_null(strstr(err.msg, "65536"), "message: %s", err.msg);
	close(p[0]);
	close(p[1]);
}

static struct sockaddr_storage addr_of(const char *text)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &((struct sockaddr_in *)&ss)->sin_addr) == 1)
		ss.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, text, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1)
		ss.ss_family = AF_INET6;
	else
		cr_assert_fail("not an address: %s", text);
	return ss;
}

Test(addr, loopback_in_both_families)
{
	const char *yes[] = { "127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.2" };
	const char *no[] = { "128.0.0.1", "10.0.0.1", "::2", "::ffff:10.0.0.1", "fe80::1" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		struct sockaddr_storage a = addr_of(yes[i]);

		cr_assert(ix_net_is_loopback(&a), "%s is loopback", yes[i]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		struct sockaddr_storage a = addr_of(no[i]);

		cr_assert_not(ix_net_is_loopback(&a), "%s is not loopback", no[i]);
	}
}

/* The agent's caps count an IPv6 /64 as one source, IPv4 by address. */
Test(source, ipv6_by_its_64_ipv4_by_address)
{
	struct sockaddr_storage a = addr_of("fd00:1:2:3::1"), b = addr_of("fd00:1:2:3:ffff::99");
	struct sockaddr_storage c = addr_of("fd00:1:2:4::1"), d = addr_of("10.0.0.1");
	struct sockaddr_storage e = addr_of("10.0.0.2"), m = addr_of("::ffff:10.0.0.1");

	cr_assert(ix_net_same_source(&a, &b));
	cr_assert_not(ix_net_same_source(&a, &c));
	cr_assert_not(ix_net_same_source(&d, &e));
	cr_assert(ix_net_same_source(&d, &m), "IPv4-mapped is the IPv4 address");
	cr_assert_not(ix_net_same_source(&a, &d));
	cr_assert_not(ix_net_same_host(&a, &b), "the allow lists stay exact");
}

/* A free TCP port of loopback (bound and let go). */
static uint16_t free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint16_t port;

	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	port = ix_net_local_port(fd);
	close(fd);
	return port;
}

Test(source_port, the_same_port_again_and_a_listener_refuses_it)
{
	struct ix_err err = { 0 };
	int l = ix_net_listen("127.0.0.1", 0, 4, &err), c, a;
	uint16_t lp = ix_net_local_port(l), sp = free_port(), busy;

	cr_assert_geq(l, 0, "%s", err.msg);
	for (int round = 0; round < 2; round++) {
		/* The second time from the same port: over the first's close. */
		c = ix_net_connect_from("127.0.0.1", lp, SOCK_STREAM, NULL, sp,
					ix_now_ns() + 2000000000LL, &err);
		cr_assert_geq(c, 0, "round %d: %s", round, err.msg);
		cr_assert_eq(ix_net_local_port(c), sp);
		cr_assert_eq(ix_net_peer_port(c), lp);
		a = accept(l, NULL, NULL);
		cr_assert_geq(a, 0);
		shutdown(c, SHUT_WR); /* this end closes first, as a sender does */
		close(a);
		close(c);
	}
	busy = ix_net_local_port(ix_net_listen("127.0.0.1", 0, 1, &err));
	c = ix_net_connect_from("127.0.0.1", lp, SOCK_STREAM, NULL, busy,
				ix_now_ns() + 2000000000LL, &err);
	cr_assert_eq(c, -1);
	cr_assert_not_null(strstr(err.msg, "the port is in use on this host"), "%s", err.msg);
	close(l);
}

Test(source_port, udp_binds_the_asked_port)
{
	struct ix_err err = { 0 };
	int l = ix_net_listen("127.0.0.1", 0, 1, &err), u, v;
	uint16_t port = free_port();

	cr_assert_geq(l, 0);
	u = ix_net_udp_bind_like(l, &port, &err);
	cr_assert_geq(u, 0, "%s", err.msg);
	cr_assert_eq(ix_net_local_port(u), port);
	v = ix_net_udp_bind_like(l, &port, &err);
	cr_assert_eq(v, -1);
	cr_assert_not_null(strstr(err.msg, "the port is in use on this host"), "%s", err.msg);
	close(u);
	close(l);
}

/* ---- the bare calls ------------------------------------------------------- */

/* ix_net_send and ix_net_recv are send(2) and recv(2): bytes, flags,
 * results and errno alike. */
Test(calls, send_and_recv_as_the_system_calls)
{
	int sv[2];
	char buf[16];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_assert_eq(ix_net_send(sv[0], "ping", 4, MSG_NOSIGNAL), 4);
	cr_assert_eq(ix_net_recv(sv[1], buf, sizeof(buf), 0), 4);
	cr_assert_eq(memcmp(buf, "ping", 4), 0);
	errno = 0;
	cr_assert_eq(ix_net_recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), -1);
	cr_assert_eq(errno, EAGAIN, "errno %d", errno);
	close(sv[1]);
	errno = 0;
	/* MSG_NOSIGNAL reaches the kernel: EPIPE, and no SIGPIPE to end the test */
	cr_assert_eq(ix_net_send(sv[0], "x", 1, MSG_NOSIGNAL), -1);
	cr_assert_eq(errno, EPIPE, "errno %d", errno);
	close(sv[0]);
	errno = 0;
	cr_assert_eq(ix_net_recv(sv[0], buf, sizeof(buf), 0), -1);
	cr_assert_eq(errno, EBADF, "errno %d", errno);
}
