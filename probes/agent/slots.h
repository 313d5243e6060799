/* Inside the agent: the test slots, the buffer memory they hold and the
 * share one address may take. Not for other subsystems. */
#ifndef IX_AGENT_SLOTS_H
#define IX_AGENT_SLOTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "probes/agent/state.h"
#include "probes/core/err.h"

/* One running test's claim; the session that holds it owns the storage. */
struct ix_agent_slot {
	struct ix_agent_slot *next;
	struct sockaddr_storage from;
	uint64_t mem;
	bool held;
};

/* A slot for a test from address from with mem bytes of buffers, within
 * every limit: tests at once, tests per source (an IPv4 address or an IPv6
 * /64; loopback is not capped: a local user could open sockets anyway),
 * memory per test and in all. -1 with err naming the limit; nothing is
 * held then. */
int ix_agent_slot_claim(struct ix_agent *a, struct ix_agent_slot *s,
			const struct sockaddr_storage *from, uint64_t mem, struct ix_err *err);
/* mem more bytes for a held slot (a test whose size is known later), with
 * the same memory limits; -1 with err, the slot still held as it was. */
int ix_agent_slot_grow(struct ix_agent *a, struct ix_agent_slot *s, uint64_t mem,
		       struct ix_err *err);
/* The claim callback of what sizes itself once parsed (an RDMA test, a
 * RUN job): arg is a struct ix_agent_charge, its slot grows by bytes. */
struct ix_agent_charge {
	struct ix_agent *a;
	struct ix_agent_slot *slot;
};
int ix_agent_slot_charge(void *arg, uint64_t bytes, struct ix_err *err);
/* Give a held slot back (nothing when it is not held). */
void ix_agent_slot_release(struct ix_agent *a, struct ix_agent_slot *s);

#endif
