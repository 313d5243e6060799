/*
 * Rails: how GPU clusters are wired, NIC i of every node on rail i (its
 * own subnet, or its own leaf switch). A rail is one address per node, its
 * NIC on that rail; a rail mesh pairs only the addresses of one rail, every
 * rail at once, so that no cross-rail pair is ever attempted and each
 * node's NICs are loaded together. Rails are found in the agents'
 * inventories (their interface addresses): by subnet, by LLDP leaf where
 * one subnet holds several NICs of a node, or as the user names them.
 */
#ifndef IX_RAILS_H
#define IX_RAILS_H

#include <stdbool.h>
#include <stdint.h>

#include "probes/cluster/fleet.h"
#include "probes/cluster/hostlist.h"
#include "probes/cluster/multi.h"
#include "probes/core/err.h"

struct ix_coord;
struct ix_token;

#define IX_RAILS_MAX 16

/* What --rails (plan key rails) says: auto, or a list of subnets
 * ("10.1.0.0/24") or interface names ("ens1f0np0", "mlx5_0"), in rail
 * order. */
struct ix_rail_spec {
	bool discover; /* auto */
	uint32_t n;
	char item[IX_RAILS_MAX][64];
};

/* "auto" or a comma list of subnets or interface names (network or RDMA
 * device names; not both kinds in one list); errors name the bad item. */
int ix_rail_spec_parse(const char *s, struct ix_rail_spec *out, struct ix_err *err);

struct ix_rail {
	char name[80];  /* "10.1.0.0/24", "ens1f0np0" or a leaf's name */
	char iface[32]; /* the interface every node's address is on, "" when they differ */
	char rdma[32];  /* the same for the RDMA device */
	struct ix_hostlist hosts; /* each node's address on the rail, its agent's port */
	uint32_t *node;           /* the node (index in the node list) of each host */
	uint32_t *missing;        /* nodes with no address on the rail */
	uint32_t nmissing;
};

struct ix_rails {
	char how[16]; /* "subnet", "leaf", "interface" */
	uint32_t n;
	struct ix_rail rail[IX_RAILS_MAX];
};

/* The rails of spec over the nodes' inventories (fleet, nodes in the order
 * of the host list nodes). A node whose inventory was not read is missing
 * from every rail. auto takes the subnets (IPv4, else global IPv6) that
 * two nodes or more have an address in, over interfaces with an RDMA
 * device where any node has one; a subnet where a node has several
 * addresses is split by LLDP leaf, else by interface name. A rail with
 * fewer than two nodes is no rail. -1 with err when no rail is found, or a
 * node has two addresses on one named subnet. */
int ix_rails_find(const struct ix_rail_spec *spec, const struct ix_fleet_result *fleet,
		  const struct ix_hostlist *nodes, struct ix_rails *out, struct ix_err *err);
void ix_rails_free(struct ix_rails *r);

/* One rail's figures and verdict. */
struct ix_rail_verdict {
	bool bad;
	char reason[256]; /* why bad: "median 212 Mbit/s is 21% of the rails' 1.00 Gbit/s" */
	double median_bw_bps;
	bool have_bw;
	double lat_p50_ns; /* median of its pairs' p50; 0 when none */
	uint64_t bad_pairs, measured, failed;
};

/* Per node: what its rails moved together (medians of its row and column
 * in each rail's matrix, summed over the rails, measured at once). */
struct ix_rails_node {
	double bw_out_bps, bw_in_bps;
	uint32_t rails; /* rails it was measured on */
};

struct ix_rails_result {
	const struct ix_rails *rails;    /* borrowed */
	const struct ix_hostlist *nodes; /* borrowed */
	struct ix_mesh_result mesh[IX_RAILS_MAX];
	char error[IX_RAILS_MAX][IX_ERR_MAX]; /* a rail that could not run at all */
	struct ix_rail_verdict verdict[IX_RAILS_MAX];
	struct ix_mesh_rules rules; /* the rules judged by */
	double ref_bw_bps;          /* what the rails' medians are held to: their upper median */
	double ref_lat_ns;          /* the lower median of their latencies */
	struct ix_rails_node *node; /* nodes->n entries */
	uint32_t bad_rails;
	bool complete; /* every rail's every pair measured */
	double wall_s;
};

/* Run p over every rail at once: a coordinator of its own per rail, with
 * sessions to the nodes' agents at the nodes' own addresses (token,
 * timeout_s as for ix_coord_open: the rails need not route to this
 * machine), each test between rail addresses, leaving from its
 * initiator's, the rails' rounds kept in step. -1 only when out of memory;
 * a rail that cannot run keeps its error. */
int ix_rails_run(const struct ix_rails *rails, const struct ix_hostlist *nodes,
		 const struct ix_mesh_params *p, const struct ix_token *token, double timeout_s,
		 struct ix_rails_result *r, struct ix_err *err);
/* The verdicts, node sums and bad_rails over r's meshes (ix_rails_run
 * calls it): a rail is bad when its median bandwidth is below the rules'
 * bw_fraction of the rails' upper median (or its latency above lat_factor
 * of their lower median), when most of its measured pairs are bad, or when
 * none was measured. */
void ix_rails_judge(struct ix_rails_result *r, const struct ix_mesh_rules *rules);
void ix_rails_result_free(struct ix_rails_result *r);

/* A rail mesh from the start, over the nodes' sessions co (its token and
 * timeout for the rails'): every agent's inventory, the rails of spec in
 * it, their meshes. Free with ix_rails_mesh_free, also after -1 (err:
 * no rail found, or out of memory; fleet then holds what was gathered). */
struct ix_rails_mesh {
	struct ix_fleet_result fleet;
	struct ix_rails rails;
	struct ix_rails_result result;
};
int ix_rails_mesh(struct ix_coord *co, const struct ix_hostlist *nodes,
		  const struct ix_rail_spec *spec, const struct ix_mesh_params *p,
		  struct ix_rails_mesh *out, struct ix_err *err);
void ix_rails_mesh_free(struct ix_rails_mesh *m);

#endif
