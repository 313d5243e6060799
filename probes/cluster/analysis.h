/* Figures derived from many results: fairness, bad pairs, suspects, and the
 * one-line diagnosis of an incast sweep. Pure functions over plain arrays. */
#ifndef IX_ANALYSIS_H
#define IX_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/counters.h"
#include "probes/core/link.h"
#include "probes/cluster/cells.h"

/* A rate in the unit that keeps it readable in a sentence: "3.10 Gbit/s",
 * "118.0 Mbit/s", "12.5 kbit/s". */
void ix_rate_text(double bps, char *buf, size_t len);

/* Jain's fairness index (sum x)^2 / (n * sum x^2): 1 = perfectly fair,
 * 1/n = one flow got everything. 0 when n == 0 or every x is 0. */
double ix_jain_index(const double *x, size_t n);
/* Median of n values (sorts a private copy); 0 when n == 0. */
double ix_median(const double *x, size_t n);
/* The same of scratch values, reordered in place (no copy, O(n)). */
double ix_median_float(float *x, size_t n);

/* Which cells of a store a figure is taken over. */
typedef bool (*ix_cell_keep_fn)(const struct ix_cell *c, uint32_t row, uint32_t col,
				const void *arg);
/* The pct-th percentile (0..100, interpolated between ranks) of the
 * bandwidths (or with lat the p50 latencies) of the cells keep() takes,
 * each of which must have a figure > 0, and *count of them; 0 when none,
 * NAN when out of memory. Radix selection over the store: O(n^2) time and
 * 512 KiB, no copy of the cells. */
double ix_cells_percentile(const struct ix_cells *m, bool lat, ix_cell_keep_fn keep,
			   const void *arg, double pct, uint64_t *count);

struct ix_mesh_rules {
	double bw_fraction;    /* bad when bw < bw_fraction * median bw (default 0.7) */
	double lat_factor;     /* bad when p50 > lat_factor * baseline (default 2.0) */
	double lat_percentile; /* the baseline: this percentile of all pairs' p50
				  (0 < p <= 100; default 50, the median) */
	/* Absolute floors beside the relative rules, 0 = none: a pair is bad
	 * below min_bw_bps or with its p50 above max_lat_ns whatever the
	 * median, so that a mesh whose median many bad pairs drag down still
	 * fails. */
	double min_bw_bps;
	double max_lat_ns;
};

struct ix_mesh_findings {
	size_t bad_pairs;                               /* cells flagged bad */
	double median_bw_bps;                           /* over OK cells with a bandwidth */
	double min_lat_ns;                              /* over OK cells with a latency */
	double lat_baseline_ns;                         /* the latency rule's baseline */
	size_t lat_pairs;                               /* the pairs it is taken over */
	double bw_fraction, lat_factor, lat_percentile; /* the rules applied */
	double min_bw_bps, max_lat_ns;                  /* the floors applied, 0: none */
	size_t zero_pairs;                              /* measured at 0 bit/s */
	size_t lost_pairs;                              /* no round trip came back */
	uint32_t *suspects;                             /* node indexes, allocated; free() it */
	size_t nsuspects;
};

/* Flag bad cells (sets cell.bad) and name suspects: a node is suspect when
 * most of its measured pairs are bad and at least two are (needs n >= 3).
 * Returns 0, or -1 when out of memory. */
int ix_mesh_analyze(struct ix_cells *cells, const struct ix_mesh_rules *rules,
		    struct ix_mesh_findings *out);
/* Why a bad cell is bad, in one sentence: the rule it broke and by how
 * much ("latency p50 19.4 us > 2 x baseline 9.4 us (median of 120 pairs;
 * 2.1 x)"); "" for a cell that is not bad. */
void ix_mesh_reason(const struct ix_cell *c, const struct ix_mesh_findings *f, char *buf,
		    size_t len);

/* Incast sweep: goodput per sender count, stalled rounds (0 when the mode
 * has no rounds). Writes one sentence saying what the figures show. */
struct ix_incast_point {
	uint32_t senders;
	double goodput_bps;
	uint64_t stalled_rounds; /* rounds > 200 ms or far slower than the median */
	uint64_t rounds;
	uint64_t retransmits;
	/* What the fabric counted during the step (stream mode): summed over
	 * the senders, and at the receiver (the largest any flow saw, as every
	 * flow's window covers the same moment there). */
	bool counters; /* read at both ends of some flow */
	struct ix_ctr_sum at_senders, at_receiver;
};

void ix_incast_diagnose(const struct ix_incast_point *pts, size_t n, char *buf, size_t len);
/* Appends to a diagnosis, when the best step's goodput sits at the
 * receiver's ceiling and that is its NIC's PCIe link: "; N=4's 118 Gbit/s
 * is 94% of the receiver's NIC's PCIe Gen4 x8 link (126 Gbit/s), ...". */
void ix_incast_ceiling_clause(const struct ix_incast_point *pts, size_t n,
			      const struct ix_link_limit *receiver, char *buf, size_t len);

/* "118 Gbit/s is 94% of its NIC's PCIe Gen4 x8 link (126 Gbit/s), trained
 * below its Gen5 x16 capability" (or "..., below the line rate of 400
 * Gbit/s" when it trained as it should) when bps sits at a ceiling (from
 * IX_AT_CEILING to IX_ABOVE_CEILING of it) that is the NIC's PCIe link,
 * below the line; false (buf "") otherwise. */
bool ix_link_verdict(const struct ix_link_limit *l, double bps, char *buf, size_t len);

#endif
