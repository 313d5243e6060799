/* Renderers of the GPU probes (probes/gpu_bench.h): text as nvbandwidth
 * prints its matrices, with each figure's share of its reference; JSON;
 * the HTML section of a report; and the figures of a saved result. */
#ifndef IX_REPORT_GPU_H
#define IX_REPORT_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "probes/gpu_bench.h"
#include "report/figures.h"

/* What a test does, from its fields: "host -> GPU, pinned memory, copy engine". */
void ix_gpu_test_describe(const struct ix_gpu_test *t, char *buf, size_t len);
/* "GPU3", "host", "all", "local". */
void ix_gpu_label(int dev, char *buf, size_t len);
const char *ix_gpu_ref_name(enum ix_gpu_ref r);       /* "pcie_link", "hbm", "in_process"; NULL */
const char *ix_gpu_status_name(enum ix_gpu_status s); /* "ok", "skipped", "failed" */
const char *ix_gpu_cell_state_name(uint8_t s);        /* "pending", "ok", "failed", "none" */
const char *ix_gpu_cap_name(unsigned bit);            /* "peer", "kernel", "ipc", "dmabuf" */
/* 100 x traffic_factor x value / reference; false when either is missing. */
bool ix_gpu_cell_percent(const struct ix_gpu_meas *m, const struct ix_gpu_cell *c, double *pct);

/* The "gpu" result: backend, params, devices, peer_access, tests, notes
 * (report/ixperf-result.schema.json). */
json_t *ix_json_gpu(const struct ix_gpu_result *r);
/* The backend and the GPUs with their links, the peer-access matrix, then
 * every test: its matrix, or why it was skipped or failed. */
void ix_text_gpu(FILE *f, const struct ix_gpu_result *r);
/* The tests and groups --test takes, one a line. */
void ix_text_gpu_tests(FILE *f);
/* The HTML section of one "gpu" result: devices and a heatmap table per test. */
void ix_html_gpu(FILE *f, json_t *result);

/*
 * The figures of one "gpu" result, in document order, for report/figures.c.
 * Every test with status "ok" gives one figure per cell with a value, named
 * "TEST@ROW->COLUMN" with the matrix's labels ("host_to_device_memcpy_ce@
 * host->GPU0", "device_to_device_latency_sm@GPU0->GPU1"), then, a bandwidth
 * test with more than one such cell, "TEST@sum". Bandwidths are in "B/s",
 * higher is better; latencies in "ns", lower is better. A test skipped or
 * failed, or of a unit this build does not know, gives none.
 */
typedef void ix_gpu_figure_fn(void *arg, const char *name, json_t *value, enum ix_better better,
			      const char *unit);
void ix_gpu_figures(json_t *result, ix_gpu_figure_fn *fn, void *arg);

#endif
