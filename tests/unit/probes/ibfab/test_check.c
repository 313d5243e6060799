/* Unit tests for probes/ibfab/check.c: the findings over a subnet built
 * here (two switches, two adapters): widths and speeds below what the
 * ends can train at, ports not Active, error counters that moved (a
 * cleared one too), unreadable counters, and what a reference had that
 * is gone. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/ibfab/ibfab.h"
#include "tests/unit/ibfab_fixture.h"

/* h1 - sw1/1, sw1/5 - sw2/5, sw2/1 - h2 */
static void subnet(struct ix_ibfab *f)
{
	ix_ibfab_init(f);
	cr_assert_not_null(ix_ibfab_add(f, 0x10, false, "h1", 1));
	cr_assert_not_null(ix_ibfab_add(f, 0x20, true, "sw1", 8));
	cr_assert_not_null(ix_ibfab_add(f, 0x30, true, "sw2", 8));
	cr_assert_not_null(ix_ibfab_add(f, 0x40, false, "h2", 1));
	ix_test_ib_cable(f, 0, 1, 1, 1);
	ix_test_ib_cable(f, 1, 5, 2, 5);
	ix_test_ib_cable(f, 2, 1, 3, 1);
}

static struct ix_ibfab_findings judge(const struct ix_ibfab *f, const struct ix_ibfab *ref)
{
	struct ix_ibfab_findings fs;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_ibfab_check(f, ref, &fs, &err), 0, "%s", err.msg);
	return fs;
}

Test(check, a_healthy_subnet_has_nothing_to_say)
{
	struct ix_ibfab f;
	struct ix_ibfab_findings fs;

	subnet(&f);
	fs = judge(&f, &f);
	cr_assert_eq(fs.n, 0, "%zu: %s", fs.n, fs.n ? fs.v[0].text : "");
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&f);
}

Test(check, width_names_the_port_enabled_for_less_or_blames_the_cable)
{
	struct ix_ibfab f;
	struct ix_ibfab_findings fs;

	subnet(&f);
	f.nodes[0].ports[1].width_enabled = 1; /* h1 enabled 1X only */
	f.nodes[0].ports[1].width_active = f.nodes[1].ports[1].width_active = 1;
	fs = judge(&f, NULL);
	cr_assert_eq(fs.n, 1);
	cr_assert_eq(fs.v[0].kind, IX_IBF_WIDTH);
	cr_assert_str_eq(fs.v[0].text, "link \"h1\"/1 - \"sw1\"/1 is 1X wide where its ends can "
				       "train at 4X: \"h1\"/1 is enabled for 1X only");
	ix_ibfab_findings_free(&fs);
	/* both ends want 4X and got 1X: the cable */
	f.nodes[0].ports[1].width_enabled = 3;
	fs = judge(&f, NULL);
	cr_assert_eq(fs.n, 1);
	cr_assert(strstr(fs.v[0].text, "at 4X: a lane or the cable is bad"), "%s", fs.v[0].text);
	cr_assert_eq(fs.v[0].node, 0, "judged once, from its lower node");
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&f);
}

Test(check, speed_below_what_both_ends_can)
{
	struct ix_ibfab f;
	struct ix_ibfab_findings fs;

	subnet(&f);
	/* the spine cable: HDR both ways, trained at EDR */
	for (int n = 1; n <= 2; n++) {
		struct ix_ibfab_port *p = &f.nodes[n].ports[5];

		p->ext_enabled = p->ext_supported = 7;
		p->ext_active = 2;
	}
	fs = judge(&f, NULL);
	cr_assert_eq(fs.n, 1);
	cr_assert_eq(fs.v[0].kind, IX_IBF_SPEED);
	cr_assert_str_eq(fs.v[0].text,
			 "link \"sw1\"/5 - \"sw2\"/5 runs at EDR where its ends can train at HDR");
	cr_assert_float_eq(ix_ibfab_port_gbps(&f.nodes[1].ports[5]), 100, 1e-9, "4 x 25");
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&f);
}

