/* Unit tests for probes/cluster/ecmp_judge.c: mapping flows to uplinks from
 * counter reads, and the verdicts (the run itself is tested in
 * tests/integration/ecmp_netns.sh). */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/ecmp.h"

#define MB 1000000ull

static struct ix_host hv[3];
static struct ix_hostlist hosts = { .v = hv, .n = 3 };

static void names(void)
{
	snprintf(hosts.v[0].name, sizeof(hosts.v[0].name), "a");
	snprintf(hosts.v[1].name, sizeof(hosts.v[1].name), "b");
	snprintf(hosts.v[2].name, sizeof(hosts.v[2].name), "leaf1");
}

static void iface(struct ix_ifstat *s, const char *name, bool control, uint64_t rx, uint64_t tx)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->up = true;
	s->control = control;
	s->rx_bytes = rx;
	s->tx_bytes = tx;
}

/* A result of k flows at leaf1 whose flow i ran alone at bps[i] over
 * uplink up[i] ("s1" or "s2"), 10 MB each; at once at together[i]. */
static struct ix_ifstat last_after[4];

static void fill(struct ix_ecmp_result *r, uint32_t k, const char *const *up, const double *bps,
		 const double *together)
{
	struct ix_ifstat before[4], after[4];

	names();
	memset(r, 0, sizeof(*r));
	r->hosts = &hosts;
	r->hosts = &hosts;
	r->nflows = k;
	r->nswitches = 1;
	r->sw[0].host = 2;
	r->sw[0].ok = true;
	r->alone_done = true;
	r->together_ok = true;
	iface(&before[0], "mgmt", true, 0, 0);
	iface(&before[1], "pa", false, 0, 0);
	iface(&before[2], "s1", false, 0, 0);
	iface(&before[3], "s2", false, 0, 0);
	for (uint32_t i = 0; i < k; i++) {
		struct ix_ecmp_flow *f = &r->flows[i];

		memcpy(after, before, sizeof(after));
		after[1].rx_bytes += 10 * MB + MB / 2; /* A's data, headers included */
		after[0].tx_bytes += 1000;             /* the agent's answer */
		after[strcmp(up[i], "s1") == 0 ? 2 : 3].tx_bytes += 10 * MB + MB / 2;
		after[strcmp(up[i], "s1") == 0 ? 2 : 3].rx_bytes += MB / 10; /* ACKs */
		f->sport = (uint16_t)(30000 + i);
		f->alone_ok = true;
		f->alone_bytes = 10 * MB;
		f->alone_bps = bps[i];
		ix_ecmp_hop_from(&f->hop[0], before, 4, after, 4);
		f->ok = true;
		f->bps = together[i];
		f->bytes = (uint64_t)(together[i] / 8 * 5);
		f->seconds = 5;
	}
	memcpy(last_after, after, sizeof(after));
	ix_ecmp_map_switch(r, 0, after, 4);
}

Test(hop, in_and_out_are_the_largest_rises)
{
	struct ix_ifstat b[3], a[3];
	struct ix_ecmp_hop h;

	iface(&b[0], "pa", false, 100, 0);
	iface(&b[1], "s1", false, 0, 50);
	iface(&b[2], "s2", false, 0, 70);
	memcpy(a, b, sizeof(a));
	a[0].rx_bytes += 5 * MB;
	a[1].tx_bytes += 5 * MB;
	a[2].tx_bytes += 1000;
	ix_ecmp_hop_from(&h, b, 3, a, 3);
	cr_assert(h.read);
	cr_assert_str_eq(h.in, "pa");
	cr_assert_str_eq(h.out, "s1");
	cr_assert_eq(h.out_bytes, 5 * MB);
	cr_assert_eq(h.out2_bytes, 1000);
}

Test(map, spread_over_both_uplinks)
{
	const char *up[] = { "s1", "s2", "s1", "s1", "s2", "s1", "s2", "s1" };
	const double bps[8] = { 190e6, 190e6, 190e6, 190e6, 190e6, 190e6, 190e6, 190e6 };
	const double tog[8] = { 40e6, 66e6, 40e6, 40e6, 66e6, 40e6, 66e6, 40e6 };
	static struct ix_ecmp_result r;

	fill(&r, 8, up, bps, tog);
	cr_assert_str_eq(r.sw[0].edge, "pa");
	cr_assert(r.sw[0].first_hop);
	cr_assert_eq(r.sw[0].nup, 2, "mgmt (control) and pa (edge) are not uplinks");
	cr_assert_eq(r.sw[0].mapped, 8);
	ix_ecmp_judge(&r);
	cr_assert_eq(r.state, IX_ECMP_SPREAD);
	cr_assert_str_eq(r.verdict, "8 flows over 2 of 2 uplinks (5 and 3)");
	cr_assert_float_eq(r.spread.min, 40e6, 1);
	cr_assert_float_eq(r.spread.max, 66e6, 1);
	cr_assert(r.spread.jain > 0.9 && r.spread.jain < 1);
}

