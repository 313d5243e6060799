/*
 * Datagrams in batches: a UDP data loop hands the kernel many datagrams a
 * call and takes many back. Sending uses UDP generic segmentation offload
 * (UDP_SEGMENT: one buffer of equal-sized datagrams, cut by the stack or
 * the NIC) where the kernel has it, else sendmmsg; receiving uses UDP GRO
 * (UDP_GRO: coalesced datagrams with their size in a control message) in
 * recvmmsg where the kernel has it, else plain recvmmsg. Either way each
 * datagram keeps its own bytes, so sequence numbers, loss, reordering and
 * jitter stay per datagram. With offload off, only the batching remains.
 */
#ifndef IX_UDPIO_H
#define IX_UDPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "probes/core/err.h"

#define IX_UDPIO_MAX   64        /* datagrams a send call: the kernel's GSO limit */
#define IX_UDPIO_BYTES (1 << 20) /* a sender's or receiver's buffers, about */

enum ix_udpio_kind {
	IX_UDPIO_MMSG, /* sendmmsg / recvmmsg */
	IX_UDPIO_GSO,  /* send with UDP_SEGMENT */
	IX_UDPIO_GRO,  /* recvmmsg with UDP_GRO */
};

const char *ix_udpio_name(enum ix_udpio_kind k); /* "mmsg", "gso", "gro" */

struct ix_udpio {
	int fd;
	enum ix_udpio_kind kind;
	size_t dsize; /* sender: the datagram size */
	unsigned max; /* sender: datagrams a call; receiver: slots a call */
	size_t slot;  /* receiver: bytes a slot holds */
	uint8_t *buf; /* sender: max datagrams back to back; receiver: the slots */
	struct mmsghdr *mm;
	struct iovec *iov;
	uint8_t *cbuf; /* receiver: one control buffer a slot */
	unsigned most; /* the most datagrams one call carried */
	/* Receiver: the datagrams of the last call, walked by rx_next. */
	unsigned filled, at_slot, taken;
	size_t at_off, seg;
};

/* Sender for datagrams of dsize bytes on connected socket fd; offload
 * false keeps to sendmmsg. */
int ix_udpio_tx_open(struct ix_udpio *io, int fd, size_t dsize, bool offload, struct ix_err *err);
/* Datagram i of the next call (i < io->max), to fill. Buffers take at
 * most IX_UDPIO_BYTES (one datagram when it is larger). */
static inline uint8_t *ix_udpio_tx_slot(struct ix_udpio *io, unsigned i)
{
	return io->buf + (size_t)i * io->dsize;
}
/* Send the first k datagrams; returns how many went (all or, sendmmsg,
 * the first ones), -1 with errno. A kernel that refuses GSO for this
 * path turns the sender to sendmmsg for good. */
int ix_udpio_tx_send(struct ix_udpio *io, unsigned k);

/* Receiver on fd for datagrams of at most dsize bytes (UDP_MAX when not
 * known); offload false keeps to recvmmsg. */
int ix_udpio_rx_open(struct ix_udpio *io, int fd, size_t dsize, bool offload, struct ix_err *err);
/* Wait for datagrams (the socket's receive timeout bounds it); returns
 * the number of buffers filled, -1 with errno. */
int ix_udpio_rx_recv(struct ix_udpio *io);
/* The next datagram of the last call: false when none is left. */
bool ix_udpio_rx_next(struct ix_udpio *io, const uint8_t **p, size_t *len);

void ix_udpio_close(struct ix_udpio *io);

#endif