Test(check, a_cabled_port_not_active)
{
	struct ix_ibfab f;
	struct ix_ibfab_findings fs;

	subnet(&f);
	f.nodes[3].ports[1].state = 2;
	fs = judge(&f, NULL);
	cr_assert_eq(fs.n, 1);
	cr_assert_eq(fs.v[0].kind, IX_IBF_NOT_ACTIVE);
	cr_assert_eq(fs.v[0].node, 3);
	cr_assert(strstr(fs.v[0].text, "\"h2\"/1 is Init, not Active"), "%s", fs.v[0].text);
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&f);
}

Test(check, error_counters_that_moved_and_those_that_are_not_errors)
{
	struct ix_ibfab f;
	struct ix_ibfab_findings fs;
	struct ix_ibfab_port *p;

	subnet(&f);
	p = &f.nodes[2].ports[5];
	p->ctr[0].v[IX_IBC_SYMBOL_ERRORS] = 10;
	p->ctr[1].v[IX_IBC_SYMBOL_ERRORS] = 17;
	p->ctr[0].v[IX_IBC_LINK_DOWNED] = 9; /* cleared in between, then 2 */
	p->ctr[1].v[IX_IBC_LINK_DOWNED] = 2;
	p->ctr[1].v[IX_IBC_XMIT_WAIT] = 1000; /* congestion: not a finding */
	p->ctr[1].v[IX_IBC_XMIT_DATA] = 1u << 30;
	p->ctr[1].v[IX_IBC_VL15_DROPPED] = 3;
	fs = judge(&f, NULL);
	cr_assert_eq(fs.n, 1);
	cr_assert_eq(fs.v[0].kind, IX_IBF_ERRORS);
	cr_assert_str_eq(fs.v[0].text, "\"sw2\"/5: SymbolErrorCounter +7, LinkDownedCounter +2 "
				       "between the reads");
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&f);
}

Test(check, counters_that_could_not_be_read_are_said)
{
	struct ix_ibfab f;
	struct ix_ibfab_findings fs;
	struct ix_ibfab_port *p;

	subnet(&f);
	p = &f.nodes[3].ports[1];
	p->ctr[1].valid = false;
	snprintf(p->ctr[1].error, sizeof(p->ctr[1].error), "no answer from LID 7 port 1 in 200 ms");
	fs = judge(&f, NULL);
	cr_assert_eq(fs.n, 1);
	cr_assert_eq(fs.v[0].kind, IX_IBF_NO_COUNTERS);
	cr_assert_str_eq(fs.v[0].text, "the counters of \"h2\"/1 could not be read: no answer "
				       "from LID 7 port 1 in 200 ms: its errors are unknown");
	ix_ibfab_findings_free(&fs);
	/* never asked (a single read keeps ctr[1] empty): nothing to say */
	memset(&p->ctr[1], 0, sizeof(p->ctr[1]));
	for (uint32_t n = 0; n < f.n; n++)
		for (uint32_t q = 0; q <= f.nodes[n].nports; q++)
			memset(&f.nodes[n].ports[q].ctr[1], 0, sizeof(p->ctr[1]));
	fs = judge(&f, NULL);
	cr_assert_eq(fs.n, 0);
	ix_ibfab_free(&f);
}

Test(check, cables_and_nodes_gone_since_the_reference)
{
	struct ix_ibfab ref, now;
	struct ix_ibfab_findings fs;

	subnet(&ref);
	subnet(&now);
	/* h2 gone altogether, with its cable */
	now.n = 3;
	free(now.nodes[3].ports);
	now.nodes[2].ports[1].peer_node = -1;
	now.nodes[2].ports[1].state = 1;
	/* the spine cable unplugged: both ends Down */
	for (int n = 1; n <= 2; n++) {
		now.nodes[n].ports[5].peer_node = -1;
		now.nodes[n].ports[5].state = 1;
	}
	fs = judge(&now, &ref);
	cr_assert_eq(fs.n, 2, "%zu", fs.n);
	cr_assert_eq(fs.v[0].kind, IX_IBF_NODE_LOST);
	cr_assert_str_eq(fs.v[0].text,
			 "adapter \"h2\" (0x0000000000000040) was in the subnet and is gone");
	cr_assert_eq(fs.v[1].kind, IX_IBF_LINK_LOST);
	cr_assert_str_eq(fs.v[1].text,
			 "cable \"sw1\"/5 - \"sw2\"/5 is gone (\"sw1\"/5 is Down now)");
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&now);
	ix_ibfab_free(&ref);
}
