/*
 * A traffic pattern run over agents (pattern.h says which tests), and its
 * figures: per host what it sent and received while every test of a stage
 * ran at once, judged against the line rate its agent reported (or the
 * pattern's median where none is known), with the fabric counters that
 * moved, and one verdict sentence. Filled by patrun.c, read back by
 * report/json, rendered by report/text and report/html.
 */
#ifndef IX_PATRUN_H
#define IX_PATRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/cluster/multi.h"
#include "probes/cluster/pattern.h"
#include "probes/core/err.h"

struct ix_coord;
struct ix_token;

/* One test of one stage: a sent to b. */
struct ix_pattern_test {
	uint32_t stage, a, b;
	bool ok;
	double bps;     /* receiver goodput over the measured window */
	uint64_t bytes; /* received in it */
	char error[IX_ERR_MAX];
};

enum ix_pattern_basis {
	IX_BASIS_NONE,      /* not judged: nothing measured */
	IX_BASIS_LINE_RATE, /* its link's ceiling, as its agent reported it */
	IX_BASIS_MEDIAN,    /* no ceiling known: the pattern's median host */
};

struct ix_pattern_host {
	/* Per stage, the sum of its tests' goodput sending (tx) and
	 * receiving (rx); these are the medians over the stages it was in. */
	double tx_bps, rx_bps;
	uint64_t tx_bytes, rx_bytes; /* summed over every stage */
	uint32_t tests, failed;      /* tests it was an end of */
	bool sat_out;                /* bisection with an odd count: the host left out */
	/* Its figure: the lower of tx and rx (the direction that held it),
	 * against its basis: share of it, in percent (-1: not judged). */
	double figure_bps;
	enum ix_pattern_basis basis;
	double basis_bps;
	double share;
	bool bad;
	struct ix_link_limit link; /* iface "" when its agent reported none */
	bool counters_read;        /* some test read its counters */
	struct ix_ctr_sum counters;
	char error[IX_ERR_MAX]; /* its agent failed: why; "" while it works */
};

struct ix_pattern_result {
	enum ix_pattern pattern;
	struct ix_mesh_params params;
	const struct ix_hostlist *hosts; /* borrowed */
	uint32_t n;
	uint32_t rounds;    /* stages run */
	uint64_t seed;      /* permutation */
	uint32_t *order;    /* bisection: cut order (n); the first half is side A */
	char split[256];    /* bisection: how the halves were made */
	char side[2][128];  /* bisection: each half's switches, or its hosts */
	bool side_switches; /* ... its switches (every host's neighbour known) */
	struct ix_pattern_test *tests;
	uint32_t ntests;
	uint64_t tests_failed;
	struct ix_pattern_host *host; /* n */
	double median_bps;            /* of the hosts' figures */
	double cut_bps;               /* bisection: sum of what crossed the cut */
	uint32_t bad_hosts;
	bool counters_any; /* some test read counters at both ends */
	char verdict[640];
	double estimate_s; /* what was printed before the run */
	double wall_s;
	bool complete; /* every test measured */
};

/* Run pattern p over co's agents (hosts in the same order); co is opened
 * over hosts repeated as often as one host starts tests at once
 * (ix_pattern_lanes), lane k of host i is peer k * n + i. -1 only when
 * nothing can run (out of memory). order: bisection's cut order (NULL:
 * the host list's). */
int ix_pattern_run(struct ix_coord *co, enum ix_pattern p, const struct ix_mesh_params *mp,
		   uint32_t rounds, uint64_t seed, const uint32_t *order,
		   const struct ix_hostlist *hosts, struct ix_pattern_result *r,
		   struct ix_err *err);
/* The same over agents of its own: hosts opened as often as the pattern
 * needs (ix_pattern_lanes) with token, closed after. r->hosts is hosts. */
int ix_pattern_run_open(const struct ix_hostlist *hosts, const struct ix_token *token,
			double timeout_s, enum ix_pattern p, const struct ix_mesh_params *mp,
			uint32_t rounds, uint64_t seed, struct ix_pattern_result *r,
			struct ix_err *err);
/* Connections a pattern needs to each agent: the most tests one host
 * starts in one stage. */
uint32_t ix_pattern_lanes(enum ix_pattern p, uint32_t n, bool both_directions);
/* How long pattern pat takes over n hosts with p's tests (all-pairs: the
 * kinds asked in tests, IX_MESH_*; a pattern: bandwidth), with the
 * typical per-round overhead; pl is the plan estimated. */
void ix_pattern_estimate_mesh(enum ix_pattern pat, const struct ix_mesh_params *p, unsigned tests,
			      uint32_t n, uint32_t rounds, struct ix_pattern_plan *pl,
			      struct ix_pattern_estimate *e);
/* A bisection's cut order from each host's switch (h[i].link.neighbor):
 * the hosts of whole switches on each side where their sizes allow
 * (1), else the hosts in switch order with one switch across the cut
 * (0); -1 when not every host's switch is known (order 0 .. n - 1). why:
 * how the halves were made, in a few words. */
int ix_pattern_split(const struct ix_pattern_host *h, uint32_t n, uint32_t *order, char *why,
		     size_t len);
/* Figures, judgement and verdict from r->tests (ix_pattern_run does it;
 * a document read back has them saved). -1: out of memory. */
int ix_pattern_judge(struct ix_pattern_result *r);
void ix_pattern_result_free(struct ix_pattern_result *r);

#endif
