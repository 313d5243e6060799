/*
 * ixperf ecmp: how a leaf's ECMP hash spreads the flows of one host pair
 * over its uplinks. K flows from A to B differ only in their source port
 * (UDP: and in the port the agent at B binds, the same one every time).
 * Each runs alone while the switch agents' interface counters are read
 * before and after: the uplink whose transmitted bytes rose by most of the
 * flow's bytes carries it. Then all K run at once, for the spread of their
 * bandwidths. ecmp.c drives the agents; ecmp_judge.c maps, sums up and
 * judges (pure functions over the structs below).
 */
#ifndef IX_ECMP_H
#define IX_ECMP_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/cluster/hostlist.h"
#include "probes/core/err.h"
#include "probes/core/probe.h"
#include "probes/host/ifstats.h"

struct ix_coord;

#define IX_ECMP_MIN_FLOWS    2
#define IX_ECMP_MAX_FLOWS    64
#define IX_ECMP_MAX_SWITCHES 4
#define IX_ECMP_MAX_UPLINKS  32
#define IX_ECMP_SLOW_RATIO   0.7 /* an uplink's flows below 0.7 x the others' median */
#define IX_ECMP_EXPLAINS     0.8 /* an interface moved 80% of a flow's bytes at least */
#define IX_ECMP_AMBIGUOUS    0.5 /* a second one moved half of them: no single one */
#define IX_ECMP_VERDICT_MAX  800

struct ix_ecmp_params {
	/* The flows at once: path, message size, rate, times; streams is
	 * the number of flows, src_port the first flow's source port. */
	struct ix_bw_params bw;
	double alone_s; /* each flow alone while the switches are read */
	/* --uplinks: the switches' uplinks by name; 0: every interface but
	 * the pair's own port and the agent's control connection's. */
	char uplinks[IX_ECMP_MAX_UPLINKS][IX_IFNAME_SIZE];
	uint32_t nuplinks;
	/* bw.path "rdma": K QPs of one RDMA write connection (flows), their
	 * flow labels set for source ports src_port + i (0: none set), run
	 * in one phased test (probes/rdma/phased.h): lead_s for its setup,
	 * then each QP alone with gap_s between, then all at once. */
	bool rdma;
	double lead_s, gap_s;
};

/* One flow at one switch, run alone: the interface whose received bytes
 * rose most (in) and the one whose sent bytes did (out), each with the
 * runner-up's rise, and the uplink that carries it. */
struct ix_ecmp_hop {
	bool read; /* both counter reads worked */
	char in[IX_IFNAME_SIZE], out[IX_IFNAME_SIZE];
	uint64_t in_bytes, in2_bytes, out_bytes, out2_bytes;
	char uplink[IX_IFNAME_SIZE]; /* "" when unmapped: why says so */
	uint64_t uplink_bytes;       /* what the uplink moved in the flow's direction */
	char why[200];
};

struct ix_ecmp_flow {
	uint16_t sport, dport; /* the client's ports: dport the agent's (TCP) */
	/* rdma: the QP's number at A and at B, its flow label (0: none) and
	 * when it ran alone (seconds from the start); sport 0 where the
	 * provider's choice is not known. */
	uint32_t qpn, remote_qpn, flow_label;
	double alone_start_s, alone_end_s;
	/* Alone. */
	bool alone_ok;
	double alone_bps;
	uint64_t alone_bytes;
	uint16_t alone_dport;
	char alone_error[IX_ERR_MAX];
	struct ix_ecmp_hop hop[IX_ECMP_MAX_SWITCHES];
	/* All flows at once. */
	bool ok;
	double bps;
	uint64_t bytes;
	double seconds;
};

struct ix_ecmp_uplink {
	char name[IX_IFNAME_SIZE];
	bool up;
	uint32_t flows;             /* mapped to it */
	double alone_median_bps;    /* its flows alone; 0 when none */
	double together_median_bps; /* its flows at once */
	double together_sum_bps;
	uint64_t together_flow_bytes; /* what its flows carried at once */
	uint64_t together_if_bytes;   /* what it moved meanwhile, by its counters */
	bool blamed;
};

enum ix_ecmp_state {
	IX_ECMP_UNKNOWN = 0, /* no switch, or no flow mapped */
	IX_ECMP_SPREAD,
	IX_ECMP_POLARISED,
	IX_ECMP_SLOW,   /* one uplink's flows slower than the others' */
	IX_ECMP_FAILED, /* the run itself failed */
};

