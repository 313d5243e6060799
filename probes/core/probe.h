/*
 * Probe parameters and result structs. Probes fill these and never print;
 * every renderer (text, JSON, later HTML, ncurses, HTTP) reads them.
 *
 * Optional figures carry a valid bit: "0" and "not measured" differ, and
 * JSON shows the latter as null.
 */
#ifndef IX_PROBE_H
#define IX_PROBE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/counters.h"
#include "probes/core/err.h"
#include "probes/core/stats.h"
#include "probes/core/wirefig.h"

#define IX_MAX_STREAMS 128
#define IX_MAX_FANIN   1024 /* senders of one incast */
#define IX_CC_NAME_MAX 16

struct ix_opt_u64 {
	bool valid;
	uint64_t v;
};

struct ix_opt_f64 {
	bool valid;
	double v;
};

static inline struct ix_opt_u64 ix_u64(uint64_t v)
{
	return (struct ix_opt_u64){ true, v };
}

static inline struct ix_opt_f64 ix_f64(double v)
{
	return (struct ix_opt_f64){ true, v };
}

enum ix_dir {
	IX_DIR_FORWARD = 0, /* client sends, server receives */
	IX_DIR_REVERSE = 1, /* server sends, client receives */
};

enum ix_mode {
	IX_MODE_FORWARD = 0,
	IX_MODE_REVERSE,
	IX_MODE_BIDIR,
};

/* What one bandwidth test is asked to do; travels in the TEST request. */
struct ix_bw_params {
	const char *path;  /* transport name: "tcp", "udp" */
	uint64_t msg_size; /* bytes per send call / datagram */
	uint32_t streams;  /* parallel streams per direction */
	enum ix_mode mode;
	double duration_s;               /* measured seconds (0 when bytes is set) */
	uint64_t bytes;                  /* total bytes per direction, 0 = by duration */
	double warmup_s;                 /* excluded from figures */
	double interval_s;               /* interval reports, 0 = none */
	char congestion[IX_CC_NAME_MAX]; /* "" = system default */
	uint64_t rate_bps;               /* UDP target per stream in bit/s; TCP cap, 0 = none */
	uint64_t window;                 /* socket buffer size, 0 = system default */
	bool no_offload;                 /* UDP: no GSO/GRO, batched calls only */
	bool zerocopy;                   /* TCP senders: MSG_ZEROCOPY */
	/* The client's end of stream i binds port src_port + i (UDP: the
	 * server's end too), so that a flow's 5-tuple is known and the same
	 * in every test; 0: ports the kernel picks. */
	uint16_t src_port;
	/* TCP: the data threads each end runs per direction, streams spread
	 * over them; 0: each end's own choice (ix_bw_threads). */
	uint32_t threads;
};

struct ix_lat_params {
	const char *path;
	uint64_t msg_size;
	uint64_t iters; /* 0 = by duration */
	double duration_s;
	double warmup_s;
	bool busy_poll;
	double timeout_s; /* UDP: a reply later than this counts as lost */
};

/* Synchronised reads (incast): the receiver asks every sender for sru
 * bytes at once, waits for all of them, and repeats. */
struct ix_read_params {
	const char *path;       /* a transport with IX_CAP_BLOCKS */
	uint64_t sru;           /* bytes per sender per round */
	uint32_t rounds;        /* measured rounds */
	uint32_t warmup_rounds; /* rounds before them, not measured */
	double timeout_s;       /* a round slower than this fails the test */
	/* Not on the wire: the caller's bounds on the whole run. */
	int64_t deadline_ns; /* CLOCK_MONOTONIC, 0 = none */
	atomic_int *stop;    /* set: end now; NULL = none */
};

#define IX_RTO_MIN_NS        (200 * 1000000ull) /* Linux's minimum TCP RTO */
#define IX_SLOW_ROUND_FACTOR 5                  /* "far slower than the median"... */
#define IX_SLOW_ROUND_MIN_NS 1000000ull         /* ...and a millisecond at least */

/* What one synchronised-read run measured, at the receiver. */
struct ix_read_figures {
	bool complete;
	char error[IX_ERR_MAX];
	uint32_t senders;
	uint64_t rounds; /* measured rounds completed */
	uint64_t bytes;  /* received in them */
	double seconds;  /* their total time */
	double goodput_bps;
	struct ix_lat_stats round; /* round completion times, ns */
	uint64_t rto_rounds;       /* rounds of IX_RTO_MIN_NS or more */
	uint64_t slow_rounds; /* over IX_SLOW_ROUND_FACTOR x the median and IX_SLOW_ROUND_MIN_NS */
	uint64_t stalled_rounds;       /* either of the two */
	struct ix_opt_u64 retransmits; /* all senders, from their TCP_INFO */
	/* Fabric counters over the rounds: summed over the senders, and at
	 * the receiver; counters is false when neither end read any. */
	bool counters;
	struct ix_ctr_sum at_senders, at_receiver;
};

