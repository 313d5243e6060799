/* Unit tests for probes/net/transport.c: the table of transports, and the
 * names --path takes. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/net/transport.h"

Test(path, table)
{
	cr_assert_eq(ix_transport_find("tcp"), &ix_tcp_transport);
	cr_assert_eq(ix_transport_find("udp"), &ix_udp_transport);
	cr_assert_null(ix_transport_find("rdma"), "not a socket transport");
	cr_assert_null(ix_transport_find("TCP"), "names are exact");
}

Test(path, lookup)
{
	const struct ix_transport *tp = NULL;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_path_lookup("udp", &tp, &err), 0);
	cr_assert_eq(tp, &ix_udp_transport);
	cr_assert_eq(ix_path_lookup(NULL, &tp, &err), 0, "no --path: the default");
	cr_assert_eq(tp, &ix_tcp_transport);
	/* rdma: a descriptor for mesh and incast, whose agents run it. */
	cr_assert_eq(ix_path_lookup("rdma", &tp, &err), 0);
	cr_assert_str_eq(tp->name, "rdma");
	cr_assert(tp->caps & IX_CAP_RDMA);
	cr_assert_null(tp->send, "no socket data path");
	cr_assert_eq(ix_path_lookup("pcie", &tp, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, "use ixperf bw --path pcie or ixperf gpu"), "%s",
			   err.msg);
	cr_assert_eq(ix_path_lookup("carrier-pigeon", &tp, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, "carrier-pigeon"));
}
