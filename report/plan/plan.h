/*
 * Plans for 'ixperf run': INI files in the spirit of fio job files, parsed
 * with inih. One [plan] section of run-wide settings, then one section per
 * check. See ixperf-plan(5).
 */
#ifndef IX_PLAN_H
#define IX_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "probes/cluster/multi.h"
#include "probes/cluster/pattern.h"
#include "probes/cluster/rails.h"
#include "probes/core/err.h"
#include "probes/core/probe.h"
#include "probes/mem/mem.h"
#include "probes/rdma/session.h"
#include "probes/rdma/setup.h"

#define IX_PLAN_MAX_CHECKS    256
#define IX_PLAN_MAX_EXPECT    16
#define IX_PLAN_MAX_SIZES     32
#define IX_PLAN_MAX_REGRESSED 50 /* nodes and pairs named past max_pair_regression */

enum ix_check_probe {
	IX_CHECK_BW,
	IX_CHECK_LAT,
	IX_CHECK_MESH,
	IX_CHECK_INCAST,
	IX_CHECK_GPU,       /* the GPU tests of ixperf gpu, on this machine */
	IX_CHECK_TOPO,      /* ixperf topo's reading and findings, of this machine */
	IX_CHECK_INVENTORY, /* every agent's inventory, the odd ones out and findings */
	IX_CHECK_COLL,      /* a collective of ixperf coll over this machine's GPUs */
	IX_CHECK_MEM,       /* ixperf mem: this machine's NUMA nodes' memory */
};
#define IX_CHECK_PROBES 9

/* What a check needs of this machine (requires = rdma,gpu): a check whose
 * need is not met is a SKIP with its reason, never run, never a pass. */
#define IX_NEED_RDMA 1u
#define IX_NEED_GPU  2u

/* The GPU of an RDMA test's buffers: none, or the one nearest the NIC. */
#define IX_PLAN_GPU_NONE (-1)
#define IX_PLAN_GPU_AUTO IX_RDMA_GPU_AUTO

/* What a share-of limit of a GPU check is a share of. */
enum ix_expect_ref {
	IX_REF_NONE,
	IX_REF_LINE, /* the link rate towards the check's first host (%line) */
	IX_REF_LINK, /* a GPU test's PCIe link (%link) */
	IX_REF_HBM,  /* a GPU's memory bandwidth (%hbm) */
};

/* What a figure must satisfy. */
enum ix_expect_kind {
	IX_EXPECT_MIN,        /* measured >= limit */
	IX_EXPECT_MAX,        /* measured <= limit */
	IX_EXPECT_REGRESSION, /* worse than the baseline by at most limit (a fraction) */
};

struct ix_expect {
	char key[32];  /* as written: min_bw, max_p99, ... */
	char text[64]; /* the value as written */
	enum ix_expect_kind kind;
	const char *figure; /* bits_per_second, p99_ns, ... */
	const char *unit;   /* bit/s, ns, %, "" */
	double limit;
	bool line_relative; /* limit is a fraction of the link's rate */
	enum ix_expect_ref ref;
	int line; /* in the plan file */
};

