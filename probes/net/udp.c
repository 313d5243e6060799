/*
 * UDP: one socket per stream on an ephemeral port the server announces.
 * Every datagram starts with a header carrying a sequence number and the
 * sender's send time, from which the receiver counts loss, reordering and
 * RFC 3550 jitter.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/core/clock.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/transport.h"
#include "probes/net/udpio.h"

#define UDP_MAGIC_DATA    0x49585544u /* "IXUD" */
#define UDP_MAGIC_HELLO   0x49585548u /* "IXUH" */
#define UDP_MAGIC_ACK     0x49585541u /* "IXUA" */
#define UDP_FLAG_END      1u
#define UDP_FLAG_MEASURED 2u /* sent after the sender's warm-up */
#define UDP_HDR           24
#define UDP_MAX           65507
#define UDP_END_MARKERS   5
#define UDP_RCVBUF        (4 << 20) /* a receiver's buffer without --window */

static void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return ntohl(v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint64_t get64(const uint8_t *p)
{
	return ((uint64_t)get32(p) << 32) | get32(p + 4);
}

static int udp_server_open(struct ix_stream *s, int ctrl_fd, json_t *setup, struct ix_err *err)
{
	uint16_t port = s->local_port;

	s->fd = ix_net_udp_bind_like(ctrl_fd, &port, err);
	if (s->fd < 0)
		return -1;
	json_object_set_new(setup, "port", json_integer(port));
	return 0;
}

static size_t hello_fill(uint8_t *buf, size_t len, const char *cookie, uint32_t id)
{
	put32(buf, UDP_MAGIC_HELLO);
	put32(buf + 4, id);
	snprintf((char *)buf + 8, len - 8, "%s", cookie);
	return 8 + strlen(cookie);
}

static int udp_server_accept(struct ix_stream *s, const char *cookie, int64_t deadline,
			     struct ix_err *err)
{
	uint8_t buf[128], want[128], ack[4];
	size_t wlen = hello_fill(want, sizeof(want), cookie, s->id);

	for (;;) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, ix_ms_until(deadline)) <= 0)
			return ix_fail(err, IX_EXIT_FAIL,
				       "stream %u: no UDP datagram from the client (blocked by a "
				       "firewall?)",
				       s->id);
		n = recvfrom(s->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		/* Only the test's own client may open the channel: the agent
		 * must not be talked into sending towards a third host. */
		if (n == (ssize_t)wlen && memcmp(buf, want, wlen) == 0 &&
		    ix_net_same_host(&from, &s->ctrl_peer)) {
			if (connect(s->fd, (struct sockaddr *)&from, fl) < 0)
				return ix_fail(err, IX_EXIT_FAIL, "UDP connect: %s",
					       strerror(errno));
			put32(ack, UDP_MAGIC_ACK);
			send(s->fd, ack, sizeof(ack), 0);
			return ix_net_set_timeouts(s->fd, 200);
		}
		/* Anything else (a stranger's datagram) is ignored. */
	}
}

static int udp_client_open(struct ix_stream *s, const struct ix_dial *d, json_t *setup,
			   int64_t deadline, struct ix_err *err)
{
	json_int_t port = json_integer_value(json_object_get(setup, "port"));
	uint8_t hello[128], buf[64];
	size_t hlen;

	if (port <= 0 || port > 65535)
		return ix_fail(err, IX_EXIT_FAIL, "server sent no valid UDP port for stream %u",
			       s->id);
	s->fd = ix_net_connect_from(d->host, (uint16_t)port, SOCK_DGRAM, d->bind_addr,
				    s->local_port, deadline, err);
	if (s->fd < 0)
		return -1;
	hlen = hello_fill(hello, sizeof(hello), d->cookie, s->id);
	while (ix_now_ns() < deadline) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		send(s->fd, hello, hlen, 0);
		if (poll(&pfd, 1, 100) > 0) {
			ssize_t n = recv(s->fd, buf, sizeof(buf), 0);
			if (n == 4 && get32(buf) == UDP_MAGIC_ACK)
				return ix_net_set_timeouts(s->fd, 200);
		}
	}
	return ix_fail(
		err, IX_EXIT_FAIL,
		"stream %u: the server's UDP port %d did not answer (blocked by a firewall?)",
		s->id, (int)port);
}

