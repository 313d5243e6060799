/* Unit tests for probes/host/lldp.c: what a host without lldpd gets. A real lldpd answering is shown by
 * tests/integration/fabric_lldp_netns.sh (an lldpd per namespace). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/host/lldp.h"

Test(lldp, no_lldpd_is_said)
{
	struct ix_neighbor n;
	char why[128];

	setenv("IXPERF_LLDPD_SOCKET", "/nonexistent/lldpd.socket", 1);
	cr_assert_eq(ix_lldp_neighbor("eth0", &n, why, sizeof(why)), -1);
	cr_assert_str_eq(n.source, "");
#ifdef HAVE_LLDPCTL
	cr_assert(strstr(why, "lldpd does not answer"), "%s", why);
#else
	cr_assert_str_eq(why, "built without liblldpctl");
#endif
	/* Loopback has no neighbour and is not asked about. */
	cr_assert_eq(ix_lldp_neighbor("lo", &n, why, sizeof(why)), -1);
	cr_assert_str_eq(why, "");
}
