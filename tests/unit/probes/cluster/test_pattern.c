/* Unit tests for probes/cluster/pattern.c: each pattern's stages hold the
 * tests it promises (every ordered pair once for all-to-all, partners across
 * the cut for bisection, derangements for permutation, i -> i + 1 for ring),
 * no host starts more than IX_PATTERN_FANOUT tests at once, and the
 * estimates count rounds and time as documented. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/pattern.h"

Test(pattern, names_parse_back)
{
	for (int k = 0; k < IX_PATTERN_COUNT; k++) {
		enum ix_pattern p;
		struct ix_err err = { 0 };

		cr_assert_eq(ix_pattern_parse(ix_pattern_name((enum ix_pattern)k), &p, &err), 0);
		cr_assert_eq((int)p, k);
	}
	cr_assert_null(ix_pattern_name(IX_PATTERN_COUNT));
}

Test(pattern, unknown_name_is_a_usage_error_listing_them)
{
	enum ix_pattern p;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_pattern_parse("star", &p, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_str_eq(err.msg, "unknown pattern 'star' (all-pairs, all-to-all, bisection, "
				  "permutation, ring)");
}

/* Every stage of pl into a count per ordered pair (n * n), checking that
 * no host starts more than the fan-out in one stage. */
static uint32_t *tally(const struct ix_pattern_plan *pl, uint32_t *total)
{
	uint32_t n = pl->n, max = ix_pattern_stage_max(pl);
	uint32_t *seen = calloc((size_t)n * n, sizeof(*seen)), *starts = calloc(n, sizeof(*starts));
	struct ix_pair *out = calloc(max + 1, sizeof(*out));

	*total = 0;
	for (uint32_t s = 0; s < ix_pattern_stages(pl); s++) {
		uint32_t k = ix_pattern_stage(pl, s, out);

		cr_assert_leq(k, max, "stage %u: %u tests, room for %u", s, k, max);
		memset(starts, 0, n * sizeof(*starts));
		for (uint32_t i = 0; i < k; i++) {
			cr_assert_neq(out[i].a, out[i].b);
			cr_assert_lt(out[i].a, n);
			cr_assert_lt(out[i].b, n);
			seen[(size_t)out[i].a * n + out[i].b]++;
			cr_assert_leq(++starts[out[i].a], IX_PATTERN_FANOUT);
		}
		*total += k;
	}
	free(starts);
	free(out);
	return seen;
}

Test(pattern, all_to_all_is_every_ordered_pair_once_in_waves)
{
	static const uint32_t ns[] = { 2, 4, 8, 9, 20 };

	for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
		struct ix_pattern_plan pl = { .pattern = IX_PATTERN_ALL_TO_ALL, .n = ns[t] };
		uint32_t total, n = ns[t], *seen = tally(&pl, &total);

		cr_assert_eq(ix_pattern_stages(&pl), (n - 1 + 6) / 7, "n = %u", n);
		cr_assert_eq(total, n * (n - 1));
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = 0; b < n; b++)
				cr_assert_eq(seen[a * n + b], a != b, "n = %u: %u -> %u", n, a, b);
		free(seen);
	}
}

Test(pattern, bisection_pairs_partners_across_the_cut_both_ways)
{
	uint32_t order[6] = { 1, 3, 5, 0, 2, 4 }, total, *seen;
	struct ix_pattern_plan pl = { .pattern = IX_PATTERN_BISECTION, .n = 6, .order = order };

	seen = tally(&pl, &total);
	cr_assert_eq(ix_pattern_stages(&pl), 1);
	cr_assert_eq(total, 6);
	for (uint32_t k = 0; k < 3; k++) {
		cr_assert_eq(seen[order[k] * 6 + order[k + 3]], 1);
		cr_assert_eq(seen[order[k + 3] * 6 + order[k]], 1);
	}
	free(seen);
}

Test(pattern, bisection_of_an_odd_count_leaves_the_last_out)
{
	struct ix_pattern_plan pl = { .pattern = IX_PATTERN_BISECTION, .n = 5 };
	uint32_t total, *seen = tally(&pl, &total);

	cr_assert_eq(total, 4);
	for (uint32_t i = 0; i < 5; i++)
		cr_assert_eq(seen[4 * 5 + i] + seen[i * 5 + 4], 0, "host 4 sits out");
	free(seen);
}

