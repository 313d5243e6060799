/* Reading result documents back: load, validate, and the headline figures
 * of every kind of result as a flat list. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/doc/figures.h"
#include "report/doc/verdict.h"
#include "report/fmt/safe.h"
#include "report/fmt/units.h"

#define RETRANSMITS_ALLOWANCE 10.0 /* TCP retransmits: noise below this */
#define LOSS_ALLOWANCE        0.1  /* UDP loss: percentage points */

/* Copy src into dst, cut on a UTF-8 character boundary when too long. */
static void copy_utf8(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len) {
		n = len - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

json_t *ix_doc_load(const char *path, struct ix_err *err)
{
	json_error_t jerr;
	struct stat st;
	json_t *doc;
	FILE *f;

	f = fopen(path, "rb");
	if (!f) {
		ix_fail(err, IX_EXIT_FAIL, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		ix_fail(err, IX_EXIT_FAIL, "cannot read %s: it is a directory", path);
		return NULL;
	}
	doc = json_loadf(f, 0, &jerr);
	fclose(f);
	if (!doc) {
		char text[JSON_ERROR_TEXT_LENGTH];

		ix_text_safe(jerr.text, text, sizeof(text)); /* it may quote the file */
		ix_fail(err, IX_EXIT_FAIL,
			"%s: not valid JSON (truncated or corrupt?): line %d, column %d: %s", path,
			jerr.line, jerr.column, text);
		return NULL;
	}
	if (ix_doc_validate(doc, err) < 0) {
		ix_fail_prefix(err, "%s", path);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

static const char *kind_of(json_t *item)
{
	return json_string_value(json_object_get(item, "kind"));
}

static int validate_run(json_t *run, size_t i, struct ix_err *err)
{
	json_t *checks = json_object_get(run, "checks"), *c;
	size_t k;

	if (!json_is_array(checks))
		return ix_fail(err, IX_EXIT_FAIL,
			       "not an ixperf result document: results[%zu] (a run) has no checks "
			       "array",
			       i);
	json_array_foreach(checks, k, c)
	{
		if (!json_is_object(c) || !json_is_string(json_object_get(c, "name")))
			return ix_fail(
				err, IX_EXIT_FAIL,
				"not an ixperf result document: results[%zu].checks[%zu] has "
				"no name",
				i, k);
		if (json_object_get(c, "results") && !json_is_array(json_object_get(c, "results")))
			return ix_fail(err, IX_EXIT_FAIL,
				       "not an ixperf result document: results[%zu].checks[%zu]."
				       "results is not an array",
				       i, k);
	}
	return 0;
}

int ix_doc_validate(json_t *doc, struct ix_err *err)
{
	json_t *sv = json_object_get(doc, "schema_version"), *results, *item;
	const char *tool = json_string_value(json_object_get(json_object_get(doc, "tool"), "name"));
	char missing[256] = "";
	size_t i, off = 0;

	if (!json_is_object(doc))
		return ix_fail(err, IX_EXIT_FAIL,
			       "not an ixperf result document: not a JSON object");
	results = json_object_get(doc, "results");
	if (!sv)
		off += (size_t)snprintf(missing + off, sizeof(missing) - off, "no schema_version");
	if (!tool || strcmp(tool, "ixperf") != 0)
		off += (size_t)snprintf(missing + off, sizeof(missing) - off,
					"%sno tool.name \"ixperf\"", off ? ", " : "");
	if (!json_is_array(results))
		snprintf(missing + off, sizeof(missing) - off, "%sno results array",
			 off ? ", " : "");
	if (missing[0])
		return ix_fail(err, IX_EXIT_FAIL, "not an ixperf result document: %s", missing);
	if (!json_is_integer(sv) || json_integer_value(sv) < 1)
		return ix_fail(err, IX_EXIT_FAIL,
			       "not an ixperf result document: schema_version is not a positive "
			       "integer");
	if (json_integer_value(sv) > IX_FIGURES_SCHEMA_MAX)
		return ix_fail(err, IX_EXIT_FAIL,
			       "schema_version %lld is newer than this ixperf reads (%d): read it "
			       "with a newer ixperf",
			       (long long)json_integer_value(sv), IX_FIGURES_SCHEMA_MAX);
	json_array_foreach(results, i, item)
	{
		if (!json_is_object(item) || !kind_of(item))
			return ix_fail(err, IX_EXIT_FAIL,
				       "not an ixperf result document: results[%zu] is not an "
				       "object with a kind",
				       i);
		if (strcmp(kind_of(item), "run") == 0 && validate_run(item, i, err) < 0)
			return -1;
	}
	return 0;
}

bool ix_doc_is_run(json_t *doc)
{
	const char *cmd = json_string_value(json_object_get(doc, "command"));
	const char *kind = kind_of(json_array_get(json_object_get(doc, "results"), 0));

	return (cmd && strcmp(cmd, "run") == 0) || (kind && strcmp(kind, "run") == 0);
}

/* ---- extraction --------------------------------------------------------- */

static const char *unit_of(const char *u)
{
	static const char *const known[] = { "bit/s", "B/s", "ns", "%" };

	for (size_t i = 0; u && i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(u, known[i]) == 0)
			return known[i];
	return "";
}

static struct ix_figure *add(struct ix_figs *l, const char *check, const char *name, double v,
			     bool valid, enum ix_better better, const char *unit)
{
	struct ix_figure *f;
	json_t *used;
	json_int_t times;

	if (l->oom)
		return NULL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct ix_figure *v2 = realloc(l->v, cap * sizeof(*v2));

		if (!v2) {
			l->oom = true;
			return NULL;
		}
		l->v = v2;
		l->cap = cap;
	}
	f = &l->v[l->n];
	memset(f, 0, sizeof(*f));
	copy_utf8(f->check, sizeof(f->check), check);
	copy_utf8(f->name, sizeof(f->name), name);
	snprintf(f->key, sizeof(f->key), "%s/%s", f->check, f->name);
	used = json_object_get(l->seen, f->key);
	times = json_integer_value(used) + 1;
	if (json_object_set_new(l->seen, f->key, json_integer(times)) < 0) {
		l->oom = true;
		return NULL;
	}
	if (times > 1) {
		size_t k = strlen(f->key);
		snprintf(f->key + k, sizeof(f->key) - k, "#%lld", (long long)times);
	}
	f->value = valid ? v : 0;
	f->valid = valid;
	f->better = better;
	f->unit = unit;
	l->n++;
	return f;
}

/* A figure from a JSON value: null or not a number is "no value". */
static struct ix_figure *addj(struct ix_figs *l, const char *check, const char *name, json_t *v,
			      enum ix_better better, const char *unit)
{
	return add(l, check, name, json_number_value(v), json_is_number(v), better, unit);
}

static void add_count(struct ix_figs *l, const char *check, const char *name, json_t *v,
		      double allowance, const char *unit)
{
	struct ix_figure *f = addj(l, check, name, v, IX_LOWER_BETTER, unit);

	if (f) {
		f->absolute = true;
		f->allowance = allowance;
	}
}

struct ix_figure *ix_figs_add(struct ix_figs *l, const char *check, const char *name, json_t *v,
			      enum ix_better better, const char *unit)
{
	return addj(l, check, name, v, better, unit);
}

void ix_figs_count(struct ix_figs *l, const char *check, const char *name, json_t *v,
		   double allowance, const char *unit)
{
	add_count(l, check, name, v, allowance, unit);
}

static void bw_figures(struct ix_figs *l, const char *check, json_t *r, const char *q)
{
	static const char *const dirs[] = { "forward", "reverse" };
	static const char *const sfx[] = { "", "_reverse" };
	const char *mode = json_string_value(json_object_get(json_object_get(r, "params"), "mode"));
	json_t *sum = json_object_get(r, "summary");
	char name[64];

	for (int d = 0; d < 2; d++) {
		json_t *s = json_object_get(sum, dirs[d]);
		bool expected = mode ? strcmp(mode, "bidir") == 0 || strcmp(mode, dirs[d]) == 0
				     : json_is_object(s);

		if (!expected)
			continue;
		snprintf(name, sizeof(name), "goodput%s%s", sfx[d], q);
		addj(l, check, name, json_object_get(s, "bits_per_second"), IX_HIGHER_BETTER,
		     "bit/s");
		if (json_is_number(json_object_get(s, "retransmits"))) {
			snprintf(name, sizeof(name), "retransmits%s%s", sfx[d], q);
			add_count(l, check, name, json_object_get(s, "retransmits"),
				  RETRANSMITS_ALLOWANCE, "");
		}
		if (json_is_number(json_object_get(s, "loss_percent"))) {
			snprintf(name, sizeof(name), "loss_percent%s%s", sfx[d], q);
			add_count(l, check, name, json_object_get(s, "loss_percent"),
				  LOSS_ALLOWANCE, "%");
		}
	}
}

/* A capture's counts (the "wire" object of bw, lat, incast and wire). */
static void wire_figures(struct ix_figs *l, const char *check, json_t *w, const char *q)
{
	static const char *const counts[][2] = {
		{ "wire_retransmissions", "tcp_retransmissions" },
		{ "wire_dup_acks", "tcp_dup_acks" },
		{ "wire_out_of_order", "tcp_out_of_order" },
		{ "wire_zero_window", "tcp_zero_window" },
		{ "wire_ecn_ce", "ecn_ce" },
		{ "wire_cnp", "roce_cnp" },
		{ "wire_dropped", "dropped" },
	};

	/* The RDMA transport's totals, when the capture held any. */
	static const char *const rdma[][2] = {
		{ "wire_rdma_retransmitted", "retransmitted" },
		{ "wire_rdma_out_of_sequence", "out_of_sequence" },
		{ "wire_rdma_retries", "retries" },
		{ "wire_rdma_rnr_naks", "rnr_naks" },
		{ "wire_rdma_cnp", "cnp" },
		{ "wire_rdma_fecn", "fecn" },
		{ "wire_rdma_becn", "becn" },
	};
	char name[64];
	json_t *t, *naks, *v;
	json_int_t n = 0;
	const char *k;

	if (!json_is_object(w))
		return;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", counts[i][0], q);
		add_count(l, check, name, json_object_get(w, counts[i][1]),
			  i == 0 ? RETRANSMITS_ALLOWANCE : 0, "");
	}
	t = json_object_get(json_object_get(w, "rdma"), "total");
	if (!json_is_object(t))
		return;
	for (size_t i = 0; i < sizeof(rdma) / sizeof(rdma[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", rdma[i][0], q);
		add_count(l, check, name, json_object_get(t, rdma[i][1]), 0, "");
	}
	naks = json_object_get(t, "naks");
	json_object_foreach(naks, k, v) n += json_is_integer(v) ? json_integer_value(v) : 0;
	v = json_is_object(naks) ? json_integer(n) : json_null();
	snprintf(name, sizeof(name), "wire_rdma_naks%s", q);
	add_count(l, check, name, v, 0, "");
	json_decref(v);
}

/* The machine: findings, and every device link that carries traffic, so
 * that 'ixperf compare' sees a link that trained lower than before. */
static void topo_figures(struct ix_figs *l, const char *check, json_t *r)
{
	json_t *v, *d, *count;
	size_t i;
	char name[64];

	v = json_object_get(r, "findings");
	count = json_is_array(v) ? json_integer((json_int_t)json_array_size(v)) : json_null();
	add_count(l, check, "findings", count, 0, "");
	json_decref(count);
	json_array_foreach(json_object_get(r, "pci"), i, d)
	{
		const char *type = json_string_value(json_object_get(d, "type"));

		if (!type || (strcmp(type, "gpu") && strcmp(type, "nic") && strcmp(type, "ib") &&
			      strcmp(type, "nvme") && strcmp(type, "cxl")))
			continue;
		snprintf(name, sizeof(name), "link@%s",
			 json_string_value(json_object_get(d, "bdf")) ?: "?");
		addj(l, check, name, json_object_get(json_object_get(d, "link"), "bps"),
		     IX_HIGHER_BETTER, "bit/s");
	}
}

static void lat_figures(struct ix_figs *l, const char *check, json_t *r, const char *q)
{
	static const char *const names[][2] = { { "p50", "p50_ns" },
						{ "p99", "p99_ns" },
						{ "p99.9", "p99_9_ns" },
						{ "max", "max_ns" } };
	json_t *stats = json_object_get(r, "stats");
	char name[64];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", names[i][0], q);
		addj(l, check, name, json_object_get(stats, names[i][1]), IX_LOWER_BETTER, "ns");
	}
}

static void add_detail(struct ix_figs *l, const char *check, const char *name, json_t *v,
		       enum ix_better better, const char *unit)
{
	struct ix_figure *f = addj(l, check, name, v, better, unit);

	if (f)
		f->detail = true;
}

/* Each node's medians, and each measured pair's figures in a mesh small
 * enough to list them (a pair measured at 0 is a figure of 0). */
/* "node HOST WHAT": a node's own figure (its "host" names it), kept for
 * the detail of a comparison. */
static void node_figure(struct ix_figs *l, const char *check, json_t *nd, const char *what,
			const char *key, enum ix_better better, const char *unit)
{
	const char *h = json_string_value(json_object_get(nd, "host"));
	char name[192];

	if (!h)
		return;
	snprintf(name, sizeof(name), "node %s %s", h, what);
	add_detail(l, check, name, json_object_get(nd, key), better, unit);
}

/* The size of the array r[key] as the count figure key (null when there
 * is no array). */
static void array_count(struct ix_figs *l, const char *check, json_t *r, const char *key)
{
	json_t *v = json_object_get(r, key);
	json_t *count =
		json_is_array(v) ? json_integer((json_int_t)json_array_size(v)) : json_null();

	add_count(l, check, key, count, 0, "");
	json_decref(count);
}

static void mesh_detail(struct ix_figs *l, const char *check, json_t *r)
{
	json_t *hosts = json_object_get(r, "hosts"), *nd, *m = json_object_get(r, "matrix");
	size_t n = json_array_size(hosts), i;
	char name[192];

	json_array_foreach(json_object_get(r, "nodes"), i, nd)
	{
		node_figure(l, check, nd, "send", "bw_out_bps", IX_HIGHER_BETTER, "bit/s");
		node_figure(l, check, nd, "recv", "bw_in_bps", IX_HIGHER_BETTER, "bit/s");
		node_figure(l, check, nd, "lat_p50", "lat_p50_ns", IX_LOWER_BETTER, "ns");
	}
	for (size_t a = 0; n <= IX_FIGURES_PAIR_HOSTS && a < n; a++)
		for (size_t b = 0; b < n; b++) {
			const char *ha = json_string_value(json_array_get(hosts, a));
			const char *hb = json_string_value(json_array_get(hosts, b));
			json_t *bw =
				json_array_get(json_array_get(json_object_get(m, "bw_bps"), a), b);
			json_t *lat = json_array_get(
				json_array_get(json_object_get(m, "lat_p50_ns"), a), b);
			const char *st = json_string_value(
				json_array_get(json_array_get(json_object_get(m, "state"), a), b));

			if (!ha || !hb || !st || strcmp(st, "ok") != 0)
				continue;
			snprintf(name, sizeof(name), "pair %s->%s bw", ha, hb);
			if (json_is_number(bw))
				add_detail(l, check, name, bw, IX_HIGHER_BETTER, "bit/s");
			snprintf(name, sizeof(name), "pair %s->%s lat_p50", ha, hb);
			if (json_is_number(lat))
				add_detail(l, check, name, lat, IX_LOWER_BETTER, "ns");
		}
}

static void mesh_figures(struct ix_figs *l, const char *check, json_t *r)
{
	json_t *v;

	if (json_object_get(r, "median_bw_bps"))
		addj(l, check, "median_bw", json_object_get(r, "median_bw_bps"), IX_HIGHER_BETTER,
		     "bit/s");
	if (json_object_get(r, "min_lat_ns"))
		addj(l, check, "min_lat", json_object_get(r, "min_lat_ns"), IX_LOWER_BETTER, "ns");
	array_count(l, check, r, "bad_pairs");
	array_count(l, check, r, "suspects");
	v = json_object_get(json_object_get(r, "pairs"), "failed");
	if (v)
		add_count(l, check, "failed_pairs", v, 0, "");
	mesh_detail(l, check, r);
}

/* A traffic pattern: its median host, its bad hosts and each host's figure
 * (the lower of what it sent and received). */
static void pattern_figures(struct ix_figs *l, const char *check, json_t *r)
{
	json_t *nd;
	size_t i;

	addj(l, check, "median_host_bw", json_object_get(r, "median_bps"), IX_HIGHER_BETTER,
	     "bit/s");
	add_count(l, check, "bad_hosts", json_object_get(r, "bad_hosts"), 0, "");
	json_array_foreach(json_object_get(r, "nodes"), i, nd)
	{
		char name[320];

		snprintf(name, sizeof(name), "host %s bw",
			 json_string_value(json_object_get(nd, "host")) ?: "?");
		if (json_is_number(json_object_get(nd, "figure_bps")))
			add_detail(l, check, name, json_object_get(nd, "figure_bps"),
				   IX_HIGHER_BETTER, "bit/s");
	}
}

static void incast_figures(struct ix_figs *l, const char *check, json_t *r)
{
	json_t *steps = json_object_get(r, "steps"), *s;
	char name[64];
	size_t i;

	json_array_foreach(steps, i, s)
	{
		json_t *n = json_object_get(s, "senders");
		char q[32];

		if (json_is_integer(n))
			snprintf(q, sizeof(q), "@N=%lld", (long long)json_integer_value(n));
		else
			snprintf(q, sizeof(q), "@step%zu", i);
		snprintf(name, sizeof(name), "goodput%s", q);
		addj(l, check, name, json_object_get(s, "goodput_bps"), IX_HIGHER_BETTER, "bit/s");
		snprintf(name, sizeof(name), "stalled_rounds%s", q);
		add_count(l, check, name, json_object_get(s, "stalled_rounds"), 0, "");
		if (json_object_get(s, "jain")) {
			snprintf(name, sizeof(name), "jain%s", q);
			addj(l, check, name, json_object_get(s, "jain"), IX_HIGHER_BETTER, "");
		}
	}
}

/* ECMP: the pair's goodput and the spread of its flows at once, and the
 * flows each switch left unmapped. */
static void ecmp_figures(struct ix_figs *l, const char *check, json_t *r)
{
	json_t *sp = json_object_get(r, "spread"), *sw;
	size_t i;

	addj(l, check, "pair_bw", json_object_get(json_object_get(r, "pair"), "bps"),
	     IX_HIGHER_BETTER, "bit/s");
	addj(l, check, "min_flow_bw", json_object_get(sp, "min_bps"), IX_HIGHER_BETTER, "bit/s");
	addj(l, check, "median_flow_bw", json_object_get(sp, "median_bps"), IX_HIGHER_BETTER,
	     "bit/s");
	addj(l, check, "jain", json_object_get(sp, "jain"), IX_HIGHER_BETTER, "");
	json_array_foreach(json_object_get(r, "switches"), i, sw)
	{
		json_t *flows = json_object_get(r, "flows"),
		       *mapped = json_object_get(sw, "mapped");
		char name[64];

		if (!json_is_integer(mapped) || !json_is_array(flows))
			continue;
		json_t *un = json_integer((json_int_t)json_array_size(flows) -
					  json_integer_value(mapped));

		snprintf(name, sizeof(name), "unmapped_flows@switch%zu", i);
		add_count(l, check, name, un, 0, "");
		json_decref(un);
	}
}

static void results_figures(struct ix_figs *l, const char *check, json_t *results);

/* What the fabric counted: counts, any growth a change worth seeing. */
static void counter_figures(struct ix_figs *l, const char *check, json_t *r, const char *q)
{
	char name[64];

	for (int k = 0; k < IX_COUNTER_FIGURES; k++) {
		double v;
		json_t *j;

		if (!ix_counter_figure(r, ix_counter_figure_names[k], &v))
			continue;
		snprintf(name, sizeof(name), "%s%s", ix_counter_figure_names[k], q);
		j = json_real(v);
		add_count(l, check, name, j, 0, "");
		json_decref(j);
	}
}

static void headline_figure(struct ix_figs *l, const char *check, json_t *h)
{
	const char *unit = unit_of(json_string_value(json_object_get(h, "unit")));
	const char *hname = json_string_value(json_object_get(h, "name"));
	struct ix_figure *f;

	if (!json_is_object(h))
		return; /* a check without a headline */
	f = addj(l, check, "headline", json_object_get(h, "value"),
		 strcmp(unit, "ns") == 0 ? IX_LOWER_BETTER : IX_HIGHER_BETTER, unit);
	if (f) {
		f->headline = true;
		copy_utf8(f->name, sizeof(f->name), hname ? hname : "headline");
	}
}

static void run_figures(struct ix_figs *l, json_t *run)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(run, "checks"), i, c)
	{
		const char *name = json_string_value(json_object_get(c, "name"));

		headline_figure(l, name, json_object_get(c, "headline"));
		results_figures(l, name, json_object_get(c, "results"));
	}
}

/* A rail mesh's own figures are the check's with its rail: "mesh rail
 * 10.1.0.0/24". */
static const char *rail_name(json_t *mesh)
{
	return json_string_value(json_object_get(json_object_get(mesh, "rail"), "name"));
}

static const char *rail_check(const char *check, const char *rail, char *buf, size_t len)
{
	snprintf(buf, len, "%s rail %s", check, rail);
	return buf;
}

/* The rails side by side: how many are bad, each one's median, and each
 * node's all-rail throughput. */
static void rails_figures(struct ix_figs *l, const char *check, json_t *r)
{
	json_t *x;
	size_t i;

	array_count(l, check, r, "bad_rails");
	json_array_foreach(json_object_get(r, "nodes"), i, x)
		node_figure(l, check, x, "all_rails send", "bw_out_bps", IX_HIGHER_BETTER, "bit/s");
}

static size_t count_kind(json_t *results, const char *kind)
{
	size_t i, n = 0;
	json_t *r;

	json_array_foreach(results, i, r) if (kind_of(r) && strcmp(kind_of(r), kind) == 0) n++;
	return n;
}

static void results_figures(struct ix_figs *l, const char *check, json_t *results)
{
	bool bw_sweep = count_kind(results, "bw") > 1, lat_sweep = count_kind(results, "lat") > 1;
	json_t *r;
	size_t i;

	json_array_foreach(results, i, r)
	{
		const char *kind = kind_of(r);
		bool bw = kind && strcmp(kind, "bw") == 0, lat = kind && strcmp(kind, "lat") == 0;
		char q[48] = "", rc[256];

		if ((bw && bw_sweep) || (lat && lat_sweep)) {
			json_t *sz = json_object_get(json_object_get(r, "params"), "msg_size");

			if (json_is_integer(sz))
				snprintf(q, sizeof(q), "@%lldB", (long long)json_integer_value(sz));
			else
				snprintf(q, sizeof(q), "@#%zu", i);
		}
		if (bw)
			bw_figures(l, check, r, q);
		else if (lat)
			lat_figures(l, check, r, q);
		if (bw || lat || (kind && strcmp(kind, "incast") == 0) ||
		    (kind && strcmp(kind, "wire") == 0))
			wire_figures(l, check, json_object_get(r, "wire"), q);
		if (bw || lat || (kind && (!strcmp(kind, "mesh") || !strcmp(kind, "incast"))))
			counter_figures(l, check, r, q);
		if (kind && strcmp(kind, "topo") == 0)
			topo_figures(l, check, r);
		else if (kind && strcmp(kind, "mesh") == 0 && rail_name(r))
			mesh_figures(l, rail_check(check, rail_name(r), rc, sizeof(rc)), r);
		else if (kind && strcmp(kind, "mesh") == 0)
			mesh_figures(l, check, r);
		else if (kind && strcmp(kind, "rails") == 0)
			rails_figures(l, check, r);
		else if (kind && strcmp(kind, "pattern") == 0)
			pattern_figures(l, check, r);
		else if (kind && strcmp(kind, "incast") == 0)
			incast_figures(l, check, r);
		else if (kind && strcmp(kind, "ecmp") == 0)
			ecmp_figures(l, check, r);
		else if (kind && strcmp(kind, "gpu") == 0)
			ix_figs_gpu(l, check, r);
		else if (kind && strcmp(kind, "coll") == 0)
			ix_figs_coll(l, check, r);
		else if (kind && strcmp(kind, "run") == 0)
			run_figures(l, r);
		/* other kinds carry no figures this build knows */
	}
}

int ix_figures_extract(json_t *doc, struct ix_figure **out, size_t *n, struct ix_err *err)
{
	const char *check;

	*out = NULL;
	*n = 0;
	if (ix_doc_validate(doc, err) < 0)
		return -1;
	check = json_string_value(json_object_get(doc, "command"));
	if (!check)
		check = kind_of(json_array_get(json_object_get(doc, "results"), 0));
	return ix_figures_of_results(check ? check : "?", json_object_get(doc, "results"), out, n,
				     err);
}

int ix_figures_of_results(const char *check, json_t *results, struct ix_figure **out, size_t *n,
			  struct ix_err *err)
{
	struct ix_figs l = { .seen = json_object() };

	*out = NULL;
	*n = 0;
	if (!l.seen)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	results_figures(&l, check, results);
	json_decref(l.seen);
	if (l.oom) {
		free(l.v);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

const struct ix_figure *ix_figures_find(const struct ix_figure *v, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].key, key) == 0)
			return &v[i];
	return NULL;
}

void ix_value_fmt(double v, const char *unit, char *buf, size_t len)
{
	if (strcmp(unit, "bit/s") == 0)
		ix_fmt_rate(v, NULL, buf, len);
	else if (strcmp(unit, "B/s") == 0)
		ix_fmt_rate(8 * v, &(struct ix_unit_choice){ .kind = IX_UNITS_BYTES }, buf, len);
	else if (strcmp(unit, "ns") == 0)
		ix_fmt_ns(v, buf, len);
	else if (strcmp(unit, "%") == 0)
		snprintf(buf, len, "%.3g%%", v);
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

void ix_figure_fmt(const struct ix_figure *f, char *buf, size_t len)
{
	if (!f->valid)
		snprintf(buf, len, "-");
	else
		ix_value_fmt(f->value, f->unit, buf, len);
}
