/* The agent's test slots: tests at once, per address, and buffer memory. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/agent/slots.h"

static struct ix_agent agent(uint32_t tests, uint32_t per_addr, uint64_t test_mem, uint64_t mem)
{
	struct ix_agent a;

	memset(&a, 0, sizeof(a));
	pthread_mutex_init(&a.lock, NULL);
	pthread_cond_init(&a.cond, NULL);
	a.cfg.max_tests = tests;
	a.cfg.max_tests_per_addr = per_addr;
	a.cfg.max_test_mem = test_mem;
	a.cfg.max_mem = mem;
	return a;
}

static struct sockaddr_storage v4(const char *ip)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof(ss));
	in->sin_family = AF_INET;
	cr_assert_eq(inet_pton(AF_INET, ip, &in->sin_addr), 1);
	return ss;
}

Test(slots, one_address_cannot_take_every_test)
{
	struct ix_agent a = agent(4, 2, 0, 0);
	struct sockaddr_storage x = v4("192.0.2.1"), y = v4("192.0.2.2");
	struct ix_agent_slot s[4];
	struct ix_err err = { 0 };

	cr_assert_eq(ix_agent_slot_claim(&a, &s[0], &x, 0, &err), 0);
	cr_assert_eq(ix_agent_slot_claim(&a, &s[1], &x, 0, &err), 0);
	cr_assert_eq(ix_agent_slot_claim(&a, &s[2], &x, 0, &err), -1);
	cr_assert(strstr(err.msg, "this address already runs 2 tests"), "%s", err.msg);
	cr_assert_not(s[2].held);
	/* Another address still gets its share. */
	cr_assert_eq(ix_agent_slot_claim(&a, &s[2], &y, 0, &err), 0);
	ix_agent_slot_release(&a, &s[0]);
	cr_assert_eq(ix_agent_slot_claim(&a, &s[0], &x, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(a.active_tests, 3);
	cr_assert_eq(a.refused, 1);
	cr_assert_eq(a.refused_by[IX_AGENT_REFUSE_ADDRESS], 1);
	for (int i = 0; i < 3; i++)
		ix_agent_slot_release(&a, &s[i]);
	cr_assert_eq(a.active_tests, 0);
	cr_assert_null(a.slots);
	cr_assert_eq(a.tests_run, 4);
}

Test(slots, loopback_is_capped_only_by_the_total)
{
	struct ix_agent a = agent(3, 1, 0, 0);
	struct sockaddr_storage lo = v4("127.0.0.1");
	struct ix_agent_slot s[4];
	struct ix_err err = { 0 };

	for (int i = 0; i < 3; i++)
		cr_assert_eq(ix_agent_slot_claim(&a, &s[i], &lo, 0, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_agent_slot_claim(&a, &s[3], &lo, 0, &err), -1);
	cr_assert(strstr(err.msg, "3 tests already running"), "%s", err.msg);
	cr_assert_eq(a.refused_by[IX_AGENT_REFUSE_TESTS], 1);
	cr_assert_eq(a.refused_by[IX_AGENT_REFUSE_ADDRESS], 0);
	for (int i = 0; i < 3; i++)
		ix_agent_slot_release(&a, &s[i]);
}

Test(slots, memory_per_test_and_in_all)
{
	struct ix_agent a = agent(8, 0, 100 << 20, 150 << 20);
	struct sockaddr_storage x = v4("192.0.2.1");
	struct ix_agent_slot s[3];
	struct ix_err err = { 0 };

	cr_assert_eq(ix_agent_slot_claim(&a, &s[0], &x, 101 << 20, &err), -1);
	cr_assert(strstr(err.msg, "101 MiB of buffers, over this server's limit of 100 MiB"), "%s",
		  err.msg);
	cr_assert_eq(ix_agent_slot_claim(&a, &s[0], &x, 100 << 20, &err), 0);
	cr_assert_eq(ix_agent_slot_claim(&a, &s[1], &x, 60 << 20, &err), -1);
	cr_assert(strstr(err.msg, "hold 100 MiB"), "%s", err.msg);
	cr_assert_eq(a.refused_by[IX_AGENT_REFUSE_MEMORY], 2);
	cr_assert_eq(a.mem_in_use, 100 << 20);
	ix_agent_slot_release(&a, &s[0]);
	cr_assert_eq(a.mem_in_use, 0);
	/* A test over the total by itself is not told the server is busy. */
	a.cfg.max_test_mem = 0;
	cr_assert_eq(ix_agent_slot_claim(&a, &s[0], &x, 151 << 20, &err), -1);
	cr_assert(strstr(err.msg, "test needs 151 MiB of buffers, over this server's limit of "
				  "150 MiB for all tests together"),
		  "%s", err.msg);
}

/* The charge callback of RDMA tests and RUN jobs grows its slot. */
Test(slots, charge_grows_the_slot)
{
	struct ix_agent a = agent(8, 0, 0, 16 << 20);
	struct sockaddr_storage x = v4("192.0.2.1");
	struct ix_agent_slot s;
	struct ix_agent_charge c = { &a, &s };
	struct ix_err err = { 0 };

	cr_assert_eq(ix_agent_slot_claim(&a, &s, &x, 0, &err), 0);
	cr_assert_eq(ix_agent_slot_charge(&c, 12 << 20, &err), 0);
	cr_assert_eq(ix_agent_slot_charge(&c, 28 << 20, &err), -1);
	cr_assert(strstr(err.msg, "40 MiB"), "%s", err.msg);
	cr_assert_eq(a.refused_by[IX_AGENT_REFUSE_MEMORY], 1, "a refused charge is a refusal");
	cr_assert_eq(a.mem_in_use, 12 << 20);
	ix_agent_slot_release(&a, &s);
	cr_assert_eq(a.mem_in_use, 0);
}

Test(slots, a_test_sized_later_grows_within_the_limits)
{
	struct ix_agent a = agent(8, 0, 100 << 20, 0);
	struct sockaddr_storage x = v4("192.0.2.1");
	struct ix_agent_slot s;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_agent_slot_claim(&a, &s, &x, 0, &err), 0);
	cr_assert_eq(ix_agent_slot_grow(&a, &s, 64 << 20, &err), 0);
	cr_assert_eq(ix_agent_slot_grow(&a, &s, 64 << 20, &err), -1);
	cr_assert(strstr(err.msg, "128 MiB of buffers"), "%s", err.msg);
	cr_assert(s.held);
	cr_assert_eq(a.mem_in_use, 64 << 20);
	ix_agent_slot_release(&a, &s);
	ix_agent_slot_release(&a, &s); /* twice: nothing */
	cr_assert_eq(a.mem_in_use, 0);
	cr_assert_eq(a.active_tests, 0);
	cr_assert_eq(ix_agent_slot_grow(&a, &s, 1, &err), -1);
}
