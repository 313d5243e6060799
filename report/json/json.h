/*
 * The JSON renderer: every result struct as the objects of one document
 * (jansson). Schema: report/json/ixperf-result.schema.json. One file per
 * kind of result; unknown figures are null, never 0.
 */
#ifndef IX_REPORT_JSON_H
#define IX_REPORT_JSON_H

#include <stdio.h>

#include <jansson.h>

#include "probes/capture/talkers.h"
#include "probes/cluster/ecmp.h"
#include "probes/cluster/fleet.h"
#include "probes/cluster/rails.h"
#include "probes/cluster/multi.h"
#include "probes/cluster/patrun.h"
#include "probes/coll/coll.h"
#include "probes/mem/mem.h"
#include "probes/core/probe.h"
#include "probes/core/wirefig.h"
#include "probes/gpu/bench.h"
#include "probes/host/links.h"
#include "probes/host/topo.h"
#include "probes/rdma/session.h"

#define IX_JSON_SCHEMA_VERSION 1

/* ---- write.c: documents written as they are produced ---- */

/* A value too large to hold: where the tree has the placeholder at (the
 * same json_t, by address), write() puts the value, starting at the
 * current position; depth is the placeholder's indentation level. */
struct ix_json_lazy {
	const json_t *at;
	int (*write)(FILE *f, int depth, void *arg);
	void *arg;
};

/* doc as json_dumpf(JSON_INDENT(2) | JSON_REAL_PRECISION(10)) writes it,
 * and a newline, with the lazy values in their places. -1 when a value
 * cannot be written or the stream fails. */
int ix_json_write(FILE *f, const json_t *doc, const struct ix_json_lazy *lazy, size_t nlazy);
/* One value at depth, without the newline (for a lazy writer's parts). */
int ix_json_write_value(FILE *f, const json_t *v, int depth, const struct ix_json_lazy *lazy,
			size_t nlazy);
/* The pieces: newline and indentation, a string, a real as jansson writes
 * them. */
void ix_json_indent(FILE *f, int depth);
void ix_json_put_string(FILE *f, const char *s);
void ix_json_put_real(FILE *f, double v);

/* ---- json.c: documents, bw and lat ---- */

/* Envelope every document carries: schema version, tool, host, time, argv. */
json_t *ix_json_envelope(const char *command, int argc, char **argv);
/* The whole document: envelope, "complete", "error" (NULL = none) and the
 * results array (reference stolen). */
json_t *ix_json_document(const char *command, int argc, char **argv, json_t *results,
			 const char *error);
json_t *ix_json_bw(const struct ix_bw_result *r);
json_t *ix_json_lat(const struct ix_lat_result *r);
/* Latency statistics (lat_stats in the schema), null when there is none. */
json_t *ix_json_lat_stats(const struct ix_lat_stats *s);
/* {local, remote}: the fabric counters that moved at each end of a test
 * (probes/core/counters.h), null where not read. */
json_t *ix_json_counters_pair(const struct ix_ctr_set *local, const struct ix_ctr_set *remote);
json_t *ix_json_opt_u64(struct ix_opt_u64 v);
json_t *ix_json_opt_f64(struct ix_opt_f64 v);

/* ---- pattern.c: traffic patterns (ixperf mesh --pattern) ---- */

json_t *ix_json_pattern(const struct ix_pattern_result *r);

/* ---- multi.c: mesh and incast ---- */

json_t *ix_json_mesh(const struct ix_mesh_result *r);
/* The same with "matrix" and "bad_pairs" as placeholders that lazy[0] and
 * lazy[1] write from r (ix_json_write): a mesh of thousands of hosts
 * without its O(n^2) figures in memory twice. r must outlive the writing. */
json_t *ix_json_mesh_lazy(const struct ix_mesh_result *r, struct ix_json_lazy lazy[2]);

/* ---- rails.c ---- */
/* A rail mesh's results: each rail's mesh with its "rail" object, then a
 * "rails" result (the rails side by side, their verdicts, each node's
 * all-rail throughput). A new array. */
