/*
 * Setup of an RDMA (RC) test, everything before the first verb: which GID
 * and MTU a port uses, the test parameters both ends derive from one
 * side's options, the typed message the two ends exchange over the
 * control connection (QP numbers, PSNs, buffer address and rkey), and
 * where buffers and polling threads go (NUMA). probes/rdma/setup.c holds
 * the GID, MTU and NUMA parts, probes/rdma/setup_msg.c the parameters and
 * the message.
 *
 * Nothing here includes verbs headers: the MTU constants have the values
 * of enum ibv_mtu, capabilities come in as a plain struct. root is a
 * prefix put before every "/sys/..." path: "" (or NULL) for the live
 * system, a fixture directory in tests.
 */
#ifndef IX_RDMA_SETUP_H
#define IX_RDMA_SETUP_H

#include <jansson.h>
#include <sched.h> /* cpu_set_t: config.h, included first, asks for _GNU_SOURCE */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "probes/core/err.h"

/* ---- GIDs ---- */

#define IX_RDMA_GID_TEXT   40  /* "fe80:0000:0000:0000:0e42:a1ff:fe2b:c3d4" + NUL */
#define IX_RDMA_GID_TABLE  256 /* sgid_index is 8 bits in verbs */
#define IX_RDMA_IFNAME_MAX 32

enum ix_rdma_gid_type {
	IX_RDMA_GID_IB = 0, /* a GID of an InfiniBand port */
	IX_RDMA_GID_ROCE_V1 = 1,
	IX_RDMA_GID_ROCE_V2 = 2,
};

/* One local interface address (getifaddrs, or a fixture in tests). */
struct ix_rdma_addr {
	char ifname[IX_RDMA_IFNAME_MAX];
	struct sockaddr_storage addr; /* AF_INET or AF_INET6 */
};

/* What the user asked for; zeroed: choose. */
struct ix_rdma_gid_pref {
	bool by_index;  /* exactly GID index (--gid-index) */
	unsigned index; /* 0..255 */
	char type[4];   /* "v1", "v2" or "" (RoCE only) */
	int family;     /* AF_INET (IPv4-mapped GIDs), AF_INET6, or 0 (RoCE only) */
};

struct ix_rdma_gid {
	int index;
	uint8_t raw[16];
	char text[IX_RDMA_GID_TEXT];
	enum ix_rdma_gid_type type;
	char netdev[IX_RDMA_IFNAME_MAX]; /* RoCE: the GID's network device */
	bool infiniband;                 /* the port's link layer */
	uint16_t lid;                    /* InfiniBand: the port's LID (never 0) */
	char reason[256];                /* why this GID, one line */
};

/* The GID this end uses on DEV port PORT. local is the local address of
 * the control connection (the one that routes to the peer) or NULL;
 * addrs/naddrs the host's interface addresses (ix_rdma_addrs_read);
 * pref may be NULL. InfiniBand: GID index 0 (or the asked one), and the
 * port must have a LID. RoCE: on the interface holding local (a VLAN
 * device when the address is on one), a v2 GID equal to local (IPv4-mapped
 * for IPv4), then any v2 GID there (same family first), then v1; never an
 * all-zero entry. Failures are IX_EXIT_UNAVAILABLE, one sentence saying
 * what to check. */
int ix_rdma_pick_gid(const char *root, const char *dev, unsigned port,
		     const struct sockaddr_storage *local, const struct ix_rdma_addr *addrs,
		     size_t naddrs, const struct ix_rdma_gid_pref *pref, struct ix_rdma_gid *out,
		     struct ix_err *err);
/* Whether pref is well formed (IX_EXIT_USAGE naming the option if not). */
int ix_rdma_gid_pref_check(const struct ix_rdma_gid_pref *pref, struct ix_err *err);
/* The interface of addrs that holds addr (an IPv4-mapped IPv6 address
 * counts as IPv4, as a dual-stack socket reports it), or NULL. */
