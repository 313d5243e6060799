/* Mesh and incast results as JSON (the "mesh" and "incast" results of the schema). */
#include "config.h"

#include <stdio.h>

#include "probes/core/link.h"
#include "report/json/json.h"

static json_t *host_json(const struct ix_hostlist *h, uint32_t i)
{
	char buf[IX_HOST_NAME_MAX + 16];

	ix_host_format(&h->v[i], buf, sizeof(buf));
	return json_string(buf);
}

static const char *state_name(uint8_t s)
{
	static const char *const names[] = { "pending", "ok", "failed", "none" };
	return s < 4 ? names[s] : "?";
}

/* Whether a cell's figure (0 bandwidth, 1 p50, 2 p99) is written: a
 * measured one, a bandwidth measured at 0 included. */
static bool has_figure(const struct ix_cell *c, int which)
{
	if (c->state != IX_CELL_OK)
		return false;
	return which == 0 ? ix_cell_has_bw(c) : which == 1 ? c->lat_p50_ns > 0 : c->lat_p99_ns > 0;
}

/* One matrix of a figure: null where not measured. */
static json_t *matrix(const struct ix_mesh_result *r, int which)
{
	json_t *rows = json_array();

	for (uint32_t a = 0; a < r->n; a++) {
		json_t *row = json_array();
		for (uint32_t b = 0; b < r->n; b++) {
			struct ix_cell c = ix_cells_get(&r->cells, a, b);
			double v = which == 0 ? c.bw_bps : which == 1 ? c.lat_p50_ns : c.lat_p99_ns;

			if (which == 3)
				json_array_append_new(row, json_string(state_name(c.state)));
			else
				json_array_append_new(row, has_figure(&c, which) ? json_real(v)
										 : json_null());
		}
		json_array_append_new(rows, row);
	}
	return rows;
}

static json_t *num_or_null(double v)
{
	return v > 0 ? json_real(v) : json_null();
}

/* A figure that may be measured at 0. */
static json_t *num_if(bool have, double v)
{
	return have ? json_real(v) : json_null();
}

/* The matrices written row by row, a row a line: nothing held. */
static int write_matrices(FILE *f, int depth, void *arg)
{
	static const char *const names[] = { "bw_bps", "lat_p50_ns", "lat_p99_ns", "state" };
	const struct ix_mesh_result *r = arg;

	fputc('{', f);
	for (int which = 0; which < 4; which++) {
		fputs(which ? "," : "", f);
		ix_json_indent(f, depth + 1);
		fprintf(f, "\"%s\": [", names[which]);
		for (uint32_t a = 0; a < r->n; a++) {
			fputs(a ? "," : "", f);
			ix_json_indent(f, depth + 2);
			fputc('[', f);
			for (uint32_t b = 0; b < r->n; b++) {
				struct ix_cell c = ix_cells_get(&r->cells, a, b);
				double v = which == 0   ? c.bw_bps
					   : which == 1 ? c.lat_p50_ns
							: c.lat_p99_ns;

				fputs(b ? ", " : "", f);
				if (which == 3)
					fprintf(f, "\"%s\"", state_name(c.state));
				else if (has_figure(&c, which))
					ix_json_put_real(f, v);
				else
					fputs("null", f);
			}
			fputc(']', f);
		}
		if (r->n)
			ix_json_indent(f, depth + 1);
		fputc(']', f);
	}
	ix_json_indent(f, depth);
	fputc('}', f);
	return ferror(f) ? -1 : 0;
}

static json_t *bad_pair_json(const struct ix_mesh_result *r, uint32_t a, uint32_t b)
{
	struct ix_cell c = ix_cells_get(&r->cells, a, b);
	const struct ix_mesh_counters *kb = ix_mesh_counters_of(r, a, b, IX_MESH_BW);
	const struct ix_mesh_counters *kl = ix_mesh_counters_of(r, a, b, IX_MESH_LAT);
	char why[2048];
	json_t *o;

	ix_mesh_pair_reason(r, a, b, why, sizeof(why));
	o = json_pack("{s:o,s:o,s:o,s:o,s:b,s:s}", "from", host_json(r->hosts, a), "to",
		      host_json(r->hosts, b), "bw_bps", num_if(ix_cell_has_bw(&c), c.bw_bps),
		      "lat_p50_ns", num_or_null(c.lat_p50_ns), "retested", c.retested != 0,
		      "reason", why);
	if (kb || kl) {
		json_t *k = json_object();

		if (kb)
			json_object_set_new(k, "bw",
					    json_pack("{s:o,s:o}", "from", ix_ctr_json(&kb->at_a),
						      "to", ix_ctr_json(&kb->at_b)));
		if (kl)
			json_object_set_new(k, "lat",
					    json_pack("{s:o,s:o}", "from", ix_ctr_json(&kl->at_a),
						      "to", ix_ctr_json(&kl->at_b)));
		json_object_set_new(o, "counters", k);
	}
	if (c.bw_bps > 0) {
		double ceil = ix_link_ceiling(ix_mesh_pair_link(r, a, b, NULL));

		json_object_set_new(o, "percent_of_ceiling",
				    ceil > 0 ? json_real(100.0 * c.bw_bps / ceil) : json_null());
	}
	return o;
}

