#include "config.h"

#include <math.h>
#include <string.h>

#include "report/doc/verdict.h"

static bool num(json_t *o, double *v)
{
	if (!json_is_number(o))
		return false;
	*v = json_number_value(o);
	return isfinite(*v);
}

static bool kind_is(json_t *r, const char *kind)
{
	const char *k = json_string_value(json_object_get(r, "kind"));

	return k && !strcmp(k, kind);
}

/* Goodput of one bw result: the direction measured, both for bidir; over
 * rdma, perftest's average of the data the requester moved. */
static bool bw_goodput(json_t *r, double *v)
{
	json_t *s = json_object_get(r, "summary");

	if (kind_is(r, "rdma_bw"))
		return num(json_object_get(json_object_get(r, "rdma"), "bits_per_second"), v);
	{
		double f = 0, b = 0;
		bool hf =
			num(json_object_get(json_object_get(s, "forward"), "bits_per_second"), &f);
		bool hb =
			num(json_object_get(json_object_get(s, "reverse"), "bits_per_second"), &b);

		*v = f + b;
		return hf || hb;
	}
}

/* Fold the worst value of a figure over an array of objects. */
struct fold {
	bool any;
	double v;
	bool want_min;
};

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static void fold(struct fold *f, double v)
{
	if (!f->any || (f->want_min ? v < f->v : v > f->v))
		f->v = v;
	f->any = true;
}

static bool bw_figure(json_t *results, const char *fig, double *out)
{
	struct fold f = { .want_min = !strcmp(fig, "bits_per_second") };
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
	{
		json_t *s = json_object_get(r, "summary");
		double v, sum = 0;
		bool have = false;

		if (!strcmp(fig, "bits_per_second")) {
			if (bw_goodput(r, &v))
				fold(&f, v);
			continue;
		}
		for (int d = 0; d < 2; d++) {
			json_t *x =
				json_object_get(json_object_get(s, d ? "reverse" : "forward"), fig);
			if (num(x, &v)) {
				sum = !strcmp(fig, "loss_percent") ? fmax(sum, v) : sum + v;
				have = true;
			}
		}
		if (have)
			fold(&f, sum);
	}
	*out = f.v;
	return f.any;
}

static bool lat_figure(json_t *results, const char *fig, double *out)
{
	struct fold f = { 0 };
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
	{
		double v;
		if (num(json_object_get(json_object_get(r, "stats"), fig), &v))
			fold(&f, v);
	}
	*out = f.v;
	return f.any;
}

/* One mesh's figure: the slowest (or largest) over its matrix. */
static bool matrix_fold(json_t *m, const char *which, struct fold *f)
{
	json_t *row, *cell;
	size_t a, b;

	json_array_foreach(json_object_get(json_object_get(m, "matrix"), which), a, row)
		json_array_foreach(row, b, cell)
	{
		double v;
		if (num(cell, &v))
			fold(f, v);
	}
	return f->any;
}

/* Over every mesh of the results (one, or each rail's): the slowest
 * median, the sum of the counts, the slowest pair; bad_rails from the
 * rails result. */
