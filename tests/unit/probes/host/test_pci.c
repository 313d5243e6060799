/* Unit tests for probes/host/pci.c's link health rule: a link is
 * downtrained when it runs below what both of its ends support. The rule
 * on its own (each end slower by design, both ends faster, width against
 * speed, a GPU's idle speed), then on the dgx-h100 and dgx-degraded trees
 * of tests/topo/mkfixture.py, where a root port, a switch port and an
 * endpoint each take their other end from the right side. The retimers
 * of PCIe Link Status 2 from crafted config space (none, one, two, a
 * function that cannot detect them, a capability of version 1, loops and
 * stray pointers in the capability list, short reads), then on the
 * retimer tree, where a link has what either of its ends reports. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Config space of 256 bytes: a capability list of power management at
 * 0x40 and the PCI Express capability (version ver) at 0x60, whose Link
 * Capabilities 2 detects `detect` retimers (0 to 2) and whose Link Status
 * 2 reports `present`. */
#define PCIE_AT 0x60
static void cfg_make(uint8_t *cfg, int ver, int detect, int present)
{
	uint32_t cap2 = 0x3e | (detect >= 1 ? 1u << 23 : 0) | (detect >= 2 ? 1u << 24 : 0);

	memset(cfg, 0, 256);
	cfg[0x00] = 0xb3, cfg[0x01] = 0x15, cfg[0x02] = 0x21, cfg[0x03] = 0x10;
	cfg[0x06] = 0x10; /* Status: capabilities list */
	cfg[0x34] = 0x40;
	cfg[0x40] = 0x01, cfg[0x41] = PCIE_AT;
	cfg[PCIE_AT] = 0x10;
	cfg[PCIE_AT + 2] = (uint8_t)ver;
	for (int k = 0; k < 4; k++)
		cfg[PCIE_AT + 0x2c + k] = (uint8_t)(cap2 >> 8 * k);
	cfg[PCIE_AT + 0x32] = (uint8_t)((present >= 1 ? 0x40 : 0) | (present >= 2 ? 0x80 : 0));
}

Test(pci_retimers, none_one_or_two_as_link_status_2_says)
{
	static const struct {
		int detect, present, want;
		bool can;
	} cases[] = {
		{ 1, 0, 0, true },  { 2, 0, 0, true }, { 1, 1, 1, true }, { 2, 1, 1, true },
		{ 2, 2, 2, true },  { 1, 2, 1, true }, /* two detected, one detectable */
		{ 0, 0, 0, false }, { 0, 2, 0, false } /* bits of one that cannot detect */
	};
	uint8_t cfg[256];
	bool detect;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cfg_make(cfg, 2, cases[i].detect, cases[i].present);
		cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), cases[i].want, "case %zu",
			     i);
		cr_assert_eq(detect, cases[i].can, "case %zu", i);
	}
	/* Device/Port Type and other capabilities' bits do not count. */
	cfg_make(cfg, 2, 2, 2);
	cfg[PCIE_AT + 2] |= 0x40; /* root port */
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), 2);
	/* A pointer's low two bits are reserved. */
	cfg[0x34] = 0x43;
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), 2);
}

Test(pci_retimers, no_link_status_2_is_unknown)
{
	uint8_t cfg[256];
	bool detect = true;

	cfg_make(cfg, 1, 2, 2); /* version 1: no Link Status 2 */
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), -1);
	cr_assert_not(detect);
	cfg_make(cfg, 2, 2, 2);
	cfg[0x06] = 0; /* no capability list */
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), -1);
	cfg_make(cfg, 2, 2, 2);
	cfg[0x41] = 0; /* the list ends before the PCI Express capability */
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), -1);
	cfg_make(cfg, 2, 2, 2);
	cfg[PCIE_AT] = 0x11; /* MSI-X, not PCI Express */
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), -1);
}

