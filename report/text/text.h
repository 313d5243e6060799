/*
 * The text renderer: aligned tables over the result structs, one file per
 * kind of result. Text goes to a FILE the caller owns; nothing here reads
 * a document back. A run's summary (run.c) is rendered from its document:
 * a run's checks are judged JSON.
 */
#ifndef IX_REPORT_TEXT_H
#define IX_REPORT_TEXT_H

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
#include "report/fmt/units.h"
#include "report/model/fabric.h"
#include "report/model/topotree.h"

/* ---- text.c: bw and lat ---- */

/* The fabric counters that moved at both ends of a test, a line starting
 * with indent; nothing when neither end read any, and when nothing moved
 * only with quiet_too. */
/* A goodput against a path's ceiling: "2.0% of the 10.0 Gbit/s link on
 * eth0", or of the NIC's PCIe link where that is lower ("94.0% of the
 * PCIe Gen4 x8 link (126 Gbit/s) of eth0's NIC"), or of the GPU's that
 * holds the buffers; in short "2.0% of link" / "94.0% of PCIe"; "" when no
 * ceiling is known. who is "" for this end's link, "the server's " for the
 * far end's. */
void ix_text_link_share(const struct ix_link_limit *l, const char *who, double bps, bool long_form,
			const struct ix_unit_choice *u, char *buf, size_t len);
/* "Ceiling: ..." when a PCIe link (the NIC's, or the GPU's holding the
 * buffers) is below the line: which, its link, whether the goodput sits
 * at it and whether it trained below its capability; nothing otherwise. */
void ix_text_ceiling_line(FILE *f, const char *indent, const struct ix_link_limit *l,
			  const char *who, double bps, const struct ix_unit_choice *u);
void ix_text_counters(FILE *f, const char *indent, const struct ix_ctr_set *local,
		      const struct ix_ctr_set *remote, bool quiet_too);

void ix_text_bw_begin(FILE *f, const struct ix_bw_params *p, const char *server,
		      const struct ix_unit_choice *u);
void ix_text_bw_interval(FILE *f, const struct ix_bw_result *r, size_t k,
			 const struct ix_unit_choice *u);
void ix_text_bw_summary(FILE *f, const struct ix_bw_result *r, const struct ix_unit_choice *u);
/* Size sweeps: one line per message size. */
void ix_text_bw_sweep_header(FILE *f, const struct ix_unit_choice *u);
void ix_text_bw_sweep_row(FILE *f, const struct ix_bw_result *r, const struct ix_unit_choice *u);

void ix_text_lat_header(FILE *f, const struct ix_lat_params *p, const char *server);
void ix_text_lat_row(FILE *f, const struct ix_lat_result *r);

/* ---- fleet.c: every node's inventory ---- */

/* The odd ones out ("ODD: host: ...") and topology findings ("FINDING:
 * host: ..."), then each node with its NICs and GPUs. */
void ix_text_fleet(FILE *f, const struct ix_fleet_result *r);

/* ---- rails.c: a mesh over rails ---- */
/* Each rail's mesh under its name, the rails side by side with their
 * verdicts, each node's all-rail throughput, the nodes missing from a
 * rail and the bad rails named with why. */
void ix_text_rails(FILE *f, const struct ix_rails_result *r, const struct ix_unit_choice *u);
/* Its parts, for a saved rail mesh whose meshes are rendered apart: the
 * first line, a rail's title (and why it did not run), the tables. */
void ix_text_rails_head(FILE *f, const struct ix_rails_result *r);
void ix_text_rail_title(FILE *f, const struct ix_rails_result *r, uint32_t k);
void ix_text_rails_summary(FILE *f, const struct ix_rails_result *r,
			   const struct ix_unit_choice *u);

/* ---- pattern.c: traffic patterns ---- */
/* Each host's figures against its line rate (or the median), the cut of
 * a bisection, failed tests and the verdict. */
void ix_text_pattern(FILE *f, const struct ix_pattern_result *r, const struct ix_unit_choice *u);
/* "bisection over 4 hosts: 1 round of 1 test, about 5 s" (no newline). */
void ix_text_pattern_estimate(FILE *f, const struct ix_pattern_plan *pl,
			      const struct ix_pattern_estimate *e);

/* Every pattern's estimate over n hosts, one a line (mesh --estimate). */
void ix_text_pattern_estimates(FILE *f, const struct ix_mesh_params *p, unsigned tests, uint32_t n,
			       uint32_t rounds);
/* Pattern pat's estimate as "ixperf mesh: ..." when it is over above_s
 * (for all-pairs with what a bisection would take); the estimate, s. */
double ix_text_pattern_say(FILE *f, enum ix_pattern pat, const struct ix_mesh_params *p, uint32_t n,
			   uint32_t rounds, double above_s);

/* ---- multi.c: mesh and incast ---- */

/* Matrices are printed up to this many hosts; beyond, summaries only. */
#define IX_TEXT_MATRIX_MAX 16

void ix_text_mesh(FILE *f, const struct ix_mesh_result *r, const struct ix_unit_choice *u);
/* The same with the bad pairs' reasons given: reasons[k] for the k-th bad
 * cell in row-major order (a saved document's words); where k >= nreasons
 * or reasons[k] is NULL, ix_mesh_pair_reason's. */