/* The bad pairs, one object at a time. */
static int write_bad_pairs(FILE *f, int depth, void *arg)
{
	const struct ix_mesh_result *r = arg;
	bool any = false;

	fputc('[', f);
	for (uint32_t a = 0; r->cells.v && a < r->n; a++)
		for (uint32_t b = 0; b < r->n; b++) {
			struct ix_json_lazy none = { 0 };
			json_t *o;
			int rc;

			if (!ix_cells_get(&r->cells, a, b).bad)
				continue;
			fputs(any ? "," : "", f);
			any = true;
			ix_json_indent(f, depth + 1);
			o = bad_pair_json(r, a, b);
			/* a one-object document, without its newline */
			rc = o ? ix_json_write_value(f, o, depth + 1, &none, 0) : -1;
			json_decref(o);
			if (rc < 0)
				return -1;
		}
	if (any)
		ix_json_indent(f, depth);
	fputc(']', f);
	return ferror(f) ? -1 : 0;
}

static json_t *mesh_json(const struct ix_mesh_result *r, struct ix_json_lazy *lazy)
{
	const struct ix_mesh_params *p = &r->params;
	json_t *hosts = json_array(), *nodes = json_array(), *bad = json_array();
	json_t *suspects = json_array(), *failures = json_array(), *tests = json_array(), *m, *o;
	json_t *bottlenecks = json_array();

	for (uint32_t i = 0; i < r->n; i++) {
		const struct ix_mesh_node *nd = r->nodes ? &r->nodes[i] : NULL;
		json_t *node;
		char why[512];

		json_array_append_new(hosts, host_json(r->hosts, i));
		node = json_pack(
			"{s:o,s:o,s:o,s:o,s:o,s:i,s:i,s:b}", "host", host_json(r->hosts, i),
			"error",
			r->node_error && r->node_error[i] ? json_string(r->node_error[i])
							  : json_null(),
			"bw_out_bps",
			num_if(nd && (nd->have_bw_out || nd->bw_out_bps > 0),
			       nd ? nd->bw_out_bps : 0),
			"bw_in_bps",
			num_if(nd && (nd->have_bw_in || nd->bw_in_bps > 0), nd ? nd->bw_in_bps : 0),
			"lat_p50_ns", num_or_null(nd ? nd->lat_p50_ns : 0), "measured",
			nd ? (int)nd->measured : 0, "bad", nd ? (int)nd->bad : 0, "suspect",
			nd && nd->suspect);
		if (nd && r->counters_read)
			json_object_set_new(node, "counters", ix_ctr_sum_json(&nd->counters));
		if (nd) {
			double share = ix_mesh_node_share(nd);

			json_object_set_new(node, "link", ix_link_json(&nd->link));
			if (nd->buffer[0])
				json_object_set_new(node, "rdma_buffer", json_string(nd->buffer));
			json_object_set_new(node, "percent_of_ceiling",
					    share >= 0 ? json_real(share) : json_null());
		}
		if (ix_mesh_node_bottleneck(r, i, why, sizeof(why)))
			json_array_append_new(bottlenecks, json_string(why));
		json_array_append_new(nodes, node);
	}
	for (uint32_t a = 0; !lazy && r->cells.v && a < r->n; a++)
		for (uint32_t b = 0; b < r->n; b++)
			if (ix_cells_get(&r->cells, a, b).bad)
				json_array_append_new(bad, bad_pair_json(r, a, b));
	for (size_t i = 0; i < r->findings.nsuspects; i++)
		json_array_append_new(suspects, host_json(r->hosts, r->findings.suspects[i]));
	for (uint32_t i = 0; i < r->nfailures; i++)
		json_array_append_new(failures,
				      json_pack("{s:o,s:o,s:s}", "from",
						host_json(r->hosts, r->failures[i].a), "to",
						host_json(r->hosts, r->failures[i].b), "error",
						r->failures[i].error));
	if (p->tests & IX_MESH_BW)
		json_array_append_new(tests, json_string("bw"));
	if (p->tests & IX_MESH_LAT)
		json_array_append_new(tests, json_string("lat"));
	if (lazy) {
		/* Placeholders, written by their producers (ix_json_write). */
		m = json_object();
		lazy[0] = (struct ix_json_lazy){ m, write_matrices, (void *)r };
		lazy[1] = (struct ix_json_lazy){ bad, write_bad_pairs, (void *)r };
	} else {
		m = json_pack("{s:o,s:o,s:o,s:o}", "bw_bps", matrix(r, 0), "lat_p50_ns",
			      matrix(r, 1), "lat_p99_ns", matrix(r, 2), "state", matrix(r, 3));
	}
	o = json_pack(
		"{s:s,s:b,s:o,s:{s:o,s:b,s:i,s:b,s:{s:s,s:I,s:f,s:f},s:{s:s,s:I,s:I,s:f},s:{s:f,s:"
		"f,s:f}},"
		"s:i,s:{s:I,s:I,s:I,s:I},s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
		"kind", "mesh", "complete", r->complete, "hosts", hosts, "params", "tests", tests,
		"both_directions", p->both_directions, "concurrency", (int)p->concurrency, "retest",
		p->retest, "bw", "path", p->bw.path ? p->bw.path : "tcp", "msg_size",
		(json_int_t)p->bw.msg_size, "duration_s", p->bw.duration_s, "warmup_s",
		p->bw.warmup_s, "lat", "path", p->lat.path ? p->lat.path : "tcp", "msg_size",
		(json_int_t)p->lat.msg_size, "iters", (json_int_t)p->lat.iters, "duration_s",
		p->lat.duration_s, "rules", "bw_fraction", p->rules.bw_fraction, "lat_factor",
		p->rules.lat_factor, "lat_percentile",
		r->findings.lat_percentile > 0 ? r->findings.lat_percentile : 50.0, "rounds",
		(int)r->rounds, "pairs", "planned", (json_int_t)r->pairs_planned, "measured",
		(json_int_t)r->pairs_measured, "failed", (json_int_t)r->pairs_failed, "retested",
		(json_int_t)r->pairs_retested, "wall_s", r->wall_s, "median_bw_bps",
		num_or_null(r->findings.median_bw_bps), "min_lat_ns",
		num_or_null(r->findings.min_lat_ns), "lat_baseline_ns",
		num_or_null(r->findings.lat_baseline_ns), "matrix", m, "nodes", nodes, "bad_pairs",
		bad, "suspects", suspects, "failures", failures);
	if (p->gpu[0]) /* path rdma: the GPU of the initiators' buffers */
		json_object_set_new(json_object_get(o, "params"), "gpu", json_string(p->gpu));
	{
		json_t *rules = json_object_get(json_object_get(o, "params"), "rules");
		json_t *pairs = json_object_get(o, "pairs");

		json_object_set_new(rules, "min_bw_bps", num_or_null(p->rules.min_bw_bps));
		json_object_set_new(rules, "max_lat_ns", num_or_null(p->rules.max_lat_ns));
		json_object_set_new(pairs, "zero",
				    json_integer((json_int_t)r->findings.zero_pairs));
		json_object_set_new(pairs, "lost",
				    json_integer((json_int_t)r->findings.lost_pairs));
	}
	json_object_set_new(o, "counters",
			    json_pack("{s:I,s:I,s:b}", "tests_read", (json_int_t)r->counters_read,
				      "tests_moved", (json_int_t)r->ncounters, "truncated",
				      r->counters_truncated));
	json_object_set_new(o, "bottlenecks", bottlenecks);
	if (r->wire.present)
		json_object_set_new(o, "wire", ix_json_wire(&r->wire));
	return o;
}