json_t *ix_json_rails(const struct ix_rails_result *r);
json_t *ix_json_incast(const struct ix_incast_result *r);
/* ---- ecmp.c ---- */
json_t *ix_json_ecmp(const struct ix_ecmp_result *r);

/* ---- fleet.c ---- */

/* Every node's inventory, the odd ones out and the topology findings, each
 * with its node ("fleet" in the schema). */
json_t *ix_json_fleet(const struct ix_fleet_result *r);

/* ---- wire.c ---- */

/* The "wire" object of the schema; null when no capture was attached. */
json_t *ix_json_wire(const struct ix_wire_figures *w);
/* Its "rdma" member: the RDMA transport analysis (wire_rdma.c). */
json_t *ix_json_wire_rdma(const struct ix_wire_rdma *r);

/* ---- top.c: the live monitor's models ---- */

/* {"samples", "interval_s", "links": [{name, kind, ..., "counters": {...},
 * "rates": {...}}]}; new reference. */
json_t *ix_json_links(const struct ix_top_model *m);
/* {"period_s", "packets", "bytes", "other_packets", "other_bytes",
 * "hosts": [...], "pairs": [{"src", "dst", "bytes", "bytes_per_second"}]}
 * with src and dst indexes into hosts; pairs without traffic left out. */
json_t *ix_json_talkers(const struct ix_talkers_view *v);

/* ---- topo.c ---- */

/* The "topo" result: numa, pci, interfaces, rdma, cxl, paths, findings, notes. */
json_t *ix_json_topo(const struct ix_topo *t);

/* ---- cxl.c ---- */

/* The memory devices of the CXL bus ("cxl"): name, pci, port, numa_node,
 * firmware, serial, ram_bytes, pmem_bytes, enabled, endpoint, flexbus
 * (device and port: capable, enabled, flit68), issue. */
json_t *ix_json_cxl_memdevs(const struct ix_topo *t);
/* The bus as libcxl read it ("cxl_bus"): read, note, ports, decoders,
 * regions. */
json_t *ix_json_cxl_bus(const struct ix_cxl *c);

/* ---- ibfab.c ---- */

/* The "ib_fabric" result: via, reads (1 or 2), switches, adapters, links,
 * nodes (guid, type, desc, lid, ports_total, and each cabled port with its
 * state, width, speed, rate, peer, counters at the last read and what
 * moved since the first) and findings (kind, node, port, text). */
struct ix_ibfab;
struct ix_ibfab_findings;
json_t *ix_json_ibfab(const struct ix_ibfab *f, const struct ix_ibfab_findings *fs, int reads);
/* A mesh's bad pairs joined with the subnet (report/model/ibblame.h): how
 * each host was tied to it, the pairs placed, and the elements blamed
 * with their cables and evidence; routes is the subnet they were followed
 * through. */
struct ix_ibblame;
struct ix_mesh_result;
json_t *ix_json_ibblame(const struct ix_ibblame *b, const struct ix_mesh_result *r,
			const struct ix_ibfab *routes);

/* ---- rdma.c ---- */

/* rdma_bw / rdma_lat results. */
json_t *ix_json_rdma(const struct ix_rdma_result *r);

/* ---- gpu.c ---- */

/* The "gpu" result: backend, params, devices, peer_access, tests, notes. */
json_t *ix_json_gpu(const struct ix_gpu_result *r);

/* ---- coll.c ---- */
/* The "coll" result: library, params, rows, ranks, pairs, verdict. */
json_t *ix_json_coll(const struct ix_coll_result *r);

/* ---- mem.c ---- */
/* The "mem" result: params, nodes (with HMAT), cells (figures, advertised
 * beside, pages, curve), slow pairs. */
json_t *ix_json_mem(const struct ix_mem_result *r);
/* One HMAT access class (the schema's mem_hmat): null when not shown. */
json_t *ix_json_hmat(const struct ix_hmat *h);

#endif
