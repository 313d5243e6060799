/*
 * A watchdog over one socket: a loop that blocks in recv(2) without a
 * socket timeout (SO_RCVTIMEO arms a kernel timer at every blocking
 * receive, a cost a latency probe measures) is still bounded. The loop
 * beats as each wait begins (a ping, at its send); when no beat has come
 * for the timeout, the watchdog shuts the socket down (both ways) and the
 * blocked receive returns. One thread, asleep until the next beat could be late: about one
 * wake-up per timeout.
 */
#ifndef IX_NET_WATCHDOG_H
#define IX_NET_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/core/err.h"

struct ix_watchdog;

/* Watch fd from now on (the first beat is now). -1 with err when its
 * thread cannot start. */
int ix_watchdog_start(struct ix_watchdog **out, int fd, int64_t timeout_ns, struct ix_err *err);
/* A wait the timeout bounds began at now_ns (ix_now_ns clock). */
void ix_watchdog_beat(struct ix_watchdog *w, int64_t now_ns);
/* Whether it shut the socket down: the receive that failed was late. */
bool ix_watchdog_fired(const struct ix_watchdog *w);
/* Stop and free it (NULL: nothing); the socket is left as it is. */
void ix_watchdog_stop(struct ix_watchdog *w);

#endif
