/* Traffic patterns: each host's figures against its basis, the verdict,
 * and the estimates printed before a run. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "probes/cluster/patrun.h"
#include "report/fmt/units.h"
#include "report/text/text.h"

static const char *basis_name(enum ix_pattern_basis b)
{
	return b == IX_BASIS_LINE_RATE ? "line rate" : b == IX_BASIS_MEDIAN ? "median" : "-";
}

static void header(FILE *f, const struct ix_pattern_result *r)
{
	const char *name = ix_pattern_name(r->pattern);

	fprintf(f, "%s over %u hosts: %u round(s), %u test(s), %llu failed, %.1f s", name, r->n,
		r->rounds, r->ntests, (unsigned long long)r->tests_failed, r->wall_s);
	if (r->pattern == IX_PATTERN_PERMUTATION)
		fprintf(f, " (seed %llu: --seed %llu repeats it)", (unsigned long long)r->seed,
			(unsigned long long)r->seed);
	fprintf(f, "\n");
	if (r->pattern == IX_PATTERN_ALL_TO_ALL && r->n - 1 > IX_PATTERN_FANOUT)
		fprintf(f,
			"In %u waves of at most %u peers per host: %u peers are more than an "
			"agent takes at once.\n",
			r->rounds, IX_PATTERN_FANOUT, r->n - 1);
	if (r->pattern == IX_PATTERN_BISECTION) {
		fprintf(f, "Halves: %s | %s (%s)\n", r->side[0], r->side[1], r->split);
		for (uint32_t i = 0; i < r->n; i++)
			if (r->host[i].sat_out) {
				char h[IX_HOST_NAME_MAX + 64];

				ix_host_format(&r->hosts->v[i], h, sizeof(h));
				fprintf(f,
					"%s sat out: an odd host count leaves one without a "
					"partner across the cut\n",
					h);
			}
	}
}

void ix_text_pattern(FILE *f, const struct ix_pattern_result *r, const struct ix_unit_choice *u)
{
	char tx[32], rx[32], fig[32], basis[32], share[16], name[IX_HOST_NAME_MAX + 64];

	header(f, r);
	fprintf(f, "\n%-4s %-28s %12s %12s %12s %-10s %12s %6s %s\n", "#", "Host", "Sent",
		"Received", "Figure", "Against", "Of", "Share", "Verdict");
	for (uint32_t i = 0; i < r->n; i++) {
		const struct ix_pattern_host *h = &r->host[i];

		ix_host_format(&r->hosts->v[i], name, sizeof(name));
		ix_fmt_rate(h->tx_bps, u, tx, sizeof(tx));
		ix_fmt_rate(h->rx_bps, u, rx, sizeof(rx));
		ix_fmt_rate(h->figure_bps, u, fig, sizeof(fig));
		snprintf(basis, sizeof(basis), "-");
		snprintf(share, sizeof(share), "-");
		if (h->sat_out || h->tests == h->failed) /* nothing it was in measured */
			snprintf(tx, sizeof(tx), "-");
		if (h->sat_out || h->tests == h->failed)
			snprintf(rx, sizeof(rx), "-");
		if (h->basis == IX_BASIS_NONE)
			snprintf(fig, sizeof(fig), "-");
		if (h->basis != IX_BASIS_NONE) {
			ix_fmt_rate(h->basis_bps, u, basis, sizeof(basis));
			snprintf(share, sizeof(share), "%.0f%%", h->share);
		}
		fprintf(f, "%-4u %-28s %12s %12s %12s %-10s %12s %6s %s%s%s\n", i, name, tx, rx,
			fig, basis_name(h->basis), basis, share,
			h->sat_out                  ? "sat out"
			: h->basis == IX_BASIS_NONE ? "not measured"
			: h->bad                    ? "BAD"
						    : "ok",
			h->error[0] ? ": " : "", h->error);
	}
	if (r->pattern == IX_PATTERN_BISECTION) {
		ix_fmt_rate(r->cut_bps, u, fig, sizeof(fig));
		fprintf(f, "\nAcross the cut: %s in all (both directions)\n", fig);
	}
	for (uint32_t i = 0, shown = 0; i < r->ntests && shown < 8; i++)
		if (!r->tests[i].ok && r->tests[i].error[0]) {
			char a[IX_HOST_NAME_MAX + 64];

			ix_host_format(&r->hosts->v[r->tests[i].a], a, sizeof(a));
			ix_host_format(&r->hosts->v[r->tests[i].b], name, sizeof(name));
			fprintf(f, "%sFAILED: %s -> %s: %s\n", shown ? "" : "\n", a, name,
				r->tests[i].error);
			shown++;
		}
	fprintf(f, "\nVerdict: %s\n", r->verdict);
}

void ix_text_pattern_estimate(FILE *f, const struct ix_pattern_plan *pl,
			      const struct ix_pattern_estimate *e)
{
	char t[32];

	ix_pattern_duration_text(e->seconds, t, sizeof(t));
	fprintf(f, "%s over %u hosts: %u round%s of %u test%s, %s", ix_pattern_name(pl->pattern),
		pl->n, e->rounds, e->rounds == 1 ? "" : "s", e->tests_per_round,
		e->tests_per_round == 1 ? "" : "s", t);
	if (pl->pattern == IX_PATTERN_BISECTION && pl->n % 2)
		fprintf(f, " (an odd count: one host sits out)");
}

void ix_text_pattern_estimates(FILE *f, const struct ix_mesh_params *p, unsigned tests, uint32_t n,
			       uint32_t rounds)
{
	for (int k = 0; k < IX_PATTERN_COUNT; k++) {
		struct ix_pattern_plan pl;
		struct ix_pattern_estimate e;

		ix_pattern_estimate_mesh((enum ix_pattern)k, p, tests, n, rounds, &pl, &e);
		ix_text_pattern_estimate(f, &pl, &e);
		fputc('\n', f);
	}
	fprintf(f,
		"(per round: the tests' warm-up and time, and %.1f s typical for starting them "
		"and collecting their reports)\n",
		IX_PATTERN_ROUND_OVERHEAD_S);
}

double ix_text_pattern_say(FILE *f, enum ix_pattern pat, const struct ix_mesh_params *p, uint32_t n,
			   uint32_t rounds, double above_s)
{
	struct ix_pattern_plan pl;
	struct ix_pattern_estimate e, b;
	char t[32];

	ix_pattern_estimate_mesh(pat, p, p->tests, n, rounds, &pl, &e);
	if (e.seconds <= above_s)
		return e.seconds;
	fprintf(f, "ixperf mesh: ");
	ix_text_pattern_estimate(f, &pl, &e);
	if (pat == IX_PATTERN_ALL_PAIRS && n >= 4) {
		ix_pattern_estimate_mesh(IX_PATTERN_BISECTION, p, IX_MESH_BW, n, rounds, &pl, &b);
		ix_pattern_duration_text(b.seconds, t, sizeof(t));
		fprintf(f, "; --pattern bisection: %s", t);
	}
	fputc('\n', f);
	return e.seconds;
}