const char *ix_rdma_addr_ifname(const struct sockaddr_storage *addr,
				const struct ix_rdma_addr *addrs, size_t naddrs);
/* The host's IPv4 and IPv6 interface addresses; *out is malloc'd. */
int ix_rdma_addrs_read(struct ix_rdma_addr **out, size_t *n, struct ix_err *err);

/* GID text as sysfs prints it: 8 groups of 4 hex digits. Parsing accepts
 * exactly that form (either case); -1 otherwise. */
void ix_rdma_gid_format(const uint8_t raw[16], char text[IX_RDMA_GID_TEXT]);
int ix_rdma_gid_parse(const char *text, uint8_t raw[16]);

/* ---- MTU ---- */

/* The values of enum ibv_mtu. */
enum ix_rdma_mtu {
	IX_RDMA_MTU_256 = 1,
	IX_RDMA_MTU_512 = 2,
	IX_RDMA_MTU_1024 = 3,
	IX_RDMA_MTU_2048 = 4,
	IX_RDMA_MTU_4096 = 5,
};

/* 256..4096 for 1..5, else -1. */
int ix_rdma_mtu_bytes(int mtu);
/* The constant for exactly 256, 512, 1024, 2048 or 4096 bytes (--mtu),
 * else -1. */
int ix_rdma_mtu_from_bytes(uint32_t bytes);
/* The active MTU of a RoCE port whose netdev has MTU netdev_mtu: the
 * kernel's iboe_get_mtu() (include/rdma/ib_addr.h), the largest IB MTU not
 * above netdev_mtu - 96 (GRH 40, UDP 8, BTH 12, XRC ETH 4, AtomicETH 28,
 * ICRC 4). 0 when the netdev MTU is below 352. */
int ix_rdma_mtu_from_netdev(uint32_t netdev_mtu);
/* The MTU a connection uses: the smaller active MTU of both ends, capped
 * by cap (0 = no cap). -1 when an argument is not a valid constant. */
int ix_rdma_path_mtu(int local_active, int peer_active, int cap);

/* ---- Test parameters ---- */

enum ix_rdma_kind { IX_RDMA_BW = 0, IX_RDMA_LAT, IX_RDMA_INCAST, IX_RDMA_MESH };
enum ix_rdma_op { IX_RDMA_OP_WRITE = 0, IX_RDMA_OP_READ, IX_RDMA_OP_SEND, IX_RDMA_OP_WRITE_IMM };
enum ix_rdma_numa_policy {
	IX_RDMA_NUMA_DEVICE = 0, /* the device's node (default) */
	IX_RDMA_NUMA_NONE,       /* no placement */
	IX_RDMA_NUMA_NODE,       /* numa_node */
};

#define IX_RDMA_MAX_QPS      256   /* per endpoint, whatever the limits say */
#define IX_RDMA_MAX_DEPTH    65536 /* work requests per queue */
#define IX_RDMA_DEF_RX_DEPTH 512   /* receives posted ahead by default (perftest's) */
#define IX_RDMA_LAT_SQ       16    /* lat: send queue slots (see ix_rdma_sq_depth) */
#define IX_RDMA_MAX_INLINE   4096  /* bytes */
#define IX_RDMA_DEF_TX_DEPTH 128   /* bw: work requests in flight per QP by default */
#define IX_RDMA_SQ_ENTRY     256   /* bytes a send queue entry takes at most, inline aside */
#define IX_RDMA_CQ_ENTRY     64    /* bytes of a completion, and of a receive queue entry */
#define IX_RDMA_MAX_MSG      (1ull << 31)
#define IX_RDMA_LAT_INLINE   220 /* default inline size of latency tests */

/*
 * What one side's options say. Start from ix_rdma_params_init: fields left
 * at 0 (inline_size and warmup_s: at -1, as 0 means none) take the defaults
 * ix_rdma_params_check fills. After the check every field is explicit and a
 * second check changes nothing; that filled struct is what travels to the
 * peer, so both ends run the same test whatever flags the server was
 * started with.
 */
