/*
 * All-pairs scheduling: a round-robin tournament by the circle method.
 * Every unordered pair of n hosts meets exactly once, no host is in two
 * pairs of one round, in n - 1 rounds for even n and n rounds for odd n
 * (one host sits out each round).
 */
#ifndef IX_SCHEDULE_H
#define IX_SCHEDULE_H

#include <stdint.h>

struct ix_pair {
	uint32_t a, b; /* host indexes, a != b */
};

uint32_t ix_schedule_rounds(uint32_t n);
/* The pairs of round r (0 <= r < rounds) into out, which has room for
 * n / 2 pairs; returns how many. O(n) time, no allocation. */
uint32_t ix_schedule_round(uint32_t n, uint32_t r, struct ix_pair *out);

#endif