/* The PCIe link of the NIC an interface belongs to. */
struct ix_link_pcie {
	bool known;
	char bdf[20];
	int gen, width;                   /* as trained */
	int expected_gen, expected_width; /* the lower of both ends' capabilities */
	double bps;                       /* per direction, after line encoding */
	bool downtrained;                 /* below what both ends support */
};

/* The switch port at the far end of a link, as the switch announces it
 * (LLDP through lldpd). source "" when nothing is known. */
struct ix_neighbor {
	char source[8];   /* "lldp", or "ib" (a subnet's switch, chassis "ib 0xGUID") */
	char chassis[80]; /* the chassis ID as announced ("mac 02:bd:..", "local leaf-a") */
	char name[64];    /* the system name, "" when not announced */
	char port[64];    /* the port's description, else its ID */
};

/* The local interface a test's traffic leaves by and its rate: what a
 * goodput is measured against. */
struct ix_link_limit {
	char iface[64];  /* "" when not looked up or no interface routes there */
	double bps;      /* 0 when unknown (loopback, no speed reported) */
	char source[32]; /* "ethtool speed", "infiniband rate" or "unknown" */
	struct ix_link_pcie pcie;
	/* The GPU's PCIe link when the test's buffers are in its memory
	 * (GPUDirect RDMA); known false otherwise. */
	struct ix_link_pcie gpu;
	/* The path's physical ceiling: the lowest of the link's rate, its
	 * NIC's PCIe link and the GPU's; 0 when none is known. bottleneck
	 * names it: "link", "pcie" or "gpu" ("" when unknown). */
	double ceiling_bps;
	char bottleneck[8];
	/* The switch port it is cabled to, where the host knows it. */
	struct ix_neighbor neighbor;
	/* An InfiniBand port's GUID (the low half of its GID 0), which ties
	 * the host to its adapter in the subnet; 0 when not InfiniBand. */
	uint64_t port_guid;
};

/* CPU time consumed by one end of a test. */
struct ix_cpu {
	bool valid;
	uint32_t threads; /* the data threads counted (0: not known) */
	double user_s;
	double system_s;
	double wall_s;
};

/* Figures of one end of one stream. Which are valid depends on the
 * transport's capability bits (see transport.h). */
/* A TCP sender with --zerocopy: what MSG_ZEROCOPY did, over the whole
 * stream (warm-up included). Completions the kernel marks as copied went
 * by copy after all (loopback, veth, a device without scatter-gather). */
struct ix_zerocopy {
	bool asked;
	bool used;          /* SO_ZEROCOPY granted, and still on at the end */
	uint64_t sends;     /* send calls with MSG_ZEROCOPY */
	uint64_t completed; /* of them, those whose completion came */
	uint64_t copied;    /* of the completed, those the kernel copied */
	uint64_t waits;     /* sends refused for pinned pages (ENOBUFS) */
	char why[48];       /* not used, or stopped: why */
};

struct ix_stream_end {
	bool valid;
	uint64_t bytes;                 /* payload bytes in the measured window */
	double seconds;                 /* length of the measured window */
	struct ix_opt_u64 packets;      /* datagrams sent or received */
	struct ix_opt_u64 lost;         /* receiver: datagrams never seen */
	struct ix_opt_u64 out_of_order; /* receiver */
	struct ix_opt_u64 duplicates;   /* receiver: a sequence number seen again */
	struct ix_opt_f64 jitter_ns;    /* receiver, RFC 3550 */
	struct ix_opt_u64 retransmits;  /* sender, TCP_INFO */
	struct ix_opt_u64 rtt_us;       /* sender, TCP_INFO smoothed RTT */
	struct ix_opt_u64 rttvar_us;
	struct ix_opt_u64 cwnd_bytes;
	/* Socket buffer at the end of the test: SO_SNDBUF on a sender,
	 * SO_RCVBUF on a receiver, as getsockopt reports it (Linux: twice the
	 * usable size). With --window, the size the kernel granted. */
	struct ix_opt_u64 sock_buffer;
	/* UDP: how the datagrams went through the kernel ("gso", "gro",
	 * "mmsg"; "" on other paths) and the most one call carried. */
	char io[8];
	uint32_t io_batch;
	struct ix_zerocopy zerocopy; /* TCP sender: asked is false without --zerocopy */
};

struct ix_stream_result {
	uint32_t id;
	enum ix_dir dir;
	/* The client's: its data socket's local and peer ports (0: not
	 * known), what makes the stream's 5-tuple. */
	uint16_t local_port, remote_port;
	struct ix_stream_end sender;
	struct ix_stream_end receiver;
};

