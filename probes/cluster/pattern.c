#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probes/cluster/pattern.h"

static const char *const names[IX_PATTERN_COUNT] = {
	[IX_PATTERN_ALL_PAIRS] = "all-pairs", [IX_PATTERN_ALL_TO_ALL] = "all-to-all",
	[IX_PATTERN_BISECTION] = "bisection", [IX_PATTERN_PERMUTATION] = "permutation",
	[IX_PATTERN_RING] = "ring",
};

const char *ix_pattern_name(enum ix_pattern p)
{
	return (unsigned)p < IX_PATTERN_COUNT ? names[p] : NULL;
}

int ix_pattern_parse(const char *s, enum ix_pattern *out, struct ix_err *err)
{
	for (unsigned i = 0; s && i < IX_PATTERN_COUNT; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum ix_pattern)i;
			return 0;
		}
	}
	return ix_fail(err, IX_EXIT_USAGE,
		       "unknown pattern '%s' (all-pairs, all-to-all, bisection, permutation, ring)",
		       s ? s : "");
}

static uint32_t rounds_of(const struct ix_pattern_plan *pl)
{
	return pl->rounds ? pl->rounds : IX_PATTERN_DEFAULT_ROUNDS;
}

/* The ring's shifts: 1, and n - 1 with both directions (the same one for
 * two hosts). */
static uint32_t ring_shifts(const struct ix_pattern_plan *pl)
{
	return pl->both_directions && pl->n > 2 ? 2 : 1;
}

uint32_t ix_pattern_stages(const struct ix_pattern_plan *pl)
{
	if (pl->n < 2)
		return 0;
	switch (pl->pattern) {
	case IX_PATTERN_ALL_PAIRS:
		return ix_schedule_rounds(pl->n);
	case IX_PATTERN_ALL_TO_ALL:
		return (pl->n - 1 + IX_PATTERN_FANOUT - 1) / IX_PATTERN_FANOUT;
	case IX_PATTERN_PERMUTATION:
		return rounds_of(pl);
	case IX_PATTERN_BISECTION:
	case IX_PATTERN_RING:
		return 1;
	default:
		return 0;
	}
}

uint32_t ix_pattern_stage_max(const struct ix_pattern_plan *pl)
{
	uint32_t n = pl->n;

	if (n < 2)
		return 0;
	switch (pl->pattern) {
	case IX_PATTERN_ALL_PAIRS:
		return n / 2;
	case IX_PATTERN_ALL_TO_ALL:
		return n * (n - 1 < IX_PATTERN_FANOUT ? n - 1 : IX_PATTERN_FANOUT);
	case IX_PATTERN_BISECTION:
		return n / 2 * 2;
	case IX_PATTERN_RING:
		return n * ring_shifts(pl);
	default:
		return n;
	}
}

/* splitmix64: a small generator whose sequence is fixed by its seed. */
static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Below bound, without modulo bias. */
static uint32_t below(uint64_t *x, uint32_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound, v;

	do
		v = splitmix(x);
	while (v >= limit);
	return (uint32_t)(v % bound);
}

void ix_pattern_derangement(uint32_t n, uint64_t seed, uint32_t r, uint32_t *to)
{
	uint64_t x = seed ^ (0xd1b54a32d192ed03ull * ((uint64_t)r + 1));
	bool fixed = true;

	/* Uniform over derangements: shuffle until no host maps to itself
	 * (about e tries on average). */
	while (fixed) {
		for (uint32_t i = 0; i < n; i++)
			to[i] = i;
		for (uint32_t i = n - 1; i > 0; i--) {
			uint32_t j = below(&x, i + 1), t = to[i];

			to[i] = to[j];
			to[j] = t;
		}
		fixed = false;
		for (uint32_t i = 0; i < n && !fixed; i++)
			fixed = to[i] == i;
	}
}

static uint32_t host_at(const struct ix_pattern_plan *pl, uint32_t i)
{
	return pl->order ? pl->order[i] : i;
}

static uint32_t all_to_all(const struct ix_pattern_plan *pl, uint32_t s, struct ix_pair *out)
{
	uint32_t n = pl->n, first = s * IX_PATTERN_FANOUT + 1, count = 0;

	for (uint32_t d = first; d < n && d < first + IX_PATTERN_FANOUT; d++)
		for (uint32_t i = 0; i < n; i++)
			out[count++] = (struct ix_pair){ i, (uint32_t)(((uint64_t)i + d) % n) };
	return count;
}

uint32_t ix_pattern_stage(const struct ix_pattern_plan *pl, uint32_t s, struct ix_pair *out)
{
	uint32_t n = pl->n, count = 0, half = n / 2;

	if (s >= ix_pattern_stages(pl))
		return 0;
	switch (pl->pattern) {
	case IX_PATTERN_ALL_PAIRS:
		return ix_schedule_round(n, s, out);
	case IX_PATTERN_ALL_TO_ALL:
		return all_to_all(pl, s, out);
	case IX_PATTERN_BISECTION:
		for (uint32_t i = 0; i < half; i++) {
			uint32_t a = host_at(pl, i), b = host_at(pl, i + half);

			out[count++] = (struct ix_pair){ a, b };
			out[count++] = (struct ix_pair){ b, a };
		}
		return count;
	case IX_PATTERN_RING:
		for (uint32_t i = 0; i < n; i++)
			out[count++] = (struct ix_pair){ i, (i + 1) % n };
		for (uint32_t i = 0; ring_shifts(pl) == 2 && i < n; i++)
			out[count++] = (struct ix_pair){ i, (i + n - 1) % n };
		return count;
	case IX_PATTERN_PERMUTATION: {
		/* The partner of host i is written in out[i].b first. */
		uint32_t *to = (uint32_t *)out;

		ix_pattern_derangement(n, pl->seed, s, to);
		for (uint32_t i = n; i-- > 0;)
			out[i] = (struct ix_pair){ i, to[i] };
		return n;
	}
	default:
		return 0;
	}
}

uint64_t ix_pattern_new_seed(void)
{
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_REALTIME, &ts);
	x = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40);
	return splitmix(&x) % 1000000000000ull;
}

void ix_pattern_estimate(const struct ix_pattern_plan *pl, double test_s, uint32_t kinds,
			 uint32_t concurrency, double overhead_s, struct ix_pattern_estimate *e)
{
	uint64_t per_stage = 1;

	memset(e, 0, sizeof(*e));
	e->rounds = ix_pattern_stages(pl);
	e->tests_per_round = kinds ? kinds : 1;
	if (pl->pattern == IX_PATTERN_ALL_PAIRS) {
		uint32_t pairs = pl->n / 2,
			 cap = concurrency && concurrency < pairs ? concurrency : pairs;

		per_stage = cap ? (pairs + cap - 1) / cap : 1;
		per_stage *= pl->both_directions ? 2 : 1;
	} else {
		e->tests_per_round = 1; /* patterns measure bandwidth */
	}
	e->batches = (uint64_t)e->rounds * per_stage * e->tests_per_round;
	e->seconds = (double)e->rounds * (double)per_stage *
		     (test_s + (double)e->tests_per_round * overhead_s);
}

void ix_pattern_duration_text(double s, char *buf, size_t len)
{
	if (s < 90)
		snprintf(buf, len, "about %.0f s", s < 1 ? 1 : s);
	else if (s < 90 * 60)
		snprintf(buf, len, "about %.0f min", s / 60);
	else
		snprintf(buf, len, "about %.1f h", s / 3600);
}
