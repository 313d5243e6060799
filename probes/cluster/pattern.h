/*
 * Fabric-wide traffic patterns: many tests at once, the way a job loads
 * a fabric, instead of one pair per host per round (all-pairs, schedule.h).
 *
 *   all-to-all   every host to every other at once (each ordered pair a
 *                test); in waves of at most IX_PATTERN_FANOUT tests per
 *                host when there are more peers than that
 *   bisection    the hosts in two halves (in the order given: whole
 *                switches where they are known), each host to its partner
 *                across the cut, both directions at once; an odd host out
 *   permutation  rounds, each a random derangement from a seed: every host
 *                sends to one host and receives from one, all at once
 *   ring         host i to host i + 1 (mod n) at once; both directions:
 *                also to host i - 1
 *
 * A stage is one set of tests started together (a round, or a wave of
 * all-to-all). Pure functions: no allocation beyond what is asked.
 */
#ifndef IX_PATTERN_H
#define IX_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/cluster/schedule.h"
#include "probes/core/err.h"

enum ix_pattern {
	IX_PATTERN_ALL_PAIRS,
	IX_PATTERN_ALL_TO_ALL,
	IX_PATTERN_BISECTION,
	IX_PATTERN_PERMUTATION,
	IX_PATTERN_RING,
	IX_PATTERN_COUNT,
};

/* Tests one host starts at once at most. An agent holds 16 tests at once
 * and 8 from one address by default: each of a host's tests is a RUN job
 * from the coordinator's address at its end and a test at its peer's, so
 * 7 out and 7 in fit both limits. */
#define IX_PATTERN_FANOUT         7u
#define IX_PATTERN_DEFAULT_ROUNDS 3u
#define IX_PATTERN_MAX_ROUNDS     1000u
/* What one batch of tests costs beyond the tests themselves when nothing
 * has been measured: the RUN jobs out, the connections, the reports back. */
#define IX_PATTERN_ROUND_OVERHEAD_S 0.3

struct ix_pattern_plan {
	enum ix_pattern pattern;
	uint32_t n;            /* hosts */
	bool both_directions;  /* ring: i - 1 too; all-pairs: every ordered pair */
	uint32_t rounds;       /* permutation (0: IX_PATTERN_DEFAULT_ROUNDS) */
	uint64_t seed;         /* permutation */
	const uint32_t *order; /* bisection: the hosts in cut order; NULL: 0 .. n - 1 */
};

/* "all-to-all"; NULL out of range. */
const char *ix_pattern_name(enum ix_pattern p);
/* A pattern by name; -1 with a usage error listing them. */
int ix_pattern_parse(const char *s, enum ix_pattern *out, struct ix_err *err);
/* Stages of a plan (0 when n < 2). All-pairs is not staged here: its
 * rounds are ix_schedule_rounds'. */
uint32_t ix_pattern_stages(const struct ix_pattern_plan *pl);
/* Most tests one stage holds: out of ix_pattern_stage needs that room. */
uint32_t ix_pattern_stage_max(const struct ix_pattern_plan *pl);
/* The tests of stage s (a initiates towards b) into out; how many. */
uint32_t ix_pattern_stage(const struct ix_pattern_plan *pl, uint32_t s, struct ix_pair *out);
/* Round r's derangement of n hosts from seed into to (to[i] != i, a
 * permutation); n >= 2. The same seed and r give the same one anywhere. */
void ix_pattern_derangement(uint32_t n, uint64_t seed, uint32_t r, uint32_t *to);

/* A seed for a permutation nobody gave one: from the clock and the
 * process (12 digits, easy to copy into --seed). */
uint64_t ix_pattern_new_seed(void);

/* How long a plan takes: stages (rounds) of batches, each batch the test
 * time plus the per-batch overhead. */
struct ix_pattern_estimate {
	uint32_t rounds;          /* stages, per direction for all-pairs */
	uint32_t tests_per_round; /* kinds of test per round (bw, lat) */
	uint64_t batches;         /* dispatches in all */
	double seconds;
};

/* test_s: one batch's tests (warm-up and time of each kind asked, summed);
 * kinds: how many kinds (1 or 2); concurrency: all-pairs' pairs at once
 * (0: a whole round). */
void ix_pattern_estimate(const struct ix_pattern_plan *pl, double test_s, uint32_t kinds,
			 uint32_t concurrency, double overhead_s, struct ix_pattern_estimate *e);
/* "about 58 min", "about 5 s", "about 2.1 h" */
void ix_pattern_duration_text(double s, char *buf, size_t len);

#endif
