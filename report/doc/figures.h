/* The headline figures of any ixperf document as a flat list, matched by
 * key between two documents (compare), listed (report), or rendered as CSV. */
#ifndef IX_REPORT_FIGURES_H
#define IX_REPORT_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "probes/core/err.h"

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
 * matrix), or "headline" for a run check's headline. Keys
 * are unique in a list (a repeated one gets "#2", "#3"...), and the same
 * between two runs of the same plan.
 */
struct ix_figure {
	char key[384];
	char check[128];
	char name[192]; /* NAME of the key; for a headline, the headline's own name */
	double value;
	bool valid; /* false: the document has the figure, but null */
	enum ix_better better;
	const char *unit; /* static: "bit/s", "B/s", "ns", "%" or "" */
	bool headline;    /* a run check's headline */
	bool absolute;    /* a count: compared by difference, not ratio */
	double allowance; /* absolute figures: growth that is not yet a regression */
	bool detail;      /* a mesh node's or pair's own figure (see below) */
};

/* A mesh's figures per node ("node HOST send", "node HOST recv", "node HOST
 * lat_p50": the medians of its pairs) and per pair ("pair A->B bw", "pair
 * A->B lat_p50", for meshes of up to IX_FIGURES_PAIR_HOSTS hosts), hosts as
 * the document writes them (name:port): a golden baseline names the nodes
 * and pairs that regressed, not only the aggregates. */
#define IX_FIGURES_PAIR_HOSTS 64

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
/* The figures of one check's results array, as they appear in a run
 * document under that check's name. */
int ix_figures_of_results(const char *check, json_t *results, struct ix_figure **out, size_t *n,
			  struct ix_err *err);
/* The figure with that key, or NULL. */
const struct ix_figure *ix_figures_find(const struct ix_figure *v, size_t n, const char *key);
/* A value with its unit: "28.32 Gbit/s", "52.4 GB/s", "49.3 us", "0.12 %", "3"; "-" when
 * invalid. */
void ix_figure_fmt(const struct ix_figure *f, char *buf, size_t len);
void ix_value_fmt(double v, const char *unit, char *buf, size_t len);

/* ---- Internal to report/doc: the list figures.c builds, and what the
 * extractors of each kind of result share (figures.c: the network's, the
 * cluster's, the run's; figures_gpu.c: the GPUs' and the collectives'). */
struct ix_figs {
	struct ix_figure *v;
	size_t n, cap;
	json_t *seen; /* key -> times used, for unique keys */
	bool oom;
};

/* A figure from a JSON value (null or not a number: "no value"), named
 * CHECK/NAME, unique (a second one gets "#2"); NULL when out of memory. */
struct ix_figure *ix_figs_add(struct ix_figs *l, const char *check, const char *name, json_t *v,
			      enum ix_better better, const char *unit);
/* A count, lower is better, judged in absolute terms: any rise above
 * allowance is a change worth seeing. */
void ix_figs_count(struct ix_figs *l, const char *check, const char *name, json_t *v,
		   double allowance, const char *unit);
/* The figures of one "gpu" and one "coll" result (figures_gpu.c). */
void ix_figs_gpu(struct ix_figs *l, const char *check, json_t *r);
void ix_figs_coll(struct ix_figs *l, const char *check, json_t *r);

#endif
