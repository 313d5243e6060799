/* The headline figures of any ixperf document as a flat list, matched by
 * key between two documents (compare), listed (report), or rendered as CSV. */
#ifndef IX_REPORT_FIGURES_H
#define IX_REPORT_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "probes/err.h"

/* The newest document layout this build reads. */
#define IX_FIGURES_SCHEMA_MAX 1

enum ix_better {
	IX_HIGHER_BETTER,
	IX_LOWER_BETTER,
};

/*
 * One figure. key is "CHECK/NAME": CHECK is the check's name in a run
 * document, the command in a single-command one; NAME is the figure with
 * its qualifiers: "goodput", "goodput_reverse", "goodput@4096B" (one
 * element of a size sweep), "stalled_rounds@N=3" (incast fan-in),
 * "device_to_device_memcpy_read_ce@GPU0->GPU1" (a cell of a GPU test's
 * matrix, report/gpu.h), or "headline" for a run check's headline. Keys
 * are unique in a list (a repeated one gets "#2", "#3"...), and the same
 * between two runs of the same plan.
 */
struct ix_figure {
	char key[256];
	char check[128];
	char name[64]; /* NAME of the key; for a headline, the headline's own name */
	double value;
	bool valid; /* false: the document has the figure, but null */
	enum ix_better better;
	const char *unit; /* static: "bit/s", "B/s", "ns", "%" or "" */
	bool headline;    /* a run check's headline */
	bool absolute;    /* a count: compared by difference, not ratio */
	double allowance; /* absolute figures: growth that is not yet a regression */
};

/* Read and validate a document. Errors name the file: not JSON (with the
 * line and column), not an ixperf document, a newer schema. */
json_t *ix_doc_load(const char *path, struct ix_err *err);
/* Whether doc is an ixperf result document this build can read; the
 * message says what is missing ("not an ixperf result document: ..."). */
int ix_doc_validate(json_t *doc, struct ix_err *err);
/* A run document: command "run" with one result of kind "run". */
bool ix_doc_is_run(json_t *doc);

/* The figures of doc (validated first), in document order; *out is
 * malloc'ed (free() it), *n may be 0. */
int ix_figures_extract(json_t *doc, struct ix_figure **out, size_t *n, struct ix_err *err);
/* The figure with that key, or NULL. */
const struct ix_figure *ix_figures_find(const struct ix_figure *v, size_t n, const char *key);
/* A value with its unit: "28.32 Gbit/s", "52.4 GB/s", "49.3 us", "0.12 %", "3"; "-" when
 * invalid. */
void ix_figure_fmt(const struct ix_figure *f, char *buf, size_t len);
void ix_value_fmt(double v, const char *unit, char *buf, size_t len);

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

/* Strict tolerance: "10%", "2.5%", "0.1" or ".1" (a fraction, at most 1). */
int ix_parse_tolerance(const char *s, double *out, struct ix_err *err);

/* CSV (RFC 4180): a field, quoted when it holds a comma, quote, CR or LF;
 * the header "file,key,check,name,value,unit" and one row per figure, each
 * ending in CRLF. */
void ix_csv_field(FILE *f, const char *s);
void ix_csv_header(FILE *f);
void ix_csv_rows(FILE *f, const char *file, const struct ix_figure *v, size_t n);

/* A JSON string of s; bytes that are not UTF-8 (a file name) become '?'. */
json_t *ix_json_string_lossy(const char *s);

/* Copy s for a terminal: control characters become '?'. */
void ix_text_safe(const char *s, char *buf, size_t len);

#endif
