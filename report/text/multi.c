/* Mesh and incast results as text: matrices, bad pairs, suspects, steps. */
#include "config.h"

#include <string.h>

#include "probes/core/link.h"
#include "report/fmt/safe.h"
#include "report/text/text.h"

static void host_name(const struct ix_hostlist *h, uint32_t i, char *buf, size_t len)
{
	ix_host_format(&h->v[i], buf, len);
}

/* One unit for every bandwidth cell, named in the legend: the user's fixed
 * unit, else the prefix of the largest figure, so that 980 Mbit/s and
 * 9.41 Gbit/s never stand side by side as 980 and 9.41. */
static void matrix_unit(const struct ix_mesh_result *r, const struct ix_unit_choice *u,
			struct ix_unit_choice *out)
{
	static const char *const bits[] = { "bit", "Kbit", "Mbit", "Gbit", "Tbit" };
	static const char *const bytes[] = { "B", "KB", "MB", "GB", "TB" };
	double top = 0, scale;
	struct ix_err err = { 0 };
	int k = 0;

	*out = *u;
	if (u->kind == IX_UNITS_FIXED)
		return;
	for (uint32_t a = 0; a < r->n; a++)
		for (uint32_t b = 0; b < r->n; b++) {
			struct ix_cell c = ix_cells_get(&r->cells, a, b);

			if (c.state == IX_CELL_OK && ix_cell_has_bw(&c) && c.bw_bps > top)
				top = c.bw_bps;
		}
	scale = u->kind == IX_UNITS_BYTES ? top / 8 : top;
	while (k < 4 && scale >= 1000) {
		scale /= 1000;
		k++;
	}
	if (ix_parse_units(u->kind == IX_UNITS_BYTES ? bytes[k] : bits[k], out, &err) < 0)
		*out = *u;
}

/* The matrix of one figure, for small meshes: a compact number per cell. */
static void print_matrix(FILE *f, const struct ix_mesh_result *r, bool bw,
			 const struct ix_unit_choice *u)
{
	struct ix_unit_choice mu;
	char legend[48];

	matrix_unit(r, u, &mu);
	if (bw)
		snprintf(legend, sizeof(legend), "Bandwidth in %s%s", mu.label,
			 strchr(mu.label, '/') ? "" : "/s");
	else
		snprintf(legend, sizeof(legend), "Latency p50, one-way");
	fprintf(f, "\n%s (row sends to column; x = failed, . = not measured, * = bad%s)\n", legend,
		bw ? "" : ", lost = no round trip");
	fprintf(f, "%-6s", "");
	for (uint32_t b = 0; b < r->n; b++)
		fprintf(f, " %9u", b);
	fputc('\n', f);
	for (uint32_t a = 0; a < r->n; a++) {
		fprintf(f, "%-6u", a);
		for (uint32_t b = 0; b < r->n; b++) {
			struct ix_cell c = ix_cells_get(&r->cells, a, b);
			char v[32] = ".";

			if (c.state == IX_CELL_FAILED)
				snprintf(v, sizeof(v), "x");
			else if (c.state == IX_CELL_OK && bw && ix_cell_has_bw(&c))
				ix_fmt_rate(c.bw_bps, &mu, v, sizeof(v));
			else if (c.state == IX_CELL_OK && !bw && c.lat_p50_ns > 0)
				ix_fmt_ns(c.lat_p50_ns, v, sizeof(v));
			else if (c.state == IX_CELL_OK && !bw && c.lat_lost)
				snprintf(v, sizeof(v), "lost");
			if (bw && c.state == IX_CELL_OK) {
				/* one unit for all: the legend names it */
				char *sp = strchr(v, ' ');
				if (sp)
					*sp = '\0';
			}
			fprintf(f, " %8s%c", v, c.bad ? '*' : ' ');
		}
		fputc('\n', f);
	}
}

/* What the fabric counted at each host over its tests, where it moved. */
static void node_counters(FILE *f, const struct ix_mesh_result *r)
{
	char name[IX_HOST_NAME_MAX + 16], what[512];
	bool any = false;

	if (!r->counters_read || !r->nodes)
		return;
	for (uint32_t i = 0; i < r->n; i++) {
		if (ix_ctr_sum_sentence(&r->nodes[i].counters, what, sizeof(what)) == 0)
			continue;
		if (!any)
			fputs("Fabric counters that moved, per host over its tests:\n", f);
		any = true;
		host_name(r->hosts, i, name, sizeof(name));
		fprintf(f, "  %s: %s\n", name, what);
	}
	if (!any)
		fprintf(f, "Fabric counters: none moved at any host (%llu tests read)\n",
			(unsigned long long)r->counters_read);
}

