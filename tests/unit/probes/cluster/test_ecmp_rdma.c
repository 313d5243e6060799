/* Unit tests for probes/cluster/ecmp_rdma.c: what it does when its jobs
 * cannot run (the run over real agents and a real provider is tested in
 * tests/integration/ecmp_rxe.sh). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/ecmp.h"

static struct ix_ecmp_result r;
static struct ix_host hv[3];
static struct ix_hostlist h = { .v = hv, .n = 3 };
static struct ix_ifstat ifs[1][IX_IFSTAT_MAX];

static void setup_run(uint32_t nif, bool uplinks)
{
	memset(&r, 0, sizeof(r));
	snprintf(hv[0].name, sizeof(hv[0].name), "nodeA");
	snprintf(hv[1].name, sizeof(hv[1].name), "nodeB");
	snprintf(hv[2].name, sizeof(hv[2].name), "leaf1");
	r.hosts = &h;
	r.nflows = 2;
	r.nswitches = 1;
	r.sw[0].host = 2;
	r.sw[0].ok = true;
	r.params.rdma = true;
	r.params.bw.path = "rdma";
	r.params.bw.streams = 2;
	r.params.bw.src_port = 50000;
	r.params.bw.msg_size = 65536;
	r.params.bw.duration_s = 1;
	r.params.alone_s = 1;
	r.params.lead_s = 1;
	r.params.gap_s = 1;
	if (uplinks) {
		r.params.nuplinks = 2;
		snprintf(r.params.uplinks[0], IX_IFNAME_SIZE, "swp1");
		snprintf(r.params.uplinks[1], IX_IFNAME_SIZE, "swp2");
	}
	memset(ifs, 0, sizeof(ifs));
	for (uint32_t i = 0; i < nif; i++) {
		snprintf(ifs[0][i].name, IX_IFNAME_SIZE, "swp%u", i + 1);
		ifs[0][i].up = true;
	}
}

static void no_agents(struct ix_coord *co, struct ix_coord_peer *peers)
{
	memset(peers, 0, 3 * sizeof(*peers));
	for (int i = 0; i < 3; i++)
		peers[i].fd = -1;
	*co = (struct ix_coord){ .peers = peers, .n = 3, .ep = -1 };
}

Test(ecmp_rdma, a_switch_with_too_many_ports_needs_its_uplinks_named)
{
	struct ix_coord_peer peers[3];
	struct ix_coord co;
	struct ix_err err = { 0 };
	uint32_t n = 20;
	bool ok = true;

	no_agents(&co, peers);
	setup_run(20, false);
	cr_assert_eq(ix_ecmp_rdma_run(&co, &r, ifs, &n, &ok, &err), 0, "%s", err.msg);
	cr_assert(!r.sw[0].ok);
	cr_assert(strstr(r.sw[0].error, "it has over 16 interfaces up: name its uplinks"), "%s",
		  r.sw[0].error);
}

Test(ecmp_rdma, an_uplink_the_switch_lacks_is_named_and_nothing_ran)
{
	struct ix_coord_peer peers[3];
	struct ix_coord co;
	struct ix_err err = { 0 };
	uint32_t n = 1;
	bool ok = true;

	no_agents(&co, peers);
	setup_run(1, true);
	cr_assert_eq(ix_ecmp_rdma_run(&co, &r, ifs, &n, &ok, &err), 0, "%s", err.msg);
	cr_assert(!r.sw[0].ok);
	cr_assert_str_eq(r.sw[0].error, "it has no interface 'swp2' (--uplinks)");
	/* A's agent is not there: the test did not run, and says so. */
	cr_assert(!r.together_ok);
	cr_assert_neq(r.together_error[0], 0);
	cr_assert(!r.alone_done);
	cr_assert(!r.flows[0].alone_ok && !r.flows[1].ok);
}