Test(map, all_on_one_uplink_is_polarised)
{
	const char *up[] = { "s2", "s2", "s2", "s2" };
	const double bps[4] = { 190e6, 190e6, 190e6, 190e6 }, tog[4] = { 50e6, 50e6, 50e6, 50e6 };
	static struct ix_ecmp_result r;

	fill(&r, 4, up, bps, tog);
	ix_ecmp_judge(&r);
	cr_assert_eq(r.state, IX_ECMP_POLARISED);
	cr_assert_str_eq(
		r.verdict,
		"the flows between a and b share 1 of 2 uplinks: ECMP hash polarised (all 4 on "
		"s2 of leaf1; a hash over the ports puts 4 flows on one uplink by chance 12% of "
		"the time)");
}

Test(map, a_flow_no_interface_explains_is_unmapped_and_no_polarisation_claimed)
{
	const char *up[] = { "s2", "s2", "s2", "s2" };
	const double bps[4] = { 190e6, 190e6, 190e6, 190e6 }, tog[4] = { 50e6, 50e6, 50e6, 50e6 };
	static struct ix_ecmp_result r;

	fill(&r, 4, up, bps, tog);
	/* Flow 3 carried four times what moved: the counters do not explain it. */
	r.flows[3].alone_bytes = 40 * MB;
	ix_ecmp_map_switch(&r, 0, last_after, 4);
	cr_assert_eq(r.sw[0].mapped, 3);
	cr_assert(strstr(r.flows[3].hop[0].why, "no interface of leaf1 sent 80% of its 40.0 MB"),
		  "%s", r.flows[3].hop[0].why);
	ix_ecmp_judge(&r);
	cr_assert_eq(r.state, IX_ECMP_UNKNOWN);
	cr_assert_str_eq(r.verdict, "3 of 4 flows mapped, all on s2 of leaf1; the others not: "
				    "polarisation not established");
}

/* Six flows over s1 and s2, alone and at once: which uplink is slow. */
struct slow_case {
	const char *up[6];
	double alone[6], together[6];
	enum ix_ecmp_state state;
};

Test(judge, an_uplink_is_slow_when_its_flows_alone_are)
{
	static const struct slow_case cases[] = {
		/* s2's flows alone at a third: blamed. */
		{ { "s1", "s2", "s1", "s2", "s1", "s2" },
		  { 190e6, 64e6, 190e6, 64e6, 190e6, 64e6 },
		  { 60e6, 21e6, 60e6, 21e6, 60e6, 21e6 },
		  IX_ECMP_SLOW },
		/* 5 and 1: at once the lone flow runs faster and the five
		 * slower; alone they are the same: nothing is slow. */
		{ { "s1", "s1", "s1", "s1", "s1", "s2" },
		  { 190e6, 190e6, 190e6, 190e6, 190e6, 190e6 },
		  { 38e6, 38e6, 38e6, 38e6, 38e6, 190e6 },
		  IX_ECMP_SPREAD },
		/* s2's median alone at 0.41 x s1's, but the figures overlap
		 * (starved guests): scatter, not a slow path. */
		{ { "s1", "s2", "s1", "s2", "s1", "s2" },
		  { 110e6, 22e6, 60e6, 45e6, 125e6, 130e6 },
		  { 30e6, 30e6, 30e6, 30e6, 30e6, 30e6 },
		  IX_ECMP_SPREAD },
	};
	static struct ix_ecmp_result r;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		fill(&r, 6, cases[c].up, cases[c].alone, cases[c].together);
		ix_ecmp_judge(&r);
		cr_assert_eq(r.state, cases[c].state, "case %zu: %s", c, r.verdict);
	}
	fill(&r, 6, cases[0].up, cases[0].alone, cases[0].together);
	ix_ecmp_judge(&r);
	cr_assert(strstr(r.verdict, "; blame: uplink s2 of leaf1 (and the spine behind it)"), "%s",
		  r.verdict);
	cr_assert(r.sw[0].up[0].blamed != r.sw[0].up[1].blamed);
	cr_assert(strncmp(r.sw[0].evidence, "s2: its 3 flow(s) alone ran at a median of", 40) == 0,
		  "%s", r.sw[0].evidence);
}

Test(judge, overlapping_figures_blame_no_uplink_and_say_why)
{
	const char *up[] = { "s1", "s1", "s1", "s1", "s2", "s2" };
	const double alone[6] = { 22e6, 32e6, 33e6, 110e6, 45e6, 125e6 };
	const double tog[6] = { 30e6, 30e6, 30e6, 30e6, 30e6, 30e6 };
	static struct ix_ecmp_result r;

	fill(&r, 6, up, alone, tog);
	ix_ecmp_judge(&r);
	cr_assert_eq(r.state, IX_ECMP_SPREAD, "%s", r.verdict);
	cr_assert_not(r.sw[0].up[0].blamed || r.sw[0].up[1].blamed);
	cr_assert(strstr(r.verdict, "; no uplink blamed: the flows' figures alone overlap (s1: "
				    "22.0 Mbit/s to 110.0 Mbit/s; the others: 45.0 Mbit/s to "
				    "125.0 Mbit/s)"),
		  "%s", r.verdict);
}

