/* Results of tests over many hosts: all-pairs meshes and incast sweeps.
 * Filled by mesh.c and incast.c, read by every renderer. */
#ifndef IX_MULTI_H
#define IX_MULTI_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/cluster/analysis.h"
#include "probes/cluster/hostlist.h"
#include "probes/core/probe.h"
#include "probes/rdma/setup.h"

enum ix_mesh_test {
	IX_MESH_BW = 1u << 0,
	IX_MESH_LAT = 1u << 1,
};

struct ix_mesh_params {
	unsigned tests;       /* enum ix_mesh_test bits */
	bool both_directions; /* every ordered pair, not only one per pair */
	uint32_t concurrency; /* pairs at once; 0 = a whole round */
	bool retest;          /* measure bad pairs a second time */
	struct ix_bw_params bw;
	struct ix_lat_params lat;
	struct ix_mesh_rules rules;
	struct ix_rdma_params rdma; /* path "rdma": op, QPs, TC, SL */
	/* Each test leaves from its initiator's address as the host list
	 * names it (a rail's: numeric), not by route. */
	bool from_host_addr;
	/* path "rdma": the GPU of the buffers at the end that initiates,
	 * "auto" (the one nearest its NIC) or an index; "": host memory. */
	char gpu[8];
};

#define IX_MESH_MAX_FAILURES 1024 /* pair failures kept with their reason */

struct ix_mesh_failure {
	uint32_t a, b;
	char error[256];
};

#define IX_MESH_MAX_COUNTERS 65536 /* tests whose moved counters are kept */

/* The fabric counters that moved at both hosts during one test, kept for
 * the tests where something moved (an idle, healthy fabric keeps none). */
struct ix_mesh_counters {
	uint32_t a, b;                /* a initiated towards b */
	unsigned test;                /* IX_MESH_BW or IX_MESH_LAT */
	struct ix_ctr_set at_a, at_b; /* what moved at a's and at b's end */
};

/* Per node, derived from the matrix after the run. */
struct ix_mesh_node {
	double bw_out_bps; /* median of its row (it sends), 0 included */
	double bw_in_bps;  /* median of its column (it receives) */
	bool have_bw_out;  /* a bandwidth was measured in its row (0 included) */
	bool have_bw_in;
	double lat_p50_ns; /* median over its pairs */
	uint32_t measured; /* OK cells it is in */
	uint32_t bad;      /* bad cells it is in */
	bool suspect;
	struct ix_ctr_sum counters; /* what moved at its end over all its tests */
	/* The link its tests left by, as its agent reported it (the NIC's
	 * line rate and PCIe link): iface "" when not known. */
	struct ix_link_limit link;
	/* path "rdma": where its buffers were in the tests it initiated (where
	 * --gpu puts them), as its agent said ("host memory", "GPU 3 (...)
	 * memory through a dmabuf, nearest mlx5_2 (PIX)"); "" when not known. */
	char buffer[160];
};

struct ix_mesh_result {
	struct ix_mesh_params params;
	const struct ix_hostlist *hosts; /* borrowed */
	uint32_t n;
	struct ix_cells cells;            /* n x n; row = initiator, column = peer */
	char **node_error;                /* n entries; NULL while the node works */
	struct ix_mesh_failure *failures; /* pairs that failed between working nodes */
	uint32_t nfailures;
	struct ix_mesh_findings findings;
	struct ix_mesh_node *nodes;        /* n entries */
	struct ix_link_limit *links;       /* n entries, filled during the run */
	char (*buffers)[160];              /* n entries: each node's RDMA buffers, "" */
	struct ix_mesh_counters *counters; /* tests where counters moved */
	uint32_t ncounters, cap_counters;
	uint64_t counters_read;  /* tests whose counters both ends read */
	bool counters_truncated; /* more than IX_MESH_MAX_COUNTERS: later ones left out */
	uint32_t rounds;         /* of the schedule, per direction */
	uint64_t pairs_planned, pairs_measured, pairs_failed, pairs_retested;
	double wall_s;
	bool complete;               /* every planned pair measured */
	bool stopped;                /* ended early on request; pending pairs stay pending */
	struct ix_wire_figures wire; /* a capture over the whole mesh (--capture) */
};

struct ix_mesh_hooks {
	/* Once, before the first batch: every pair pending, the nodes known. */
	void (*on_start)(void *arg, const struct ix_mesh_result *r);
	/* After every batch: the matrix so far (for live views). */
	void (*on_progress)(void *arg, const struct ix_mesh_result *r, uint32_t round);
	/* Asked after every batch: true ends the run there (no retest). */
	bool (*stop)(void *arg);
	void *arg;
};

