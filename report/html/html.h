/* Self-contained HTML report: one page with inline CSS, SVG and a little JS,
 * rendered from a result document; nothing is fetched when it is viewed. */
#ifndef IX_HTML_H
#define IX_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "probes/core/err.h"

/* Render one result document (a run, or any single-command document) as one
 * self-contained HTML page. history: earlier run documents, oldest first, for
 * trend charts (may be 0). Returns 0, or -1 with err when doc is not an ixperf
 * document (or the page could not be written). */
int ix_html_render(FILE *f, json_t *doc, json_t *const *history, size_t nhistory,
		   struct ix_err *err);

/* ---- Internal: shared by report/html/html.c, charts.c, probes.c, mesh.c ---- */

/* How a figure is written on an axis or in a tooltip. */
enum ix_hfmt {
	IX_HF_PLAIN,   /* 17, or 4 significant digits: 0.9054 */
	IX_HF_RATE,    /* bit/s with an SI prefix */
	IX_HF_NS,      /* nanoseconds, readable unit */
	IX_HF_US,      /* microseconds: 8.06 us, 27.0 us, 413 us */
	IX_HF_SIZE,    /* bytes: 64 KiB, but 1472 B */
	IX_HF_SECONDS, /* seconds: 1.5 s */
	IX_HF_TIME,    /* seconds since the epoch: 11-29 21:38 (UTC) */
};

/* One line of a chart; y may hold NAN where there is no value. */
struct ix_hseries {
	const char *name;
	const double *x, *y;
	size_t n;
};

struct ix_hchart {
	const char *title, *xlabel, *ylabel;
	enum ix_hfmt xf, yf;
	bool xlog2;              /* log2 x axis (message sizes) */
	bool xint;               /* x ticks on whole numbers only */
	bool ylog;               /* log10 y axis */
	const char *const *cats; /* bars over these categories (x = index) */
};

/* Helpers (charts.c). Escape for HTML text and attribute values:
 * & < > " ' (NULL prints "-"). */
void ix_html_esc(FILE *f, const char *s);
/* A JSON string literal safe inside <script>: '<', '>', '&', '/', '\''
 * and U+2028/9 are written as \u escapes. */
void ix_html_js_str(FILE *f, const char *s);
void ix_html_fmt(enum ix_hfmt fmt, double v, char *buf, size_t len);

/* Number at a dotted path ("summary.forward.bits_per_second"); false if absent. */
bool ix_html_num(json_t *o, const char *path, double *v);
json_t *ix_html_get(json_t *o, const char *path);
const char *ix_html_str(json_t *o, const char *path);
/* Number formatted with fmt, or "-" when absent. */
void ix_html_numf(FILE *f, json_t *o, const char *path, enum ix_hfmt fmt);

/* Charts (charts.c): an SVG line/point chart or a bar chart. */
void ix_html_chart(FILE *f, const struct ix_hchart *c, const struct ix_hseries *s, size_t ns);
/* The latency histogram of a lat result (log x axis), if it has buckets. */
void ix_html_histogram(FILE *f, json_t *hist);
/* Per-probe figures and charts (probes.c). */
void ix_html_bw(FILE *f, json_t *results);
void ix_html_lat(FILE *f, json_t *result);
void ix_html_incast(FILE *f, json_t *result);
/* A traffic pattern (pattern.c): its verdict and its hosts' table. */
void ix_html_pattern(FILE *f, json_t *result);
/* The rdma_bw results of a check, one row per size; false (nothing
 * written) when they are not rdma_bw results. */
bool ix_html_rdma(FILE *f, json_t *results);
/* A result's "wire" object (wire.c): the capture's counts and the RDMA
 * transport analysis; nothing when it is not an object. */
void ix_html_wire(FILE *f, json_t *wire);
/* The bandwidth vs message size chart of a sweep (results of several sizes). */
bool ix_html_bw_sweep(FILE *f, json_t *results);

/* Mesh (mesh.c): heatmaps, node table, bad pairs and suspects; true when
 * a canvas heatmap was drawn (the page then needs ix_html_mesh_script). */
bool ix_html_mesh(FILE *f, json_t *result, int id);
/* The mesh as a fabric (fabric.c): an SVG of its hosts under their
 * switches, edges coloured and blamed; nothing when it says no more than
 * the matrix (one group, no neighbour known). */
void ix_html_fabric(FILE *f, json_t *result);
/* The shared script that draws canvas heatmaps, once per page when used. */
void ix_html_mesh_script(FILE *f);
/* A "rails" result (rails.c): the rails side by side with their verdicts,
 * and each node's all-rail throughput. */
void ix_html_rails(FILE *f, json_t *result);
/* Topology (topo.c): a run's findings, the server's tree, GPU/NIC paths
 * and device links. */
void ix_html_topo(FILE *f, json_t *run);
/* A result's "fleet" object (fleet.c): the odd ones out, every node's
 * topology findings and inventory; nothing when it is not an object. */
void ix_html_fleet(FILE *f, json_t *fleet);
/* An "ib_fabric" result (ibfab.c): its findings, its switches in tiers
 * with each cable coloured by what was found on it, and its cables. */
void ix_html_ibfab(FILE *f, json_t *result);
/* The memory side of a "topo" result (cxl.c): NUMA nodes with their HMAT
 * figures, CXL memory devices with both ends' protocols, CXL regions. */
void ix_html_memory(FILE *f, json_t *topo);
/* The server's tree as an SVG (topotree.c), from a "topo" result. */
void ix_html_topo_tree(FILE *f, json_t *topo);
/* The colour scale: 256 entries, dark to light, readable in grey. */
void ix_html_palette(int i, char out[8]);
/* The HTML section of one "gpu" result: devices and a heatmap table per test (gpu.c). */
void ix_html_gpu(FILE *f, json_t *result);
/* The HTML section of one "coll" result: busbw by size, nccl-tests' table,
 * the verdicts and the ranks (coll.c). */
void ix_html_coll(FILE *f, json_t *result);
/* The HTML section of one "mem" result: nodes, heatmaps of read bandwidth
 * and idle latency, every pair with HMAT beside, the loaded-latency
 * curves (mem.c). */
void ix_html_mem(FILE *f, json_t *result);

#endif