static bool mesh_figure(json_t *results, const char *fig, double *out)
{
	struct fold f = { .want_min =
				  !strcmp(fig, "bits_per_second") || !strcmp(fig, "min_pair_bps") };
	bool count = !strcmp(fig, "bad_pairs") || !strcmp(fig, "suspects");
	json_t *m;
	size_t i;
	double sum = 0, v;

	if (!strcmp(fig, "bad_rails")) {
		json_array_foreach(results, i, m)
		{
			json_t *bad = json_object_get(m, "bad_rails");

			if (!strcmp(str(m, "kind"), "rails") && json_is_array(bad)) {
				*out = (double)json_array_size(bad);
				return true;
			}
		}
		return false;
	}
	json_array_foreach(results, i, m)
	{
		if (!strcmp(str(m, "kind"), "pattern")) { /* mesh --pattern: per host */
			if (!strcmp(fig, "bad_hosts") && num(json_object_get(m, "bad_hosts"), &v))
				return (*out = v), true;
			if (!strcmp(fig, "bits_per_second") &&
			    num(json_object_get(m, "median_bps"), &v))
				return (*out = v), true;
			continue;
		}
		if (json_object_get(m, "kind") && strcmp(str(m, "kind"), "mesh") != 0)
			continue; /* the rails side by side */
		if (!strcmp(fig, "bits_per_second") && num(json_object_get(m, "median_bw_bps"), &v))
			fold(&f, v);
		else if (count && json_is_array(json_object_get(m, fig))) {
			sum += (double)json_array_size(json_object_get(m, fig));
			f.any = true;
		} else if (!strcmp(fig, "min_pair_bps")) /* a pair measured at 0 included */
			matrix_fold(m, "bw_bps", &f);
		else if (!strcmp(fig, "p50_ns")) /* the slowest pair */
			matrix_fold(m, "lat_p50_ns", &f);
	}
	*out = count ? sum : f.v;
	return f.any;
}

static bool incast_figure(json_t *results, const char *fig, double *out)
{
	json_t *steps = json_object_get(json_array_get(results, 0), "steps"), *st;
	struct fold f = { .want_min = !strcmp(fig, "jain") };
	size_t i, n = json_array_size(steps);
	double v;

	if (!strcmp(fig, "bits_per_second")) /* at the largest fan-in */
		return n && num(json_object_get(json_array_get(steps, n - 1), "goodput_bps"), out);
	json_array_foreach(steps, i, st)
	{
		if (!strcmp(fig, "stalled_rounds") &&
		    num(json_object_get(st, "stalled_rounds"), &v))
			fold(&f, v);
		if (!strcmp(fig, "jain") && num(json_object_get(st, "jain"), &v))
			fold(&f, v);
	}
	*out = f.v;
	return f.any;
}

/* The cells of the gpu tests of one metric ("bandwidth", "latency") whose
 * reference is ref (NULL: any), from matrix field field, folded. */
static void gpu_cells(json_t *results, const char *metric, const char *ref, const char *field,
		      double scale, struct fold *f)
{
	json_t *r, *t, *row, *cell;
	size_t i, k, a, b;

	json_array_foreach(results, i, r)
	{
		json_array_foreach(json_object_get(r, "tests"), k, t)
		{
			const char *m = json_string_value(json_object_get(t, "metric"));
			const char *rf = json_string_value(json_object_get(t, "reference"));
			json_t *mx = json_object_get(t, "matrix");

			if (!m || strcmp(m, metric) || (ref && (!rf || strcmp(rf, ref))))
				continue;
			json_array_foreach(json_object_get(mx, field), a, row)
			{
				json_array_foreach(row, b, cell)
				{
					double v;
					json_t *st = json_array_get(
						json_array_get(json_object_get(mx, "state"), a), b);

					if (json_is_string(st) &&
					    !strcmp(json_string_value(st), "ok") && num(cell, &v))
						fold(f, v * scale);
				}
			}
		}
	}
}

/* gpu: the slowest copy (bit/s), the lowest share of its PCIe link or HBM
 * (percent), the slowest pointer chase (ns per hop). */
static bool gpu_figure(json_t *results, const char *fig, double *out)
{
	struct fold f = { .want_min = strcmp(fig, "latency_ns") != 0 };

	if (!strcmp(fig, "bits_per_second"))
		gpu_cells(results, "bandwidth", NULL, "value", 8.0, &f);
	else if (!strcmp(fig, "percent_of_link"))
		gpu_cells(results, "bandwidth", "pcie_link", "percent_of_reference", 1.0, &f);
	else if (!strcmp(fig, "percent_of_hbm"))
		gpu_cells(results, "bandwidth", "hbm", "percent_of_reference", 1.0, &f);
	else if (!strcmp(fig, "latency_ns"))
		gpu_cells(results, "latency", NULL, "value", 1.0, &f);
	*out = f.v;
	return f.any;
}