/* A node's ceiling and its share of it: "10.0 Gbit/s link", "126 Gbit/s
 * PCIe" and "94%"; "-" when not known. */
static void node_ceiling(const struct ix_mesh_node *nd, const struct ix_unit_choice *u, char *ceil,
			 size_t clen, char *share, size_t slen)
{
	double c = ix_link_ceiling(&nd->link), pct = ix_mesh_node_share(nd);
	char rate[32];

	snprintf(ceil, clen, "-");
	snprintf(share, slen, "-");
	if (!(c > 0))
		return;
	ix_fmt_rate(c, u, rate, sizeof(rate));
	snprintf(ceil, clen, "%s %s%s", rate,
		 strcmp(nd->link.bottleneck, "pcie") == 0 ? "PCIe" : "link",
		 nd->link.pcie.downtrained ? "!" : "");
	if (pct >= 0)
		snprintf(share, slen, "%.0f%%", pct);
}

/* Hosts whose figure sits at a ceiling below their line rate. */
static void bottlenecks(FILE *f, const struct ix_mesh_result *r)
{
	char why[512];

	for (uint32_t i = 0; r->nodes && i < r->n; i++)
		if (ix_mesh_node_bottleneck(r, i, why, sizeof(why)))
			fprintf(f, "BOTTLENECK: %s\n", why);
}

static void fabric(FILE *f, const struct ix_mesh_result *r, const struct ix_unit_choice *u)
{
	struct ix_fabric fab;

	if (ix_fabric_of_mesh(r, &fab) < 0)
		return;
	if (ix_fabric_worth_drawing(&fab))
		ix_text_fabric(f, &fab, r->hosts, u);
	ix_fabric_free(&fab);
}

void ix_text_mesh(FILE *f, const struct ix_mesh_result *r, const struct ix_unit_choice *u)
{
	ix_text_mesh_reasons(f, r, u, NULL, 0);
}

