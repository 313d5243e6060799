/* A mesh as a fabric, as text: each switch with its uplink's figures and
 * blame, its hosts below with their ports and edges (report/model/fabric.h
 * lays it out). */
#include "config.h"

#include <string.h>

#include "report/fmt/safe.h"
#include "report/text/text.h"

static const char *health_tag(enum ix_fab_health h)
{
	return h == IX_FAB_BAD ? "BAD" : h == IX_FAB_WARN ? "WARN" : "ok";
}

static void edge(FILE *f, const struct ix_fab_edge *e, const struct ix_unit_choice *u, int indent)
{
	char out[32] = "-", in[32] = "-", lat[32] = "-", moved[256];

	if (e->out_bps > 0)
		ix_fmt_rate(e->out_bps, u, out, sizeof(out));
	if (e->in_bps > 0)
		ix_fmt_rate(e->in_bps, u, in, sizeof(in));
	if (e->lat_ns > 0)
		ix_fmt_ns(e->lat_ns, lat, sizeof(lat));
	fprintf(f, "out %s, in %s, lat %s, %u/%u bad  %s", out, in, lat, e->bad, e->pairs,
		health_tag(e->health));
	if (e->why[0])
		fprintf(f, ": %s", e->why);
	else if (e->explained)
		fprintf(f, ": %u more bad across a bad uplink", e->explained);
	fputc('\n', f);
	if (ix_ctr_sum_sentence(&e->ctrs, moved, sizeof(moved)) && !strstr(e->why, moved))
		fprintf(f, "%*scounters moved: %s\n", indent, "", moved);
}

void ix_text_fabric(FILE *f, const struct ix_fabric *fab, const struct ix_hostlist *hosts,
		    const struct ix_unit_choice *u)
{
	char ref[32] = "-", name[IX_HOST_NAME_MAX + 16], safe[96];
	uint32_t worst_n;
	enum ix_fab_health worst = ix_fabric_worst(fab, &worst_n);

	if (fab->ref_bps > 0)
		ix_fmt_rate(fab->ref_bps, u, ref, sizeof(ref));
	fprintf(f,
		"\nFabric: %u hosts under %u switch%s (%s); bandwidth against %s, the median %s\n",
		fab->n, fab->nsw, fab->nsw == 1 ? "" : "es", ix_fabric_source(fab), ref,
		fab->ref_within ? "within switches" : "of all pairs");
	for (uint32_t s = 0; s < fab->nsw; s++) {
		const struct ix_fab_switch *w = &fab->sw[s];

		ix_text_safe(w->name, safe, sizeof(safe));
		fprintf(f, "  %s%s (%u host%s)  uplink: ", safe, w->inferred ? " [inferred]" : "",
			w->count, w->count == 1 ? "" : "s");
		if (w->uplink.pairs)
			edge(f, &w->uplink, u, 4);
		else
			fputs("no pair crosses it\n", f);
		for (uint32_t k = 0; k < w->count; k++) {
			const struct ix_fab_host *h = &fab->host[w->first + k];

			ix_host_format(&hosts->v[h->node], name, sizeof(name));
			ix_text_safe(h->port, safe, sizeof(safe));
			fprintf(f, "    %c %-24s %-10s ", k + 1 == w->count ? '`' : '|', name,
				safe[0] ? safe : "-");
			edge(f, &h->edge, u, 6);
		}
	}
	if (worst == IX_FAB_OK)
		fputs("  No edge of the fabric stands out.\n", f);
	else
		fprintf(f, "  %u edge%s marked %s.\n", worst_n, worst_n == 1 ? "" : "s",
			health_tag(worst));
}
