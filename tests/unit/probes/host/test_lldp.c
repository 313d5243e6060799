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

/* What lldpd gives, copied: cut to fit, printable, the port's description
 * before its id; no chassis, no neighbour. */
Test(lldp, a_neighbours_strings_are_copied_printable)
{
	struct ix_neighbor n;
	char longer[200];

	memset(&n, 0, sizeof(n));
	cr_assert(ix_lldp_copy(&n, "mac 02:bd:00:00:00:01", "leaf-a", "", "Ethernet1/7"));
	cr_assert_str_eq(n.source, "lldp");
	cr_assert_str_eq(n.chassis, "mac 02:bd:00:00:00:01");
	cr_assert_str_eq(n.name, "leaf-a");
	cr_assert_str_eq(n.port, "Ethernet1/7");
	cr_assert(ix_lldp_copy(&n, "local leaf-b", NULL, "uplink\tto\x81spine", "swp1"));
	cr_assert_str_eq(n.name, "");
	cr_assert_str_eq(n.port, "uplink?to?spine");
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	cr_assert(ix_lldp_copy(&n, longer, longer, NULL, longer));
	cr_assert_eq(strlen(n.chassis), sizeof(n.chassis) - 1);
	cr_assert_eq(strlen(n.port), sizeof(n.port) - 1);
	memset(&n, 0, sizeof(n));
	cr_assert_not(ix_lldp_copy(&n, "", "leaf-c", NULL, "swp2"));
	cr_assert_not(ix_lldp_copy(&n, NULL, NULL, NULL, NULL));
	cr_assert_str_eq(n.source, "");
}
