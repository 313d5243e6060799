/* Two lists of figures (report/doc/figures.h) matched by key and judged,
 * and the figures as CSV. */
#ifndef IX_REPORT_COMPARE_H
#define IX_REPORT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "probes/core/err.h"
#include "report/doc/figures.h"

enum ix_verdict {
	IX_CMP_SAME,       /* within the tolerance */
	IX_CMP_IMPROVED,   /* better by more than the tolerance */
	IX_CMP_REGRESSION, /* worse by more than the tolerance, or lost its value */
	IX_CMP_ONLY_BASE,  /* the key is missing in new */
	IX_CMP_ONLY_NEW,   /* the key is missing in base */
	IX_CMP_NO_VALUE,   /* null in base (or in both) */
};

struct ix_cmp_row {
	const struct ix_figure *base, *cur; /* NULL when missing on that side */
	double change;                      /* (new - base) / |base| */
	bool change_valid;                  /* both values, base not 0 */
	double delta;                       /* new - base, when both values */
	enum ix_verdict verdict;
};

struct ix_cmp_counts {
	size_t same, improved, regressions, only_base, only_new, no_value;
};

/*
 * Match two lists by key and judge each pair: base order first, then the
 * keys only new has. tolerance is a fraction (0.1 = 10%).
 *   Ratio figures (rates, latencies, the Jain index): a change worse than
 *   tolerance in the figure's bad direction is a regression, better by more
 *   is an improvement; a base of 0 compares any worse value as a regression.
 *   Absolute figures (counts, loss %): the difference is judged against an
 *   allowance: 0 (any growth regresses) for mesh bad pairs, suspects,
 *   failed pairs and incast stalled rounds; max(allowance, tolerance x base)
 *   for TCP retransmits (10) and UDP loss (0.1 percentage points).
 *   A value in base that is null in new is a regression.
 * *rows is malloc'ed (free() it); it points into both lists.
 */
int ix_figures_compare(const struct ix_figure *base, size_t nbase, const struct ix_figure *cur,
		       size_t ncur, double tolerance, struct ix_cmp_row **rows, size_t *nrows,
		       struct ix_cmp_counts *counts, struct ix_err *err);
/* "ok", "improved", "REGRESSION", "only in base", "only in new", "no value" */
const char *ix_verdict_text(enum ix_verdict v);
/* "same", "improved", "regression", "only_base", "only_new", "no_value" */
const char *ix_verdict_id(enum ix_verdict v);
/* {key, check, name, unit, base, new, change, delta, verdict} */
json_t *ix_cmp_row_json(const struct ix_cmp_row *r);

/* A mesh check's nodes and pairs against a baseline document (a run whose
 * check of the same name holds a mesh): the worst change of any node or
 * pair figure, as a fraction it got worse by (0.15: 15% worse), and into
 * list a sentence for each one worse than limit ("node07:5301 send -15.0%
 * (9.40 Gbit/s -> 8.00 Gbit/s)"), at most max of them. Returns how many
 * figures were compared (0: none in common; *worst is then 0), or -1. */
long ix_detail_regressions(json_t *baseline, const char *check, json_t *results, double limit,
			   size_t max, double *worst, json_t *list, struct ix_err *err);

/* The same as a plan's expectation judges it: true with *worst and list
 * filled when figures were compared; false with why saying what is
 * missing (no baseline, no node of this mesh in it) or what failed. */
bool ix_detail_judge(json_t *baseline, const char *check, json_t *results, double limit, size_t max,
		     double *worst, json_t *list, char *why, size_t whylen);

/* Strict tolerance: "10%", "2.5%", "0.1" or ".1" (a fraction, at most 1). */
int ix_parse_tolerance(const char *s, double *out, struct ix_err *err);

/* CSV (RFC 4180): a field, quoted when it holds a comma, quote, CR or LF,
 * and quoted behind a ' when it starts with =, +, -, @, tab or CR (unless it
 * is a plain number such as -3.5), so that no spreadsheet runs it;
 * the header "file,key,check,name,value,unit" and one row per figure, each
 * ending in CRLF. */
void ix_csv_field(FILE *f, const char *s);
void ix_csv_header(FILE *f);
void ix_csv_rows(FILE *f, const char *file, const struct ix_figure *v, size_t n);

#endif
