/* Unit tests for probes/cluster/ecmp.c: what it refuses before any test
 * (the run over agents is tested in tests/integration/ecmp_netns.sh). */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/ecmp.h"

Test(ecmp, an_unreachable_pair_is_an_error_naming_it)
{
	static struct ix_ecmp_result r;
	static struct ix_host hv[3];
	static struct ix_hostlist h = { .v = hv, .n = 2 };
	struct ix_coord_peer peers[2];
	struct ix_coord co = { .peers = peers, .n = 2 };
	struct ix_ecmp_params p;
	struct ix_err err = { 0 };

	memset(peers, 0, sizeof(peers));
	peers[0].fd = peers[1].fd = -1;
	snprintf(h.v[0].name, sizeof(h.v[0].name), "nodeA");
	snprintf(h.v[1].name, sizeof(h.v[1].name), "nodeB");
	memset(&p, 0, sizeof(p));
	p.bw.path = "tcp";
	p.bw.streams = 4;
	p.bw.src_port = 30000;
	cr_assert_eq(ix_ecmp_run(&co, &p, &h, &r, &err), -1);
	cr_assert(strstr(err.msg, "the agent at nodeA could not be reached"), "%s", err.msg);
	cr_assert_eq(r.nflows, 4);
	cr_assert_eq(r.flows[3].sport, 30003);
}
