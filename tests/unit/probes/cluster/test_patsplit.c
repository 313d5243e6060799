/* Unit tests for probes/cluster/patsplit.c: a bisection's halves are whole
 * switches where their sizes allow, the switches kept together where they
 * do not, and the host list's order where a host's switch is unknown. */
#include "config.h"

#include <criterion/criterion.h>

#include "tests/unit/report/patfix.h"

/* n hosts whose switches are sw[i] ("" unknown); the cut order in order. */
static int split(uint32_t n, const char *const *sw, uint32_t *order, char *why, size_t len)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;
	int rc;

	pat_init(&r, &hl, IX_PATTERN_BISECTION, n);
	for (uint32_t i = 0; i < n; i++)
		pat_link(&r, i, 0, sw[i]);
	rc = ix_pattern_split(r.host, n, order, why, len);
	ix_pattern_result_free(&r);
	return rc;
}

Test(patsplit, mixed_host_list_gets_whole_switches)
{
	static const char *const sw[4] = { "leaf-a", "leaf-b", "leaf-a", "leaf-b" };
	uint32_t order[4], want[4] = { 0, 2, 1, 3 };
	char why[256];

	cr_assert_eq(split(4, sw, order, why, sizeof(why)), 1);
	cr_assert_arr_eq(order, want, sizeof(want));
	cr_assert_str_eq(why, "whole switches on each side: leaf-a | leaf-b (LLDP)");
}

Test(patsplit, switches_of_different_sizes_are_combined)
{
	/* 3 + 1 against 2 + 2 hosts, in the list's order of switches */
	static const char *const sw[8] = { "s1", "s1", "s1", "s2", "s2", "s3", "s3", "s4" };
	uint32_t order[8], side[8] = { 0 };
	char why[256];

	cr_assert_eq(split(8, sw, order, why, sizeof(why)), 1);
	for (uint32_t k = 0; k < 4; k++)
		side[order[k]] = 1;
	for (uint32_t i = 1; i < 8; i++)
		if (sw[i] == sw[i - 1] || !strcmp(sw[i], sw[i - 1]))
			cr_assert_eq(side[i], side[i - 1], "a switch on one side: host %u", i);
	cr_assert(strstr(why, "whole switches on each side: "), "%s", why);
}

Test(patsplit, no_whole_split_keeps_switches_together)
{
	static const char *const sw[4] = { "s1", "s1", "s1", "s2" };
	uint32_t order[4], want[4] = { 0, 1, 2, 3 };
	char why[256];

	cr_assert_eq(split(4, sw, order, why, sizeof(why)), 0);
	cr_assert_arr_eq(order, want, sizeof(want));
	cr_assert(strstr(why, "no halves of whole switches"), "%s", why);
}

Test(patsplit, an_unknown_switch_leaves_the_list_order)
{
	static const char *const sw[4] = { "s1", "", "s2", "s2" };
	uint32_t order[4], want[4] = { 0, 1, 2, 3 };
	char why[256];

	cr_assert_eq(split(4, sw, order, why, sizeof(why)), -1);
	cr_assert_arr_eq(order, want, sizeof(want));
	cr_assert(strstr(why, "not every host's switch is known"), "%s", why);
}
