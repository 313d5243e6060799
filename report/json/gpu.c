/* The JSON of GPU results (the "gpu" result of the schema). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/fmt/safe.h"
#include "report/json/json.h"

static json_t *str_or_null(const char *s)
{
	return s && *s ? ix_json_string_lossy(s) : json_null();
}

static json_t *labels_json(const int *dev, int n)
{
	json_t *a = json_array();
	char buf[16];

	for (int i = 0; i < n; i++) {
		ix_gpu_label(dev[i], buf, sizeof(buf));
		json_array_append_new(a, json_string(buf));
	}
	return a;
}

enum figure { F_VALUE, F_MIN, F_MAX, F_REF, F_PERCENT, F_STATE };

/* One figure of every cell, rows of numbers (null: none) or of states. */
static json_t *matrix_json(const struct ix_gpu_meas *m, enum figure which)
{
	json_t *rows = json_array();

	for (int a = 0; a < m->rows; a++) {
		json_t *row = json_array();

		for (int b = 0; b < m->cols; b++) {
			const struct ix_gpu_cell *c = &m->cells[(size_t)a * m->cols + b];
			double pct;

			if (which == F_STATE)
				json_array_append_new(
					row, json_string(ix_gpu_cell_state_name(c->state)));
			else if (which == F_PERCENT)
				json_array_append_new(row, ix_gpu_cell_percent(m, c, &pct)
								   ? json_real(pct)
								   : json_null());
			else
				json_array_append_new(
					row, ix_json_opt_f64(which == F_VALUE ? c->value
							     : which == F_MIN ? c->min
							     : which == F_MAX ? c->max
									      : c->reference));
		}
		json_array_append_new(rows, row);
	}
	return rows;
}

static json_t *test_json(const struct ix_gpu_meas *m)
{
	const struct ix_gpu_test *t = m->test;
	const char *ref = ix_gpu_ref_name(m->ref);
	char desc[160];
	double sum = 0;
	bool any = false;

	ix_gpu_test_describe(t, desc, sizeof(desc));
	for (size_t i = 0; !ix_gpu_test_is_latency(t) && i < (size_t)m->rows * m->cols; i++)
		if (m->cells[i].value.valid) {
			sum += m->cells[i].value.v;
			any = true;
		}
	return json_pack(
		"{s:s,s:s,s:s,s:s,s:s,s:o,s:b,s:s,s:o,s:I,s:f,s:o,s:o,s:o,s:o,s:{s:o,s:o,s:o,s:o,s:"
		"o,s:o}}",
		"name", t->name, "description", desc, "metric",
		ix_gpu_test_is_latency(t) ? "latency" : "bandwidth", "unit",
		ix_gpu_test_is_latency(t) ? "ns" : "bytes_per_second", "engine",
		ix_gpu_engine_name(t->engine), "host_memory",
		t->kind == IX_GPU_T_HOST || t->kind == IX_GPU_T_HOST_ALL ||
				t->kind == IX_GPU_T_LAT_HOST
			? json_string(ix_gpu_mem_name(t->host_mem))
			: json_null(),
		"bidirectional", t->bidir, "status", ix_gpu_status_name(m->status), "reason",
		m->status == IX_GPU_OK ? json_null() : ix_json_string_lossy(m->reason), "bytes",
		(json_int_t)m->bytes, "traffic_factor", m->traffic_factor, "reference",
		ref ? json_string(ref) : json_null(), "sum", any ? json_real(sum) : json_null(),
		"rows", labels_json(m->row_dev, m->rows), "columns",
		labels_json(m->col_dev, m->cols), "matrix", "value", matrix_json(m, F_VALUE), "min",
		matrix_json(m, F_MIN), "max", matrix_json(m, F_MAX), "reference",
		matrix_json(m, F_REF), "percent_of_reference", matrix_json(m, F_PERCENT), "state",
		matrix_json(m, F_STATE));
}