static int udp_tune(struct ix_stream *s, const struct ix_bw_params *p, char *cc_used, size_t cc_len,
		    struct ix_err *err)
{
	(void)cc_used;
	(void)cc_len;
	if (p->window && ix_net_set_buffers(s->fd, p->window, NULL, err) < 0)
		return ix_fail_prefix(err, "stream %u", s->id);
	/* Without --window a receiver asks for room for a few milliseconds
	 * of datagrams at 10 Gbit/s (the kernel caps it at rmem_max; the
	 * size granted is reported): the default 208 KiB overflows as soon as
	 * the thread is not scheduled for a moment. */
	if (!p->window && !s->sending) {
		int want = UDP_RCVBUF;

		setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	}
	return 0;
}

/* Datagrams a call under pacing: about a millisecond's worth, so that a
 * batch is no burst a shaped link would drop. */
static unsigned paced_batch(const struct ix_stream *s, unsigned most)
{
	double per_ms;

	if (!s->rate_bps)
		return most;
	per_ms = (double)s->rate_bps / 8e3 / (double)s->msg_size;
	return per_ms < 1 ? 1 : per_ms > most ? most : (unsigned)per_ms;
}

static int udp_send(struct ix_stream *s)
{
	struct ix_udpio io;
	uint64_t seq = 0, sent = 0;
	int64_t t0 = ix_now_ns(), now;
	bool warm = false;
	unsigned batch;
	int rc = 0;

	if (ix_udpio_tx_open(&io, s->fd, s->msg_size, !s->no_offload, &s->err) < 0)
		return -1;
	for (unsigned i = 0; i < io.max; i++)
		put32(ix_udpio_tx_slot(&io, i), UDP_MAGIC_DATA);
	for (;;) {
		int n;

		now = ix_now_ns();
		if (!warm && now >= s->warm_until) {
			ix_stream_mark_warm(s, now, sent, seq);
			warm = true;
		}
		if (ix_stream_stopped(s) || (s->send_until && now >= s->send_until))
			break;
		if (s->byte_limit && sent >= s->byte_limit)
			break;
		if (!ix_stream_pace(s, t0, sent, now))
			break;
		batch = paced_batch(s, io.max);
		if (s->byte_limit && (s->byte_limit - sent) / s->msg_size + 1 < batch)
			batch = (unsigned)((s->byte_limit - sent) / s->msg_size + 1);
		now = ix_now_ns();
		for (unsigned i = 0; i < batch; i++) {
			uint8_t *d = ix_udpio_tx_slot(&io, i);

			put32(d + 4, warm ? UDP_FLAG_MEASURED : 0);
			put64(d + 8, seq + i);
			put64(d + 16, (uint64_t)now);
		}
		n = ix_udpio_tx_send(&io, batch);
		if (n < 0) {
			/* A full socket buffer or an ICMP-refused port: skip, as a
			 * real sender would, and keep the schedule. */
			if (errno == EAGAIN || errno == EINTR || errno == ENOBUFS ||
			    errno == ECONNREFUSED)
				continue;
			rc = ix_fail(&s->err, IX_EXIT_FAIL, "stream %u: send failed: %s", s->id,
				     strerror(errno));
			break;
		}
		seq += (uint64_t)n;
		sent += (uint64_t)n * s->msg_size;
		atomic_store_explicit(&s->c.bytes, sent, memory_order_relaxed);
		atomic_store_explicit(&s->c.packets, seq, memory_order_relaxed);
	}
	s->last_t = ix_now_ns();
	snprintf(s->io, sizeof(s->io), "%s", ix_udpio_name(io.kind));
	s->io_batch = io.most;
	ix_udpio_close(&io);
	return rc;
}