struct ix_ecmp_switch {
	uint32_t host; /* index in the host list */
	bool ok;       /* its counters were read around every flow */
	char error[IX_ERR_MAX];
	/* The pair's port on it, where every flow came in (first_hop, A's
	 * leaf) or left (B's leaf); "" when the flows say neither. */
	char edge[IX_IFNAME_SIZE];
	bool first_hop;
	struct ix_ecmp_uplink up[IX_ECMP_MAX_UPLINKS];
	uint32_t nup;
	uint32_t mapped;    /* flows mapped to an uplink */
	bool together_read; /* its counters were read around the flows at once */
	/* At once, every uplink moved what its mapped flows carried (within
	 * the warm-up, headers and retransmissions); false when one moved far
	 * more or less: the flows did not keep the paths they took alone.
	 * drift says where; "" when they kept them or it was not read. */
	bool paths_kept;
	char drift[200];
	enum ix_ecmp_state state;
	char verdict[IX_ECMP_VERDICT_MAX];
	char evidence[512]; /* a slow uplink's figures; "" otherwise */
};

struct ix_ecmp_spread {
	uint32_t n; /* flows measured */
	double min, median, max, mean, cv, jain, sum;
};

struct ix_ecmp_result {
	struct ix_ecmp_params params;
	const struct ix_hostlist *hosts; /* borrowed: A, B, then the switches */
	uint32_t nflows;
	struct ix_ecmp_flow flows[IX_ECMP_MAX_FLOWS];
	uint32_t nswitches;
	struct ix_ecmp_switch sw[IX_ECMP_MAX_SWITCHES];
	bool alone_done; /* every flow ran alone */
	/* The flows at once: the pair's goodput as its REPORT sums it. */
	bool together_ok;
	char together_error[IX_ERR_MAX];
	double pair_bps;
	uint64_t pair_bytes;
	struct ix_ecmp_spread spread;
	enum ix_ecmp_state state;
	char verdict[IX_ECMP_VERDICT_MAX];
	char note[400]; /* without switches: identical or two-group figures */
	bool complete;
	char error[IX_ERR_MAX];
	/* rdma: how the QPs' source ports are known (ix_rdma_sport_how_name:
	 * "flow_label", "qpn", "unknown") and when the QPs were connected
	 * (seconds from the start). */
	const char *sport_how;
	double ready_s;
};

/* Run it over the coordinator's agents: host 0 is A, host 1 B, hosts 2..
 * the switches. Returns -1 only when nothing could run; r->complete and
 * r->error say what failed. */
int ix_ecmp_run(struct ix_coord *co, const struct ix_ecmp_params *p,
		const struct ix_hostlist *hosts, struct ix_ecmp_result *r, struct ix_err *err);

/* ecmp_rdma.c: the flows of an rdma run, alone and at once, in one phased
 * test at A with each switch's counters read on its schedule; b, nb and
 * ok are the switches' reads before it (b[s] valid where ok[s]). */
int ix_ecmp_rdma_run(struct ix_coord *co, struct ix_ecmp_result *r,
		     struct ix_ifstat (*b)[IX_IFSTAT_MAX], const uint32_t *nb, const bool *ok,
		     struct ix_err *err);

/* ecmp_judge.c. One flow at one switch from its counters before and after
 * (matched by name): in and out with their rises. */
void ix_ecmp_hop_from(struct ix_ecmp_hop *h, const struct ix_ifstat *before, uint32_t nb,
		      const struct ix_ifstat *after, uint32_t na);
/* A switch's edge, its uplinks and every flow's uplink, from the hops of
 * r->flows at switch s and the interfaces it listed (after). */
void ix_ecmp_map_switch(struct ix_ecmp_result *r, uint32_t s, const struct ix_ifstat *ifs,
			uint32_t n);
/* The together figures of switch s's uplinks: each one's flows and what
 * its counters moved between before and after (NULL: not read), and
 * whether that agrees with the mapping (paths_kept). */
void ix_ecmp_together_switch(struct ix_ecmp_result *r, uint32_t s, const struct ix_ifstat *before,
			     uint32_t nb, const struct ix_ifstat *after, uint32_t na);
/* The spread of the flows at once, every switch's verdict and the whole
 * run's (the worst of them), with the note where there is no switch. */
void ix_ecmp_judge(struct ix_ecmp_result *r);
const char *ix_ecmp_state_name(enum ix_ecmp_state s); /* "polarised" */

#endif
