/* Unit tests for probes/host/lldp.c: the phrase a neighbour is shown as,
 * and what a host without lldpd gets. A real lldpd answering is shown by
 * tests/integration/fabric_lldp_netns.sh (an lldpd per namespace). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/host/lldp.h"

Test(lldp, the_phrase)
{
	struct ix_neighbor n = { .source = "lldp", .chassis = "02:00:00:00:00:01", .port = "swp3" };
	char buf[128];

	ix_neighbor_str(&n, buf, sizeof(buf));
	cr_assert_str_eq(buf, "02:00:00:00:00:01 port swp3");
	snprintf(n.name, sizeof(n.name), "leaf-a");
	ix_neighbor_str(&n, buf, sizeof(buf));
	cr_assert_str_eq(buf, "leaf-a port swp3");
	memset(&n, 0, sizeof(n));
	ix_neighbor_str(&n, buf, sizeof(buf));
	cr_assert_str_eq(buf, "");
}

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
