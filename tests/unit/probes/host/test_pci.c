/* Unit tests for probes/host/pci.c's link health rule: a link is
 * downtrained when it runs below what both of its ends support. The rule
 * on its own (each end slower by design, both ends faster, width against
 * speed, a GPU's idle speed), then on the dgx-h100 and dgx-degraded trees
 * of tests/topo/mkfixture.py, where a root port, a switch port and an
 * endpoint each take their other end from the right side. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "probes/host/pci.h"
#include "probes/host/topo.h"
#include "tests/unit/common.h"

/* A link as read: trained at gen x width, capable of mgen x mwidth. */
static struct ix_pci_link mk(int gen, int width, int mgen, int mwidth)
{
	static const double gts[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	struct ix_pci_link l = { .present = true,
				 .speed_gts = gts[gen],
				 .max_speed_gts = gts[mgen],
				 .gen = gen,
				 .max_gen = mgen,
				 .width = width,
				 .max_width = mwidth };

	l.bps = ix_pcie_bps(l.speed_gts, width);
	return l;
}

/* Each end slower by design: a Gen5 x4 switch port to a Gen4 x4 drive at
 * Gen4 x4, and a Gen5 x16 NIC behind a Gen4 x8 root port at Gen4 x8. The
 * link is healthy seen from either end, and expects the slower end. */
Test(pci_rule, an_end_slower_by_design_is_healthy)
{
	static const struct {
		int gen, width, port_gen, port_width, dev_gen, dev_width;
	} cases[] = { { 4, 4, 5, 4, 4, 4 }, { 4, 8, 4, 8, 5, 16 } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ix_pci_link port = mk(cases[i].gen, cases[i].width, cases[i].port_gen,
					     cases[i].port_width),
				   dev = mk(cases[i].gen, cases[i].width, cases[i].dev_gen,
					    cases[i].dev_width);

		ix_pci_judge_link(&port, &dev, false);
		ix_pci_judge_link(&dev, &port, false);
		cr_assert_not(port.downtrained, "case %zu", i);
		cr_assert_not(dev.downtrained, "case %zu", i);
		cr_assert_eq(port.expected_gen, cases[i].gen);
		cr_assert_eq(dev.expected_width, cases[i].width);
		cr_assert_float_eq(dev.expected_bps, dev.bps, 1);
	}
}

Test(pci_rule, both_ends_faster_is_downtrained_on_both_rows)
{
	struct ix_pci_link nic = mk(4, 16, 5, 16), port = mk(4, 16, 5, 16);

	ix_pci_judge_link(&nic, &port, false);
	ix_pci_judge_link(&port, &nic, false);
	cr_assert(nic.downtrained);
	cr_assert(port.downtrained);
	cr_assert_eq(nic.expected_gen, 5);
	cr_assert_eq(port.expected_gen, 5);
	cr_assert_float_eq(nic.expected_bps, ix_pcie_bps(32.0, 16), 1);
}

Test(pci_rule, width_and_speed_count_apart)
{
	/* Full speed, half the lanes both ends have. */
	struct ix_pci_link narrow = mk(5, 8, 5, 16), wide = mk(5, 16, 5, 16);
	/* Full width, a lower speed than the slower end's. */
	struct ix_pci_link slow = mk(3, 16, 5, 16), gen4 = mk(4, 16, 4, 16);
	/* Wider than the partner can: its width is the partner's. */
	struct ix_pci_link x4 = mk(5, 4, 5, 16), dev4 = mk(5, 4, 5, 4);

	ix_pci_judge_link(&narrow, &wide, false);
	cr_assert(narrow.downtrained);
	cr_assert_eq(narrow.expected_width, 16);
	ix_pci_judge_link(&slow, &gen4, false);
	cr_assert(slow.downtrained);
	cr_assert_eq(slow.expected_gen, 4);
	ix_pci_judge_link(&x4, &dev4, false);
	cr_assert_not(x4.downtrained);
	cr_assert_eq(x4.expected_width, 4);
}

Test(pci_rule, a_gpu_slower_when_idle_is_noted_not_flagged)
{
	struct ix_pci_link gpu = mk(1, 16, 5, 16), port = mk(1, 16, 5, 16);
	struct ix_pci_link narrow = mk(5, 8, 5, 16);

	ix_pci_judge_link(&gpu, &port, true);
	cr_assert_not(gpu.downtrained);
	cr_assert(gpu.idle_slow);
	ix_pci_judge_link(&port, &gpu, true);
	cr_assert_not(port.downtrained, "the port's row follows its GPU");
	cr_assert(port.idle_slow);
	/* Lanes do not come and go with load: a narrow GPU link is flagged. */
	ix_pci_judge_link(&narrow, &port, true);
	cr_assert(narrow.downtrained);
	cr_assert_not(narrow.idle_slow);
}

Test(pci_rule, an_unknown_partner_leaves_the_own_capability)
{
	struct ix_pci_link l = mk(4, 8, 5, 16), down = { 0 };

	ix_pci_judge_link(&l, NULL, false);
	cr_assert(l.downtrained);
	cr_assert_eq(l.expected_gen, 5);
	ix_pci_judge_link(&down, NULL, false);
	cr_assert_not(down.downtrained);
	cr_assert_eq(down.expected_gen, 0, "a link not read expects nothing");
}

static const struct ix_pci_link *at(const struct ix_pci *p, const char *bdf)
{
	int i = ix_pci_find(p, bdf);

	cr_assert_geq(i, 0, "%s", bdf);
	return &p->v[i].link;
}

Test(pci_tree, ports_take_their_other_end_from_below)
{
	struct ix_topo t;
	const struct ix_pci p = (ix_test_topo_fixture("dgx-h100", &t), t.pci);

	/* Root port (Gen3 x1) to the BMC's Gen2 x1 bridge. */
	cr_assert_eq(ix_pci_link_partner(&p, (size_t)ix_pci_find(&p, "0000:00:1c.0")),
		     ix_pci_find(&p, "0000:01:00.0"));
	cr_assert_eq(at(&p, "0000:00:1c.0")->expected_gen, 2);
	/* Gen5 x4 switch port to a Gen4 x4 NVMe drive. */
	cr_assert_eq(ix_pci_link_partner(&p, (size_t)ix_pci_find(&p, "0000:17:04.0")),
		     ix_pci_find(&p, "0000:1c:00.0"));
	cr_assert_eq(at(&p, "0000:17:04.0")->expected_gen, 4);
	/* An endpoint and a switch upstream port: the function above. */
	cr_assert_eq(ix_pci_link_partner(&p, (size_t)ix_pci_find(&p, "0000:1c:00.0")),
		     ix_pci_find(&p, "0000:17:04.0"));
	cr_assert_eq(ix_pci_link_partner(&p, (size_t)ix_pci_find(&p, "0000:16:00.0")),
		     ix_pci_find(&p, "0000:15:01.0"));
	for (size_t i = 0; i < p.n; i++)
		cr_assert_not(p.v[i].link.downtrained, "%s", p.v[i].bdf);
	ix_topo_free(&t);
}

Test(pci_tree, a_downtrained_link_is_flagged_at_both_ends)
{
	struct ix_topo t;
	static const char *const down[] = { "0000:17:00.0", "0000:18:00.0", /* GPU x8 */
					    "0000:37:01.0", "0000:38:00.0", /* switch Gen4 */
					    "0000:17:04.0", "0000:1c:00.0" /* NVMe x2 */ };
	size_t n = 0;

	ix_test_topo_fixture("dgx-degraded", &t);
	const struct ix_pci p = t.pci;

	for (size_t i = 0; i < sizeof(down) / sizeof(down[0]); i++)
		cr_assert(at(&p, down[i])->downtrained, "%s", down[i]);
	for (size_t i = 0; i < p.n; i++)
		n += p.v[i].link.downtrained;
	cr_assert_eq(n, sizeof(down) / sizeof(down[0]));
	cr_assert_eq(at(&p, "0000:38:00.0")->expected_gen, 5);
	cr_assert_eq(at(&p, "0000:1c:00.0")->expected_gen, 4);
	cr_assert_eq(at(&p, "0000:1c:00.0")->expected_width, 4);
	/* The idle GPU and its port: noted on both, flagged on neither. */
	cr_assert(at(&p, "0000:19:00.0")->idle_slow);
	cr_assert(at(&p, "0000:17:01.0")->idle_slow);
	ix_topo_free(&t);
}