Test(pattern, ring_forward_and_both_ways)
{
	struct ix_pattern_plan pl = { .pattern = IX_PATTERN_RING, .n = 5 };
	uint32_t total, *seen = tally(&pl, &total);

	cr_assert_eq(total, 5);
	for (uint32_t i = 0; i < 5; i++)
		cr_assert_eq(seen[i * 5 + (i + 1) % 5], 1);
	free(seen);
	pl.both_directions = true;
	seen = tally(&pl, &total);
	cr_assert_eq(total, 10);
	for (uint32_t i = 0; i < 5; i++)
		cr_assert_eq(seen[i * 5 + (i + 4) % 5], 1);
	free(seen);
	pl.n = 2; /* i + 1 and i - 1 are one host: each way once */
	seen = tally(&pl, &total);
	cr_assert_eq(total, 2);
	free(seen);
}

Test(pattern, permutation_rounds_are_derangements_repeated_by_their_seed)
{
	for (uint32_t n = 2; n < 40; n++) {
		struct ix_pattern_plan pl = {
			.pattern = IX_PATTERN_PERMUTATION, .n = n, .rounds = 4, .seed = 42 + n
		};
		uint32_t total, *seen = tally(&pl, &total);
		uint32_t *a = calloc(n, sizeof(*a)), *b = calloc(n, sizeof(*b));

		cr_assert_eq(total, 4 * n);
		for (uint32_t r = 0; r < 4; r++) {
			uint32_t *hit = calloc(n, sizeof(*hit));

			ix_pattern_derangement(n, pl.seed, r, a);
			ix_pattern_derangement(n, pl.seed, r, b);
			cr_assert_arr_eq(a, b, n * sizeof(*a), "the same seed, the same round");
			for (uint32_t i = 0; i < n; i++) {
				cr_assert_neq(a[i], i);
				cr_assert_eq(hit[a[i]]++, 0,
					     "a permutation: every host receives once");
			}
			free(hit);
		}
		free(a);
		free(b);
		free(seen);
	}
}

Test(pattern, permutation_seeds_differ)
{
	uint32_t a[16], b[16];

	ix_pattern_derangement(16, 1, 0, a);
	ix_pattern_derangement(16, 2, 0, b);
	cr_assert(memcmp(a, b, sizeof(a)) != 0);
	cr_assert_eq(ix_pattern_stages(&(struct ix_pattern_plan){ .pattern = IX_PATTERN_PERMUTATION,
								  .n = 4 }),
		     IX_PATTERN_DEFAULT_ROUNDS);
}

Test(pattern, no_stage_below_two_hosts)
{
	for (int k = 0; k < IX_PATTERN_COUNT; k++)
		cr_assert_eq(ix_pattern_stages(&(struct ix_pattern_plan){ .pattern = k, .n = 1 }),
			     0);
}

Test(pattern, estimate_counts_rounds_and_time)
{
	struct ix_pattern_plan ap = { .pattern = IX_PATTERN_ALL_PAIRS, .n = 1024 };
	struct ix_pattern_plan bi = { .pattern = IX_PATTERN_BISECTION, .n = 1024 };
	struct ix_pattern_estimate e;
	char t[32];

	ix_pattern_estimate(&ap, 3.6, 2, 0, 0.3, &e);
	cr_assert_eq(e.rounds, 1023);
	cr_assert_eq(e.tests_per_round, 2);
	cr_assert_eq(e.batches, 2046);
	cr_assert_float_eq(e.seconds, 1023 * (3.6 + 2 * 0.3), 1e-6);
	ix_pattern_estimate(&ap, 3.6, 2, 128, 0.3, &e); /* 512 pairs, 128 at once */
	cr_assert_float_eq(e.seconds, 1023 * 4 * (3.6 + 2 * 0.3), 1e-6);
	ix_pattern_estimate(&bi, 2.5, 1, 0, 0.3, &e);
	cr_assert_eq(e.rounds, 1);
	cr_assert_float_eq(e.seconds, 2.8, 1e-9);
	ix_pattern_duration_text(4297, t, sizeof(t));
	cr_assert_str_eq(t, "about 72 min");
	ix_pattern_duration_text(2.8, t, sizeof(t));
	cr_assert_str_eq(t, "about 3 s");
	ix_pattern_duration_text(9000, t, sizeof(t));
	cr_assert_str_eq(t, "about 2.5 h");
}