static void udp_finish(struct ix_stream *s)
{
	uint8_t buf[UDP_HDR];
	uint64_t total = atomic_load(&s->c.packets);

	put32(buf, UDP_MAGIC_DATA);
	put32(buf + 4, UDP_FLAG_END);
	put64(buf + 8, total);
	put64(buf + 16, (uint64_t)ix_now_ns());
	for (int i = 0; i < UDP_END_MARKERS; i++)
		send(s->fd, buf, sizeof(buf), 0);
}

/* Publish the sequence counts: totals for the interval sampler, the
 * warm-up share as the baseline the summary subtracts. A late warm-up
 * datagram lowers both, so the measured loss never goes below zero. */
static void publish_seq(struct ix_stream *s, const struct ix_net_seq *q)
{
	s->warm_gaps = q->warm.lost;
	s->warm_ooo = q->warm.out_of_order;
	s->warm_dup = q->warm.duplicates;
	atomic_store_explicit(&s->c.gaps, q->warm.lost + q->measured.lost, memory_order_relaxed);
	atomic_store_explicit(&s->c.out_of_order, q->warm.out_of_order + q->measured.out_of_order,
			      memory_order_relaxed);
	atomic_store_explicit(&s->c.duplicates, q->warm.duplicates + q->measured.duplicates,
			      memory_order_relaxed);
}

/* What a receiver keeps between datagrams. */
struct rx_state {
	uint64_t got, packets;
	struct ix_net_seq q;
	double jitter;
	int64_t prev_transit;
	bool warm, have_prev;
};

/* One datagram received at now; true when it was the sender's end. */
static bool rx_one(struct ix_stream *s, struct rx_state *r, const uint8_t *buf, size_t n,
		   int64_t now)
{
	uint64_t seq;
	int64_t transit;

	if (n < UDP_HDR || get32(buf) != UDP_MAGIC_DATA)
		return false; /* late hello or a stranger */
	seq = get64(buf + 8);
	/* The measured window opens with the sender's first datagram sent
	 * after its warm-up, so both ends count the same ones. */
	if (!r->warm && (get32(buf + 4) & (UDP_FLAG_MEASURED | UDP_FLAG_END))) {
		ix_stream_mark_warm(s, now, r->got, r->packets);
		ix_net_seq_open(&r->q);
		r->warm = true;
	}
	if (get32(buf + 4) & UDP_FLAG_END) {
		s->peer_packets = seq;
		s->have_peer_packets = true;
		ix_net_seq_end(&r->q, seq); /* lost at the tail */
		return true;
	}
	ix_net_seq_add(&r->q, seq);
	transit = now - (int64_t)get64(buf + 16);
	if (r->have_prev) {
		int64_t d = transit - r->prev_transit;
		r->jitter += ((double)(d < 0 ? -d : d) - r->jitter) / 16.0;
	}
	r->prev_transit = transit;
	r->have_prev = true;
	r->packets++;
	r->got += n;
	s->last_t = now;
	return false;
}

static int udp_recv(struct ix_stream *s)
{
	struct rx_state r = { .got = 0 };
	struct ix_udpio io;
	bool end = false;
	int rc = 0;

	if (ix_udpio_rx_open(&io, s->fd, s->msg_size, !s->no_offload, &s->err) < 0)
		return -1;
	ix_net_seq_init(&r.q);
	while (!end) {
		int n = ix_udpio_rx_recv(&io);
		int64_t now = ix_now_ns();
		const uint8_t *p;
		size_t len;

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED) {
				if (ix_stream_stopped(s))
					break;
				continue;
			}
			rc = ix_fail(&s->err, IX_EXIT_FAIL, "stream %u: receive failed: %s", s->id,
				     strerror(errno));
			break;
		}
		while (!end && ix_udpio_rx_next(&io, &p, &len))
			end = rx_one(s, &r, p, len, now);
		atomic_store_explicit(&s->c.bytes, r.got, memory_order_relaxed);
		atomic_store_explicit(&s->c.packets, r.packets, memory_order_relaxed);
		publish_seq(s, &r.q);
		atomic_store_explicit(&s->c.jitter_ns, (uint64_t)r.jitter, memory_order_relaxed);
	}
	snprintf(s->io, sizeof(s->io), "%s", ix_udpio_name(io.kind));
	s->io_batch = io.most;
	ix_udpio_close(&io);
	return rc;
}