Test(pci_retimers, loops_and_stray_pointers_end_the_walk)
{
	uint8_t cfg[256];
	bool detect;

	cfg_make(cfg, 2, 2, 1);
	cfg[0x41] = 0x40; /* power management points at itself */
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), -1);
	cfg_make(cfg, 2, 2, 1);
	cfg[0x41] = 0x50, cfg[0x50] = 0x05, cfg[0x51] = 0x40; /* 0x40 -> 0x50 -> 0x40 */
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), -1);
	cfg_make(cfg, 2, 2, 1);
	cfg[0x34] = 0x20; /* into the header */
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), -1);
	cfg_make(cfg, 2, 2, 1);
	cfg[0x41] = 0xfc, cfg[0xfc] = 0x09, cfg[0xfd] = 0xfc; /* the last dword, a loop */
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), -1);
	/* A long list that does end at the capability is walked. */
	cfg_make(cfg, 2, 2, 1);
	cfg[0x41] = 0xa0;
	for (int at = 0xa0; at < 0xf0; at += 4)
		cfg[at] = 0x09, cfg[at + 1] = (uint8_t)(at + 4);
	cfg[0xf1] = PCIE_AT;
	cr_assert_eq(ix_pci_retimers(cfg, sizeof(cfg), &detect), 1);
}

Test(pci_retimers, short_reads_are_unknown)
{
	uint8_t cfg[256];
	bool detect;

	cfg_make(cfg, 2, 2, 2);
	cr_assert_eq(ix_pci_retimers(cfg, 64, &detect), -1, "64 bytes, as a user reads them");
	cr_assert_eq(ix_pci_retimers(cfg, 0, &detect), -1);
	cr_assert_eq(ix_pci_retimers(cfg, 0x3f, &detect), -1);
	cr_assert_eq(ix_pci_retimers(cfg, PCIE_AT + 0x33, &detect), -1, "Link Status 2 cut");
	cr_assert_not(detect);
	cr_assert_eq(ix_pci_retimers(cfg, PCIE_AT + 0x34, &detect), 2);
	cr_assert(detect);
}

Test(pci_tree, a_links_retimers_are_what_either_end_reports)
{
	struct ix_topo t;
	size_t notes = 0;

	ix_test_topo_fixture("retimer", &t);
	const struct ix_pci p = t.pci;

	/* One retimer, reported by both ends of the GPU's link. */
	cr_assert(at(&p, "0000:00:01.0")->retimers_known);
	cr_assert_eq(at(&p, "0000:00:01.0")->retimers, 1);
	cr_assert(at(&p, "0000:01:00.0")->retimers_known);
	cr_assert_eq(at(&p, "0000:01:00.0")->retimers, 1);
	/* Two, which only the NIC detects: its port's row has them too. */
	cr_assert(at(&p, "0000:00:03.0")->retimers_known);
	cr_assert_eq(at(&p, "0000:00:03.0")->retimers, 2);
	cr_assert_eq(at(&p, "0000:02:00.0")->retimers, 2);
	/* Detected at both ends, none there: known, 0. */
	cr_assert(at(&p, "0000:00:05.0")->retimers_known);
	cr_assert(at(&p, "0000:03:00.0")->retimers_known);
	cr_assert_eq(at(&p, "0000:03:00.0")->retimers, 0);
	/* 64 bytes at both ends, and no capability list: unknown. */
	cr_assert_not(at(&p, "0000:00:07.0")->retimers_known);
	cr_assert_not(at(&p, "0000:04:00.0")->retimers_known);
	cr_assert_not(at(&p, "0000:00:00.0")->retimers_known);
	/* The short reads are one note for both functions. */
	for (size_t i = 0; i < p.nnotes; i++)
		if (strstr(p.notes[i], "retimers")) {
			notes++;
			cr_assert(strstr(p.notes[i], "2 PCI function(s)") &&
					  strstr(p.notes[i], "root"),
				  "%s", p.notes[i]);
		}
	cr_assert_eq(notes, 1);
	ix_topo_free(&t);
}

Test(pci_tree, trees_without_config_files_know_no_retimers)
{
	struct ix_topo t;

	ix_test_topo_fixture("dgx-h100", &t);
	for (size_t i = 0; i < t.pci.n; i++)
		cr_assert_not(t.pci.v[i].link.retimers_known, "%s", t.pci.v[i].bdf);
	for (size_t i = 0; i < t.pci.nnotes; i++)
		cr_assert_null(strstr(t.pci.notes[i], "retimers"), "%s", t.pci.notes[i]);
	ix_topo_free(&t);
}
