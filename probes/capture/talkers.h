/*
 * Who talks to whom: a traffic matrix fed packet by packet by a capture
 * thread and read by a display thread. Hosts are numbered in order of
 * first appearance up to a bound; traffic of hosts past the bound goes to
 * one "other" host, so totals still add up.
 */
#ifndef IX_TALKERS_H
#define IX_TALKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

#define IX_TALKERS_MAX_HOSTS 256 /* default bound on distinct hosts */
#define IX_TALKERS_ADDR_MAX  46  /* INET6_ADDRSTRLEN */

struct ix_talkers; /* opaque; a mutex guards it */

/* max_hosts 0: IX_TALKERS_MAX_HOSTS. NULL on failure (err filled). */
struct ix_talkers *ix_talkers_new(size_t max_hosts, struct ix_err *err);
void ix_talkers_free(struct ix_talkers *t);
/* Count one packet of bytes from src to dst. family: 4 or AF_INET (the
 * address in the first 4 bytes), 6 or AF_INET6. Returns 0, or -1 for
 * another family (nothing counted). Safe from any thread. */
int ix_talkers_add(struct ix_talkers *t, int family, const uint8_t src[16], const uint8_t dst[16],
		   uint64_t bytes, int64_t now_ns);

struct ix_talkers_host {
	char addr[IX_TALKERS_ADDR_MAX]; /* inet_ntop text; "other" for the bucket */
	int family;                     /* 4 or 6; 0 for the "other" bucket */
	bool other;
	int64_t first_ns, last_ns;   /* first and last packet seen (add's now_ns) */
	uint64_t tx_bytes, rx_bytes; /* since the start, as source and as destination */
	double tx_rate, rx_rate;     /* bytes/s over the last period */
};

/* A consistent copy, taken under the lock. Matrices are n x n, row =
 * source, column = destination: bytes[s * n + d]. */
struct ix_talkers_view {
	size_t n;                      /* hosts; the "other" bucket last when it saw traffic */
	struct ix_talkers_host *hosts; /* in order of first appearance */
	uint64_t *bytes;               /* since the start */
	double *rate;                  /* bytes/s between the previous snapshot and this one */
	bool rate_known;               /* false on the first snapshot */
	double period_s;               /* length of that period */
	uint64_t packets, total_bytes; /* everything counted */
	uint64_t other_packets, other_bytes; /* of those, touching the "other" bucket */
};

/* Take a view at now_ns; the next snapshot's rates run from now_ns.
 * out is replaced, not freed. */
int ix_talkers_snapshot(struct ix_talkers *t, int64_t now_ns, struct ix_talkers_view *out,
			struct ix_err *err);
void ix_talkers_view_free(struct ix_talkers_view *v);

struct ix_talkers_pair {
	size_t src, dst; /* indexes into the view's hosts */
	uint64_t bytes;
	double rate; /* bytes/s; 0 when the view has no rate */
};

/* The pairs that exchanged traffic, busiest first (by rate, then bytes);
 * at most max of them in out. Returns how many. */
size_t ix_talkers_top(const struct ix_talkers_view *v, struct ix_talkers_pair *out, size_t max);

#endif
