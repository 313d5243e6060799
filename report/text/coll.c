/* Collectives as text: nccl-tests' table (size, count, time, algbw, busbw,
 * #wrong, out-of-place then in-place), then the ranks and the verdicts. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "probes/gpu/nvml.h"
#include "report/fmt/safe.h"
#include "report/text/text.h"

static void header(FILE *f, const struct ix_coll_result *r)
{
	const struct ix_coll_opts *o = &r->opts;
	char lib[256];

	ix_text_safe(r->library, lib, sizeof(lib));
	fprintf(f, "ixperf coll %s: %s %s (%s) over %s, %d rank%s on %d node%s\n",
		ix_coll_op_name(o->op), r->lib_name, r->lib_version[0] ? r->lib_version : "", lib,
		r->gpu_backend, r->nranks, r->nranks == 1 ? "" : "s", r->nnodes,
		r->nnodes == 1 ? "" : "s");
	if (r->simulation[0]) {
		char sim[256];
		ix_text_safe(r->simulation, sim, sizeof(sim));
		fprintf(f, "SIMULATED library: %s\n", sim);
	}
	fprintf(f, "%s", ix_coll_dtype_name(o->dtype));
	if (ix_coll_op_reduces(o->op))
		fprintf(f, ", %s", ix_coll_redop_name(o->redop));
	if (ix_coll_op_rooted(o->op))
		fprintf(f, ", root %d", o->root);
	fprintf(f, "; %u iterations after %u warm-up; busbw = algbw x %s = %.4g; GB = 1e9 bytes\n",
		o->iters, o->warmup, ix_coll_factor_text(o->op), r->bus_factor);
}

static void cell(FILE *f, const struct ix_coll_cell *c, bool on)
{
	char wrong[24];

	if (!on) {
		fprintf(f, "  %9s %7s %7s %7s", "", "", "", "");
		return;
	}
	if (!c->measured) {
		fprintf(f, "  %9s %7s %7s %7s", "-", "-", "-", "-");
		return;
	}
	if (c->wrong < 0)
		snprintf(wrong, sizeof(wrong), "N/A");
	else
		snprintf(wrong, sizeof(wrong), "%lld", (long long)c->wrong);
	fprintf(f, "  %9.*f %7.2f %7.2f %7s",
		c->time_us >= 10000 ? 0
		: c->time_us >= 100 ? 1
				    : 2,
		c->time_us, c->algbw / 1e9, c->busbw / 1e9, wrong);
}

static void table(FILE *f, const struct ix_coll_result *r)
{
	const bool *on = r->opts.places;

	fprintf(f, "%12s %12s  %-33s  %-33s\n", "", "", on[0] ? "out-of-place" : "",
		on[1] ? "in-place" : "");
	fprintf(f, "%12s %12s  %9s %7s %7s %7s  %9s %7s %7s %7s\n", "size", "count", "time",
		"algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
	fprintf(f, "%12s %12s  %9s %7s %7s %7s  %9s %7s %7s %7s\n", "(B)", "(elements)", "(us)",
		"(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
	for (int i = 0; i < r->nrows; i++) {
		fprintf(f, "%12zu %12zu", r->rows[i].bytes, r->rows[i].count);
		for (int p = 0; p < IX_COLL_NPLACES; p++)
			cell(f, &r->rows[i].cell[p], on[p]);
		fprintf(f, "\n");
	}
	fprintf(f, "Avg bus bandwidth: %.3f GB/s (the mean of the rows', as nccl-tests)\n",
		r->avg_busbw / 1e9);
}

static void rank_line(FILE *f, const struct ix_coll_rank *k)
{
	const struct ix_coll_rank_cell *c = NULL;
	char node[48], gpu[40], pair[24] = "-", err[IX_ERR_MAX];

	for (int p = 0; p < IX_COLL_NPLACES && k->nrows > 0; p++)
		if (k->cell[k->nrows - 1][p].measured) {
			c = &k->cell[k->nrows - 1][p];
			break;
		}
	ix_text_safe(k->node[0] ? k->node : "?", node, sizeof(node));
	ix_text_safe(k->gpu[0] ? k->gpu : "?", gpu, sizeof(gpu));
	if (k->pair_bps > 0)
		snprintf(pair, sizeof(pair), "%.2f", k->pair_bps / 1e9);
	fprintf(f, "%5d  %-20.20s %3d  %-24.24s %-13.13s", k->rank, node, k->device, gpu,
		k->pci_bus_id[0] ? k->pci_bus_id : "-");
	if (c)
		fprintf(f, " %10.1f %9.1f %9.1f %8s", c->dev_med_us, c->dev_min_us, c->dev_max_us,
			pair);
	else
		fprintf(f, " %10s %9s %9s %8s", "-", "-", "-", pair);
	if (k->error[0]) {
		ix_text_safe(k->error, err, sizeof(err));
		fprintf(f, "  %s", err);
	}
	fprintf(f, "\n");
}

static void ranks(FILE *f, const struct ix_coll_result *r)
{
	fprintf(f, "\n%5s  %-20s %3s  %-24s %-13s %10s %9s %9s %8s\n", "rank", "node", "gpu",
		"name", "pci", "iter med", "min", "max", "pair");
	fprintf(f, "%5s  %-20s %3s  %-24s %-13s %10s %9s %9s %8s\n", "", "", "", "", "", "(us)",
		"(us)", "(us)", "(GB/s)");
	for (int i = 0; i < r->nranks; i++)
		rank_line(f, &r->ranks[i]);
	fprintf(f, "(iter: each collective of the largest size on the rank's stream; pair: the "
		   "scan's sendrecv with the next rank, each way)\n");
}

static const char *node_of(const struct ix_coll_result *r, int rank, char *buf, size_t len)
{
	ix_text_safe(rank >= 0 && rank < r->nranks && r->ranks[rank].node[0] ? r->ranks[rank].node
									     : "?",
		     buf, len);
	return buf;
}

/* What rank k's node says of its GPU's links, on one indented line. */
static void facts_line(FILE *f, const struct ix_coll_rank *k)
{
	const struct ix_coll_facts *x = &k->facts;
	char nic[64];

	fprintf(f, "  its links:");
	if (!x->pcie_known)
		fprintf(f, " PCIe link not in sysfs");
	else if (x->pcie_downtrained)
		fprintf(f, " PCIe Gen%d x%d, DOWNTRAINED (the GPU can do Gen%d x%d)", x->pcie_gen,
			x->pcie_width, x->pcie_max_gen, x->pcie_max_width);
	else
		fprintf(f, " PCIe Gen%d x%d", x->pcie_gen, x->pcie_width);
	if (x->nvlinks > 0)
		fprintf(f, "; %d NVLinks %s", x->nvlinks,
			ix_nvlink_version_name(x->nvlink_version));
	else
		fprintf(f, "; %s", x->nvlinks == 0 ? "no NVLink" : "NVLink not read");
	ix_text_safe(x->nic, nic, sizeof(nic));
	if (x->nic[0])
		fprintf(f, "; nearest NIC %s (%s, %.1f GB/s)", nic, x->nic_path, x->nic_Bps / 1e9);
	else
		fprintf(f, "; no NIC found");
	if (x->fabric_known) {
		char moved[256];

		if (ix_ctr_sum_sentence(&x->fabric_moved, moved, sizeof(moved)) > 0)
			fprintf(f, "; during the run: %s", moved);
		else
			fprintf(f, "; no fabric counter moved during the run");
	}
	fprintf(f, "\n");
}

