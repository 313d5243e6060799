/* Rail meshes as text: each rail's mesh under its name, then the rails
 * side by side with their verdicts and each node's all-rail throughput. */
#include "config.h"

#include "report/text/text.h"

static void rate_or_dash(bool have, double bps, const struct ix_unit_choice *u, char *buf,
			 size_t len)
{
	if (have)
		ix_fmt_rate(bps, u, buf, len);
	else
		snprintf(buf, len, "-");
}

static void rails_table(FILE *f, const struct ix_rails_result *r, const struct ix_unit_choice *u)
{
	char bw[32], lat[32], pairs[32];

	fprintf(f, "\nRails, measured at once (a rail is bad below %.0f%% of the rails' %s)\n",
		100.0 * r->rules.bw_fraction, r->rails->n > 2 ? "upper median" : "faster one");
	fprintf(f, "%-4s %-24s %-12s %6s %14s %10s %10s  %s\n", "Rail", "Name", "Interface",
		"Nodes", "Median bw", "Lat p50", "Bad", "Verdict");
	for (uint32_t k = 0; k < r->rails->n; k++) {
		const struct ix_rail *rl = &r->rails->rail[k];
		const struct ix_rail_verdict *v = &r->verdict[k];

		rate_or_dash(v->have_bw, v->median_bw_bps, u, bw, sizeof(bw));
		if (v->lat_p50_ns > 0)
			ix_fmt_ns(v->lat_p50_ns, lat, sizeof(lat));
		else
			snprintf(lat, sizeof(lat), "-");
		snprintf(pairs, sizeof(pairs), "%llu/%llu", (unsigned long long)v->bad_pairs,
			 (unsigned long long)v->measured);
		fprintf(f, "%-4u %-24.24s %-12.12s %6zu %14s %10s %10s  %s%s\n", k, rl->name,
			rl->iface[0] ? rl->iface : "-", rl->hosts.n, bw, lat, pairs,
			v->bad ? "BAD: " : "ok", v->bad ? v->reason : "");
	}
}

static void nodes_table(FILE *f, const struct ix_rails_result *r, const struct ix_unit_choice *u)
{
	char name[IX_HOST_NAME_MAX + 64], out[32], in[32];

	fprintf(f, "\nNodes: all-rail throughput (each rail's median, summed; rails at once)\n");
	fprintf(f, "%-4s %-28s %14s %14s %6s\n", "#", "Node", "Send", "Recv", "Rails");
	for (size_t i = 0; i < r->nodes->n; i++) {
		const struct ix_rails_node *nd = &r->node[i];

		ix_host_format(&r->nodes->v[i], name, sizeof(name));
		rate_or_dash(nd->rails > 0, nd->bw_out_bps, u, out, sizeof(out));
		rate_or_dash(nd->rails > 0, nd->bw_in_bps, u, in, sizeof(in));
		fprintf(f, "%-4zu %-28.28s %14s %14s %3u/%-2u\n", i, name, out, in, nd->rails,
			r->rails->n);
	}
	for (uint32_t k = 0; k < r->rails->n; k++)
		for (uint32_t m = 0; m < r->rails->rail[k].nmissing; m++) {
			ix_host_format(&r->nodes->v[r->rails->rail[k].missing[m]], name,
				       sizeof(name));
			fprintf(f, "%s has no address on rail %u (%s)\n", name, k,
				r->rails->rail[k].name);
		}
}

void ix_text_rails_head(FILE *f, const struct ix_rails_result *r)
{
	fprintf(f, "ixperf mesh --rails: %u rails by %s, %zu nodes, %.1f s\n", r->rails->n,
		r->rails->how, r->nodes->n, r->wall_s);
}

void ix_text_rail_title(FILE *f, const struct ix_rails_result *r, uint32_t k)
{
	const struct ix_rail *rl = &r->rails->rail[k];

	fprintf(f, "\n== Rail %u: %s%s%s%s ==\n", k, rl->name, rl->iface[0] ? " (" : "", rl->iface,
		rl->iface[0] ? ")" : "");
	if (r->error[k][0])
		ix_text_why(f, "not run", r->error[k]);
}

void ix_text_rails_summary(FILE *f, const struct ix_rails_result *r, const struct ix_unit_choice *u)
{
	rails_table(f, r, u);
	nodes_table(f, r, u);
	if (r->bad_rails) {
		fprintf(f, "\nBad rails: %u of %u\n", r->bad_rails, r->rails->n);
		for (uint32_t k = 0; k < r->rails->n; k++)
			if (r->verdict[k].bad)
				fprintf(f, "  rail %u (%s): %s\n", k, r->rails->rail[k].name,
					r->verdict[k].reason);
	} else {
		fprintf(f, "\nEvery rail is good.\n");
	}
}

void ix_text_rails(FILE *f, const struct ix_rails_result *r, const struct ix_unit_choice *u)
{
	ix_text_rails_head(f, r);
	for (uint32_t k = 0; k < r->rails->n; k++) {
		ix_text_rail_title(f, r, k);
		if (!r->error[k][0] && r->mesh[k].cells.v)
			ix_text_mesh(f, &r->mesh[k], u);
	}
	ix_text_rails_summary(f, r, u);
}
