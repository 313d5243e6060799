/* Socket helpers: every wait is bounded by a deadline. */
#ifndef IX_NET_H
#define IX_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "probes/core/err.h"

#define IX_DEFAULT_PORT 5301

/* Connect a TCP or UDP (type SOCK_STREAM / SOCK_DGRAM) socket to host:port,
 * trying each address; bind to bind_addr when not NULL. */
int ix_net_connect(const char *host, uint16_t port, int type, const char *bind_addr,
		   int64_t deadline_ns, struct ix_err *err);
/* Start a non-blocking TCP connect to the first address of host:port; the
 * socket becomes writable when the connect completes (check SO_ERROR). */
int ix_net_connect_start(const char *host, uint16_t port, struct ix_err *err);
/* Listening TCP socket on bind_addr (NULL = any, IPv6 dual-stack) : port. */
int ix_net_listen(const char *bind_addr, uint16_t port, int backlog, struct ix_err *err);
/* UDP socket bound to the address family of ref (a connected socket's
 * local address), on an ephemeral port; *port gets the port. */
int ix_net_udp_bind_like(int ref_fd, uint16_t *port, struct ix_err *err);
/* Read/write exactly len bytes before the deadline. */
int ix_net_read_full(int fd, void *buf, size_t len, int64_t deadline_ns, struct ix_err *err);
int ix_net_write_full(int fd, const void *buf, size_t len, int64_t deadline_ns, struct ix_err *err);
int ix_net_set_nonblock(int fd, int on);
/* Raise the open-file limit to the hard limit (many agents, many sockets). */
void ix_net_raise_nofile(void);
/* SO_SNDBUF and SO_RCVBUF (the kernel doubles and caps them). */
void ix_net_set_buffers(int fd, uint64_t bytes);
/* SO_SNDTIMEO and SO_RCVTIMEO, so blocking data loops can check stop flags. */
int ix_net_set_timeouts(int fd, int ms);
/* Printable address of a socket's peer ("[::1]:5301"). */
void ix_net_peer_name(int fd, char *buf, size_t len);
uint16_t ix_net_local_port(int fd);
/* The peer's address of a connected socket; -1 when unknown. */
int ix_net_peer_addr(int fd, struct sockaddr_storage *ss);
/* Same host address (ports ignored; IPv4-mapped IPv6 equals IPv4). */
bool ix_net_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

#endif