/* coll: the average bus bandwidth (bit/s, as nccl-tests' "Avg bus
 * bandwidth"), the wrong elements, and what was named slow: the links the
 * pair scan found slow and the ranks that never reported. */
static bool coll_figure(json_t *results, const char *fig, double *out)
{
	json_t *r = json_array_get(results, 0), *v = json_object_get(r, "verdict");
	double a, b;

	if (!strcmp(fig, "busbw_bits_per_second")) {
		if (!num(json_object_get(r, "avg_busbw_Bps"), out) || *out <= 0)
			return false;
		*out *= 8.0;
		return true;
	}
	if (!strcmp(fig, "wrong"))
		return num(json_object_get(r, "wrong"), out);
	if (!strcmp(fig, "slow") && num(json_object_get(r, "missing"), &a)) {
		*out = a + (num(json_object_get(v, "slow_pairs"), &b) ? b : 0);
		return true;
	}
	return false;
}

/* mem: the slowest measured pair's read or write bandwidth (streaming
 * stores where there were any), the slowest pair's latency, the pairs
 * slower than advertised. */
static bool mem_figure(json_t *results, const char *fig, double *out)
{
	json_t *r = json_array_get(results, 0), *c;
	bool lat = !strcmp(fig, "latency_ns"), any = false;
	size_t i;

	if (!strcmp(fig, "slow")) {
		*out = (double)json_array_size(json_object_get(r, "slow"));
		return json_is_array(json_object_get(r, "slow"));
	}
	if (!lat && strcmp(fig, "read_bits_per_second") && strcmp(fig, "write_bits_per_second"))
		return false;
	json_array_foreach(json_object_get(r, "cells"), i, c)
	{
		json_t *bw = json_object_get(c, "bandwidth_Bps");
		double v;
		bool got;

		if (lat)
			got = num(json_object_get(c, "latency_ns"), &v);
		else if (fig[0] == 'r')
			got = num(json_object_get(bw, "read"), &v);
		else
			got = num(json_object_get(bw, "nt_write"), &v) ||
			      num(json_object_get(bw, "write"), &v);
		if (!got)
			continue;
		if (!lat)
			v *= 8.0;
		if (!any || (lat ? v > *out : v < *out))
			*out = v;
		any = true;
	}
	return any;
}

/* topo: what ixperf topo flagged. */
static bool topo_figure(json_t *results, const char *fig, double *out)
{
	json_t *findings = json_object_get(json_array_get(results, 0), "findings");

	*out = (double)json_array_size(findings);
	return !strcmp(fig, "findings") && json_is_array(findings);
}

/* inventory: the nodes named odd ones out, and every node's findings. */
static bool fleet_figure(json_t *results, const char *fig, double *out)
{
	json_t *f = json_array_get(results, 0);
	json_t *v = json_object_get(f, !strcmp(fig, "odd_nodes")  ? "odd_nodes"
				       : !strcmp(fig, "findings") ? "findings_total"
								  : "");

	return num(v, out) && json_integer_value(json_object_get(f, "answered")) > 0;
}

const char *const ix_counter_figure_names[IX_COUNTER_FIGURES] = {
	"pfc_pauses",    "cnp", "ecn_marked", "fabric_drops", "fabric_retransmissions",
	"fabric_errors",
};

static const char *const counter_classes[IX_COUNTER_FIGURES][3] = {
	{ "pause_rx", "pause_tx" }, { "cnp_sent", "cnp_handled" }, { "ecn_marked" }, { "discards" },
	{ "retransmissions" },      { "errors", "link_events" },
};

/* Add the classes of one summary object; false when it is not one. */
static bool add_summary(json_t *summary, const char *const *classes, double *v)
{
	if (!json_is_object(summary))
		return false;
	for (int i = 0; i < 3 && classes[i]; i++) {
		double x;

		if (num(json_object_get(summary, classes[i]), &x))
			*v += x;
	}
	return true;
}