void ix_text_mesh_reasons(FILE *f, const struct ix_mesh_result *r, const struct ix_unit_choice *u,
			  const char *const *reasons, size_t nreasons)
{
	char name[IX_HOST_NAME_MAX + 16], a[32], b[32], c[1024], ceil[48], share[16];
	size_t shown = 0;
	bool links = false;

	fprintf(f,
		"ixperf mesh: %u hosts, %u rounds, %llu of %llu pairs measured, %llu failed, "
		"%llu retested, %.1f s\n",
		r->n, r->rounds, (unsigned long long)r->pairs_measured,
		(unsigned long long)r->pairs_planned, (unsigned long long)r->pairs_failed,
		(unsigned long long)r->pairs_retested, r->wall_s);
	if (r->n <= IX_TEXT_MATRIX_MAX && (r->params.tests & IX_MESH_BW)) {
		print_matrix(f, r, true, u);
	}
	if (r->n <= IX_TEXT_MATRIX_MAX && (r->params.tests & IX_MESH_LAT))
		print_matrix(f, r, false, u);
	for (uint32_t i = 0; i < r->n; i++)
		links = links || ix_link_ceiling(&r->nodes[i].link) > 0;
	fprintf(f, "\n%-4s %-28s %14s %14s %12s %6s", "#", "Host", "Send (median)", "Recv (median)",
		"Lat p50", "Bad");
	if (links)
		fprintf(f, " %18s %6s", "Ceiling", "Share");
	fputs("\n", f);
	for (uint32_t i = 0; i < r->n; i++) {
		const struct ix_mesh_node *nd = &r->nodes[i];

		host_name(r->hosts, i, name, sizeof(name));
		snprintf(a, sizeof(a), "-");
		snprintf(b, sizeof(b), "-");
		snprintf(c, sizeof(c), "-");
		if (nd->have_bw_out || nd->bw_out_bps > 0)
			ix_fmt_rate(nd->bw_out_bps, u, a, sizeof(a));
		if (nd->have_bw_in || nd->bw_in_bps > 0)
			ix_fmt_rate(nd->bw_in_bps, u, b, sizeof(b));
		if (nd->lat_p50_ns > 0)
			ix_fmt_ns(nd->lat_p50_ns, c, sizeof(c));
		fprintf(f, "%-4u %-28s %14s %14s %12s %6u", i, name, a, b, c, nd->bad);
		if (links) {
			node_ceiling(nd, u, ceil, sizeof(ceil), share, sizeof(share));
			fprintf(f, " %18s %6s", ceil, share);
		}
		fprintf(f, " %s%s\n", nd->suspect ? "SUSPECT" : "",
			r->node_error[i] ? r->node_error[i] : "");
	}
	if (links)
		fputs("(Ceiling: the lower of the host's line rate and its NIC's PCIe link, "
		      "! = trained below capability; Share: its better median of it)\n",
		      f);
	if (r->findings.median_bw_bps > 0) {
		ix_fmt_rate(r->findings.median_bw_bps, u, a, sizeof(a));
		fprintf(f, "\nMedian pair bandwidth %s; bad below %.0f%% of it.", a,
			100 * (r->params.rules.bw_fraction > 0 ? r->params.rules.bw_fraction
							       : 0.7));
	}
	if (r->findings.lat_baseline_ns > 0) {
		ix_fmt_ns(r->findings.lat_baseline_ns, a, sizeof(a));
		ix_fmt_ns(r->findings.min_lat_ns, b, sizeof(b));
		fprintf(f,
			"\nPair latency baseline %s (%s%g of %zu pairs, lowest %s); bad above "
			"%.1fx it.",
			a, r->findings.lat_percentile == 50 ? "median, p" : "p",
			r->findings.lat_percentile, r->findings.lat_pairs, b,
			r->findings.lat_factor > 0 ? r->findings.lat_factor : 2.0);
	}
	if (r->params.rules.min_bw_bps > 0 || r->params.rules.max_lat_ns > 0) {
		fprintf(f, "\nAbsolute limits:");
		if (r->params.rules.min_bw_bps > 0) {
			ix_fmt_rate(r->params.rules.min_bw_bps, u, a, sizeof(a));
			fprintf(f, " bad below %s", a);
		}
		if (r->params.rules.max_lat_ns > 0) {
			ix_fmt_ns(r->params.rules.max_lat_ns, a, sizeof(a));
			fprintf(f, "%s bad above %s p50", r->params.rules.min_bw_bps > 0 ? ";" : "",
				a);
		}
		fputc('.', f);
	}
	if (r->findings.zero_pairs)
		fprintf(f, "\n%zu pair(s) measured at 0: their test ran and moved nothing.",
			r->findings.zero_pairs);
	if (r->findings.lost_pairs)
		fprintf(f, "\n%zu pair(s) with no round trip back.", r->findings.lost_pairs);
	fprintf(f, "\n%zu bad pair(s)%s\n", r->findings.bad_pairs,
		r->findings.bad_pairs ? ":" : ".");
	for (uint32_t x = 0; x < r->n && shown < 50; x++)
		for (uint32_t y = 0; y < r->n && shown < 50; y++) {
			struct ix_cell cl = ix_cells_get(&r->cells, x, y);
			if (!cl.bad)
				continue;
			host_name(r->hosts, x, a, sizeof(a));
			host_name(r->hosts, y, b, sizeof(b));
			if (shown < nreasons && reasons[shown])
				ix_text_safe(reasons[shown], c, sizeof(c));
			else
				ix_mesh_pair_reason(r, x, y, c, sizeof(c));
			fprintf(f, "  %s -> %s  %s%s\n", a, b, c,
				cl.retested ? " (confirmed)" : "");
			shown++;
		}
	for (size_t i = 0; i < r->findings.nsuspects; i++) {
		host_name(r->hosts, r->findings.suspects[i], name, sizeof(name));
		fprintf(f, "SUSPECT: %s is in %u of its %u measured pairs flagged bad\n", name,
			r->nodes[r->findings.suspects[i]].bad,
			r->nodes[r->findings.suspects[i]].measured);
	}
	bottlenecks(f, r);
	node_counters(f, r);
	fabric(f, r, u);
	ix_text_wire(f, &r->wire);
	for (uint32_t i = 0; i < r->nfailures; i++) {
		host_name(r->hosts, r->failures[i].a, a, sizeof(a));
		host_name(r->hosts, r->failures[i].b, b, sizeof(b));
		ix_text_safe(r->failures[i].error, c, sizeof(c)); /* the agent's words */
		fprintf(f, "FAILED: %s -> %s: %s\n", a, b, c);
	}
	if (!r->complete)
		fprintf(f, "INCOMPLETE: %llu pair(s) not measured%s\n",
			(unsigned long long)(r->pairs_planned - r->pairs_measured),
			r->stopped ? " (stopped on request)" : "");
}

