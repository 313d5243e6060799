/* ixperf ecmp as text: the flows, the spread, each switch's uplinks and
 * the verdict. */
#include "config.h"

#include <string.h>

#include "report/text/text.h"

static void rate(double bps, bool known, const struct ix_unit_choice *u, char *buf, size_t len)
{
	if (!known)
		snprintf(buf, len, "-");
	else
		ix_fmt_rate(bps, u, buf, len);
}

static void flows_table(FILE *f, const struct ix_ecmp_result *r, const struct ix_unit_choice *u)
{
	char a[32], b[32], sp[8], qp[12] = "", host[IX_HOST_NAME_MAX + 16] = "";
	bool rdma = r->params.rdma;

	if (r->nswitches)
		ix_host_format(&r->hosts->v[r->sw[0].host], host, sizeof(host));
	fprintf(f, "\n%5s %s%6s %6s %14s %14s  %s%s%s\n", "flow", rdma ? "     QPN " : "", "sport",
		"dport", "alone", "at once", r->nswitches ? "uplink alone (at " : "", host,
		r->nswitches ? ")" : "");
	for (uint32_t i = 0; i < r->nflows; i++) {
		const struct ix_ecmp_flow *fl = &r->flows[i];
		const struct ix_ecmp_hop *h = &fl->hop[0];

		rate(fl->alone_bps, fl->alone_ok, u, a, sizeof(a));
		rate(fl->bps, fl->ok, u, b, sizeof(b));
		snprintf(sp, sizeof(sp), fl->sport ? "%u" : "?", fl->sport);
		if (rdma)
			snprintf(qp, sizeof(qp), "%8s ", "");
		if (rdma && fl->qpn)
			snprintf(qp, sizeof(qp), "%#8x ", fl->qpn);
		fprintf(f, "%5u %s%6s %6u %14s %14s  %s\n", i, qp, sp, fl->ok ? fl->dport : 0, a, b,
			!r->nswitches  ? ""
			: h->uplink[0] ? h->uplink
				       : "?");
	}
}

static void switch_block(FILE *f, const struct ix_ecmp_result *r, uint32_t s,
			 const struct ix_unit_choice *u)
{
	const struct ix_ecmp_switch *sw = &r->sw[s];
	char host[IX_HOST_NAME_MAX + 16];

	ix_host_format(&r->hosts->v[sw->host], host, sizeof(host));
	if (!sw->ok) {
		fprintf(f, "\nSwitch %s: %s\n", host, sw->error);
		return;
	}
	fprintf(f, "\nSwitch %s (%s; the pair's port: %s)\n", host,
		sw->first_hop ? "the flows leave by its uplinks"
			      : "the flows come in by its uplinks",
		sw->edge[0] ? sw->edge : "not found");
	fprintf(f, "  %-15s %5s %14s %14s %14s %12s %12s\n", "uplink", "flows", "alone median",
		"at once med.", "at once sum", "flows moved", "port moved");
	for (uint32_t k = 0; k < sw->nup; k++) {
		const struct ix_ecmp_uplink *up = &sw->up[k];
		char a[32], b[32], c[32], d[32] = "-", e[32] = "-";

		rate(up->alone_median_bps, up->flows && r->alone_done, u, a, sizeof(a));
		rate(up->together_median_bps, up->flows && r->together_ok, u, b, sizeof(b));
		rate(up->together_sum_bps, up->flows && r->together_ok, u, c, sizeof(c));
		if (r->together_ok)
			snprintf(d, sizeof(d), "%.1f MB", (double)up->together_flow_bytes / 1e6);
		if (sw->together_read)
			snprintf(e, sizeof(e), "%.1f MB", (double)up->together_if_bytes / 1e6);
		fprintf(f, "  %-15s %5u %14s %14s %14s %12s %12s%s%s\n", up->name, up->flows, a, b,
			c, d, e, up->up ? "" : "  (down)", up->blamed ? "  <- BLAME" : "");
	}
	for (uint32_t i = 0; i < r->nflows; i++)
		if (!r->flows[i].hop[s].uplink[0])
			fprintf(f, "  flow %u (sport %u): no uplink: %s\n", i, r->flows[i].sport,
				r->flows[i].hop[s].why);
	if (sw->evidence[0])
		fprintf(f, "  evidence: %s\n", sw->evidence);
	if (sw->together_read && !sw->paths_kept)
		fprintf(f, "  paths not kept: %s\n", sw->drift);
	if (r->nswitches > 1)
		fprintf(f, "  %s\n", sw->verdict);
}

void ix_text_ecmp(FILE *f, const struct ix_ecmp_result *r, const struct ix_unit_choice *u)
{
	const struct ix_ecmp_spread *sp = &r->spread;
	char a[IX_HOST_NAME_MAX + 16], b[IX_HOST_NAME_MAX + 16];

	ix_host_format(&r->hosts->v[0], a, sizeof(a));
	ix_host_format(&r->hosts->v[1], b, sizeof(b));
	if (r->params.rdma)
		fprintf(f, "ECMP: %s -> %s, %u QPs of one RDMA write connection%s\n", a, b,
			r->nflows,
			r->nswitches ? ", each alone, then all at once" : ", all at once");
	else
		fprintf(f, "ECMP: %s -> %s, %u %s flows from source ports %u-%u%s\n", a, b,
			r->nflows, r->params.bw.path, r->params.bw.src_port,
			r->params.bw.src_port + r->nflows - 1,
			r->nswitches ? ", each alone, then all at once" : ", all at once");
	if (r->params.rdma && r->sport_how && strcmp(r->sport_how, "flow_label") == 0)
		fprintf(f,
			"Their RoCE v2 source ports: %u-%u, from the flow label set on each "
			"(rdma_flow_label_to_udp_sport, as rdma_rxe, mlx5, hns and irdma derive "
			"them; not captured)\n",
			r->params.bw.src_port, r->params.bw.src_port + r->nflows - 1);
	else if (r->params.rdma && r->sport_how)
		fprintf(f, "Their RoCE v2 source ports: %s\n",
			strcmp(r->sport_how, "qpn") == 0
				? "computed from both QP numbers as rdma_rxe does (no flow label "
				  "set)"
				: "not known: the provider chooses them (no flow label set)");
	flows_table(f, r, u);
	if (sp->n) {
		char mn[32], md[32], mx[32], sum[32], pair[32];

		ix_fmt_rate(sp->min, u, mn, sizeof(mn));
		ix_fmt_rate(sp->median, u, md, sizeof(md));
		ix_fmt_rate(sp->max, u, mx, sizeof(mx));
		ix_fmt_rate(sp->sum, u, sum, sizeof(sum));
		ix_fmt_rate(r->pair_bps, u, pair, sizeof(pair));
		fprintf(f,
			"\nAt once: min %s, median %s, max %s; CV %.3f, Jain %.3f; the flows sum "
			"to "
			"%s (the pair: %s)\n",
			mn, md, mx, sp->cv, sp->jain, sum, pair);
	} else if (r->together_error[0]) {
		fprintf(f, "\nAt once: failed: %s\n", r->together_error);
	}
	for (uint32_t s = 0; s < r->nswitches; s++)
		switch_block(f, r, s, u);
	fprintf(f, "\nVerdict: %s\n", r->verdict);
	if (r->note[0])
		fprintf(f, "Note: %s\n", r->note);
	if (!r->complete && r->error[0])
		fprintf(f, "INCOMPLETE: %s\n", r->error);
}
