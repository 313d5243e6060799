/* The JSON of collectives (the "coll" result of the schema). Figures in
 * bytes, bytes per second and microseconds; what was not measured is null. */
#include "config.h"

#include "probes/gpu/nvml.h"
#include "report/fmt/safe.h"
#include "report/json/json.h"

static json_t *str_or_null(const char *s)
{
	return s && *s ? ix_json_string_lossy(s) : json_null();
}

static json_t *params_json(const struct ix_coll_result *r)
{
	const struct ix_coll_opts *o = &r->opts;

	return json_pack("{s:s, s:s, s:o, s:o, s:I, s:I, s:I, s:b, s:b, s:b, s:b, s:f}", "op",
			 ix_coll_op_name(o->op), "datatype", ix_coll_dtype_name(o->dtype), "redop",
			 ix_coll_op_reduces(o->op) ? json_string(ix_coll_redop_name(o->redop))
						   : json_null(),
			 "root", ix_coll_op_rooted(o->op) ? json_integer(o->root) : json_null(),
			 "iters", (json_int_t)o->iters, "warmup", (json_int_t)o->warmup, "sizes",
			 (json_int_t)o->nsizes, "check", o->check, "out_of_place",
			 o->places[IX_COLL_OUT_OF_PLACE], "in_place", o->places[IX_COLL_IN_PLACE],
			 "pair_scan", o->pair_scan, "timeout_s", o->timeout_s);
}

static json_t *cell_json(const struct ix_coll_cell *c, bool on)
{
	if (!on)
		return json_null();
	if (!c->measured)
		return json_pack("{s:b}", "measured", 0);
	return json_pack("{s:b, s:f, s:f, s:f, s:f, s:f, s:o, s:i, s:o}", "measured", 1, "time_us",
			 c->time_us, "algbw_Bps", c->algbw, "busbw_Bps", c->busbw, "rank_min_us",
			 c->rank_min_us, "rank_max_us", c->rank_max_us, "wrong",
			 c->wrong < 0 ? json_null() : json_integer(c->wrong), "wrong_ranks",
			 c->wrong_ranks, "first_wrong_rank",
			 c->first_wrong_rank < 0 ? json_null() : json_integer(c->first_wrong_rank));
}

static json_t *rows_json(const struct ix_coll_result *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->nrows; i++)
		json_array_append_new(a, json_pack("{s:I, s:I, s:o, s:o}", "bytes",
						   (json_int_t)r->rows[i].bytes, "count",
						   (json_int_t)r->rows[i].count, "out_of_place",
						   cell_json(&r->rows[i].cell[IX_COLL_OUT_OF_PLACE],
							     r->opts.places[IX_COLL_OUT_OF_PLACE]),
						   "in_place",
						   cell_json(&r->rows[i].cell[IX_COLL_IN_PLACE],
							     r->opts.places[IX_COLL_IN_PLACE])));
	return a;
}

static json_t *num_or_null(bool known, double v)
{
	return known ? json_real(v) : json_null();
}

/* What the rank's node says of its GPU's links. */
static json_t *facts_json(const struct ix_coll_facts *x)
{
	json_t *moved = x->fabric_known ? ix_ctr_sum_json(&x->fabric_moved) : json_null();
	json_t *pcie = x->pcie_known
			       ? json_pack("{s:i, s:i, s:i, s:i, s:f, s:b}", "gen", x->pcie_gen,
					   "width", x->pcie_width, "max_gen", x->pcie_max_gen,
					   "max_width", x->pcie_max_width, "Bps", x->pcie_Bps,
					   "downtrained", x->pcie_downtrained)
			       : json_null();

	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "pcie", pcie, "nvlinks",
			 x->nvlinks < 0 ? json_null() : json_integer(x->nvlinks), "nvlink_version",
			 x->nvlinks > 0 ? json_string(ix_nvlink_version_name(x->nvlink_version))
					: json_null(),
			 "nvlink_Bps", num_or_null(x->nvlinks > 0, x->nvlink_Bps), "nvml_error",
			 str_or_null(x->nvml_error), "nic", str_or_null(x->nic), "nic_path",
			 str_or_null(x->nic_path), "nic_Bps",
			 num_or_null(x->nic_Bps > 0, x->nic_Bps), "moved", moved);
}

static json_t *ceiling_json(const struct ix_coll_ceiling *c)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "Bps", num_or_null(c->Bps > 0, c->Bps),
			 "limit", str_or_null(c->limit), "why", str_or_null(c->why), "share",
			 num_or_null(c->share > 0, c->share), "unknown", str_or_null(c->unknown));
}

