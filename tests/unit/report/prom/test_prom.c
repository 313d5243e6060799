/* Unit tests for report/prom/prom.c: the exposition format's names,
 * escaping, HELP and TYPE lines and samples, the priority of a pause
 * counter, and the agent's metrics. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/prom/prom.h"
#include "tests/unit/report/prom/memout.h"

Test(prom, names)
{
	cr_assert(ix_prom_name_valid("ixperf_receive_bytes_total", false));
	cr_assert(ix_prom_name_valid("a:b_c9", false));
	cr_assert(ix_prom_name_valid("_x", false));
	cr_assert(!ix_prom_name_valid("9x", false));
	cr_assert(!ix_prom_name_valid("a-b", false));
	cr_assert(!ix_prom_name_valid("", false));
	cr_assert(!ix_prom_name_valid(NULL, false));
	cr_assert(ix_prom_name_valid("interface", true));
	cr_assert(!ix_prom_name_valid("a:b", true));
	cr_assert(!ix_prom_name_valid("__name__", true));
}

Test(prom, label_values_are_escaped)
{
	struct buf b;
	struct ix_prom_label l[] = { { "interface", "a\"b\\c\nd" },
				     { "port", NULL },
				     { "x", "é" } };
	char *s;

	open_buf(&b);
	ix_prom_sample_u64(b.f, "m_total", l, 3, 18446744073709551615ull);
	s = close_buf(&b);
	cr_assert_str_eq(s,
			 "m_total{interface=\"a\\\"b\\\\c\\nd\",x=\"é\"} 18446744073709551615\n");
	free(s);
}

Test(prom, help_escapes_backslash_and_newline_only)
{
	struct buf b;
	char *s;

	open_buf(&b);
	ix_prom_family(b.f, "m", IX_PROM_GAUGE, "a \"q\" \\ and\nmore");
	ix_prom_family(b.f, "n_total", IX_PROM_COUNTER, "n");
	s = close_buf(&b);
	cr_assert_str_eq(s, "# HELP m a \"q\" \\\\ and\\nmore\n# TYPE m gauge\n"
			    "# HELP n_total n\n# TYPE n_total counter\n");
	free(s);
}

Test(prom, sample_values)
{
	struct buf b;
	char *s;

	open_buf(&b);
	ix_prom_sample(b.f, "a", NULL, 0, 0.1);
	ix_prom_sample(b.f, "b", NULL, 0, NAN);
	ix_prom_sample(b.f, "c", NULL, 0, INFINITY);
	ix_prom_sample(b.f, "d", NULL, 0, -INFINITY);
	ix_prom_sample(b.f, "e", NULL, 0, 4e11);
	s = close_buf(&b);
	cr_assert_str_eq(s, "a 0.10000000000000001\nb NaN\nc +Inf\nd -Inf\ne 400000000000\n");
	cr_assert_eq(strtod("0.10000000000000001", NULL), 0.1);
	free(s);
}

Test(prom, priorities_of_pause_counters)
{
	cr_assert_eq(ix_prom_priority("rx_prio3_pause"), 3);
	cr_assert_eq(ix_prom_priority("tx_prio0_pause"), 0);
	cr_assert_eq(ix_prom_priority("rx_priority_5_xoff"), 5);
	cr_assert_eq(ix_prom_priority("rx_prio7_pause_duration"), 7);
	cr_assert_eq(ix_prom_priority("rx_pause_ctrl_phy"), -1);
	cr_assert_eq(ix_prom_priority("tx_prio8_pause"), -1);
	cr_assert_eq(ix_prom_priority("tx_prio12_pause"), -1);
	cr_assert_eq(ix_prom_priority("prio"), -1);
}

Test(prom, agent_metrics)
{
	struct ix_agent_stats st = { .tests_served = 7,
				     .refused = { [IX_AGENT_REFUSE_MEMORY] = 2 },
				     .tests_running = 1,
				     .connections = 3,
				     .mem_held = 1048576,
				     .mem_limit = 0 };
	struct buf b;
	char *s;

	open_buf(&b);
	ix_prom_agent(b.f, &st);
	s = close_buf(&b);
	cr_assert(
		strstr(s, "# TYPE ixperf_agent_tests_total counter\nixperf_agent_tests_total 7\n"));
	cr_assert(strstr(s, "ixperf_agent_refused_total{class=\"memory\"} 2\n"));
	cr_assert(strstr(s, "ixperf_agent_refused_total{class=\"tests\"} 0\n"));
	cr_assert(strstr(
		s, "# TYPE ixperf_agent_tests_running gauge\nixperf_agent_tests_running 1\n"));
	cr_assert(strstr(s, "ixperf_agent_memory_held_bytes 1048576\n"));
	cr_assert(!strstr(s, "memory_limit"), "no limit, no metric");
	names_follow_the_rules(s);
	free(s);
	st.mem_limit = 2048;
	open_buf(&b);
	ix_prom_agent(b.f, &st);
	s = close_buf(&b);
	cr_assert(strstr(s, "ixperf_agent_memory_limit_bytes 2048\n"));
	free(s);
}