struct ix_rdma_params {
	enum ix_rdma_kind kind;
	enum ix_rdma_op op;
	uint64_t msg_size;
	uint32_t qps;        /* QPs per connection; 0: 1 */
	uint32_t tx_depth;   /* send queue depth; 0: 128 (bw, incast, mesh) or 1 (lat) */
	uint32_t rx_depth;   /* receive queue depth; 0: tx_depth for send and write_imm,
			      none (0 after the check) for write and read */
	uint32_t cq_mod;     /* signal one send in cq_mod; 0: min(100, tx_depth / 2) or 1 (lat) */
	int32_t inline_size; /* -1: 0 (bw) or min(220, device max) (lat); 0 for read */
	uint32_t rd_atom;    /* read: outstanding reads per QP; 0: the device max */
	uint64_t iterations; /* > 0: this many, duration_s 0 */
	double duration_s;   /* both 0: 10 s (lat: 2 s) */
	double warmup_s;     /* < 0: 1 s (lat: 0.5 s) */
	bool bidirectional;  /* not for lat (already a ping-pong) */
	/* The GRH traffic class byte, laid out like the IP TOS / IPv6 traffic
	 * class: DSCP in the upper six bits, ECN in the lower two (DSCP 26
	 * with ECT(0) is 26 << 2 | 2 = 106). RoCE v2 copies it into the IP
	 * header, where the switches' QoS and PFC/ECN settings give it its
	 * meaning; NICs running RoCE congestion control set the ECN bits
	 * themselves, so 0 there is the usual choice. */
	uint8_t traffic_class;
	uint8_t service_level; /* 0..15: the SL (InfiniBand) or the priority (RoCE) */
	int mtu_cap;           /* 0 or an enum ix_rdma_mtu (--mtu) */
	/* Local choices, never sent: the GID (an index on this host's device)
	 * and where buffers go. */
	struct ix_rdma_gid_pref gid;
	enum ix_rdma_numa_policy numa;
	int numa_node;
	/* RoCE v2, this end's QPs: QP i's GRH flow label makes it send from
	 * UDP port sport + i where the provider derives the port from the
	 * label (0: no label set; 0xc001 to 0xffff otherwise). */
	uint16_t sport;
	/* Bandwidth: the threads this end polls its QPs from (team.h); 0:
	 * automatic. */
	uint32_t threads;
};

/* Device capabilities as ibv_query_device reports them (max_inline_data
 * as a test QP's cap reports it; 0: no inline sends). */
struct ix_rdma_caps {
	uint32_t max_qp_wr, max_sge, max_inline_data, max_qp, max_qp_rd_atom;
	uint64_t max_mr_size, max_msg_size;
};

/* Zero p, kind and op, inline_size and warmup_s at -1 (defaults). */
void ix_rdma_params_init(struct ix_rdma_params *p, enum ix_rdma_kind kind, enum ix_rdma_op op);
/* The send queue each QP gets: the tx depth; for lat, which keeps one
 * message in flight, IX_RDMA_LAT_SQ slots (any device has them), so that an
 * answer never waits for the completion of the one before it, which comes
 * with the peer's ACK. */
uint32_t ix_rdma_sq_depth(const struct ix_rdma_params *p);
/* Bytes of buffer one end registers for p (write latency keeps two). */
uint64_t ix_rdma_buffer_bytes(const struct ix_rdma_params *p);
/* Bytes the queues of one end take at most for p: its QPs' send and
 * receive queues and the completion queue, sized as providers size them
 * (rounded up to a power of two; a send entry up to IX_RDMA_SQ_ENTRY bytes
 * and its inline data, a receive entry and a completion IX_RDMA_CQ_ENTRY).
 * Depths still 0 count as the defaults ix_rdma_params_check gives. */
uint64_t ix_rdma_queue_bytes(const struct ix_rdma_params *p);
/* Fill defaults and check p against the options' rules and this device's
 * capabilities; IX_EXIT_USAGE with one sentence naming the option. A
 * default never exceeds the device; values that came from the peer are
 * explicit and refused when this device cannot run them. */
