/* Socket helpers (every wait is bounded by a deadline) and datagram
 * sequence accounting. */
#ifndef IX_NET_H
#define IX_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "probes/core/err.h"

#define IX_DEFAULT_PORT 5301

/* Connect a TCP or UDP (type SOCK_STREAM / SOCK_DGRAM) socket to host:port,
 * trying each address; bind to bind_addr when not NULL. */
int ix_net_connect(const char *host, uint16_t port, int type, const char *bind_addr,
		   int64_t deadline_ns, struct ix_err *err);
/* The same from local port lport (0: any): a port in use is an error
 * naming it. With a port, a TCP socket takes SO_REUSEADDR, so that the
 * TIME_WAIT of the last test from it does not refuse the same 5-tuple
 * (a listener on it still does), and closes with a reset (SO_LINGER 0). */
int ix_net_connect_from(const char *host, uint16_t port, int type, const char *bind_addr,
			uint16_t lport, int64_t deadline_ns, struct ix_err *err);
/* Listening TCP socket on bind_addr (NULL = any, IPv6 dual-stack) : port. */
int ix_net_listen(const char *bind_addr, uint16_t port, int backlog, struct ix_err *err);
/* UDP socket bound to the address family of ref (a connected socket's
 * local address), on port *port (0: an ephemeral one); *port gets the
 * port. */
int ix_net_udp_bind_like(int ref_fd, uint16_t *port, struct ix_err *err);
/* Read/write exactly len bytes before the deadline. */
int ix_net_read_full(int fd, void *buf, size_t len, int64_t deadline_ns, struct ix_err *err);
int ix_net_write_full(int fd, const void *buf, size_t len, int64_t deadline_ns, struct ix_err *err);
int ix_net_set_nonblock(int fd, int on);
/* Raise the open-file limit to the hard limit (many agents, many sockets). */
void ix_net_raise_nofile(void);
/* Ask for SO_SNDBUF and SO_RCVBUF of bytes each; fails naming the option
 * and size the kernel refused. The kernel caps a request at
 * net.core.wmem_max / rmem_max without an error, so *granted (may be NULL)
 * gets what it kept: the smaller of the two as getsockopt reports them.
 * Linux reports twice the size asked for (the extra half is its bookkeeping
 * overhead), and that reported value is what is recorded. */
int ix_net_set_buffers(int fd, uint64_t bytes, uint64_t *granted, struct ix_err *err);
/* What ix_net_set_buffers(bytes) lets the kernel book for one socket's
 * data, both ways: each side capped at net.core.wmem_max / rmem_max, then
 * doubled. 0 for 0 (the kernel's own tuning, bounded by tcp_mem). */
uint64_t ix_net_window_bytes(uint64_t bytes);
/* The socket's send or receive buffer as getsockopt reports it; 0 when
 * unknown. A buffer set with SO_SNDBUF/SO_RCVBUF keeps its size (the kernel
 * stops auto-tuning it), so this still reads the granted size later. */
uint64_t ix_net_buffer_size(int fd, bool send_side);
/* SO_SNDTIMEO and SO_RCVTIMEO, so blocking data loops can check stop flags. */
int ix_net_set_timeouts(int fd, int ms);
/* SO_SNDTIMEO alone; ms 0: none (blocks until the peer takes it). */
int ix_net_set_send_timeout(int fd, int ms);
/* SO_RCVTIMEO alone; ms 0: none (blocks until data, the peer's end or a
 * shutdown(2) of this socket). */
int ix_net_set_recv_timeout(int fd, int ms);
/* send(2) and recv(2) on a connected socket, as the system calls alone.
 * In a process with more than one thread, glibc's send and recv are
 * cancellation points: each call switches the thread to asynchronous
 * cancellation and back, two atomic updates of its descriptor, whose page
 * the system call has just left cold where page-table isolation runs
 * without PCID. ixperf cancels no thread, and a ping-pong's round trip
 * holds four such calls: 0.4 to 0.8 % of a loopback round trip, measured
 * in a bare ping-pong with and without a second thread. Same arguments,
 * result and errno as send(2) and recv(2); each argument is passed to
 * syscall(2) as a long, the width it reads. */
static inline ssize_t ix_net_send(int fd, const void *buf, size_t len, int flags)
{
	return syscall(SYS_sendto, (long)fd, buf, (long)len, (long)flags, NULL, 0L);
}

static inline ssize_t ix_net_recv(int fd, void *buf, size_t len, int flags)
{
	return syscall(SYS_recvfrom, (long)fd, buf, (long)len, (long)flags, NULL, NULL);
}

/* Printable address of a socket's peer ("[::1]:5301"). */
void ix_net_peer_name(int fd, char *buf, size_t len);
uint16_t ix_net_local_port(int fd);
/* The port of a connected socket's peer; 0 when not connected. */
uint16_t ix_net_peer_port(int fd);
/* The peer's address of a connected socket; -1 when unknown. */
int ix_net_peer_addr(int fd, struct sockaddr_storage *ss);
/* Same host address (ports ignored; IPv4-mapped IPv6 equals IPv4). */
bool ix_net_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
/* A connected socket whose peer is this host (a loopback address, or its
 * own address): both ends share its CPUs. */
bool ix_net_peer_local(int fd);
/* The same source for the agent's caps: the same IPv4 address, or the
 * same IPv6 /64 (one host holds a whole one). */
bool ix_net_same_source(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
/* 127.0.0.0/8 (also as a v4-mapped IPv6 address) or ::1. */
bool ix_net_is_loopback(const struct sockaddr_storage *a);

/* Datagram sequence accounting: loss, late arrivals and duplicates, exact
 * for every sequence number within the last IX_NET_SEQ_WINDOW. A late
 * datagram lowers the loss only when its sequence number was missing. */
#define IX_NET_SEQ_WINDOW 4096

struct ix_net_seq_count {
	uint64_t lost;         /* skipped sequence numbers not seen since */
	uint64_t out_of_order; /* arrived after a higher sequence number */
	uint64_t duplicates;   /* a sequence number seen again */
};

struct ix_net_seq {
	uint64_t next; /* one past the highest sequence number seen */
	uint64_t base; /* first sequence number of the measured window */
	bool open;     /* the measured window has opened */
	/* Counts by sequence number: below base (warm-up) or not. */
	struct ix_net_seq_count warm, measured;
	/* Bit seq % IX_NET_SEQ_WINDOW: seq is missing, for seq in
	 * [next - IX_NET_SEQ_WINDOW, next). */
	uint64_t missing[IX_NET_SEQ_WINDOW / 64];
};

enum ix_net_seq_kind {
	IX_NET_SEQ_NEW,   /* beyond the highest so far (gaps before it are lost) */
	IX_NET_SEQ_FILL,  /* late, and filled a gap */
	IX_NET_SEQ_DUP,   /* seen before */
	IX_NET_SEQ_STALE, /* later than the window: out of order, still lost */
};

void ix_net_seq_init(struct ix_net_seq *q);
/* Open the measured window: it holds the sequence numbers from the next
 * one not yet seen on. */
void ix_net_seq_open(struct ix_net_seq *q);
enum ix_net_seq_kind ix_net_seq_add(struct ix_net_seq *q, uint64_t seq);
/* The sender says it sent total datagrams (0 .. total - 1): those never
 * seen at the tail are lost. */
void ix_net_seq_end(struct ix_net_seq *q, uint64_t total);

#endif
