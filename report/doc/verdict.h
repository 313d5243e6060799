/* Figures of a check's results, as plans name them, read from the result
 * objects every renderer reads (bw, lat, mesh, incast JSON). */
#ifndef IX_VERDICT_H
#define IX_VERDICT_H

#include <stdbool.h>

#include <jansson.h>

/* The value of a named figure over a check's results array; false when it
 * was not measured. Where a check has several results (sizes, steps), the
 * worst one counts: the lowest bandwidth, the highest latency or count. */
bool ix_figure_of(const char *probe, json_t *results, const char *figure, double *value);

/* Fabric counter figures, sums of counter classes (probes/core/counters.h)
 * over both ends of every test: "pfc_pauses" (received and sent), "cnp"
 * (sent and handled), "ecn_marked", "fabric_drops", "fabric_retransmissions"
 * and "fabric_errors" (errors and link events). */
#define IX_COUNTER_FIGURES 6
extern const char *const ix_counter_figure_names[IX_COUNTER_FIGURES];
/* Such a figure of one result (bw, lat, mesh or incast); false when the
 * result read no counters. */
bool ix_counter_figure(json_t *result, const char *figure, double *value);

struct ix_headline {
	const char *name;
	const char *unit;
	bool higher_better;
	bool valid;
	double value;
};

/* The one figure a check is known by (goodput, p99, median pair bw, ...). */
void ix_headline_of(const char *probe, json_t *results, struct ix_headline *h);

/* The verdict of a whole document, the same as the exit status of the
 * command that wrote it: a run's own verdict; else ERROR when it carries
 * an error or is incomplete (exit 1), FAIL when a mesh found bad pairs, a
 * pattern bad hosts, --rails a bad rail, or an incast missed a threshold
 * it was given (exit 4), PASS when such a judgement held, INFO when
 * nothing was judged (measured only, exit 0). */
const char *ix_doc_verdict(json_t *doc);

/* The headline of check 'name' in a saved run document; false if absent. */
bool ix_baseline_headline(json_t *doc, const char *name, double *value);

#endif
