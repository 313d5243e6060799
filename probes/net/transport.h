/*
 * Transports: one file per path (tcp.c, udp.c; rdma.c later), registered in
 * the explicit table of transport.c. The engine asks capability bits, never
 * "is this UDP".
 */
#ifndef IX_TRANSPORT_H
#define IX_TRANSPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <jansson.h>

#include "probes/core/err.h"
#include "probes/core/probe.h"
#include "probes/core/stats.h"

/* What one stream's buffers cost at least (a receive buffer's floor). */
#define IX_STREAM_BUF_MIN (256u * 1024)

/* What a stream of msg_size messages holds in buffers. */
static inline uint64_t ix_stream_buf_bytes(uint64_t msg_size)
{
	return msg_size > IX_STREAM_BUF_MIN ? msg_size : IX_STREAM_BUF_MIN;
}

enum ix_cap {
	IX_CAP_ATTACH = 1u << 0,     /* data channel connects to the agent port (ATTACH) */
	IX_CAP_RETRANS = 1u << 1,    /* sender reports retransmits, RTT, cwnd */
	IX_CAP_DATAGRAM = 1u << 2,   /* message boundaries kept; loss, jitter, reordering */
	IX_CAP_CONGESTION = 1u << 3, /* congestion control can be chosen */
	IX_CAP_NEEDS_RATE = 1u << 4, /* sender must be paced (no flow control) */
	IX_CAP_EOF = 1u << 5,        /* the receiver sees the sender's end in band */
	IX_CAP_BLOCKS = 1u << 6,     /* serves requested blocks (synchronised reads) */
	IX_CAP_RDMA = 1u << 7,       /* the agents' RDMA devices (probes/rdma/); no socket data */
	/* Latency: ping's receive may block without a socket timeout (none
	 * costs a kernel timer per wait); the caller bounds it with a
	 * watchdog (watchdog.h). Its responder, likewise, is woken at a stop
	 * by ix_streams_stop. */
	IX_CAP_PING_BLOCKS = 1u << 8,
};

/* Counters a data thread publishes; the engine samples them for intervals. */
struct ix_counters {
	_Atomic uint64_t bytes;
	_Atomic uint64_t packets;
	_Atomic uint64_t gaps; /* datagrams missing from the sequence so far */
	_Atomic uint64_t out_of_order;
	_Atomic uint64_t duplicates; /* datagrams whose sequence number was seen before */
	_Atomic uint64_t jitter_ns;
};

struct ix_stream_group {
	struct ix_stream **s;
	uint32_t n;
};

struct ix_watchdog;

struct ix_stream {
	uint32_t id;
	enum ix_dir dir;
	bool sending; /* this end sends on this stream */
	bool echo;    /* latency responder */
	bool blocks;  /* block responder (synchronised reads) */
	int fd;
	const struct ix_transport *tp;
	uint64_t msg_size;
	uint64_t rate_bps;   /* pacing, 0 = none */
	uint64_t byte_limit; /* sender: stop after this many, 0 = none */
	int64_t t_start;     /* test start, monotonic ns */
	int64_t warm_until;  /* end of warm-up, monotonic ns */
	int64_t send_until;  /* sender deadline, 0 = by bytes */
	atomic_int *stop;    /* set to end the test early */
	/* Its loop blocks in a receive without a timeout: ix_streams_stop
	 * shuts its reading side down to wake it. Set by the loop itself,
	 * before it looks at stop once more. */
	atomic_bool wakes_by_shutdown;
	/* Latency client: the watchdog over its receive (watchdog.h), told
	 * at each ping's send, so that an echo has the timeout from its send
	 * as with a socket timeout; NULL: none. */
	struct ix_watchdog *wd;
	bool busy_poll;
	bool no_offload;   /* UDP: no GSO or GRO (the batching stays) */
	char io[8];        /* UDP: how its datagrams went ("gso", "gro", "mmsg") */
	uint32_t io_batch; /* UDP: the most datagrams one call carried */
	bool zerocopy;     /* TCP sender: MSG_ZEROCOPY */
	uint32_t threads;  /* bw: data threads per direction asked (0: automatic) */
	struct ix_zerocopy zc;
	/* The port this end's data socket binds (ix_bw_params.src_port + the
	 * stream's index; the server's end binds it on UDP only); 0: any. */
	uint16_t local_port;

	struct ix_counters c;
	/* Filled by the data thread at the warm-up boundary and at the end. */
	uint64_t warm_bytes, warm_packets, warm_retrans, warm_gaps, warm_ooo, warm_dup;
	int64_t warm_t;        /* when the measured window opened */
	int64_t last_t;        /* sender: last send; receiver: last byte */
	uint64_t peer_packets; /* UDP: datagrams the peer says it sent */
	bool have_peer_packets;
	/* Server: the address of the test's client; data from elsewhere is refused. */
	struct sockaddr_storage ctrl_peer;
	struct rusage ru; /* thread's CPU time at its end */
	bool ru_valid;
	struct ix_err err;
	bool failed;
	pthread_t thread;
	bool running;
	struct ix_stream_group *group; /* the streams its thread carries (mux) */
};

/* What a client needs to open data channels. */
struct ix_dial {
	const char *host;
	uint16_t port;
	const char *bind_addr;
	const char *cookie;
	int ctrl_fd; /* the test's control connection */
};

