/* Unit tests for probes/cluster/diagnose.c: the one-sentence diagnosis of an
 * incast sweep, and a figure at its link's PCIe ceiling. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/analysis.h"

/* ---- incast diagnosis ---- */

/* A sweep point without fabric counters. */
#define PT(n_, bps_, stalled_, rounds_, retr_)                                        \
	{                                                                             \
		.senders = (n_), .goodput_bps = (bps_), .stalled_rounds = (stalled_), \
		.rounds = (rounds_), .retransmits = (retr_)                           \
	}

static void expect_has(const char *buf, const char *phrase)
{
	cr_assert_not_null(strstr(buf, phrase), "\"%s\" lacks \"%s\"", buf, phrase);
}

Test(incast, collapse_with_stalls)
{
	const struct ix_incast_point p[] = {
		PT(1, 9.4e9, 0, 100, 0), PT(8, 9.3e9, 0, 100, 2),
		PT(32, 1.2e9, 37, 100, 900), /* 12.8% */
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "goodput at N=32 is 13% of N=1 with 37 of 100 rounds stalled");
	expect_has(buf, "retransmission timeouts (incast collapse)");
	expect_has(buf, "switch port buffers");
}

Test(incast, collapse_without_stalls)
{
	const struct ix_incast_point p[] = {
		PT(1, 9.4e9, 0, 0, 0),
		PT(16, 3.0e9, 0, 0, 4521), /* 31.9% */
		PT(32, 4.0e9, 0, 0, 100),
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "drops to 32% of N=1 at N=16 without stalled rounds");
	expect_has(buf, "saturated or losing packets");
	expect_has(buf, "check retransmits: 4521");
}

Test(incast, mild_degradation)
{
	const struct ix_incast_point p[] = {
		PT(2, 9.0e9, 0, 50, 0), PT(4, 8.9e9, 0, 50, 0), PT(64, 6.75e9, 1, 50, 12), /* 75% */
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "goodput at N=64 is 75% of N=2");
	expect_has(buf, "mild");
	cr_assert_null(strstr(buf, "incast collapse"), "%s", buf);
}

Test(incast, goodput_holds)
{
	const struct ix_incast_point p[] = {
		PT(1, 9.4e9, 0, 100, 0), PT(8, 9.35e9, 0, 100, 0),
		PT(32, 9.3e9, 0, 100, 0), /* 98.9% */
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "goodput holds from N=1 to N=32 (at least 99% of N=1)");
	expect_has(buf, "no incast collapse at these fan-ins");
}

Test(incast, base_is_the_fewest_senders_whatever_the_order)
{
	const struct ix_incast_point p[] = {
		PT(32, 1.0e9, 5, 10, 0),
		PT(4, 9.0e9, 0, 10, 0),
		PT(8, 8.8e9, 0, 10, 0),
	};
	char buf[512];

	ix_incast_diagnose(p, 3, buf, sizeof(buf));
	expect_has(buf, "goodput at N=32 is 11% of N=4 with 5 of 10 rounds stalled");
}

/* Switch-side evidence as the hosts count it, next to retransmissions. */
Test(incast, collapse_cites_the_counters)
{
	struct ix_incast_point p[] = { PT(1, 9.4e9, 0, 100, 0), PT(16, 2.0e9, 30, 100, 4000) };
	char buf[1024];

	p[1].counters = true;
	p[1].at_receiver.v[IX_CC_PAUSE_TX] = 1800;
	p[1].at_receiver.v[IX_CC_CNP_SENT] = 250;
	p[1].at_receiver.has = (1u << IX_CC_PAUSE_TX) | (1u << IX_CC_CNP_SENT);
	p[1].at_senders.v[IX_CC_PAUSE_RX] = 1790;
	p[1].at_senders.v[IX_CC_CNP_HANDLED] = 240;
	p[1].at_senders.has = (1u << IX_CC_PAUSE_RX) | (1u << IX_CC_CNP_HANDLED);
	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	expect_has(buf, "incast collapse");
	expect_has(buf,
		   "; fabric counters at N=16: receiver 1800 pause frames sent, 250 CNPs sent, "
		   "senders 1790 pause frames received, 240 CNPs handled");
	/* Read but quiet: the loss is past the hosts' ports. */
	memset(&p[1].at_receiver, 0, sizeof(p[1].at_receiver));
	memset(&p[1].at_senders, 0, sizeof(p[1].at_senders));
	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	expect_has(buf, "no fabric counter moved at the hosts");
	/* A healthy sweep with quiet counters says nothing more. */
	p[1].goodput_bps = 9.3e9;
	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	cr_assert_null(strstr(buf, "fabric counter"), "%s", buf);
	/* Never read: nothing said about counters. */
	p[1].goodput_bps = 2.0e9;
	p[1].counters = false;
	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	cr_assert_null(strstr(buf, "fabric counter"), "%s", buf);
}

Test(incast, fewer_than_two_points)
{
	const struct ix_incast_point p[] = { PT(1, 9.4e9, 0, 100, 0) };
	char buf[512];

	ix_incast_diagnose(p, 1, buf, sizeof(buf));
	expect_has(buf, "at least two sender counts");
	ix_incast_diagnose(NULL, 0, buf, sizeof(buf));
	expect_has(buf, "at least two sender counts");
}

