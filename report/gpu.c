/* Renderers of the GPU probes: names, JSON, text as nvbandwidth prints
 * its matrices (with each figure's share of its reference), the HTML
 * section of a report, and the figures that report and compare read. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/figures.h"
#include "report/gpu.h"
#include "report/html.h"
#include "report/json.h"

void ix_gpu_test_describe(const struct ix_gpu_test *t, char *buf, size_t len)
{
	const char *eng = t->engine == IX_GPU_SM ? "copy kernel" : "copy engine";
	const char *who = t->read ? "reader" : "writer";
	const char *many = t->kind == IX_GPU_T_AGG && t->to != t->read ? "s" : "";

	switch (t->kind) {
	case IX_GPU_T_HOST:
		snprintf(buf, len, "%s%s, %s memory, %s", t->to ? "host -> GPU" : "GPU -> host",
			 !t->bidir ? ""
			 : t->to   ? " while GPU -> host runs"
				   : " while host -> GPU runs",
			 ix_gpu_mem_name(t->host_mem), eng);
		break;
	case IX_GPU_T_LOCAL:
		snprintf(buf, len, "within each GPU's memory, %s (memory traffic: twice the bytes)",
			 eng);
		break;
	case IX_GPU_T_PEER:
		snprintf(buf, len, "GPU -> GPU%s, peer access, %s of the %s%s",
			 t->bidir ? " while the reverse copy runs" : "", eng, who,
			 t->bidir ? "s" : "");
		break;
	case IX_GPU_T_AGG:
		snprintf(buf, len, "%s at once, %s of the %s%s",
			 t->to ? "all other GPUs -> GPU" : "GPU -> all other GPUs", eng, who, many);
		break;
	case IX_GPU_T_STAGED:
		snprintf(buf, len,
			 "GPU -> GPU with peer access off: the driver stages it through "
			 "host memory");
		break;
	case IX_GPU_T_IPC:
		snprintf(buf, len,
			 "GPU -> GPU from another process (CUDA/HIP IPC), %s of the reader", eng);
		break;
	case IX_GPU_T_LAT_HOST:
		snprintf(buf, len, "pointer chase in pinned host memory from each GPU, ns per hop");
		break;
	case IX_GPU_T_LAT_PEER:
		snprintf(buf, len,
			 "pointer chase in the row GPU's memory from the column GPU "
			 "(diagonal: its own), ns per hop");
		break;
	}
}

void ix_gpu_label(int dev, char *buf, size_t len)
{
	if (dev >= 0)
		snprintf(buf, len, "GPU%d", dev);
	else
		snprintf(buf, len, "%s",
			 dev == IX_GPU_HOST  ? "host"
			 : dev == IX_GPU_ALL ? "all"
					     : "local");
}

const char *ix_gpu_ref_name(enum ix_gpu_ref r)
{
	static const char *const n[] = { NULL, "pcie_link", "hbm", "in_process" };
	return r <= IX_GPU_REF_INPROC ? n[r] : NULL;
}

const char *ix_gpu_status_name(enum ix_gpu_status s)
{
	return s == IX_GPU_OK ? "ok" : s == IX_GPU_SKIPPED ? "skipped" : "failed";
}

const char *ix_gpu_cap_name(unsigned bit)
{
	return bit == IX_GPU_CAP_PEER     ? "peer"
	       : bit == IX_GPU_CAP_KERNEL ? "kernel"
	       : bit == IX_GPU_CAP_IPC    ? "ipc"
	       : bit == IX_GPU_CAP_DMABUF ? "dmabuf"
					  : NULL;
}

const char *ix_gpu_cell_state_name(uint8_t s)
{
	static const char *const n[] = { "pending", "ok", "failed", "none" };
	return s < 4 ? n[s] : "pending";
}

bool ix_gpu_cell_percent(const struct ix_gpu_meas *m, const struct ix_gpu_cell *c, double *pct)
{
	if (!c->value.valid || !c->reference.valid || !(c->reference.v > 0))
		return false;
	*pct = 100.0 * m->traffic_factor * c->value.v / c->reference.v;
	return true;
}

static bool is_latency(const struct ix_gpu_test *t)
{
	return t->kind == IX_GPU_T_LAT_HOST || t->kind == IX_GPU_T_LAT_PEER;
}

/* ---- JSON ---- */

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
	for (size_t i = 0; !is_latency(t) && i < (size_t)m->rows * m->cols; i++)
		if (m->cells[i].value.valid) {
			sum += m->cells[i].value.v;
			any = true;
		}
	return json_pack(
		"{s:s,s:s,s:s,s:s,s:s,s:o,s:b,s:s,s:o,s:I,s:f,s:o,s:o,s:o,s:o,s:{s:o,s:o,s:o,s:o,s:"
		"o,s:o}}",
		"name", t->name, "description", desc, "metric",
		is_latency(t) ? "latency" : "bandwidth", "unit",
		is_latency(t) ? "ns" : "bytes_per_second", "engine", ix_gpu_engine_name(t->engine),
		"host_memory",
		t->kind == IX_GPU_T_HOST || t->kind == IX_GPU_T_LAT_HOST
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

/* ---- Text ---- */

static void text_inventory(FILE *f, const struct ix_gpu_result *r)
{
	char name[48], link[40];
	bool all = true;

	fprintf(f, "GPU  %-28s %10s  %-13s %4s  %-21s %9s %9s %5s\n", "Name", "Memory",
		"PCI bus id", "NUMA", "PCIe trained/capable", "Link GB/s", "HBM GB/s", "SMs");
	for (int i = 0; i < r->ndevices; i++) {
		const struct ix_gpu_dev *d = &r->dev[i];
		const struct ix_pci_link *l = &d->link;
		char numa[16] = "-", hbm[24] = "-", lbw[24] = "-", sms[16] = "-";

		all &= d->selected;
		ix_text_safe(d->info.name, name, sizeof(name));
		if (!d->pci_found || !l->present)
			snprintf(link, sizeof(link), "unknown");
		else
			snprintf(link, sizeof(link), "Gen%d x%d / Gen%d x%d", l->gen, l->width,
				 l->expected_gen ? l->expected_gen : l->max_gen,
				 l->expected_width ? l->expected_width : l->max_width);
		if (d->info.numa_node >= 0)
			snprintf(numa, sizeof(numa), "%d", d->info.numa_node);
		if (d->info.hbm_bps.valid)
			snprintf(hbm, sizeof(hbm), "%.1f", d->info.hbm_bps.v / 1e9);
		if (d->link_Bps.valid)
			snprintf(lbw, sizeof(lbw), "%.1f", d->link_Bps.v / 1e9);
		if (d->info.multiprocessors)
			snprintf(sms, sizeof(sms), "%u", d->info.multiprocessors);
		fprintf(f, "%3d  %-28.28s %7.1f GB  %-13.13s %4s  %-21s %9s %9s %5s\n", i, name,
			(double)d->info.mem_bytes / 1e9, d->info.pci_bus_id, numa, link, lbw, hbm,
			sms);
	}
	if (!all) {
		fputs("Taking part:", f);
		for (int i = 0; i < r->ndevices; i++)
			if (r->dev[i].selected)
				fprintf(f, " GPU%d", i);
		fputc('\n', f);
	}
	if (r->ndevices > 1) {
		fputs("\nPeer access (row can reach column's memory)\n      ", f);
		for (int j = 0; j < r->ndevices; j++) {
			ix_gpu_label(j, name, sizeof(name));
			fprintf(f, " %5s", name);
		}
		for (int i = 0; i < r->ndevices; i++) {
			ix_gpu_label(i, name, sizeof(name));
			fprintf(f, "\n%-6s", name);
			for (int j = 0; j < r->ndevices; j++)
				fprintf(f, " %5s",
					i == j                             ? "X"
					: r->peer[i][j] == IX_GPU_PEER_YES ? "yes"
					: r->peer[i][j] == IX_GPU_PEER_NO  ? "no"
									   : "?");
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < r->nnotes; i++) {
		char note[sizeof(r->notes[0])];

		ix_text_safe(r->notes[i], note, sizeof(note));
		fprintf(f, "note: %s\n", note);
	}
}

/* A cell as text: "55.58 (88%)", "N/A", "-", "FAILED". */
static void cell_text(const struct ix_gpu_meas *m, const struct ix_gpu_cell *c, char *buf,
		      size_t len)
{
	double pct, v = c->value.v / (is_latency(m->test) ? 1 : 1e9);

	if (c->state == IX_GPU_CELL_NONE)
		snprintf(buf, len, "N/A");
	else if (c->state == IX_GPU_CELL_FAILED)
		snprintf(buf, len, "FAILED");
	else if (!c->value.valid)
		snprintf(buf, len, "-");
	else if (ix_gpu_cell_percent(m, c, &pct))
		snprintf(buf, len, "%.2f (%.0f%%)", v, pct);
	else
		snprintf(buf, len, is_latency(m->test) ? "%.1f" : "%.2f", v);
}

static void text_matrix(FILE *f, const struct ix_gpu_meas *m)
{
	/* An N x 1 matrix prints as one row, as nvbandwidth prints it. */
	bool tr = m->cols == 1 && m->rows > 1;
	int nr = tr ? 1 : m->rows, nc = tr ? m->rows : m->cols, w = 8;
	char buf[48], lab[16], from[16] = "GPU", to[16] = "GPU";
	const char *ref = m->ref == IX_GPU_REF_PCIE     ? "PCIe link"
			  : m->ref == IX_GPU_REF_HBM    ? "HBM, read + write"
			  : m->ref == IX_GPU_REF_INPROC ? "the same copy in one process"
							: NULL;

	for (size_t i = 0; i < (size_t)m->rows * m->cols; i++) {
		cell_text(m, &m->cells[i], buf, sizeof(buf));
		w = (int)strlen(buf) > w ? (int)strlen(buf) : w;
	}
	if (m->row_dev[0] < 0)
		ix_gpu_label(m->row_dev[0], from, sizeof(from));
	if (m->col_dev[0] < 0)
		ix_gpu_label(m->col_dev[0], to, sizeof(to));
	fprintf(f, "%s %s(%s) -> %s(%s), %s%s%s%s\n", m->test->engine == IX_GPU_SM ? "SM" : "CE",
		from, tr ? "column" : "row", to, tr ? "row" : "column",
		is_latency(m->test) ? "ns per hop" : "GB/s", ref ? " (% of " : "", ref ? ref : "",
		ref ? ")" : "");
	fprintf(f, "%6s", "");
	for (int b = 0; b < nc; b++) {
		ix_gpu_label(tr ? m->row_dev[b] : m->col_dev[b], lab, sizeof(lab));
		fprintf(f, " %*s", w, lab);
	}
	for (int a = 0; a < nr; a++) {
		ix_gpu_label(tr ? m->col_dev[0] : m->row_dev[a], lab, sizeof(lab));
		fprintf(f, "\n%-6s", lab);
		for (int b = 0; b < nc; b++) {
			cell_text(m, &m->cells[tr ? (size_t)b : (size_t)a * m->cols + b], buf,
				  sizeof(buf));
			fprintf(f, " %*s", w, buf);
		}
	}
	fputc('\n', f);
}

static void text_test(FILE *f, const struct ix_gpu_meas *m)
{
	double sum = 0, spread = 0;
	char desc[160];
	bool any = false;

	ix_gpu_test_describe(m->test, desc, sizeof(desc));
	fprintf(f, "\n%s: %s\n", m->test->name, desc);
	if (m->status == IX_GPU_SKIPPED) {
		fprintf(f, "skipped: %s\n", m->reason);
		return;
	}
	text_matrix(f, m);
	for (size_t i = 0; i < (size_t)m->rows * m->cols; i++) {
		const struct ix_gpu_cell *c = &m->cells[i];

		if (!c->value.valid || !(c->value.v > 0))
			continue;
		any = true;
		sum += c->value.v;
		spread = fmax(spread, 100 * (c->max.v - c->min.v) / c->value.v);
	}
	if (any && !is_latency(m->test))
		fprintf(f, "SUM %s %.2f GB/s; ", m->test->name, sum / 1e9);
	if (any)
		fprintf(f, "samples within %.1f%% of the median\n", spread);
	if (m->status == IX_GPU_FAILED)
		fprintf(f, "FAILED: %s\n", m->reason);
}

void ix_text_gpu(FILE *f, const struct ix_gpu_result *r)
{
	const struct ix_gpu_params *p = &r->params;
	char lib[160], ver[64];

	ix_text_safe(r->backend.library, lib, sizeof(lib));
	ix_text_safe(r->backend.version, ver, sizeof(ver));
	fprintf(f, "ixperf gpu: %s backend (%s, %s), %d GPU%s", r->backend.name, lib,
		ver[0] ? ver : "version unknown", r->ndevices, r->ndevices == 1 ? "" : "s");
	if (r->measured)
		fprintf(f,
			"; %llu bytes per copy, %u repetitions, median of %u samples "
			"(GB/s = 10^9 bytes/s; a copy counts its bytes once)",
			(unsigned long long)p->size, p->iterations, p->samples);
	fputs("\n\n", f);
	text_inventory(f, r);
	for (size_t i = 0; i < r->nmeas; i++)
		text_test(f, &r->meas[i]);
	if (r->measured && !r->complete)
		fprintf(f, "\nINCOMPLETE: %s\n", r->error);
}

void ix_text_gpu_tests(FILE *f)
{
	const struct ix_gpu_test *t;
	size_t n = ix_gpu_tests(&t);
	char desc[160];

	for (size_t i = 0; i < n; i++) {
		ix_gpu_test_describe(&t[i], desc, sizeof(desc));
		fprintf(f, "%-47s %s\n", t[i].name, desc);
	}
	fputs("\nGroups: all (the default), bandwidth, latency, pcie (host <-> GPU copies)\n", f);
}

/* ---- HTML ---- */

static void html_cell(FILE *f, json_t *t, size_t a, size_t b, double lo, double hi, bool lat)
{
	json_t *m = json_object_get(t, "matrix");
	json_t *v = json_array_get(json_array_get(json_object_get(m, "value"), a), b);
	json_t *p =
		json_array_get(json_array_get(json_object_get(m, "percent_of_reference"), a), b);
	const char *st = json_string_value(
		json_array_get(json_array_get(json_object_get(m, "state"), a), b));
	char col[8] = "#f2f2f2";
	double x = json_number_value(v);
	int k;

	if (!json_is_number(v)) {
		fprintf(f, "<td class=\"n\" style=\"background:%s\">%s</td>",
			st && !strcmp(st, "failed") ? "#e8a0a0" : col,
			st && !strcmp(st, "none")     ? "N/A"
			: st && !strcmp(st, "failed") ? "failed"
						      : "-");
		return;
	}
	k = hi > lo ? (int)lround((x - lo) / (hi - lo) * 255) : 255;
	ix_html_palette(lat ? 255 - k : k, col);
	fprintf(f, "<td class=\"n\" style=\"background:%s;color:%s\">", col,
		(lat ? 255 - k : k) < 128 ? "#fff" : "#000");
	if (lat)
		fprintf(f, "%.1f ns", x);
	else
		fprintf(f, "%.2f GB/s", x / 1e9);
	if (json_is_number(p))
		fprintf(f, "<br>%.0f%%", json_number_value(p));
	fputs("</td>", f);
}

static void html_test(FILE *f, json_t *t)
{
	json_t *rows = json_object_get(t, "rows"), *cols = json_object_get(t, "columns");
	json_t *val = json_object_get(json_object_get(t, "matrix"), "value");
	const char *metric = ix_html_str(t, "metric"), *status = ix_html_str(t, "status");
	bool lat = metric && !strcmp(metric, "latency");
	double lo = INFINITY, hi = -INFINITY, x;

	fputs("<h3>", f);
	ix_html_esc(f, ix_html_str(t, "name"));
	fputs("</h3>\n<p class=\"muted\">", f);
	ix_html_esc(f, ix_html_str(t, "description"));
	if (ix_html_str(t, "reference")) {
		const char *ref = ix_html_str(t, "reference");

		fputs(" &middot; % of ", f);
		fputs(!strcmp(ref, "pcie_link") ? "the PCIe link"
		      : !strcmp(ref, "hbm")     ? "HBM bandwidth, read + write"
						: "the same copy within one process",
		      f);
	}
	fputs("</p>\n", f);
	if (ix_html_str(t, "reason")) {
		fputs(status && !strcmp(status, "failed") ? "<p class=\"errbox\">failed: "
							  : "<p class=\"muted\">skipped: ",
		      f);
		ix_html_esc(f, ix_html_str(t, "reason"));
		fputs("</p>\n", f);
	}
	if (!json_array_size(rows))
		return;
	for (size_t a = 0; a < json_array_size(val); a++)
		for (size_t b = 0; b < json_array_size(json_array_get(val, a)); b++)
			if (ix_html_num(json_array_get(json_array_get(val, a), b), "", &x)) {
				lo = fmin(lo, x);
				hi = fmax(hi, x);
			}
	/* Anchored so that a small spread stays pale: the dark end is half the
	 * best bandwidth, or twice the lowest latency. */
	if (lat)
		hi = fmax(hi, 2 * lo);
	else
		lo = fmin(lo, hi / 2);
	fputs("<table class=\"gpu\"><thead><tr><th>from \\ to</th>", f);
	for (size_t b = 0; b < json_array_size(cols); b++) {
		fputs("<th>", f);
		ix_html_esc(f, json_string_value(json_array_get(cols, b)));
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (size_t a = 0; a < json_array_size(rows); a++) {
		fputs("<tr><th>", f);
		ix_html_esc(f, json_string_value(json_array_get(rows, a)));
		fputs("</th>", f);
		for (size_t b = 0; b < json_array_size(cols); b++)
			html_cell(f, t, a, b, lo, hi, lat);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

void ix_html_gpu(FILE *f, json_t *r)
{
	json_t *devs = json_object_get(r, "devices"), *tests = json_object_get(r, "tests"), *d;
	size_t i;

	fputs("<dl class=\"facts\"><dt>backend</dt><dd>", f);
	ix_html_esc(f, ix_html_str(r, "backend.name"));
	fputs("</dd><dt>library</dt><dd>", f);
	ix_html_esc(f, ix_html_str(r, "backend.library"));
	fputs("</dd><dt>version</dt><dd>", f);
	ix_html_esc(f, ix_html_str(r, "backend.version"));
	fputs("</dd><dt>bytes per copy</dt><dd>", f);
	ix_html_numf(f, r, "params.size", IX_HF_SIZE);
	fputs("</dd></dl>\n<table><thead><tr><th>GPU</th><th>Name</th><th>PCI</th>"
	      "<th>NUMA</th><th>PCIe</th><th>Link</th><th>HBM</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(devs, i, d)
	{
		double g = 0, w = 0, x;

		fprintf(f, "<tr><td>%zu</td><td>", i);
		ix_html_esc(f, ix_html_str(d, "name"));
		fputs("</td><td><code>", f);
		ix_html_esc(f, ix_html_str(d, "pci_bus_id"));
		fputs("</code></td><td class=\"n\">", f);
		ix_html_numf(f, d, "numa_node", IX_HF_PLAIN);
		fputs("</td><td>", f);
		if (ix_html_num(d, "pcie.gen", &g) && ix_html_num(d, "pcie.width", &w))
			fprintf(f, "Gen%.0f x%.0f", g, w);
		else
			fputs("-", f);
		fputs("</td><td class=\"n\">", f);
		if (ix_html_num(d, "pcie.reference_bytes_per_second", &x))
			fprintf(f, "%.1f GB/s", x / 1e9);
		else
			fputs("-", f);
		fputs("</td><td class=\"n\">", f);
		if (ix_html_num(d, "hbm_bytes_per_second", &x))
			fprintf(f, "%.0f GB/s", x / 1e9);
		else
			fputs("-", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	json_array_foreach(tests, i, d) html_test(f, d);
}

/* ---- Figures ---- */

static const char *label_at(json_t *labels, size_t i)
{
	const char *s = json_string_value(json_array_get(labels, i));

	return s ? s : "?";
}

void ix_gpu_figures(json_t *r, ix_gpu_figure_fn *fn, void *arg)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(r, "tests"), i, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		const char *status = json_string_value(json_object_get(t, "status"));
		const char *unit = json_string_value(json_object_get(t, "unit"));
		json_t *rows = json_object_get(t, "rows"), *cols = json_object_get(t, "columns");
		json_t *val = json_object_get(json_object_get(t, "matrix"), "value");
		bool lat = unit && strcmp(unit, "ns") == 0;
		size_t cells = 0;
		char fig[128];

		if (!name || !status || strcmp(status, "ok") != 0 || !unit ||
		    (!lat && strcmp(unit, "bytes_per_second") != 0))
			continue;
		for (size_t a = 0; a < json_array_size(rows); a++)
			for (size_t b = 0; b < json_array_size(cols); b++) {
				json_t *v = json_array_get(json_array_get(val, a), b);

				if (!json_is_number(v))
					continue;
				snprintf(fig, sizeof(fig), "%s@%s->%s", name, label_at(rows, a),
					 label_at(cols, b));
				fn(arg, fig, v, lat ? IX_LOWER_BETTER : IX_HIGHER_BETTER,
				   lat ? "ns" : "B/s");
				cells++;
			}
		if (!lat && cells > 1 && json_is_number(json_object_get(t, "sum"))) {
			snprintf(fig, sizeof(fig), "%s@sum", name);
			fn(arg, fig, json_object_get(t, "sum"), IX_HIGHER_BETTER, "B/s");
		}
	}
}