/* The receiver's ceiling and each step's share of it. */
static void receiver_ceiling(FILE *f, const struct ix_incast_result *r,
			     const struct ix_unit_choice *u)
{
	const struct ix_link_limit *l = &r->receiver_link;
	double c = ix_link_ceiling(l);
	char rate[32];

	if (!(c > 0))
		return;
	ix_fmt_rate(c, u, rate, sizeof(rate));
	if (strcmp(l->bottleneck, "pcie") == 0)
		fprintf(f, "Receiver's ceiling: %s, the PCIe Gen%d x%d link of %s's NIC%s; goodput",
			rate, l->pcie.gen, l->pcie.width, l->iface,
			l->pcie.downtrained ? " (trained below its capability)" : "");
	else
		fprintf(f, "Receiver's ceiling: %s, the link on %s; goodput", rate, l->iface);
	for (uint32_t i = 0; i < r->nsteps; i++)
		if (r->steps[i].point.goodput_bps > 0)
			fprintf(f, " N=%u %.1f%%", r->steps[i].point.senders,
				100.0 * r->steps[i].point.goodput_bps / c);
	fputs(" of it\n", f);
}

void ix_text_incast(FILE *f, const struct ix_incast_result *r, const struct ix_unit_choice *u)
{
	const struct ix_incast_params *p = &r->params;
	bool stream = p->mode == IX_INCAST_STREAM;
	char name[IX_HOST_NAME_MAX + 16], g[32], x[32], y[32], z[32], why[IX_ERR_MAX];

	host_name(r->hosts, p->receiver, name, sizeof(name));
	if (stream)
		fprintf(f, "ixperf incast: streaming %s into %s, %.1f s per step\n", p->bw.path,
			name, p->bw.duration_s);
	else
		fprintf(f,
			"ixperf incast: synchronised reads of %llu bytes per sender into %s, "
			"%u rounds per step\n",
			(unsigned long long)p->read.sru, name, p->read.rounds);
	if (stream)
		fprintf(f, "%8s %16s %8s %10s\n", "Senders", "Goodput", "Jain", "Retr");
	else
		fprintf(f, "%8s %16s %12s %12s %12s %9s %8s\n", "Senders", "Goodput", "Round p50",
			"Round p99", "Round max", "Stalled", "Retr");
	for (uint32_t i = 0; i < r->nsteps; i++) {
		const struct ix_incast_step *st = &r->steps[i];

		ix_fmt_rate(st->point.goodput_bps, u, g, sizeof(g));
		ix_text_safe(st->ok ? "" : st->error, why, sizeof(why)); /* the agents' words */
		if (stream) {
			fprintf(f, "%8u %16s %8.3f %10llu%s%s\n", st->point.senders, g, st->jain,
				(unsigned long long)st->point.retransmits,
				st->ok ? "" : "  FAILED: ", why);
			for (uint32_t k = 0; st->nflows <= IX_TEXT_MATRIX_MAX && k < st->nflows;
			     k++) {
				const struct ix_incast_flow *fl = &st->flows[k];
				host_name(r->hosts, fl->host, name, sizeof(name));
				ix_fmt_rate(fl->bps, u, x, sizeof(x));
				ix_text_safe(fl->ok ? "" : fl->error, why, sizeof(why));
				fprintf(f, "%8s   %-28s %14s %s\n", "", name, x, why);
			}
		} else {
			const struct ix_lat_stats *s = &st->read.round;
			snprintf(x, sizeof(x), "-");
			snprintf(y, sizeof(y), "-");
			snprintf(z, sizeof(z), "-");
			if (s->valid) {
				ix_fmt_ns((double)s->p50, x, sizeof(x));
				ix_fmt_ns((double)s->p99, y, sizeof(y));
				ix_fmt_ns((double)s->max, z, sizeof(z));
			}
			fprintf(f, "%8u %16s %12s %12s %12s %4llu/%-4llu %8llu%s%s\n",
				st->point.senders, g, x, y, z,
				(unsigned long long)st->point.stalled_rounds,
				(unsigned long long)st->point.rounds,
				(unsigned long long)st->point.retransmits,
				st->ok ? "" : "  FAILED: ", why);
		}
	}
	receiver_ceiling(f, r, u);
	fprintf(f, "Diagnosis: %s\n", r->diagnosis);
	if (r->judged && !r->nfailed)
		fprintf(f, "Thresholds: every step held them.\n");
	for (uint32_t i = 0; r->judged && i < r->nfailed; i++)
		fprintf(f, "FAIL threshold: %s\n", r->failed[i]);
	ix_text_wire(f, &r->wire);
}