json_t *ix_json_mesh(const struct ix_mesh_result *r)
{
	return mesh_json(r, NULL);
}

json_t *ix_json_mesh_lazy(const struct ix_mesh_result *r, struct ix_json_lazy lazy[2])
{
	return mesh_json(r, lazy);
}

/* The thresholds an incast was given and what each step missed; null
 * when it was given none. */
static json_t *thresholds_json(const struct ix_incast_result *r)
{
	const struct ix_incast_limits *l = &r->params.limits;
	json_t *failed = json_array();

	if (!r->judged) {
		json_decref(failed);
		return json_null();
	}
	for (uint32_t i = 0; i < r->nfailed; i++)
		json_array_append_new(failed, json_string(r->failed[i]));
	return json_pack("{s:o,s:o,s:o,s:o}", "min_goodput_bps", num_or_null(l->min_goodput_bps),
			 "min_jain", num_or_null(l->min_jain), "max_stalled",
			 l->have_max_stalled ? json_integer((json_int_t)l->max_stalled)
					     : json_null(),
			 "failed", failed);
}

static json_t *read_json(const struct ix_read_figures *f)
{
	const struct ix_lat_stats *s = &f->round;

	return json_pack("{s:I,s:I,s:f,s:f,s:o,s:I,s:I,s:I,s:o}", "rounds", (json_int_t)f->rounds,
			 "bytes", (json_int_t)f->bytes, "seconds", f->seconds, "goodput_bps",
			 f->goodput_bps, "round_ns",
			 s->valid ? json_pack("{s:I,s:I,s:I,s:I,s:f}", "min", (json_int_t)s->min,
					      "p50", (json_int_t)s->p50, "p99", (json_int_t)s->p99,
					      "max", (json_int_t)s->max, "mean", s->mean)
				  : json_null(),
			 "rto_rounds", (json_int_t)f->rto_rounds, "slow_rounds",
			 (json_int_t)f->slow_rounds, "stalled_rounds",
			 (json_int_t)f->stalled_rounds, "retransmits",
			 ix_json_opt_u64(f->retransmits));
}