int ix_rdma_params_check(struct ix_rdma_params *p, const struct ix_rdma_caps *caps,
			 struct ix_err *err);
const char *ix_rdma_op_name(enum ix_rdma_op op);
const char *ix_rdma_kind_name(enum ix_rdma_kind k);
/* -1 for an unknown name. */
int ix_rdma_op_parse(const char *name);
int ix_rdma_kind_parse(const char *name);

/* ---- The setup message ---- */

/* What the receiver of a setup message accepts; 0 fields: the defaults. */
struct ix_rdma_limits {
	uint32_t max_qps;      /* 0: IX_RDMA_MAX_QPS (and never above it) */
	uint64_t max_buffer;   /* bytes of the peer's buffer; 0: 1 GiB */
	double max_duration_s; /* 0: 86400 */
};

struct ix_rdma_qp_id {
	uint32_t qpn; /* 24 bits, nonzero */
	uint32_t psn; /* 24 bits */
};

struct ix_rdma_endpoint {
	bool infiniband; /* link layer; false: Ethernet (RoCE) */
	uint16_t lid;    /* InfiniBand: 1..0xbfff; RoCE: 0 */
	uint8_t gid[16];
	int gid_index; /* 0..255 */
	int mtu;       /* the sender's active MTU, enum ix_rdma_mtu */
	uint32_t nqps; /* == params.qps */
	struct ix_rdma_qp_id qps[IX_RDMA_MAX_QPS];
	uint64_t buf_addr; /* sent as "0x..." text: JSON integers are signed */
	uint32_t rkey;
	uint64_t buf_len;
	int numa_node; /* -1: not known or not sent */
	struct ix_rdma_params params;
};

json_t *ix_rdma_setup_json(const struct ix_rdma_endpoint *e);
/* Decode and range-check a peer's setup message; errors (IX_EXIT_USAGE)
 * name the field. Unknown members are ignored. */
int ix_rdma_setup_parse(json_t *j, const struct ix_rdma_limits *lim, struct ix_rdma_endpoint *e,
			struct ix_err *err);
/* The filled parameters (after ix_rdma_params_check) and back. The parse
 * refuses what a check could not have produced; the receiver then runs
 * ix_rdma_params_check against its own device. */
json_t *ix_rdma_params_json(const struct ix_rdma_params *p);
int ix_rdma_params_parse(json_t *j, const struct ix_rdma_limits *lim, struct ix_rdma_params *p,
			 struct ix_err *err);

/* ---- NUMA ---- */

/* The NUMA node of an RDMA device (ROOT/sys/class/infiniband/DEV/device/
 * numa_node); -1 when unknown. */
int ix_rdma_numa_of(const char *root, const char *dev);
/* A kernel CPU list ("0-3,8-11"; "" is empty) into out; the number of CPUs,
 * or -1 when malformed or a CPU is >= CPU_SETSIZE. */
int ix_rdma_parse_cpulist(const char *s, cpu_set_t *out);
/* The CPUs of ROOT/sys/devices/system/node/nodeN/cpulist; their number or
 * -1 (IX_EXIT_UNAVAILABLE). */
int ix_rdma_cpus_of_node(const char *root, int node, cpu_set_t *out, struct ix_err *err);

struct ix_rdma_placement {
	int node;       /* -1: no placement */
	cpu_set_t cpus; /* of node; empty when none */
	int ncpus;
	char reason[256]; /* "buffers and CPUs on NUMA node 1 (mlx5_2's node)" */
};

/* Where buffers and polling threads go under policy (node for
 * IX_RDMA_NUMA_NODE). An unknown device node is no error (no placement);
 * an asked node without CPUs is (IX_EXIT_UNAVAILABLE). */
int ix_rdma_placement(const char *root, const char *dev, enum ix_rdma_numa_policy policy, int node,
		      struct ix_rdma_placement *out, struct ix_err *err);

#endif