/* A client's HELLO for stream id (hello_fill): it is sent again until the
 * ACK arrives, so copies can reach the responder after the channel opened. */
static bool udp_is_hello(const uint8_t *buf, ssize_t n, uint32_t id)
{
	if (n != 8 + IX_COOKIE_LEN || get32(buf) != UDP_MAGIC_HELLO || get32(buf + 4) != id)
		return false;
	for (size_t i = 8; i < (size_t)n; i++)
		if (!strchr("0123456789abcdef", buf[i]) || !buf[i])
			return false;
	return true;
}

static int udp_echo(struct ix_stream *s)
{
	uint8_t *buf = malloc(UDP_MAX);
	/* Between the receive and the send: no page it need not (tcp_echo). */
	const int fd = s->fd, flags = s->busy_poll ? MSG_DONTWAIT : 0;
	const uint32_t id = s->id;

	if (!buf)
		return ix_fail(&s->err, IX_EXIT_FAIL, "out of memory");
	while (!ix_stream_stopped(s)) {
		ssize_t n = ix_net_recv(fd, buf, UDP_MAX, flags);
		if (n < 0)
			continue; /* timeout, EAGAIN or a refused port: check stop */
		if (udp_is_hello(buf, n, id))
			continue; /* a repeated HELLO is no ping */
		ix_net_send(fd, buf, (size_t)n, 0);
		atomic_fetch_add_explicit(&s->c.packets, 1, memory_order_relaxed);
	}
	free(buf);
	return 0;
}

static int64_t udp_ping(struct ix_stream *s, uint8_t *buf, uint64_t seq, int64_t timeout_ns)
{
	size_t len = s->msg_size;
	int64_t t0, deadline;
	const int fd = s->fd, flags = s->busy_poll ? MSG_DONTWAIT : 0;
	uint8_t tag[8];

	put64(tag, seq);
	memcpy(buf, tag, sizeof(tag)); /* len >= 8: min_lat_size */
	t0 = ix_now_ns();
	deadline = t0 + timeout_ns;
	if (ix_net_send(fd, buf, len, 0) < 0 && errno != ECONNREFUSED)
		return ix_fail(&s->err, IX_EXIT_FAIL, "send failed: %s", strerror(errno));
	/* One blocking recv per reply (SO_RCVTIMEO bounds it), or a spin. */
	for (;;) {
		ssize_t n = ix_net_recv(fd, buf, len, flags);
		int64_t t1 = ix_now_ns(); /* before the reply is read (tcp_ping) */

		if (n == (ssize_t)len && memcmp(buf, tag, sizeof(tag)) == 0)
			return t1 - t0;
		if (t1 >= deadline)
			return 0; /* lost */
		if (ix_stream_stopped(s))
			return ix_fail(&s->err, IX_EXIT_FAIL, "stopped");
	}
}

const struct ix_transport ix_udp_transport = {
	.name = "udp",
	.desc = "UDP datagrams, paced to a target rate; loss, jitter, reordering",
	.caps = IX_CAP_DATAGRAM | IX_CAP_NEEDS_RATE,
	.default_msg_size = 1472,
	.min_msg_size = UDP_HDR,
	.min_lat_size = 8,
	.stream_mem = IX_UDPIO_BYTES,
	.max_msg_size = UDP_MAX,
	.server_open = udp_server_open,
	.server_accept = udp_server_accept,
	.client_open = udp_client_open,
	.tune = udp_tune,
	.send = udp_send,
	.recv = udp_recv,
	.echo = udp_echo,
	.ping = udp_ping,
	.finish = udp_finish,
};