json_t *ix_json_incast(const struct ix_incast_result *r)
{
	const struct ix_incast_params *p = &r->params;
	bool stream = p->mode == IX_INCAST_STREAM;
	json_t *steps = json_array(), *res;

	for (uint32_t i = 0; i < r->nsteps; i++) {
		const struct ix_incast_step *st = &r->steps[i];
		json_t *flows = json_array(), *o;

		for (uint32_t k = 0; k < st->nflows; k++) {
			const struct ix_incast_flow *fl = &st->flows[k];
			json_array_append_new(
				flows,
				json_pack("{s:o,s:b,s:f,s:o,s:o,s:o}", "host",
					  host_json(r->hosts, fl->host), "ok", fl->ok, "bps",
					  fl->bps, "retransmits", ix_json_opt_u64(fl->retransmits),
					  "loss_percent", ix_json_opt_f64(fl->loss_percent),
					  "error", fl->ok ? json_null() : json_string(fl->error)));
		}
		double ceil = ix_link_ceiling(&r->receiver_link);

		o = json_pack("{s:i,s:b,s:o,s:f,s:I,s:I,s:I}", "senders", (int)st->point.senders,
			      "ok", st->ok, "error", st->ok ? json_null() : json_string(st->error),
			      "goodput_bps", st->point.goodput_bps, "retransmits",
			      (json_int_t)st->point.retransmits, "rounds",
			      (json_int_t)st->point.rounds, "stalled_rounds",
			      (json_int_t)st->point.stalled_rounds);
		json_object_set_new(o, "percent_of_ceiling",
				    ceil > 0 && st->point.goodput_bps > 0
					    ? json_real(100.0 * st->point.goodput_bps / ceil)
					    : json_null());
		if (st->point.counters)
			json_object_set_new(o, "counters",
					    json_pack("{s:o,s:o}", "senders",
						      ix_ctr_sum_json(&st->point.at_senders),
						      "receiver",
						      ix_ctr_sum_json(&st->point.at_receiver)));
		if (stream) {
			json_object_set_new(o, "jain", json_real(st->jain));
			json_object_set_new(o, "flows", flows);
		} else {
			json_decref(flows);
			json_object_set_new(o, "read", read_json(&st->read));
		}
		json_array_append_new(steps, o);
	}
	res = json_pack("{s:s,s:s,s:b,s:o,s:{s:s,s:I,s:f,s:f,s:o,s:I,s:I,s:I,s:f},s:o,s:s}", "kind",
			"incast", "mode", stream ? "stream" : "read", "complete", r->complete,
			"receiver", host_json(r->hosts, p->receiver), "params", "path",
			stream ? p->bw.path : p->read.path, "msg_size", (json_int_t)p->bw.msg_size,
			"duration_s", p->bw.duration_s, "warmup_s", p->bw.warmup_s, "rate_bps",
			p->bw.rate_bps ? json_integer((json_int_t)p->bw.rate_bps) : json_null(),
			"sru", (json_int_t)p->read.sru, "rounds", (json_int_t)p->read.rounds,
			"warmup_rounds", (json_int_t)p->read.warmup_rounds, "round_timeout_s",
			p->read.timeout_s, "steps", steps, "diagnosis", r->diagnosis);
	json_object_set_new(res, "receiver_link", ix_link_json(&r->receiver_link));
	json_object_set_new(res, "thresholds", thresholds_json(r));
	if (r->wire.present)
		json_object_set_new(res, "wire", ix_json_wire(&r->wire));
	return res;
}
