/* Unit tests for probes/net/udp.c: the receiver's loss and reordering
 * figures (loss, reordering, duplicates) for hand-made datagram sequences, and the latency responder's
 * handling of repeated HELLOs. Datagrams travel over a local socketpair. */
#include "config.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/transport.h"

/* The datagram layout of udp.c: magic, flags, sequence, send time. */
#define MAGIC_DATA  0x49585544u
#define MAGIC_HELLO 0x49585548u
#define F_END       1u
#define F_MEASURED  2u
#define HDR         24

static void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static void send_data(int fd, uint32_t flags, uint64_t seq)
{
	uint8_t buf[64] = { 0 };

	put32(buf, MAGIC_DATA);
	put32(buf + 4, flags);
	put64(buf + 8, seq);
	put64(buf + 16, (uint64_t)ix_now_ns());
	cr_assert_eq(send(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
}

struct rig {
	int sv[2];
	atomic_int stop;
	struct ix_stream s;
};

static void rig_open(struct rig *r, bool sending)
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, r->sv), 0);
	cr_assert_eq(ix_net_set_timeouts(r->sv[0], 50), 0);
	atomic_init(&r->stop, 0);
	ix_stream_init(&r->s, 0, IX_DIR_FORWARD, sending);
	r->s.fd = r->sv[0];
	r->s.tp = &ix_udp_transport;
	r->s.stop = &r->stop;
}

static void rig_close(struct rig *r)
{
	close(r->sv[0]);
	close(r->sv[1]);
}

/* Feed the receiver a whole sequence (it stops at the end marker) and
 * return its summary figures. */
static struct ix_stream_end receive(const uint32_t *flags, const uint64_t *seqs, size_t n)
{
	struct rig r;
	struct ix_stream_end e;

	rig_open(&r, false);
	for (size_t i = 0; i < n; i++)
		send_data(r.sv[1], flags[i], seqs[i]);
	cr_assert_eq(ix_udp_transport.recv(&r.s), 0, "%s", r.s.err.msg);
	ix_stream_end_fill(&r.s, &e);
	rig_close(&r);
	cr_assert(e.lost.valid && e.out_of_order.valid && e.duplicates.valid);
	return e;
}

/* Warm-up datagram 1 arrives after the window opened at 3: the warm-up
 * gap it fills was never part of the window, so nothing is lost (the sum
 * used to wrap to 2^64 - 1) and nothing in the window is out of order. */
Test(udp_recv, late_warmup_datagram_does_not_wrap_loss)
{
	const uint64_t seqs[] = { 0, 2, 3, 1, 4, 5 };
	const uint32_t fl[] = { 0, 0, F_MEASURED, 0, F_MEASURED, F_END };
	struct ix_stream_end e = receive(fl, seqs, 6);

	cr_assert_eq(e.lost.v, 0, "lost %llu", (unsigned long long)e.lost.v);
	cr_assert_eq(e.out_of_order.v, 0);
}

/* A duplicate must not cancel a real loss. */
Test(udp_recv, duplicate_does_not_hide_loss)
{
	const uint64_t seqs[] = { 0, 2, 2, 4 };
	const uint32_t fl[] = { F_MEASURED, F_MEASURED, F_MEASURED, F_END };
	struct ix_stream_end e = receive(fl, seqs, 4);

	cr_assert_eq(e.lost.v, 2, "lost %llu, want 2 (1 and 3)", (unsigned long long)e.lost.v);
	cr_assert_eq(e.out_of_order.v, 0);
	cr_assert_eq(e.duplicates.v, 1);
}

/* The network delivers datagram 1 twice: one duplicate, nothing lost. */
Test(udp_recv, datagram_delivered_twice)
{
	const uint64_t seqs[] = { 0, 1, 1, 2, 3 };
	const uint32_t fl[] = { F_MEASURED, F_MEASURED, F_MEASURED, F_MEASURED, F_END };
	struct ix_stream_end e = receive(fl, seqs, 5);

	cr_assert_eq(e.duplicates.v, 1, "duplicates %llu", (unsigned long long)e.duplicates.v);
	cr_assert_eq(e.lost.v, 0, "lost %llu", (unsigned long long)e.lost.v);
	cr_assert_eq(e.out_of_order.v, 0);
	cr_assert_eq(e.packets.v, 4);
}

/* A duplicate of a warm-up datagram stays out of the measured figures. */
Test(udp_recv, warmup_duplicate_is_not_measured)
{
	const uint64_t seqs[] = { 0, 0, 1, 1, 2 };
	const uint32_t fl[] = { 0, 0, F_MEASURED, F_MEASURED, F_END };
	struct ix_stream_end e = receive(fl, seqs, 5);

	cr_assert_eq(e.duplicates.v, 1, "duplicates %llu", (unsigned long long)e.duplicates.v);
	cr_assert_eq(e.lost.v, 0);
}

Test(udp_recv, late_fill_in_the_window)
{
	const uint64_t seqs[] = { 0, 1, 3, 2, 5, 6 };
	const uint32_t fl[] = { F_MEASURED, F_MEASURED, F_MEASURED, F_MEASURED, F_MEASURED, F_END };
	struct ix_stream_end e = receive(fl, seqs, 6);

	cr_assert_eq(e.lost.v, 1, "lost %llu, want 1 (4)", (unsigned long long)e.lost.v);
	cr_assert_eq(e.out_of_order.v, 1);
}

/* ---- latency responder -------------------------------------------------- */

static void *echo_main(void *arg)
{
	struct rig *r = arg;

	ix_udp_transport.echo(&r->s);
	return NULL;
}

/* The client repeats its 40-byte HELLO until the ACK arrives; a copy that
 * reaches the responder later is neither echoed nor counted as a ping. */
Test(udp_echo, repeated_hello_is_not_a_ping, .timeout = 10)
{
	struct rig r;
	pthread_t th;
	uint8_t hello[8 + IX_COOKIE_LEN], ping[64] = { 0 }, back[128];
	ssize_t n;

	rig_open(&r, false);
	r.s.echo = true;
	put32(hello, MAGIC_HELLO);
	put32(hello + 4, r.s.id);
	memcpy(hello + 8, "0123456789abcdef0123456789abcdef", IX_COOKIE_LEN);
	put64(ping, 7); /* the ping's tag */
	cr_assert_eq(ix_net_set_timeouts(r.sv[1], 5000), 0);
	cr_assert_eq(pthread_create(&th, NULL, echo_main, &r), 0);

	cr_assert_eq(send(r.sv[1], hello, sizeof(hello), 0), (ssize_t)sizeof(hello));
	cr_assert_eq(send(r.sv[1], ping, sizeof(ping), 0), (ssize_t)sizeof(ping));
	n = recv(r.sv[1], back, sizeof(back), 0);
	cr_assert_eq(n, (ssize_t)sizeof(ping), "first reply is %zd bytes, not the ping", n);
	cr_assert_eq(memcmp(back, ping, sizeof(ping)), 0);

	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	cr_assert_eq(recv(r.sv[1], back, sizeof(back), MSG_DONTWAIT), -1, "another reply came");
	cr_assert_eq(atomic_load(&r.s.c.packets), 1);
	rig_close(&r);
}
