/* Unit tests for probes/cluster/schedule.c: the circle-method round robin meets every
 * pair once, never puts a host in two pairs of a round, and balances who
 * initiates. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/schedule.h"

/*
 * Checks the whole schedule for n hosts:
 *  - rounds is n - 1 for even n, n for odd n, and each round has n / 2 pairs;
 *  - every pair is valid (a != b, both < n) and no host is in two pairs of
 *    one round (a stamp per host holds the last round it was seen in);
 *  - every unordered pair appears exactly once (a bitmap of n * n bits, bit
 *    min * n + max);
 *  - each host initiates floor((n - 1) / 2) or ceil((n - 1) / 2) of its
 *    n - 1 pairs (see the orientation rule in schedule.c);
 *  - nothing is written past out[n / 2 - 1].
 */
static void check_schedule(uint32_t n)
{
	uint32_t rounds = ix_schedule_rounds(n), per_round = n / 2;
	uint64_t bits = (uint64_t)n * n, total = 0;
	uint64_t *seen = calloc((size_t)(bits + 63) / 64, sizeof(*seen));
	uint32_t *stamp = malloc(n * sizeof(*stamp));
	uint32_t *initiated = calloc(n, sizeof(*initiated));
	struct ix_pair *out = malloc((per_round + 1) * sizeof(*out));
	uint32_t lo = (n - 1) / 2, hi = n / 2; /* floor and ceil of (n - 1) / 2 */

	cr_assert(seen && stamp && initiated && out, "out of memory for n = %u", n);
	cr_assert_eq(rounds, n % 2 ? n : n - 1, "n = %u: %u rounds", n, rounds);
	memset(stamp, 0xff, n * sizeof(*stamp));

	for (uint32_t r = 0; r < rounds; r++) {
		uint32_t got;

		out[per_round] = (struct ix_pair){ .a = 0xdeadbeef, .b = 0xfeedface };
		got = ix_schedule_round(n, r, out);
		cr_assert_eq(got, per_round, "n = %u round %u: %u pairs", n, r, got);
		cr_assert(out[per_round].a == 0xdeadbeef && out[per_round].b == 0xfeedface,
			  "n = %u round %u wrote past n / 2 pairs", n, r);
		for (uint32_t i = 0; i < got; i++) {
			uint32_t a = out[i].a, b = out[i].b, x, y;
			uint64_t bit;

			/* cr_assert per pair is slow over millions: test, then report */
			if (a >= n || b >= n || a == b)
				cr_assert_fail("n = %u round %u: invalid pair (%u, %u)", n, r, a,
					       b);
			if (stamp[a] == r || stamp[b] == r)
				cr_assert_fail("n = %u round %u: host %u or %u in two pairs", n, r,
					       a, b);
			stamp[a] = stamp[b] = r;
			x = a < b ? a : b;
			y = a < b ? b : a;
			bit = (uint64_t)x * n + y;
			if (seen[bit / 64] & (1ull << (bit % 64)))
				cr_assert_fail("n = %u round %u: pair (%u, %u) met twice", n, r, a,
					       b);
			seen[bit / 64] |= 1ull << (bit % 64);
			initiated[a]++;
			total++;
		}
	}

	cr_assert_eq(total, (uint64_t)n * (n - 1) / 2, "n = %u: %llu pairs in all", n,
		     (unsigned long long)total);
	/* n (n - 1) / 2 distinct pairs, none twice, all x < y: every pair once.
	 * Still, walk the bitmap for a direct check. */
	for (uint32_t x = 0; x < n; x++)
		for (uint32_t y = x + 1; y < n; y++) {
			uint64_t bit = (uint64_t)x * n + y;

			if (!(seen[bit / 64] & (1ull << (bit % 64))))
				cr_assert_fail("n = %u: pair (%u, %u) never met", n, x, y);
		}
	for (uint32_t h = 0; h < n; h++)
		if (initiated[h] < lo || initiated[h] > hi)
			cr_assert_fail("n = %u: host %u initiates %u of %u pairs, want %u..%u", n,
				       h, initiated[h], n - 1, lo, hi);

	free(seen);
	free(stamp);
	free(initiated);
	free(out);
}

