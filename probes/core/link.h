/* A link a test's traffic crosses (struct ix_link_limit, probe.h) as JSON,
 * both ways, and the lower of a path's two ends. One format for the wire
 * (RESULT and REPORT carry the far end's), for result files and for
 * reading them back. */
#ifndef IX_LINK_H
#define IX_LINK_H

#include <jansson.h>

#include "probes/core/err.h"
#include "probes/core/probe.h"

/* A goodput at this share of a ceiling or above sits at it: PCIe's own
 * packet headers and flow control take 10 to 15% of its encoded rate. */
#define IX_AT_CEILING 0.8
/* Above this share of a ceiling the traffic did not cross that link alone. */
#define IX_ABOVE_CEILING 1.05

/* {iface, bps, source, pcie: {...} | null, gpu_pcie (only when known),
 * ceiling_bps, bottleneck}; null when no interface is known. */
json_t *ix_link_json(const struct ix_link_limit *l);
/* A switch port as the link and the inventory write it. */
json_t *ix_neighbor_json(const struct ix_neighbor *n);
/* Back from ix_link_json; null or absent leaves out zeroed (iface "").
 * -1 with err when it is malformed. */
int ix_link_parse(json_t *j, struct ix_link_limit *out, struct ix_err *err);
/* Set ceiling_bps and bottleneck from bps, pcie and gpu: the lowest of
 * what is known (the line first on a tie). */
void ix_link_settle(struct ix_link_limit *l);
/* The path's ceiling: the end whose ceiling is lower, or the one that has
 * one; NULL when neither end's is known. */
const struct ix_link_limit *ix_link_lower(const struct ix_link_limit *a,
					  const struct ix_link_limit *b);
/* Its ceiling in bit/s (0 when unknown or l is NULL). */
double ix_link_ceiling(const struct ix_link_limit *l);

#endif