static json_t *rank_json(const struct ix_coll_rank *k)
{
	const struct ix_coll_rank_cell *c = NULL;
	json_t *iter = json_array();

	for (int p = 0; p < IX_COLL_NPLACES && k->nrows > 0; p++)
		if (k->cell[k->nrows - 1][p].measured) {
			c = &k->cell[k->nrows - 1][p];
			break;
		}
	for (unsigned i = 0; i < k->niter; i++)
		json_array_append_new(iter, json_real(k->iter_us[i]));
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:b, s:b, s:b, s:i, s:o, s:o, s:o, s:o, s:o, "
			 "s:o, s:o}",
			 "rank", k->rank, "node", str_or_null(k->node), "device",
			 k->device < 0 ? json_null() : json_integer(k->device), "gpu",
			 str_or_null(k->gpu), "pci_bus_id", str_or_null(k->pci_bus_id), "joined",
			 k->joined, "complete", k->complete, "missing", k->missing, "rows",
			 k->nrows, "iter_median_us", c ? json_real(c->dev_med_us) : json_null(),
			 "iter_min_us", c ? json_real(c->dev_min_us) : json_null(), "iter_max_us",
			 c ? json_real(c->dev_max_us) : json_null(), "iter_us", iter, "pair_Bps",
			 k->pair_bps > 0 ? json_real(k->pair_bps) : json_null(), "error",
			 str_or_null(k->error), "facts", facts_json(&k->facts));
}

static const char *culprit_name(enum ix_coll_culprit c)
{
	switch (c) {
	case IX_COLL_RANK:
		return "rank";
	case IX_COLL_LINK:
		return "link";
	case IX_COLL_MANY:
		return "many";
	default:
		return "none";
	}
}

static json_t *verdict_json(const struct ix_coll_result *r)
{
	const struct ix_coll_verdict *v = &r->verdict;
	json_t *pairs = json_array();
	bool one = v->culprit == IX_COLL_RANK || v->culprit == IX_COLL_LINK;

	for (int i = 0; i < r->npairs; i++)
		json_array_append_new(
			pairs,
			json_pack("{s:i, s:i, s:o, s:b}", "a", r->pairs[i].a, "b", r->pairs[i].b,
				  "Bps",
				  r->pairs[i].bps > 0 ? json_real(r->pairs[i].bps) : json_null(),
				  "slow", r->pairs[i].slow));
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:I}", "pairs", pairs,
			 "culprit", r->npairs ? json_string(culprit_name(v->culprit)) : json_null(),
			 "rank", one ? json_integer(v->rank) : json_null(), "rank_b",
			 v->culprit == IX_COLL_LINK ? json_integer(v->rank_b) : json_null(),
			 "share", one ? json_real(v->share) : json_null(), "slow_pairs",
			 v->slow_pairs, "median_pair_Bps",
			 r->npairs ? json_real(v->median_bps) : json_null(), "late_rank",
			 v->late_rank >= 0 ? json_integer(v->late_rank) : json_null(), "late_us",
			 v->late_rank >= 0 ? json_real(v->late_us) : json_null(), "late_iters",
			 (json_int_t)v->late_iters);
}

json_t *ix_json_coll(const struct ix_coll_result *r)
{
	json_t *ranks = json_array();

	for (int i = 0; i < r->nranks && r->ranks; i++)
		json_array_append_new(ranks, rank_json(&r->ranks[i]));
	return json_pack("{s:s, s:o, s:o, s:o, s:s, s:o, s:o, s:i, s:i, s:f, s:s, s:o, s:f, s:o, "
			 "s:o, s:o, s:b, s:i, s:o}",
			 "kind", "coll", "library", str_or_null(r->lib_name), "library_path",
			 str_or_null(r->library), "library_version", str_or_null(r->lib_version),
			 "gpu_backend", r->gpu_backend, "simulation", str_or_null(r->simulation),
			 "params", params_json(r), "nranks", r->nranks, "nnodes", r->nnodes,
			 "bus_factor", r->bus_factor, "bus_factor_formula",
			 ix_coll_factor_text(r->opts.op), "rows", rows_json(r), "avg_busbw_Bps",
			 r->avg_busbw, "ranks", ranks, "verdict", verdict_json(r), "ceiling",
			 ceiling_json(&r->ceiling), "complete", r->complete, "missing", r->missing,
			 "wrong", r->wrong < 0 ? json_null() : json_integer(r->wrong));
}