/* The bus bandwidth the links allow, beside the largest size's. */
static void ceiling(FILE *f, const struct ix_coll_result *r)
{
	const struct ix_coll_ceiling *c = &r->ceiling;
	char why[300];

	if (r->nranks < 2)
		return;
	if (c->Bps <= 0) {
		ix_text_safe(c->unknown[0] ? c->unknown : "no link read", why, sizeof(why));
		fprintf(f, "\nBus bandwidth the links allow: unknown (%s)\n", why);
		return;
	}
	ix_text_safe(c->why, why, sizeof(why));
	fprintf(f, "\nBus bandwidth the links allow: %.1f GB/s (%s, %s)\n", c->Bps / 1e9, c->limit,
		why);
	if (c->share > 0)
		fprintf(f, "The largest size's busbw is %.0f%% of it%s\n", c->share * 100,
			c->share > 1 ? " (above: NVLink SHARP or an in-network reduction)" : "");
}

static void verdict(FILE *f, const struct ix_coll_result *r)
{
	const struct ix_coll_verdict *v = &r->verdict;
	char a[64], b[64];

	if (r->npairs > 0) {
		fprintf(f,
			"\nPair scan (sendrecv of %zu bytes, each link of the ring alone): median "
			"%.2f GB/s each way, %d slow\n",
			r->nrows ? r->opts.sizes[r->nrows - 1] : 0, v->median_bps / 1e9,
			v->slow_pairs);
		switch (v->culprit) {
		case IX_COLL_RANK:
			fprintf(f,
				"Slow rank: %d on %s (GPU %d, %s): both its links at %.2g x the "
				"others'\n",
				v->rank, node_of(r, v->rank, a, sizeof(a)),
				r->ranks[v->rank].device,
				r->ranks[v->rank].pci_bus_id[0] ? r->ranks[v->rank].pci_bus_id
								: "-",
				v->share);
			facts_line(f, &r->ranks[v->rank]);
			break;
		case IX_COLL_LINK:
			fprintf(f,
				"Slow link: rank %d on %s <-> rank %d on %s, at %.2f x the others "
				"of its kind\n",
				v->rank, node_of(r, v->rank, a, sizeof(a)), v->rank_b,
				node_of(r, v->rank_b, b, sizeof(b)), v->share);
			facts_line(f, &r->ranks[v->rank]);
			facts_line(f, &r->ranks[v->rank_b]);
			break;
		case IX_COLL_MANY:
			fprintf(f, "Slow links that no one rank or link explains: see the pair "
				   "column\n");
			break;
		default:
			fprintf(f,
				"No rank or link stands out: every link within %.0f%% of the "
				"others "
				"of its kind\n",
				(1 - IX_COLL_SLOW_SHARE) * 100);
			break;
		}
	}
	if (v->late_rank >= 0)
		fprintf(f,
			"Late rank: %d on %s arrived last in %u of %u iterations; the others "
			"waited "
			"%.1f us for it on average\n",
			v->late_rank, node_of(r, v->late_rank, a, sizeof(a)), v->late_iters,
			r->ranks[v->late_rank].niter, v->late_us);
	if (v->late_rank >= 0)
		facts_line(f, &r->ranks[v->late_rank]);
}

void ix_text_coll(FILE *f, const struct ix_coll_result *r)
{
	header(f, r);
	table(f, r);
	ranks(f, r);
	ceiling(f, r);
	verdict(f, r);
	if (!r->complete && r->missing)
		fprintf(f,
			"INCOMPLETE: %d rank%s sent no report; rows without every rank's figure "
			"show -\n",
			r->missing, r->missing == 1 ? "" : "s");
	else if (!r->complete)
		fprintf(f, "INCOMPLETE: a rank stopped (its error is on its line); rows without "
			   "every rank's figure show -\n");
}
