/*
 * Zero-copy TCP sends (MSG_ZEROCOPY): the kernel sends from the caller's
 * pages instead of copying them, and tells the socket's error queue when
 * it is done with them, a range of send calls at a time. A send that
 * cannot go from user pages (loopback and veth deliver by copy, a device
 * without scatter-gather) is copied and its completion says so.
 *
 * The data loop's buffer holds a fixed pattern it never writes again, so
 * one buffer serves every send in flight; completions are reaped to bound
 * the pinned pages and the notifications the socket holds (optmem), and
 * counted so that the result says what the kernel did.
 */
#ifndef IX_ZCOPY_H
#define IX_ZCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "probes/core/probe.h"

#define IX_ZC_INFLIGHT 64 /* reap without waiting once this many sends are open */

struct ix_zc {
	int fd;
	struct ix_zerocopy st; /* asked, used, sends, completed, copied, waits, why */
};

/* Ask for SO_ZEROCOPY on connected TCP socket fd. A kernel without it
 * leaves z->st.used false with the reason in z->st.why; not an error. */
void ix_zc_open(struct ix_zc *z, int fd);
/* send(2) of len bytes, with MSG_ZEROCOPY while it is in use, reaping
 * completions once IX_ZC_INFLIGHT sends are open. When the kernel
 * refuses more pinned pages (ENOBUFS), waits up to 100 ms for some and
 * returns -1 with EAGAIN, for the caller's loop to look at its clock and
 * try again; with none in flight it copies from then on (why says so).
 * Otherwise returns what send returns. */
ssize_t ix_zc_send(struct ix_zc *z, const void *buf, size_t len, int flags);
/* Read the completions queued now, waiting up to timeout_ms for the
 * first; returns how many send calls they covered, -1 with errno (also
 * when the socket failed with none queued). */
int ix_zc_reap(struct ix_zc *z, int timeout_ms);
/* Wait until every send has completed or deadline (monotonic ns)
 * passes; true when all have. */
bool ix_zc_drain(struct ix_zc *z, int64_t deadline);

/* A sender's figures as JSON, {used, sends, completed, copied, waits,
 * reason}: one form for the wire and for results. Parse refuses counts
 * that do not add up (completed above sends, copied above completed),
 * leaving z zeroed. */
json_t *ix_zc_json(const struct ix_zerocopy *z);
int ix_zc_parse(json_t *j, struct ix_zerocopy *z);

#endif