Test(incast, no_goodput_at_the_base)
{
	const struct ix_incast_point p[] = { PT(1, 0, 0, 0, 0), PT(2, 1e9, 0, 0, 0) };
	char buf[512];

	ix_incast_diagnose(p, 2, buf, sizeof(buf));
	expect_has(buf, "no goodput was measured at N=1");
}

Test(incast, tiny_buffer_is_terminated_and_not_overrun)
{
	const struct ix_incast_point p[] = {
		PT(1, 9.4e9, 0, 100, 0),
		PT(32, 1.2e9, 37, 100, 900),
	};
	char buf[32];

	memset(buf, 'X', sizeof(buf));
	ix_incast_diagnose(p, 2, buf, 8);
	cr_assert_eq(strlen(buf), 7);
	cr_assert_eq(strncmp(buf, "goodput", 7), 0, "%s", buf);
	for (size_t i = 8; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 'X', "byte %zu written", i);

	memset(buf, 'X', sizeof(buf));
	ix_incast_diagnose(p, 2, buf, 0);
	cr_assert_eq(buf[0], 'X', "len 0 writes nothing");
	ix_incast_diagnose(p, 2, buf, 1);
	cr_assert_eq(buf[0], '\0');
	cr_assert_eq(buf[1], 'X');
}

/* ---- ceilings ---- */

/* ---- ceilings ------------------------------------------------------------------ */

static struct ix_link_limit pcie_link(int gen, int width, int egen, int ewidth, double pcie_bps,
				      double line_bps)
{
	struct ix_link_limit l = {
		.iface = "ibp1s0",
		.bps = line_bps,
		.source = "infiniband rate",
		.pcie = { .known = true,
			  .bdf = "0000:01:00.0",
			  .gen = gen,
			  .width = width,
			  .expected_gen = egen,
			  .expected_width = ewidth,
			  .bps = pcie_bps,
			  .downtrained = gen < egen || width < ewidth },
		.ceiling_bps = pcie_bps < line_bps ? pcie_bps : line_bps,
	};

	snprintf(l.bottleneck, sizeof(l.bottleneck), "%s", pcie_bps < line_bps ? "pcie" : "link");
	return l;
}

/* The issue's own example: 118 Gbit/s over a Gen4 x8 link of a 400G NIC. */
Test(ceiling, a_figure_at_a_downtrained_pcie_link_is_named)
{
	struct ix_link_limit l = pcie_link(4, 8, 5, 16, 126.03e9, 400e9);
	char buf[256];

	cr_assert(ix_link_verdict(&l, 118e9, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "118.00 Gbit/s is 94% of its NIC's PCIe Gen4 x8 link (126.03 "
			      "Gbit/s), trained below its Gen5 x16 capability");
	/* Trained as both ends can, and still below the line: said so. */
	l = pcie_link(4, 16, 4, 16, 252.06e9, 400e9);
	cr_assert(ix_link_verdict(&l, 240e9, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "240.00 Gbit/s is 95% of its NIC's PCIe Gen4 x16 link (252.06 "
			      "Gbit/s), below the line rate of 400.00 Gbit/s");
}

Test(ceiling, no_verdict_below_the_ceiling_or_at_the_line)
{
	struct ix_link_limit l = pcie_link(4, 8, 5, 16, 126.03e9, 400e9);
	struct ix_link_limit line = pcie_link(5, 16, 5, 16, 504e9, 400e9);
	char buf[256] = "x";

	/* Under 80% of the PCIe ceiling: something else holds it back. */
	cr_assert_not(ix_link_verdict(&l, 90e9, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "");
	/* Far above it, the traffic did not cross that link alone. */
	cr_assert_not(ix_link_verdict(&l, 150e9, buf, sizeof(buf)));
	/* The line is the ceiling: nothing to name. */
	cr_assert_not(ix_link_verdict(&line, 390e9, buf, sizeof(buf)));
	cr_assert_not(ix_link_verdict(NULL, 390e9, buf, sizeof(buf)));
	/* A short buffer is cut, never overrun. */
	cr_assert(ix_link_verdict(&l, 118e9, buf, 12));
	cr_assert_eq(strlen(buf), 11);
}

Test(ceiling, incast_names_the_receivers_pcie_link)
{
	struct ix_incast_point pts[2] = { { .senders = 1, .goodput_bps = 110e9 },
					  { .senders = 4, .goodput_bps = 118e9 } };
	struct ix_link_limit l = pcie_link(4, 8, 5, 16, 126.03e9, 400e9);
	char buf[1024];

	ix_incast_diagnose(pts, 2, buf, sizeof(buf));
	ix_incast_ceiling_clause(pts, 2, &l, buf, sizeof(buf));
	cr_assert(strstr(buf, "; at N=4 the receiver's 118.00 Gbit/s is 94% of its NIC's PCIe Gen4 "
			      "x8 link (126.03 Gbit/s), trained below its Gen5 x16 capability"),
		  "%s", buf);
	/* Without a known link, the diagnosis is left as it was. */
	ix_incast_diagnose(pts, 2, buf, sizeof(buf));
	ix_incast_ceiling_clause(pts, 2, NULL, buf, sizeof(buf));
	cr_assert_null(strstr(buf, "receiver's"), "%s", buf);
}