Test(schedule, no_rounds_below_two_hosts)
{
	struct ix_pair out[1] = { { 7, 7 } };

	cr_assert_eq(ix_schedule_rounds(0), 0);
	cr_assert_eq(ix_schedule_rounds(1), 0);
	cr_assert_eq(ix_schedule_round(0, 0, out), 0);
	cr_assert_eq(ix_schedule_round(1, 0, out), 0);
	cr_assert(out[0].a == 7 && out[0].b == 7, "nothing written");
}

Test(schedule, round_counts)
{
	cr_assert_eq(ix_schedule_rounds(2), 1);
	cr_assert_eq(ix_schedule_rounds(3), 3);
	cr_assert_eq(ix_schedule_rounds(4), 3);
	cr_assert_eq(ix_schedule_rounds(5), 5);
	cr_assert_eq(ix_schedule_rounds(4096), 4095);
	cr_assert_eq(ix_schedule_rounds(UINT32_MAX), UINT32_MAX);
	cr_assert_eq(ix_schedule_rounds(UINT32_MAX - 1), UINT32_MAX - 2);
}

Test(schedule, round_past_the_end_returns_nothing)
{
	struct ix_pair out[4] = { { 0 } };

	cr_assert_eq(ix_schedule_round(2, 1, out), 0);
	cr_assert_eq(ix_schedule_round(3, 3, out), 0);
	cr_assert_eq(ix_schedule_round(8, 7, out), 0);
	cr_assert_eq(ix_schedule_round(8, UINT32_MAX, out), 0);
	cr_assert_eq(ix_schedule_round(8, 6, out), 4);
}

Test(schedule, two_hosts_meet_once)
{
	struct ix_pair out[1];

	cr_assert_eq(ix_schedule_round(2, 0, out), 1);
	cr_assert(out[0].a != out[0].b && out[0].a < 2 && out[0].b < 2);
}

Test(schedule, three_hosts_one_sits_out_each_round)
{
	struct ix_pair out[1];
	uint32_t sat_out = 0;

	for (uint32_t r = 0; r < 3; r++) {
		cr_assert_eq(ix_schedule_round(3, r, out), 1);
		sat_out |= 1u << (3 - out[0].a - out[0].b); /* 0 + 1 + 2 = 3 */
	}
	cr_assert_eq(sat_out, 7, "each host sits out once");
}

Test(schedule, same_answer_every_time)
{
	struct ix_pair a[50], b[50];

	for (uint32_t r = 0; r < 99; r++) {
		uint32_t na = ix_schedule_round(100, r, a), nb = ix_schedule_round(100, r, b);

		cr_assert_eq(na, nb);
		cr_assert_eq(memcmp(a, b, na * sizeof(*a)), 0, "round %u differs", r);
	}
}

Test(schedule, every_n_from_2_to_300)
{
	for (uint32_t n = 2; n <= 300; n++)
		check_schedule(n);
}

Test(schedule, large_odd_and_even_n)
{
	static const uint32_t ns[] = { 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048 };

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		check_schedule(ns[i]);
}

Test(schedule, n_4095)
{
	check_schedule(4095);
}

Test(schedule, n_4096)
{
	check_schedule(4096);
}

/* Only the first and last rounds of a huge n: O(n) each, no allocation. */
Test(schedule, huge_n_first_and_last_round)
{
	uint32_t n = 1u << 20, rounds = ix_schedule_rounds(n);
	struct ix_pair *out = malloc(n / 2 * sizeof(*out));
	uint8_t *in = calloc(n, 1);
	uint32_t rs[] = { 0, rounds - 1 };

	cr_assert(out && in);
	for (size_t i = 0; i < 2; i++) {
		uint32_t got = ix_schedule_round(n, rs[i], out);

		cr_assert_eq(got, n / 2);
		memset(in, 0, n);
		for (uint32_t j = 0; j < got; j++) {
			if (out[j].a >= n || out[j].b >= n || in[out[j].a] || in[out[j].b])
				cr_assert_fail("round %u pair %u invalid or repeated", rs[i], j);
			in[out[j].a] = in[out[j].b] = 1;
		}
	}
	free(out);
	free(in);
}
