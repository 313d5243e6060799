#include "config.h"

#include <inttypes.h>

#include "probes/agent/slots.h"
#include "probes/net/net.h"

/* Caller holds a->lock. */
static int mem_fits(const struct ix_agent *a, uint64_t held, uint64_t more, struct ix_err *err)
{
	const struct ix_agent_config *c = &a->cfg;

	if (c->max_test_mem && held + more > c->max_test_mem)
		return ix_fail(err, IX_EXIT_FAIL,
			       "test needs %" PRIu64 " MiB of buffers, over this server's limit "
			       "of %" PRIu64 " MiB per test (fewer streams or smaller messages)",
			       (held + more) >> 20, c->max_test_mem >> 20);
	if (c->max_mem && held + more > c->max_mem)
		return ix_fail(err, IX_EXIT_FAIL,
			       "test needs %" PRIu64 " MiB of buffers, over this server's limit "
			       "of %" PRIu64 " MiB for all tests together",
			       (held + more) >> 20, c->max_mem >> 20);
	if (c->max_mem && a->mem_in_use + more > c->max_mem)
		return ix_fail(err, IX_EXIT_FAIL,
			       "server busy: the running tests hold %" PRIu64 " MiB of buffers "
			       "and this one needs %" PRIu64 " MiB (limit %" PRIu64 " MiB)",
			       a->mem_in_use >> 20, (held + more) >> 20, c->max_mem >> 20);
	return 0;
}

static uint32_t tests_from(const struct ix_agent *a, const struct sockaddr_storage *from)
{
	uint32_t n = 0;

	for (const struct ix_agent_slot *o = a->slots; o; o = o->next)
		if (ix_net_same_source(&o->from, from))
			n++;
	return n;
}

int ix_agent_slot_claim(struct ix_agent *a, struct ix_agent_slot *s,
			const struct sockaddr_storage *from, uint64_t mem, struct ix_err *err)
{
	const struct ix_agent_config *c = &a->cfg;
	enum ix_agent_refusal why = IX_AGENT_REFUSE_MEMORY;
	int rc = 0;

	s->held = false;
	s->mem = 0;
	s->from = *from;
	pthread_mutex_lock(&a->lock);
	if (c->max_tests && a->active_tests >= c->max_tests) {
		why = IX_AGENT_REFUSE_TESTS;
		rc = ix_fail(err, IX_EXIT_FAIL, "server busy: %u tests already running",
			     c->max_tests);
	} else if (c->max_tests_per_addr && !ix_net_is_loopback(from) &&
		   tests_from(a, from) >= c->max_tests_per_addr) {
		why = IX_AGENT_REFUSE_ADDRESS;
		rc = ix_fail(err, IX_EXIT_FAIL,
			     "server busy: this address already runs %u tests, the most one "
			     "address may run at once",
			     c->max_tests_per_addr);
	} else {
		rc = mem_fits(a, 0, mem, err);
	}
	if (rc == 0) {
		a->active_tests++;
		a->mem_in_use += mem;
		s->mem = mem;
		s->held = true;
		s->next = a->slots;
		a->slots = s;
	} else {
		a->refused++;
		a->refused_by[why]++;
	}
	pthread_mutex_unlock(&a->lock);
	return rc;
}

int ix_agent_slot_grow(struct ix_agent *a, struct ix_agent_slot *s, uint64_t mem,
		       struct ix_err *err)
{
	int rc;

	if (!s->held)
		return ix_fail(err, IX_EXIT_FAIL, "internal error: no test slot held");
	pthread_mutex_lock(&a->lock);
	rc = mem_fits(a, s->mem, mem, err);
	if (rc == 0) {
		a->mem_in_use += mem;
		s->mem += mem;
	} else {
		a->refused++;
		a->refused_by[IX_AGENT_REFUSE_MEMORY]++;
	}
	pthread_mutex_unlock(&a->lock);
	return rc;
}

int ix_agent_slot_charge(void *arg, uint64_t bytes, struct ix_err *err)
{
	struct ix_agent_charge *c = arg;

	return ix_agent_slot_grow(c->a, c->slot, bytes, err);
}

void ix_agent_slot_release(struct ix_agent *a, struct ix_agent_slot *s)
{
	if (!s->held)
		return;
	pthread_mutex_lock(&a->lock);
	for (struct ix_agent_slot **pp = &a->slots; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	a->active_tests--;
	a->mem_in_use -= s->mem;
	a->tests_run++;
	s->held = false;
	pthread_mutex_unlock(&a->lock);
}