/* Both ends of a test ({local, remote} or {from, to}). */
static bool add_ends(json_t *pair, const char *a, const char *b, const char *const *classes,
		     double *v)
{
	bool ha = add_summary(json_object_get(json_object_get(pair, a), "summary"), classes, v);
	bool hb = add_summary(json_object_get(json_object_get(pair, b), "summary"), classes, v);

	return ha || hb;
}

bool ix_counter_figure(json_t *r, const char *figure, double *value)
{
	const char *kind = json_string_value(json_object_get(r, "kind"));
	const char *const *classes = NULL;
	bool have = false;
	json_t *x;
	size_t i;

	for (int k = 0; k < IX_COUNTER_FIGURES; k++)
		if (!strcmp(figure, ix_counter_figure_names[k]))
			classes = counter_classes[k];
	*value = 0;
	if (!classes || !kind)
		return false;
	if (!strcmp(kind, "bw") || !strcmp(kind, "lat") || !strcmp(kind, "rdma_bw") ||
	    !strcmp(kind, "rdma_lat"))
		return add_ends(json_object_get(r, "counters"), "local", "remote", classes, value);
	if (!strcmp(kind, "mesh")) {
		json_array_foreach(json_object_get(r, "nodes"), i, x)
		{
			if (add_summary(json_object_get(x, "counters"), classes, value))
				have = true;
		}
		return have;
	}
	if (!strcmp(kind, "incast")) {
		json_array_foreach(json_object_get(r, "steps"), i, x)
		{
			json_t *c = json_object_get(x, "counters");
			bool hs = add_summary(json_object_get(c, "senders"), classes, value);
			bool hr = add_summary(json_object_get(c, "receiver"), classes, value);

			have = have || hs || hr;
		}
		return have;
	}
	return false;
}

/* The worst over the results: the largest count. */
static bool counters_figure(json_t *results, const char *fig, double *out)
{
	struct fold f = { 0 };
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
	{
		double v;

		if (ix_counter_figure(r, fig, &v))
			fold(&f, v);
	}
	*out = f.v;
	return f.any;
}

bool ix_figure_of(const char *probe, json_t *results, const char *figure, double *value)
{
	if (!json_is_array(results) || !json_array_size(results))
		return false;
	for (int k = 0; k < IX_COUNTER_FIGURES; k++)
		if (!strcmp(figure, ix_counter_figure_names[k]))
			return counters_figure(results, figure, value);
	if (!strcmp(probe, "bw"))
		return bw_figure(results, figure, value);
	if (!strcmp(probe, "lat"))
		return lat_figure(results, figure, value);
	if (!strcmp(probe, "mesh"))
		return mesh_figure(results, figure, value);
	if (!strcmp(probe, "incast"))
		return incast_figure(results, figure, value);
	if (!strcmp(probe, "gpu"))
		return gpu_figure(results, figure, value);
	if (!strcmp(probe, "coll"))
		return coll_figure(results, figure, value);
	if (!strcmp(probe, "mem"))
		return mem_figure(results, figure, value);
	if (!strcmp(probe, "topo"))
		return topo_figure(results, figure, value);
	if (!strcmp(probe, "inventory"))
		return fleet_figure(results, figure, value);
	return false;
}

