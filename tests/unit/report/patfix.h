/* Traffic pattern results built by hand for the tests of the judge and of
 * the renderers (probes/cluster/patjudge.c, report/json, report/text,
 * report/html): four hosts whose tests ran, then judged. */
#ifndef IX_TEST_PATFIX_H
#define IX_TEST_PATFIX_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/patrun.h"

static struct ix_host pat_hostv[5] = { { "h1", 5201, 0, "" },
				       { "h2", 5201, 0, "" },
				       { "h3", 5201, 0, "" },
				       { "h4", 5201, 0, "" },
				       { "h5", 5201, 0, "" } };

/* host i's link: line rate bps (0: none known), its switch name ("" none) */
static inline void pat_link(struct ix_pattern_result *r, uint32_t i, double bps, const char *sw)
{
	struct ix_link_limit *l = &r->host[i].link;

	memset(l, 0, sizeof(*l));
	if (bps > 0) {
		snprintf(l->iface, sizeof(l->iface), "eth0");
		l->bps = bps;
		l->ceiling_bps = bps;
		snprintf(l->source, sizeof(l->source), "ethtool speed");
		snprintf(l->bottleneck, sizeof(l->bottleneck), "link");
	}
	if (sw && sw[0]) {
		snprintf(l->neighbor.source, sizeof(l->neighbor.source), "lldp");
		snprintf(l->neighbor.chassis, sizeof(l->neighbor.chassis), "local %s", sw);
		snprintf(l->neighbor.name, sizeof(l->neighbor.name), "%s", sw);
		snprintf(l->neighbor.port, sizeof(l->neighbor.port), "swp%u", i + 1);
	}
}

/* A pattern over n hosts (at most 5) with room for 64 tests; no link known. */
static inline void pat_init(struct ix_pattern_result *r, struct ix_hostlist *hl, enum ix_pattern p,
			    uint32_t n)
{
	memset(r, 0, sizeof(*r));
	*hl = (struct ix_hostlist){ pat_hostv, n, n };
	r->pattern = p;
	r->hosts = hl;
	r->n = n;
	r->rounds = 1;
	r->params.bw.path = "tcp";
	r->params.bw.msg_size = 131072;
	r->params.bw.streams = 1;
	r->params.bw.duration_s = 3;
	r->params.rules.bw_fraction = 0.7;
	r->host = calloc(n, sizeof(*r->host));
	r->order = calloc(n, sizeof(*r->order));
	r->tests = calloc(64, sizeof(*r->tests));
	for (uint32_t i = 0; i < n; i++)
		r->order[i] = i;
	if (p == IX_PATTERN_BISECTION)
		snprintf(r->split, sizeof(r->split), "the host list's order");
}

static inline void pat_test(struct ix_pattern_result *r, uint32_t stage, uint32_t a, uint32_t b,
			    double bps)
{
	struct ix_pattern_test *t = &r->tests[r->ntests++];

	*t = (struct ix_pattern_test){ .stage = stage, .a = a, .b = b, .ok = bps >= 0 };
	t->bps = bps > 0 ? bps : 0;
	t->bytes = (uint64_t)(t->bps * 3 / 8);
	if (bps < 0)
		snprintf(t->error, sizeof(t->error), "connection refused");
}

/* A bisection of 4 hosts at 200 Mbit/s each whose pairs across the cut
 * run at 90 Mbit/s each way; sw: name the hosts' switches leaf1, leaf2. */
static inline void pat_bisection(struct ix_pattern_result *r, struct ix_hostlist *hl, bool sw)
{
	pat_init(r, hl, IX_PATTERN_BISECTION, 4);
	for (uint32_t i = 0; i < 4; i++)
		pat_link(r, i, 200e6, sw ? (i < 2 ? "leaf1" : "leaf2") : "");
	pat_test(r, 0, 0, 2, 90e6);
	pat_test(r, 0, 2, 0, 90e6);
	pat_test(r, 0, 1, 3, 90e6);
	pat_test(r, 0, 3, 1, 90e6);
	r->counters_any = true;
}

#endif