struct ix_transport {
	const char *name;
	const char *desc;
	unsigned caps;
	uint64_t default_msg_size, min_msg_size, max_msg_size; /* bandwidth */
	uint64_t min_lat_size; /* latency: UDP pings carry an 8-byte tag */
	uint64_t stream_mem;   /* buffers a bandwidth stream takes at least (0: none beyond
				* its messages) */
	/* Server: prepare stream s's channel; may add setup fields for the
	 * client (UDP: its port) to the object setup. */
	int (*server_open)(struct ix_stream *s, int ctrl_fd, json_t *setup, struct ix_err *err);
	/* Server: complete the channel before the deadline (TCP: socket
	 * options on the attached connection; UDP: wait for the client's
	 * first datagram carrying the cookie). */
	int (*server_accept)(struct ix_stream *s, const char *cookie, int64_t deadline,
			     struct ix_err *err);
	/* Client: open stream s from the server's setup object. */
	int (*client_open)(struct ix_stream *s, const struct ix_dial *d, json_t *setup,
			   int64_t deadline, struct ix_err *err);
	/* Socket options from the test parameters (congestion control, window). */
	int (*tune)(struct ix_stream *s, const struct ix_bw_params *p, char *cc_used, size_t cc_len,
		    struct ix_err *err);
	int (*send)(struct ix_stream *s); /* data loop until done */
	int (*recv)(struct ix_stream *s);
	/* Several unpaced bandwidth streams of one direction in one thread
	 * (NULL: a thread each); each stream's failure is its own. */
	int (*mux)(struct ix_stream **s, uint32_t n);
	int (*echo)(struct ix_stream *s); /* latency responder */
	/* Block responder: read a request (8-byte big-endian size), send that
	 * many bytes, until the peer closes. */
	int (*serve_blocks)(struct ix_stream *s);
	/* One round trip of len bytes; returns RTT in ns, 0 when lost, -1 on error. */
	int64_t (*ping)(struct ix_stream *s, uint8_t *buf, uint64_t seq, int64_t timeout_ns);
	/* Sender-side figures from the stack (TCP_INFO). */
	void (*sender_info)(struct ix_stream *s, struct ix_stream_end *e);
	/* Tell the receiver the sender is done (TCP: shutdown; UDP: end marker). */
	void (*finish)(struct ix_stream *s);
};

extern const struct ix_transport ix_tcp_transport;
extern const struct ix_transport ix_udp_transport;

const struct ix_transport *ix_transport_find(const char *name);
/* The transport named by --path (NULL = tcp); "rdma" is a descriptor with
 * IX_CAP_RDMA and no socket functions (mesh and incast hand it to their
 * agents). "pcie" and "gpu" are usage errors naming the commands that
 * measure them, as is any other name. */
int ix_path_lookup(const char *name, const struct ix_transport **tp, struct ix_err *err);

/* Helpers for data loops (engine.c). */
void ix_stream_init(struct ix_stream *s, uint32_t id, enum ix_dir dir, bool sending);
void ix_stream_mark_warm(struct ix_stream *s, int64_t now, uint64_t bytes, uint64_t packets);
/* Sleep until the pacing schedule allows more bytes; returns false on stop. */
bool ix_stream_pace(struct ix_stream *s, int64_t t0, uint64_t sent, int64_t now);
static inline bool ix_stream_stopped(const struct ix_stream *s)
{
	return atomic_load_explicit(s->stop, memory_order_relaxed) != 0;
}

/* The data threads of one direction of a bandwidth test at one end:
 * asked (--threads), else a thread per stream where the peer is this host
 * itself or the streams outnumber twice the CPUs, else at most half the
 * CPUs, each carrying several streams. */
uint32_t ix_bw_threads(uint32_t asked, uint32_t streams, int ncpus, bool same_host);
/* Run the streams' data loops: streams the transport can carry several to
 * a thread (mux: unpaced, copying bandwidth streams) go over
 * ix_bw_threads threads per direction, stream j of a direction on thread
 * j % threads; every other stream in a thread of its own. Join them. */
int ix_streams_start(struct ix_stream *s, uint32_t n, struct ix_err *err);
void ix_streams_join(struct ix_stream *s, uint32_t n);
bool ix_streams_done(struct ix_stream *s, uint32_t n);
/* Ask the streams' loops to end (s[0].stop, which they share), and wake
 * those blocked without a timeout (wakes_by_shutdown). */
void ix_streams_stop(struct ix_stream *s, uint32_t n);
/* Fill one end's figures of stream s from what its thread recorded. */
void ix_stream_end_fill(struct ix_stream *s, struct ix_stream_end *e);
/* The data threads that ran s's streams (counted once they ended). */
uint32_t ix_streams_threads(const struct ix_stream *s, uint32_t n);
void ix_streams_cpu(struct ix_stream *s, uint32_t n, int64_t wall_ns, struct ix_cpu *cpu);
/* Streams of a bandwidth test as seen from the client or the server:
 * forward streams first, then reverse ones. s has room for 2 * streams. */
void ix_bw_layout(const struct ix_bw_params *p, bool client, struct ix_stream *s, uint32_t *n);
/* What one end of a bandwidth test holds: each stream's buffers (its
 * messages, at least IX_STREAM_BUF_MIN and the transport's stream_mem) and,
 * with a window, the socket buffers it books (ix_net_window_bytes). */
uint64_t ix_bw_mem(const struct ix_bw_params *p, const struct ix_transport *tp);
/* Set start time, warm-up end and deadlines before the threads start. */
void ix_bw_arm(struct ix_stream *s, uint32_t n, const struct ix_bw_params *p,
	       const struct ix_transport *tp, atomic_int *stop, int64_t t_start);
void ix_streams_close(struct ix_stream *s, uint32_t n);

#endif
