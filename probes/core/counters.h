/*
 * Fabric counters: what the NIC, the RDMA device, the InfiniBand port and
 * the kernel counted while a test ran. One model for every source:
 *
 *   netdev        the kernel's netdev statistics (IFLA_STATS64, named as
 *                 /sys/class/net/IF/statistics names them)
 *   ethtool       ETHTOOL_GSTATS, named as the driver names them
 *   qdisc         the interface's root qdisc (drops of a shaper)
 *   hw_counters   /sys/class/infiniband/DEV/ports/N/hw_counters
 *   port_counters /sys/class/infiniband/DEV/ports/N/counters (IB PMA,
 *                 extended 64-bit where the driver gives them)
 *
 * A snapshot holds every counter read; a delta keeps only the counters
 * that tell of trouble (a class other than IX_CC_NONE) and that moved. A
 * table maps the names of rdma_rxe, mlx5 (InfiniBand and RoCE), bnxt_re
 * and bnxt_en, irdma and ice to classes; other names fall back to what
 * their words say ("drop", "discard", "pause", "err"...).
 */
#ifndef IX_COUNTERS_H
#define IX_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "probes/core/err.h"

#define IX_CTR_NAME_MAX  64   /* a counter's name, NUL included */
#define IX_CTR_MAX       8192 /* counters a snapshot keeps */
#define IX_CTR_MOVED_MAX 256  /* counters a delta (and its JSON) keeps */

enum ix_ctr_source {
	IX_SRC_NETDEV,
	IX_SRC_ETHTOOL,
	IX_SRC_QDISC,
	IX_SRC_HW,
	IX_SRC_PORT,
	IX_SRC_N,
};

/* What a counter tells of. The order is the order of sentences. */
enum ix_ctr_class {
	IX_CC_NONE, /* traffic, or nothing known */
	IX_CC_DISCARD,
	IX_CC_PAUSE_RX, /* pause frames received, link-level or per priority */
	IX_CC_PAUSE_TX,
	IX_CC_ECN,         /* ECN-marked packets */
	IX_CC_CNP_SENT,    /* congestion notifications sent (congestion seen here) */
	IX_CC_CNP_HANDLED, /* congestion notifications handled (the peer saw it) */
	IX_CC_RETRANS,     /* transport retransmissions and ACK timeouts */
	IX_CC_SEQ_ERR,     /* out-of-sequence packets, sequence-error NAKs */
	IX_CC_RNR,         /* receiver-not-ready NAKs */
	IX_CC_XMIT_WAIT,   /* IB: ticks the port had data and no credit */
	IX_CC_ERROR,       /* CRC, symbol and receive errors */
	IX_CC_LINK,        /* link downs and link error recoveries */
	IX_CC_PAUSE_TIME,  /* time spent paused (microseconds, driver units) */
	IX_CC_N,
};

struct ix_ctr {
	char name[IX_CTR_NAME_MAX];
	uint8_t source; /* enum ix_ctr_source */
	uint8_t cls;    /* enum ix_ctr_class */
	uint64_t value;
};

/* A snapshot, or the counters that moved between two. */
struct ix_ctr_set {
	bool valid;       /* something was read (a delta: both snapshots were) */
	char iface[32];   /* network device read, "" none */
	char rdma[72];    /* RDMA port read, "mlx5_0/1"; "" none */
	uint32_t sources; /* 1 << IX_SRC_* that were read */
	bool truncated;   /* more counters than the limit: some left out */
	size_t n, cap;
	struct ix_ctr *v;
};

void ix_ctr_set_init(struct ix_ctr_set *s);
void ix_ctr_set_free(struct ix_ctr_set *s);
/* A deep copy (dst is replaced, not freed). -1: out of memory. */
int ix_ctr_set_copy(struct ix_ctr_set *dst, const struct ix_ctr_set *src);
/* Append one counter, classified by its source and name. Past
 * IX_CTR_MAX, or out of memory, the set is marked truncated and -1. */
int ix_ctr_set_add(struct ix_ctr_set *s, enum ix_ctr_source src, const char *name, uint64_t value);

/* The class of a counter: the table of known driver names first, then the
 * words of the name. */
enum ix_ctr_class ix_ctr_classify(enum ix_ctr_source src, const char *name);

/* after - before: the counters of a class other than IX_CC_NONE found in
 * both (same source and name) that grew. One that went down (a reset) is
 * left out. moved is replaced; it is valid when both snapshots are.
 * Returns the number of counters that moved, -1 when out of memory. */
int ix_ctr_delta(const struct ix_ctr_set *before, const struct ix_ctr_set *after,
		 struct ix_ctr_set *moved);

/* Per class: the sum of its counters in each source, and the largest of
 * those sums (two sources often count the same drops: netdev rx_dropped
 * and the driver's per-queue drops). */
struct ix_ctr_sum {
	uint64_t v[IX_CC_N];
	uint32_t has; /* 1 << class of the classes some counter moved in */
};
void ix_ctr_summarize(const struct ix_ctr_set *s, struct ix_ctr_sum *sum);
/* Add b into a, class by class (two hosts, two ends). */
void ix_ctr_sum_add(struct ix_ctr_sum *a, const struct ix_ctr_sum *b);

/* "1520 drops, 40 pause frames received": the classes that moved, in
 * class order; "" when none did. Returns the length written. */
size_t ix_ctr_sum_sentence(const struct ix_ctr_sum *s, char *buf, size_t len);
/* {class: n, ...} of the classes that moved. */
json_t *ix_ctr_sum_json(const struct ix_ctr_sum *s);
/* The reverse: class keys with non-negative integers (keys this build
 * does not know are left out); -1 when j is not such an object. */
int ix_ctr_sum_parse(json_t *j, struct ix_ctr_sum *s);

/* Pause frames either way, CNPs either way. */
uint64_t ix_ctr_sum_pauses(const struct ix_ctr_sum *s);
uint64_t ix_ctr_sum_cnps(const struct ix_ctr_sum *s);

const char *ix_ctr_source_name(enum ix_ctr_source src); /* "ethtool" */
/* -1 when not a source's name. */
int ix_ctr_source_parse(const char *name, size_t len);
const char *ix_ctr_class_key(enum ix_ctr_class c);  /* "pause_rx" (JSON) */
const char *ix_ctr_class_text(enum ix_ctr_class c); /* "pause frames received" */

/* One clause per class that moved, most telling first: "eth0: 40 drops
 * (tbf_drops), 12 pause frames received (rx_prio3_pause, rx_prio4_pause)".
 * "" when nothing moved. Returns the length written (truncated to len). */
size_t ix_ctr_sentence(const struct ix_ctr_set *moved, char *buf, size_t len);

/* {iface, rdma, sources: [...], moved: {"source:name": n, ...},
 *  summary: {class: n, ...}, truncated}; null when not valid. */
json_t *ix_ctr_json(const struct ix_ctr_set *moved);
/* The reverse, from a peer: null or absent leaves s invalid; anything
 * malformed (unknown source, a name that is not printable, more than
 * IX_CTR_MOVED_MAX counters, a negative count) is an error naming it.
 * Classes are found again from the names. s is replaced. */
int ix_ctr_parse(json_t *j, struct ix_ctr_set *s, struct ix_err *err);

#endif