void ix_headline_of(const char *probe, json_t *results, struct ix_headline *h)
{
	size_t n = json_array_size(results);

	memset(h, 0, sizeof(*h));
	h->higher_better = true;
	h->unit = "bit/s";
	if (!strcmp(probe, "bw")) {
		h->name = "goodput";
		h->valid = n && bw_goodput(json_array_get(results, n - 1), &h->value);
	} else if (!strcmp(probe, "lat")) {
		h->name = "p99";
		h->unit = "ns";
		h->higher_better = false;
		h->valid = n &&
			   num(json_object_get(json_object_get(json_array_get(results, 0), "stats"),
					       "p99_ns"),
			       &h->value);
	} else if (!strcmp(probe, "mesh")) {
		h->name = !strcmp(str(json_array_get(results, 0), "kind"), "pattern")
				  ? "median host's bandwidth"
				  : "median pair bandwidth";
		h->valid = mesh_figure(results, "bits_per_second", &h->value);
		if (!h->valid) {
			h->name = "slowest pair p50";
			h->unit = "ns";
			h->higher_better = false;
			h->valid = mesh_figure(results, "p50_ns", &h->value);
		}
	} else if (!strcmp(probe, "gpu")) {
		h->name = "slowest GPU copy";
		h->valid = gpu_figure(results, "bits_per_second", &h->value);
		if (!h->valid && gpu_figure(results, "latency_ns", &h->value)) {
			h->name = "slowest GPU pointer chase";
			h->unit = "ns";
			h->higher_better = false;
			h->valid = true;
		}
	} else if (!strcmp(probe, "coll")) {
		h->name = "average bus bandwidth";
		h->valid = coll_figure(results, "busbw_bits_per_second", &h->value);
	} else if (!strcmp(probe, "mem")) {
		h->name = "slowest pair's read bandwidth";
		h->valid = mem_figure(results, "read_bits_per_second", &h->value);
		if (!h->valid && mem_figure(results, "latency_ns", &h->value)) {
			h->name = "slowest pair's latency";
			h->unit = "ns";
			h->higher_better = false;
			h->valid = true;
		}
	} else if (!strcmp(probe, "topo")) {
		h->name = "findings";
		h->unit = "";
		h->higher_better = false;
		h->valid = topo_figure(results, "findings", &h->value);
	} else if (!strcmp(probe, "inventory")) {
		h->name = "odd nodes";
		h->unit = "";
		h->higher_better = false;
		h->valid = fleet_figure(results, "odd_nodes", &h->value);
	} else {
		h->name = "goodput at the largest fan-in";
		h->valid = incast_figure(results, "bits_per_second", &h->value);
	}
}

bool ix_baseline_headline(json_t *doc, const char *name, double *value)
{
	json_t *checks =
		json_object_get(json_array_get(json_object_get(doc, "results"), 0), "checks");
	json_t *c;
	size_t i;

	json_array_foreach(checks, i, c)
	{
		const char *n = json_string_value(json_object_get(c, "name"));
		if (n && !strcmp(n, name))
			return num(json_object_get(json_object_get(c, "headline"), "value"), value);
	}
	return false;
}

const char *ix_doc_verdict(json_t *doc)
{
	json_t *results = json_object_get(doc, "results"), *r;
	json_t *run = json_array_get(results, 0);
	bool judged = false, fail = false;
	size_t i;

	if (json_is_string(json_object_get(run, "verdict")) &&
	    !strcmp(json_string_value(json_object_get(run, "kind")) ?: "", "run"))
		return json_string_value(json_object_get(run, "verdict"));
	if (json_is_string(json_object_get(doc, "error")) ||
	    json_is_false(json_object_get(doc, "complete")))
		return "ERROR";
	json_array_foreach(results, i, r)
	{
		const char *kind = json_string_value(json_object_get(r, "kind")) ?: "";
		json_t *t = json_object_get(r, "thresholds");

		if (!strcmp(kind, "mesh")) {
			judged = true;
			fail |= json_array_size(json_object_get(r, "bad_pairs")) > 0;
		} else if (!strcmp(kind, "pattern")) {
			judged = true;
			fail |= json_integer_value(json_object_get(r, "bad_hosts")) > 0;
		} else if (!strcmp(kind, "rails")) { /* a rail far below the others: exit 4 */
			judged = true;
			fail |= json_array_size(json_object_get(r, "bad_rails")) > 0;
		} else if (!strcmp(kind, "incast") && json_is_object(t)) {
			judged = true;
			fail |= json_array_size(json_object_get(t, "failed")) > 0;
		}
	}
	return fail ? "FAIL" : judged ? "PASS" : "INFO";
}
