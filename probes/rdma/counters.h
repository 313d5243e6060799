/*
 * An RDMA port's own counters (sysfs hw_counters: rdma_rxe, mlx5, ...),
 * read before and after a test so that a slow run says why: transport
 * retransmissions, sequence errors, RNR NAKs, drops. Names are the
 * driver's; a table gives the meaning of those that tell of trouble.
 */
#ifndef IX_RDMA_COUNTERS_H
#define IX_RDMA_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "probes/core/err.h"

#define IX_RDMA_MAX_COUNTERS 96
#define IX_RDMA_COUNTER_NAME 48

struct ix_rdma_counter {
	char name[IX_RDMA_COUNTER_NAME];
	uint64_t value;
};

/* A snapshot, or (ix_rdma_counters_delta) the growth between two. */
struct ix_rdma_counters {
	bool valid; /* the port has hw_counters and they were read */
	size_t n;
	struct ix_rdma_counter v[IX_RDMA_MAX_COUNTERS]; /* sorted by name */
};

/* Read root/sys/class/infiniband/DEV/ports/PORT/hw_counters ("" root: the
 * live system). A port without them leaves c->valid false and is not an
 * error; a counter that does not read as a number is left out. */
void ix_rdma_counters_read(const char *root, const char *dev, unsigned port,
			   struct ix_rdma_counters *c);
/* after - before, counter by counter (names in both; one that went down,
 * a reset, is left out). Valid when both are. */
void ix_rdma_counters_delta(const struct ix_rdma_counters *before,
			    const struct ix_rdma_counters *after, struct ix_rdma_counters *delta);

/* What a counter that tells of trouble means ("RNR NAKs received"), or
 * NULL for counters that only count traffic. */
const char *ix_rdma_counter_meaning(const char *name);

/* {name: value, ...}, or null when not valid. */
json_t *ix_rdma_counters_json(const struct ix_rdma_counters *c);
/* The peer's counters from its RESULT: an object of names ([a-z0-9_],
 * at most IX_RDMA_MAX_COUNTERS of them) with non-negative integers, or
 * null. Anything else is an error naming the problem. */
int ix_rdma_counters_parse(json_t *j, struct ix_rdma_counters *c, struct ix_err *err);

#endif
