#include "config.h"

#include "probes/cluster/schedule.h"

/*
 * Circle method. Let m be n rounded up to even; when n is odd, host m - 1 = n
 * is a virtual "bye" and whoever it meets sits the round out. Host m - 1 stays
 * fixed while the other M = m - 1 hosts (an odd number) turn on a circle. In
 * round r (0 <= r < M):
 *
 *	host r meets host m - 1,
 *	host (r + k) mod M meets host (r - k) mod M, for k = 1 .. (M - 1) / 2.
 *
 * Host h meets host m - 1 in round h, and meets circle host o in the round
 * r = (h + o) / 2 mod M (2 is invertible mod the odd M), so every pair meets
 * exactly once in M rounds and nobody is in two pairs of one round.
 *
 * Orientation (which host initiates, i.e. is a):
 *  - between two circle hosts, (r + k) mod M initiates towards (r - k) mod M.
 *    Host h thus initiates towards h - 2k for k = 1 .. (M - 1) / 2 and accepts
 *    from h + 2k: these 2 (M - 1) / 2 = M - 1 residues are all distinct, as
 *    2k = -2k' (mod M) would need M to divide k + k', which lies in 2 .. M - 1.
 *    Every circle host initiates exactly (M - 1) / 2 of its circle pairs (a
 *    regular tournament);
 *  - the fixed host m - 1 initiates in even rounds, host r in odd rounds.
 * For odd n the bye's pairs are dropped and every host initiates exactly
 * (n - 1) / 2 of its n - 1 pairs. For even n, host h < n - 1 initiates
 * n / 2 - 1 pairs, plus its pair with the fixed host when h is odd; the fixed
 * host initiates in the n / 2 even rounds of 0 .. n - 2. So every host
 * initiates n / 2 - 1 or n / 2 of its n - 1 pairs: floor or ceil of (n - 1) / 2.
 */

uint32_t ix_schedule_rounds(uint32_t n)
{
	if (n < 2)
		return 0;
	return (n & 1u) ? n : n - 1;
}

uint32_t ix_schedule_round(uint32_t n, uint32_t r, struct ix_pair *out)
{
	uint64_t m, M, half, k, x, y;
	uint32_t count = 0;

	if (r >= ix_schedule_rounds(n))
		return 0;
	m = (uint64_t)n + (n & 1u); /* 64 bits: n may be UINT32_MAX */
	M = m - 1;
	half = (M - 1) / 2;

	if (m - 1 < n) { /* the fixed host is real: n is even */
		if (r % 2 == 0)
			out[count++] = (struct ix_pair){ .a = (uint32_t)(m - 1), .b = r };
		else
			out[count++] = (struct ix_pair){ .a = r, .b = (uint32_t)(m - 1) };
	}
	for (k = 1; k <= half; k++) {
		x = r + k < M ? r + k : r + k - M;
		y = r >= k ? r - k : r + M - k;
		out[count++] = (struct ix_pair){ .a = (uint32_t)x, .b = (uint32_t)y };
	}
	return count;
}