struct ix_check {
	char name[128];
	int line; /* of the section's first key */
	enum ix_check_probe probe;
	bool have_probe;
	char hosts[1024]; /* host list; "" = the plan's, or the local agents */
	struct ix_bw_params bw;
	struct ix_lat_params lat;
	uint64_t sizes[IX_PLAN_MAX_SIZES]; /* bw/lat message sizes */
	uint32_t nsizes;
	struct ix_mesh_params mesh;
	struct ix_rail_spec rails; /* mesh: n 0 and !discover = no rails */
	/* mesh: the traffic pattern (all-pairs by default), a permutation's
	 * rounds (0: the default) and seed (have_seed false: a new one). */
	enum ix_pattern pattern;
	uint32_t pattern_rounds;
	bool have_seed;
	uint64_t seed;
	struct ix_incast_params incast;
	uint32_t sweep[64];
	unsigned needs; /* IX_NEED_* */
	/* path = rdma: the test's parameters (bw, lat; op, qps and the
	 * fabric's into mesh.rdma and incast.rdma too), the local device and
	 * the GPU of the buffers (bw, lat). */
	struct ix_rdma_params rdma;
	char ib_dev[64];
	unsigned ib_port;
	int gpu;
	/* The first key that holds only for another path, for the message. */
	char rdma_key[32], socket_key[32];
	int rdma_key_line, socket_key_line;
	/* probe = gpu: the tests (names and groups as ixperf gpu takes them),
	 * the GPUs, the backend and library ("": the default). */
	char gpu_tests[512];
	char gpus[64];
	char gpu_backend[16];
	char gpu_lib[512];
	uint64_t gpu_size;
	uint32_t gpu_iterations, gpu_samples;
	/* probe = coll: the collective and its settings as ixperf coll takes
	 * them ("" and 0: the defaults; the GPUs, backend and driver library
	 * in gpus, gpu_backend and gpu_lib, -n in gpu_iterations). */
	char coll_op[32], coll_dtype[16], coll_redop[16], coll_lib[16];
	char coll_lib_path[512];
	uint64_t coll_minbytes, coll_maxbytes, coll_factor;
	uint32_t coll_warmup; /* UINT32_MAX: none */
	double coll_timeout_s;
	/* probe = mem: ixperf mem's settings (sysfs set from the check's at
	 * the end of the parse); the slack as given, or the default. */
	struct ix_mem_params mem;
	bool mem_have_slack;
	/* probe = topo, coll, mem: a saved sysfs tree ("": this machine's). */
	char sysfs[512];
	struct ix_expect expect[IX_PLAN_MAX_EXPECT];
	uint32_t nexpect;
};

struct ix_plan {
	char name[128];
	char file[512];   /* "" = the embedded default */
	char hosts[1024]; /* default host list of every check */
	char token_file[512];
	char baseline[512];
	char *text; /* the plan as read (for the result document) */
	struct ix_check *checks;
	uint32_t nchecks;
};

/* Parse a plan file (path) or, with path NULL, the embedded default plan.
 * Errors name file:line. */
int ix_plan_load(const char *path, struct ix_plan *plan, struct ix_err *err);
int ix_plan_parse_string(const char *text, const char *name, struct ix_plan *plan,
			 struct ix_err *err);
void ix_plan_free(struct ix_plan *plan);
const char *ix_check_probe_name(enum ix_check_probe p);

/* Where a check's agents come from: its hosts, else the plan's; neither
 * means the local agents 'ixperf run' starts, or under a launch the
 * agents of the job's tasks, which "hosts = tasks" names explicitly. */
#define IX_PLAN_TASKS "tasks"
enum ix_check_source {
	IX_SRC_HOSTS, /* a host list */
	IX_SRC_LOCAL, /* agents started on loopback */
	IX_SRC_TASKS, /* the job's tasks' agents */
};
enum ix_check_source ix_check_source(const struct ix_plan *pl, const struct ix_check *c,
				     bool launched);
/* How many local agents the plan needs (not launched), at most max. */
uint32_t ix_plan_local_agents(const struct ix_plan *pl, uint32_t max);
/* Whether a check runs over the job's tasks when launched. */
bool ix_plan_uses_tasks(const struct ix_plan *pl);
/* The steps of an incast check's sweep that nhosts agents hold (N senders
 * need N + 1: one receives) into fit, in order; the others, "8,16", into
 * skipped: they are not run, never shrunk. Without a sweep, every sender
 * at once. Returns how many fit. */
uint32_t ix_check_incast_fit(const struct ix_check *c, size_t nhosts, uint32_t *fit, char *skipped,
			     size_t len);

/* Judge a check's results (the result objects of its probe) against its
 * expectations: one object per expectation appended to out, and the
 * verdict: FAIL when one does not hold, ERROR when one could not be
 * judged (why says which), else PASS, or INFO for a check that expects
 * nothing (measured only: never reported as a pass). hosts is the check's
 * host list (its first host's link rate for %line limits); baseline the
 * document max_regression compares with, or NULL. */
const char *ix_check_judge(const struct ix_check *c, json_t *results, json_t *baseline,
			   const char *hosts, json_t *out, char *why, size_t whylen);

#endif
