/* GPU results as text: nvbandwidth's matrices, with each figure's share
 * of its reference. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/fmt/safe.h"
#include "report/text/text.h"

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
	double pct, v = c->value.v / (ix_gpu_test_is_latency(m->test) ? 1 : 1e9);

	if (c->state == IX_GPU_CELL_NONE)
		snprintf(buf, len, "N/A");
	else if (c->state == IX_GPU_CELL_FAILED)
		snprintf(buf, len, "FAILED");
	else if (!c->value.valid)
		snprintf(buf, len, "-");
	else if (ix_gpu_cell_percent(m, c, &pct))
		snprintf(buf, len, "%.2f (%.0f%%)", v, pct);
	else
		snprintf(buf, len, ix_gpu_test_is_latency(m->test) ? "%.1f" : "%.2f", v);
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
		ix_gpu_test_is_latency(m->test) ? "ns per hop" : "GB/s", ref ? " (% of " : "",
		ref ? ref : "", ref ? ")" : "");
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
	if (any && !ix_gpu_test_is_latency(m->test))
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
		ix_text_why(f, "\nINCOMPLETE", r->error);
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
	fputs("\nGroups: all (the default), bandwidth, latency, pcie (host <-> GPU, one at a "
	      "time)\n",
	      f);
}
