#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "probes/net/udpio.h"

#define GSO_BYTES  65000 /* one GSO send: under IP's 64 KiB, IPv4 or IPv6 */
#define GRO_SLOT   65536 /* a coalesced GRO buffer: up to 64 KiB */
#define GRO_SLOTS  8
#define IO_BYTES   IX_UDPIO_BYTES /* the buffers of sendmmsg or recvmmsg */
#define CTRL_BYTES 64             /* a slot's control buffer: one UDP_GRO int */

const char *ix_udpio_name(enum ix_udpio_kind k)
{
	switch (k) {
	case IX_UDPIO_GSO:
		return "gso";
	case IX_UDPIO_GRO:
		return "gro";
	default:
		return "mmsg";
	}
}

static int alloc_vectors(struct ix_udpio *io, unsigned n, size_t bytes, struct ix_err *err)
{
	io->buf = malloc(bytes);
	io->mm = calloc(n, sizeof(*io->mm));
	io->iov = calloc(n, sizeof(*io->iov));
	if (!io->buf || !io->mm || !io->iov) {
		ix_udpio_close(io);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory for %u datagram buffers", n);
	}
	memset(io->buf, 0, bytes);
	return 0;
}

int ix_udpio_tx_open(struct ix_udpio *io, int fd, size_t dsize, bool offload, struct ix_err *err)
{
	int gso = (int)dsize;
	unsigned n = IX_UDPIO_MAX;

	memset(io, 0, sizeof(*io));
	io->fd = fd;
	io->dsize = dsize ? dsize : 1;
	io->kind = IX_UDPIO_MMSG;
	if (offload && GSO_BYTES / io->dsize >= 2 &&
	    setsockopt(fd, SOL_UDP, UDP_SEGMENT, &gso, sizeof(gso)) == 0)
		io->kind = IX_UDPIO_GSO;
	if (io->kind == IX_UDPIO_GSO && GSO_BYTES / io->dsize < n)
		n = (unsigned)(GSO_BYTES / io->dsize);
	if (io->kind == IX_UDPIO_MMSG && IO_BYTES / io->dsize < n)
		n = IO_BYTES / io->dsize < 1 ? 1 : (unsigned)(IO_BYTES / io->dsize);
	io->max = n;
	if (alloc_vectors(io, n, (size_t)n * io->dsize, err) < 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		io->iov[i] = (struct iovec){ io->buf + (size_t)i * io->dsize, io->dsize };
		io->mm[i].msg_hdr.msg_iov = &io->iov[i];
		io->mm[i].msg_hdr.msg_iovlen = 1;
	}
	return 0;
}

/* GSO refused on this path (a segment over the route's MTU, a device
 * without checksums): sendmmsg from now on. */
static void gso_off(struct ix_udpio *io)
{
	int zero = 0;

	setsockopt(io->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
	io->kind = IX_UDPIO_MMSG; /* the same buffers, io->max of them */
}

int ix_udpio_tx_send(struct ix_udpio *io, unsigned k)
{
	int n;

	if (k == 0)
		return 0;
	if (k > io->max)
		k = io->max;
	if (io->kind == IX_UDPIO_GSO) {
		ssize_t r = send(io->fd, io->buf, (size_t)k * io->dsize, 0);

		if (r >= 0) {
			if (k > io->most)
				io->most = k;
			return (int)k;
		}
		if (errno != EINVAL && errno != EIO)
			return -1;
		gso_off(io);
	}
	n = sendmmsg(io->fd, io->mm, k, 0);
	if (n > 0 && (unsigned)n > io->most)
		io->most = (unsigned)n;
	return n;
}

int ix_udpio_rx_open(struct ix_udpio *io, int fd, size_t dsize, bool offload, struct ix_err *err)
{
	int one = 1;
	unsigned n;

	memset(io, 0, sizeof(*io));
	io->fd = fd;
	io->kind = IX_UDPIO_MMSG;
	if (offload && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0)
		io->kind = IX_UDPIO_GRO;
	if (io->kind == IX_UDPIO_GRO) {
		io->slot = GRO_SLOT;
		n = GRO_SLOTS;
	} else {
		io->slot = dsize ? dsize : 65507;
		n = (unsigned)(IO_BYTES / io->slot);
		n = n < 1 ? 1 : n > IX_UDPIO_MAX ? IX_UDPIO_MAX : n;
	}
	io->max = n;
	if (alloc_vectors(io, n, (size_t)n * io->slot, err) < 0)
		return -1;
	io->cbuf = calloc(n, CTRL_BYTES);
	if (!io->cbuf) {
		ix_udpio_close(io);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory for %u receive buffers", n);
	}
	for (unsigned i = 0; i < n; i++) {
		io->iov[i] = (struct iovec){ io->buf + (size_t)i * io->slot, io->slot };
		io->mm[i].msg_hdr.msg_iov = &io->iov[i];
		io->mm[i].msg_hdr.msg_iovlen = 1;
	}
	return 0;
}

int ix_udpio_rx_recv(struct ix_udpio *io)
{
	int n;

	for (unsigned i = 0; i < io->max; i++) {
		io->mm[i].msg_hdr.msg_control =
			io->kind == IX_UDPIO_GRO ? io->cbuf + i * CTRL_BYTES : NULL;
		io->mm[i].msg_hdr.msg_controllen = io->kind == IX_UDPIO_GRO ? CTRL_BYTES : 0;
		io->mm[i].msg_hdr.msg_flags = 0;
		io->mm[i].msg_len = 0;
	}
	io->filled = io->at_slot = io->taken = 0;
	io->at_off = io->seg = 0;
	/* The first datagram blocks (up to the receive timeout), the rest
	 * are what is queued already. */
	n = recvmmsg(io->fd, io->mm, io->max, MSG_WAITFORONE, NULL);
	if (n > 0)
		io->filled = (unsigned)n;
	return n;
}

/* The size GRO cut a slot's datagrams to, or the whole slot. */
static size_t segment_of(struct ix_udpio *io, unsigned i)
{
	struct msghdr *h = &io->mm[i].msg_hdr;
	size_t len = io->mm[i].msg_len;

	if (io->kind != IX_UDPIO_GRO)
		return len;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
		    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int g;

			memcpy(&g, CMSG_DATA(c), sizeof(g));
			if (g > 0 && (size_t)g < len)
				return (size_t)g;
		}
	return len;
}

bool ix_udpio_rx_next(struct ix_udpio *io, const uint8_t **p, size_t *len)
{
	while (io->at_slot < io->filled) {
		size_t total = io->mm[io->at_slot].msg_len;

		if (total > io->slot)
			total = io->slot; /* truncated: what the slot holds */
		if (io->at_off == 0)
			io->seg = segment_of(io, io->at_slot);
		if (io->seg > 0 && io->at_off < total) {
			size_t n = total - io->at_off < io->seg ? total - io->at_off : io->seg;

			*p = io->iov[io->at_slot].iov_base;
			*p += io->at_off;
			*len = n;
			io->at_off += n;
			if (++io->taken > io->most)
				io->most = io->taken;
			return true;
		}
		io->at_slot++;
		io->at_off = 0;
	}
	return false;
}

void ix_udpio_close(struct ix_udpio *io)
{
	free(io->buf);
	free(io->mm);
	free(io->iov);
	free(io->cbuf);
	io->buf = NULL;
	io->mm = NULL;
	io->iov = NULL;
	io->cbuf = NULL;
}