static json_t *pcie_json(const struct ix_gpu_dev *d)
{
	const struct ix_pci_link *l = &d->link;

	if (!d->pci_found || !l->present)
		return json_null();
	return json_pack("{s:f,s:i,s:i,s:f,s:i,s:i,s:i,s:i,s:f,s:f,s:b,s:o}", "speed_gts",
			 l->speed_gts, "gen", l->gen, "width", l->width, "max_speed_gts",
			 l->max_speed_gts, "max_gen", l->max_gen, "max_width", l->max_width,
			 "expected_gen", l->expected_gen, "expected_width", l->expected_width,
			 "bits_per_second", l->bps, "expected_bits_per_second", l->expected_bps,
			 "downtrained", l->downtrained, "reference_bytes_per_second",
			 ix_json_opt_f64(d->link_Bps));
}

static json_t *device_json(const struct ix_gpu_dev *d)
{
	const struct ix_gpu_info *i = &d->info;

	return json_pack("{s:i,s:o,s:b,s:I,s:o,s:o,s:o,s:o,s:o}", "index", i->index, "name",
			 str_or_null(i->name), "selected", d->selected, "memory_bytes",
			 (json_int_t)i->mem_bytes, "pci_bus_id", str_or_null(i->pci_bus_id),
			 "numa_node", i->numa_node >= 0 ? json_integer(i->numa_node) : json_null(),
			 "multiprocessors",
			 i->multiprocessors ? json_integer(i->multiprocessors) : json_null(),
			 "hbm_bytes_per_second", ix_json_opt_f64(i->hbm_bps), "pcie", pcie_json(d));
}

json_t *ix_json_gpu(const struct ix_gpu_result *r)
{
	const struct ix_gpu_params *p = &r->params;
	json_t *caps = json_array(), *devs = json_array(), *labels = json_array();
	json_t *peer = json_array(), *tests = json_array(), *notes = json_array();
	json_t *gpus = json_array(), *params = json_null();
	char buf[16];

	for (unsigned bit = 1; bit <= IX_GPU_CAP_DMABUF; bit <<= 1)
		if (r->backend.caps & bit)
			json_array_append_new(caps, json_string(ix_gpu_cap_name(bit)));
	for (int i = 0; i < r->ndevices; i++) {
		json_t *row = json_array();

		json_array_append_new(devs, device_json(&r->dev[i]));
		ix_gpu_label(i, buf, sizeof(buf));
		json_array_append_new(labels, json_string(buf));
		for (int j = 0; j < r->ndevices; j++)
			json_array_append_new(
				row, r->peer[i][j] == IX_GPU_PEER_UNKNOWN
					     ? json_null()
					     : json_boolean(r->peer[i][j] == IX_GPU_PEER_YES));
		json_array_append_new(peer, row);
	}
	for (size_t i = 0; i < r->nmeas; i++)
		json_array_append_new(tests, test_json(&r->meas[i]));
	for (size_t i = 0; i < r->nnotes; i++)
		json_array_append_new(notes, ix_json_string_lossy(r->notes[i]));
	for (int i = 0; i < r->ndevices; i++)
		if (r->dev[i].selected)
			json_array_append_new(gpus, json_integer(i));
	if (r->measured)
		params = json_pack("{s:I,s:i,s:i,s:i,s:I,s:I,s:o}", "size", (json_int_t)p->size,
				   "iterations", (int)p->iterations, "samples", (int)p->samples,
				   "warmup", (int)p->warmup, "hops", (json_int_t)p->hops, "stride",
				   (json_int_t)p->stride, "gpus", json_incref(gpus));
	json_decref(gpus);
	return json_pack("{s:s,s:b,s:o,s:{s:s,s:o,s:o,s:o,s:i},s:o,s:o,s:{s:o,s:o},s:o,s:o}",
			 "kind", "gpu", "complete", r->complete, "error",
			 r->complete ? json_null() : ix_json_string_lossy(r->error), "backend",
			 "name", r->backend.name ? r->backend.name : "?", "library",
			 str_or_null(r->backend.library), "version",
			 str_or_null(r->backend.version), "capabilities", caps, "devices",
			 r->ndevices, "params", params, "devices", devs, "peer_access", "devices",
			 labels, "matrix", peer, "tests", tests, "notes", notes);
}