/* One interval of one stream, from whichever end saw it. */
struct ix_interval_stream {
	bool have_rx, have_tx;
	uint64_t rx_bytes;
	uint64_t tx_bytes;
	struct ix_opt_u64 retransmits; /* during the interval */
	struct ix_opt_u64 rtt_us;
	struct ix_opt_u64 cwnd_bytes;
	struct ix_opt_u64 lost; /* during the interval */
};

struct ix_interval {
	double start_s, end_s; /* relative to the start of the test */
	bool warmup;
	uint32_t nstreams;
	struct ix_interval_stream *streams; /* nstreams entries */
};

struct ix_bw_result {
	struct ix_bw_params params;
	char path[16];
	char congestion_used[IX_CC_NAME_MAX];
	bool complete;          /* false when the test ended early */
	char error[IX_ERR_MAX]; /* why it is incomplete */
	uint32_t nstreams;      /* total, both directions */
	struct ix_stream_result *streams;
	size_t nintervals, cap_intervals;
	struct ix_interval *intervals;
	struct ix_cpu cpu_local, cpu_remote;
	char remote_host[256];
	char remote_version[32];          /* the agent's ixperf version */
	struct ix_wire_figures wire;      /* a capture attached (--capture); present bit */
	struct ix_link_limit link;        /* client side, toward the server; iface "" = not known */
	struct ix_link_limit link_remote; /* the server's, toward the client (its RESULT) */
	/* Fabric counters that moved during the test at this end and at the
	 * server's (probes/core/counters.h); invalid when not read. */
	struct ix_ctr_set ctr_local, ctr_remote;
};

struct ix_lat_result {
	struct ix_lat_params params;
	char path[16];
	bool complete;
	char error[IX_ERR_MAX];
	uint64_t lost;             /* UDP replies that never came */
	double seconds;            /* measured wall time */
	struct ix_samples samples; /* one-way (RTT/2) in ns */
	struct ix_lat_stats stats; /* computed from samples */
	struct ix_cpu cpu_local, cpu_remote;
	char remote_host[256];
	char remote_version[32];                 /* the agent's ixperf version */
	struct ix_wire_figures wire;             /* a capture attached (--capture); present bit */
	struct ix_ctr_set ctr_local, ctr_remote; /* as in ix_bw_result */
};

void ix_bw_result_init(struct ix_bw_result *r, const struct ix_bw_params *p);
void ix_bw_result_free(struct ix_bw_result *r);
/* Interval k, grown on demand; NULL on allocation failure. */
struct ix_interval *ix_bw_result_interval(struct ix_bw_result *r, size_t k);
/* Sum of one direction over all streams (receiver figures). */
struct ix_dir_summary {
	bool present;
	uint64_t bytes;
	double seconds;
	double bits_per_second;
	struct ix_opt_u64 retransmits;
	struct ix_opt_u64 packets_sent;
	struct ix_opt_u64 packets_received;
	struct ix_opt_u64 lost;
	struct ix_opt_f64 loss_percent;
	struct ix_opt_u64 out_of_order;
	struct ix_opt_u64 duplicates;
	struct ix_opt_f64 jitter_ns;
	double sender_bits_per_second;
};
void ix_bw_summarize(const struct ix_bw_result *r, enum ix_dir dir, struct ix_dir_summary *s);
/* CPU seconds one end (c: r->cpu_local or r->cpu_remote) spent per GB
 * (1e9 bytes) of payload received, both directions together: its CPU time
 * pro rata of the measured window over the whole test, over the bytes of
 * that window. -1 when either is unknown. */
double ix_bw_cpu_per_gb(const struct ix_bw_result *r, const struct ix_cpu *c);

/* With --window: the smallest socket buffer the kernel granted to the ends
 * that report one (not valid without --window or without any report). */
static inline struct ix_opt_u64 ix_bw_window_granted(const struct ix_bw_result *r)
{
	struct ix_opt_u64 g = { false, 0 };

	for (uint32_t i = 0; r->params.window && i < r->nstreams; i++) {
		const struct ix_stream_end *e[2] = { &r->streams[i].sender,
						     &r->streams[i].receiver };
		for (int k = 0; k < 2; k++)
			if (e[k]->valid && e[k]->sock_buffer.valid &&
			    (!g.valid || e[k]->sock_buffer.v < g.v))
				g = e[k]->sock_buffer;
	}
	return g;
}

void ix_lat_result_init(struct ix_lat_result *r, const struct ix_lat_params *p);
void ix_lat_result_free(struct ix_lat_result *r);

const char *ix_dir_name(enum ix_dir d);
const char *ix_mode_name(enum ix_mode m);

#endif
