/* Unit tests for probes/net/udpio.c: datagrams in batches over loopback,
 * with GSO and GRO where this kernel has them and without; every datagram
 * arrives whole, in order, once; a coalesced buffer is cut at its
 * datagrams' size; a socket GSO refuses falls back to sendmmsg. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/net/udpio.h"

#define DSIZE 1472

/* A connected pair of UDP sockets on 127.0.0.1: fds[0] sends to fds[1]. */
static void pair(int fds[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	struct timeval tv = { 0, 200000 };
	int big = 4 << 20;

	for (int i = 0; i < 2; i++) {
		fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
		cr_assert_geq(fds[i], 0);
		a.sin_port = 0;
		cr_assert_eq(bind(fds[i], (struct sockaddr *)&a, sizeof(a)), 0);
	}
	setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(fds[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	cr_assert_eq(getsockname(fds[1], (struct sockaddr *)&a, &al), 0);
	cr_assert_eq(connect(fds[0], (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fds[0], (struct sockaddr *)&a, &al), 0);
	cr_assert_eq(connect(fds[1], (struct sockaddr *)&a, sizeof(a)), 0);
}

/* Send n numbered datagrams in batches of the sender's size, receive them
 * all: each whole, in order, once. Returns the receiver's kind. */
static enum ix_udpio_kind round_trip(int fds[2], bool tx_offload, bool rx_offload, unsigned n,
				     enum ix_udpio_kind *tx_kind)
{
	struct ix_udpio tx, rx;
	struct ix_err err = { 0 };
	unsigned sent = 0, got = 0;
	enum ix_udpio_kind k;

	cr_assert_eq(ix_udpio_tx_open(&tx, fds[0], DSIZE, tx_offload, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_udpio_rx_open(&rx, fds[1], DSIZE, rx_offload, &err), 0, "%s", err.msg);
	while (sent < n) {
		unsigned b = n - sent < tx.max ? n - sent : tx.max;
		int r;

		for (unsigned i = 0; i < b; i++) {
			uint32_t v = htonl(sent + i);

			memcpy(ix_udpio_tx_slot(&tx, i), &v, 4);
		}
		r = ix_udpio_tx_send(&tx, b);
		cr_assert_gt(r, 0, "send: %m");
		sent += (unsigned)r;
	}
	while (got < n) {
		const uint8_t *p;
		size_t len;

		cr_assert_gt(ix_udpio_rx_recv(&rx), 0, "%u of %u received: %m", got, n);
		while (ix_udpio_rx_next(&rx, &p, &len)) {
			uint32_t v;

			cr_assert_eq(len, DSIZE, "datagram %u: %zu bytes", got, len);
			memcpy(&v, p, 4);
			cr_assert_eq(ntohl(v), got, "datagram %u arrived as %u", got, ntohl(v));
			got++;
		}
	}
	*tx_kind = tx.kind;
	k = rx.kind;
	ix_udpio_close(&tx);
	ix_udpio_close(&rx);
	return k;
}

Test(udpio, offload_keeps_every_datagram)
{
	int fds[2];
	enum ix_udpio_kind tk, rk;

	pair(fds);
	rk = round_trip(fds, true, true, 1000, &tk);
	cr_log_info("sender %s, receiver %s", ix_udpio_name(tk), ix_udpio_name(rk));
	/* Linux has had both since 5.0. */
	cr_expect_eq(tk, IX_UDPIO_GSO);
	cr_expect_eq(rk, IX_UDPIO_GRO);
	close(fds[0]);
	close(fds[1]);
}

Test(udpio, without_offload_batches_still)
{
	int fds[2];
	enum ix_udpio_kind tk, rk;

	pair(fds);
	rk = round_trip(fds, false, false, 1000, &tk);
	cr_assert_eq(tk, IX_UDPIO_MMSG);
	cr_assert_eq(rk, IX_UDPIO_MMSG);
	close(fds[0]);
	close(fds[1]);
}

/* GSO in, no GRO: the stack cuts the datagrams before the socket. */
Test(udpio, gso_to_a_plain_receiver)
{
	int fds[2];
	enum ix_udpio_kind tk, rk;

	pair(fds);
	rk = round_trip(fds, true, false, 500, &tk);
	cr_assert_eq(rk, IX_UDPIO_MMSG);
	close(fds[0]);
	close(fds[1]);
}

/* A coalesced buffer whose last datagram is shorter: cut at the size GRO
 * reports, the tail kept as it is. */
Test(udpio, gro_buffer_is_cut_at_its_segment_size)
{
	int fds[2], gso = DSIZE;
	uint8_t buf[2 * DSIZE + 100];
	struct ix_udpio rx;
	const uint8_t *p;
	size_t len, lens[8];
	unsigned n = 0;

	pair(fds);
	cr_assert_eq(ix_udpio_rx_open(&rx, fds[1], DSIZE, true, NULL), 0);
	if (rx.kind != IX_UDPIO_GRO ||
	    setsockopt(fds[0], SOL_UDP, UDP_SEGMENT, &gso, sizeof(gso)) < 0)
		cr_skip_test("no UDP GSO/GRO in this kernel");
	memset(buf, 7, sizeof(buf));
	cr_assert_eq(send(fds[0], buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	while (n < 3) {
		cr_assert_gt(ix_udpio_rx_recv(&rx), 0, "%m");
		while (n < 8 && ix_udpio_rx_next(&rx, &p, &len))
			lens[n++] = len;
	}
	cr_assert_eq(n, 3);
	cr_assert_eq(lens[0], DSIZE);
	cr_assert_eq(lens[1], DSIZE);
	cr_assert_eq(lens[2], 100);
	ix_udpio_close(&rx);
	close(fds[0]);
	close(fds[1]);
}

/* A socket without UDP checksums cannot use GSO: the first send finds it
 * out and the sender goes on with sendmmsg, losing nothing. */
Test(udpio, refused_gso_falls_back_to_sendmmsg)
{
	int fds[2], one = 1;
	enum ix_udpio_kind tk;

	pair(fds);
	if (setsockopt(fds[0], SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) < 0)
		cr_skip_test("SO_NO_CHECK is not settable here");
	round_trip(fds, true, true, 200, &tk);
	cr_assert_eq(tk, IX_UDPIO_MMSG, "the sender fell back");
	close(fds[0]);
	close(fds[1]);
}

/* Datagrams larger than the buffers: one a call, still whole. */
Test(udpio, big_datagrams_one_a_call)
{
	int fds[2];
	struct ix_udpio tx;
	struct ix_err err = { 0 };

	pair(fds);
	cr_assert_eq(ix_udpio_tx_open(&tx, fds[0], 65000, false, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.max, 16, "1 MiB of 65000-byte datagrams");
	ix_udpio_close(&tx);
	cr_assert_eq(ix_udpio_tx_open(&tx, fds[0], 40000, true, &err), 0, "%s", err.msg);
	cr_assert_eq(tx.kind, IX_UDPIO_MMSG, "two would not fit one GSO send");
	ix_udpio_close(&tx);
	close(fds[0]);
	close(fds[1]);
}