enum ix_incast_mode {
	IX_INCAST_STREAM, /* all senders stream at once */
	IX_INCAST_READ,   /* synchronised reads of sru bytes per sender */
};

/* Thresholds an incast was given, judged at every step that ran; 0 (and
 * have_max_stalled false): none. */
struct ix_incast_limits {
	double min_goodput_bps; /* into the receiver */
	double min_jain;        /* stream mode, two senders or more */
	bool have_max_stalled;
	uint64_t max_stalled; /* read mode: stalled rounds */
};

#define IX_INCAST_MAX_FAILED 64 /* missed thresholds kept with their sentence */

struct ix_incast_params {
	enum ix_incast_mode mode;
	uint32_t receiver;     /* host index */
	const uint32_t *sweep; /* sender counts; one step each */
	uint32_t nsweep;
	struct ix_bw_params bw; /* stream mode */
	struct ix_read_params read;
	struct ix_rdma_params rdma; /* path "rdma": op, QPs, TC, SL */
	struct ix_incast_limits limits;
};

struct ix_incast_flow {
	uint32_t host; /* sender's host index */
	bool ok;
	double bps;
	struct ix_opt_u64 retransmits;
	struct ix_opt_f64 loss_percent;
	char error[IX_ERR_MAX];
};

struct ix_incast_step {
	struct ix_incast_point point; /* goodput, stalls, retransmits */
	bool ok;
	char error[IX_ERR_MAX];
	double jain;                  /* stream mode: fairness over flows */
	struct ix_incast_flow *flows; /* stream mode: one per sender */
	uint32_t nflows;
	struct ix_read_figures read; /* read mode */
};

struct ix_incast_result {
	struct ix_incast_params params;
	const struct ix_hostlist *hosts; /* borrowed */
	struct ix_incast_step *steps;    /* one per sweep value */
	uint32_t nsteps;
	char diagnosis[1024];
	/* The receiver's link (its line rate and NIC's PCIe link): what the
	 * senders' goodput together is held to; iface "" when not known. */
	struct ix_link_limit receiver_link;
	bool complete;
	struct ix_wire_figures wire; /* a capture over the whole sweep (--capture) */
	/* The thresholds judged (ix_incast_judge): whether any was given, and
	 * each one a step missed, "N=4: goodput 3.10 Gbit/s < 5.00 Gbit/s". */
	bool judged;
	uint32_t nfailed;
	char failed[IX_INCAST_MAX_FAILED][160];
};

void ix_mesh_result_free(struct ix_mesh_result *r);
/* The counters kept for the test of a towards b (IX_MESH_BW or
 * IX_MESH_LAT), or NULL when nothing moved or none were read. */
const struct ix_mesh_counters *ix_mesh_counters_of(const struct ix_mesh_result *r, uint32_t a,
						   uint32_t b, unsigned test);
/* Why a bad pair is bad, in one sentence: the rule it broke and by how
 * much (ix_mesh_reason), then the fabric counters that moved at its two
 * hosts during the tests it failed ("; at node07: eth0: 40 drops (qdisc
 * tbf_drops 40)"), or that none moved when the mesh read them. */
void ix_mesh_pair_reason(const struct ix_mesh_result *r, uint32_t a, uint32_t b, char *buf,
			 size_t len);
/* The link of a pair's lower end (the one with the lower ceiling) and
 * whose it is; NULL when neither host's is known. */
const struct ix_link_limit *ix_mesh_pair_link(const struct ix_mesh_result *r, uint32_t a,
					      uint32_t b, uint32_t *host);
/* A node's best median (sending or receiving) as a share of its link's
 * ceiling, in percent; -1 when either is unknown. */
double ix_mesh_node_share(const struct ix_mesh_node *nd);
/* "node07: 118 Gbit/s is 94% of its NIC's PCIe Gen4 x8 link (126 Gbit/s),
 * trained below its Gen5 x16 capability" when node i's figure sits at a
 * ceiling below its line rate; false (buf "") otherwise. */
bool ix_mesh_node_bottleneck(const struct ix_mesh_result *r, uint32_t i, char *buf, size_t len);
/* Keep what moved during a's test towards b, taking the sets (they are
 * left empty); a retest's replace the first run's. -1: out of memory. */
int ix_mesh_keep_counters(struct ix_mesh_result *r, uint32_t a, uint32_t b, unsigned test,
			  struct ix_ctr_set *at_a, struct ix_ctr_set *at_b);
void ix_incast_result_free(struct ix_incast_result *r);
/* Judge the steps that ran against r->params.limits (ix_incast_run does). */
void ix_incast_judge(struct ix_incast_result *r);

#endif
