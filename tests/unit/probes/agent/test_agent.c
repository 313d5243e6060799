/* Unit tests for probes/agent/agent.c: the --allow-run list. (The agent's
 * sessions are tested live: tests/integration/agent_limits.sh, faults.sh.) */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/agent/agent.h"

Test(allow_run, addresses_of_both_families_and_any)
{
	struct ix_agent_config c;
	struct ix_err err = { 0 };
	char buf[INET6_ADDRSTRLEN];

	memset(&c, 0, sizeof(c));
	cr_assert_eq(ix_agent_parse_allow("198.18.0.1,fd00::7", &c, &err), 0, "%s", err.msg);
	cr_assert_eq(c.n_allow_run, 2);
	cr_assert_not(c.allow_run_any);
	cr_assert_eq(c.allow_run[0].ss_family, AF_INET);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&c.allow_run[0])->sin_addr, buf, sizeof(buf));
	cr_assert_str_eq(buf, "198.18.0.1");
	cr_assert_eq(c.allow_run[1].ss_family, AF_INET6);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&c.allow_run[1])->sin6_addr, buf, sizeof(buf));
	cr_assert_str_eq(buf, "fd00::7");
	cr_assert_eq(ix_agent_parse_allow("any", &c, &err), 0);
	cr_assert(c.allow_run_any);
	cr_assert_eq(c.n_allow_run, 0, "a new list replaces the old");
	cr_assert_eq(ix_agent_parse_allow(NULL, &c, &err), 0);
	cr_assert_not(c.allow_run_any);
}

Test(allow_run, a_name_or_garbage_is_refused_naming_it)
{
	struct ix_agent_config c;
	struct ix_err err = { 0 };

	memset(&c, 0, sizeof(c));
	cr_assert_eq(ix_agent_parse_allow("10.0.0.1,node7", &c, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "'node7' is not an IPv4 or IPv6 address"), "%s", err.msg);
	cr_assert_eq(ix_agent_parse_allow("10.0.0.1,,10.0.0.2", &c, &err), -1);
	cr_assert(strstr(err.msg, "is not an address"), "%s", err.msg);
}

Test(allow_run, the_list_is_bounded)
{
	struct ix_agent_config c;
	struct ix_err err = { 0 };
	char list[IX_AGENT_MAX_ALLOW * 16 + 32] = "";
	size_t used = 0;

	memset(&c, 0, sizeof(c));
	for (int i = 0; i <= IX_AGENT_MAX_ALLOW; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s10.0.0.%d",
					 i ? "," : "", i + 1);
	cr_assert_eq(ix_agent_parse_allow(list, &c, &err), -1);
	cr_assert(strstr(err.msg, "more than 32 addresses"), "%s", err.msg);
}