void ix_text_mesh_reasons(FILE *f, const struct ix_mesh_result *r, const struct ix_unit_choice *u,
			  const char *const *reasons, size_t nreasons);
void ix_text_incast(FILE *f, const struct ix_incast_result *r, const struct ix_unit_choice *u);

/* ---- ecmp.c ---- */
void ix_text_ecmp(FILE *f, const struct ix_ecmp_result *r, const struct ix_unit_choice *u);

/* ---- fabric.c ---- */

/* The mesh's hosts under their switches, with each edge's figures and
 * blame; ix_text_mesh prints it when ix_fabric_worth_drawing. */
void ix_text_fabric(FILE *f, const struct ix_fabric *fab, const struct ix_hostlist *hosts,
		    const struct ix_unit_choice *u);

/* ---- wire.c ---- */

/* A compact block of a few lines; nothing when no capture was attached. */
void ix_text_wire(FILE *f, const struct ix_wire_figures *w);
/* "PREFIX: WHY\n" with why made safe for a terminal: it may be a peer's. */
void ix_text_why(FILE *f, const char *prefix, const char *why);

/* The summary of a run (the "run" result of an 'ixperf run' document):
 * each check's verdict and headline, each expectation as ok or FAIL with
 * its figure, errors (and, for a check that errored, whether a threshold
 * failed over what was measured), the topology's findings, every node's
 * inventory with the odd ones out (fleet, NULL: none gathered), the verdict. */
void ix_text_run(FILE *f, json_t *run, const struct ix_fleet_result *fleet,
		 const struct ix_unit_choice *u);
/* Its RDMA transport analysis (wire_rdma.c). */
void ix_text_wire_rdma(FILE *f, const struct ix_wire_rdma *r);

/* ---- top.c: the live monitor's snapshots ---- */

/* One line per link: interface, state, speed, MTU, rx and tx rate,
 * utilisation, errors and drops per second; "-" where unknown. */
void ix_text_links(FILE *f, const struct ix_top_model *m);
/* The top_n busiest pairs (0: all of them). */
void ix_text_talkers(FILE *f, const struct ix_talkers_view *v, size_t top_n);

/* ---- topo.c ---- */

/* An InfiniBand subnet: its cables (width, speed, rate, state), the
 * counters that moved between the reads ("between": what ran, for the
 * heading), then the findings. */
struct ix_ibfab;
struct ix_ibfab_findings;
void ix_text_ibfab(FILE *f, const struct ix_ibfab *fab, const struct ix_ibfab_findings *fs,
		   int reads, const char *between);
/* A mesh's bad pairs on the subnet: the elements blamed with their
 * evidence, the pairs no element explains, the hosts not tied. */
struct ix_ibblame;
struct ix_mesh_result;
void ix_text_ibblame(FILE *f, const struct ix_ibblame *b, const struct ix_mesh_result *r,
		     const char *mesh_path);

/* The PCI tree, the path matrix, NUMA and CXL, interfaces and RDMA ports
 * with GIDs, then the findings and notes. */
void ix_text_topo(FILE *f, const struct ix_topo *t);
/* ---- cxl.c ---- */
/* The NUMA nodes with their memory and the HMAT figures beside. */
void ix_text_numa(FILE *f, const struct ix_topo *t);
/* The CXL bus: memory devices with their PCIe and CXL links and firmware,
 * ports as a tree, decoders, regions; nothing without CXL. */
void ix_text_cxl(FILE *f, const struct ix_topo *t);
/* The server's tree with its links' loads and health ('top --topo --once'),
 * every node unfolded. */
void ix_text_tree(FILE *f, const struct ix_tree *tr);

/* ---- rdma.c: perftest's tables ---- */

/* The two ends, the GID and MTU chosen and why, placement. */
void ix_text_rdma_begin(FILE *f, const struct ix_rdma_result *r, const char *server);
/* perftest's columns: #bytes #iterations BW peak BW average MsgRate, in
 * Gbit/s (10^9 bit/s) and Mpps; or t_min t_max t_typical t_avg t_stdev
 * 99% 99.9% in microseconds. */
void ix_text_rdma_header(FILE *f, const struct ix_rdma_result *r);
void ix_text_rdma_row(FILE *f, const struct ix_rdma_result *r);
/* After the table: the agent's side, and what was not complete. */
void ix_text_rdma_end(FILE *f, const struct ix_rdma_result *r);

/* ---- gpu.c: nvbandwidth's matrices ---- */

/* The backend and the GPUs with their links, the peer-access matrix, then
 * every test: its matrix, or why it was skipped or failed. */
void ix_text_gpu(FILE *f, const struct ix_gpu_result *r);

/* ---- coll.c ---- */
/* nccl-tests' table, the ranks, the pair scan's and the late rank's verdicts. */
void ix_text_coll(FILE *f, const struct ix_coll_result *r);

/* ---- mem.c ---- */
/* The nodes with their HMAT classes, each pair's bandwidth and latency with
 * the advertised figures beside, the chase's pages, the loaded-latency
 * curves, and the pairs slower than advertised. */
void ix_text_mem(FILE *f, const struct ix_mem_result *r);

/* The tests and groups --test takes, one a line. */
void ix_text_gpu_tests(FILE *f);

#endif
