/* A bisection's cut from each host's switch (patrun.h): whole switches on
 * each side where their sizes allow. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/patrun.h"

#define DP_MAX (1u << 24) /* subset-sum table cells; beyond, first fit */

static const char *sw_name(const struct ix_neighbor *nb)
{
	return nb->name[0] ? nb->name : nb->chassis;
}

/* Which groups make up exactly target hosts: pick[g] set. */
static bool choose(const uint32_t *size, uint32_t ng, uint32_t target, uint8_t *pick)
{
	uint8_t *reach;
	size_t w = (size_t)target + 1;
	bool ok;

	memset(pick, 0, ng);
	if ((uint64_t)(ng + 1) * w > DP_MAX) { /* first fit, largest first would do better */
		uint32_t sum = 0;

		for (uint32_t g = 0; g < ng; g++)
			if (sum + size[g] <= target) {
				pick[g] = 1;
				sum += size[g];
			}
		return sum == target;
	}
	reach = calloc((ng + 1) * w, 1);
	if (!reach)
		return false;
	reach[0] = 1;
	for (uint32_t g = 0; g < ng; g++)
		for (size_t t = 0; t < w; t++)
			reach[(g + 1) * w + t] =
				reach[g * w + t] || (t >= size[g] && reach[g * w + t - size[g]]);
	ok = reach[ng * w + target];
	for (uint32_t g = ng, t = target; ok && g > 0; g--)
		if (!reach[(g - 1) * w + t]) { /* reached only with group g - 1 */
			pick[g - 1] = 1;
			t -= size[g - 1];
		}
	free(reach);
	return ok;
}

/* "leaf1+leaf2" of the groups picked (or not). */
static void names(const struct ix_pattern_host *h, const uint32_t *first, const uint8_t *pick,
		  uint32_t ng, uint8_t want, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (uint32_t g = 0; g < ng && off + 2 < len; g++)
		if (pick[g] == want) {
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "+" : "",
						sw_name(&h[first[g]].link.neighbor));
			off = off < len ? off : len - 1;
		}
}

int ix_pattern_split(const struct ix_pattern_host *h, uint32_t n, uint32_t *order, char *why,
		     size_t len)
{
	uint32_t *group = calloc(n + 1, sizeof(*group)), *first = calloc(n + 1, sizeof(*first));
	uint32_t *size = calloc(n + 1, sizeof(*size)), ng = 0, k = 0;
	uint8_t *pick = calloc(n + 1, 1);
	char a[128], b[128];
	int rc = -1;

	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	snprintf(why, len,
		 "the host list's order: its first half against its second (not every "
		 "host's switch is known)");
	if (!group || !first || !size || !pick)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g = 0;

		if (!h[i].link.neighbor.source[0])
			goto out;
		while (g < ng &&
		       strcmp(h[first[g]].link.neighbor.chassis, h[i].link.neighbor.chassis) != 0)
			g++;
		if (g == ng)
			first[ng++] = i;
		group[i] = g;
		size[g]++;
	}
	rc = choose(size, ng, n / 2, pick) ? 1 : 0;
	if (!rc) /* switches kept together in order: one straddles the cut */
		memset(pick, 1, ng);
	for (uint8_t side = 1;; side = 0) {
		for (uint32_t g = 0; g < ng; g++)
			for (uint32_t i = 0; pick[g] == side && i < n; i++)
				if (group[i] == g)
					order[k++] = i;
		if (!side)
			break;
	}
	names(h, first, pick, ng, 1, a, sizeof(a));
	names(h, first, pick, ng, 0, b, sizeof(b));
	if (rc)
		snprintf(why, len, "whole switches on each side: %s | %s (LLDP)", a, b);
	else
		snprintf(why, len,
			 "no halves of whole switches: the hosts in switch order (%s), "
			 "one switch across the cut",
			 a);
out:
	free(group);
	free(first);
	free(size);
	free(pick);
	return rc;
}