/* k flows at once at v[i], and no switch. */
static void no_switch(struct ix_ecmp_result *r, const double *v, uint32_t k)
{
	names();
	memset(r, 0, sizeof(*r));
	r->hosts = &hosts;
	r->nflows = k;
	r->together_ok = true;
	for (uint32_t i = 0; i < k; i++) {
		r->flows[i].ok = true;
		r->flows[i].bps = v[i];
	}
	ix_ecmp_judge(r);
}

Test(judge, without_a_switch_identical_figures_are_noted)
{
	static struct ix_ecmp_result r;
	const double v[4] = { 50e6, 50.01e6, 50.02e6, 50.03e6 };

	no_switch(&r, v, 4);
	cr_assert_eq(r.state, IX_ECMP_UNKNOWN);
	cr_assert(strncmp(r.verdict, "uplinks unknown", 15) == 0);
	cr_assert(strstr(r.note, "the 4 flows got the same bandwidth within"), "%s", r.note);
}

Test(judge, without_a_switch_two_groups_are_noted)
{
	static struct ix_ecmp_result r;
	const double v[8] = { 40e6, 41e6, 40e6, 39e6, 40e6, 66e6, 67e6, 66e6 };

	no_switch(&r, v, 8);
	cr_assert(strncmp(r.note, "two groups: 5 flow(s) near", 26) == 0, "%s", r.note);
	cr_assert_str_eq(ix_ecmp_state_name(IX_ECMP_SLOW), "slow_uplink");
}

/* The uplinks' counters at once, in MB: s1 moved a, s2 b. */
static void at_once(struct ix_ecmp_result *r, uint64_t a, uint64_t b)
{
	struct ix_ifstat before[4], after[4];

	memcpy(before, last_after, sizeof(before));
	memcpy(after, before, sizeof(after));
	after[2].tx_bytes += a * MB;
	after[3].tx_bytes += b * MB;
	r->params.bw.duration_s = 5;
	r->params.bw.warmup_s = 1;
	ix_ecmp_together_switch(r, 0, before, 4, after, 4);
}

Test(judge, polarised_alone_but_not_at_once_is_not_claimed)
{
	const char *up[] = { "s2", "s2", "s2", "s2" };
	const double bps[4] = { 190e6, 190e6, 190e6, 190e6 }, tog[4] = { 48e6, 48e6, 48e6, 48e6 };
	static struct ix_ecmp_result r;

	fill(&r, 4, up, bps, tog); /* each flow carries 30 MB at once */
	at_once(&r, 0, 130);
	cr_assert(r.sw[0].paths_kept, "120 MB of flows, 130 MB moved with the warm-up: kept");
	ix_ecmp_judge(&r);
	cr_assert_eq(r.state, IX_ECMP_POLARISED);
	at_once(&r, 60, 65);
	cr_assert_not(r.sw[0].paths_kept);
	cr_assert_str_eq(r.sw[0].drift,
			 "at once, s1 moved 60.0 MB while the flows mapped to it carried 0 bytes");
	ix_ecmp_judge(&r);
	cr_assert_eq(r.state, IX_ECMP_UNKNOWN, "%s", r.verdict);
	cr_assert(strstr(r.verdict, "alone: the flows between a and b share 1 of 2 uplinks") ==
			  r.verdict,
		  "%s", r.verdict);
	cr_assert(strstr(r.verdict, "; but the flows did not keep these uplinks at once"), "%s",
		  r.verdict);
}

/* Retransmissions or a longer window add bytes on every uplink alike: the
 * shares hold and so do the paths; a share that moved does not. */
Test(judge, bytes_added_on_every_uplink_alike_keep_the_paths)
{
	const char *up[] = { "s1", "s2", "s1", "s2" };
	const double bps[4] = { 190e6, 190e6, 190e6, 190e6 }, tog[4] = { 48e6, 48e6, 48e6, 48e6 };
	static struct ix_ecmp_result r;

	fill(&r, 4, up, bps, tog); /* 60 MB of flows on each uplink at once */
	at_once(&r, 100, 100);
	cr_assert(r.sw[0].paths_kept, "%s", r.sw[0].drift);
	ix_ecmp_judge(&r);
	cr_assert_eq(r.state, IX_ECMP_SPREAD, "%s", r.verdict);
	at_once(&r, 130, 70);
	cr_assert_not(r.sw[0].paths_kept);
	cr_assert_str_eq(r.sw[0].drift,
			 "at once, s1 moved 130.0 MB while the flows mapped to it carried 60.0 MB");
	at_once(&r, 40, 60);
	cr_assert_not(r.sw[0].paths_kept, "s1 short of its flows' 60 MB is never kept");
}
