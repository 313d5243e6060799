/* Renderers of the live monitor's models ("ixperf top"): JSON documents
 * (unknown figures are null, never 0) and plain text snapshots. */
#ifndef IX_REPORT_TOP_H
#define IX_REPORT_TOP_H

#include <stdio.h>

#include <jansson.h>

#include "probes/links.h"
#include "probes/talkers.h"

/* {"samples", "interval_s", "links": [{name, kind, ..., "counters": {...},
 * "rates": {...}}]}; new reference. */
json_t *ix_json_links(const struct ix_top_model *m);
/* {"period_s", "packets", "bytes", "other_packets", "other_bytes",
 * "hosts": [...], "pairs": [{"src", "dst", "bytes", "bytes_per_second"}]}
 * with src and dst indexes into hosts; pairs without traffic left out. */
json_t *ix_json_talkers(const struct ix_talkers_view *v);

/* One line per link: interface, state, speed, MTU, rx and tx rate,
 * utilisation, errors and drops per second; "-" where unknown. */
void ix_text_links(FILE *f, const struct ix_top_model *m);
/* The top_n busiest pairs (0: all of them). */
void ix_text_talkers(FILE *f, const struct ix_talkers_view *v, size_t top_n);

#endif
