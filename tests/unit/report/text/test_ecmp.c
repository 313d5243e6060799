/* Unit tests for report/text/ecmp.c: an ecmp result as text. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"

static struct ix_host hv[3];
static struct ix_hostlist hosts = { .v = hv, .n = 3 };

/* r over hosts a, b and (its switch) leaf1. */
static void name_hosts(struct ix_ecmp_result *r)
{
	snprintf(hv[0].name, sizeof(hv[0].name), "a");
	snprintf(hv[1].name, sizeof(hv[1].name), "b");
	snprintf(hv[2].name, sizeof(hv[2].name), "leaf1");
	r->hosts = &hosts;
}

/* r as text, in bits. */
static char *text_of(const struct ix_ecmp_result *r)
{
	struct ix_unit_choice u;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(ix_parse_units("bits", &u, NULL), 0);
	ix_text_ecmp(f, r, &u);
	fclose(f);
	return buf;
}

Test(ecmp, a_switch_block_names_the_blamed_uplink)
{
	static struct ix_ecmp_result r;
	char *buf;

	name_hosts(&r);
	r.params.bw.path = "tcp";
	r.params.bw.src_port = 30000;
	r.nflows = 2;
	r.nswitches = 1;
	r.sw[0].host = 2;
	r.sw[0].ok = true;
	r.sw[0].first_hop = true;
	snprintf(r.sw[0].edge, sizeof(r.sw[0].edge), "pa");
	r.sw[0].nup = 2;
	snprintf(r.sw[0].up[0].name, sizeof(r.sw[0].up[0].name), "s1");
	snprintf(r.sw[0].up[1].name, sizeof(r.sw[0].up[1].name), "s2");
	r.sw[0].up[0].up = r.sw[0].up[1].up = true;
	r.sw[0].up[1].blamed = true;
	snprintf(r.flows[1].hop[0].why, sizeof(r.flows[1].hop[0].why),
		 "the flow did not run alone");
	snprintf(r.flows[0].hop[0].uplink, sizeof(r.flows[0].hop[0].uplink), "s2");
	snprintf(r.verdict, sizeof(r.verdict), "1 flows over 1 of 2 uplinks (1)");
	r.flows[0].sport = 30000;
	r.flows[1].sport = 30001;
	buf = text_of(&r);
	cr_assert(strstr(buf, "ECMP: a:0 -> b:0, 2 tcp flows from source ports 30000-30001") ||
			  strstr(buf, "ECMP: a -> b, 2 tcp flows from source ports 30000-30001"),
		  "%s", buf);
	cr_assert(strstr(buf, "<- BLAME"), "%s", buf);
	cr_assert(strstr(buf, "flow 1 (sport 30001): no uplink: the flow did not run alone"), "%s",
		  buf);
	cr_assert(strstr(buf, "Verdict: 1 flows over 1 of 2 uplinks (1)"), "%s", buf);
	free(buf);
}

Test(ecmp, rdma_flows_show_their_qp_and_how_their_ports_are_known)
{
	static struct ix_ecmp_result r;
	char *buf;

	name_hosts(&r);
	r.params.rdma = true;
	r.params.bw.path = "rdma";
	r.params.bw.src_port = 50000;
	r.nflows = 2;
	r.sport_how = "qpn";
	r.flows[0] =
		(struct ix_ecmp_flow){ .sport = 49441, .qpn = 0x11, .ok = true, .dport = 4791 };
	r.flows[1] = (struct ix_ecmp_flow){ .qpn = 0x12 }; /* its port not known */
	buf = text_of(&r);
	cr_assert(strstr(buf, "2 QPs of one RDMA write connection, all at once\n"), "%s", buf);
	cr_assert(strstr(buf, "Their RoCE v2 source ports: computed from both QP numbers as "
			      "rdma_rxe does (no flow label set)"),
		  "%s", buf);
	cr_assert(strstr(buf, "     QPN  sport  dport"), "%s", buf);
	cr_assert(strstr(buf, "    0     0x11  49441   4791"), "%s", buf);
	cr_assert(strstr(buf, "    1     0x12      ?      0"), "%s", buf);
	free(buf);
}
