/*
 * Collectives: all_reduce, all_gather, reduce_scatter, alltoall, broadcast,
 * reduce and sendrecv over a vendor's communication library (NCCL over
 * CUDA, RCCL over HIP; lib.h), timed and checked as nccl-tests does it:
 *
 * - a row per size, from min_bytes to max_bytes (times factor, or plus
 *   step_bytes), each out-of-place and in-place;
 * - warmup untimed collectives, then iters back to back, timed on the host
 *   from the first launch to the stream's end, divided by iters; the row's
 *   time is the mean of the ranks' (nccl-tests' default, -a 1);
 * - algbw = S / t, busbw = algbw x the op's factor (doc/PERFORMANCE.md):
 *   all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n;
 *   broadcast, reduce, sendrecv 1; S the bytes of the whole array
 *   (ix_coll_shape);
 * - then one more collective on data whose result is known, compared
 *   element by element (the number wrong, per rank).
 *
 * Every collective is also timed on its own by events on each rank's
 * stream, so that each rank's time of every iteration is known; and a
 * pair scan (sendrecv between ring neighbours, even pairs then odd ones)
 * gives every link of the ring its own bandwidth, which names the rank or
 * the link that holds the collective back.
 *
 * Files: names.c (names and parsing), shape.c (counts, factors, sizes),
 * data.c (the check's data), lib.c (the libraries), run.c (one process's
 * ranks), wire.c (a rank's report as bytes), merge.c (rank 0: the result
 * from every rank's report, and the verdicts), facts.c (what each rank's
 * node says of its links, and the bus bandwidth they allow).
 */
#ifndef IX_COLL_H
#define IX_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/counters.h"
#include "probes/core/err.h"

#define IX_COLL_MAX_ROWS  64   /* sizes in a sweep */
#define IX_COLL_MAX_RANKS 4096 /* ranks of a job */
#define IX_COLL_MAX_LOCAL 64   /* ranks in one process (one per GPU) */
#define IX_COLL_MAX_ITERS 1000 /* timed iterations per row */
#define IX_COLL_NAME_MAX  128
#define IX_COLL_ID_BYTES  128 /* the library's unique id */

enum ix_coll_op {
	IX_COLL_ALL_REDUCE = 0,
	IX_COLL_ALL_GATHER,
	IX_COLL_REDUCE_SCATTER,
	IX_COLL_ALLTOALL,
	IX_COLL_BROADCAST,
	IX_COLL_REDUCE,
	IX_COLL_SENDRECV,
	IX_COLL_NOPS
};

/* Data types, numbered as NCCL and RCCL number them. */
enum ix_coll_dtype {
	IX_COLL_INT8 = 0,
	IX_COLL_UINT8,
	IX_COLL_INT32,
	IX_COLL_UINT32,
	IX_COLL_INT64,
	IX_COLL_UINT64,
	IX_COLL_FLOAT16,
	IX_COLL_FLOAT32,
	IX_COLL_FLOAT64,
	IX_COLL_BFLOAT16,
	IX_COLL_NDTYPES
};

/* Reduction operations, numbered as the libraries number them. */
enum ix_coll_redop {
	IX_COLL_SUM = 0,
	IX_COLL_PROD,
	IX_COLL_MAX,
	IX_COLL_MIN,
	IX_COLL_AVG,
	IX_COLL_NREDOPS
};

enum ix_coll_place { IX_COLL_OUT_OF_PLACE = 0, IX_COLL_IN_PLACE, IX_COLL_NPLACES };

/* --- Names (names.c) ----------------------------------------------------- */

const char *ix_coll_op_name(enum ix_coll_op op);      /* "all_reduce", ... */
const char *ix_coll_dtype_name(enum ix_coll_dtype t); /* "float", "half", ... */
const char *ix_coll_redop_name(enum ix_coll_redop r); /* "sum", ... */
const char *ix_coll_place_name(enum ix_coll_place p); /* "out-of-place", "in-place" */
size_t ix_coll_dtype_size(enum ix_coll_dtype t);      /* bytes an element */
bool ix_coll_op_reduces(enum ix_coll_op op);          /* takes a reduction op */
bool ix_coll_op_rooted(enum ix_coll_op op);           /* takes a root */
const char *ix_coll_factor_text(enum ix_coll_op op);  /* "2(n-1)/n", "(n-1)/n", "1" */
/* Whether a placement's result can be checked: not in-place sendrecv and
 * alltoall, whose sends and receives share one buffer and race in the
 * library (nccl-tests reports N/A there too). */
bool ix_coll_checkable(enum ix_coll_op op, enum ix_coll_place p);
/* Parse a name (nccl-tests' spellings and the usual aliases: float32,
 * fp16, bf16, ...); -1 with a usage error listing the known ones. */
int ix_coll_op_parse(const char *s, enum ix_coll_op *out, struct ix_err *err);
int ix_coll_dtype_parse(const char *s, enum ix_coll_dtype *out, struct ix_err *err);
int ix_coll_redop_parse(const char *s, enum ix_coll_redop *out, struct ix_err *err);

/* --- Shapes (shape.c) ----------------------------------------------------- */

/*
 * What one row of size `bytes` asks of each of n ranks, as nccl-tests
 * counts it (elements of the data type): count is the argument given to
 * the library; send and recv the buffers' lengths; send_off and recv_off
 * where rank r's in-place operands start (r x the offset, in elements);
 * row_bytes the size a row is labelled with (the larger buffer);
 * alg_bytes S, the size of the whole array algbw divides by the time.
 */
struct ix_coll_shape {
	size_t count, send, recv, send_off, recv_off;
	size_t row_bytes;
	double alg_bytes;
};

void ix_coll_shape(enum ix_coll_op op, size_t bytes, size_t dsize, int nranks,
		   struct ix_coll_shape *out);
/* The bus bandwidth's factor for n ranks (0 for all_reduce of 1 rank, as
 * nccl-tests computes it). */
double ix_coll_bus_factor(enum ix_coll_op op, int nranks);
/* The sizes of a sweep, in order: from min to max, times factor when
 * factor > 1, else plus step. -1 with a usage error when min > max, a
 * step of 0 with factor 1 and min < max, or more than max_out sizes. */
int ix_coll_sizes(size_t min, size_t max, unsigned factor, size_t step, size_t *out, int max_out,
		  int *n, struct ix_err *err);

/* --- The check's data (data.c) ------------------------------------------ */

/* The value rank r puts at element i of its send buffer (small integers, so
 * that every data type holds them and every result exactly). */
double ix_coll_data_value(enum ix_coll_op op, enum ix_coll_redop redop, int nranks, int rank,
			  size_t i);
/* Write v as element i of buf, of type t; read element i as a double. */
void ix_coll_data_put(enum ix_coll_dtype t, void *buf, size_t i, double v);
double ix_coll_data_get(enum ix_coll_dtype t, const void *buf, size_t i);
/* Fill rank r's send operand (n elements) for op. */
void ix_coll_data_fill(enum ix_coll_op op, enum ix_coll_redop redop, enum ix_coll_dtype t,
		       int nranks, int rank, void *buf, size_t n);
/* The elements of rank r's result that differ from what op must give
 * (recv holds sh->recv elements; for reduce, only the root's is
 * compared; 0 elsewhere). first, when not NULL: the first such element's
 * index, else left alone. */
uint64_t ix_coll_data_check(enum ix_coll_op op, enum ix_coll_redop redop, enum ix_coll_dtype t,
			    int nranks, int rank, int root, const struct ix_coll_shape *sh,
			    const void *recv, size_t *first);

/* --- What to run ----------------------------------------------------------- */

struct ix_coll_opts {
	enum ix_coll_op op;
	enum ix_coll_dtype dtype;
	enum ix_coll_redop redop;
	int root;
	size_t sizes[IX_COLL_MAX_ROWS];
	int nsizes;
	unsigned iters, warmup;
	bool check;
	bool places[IX_COLL_NPLACES]; /* which of out-of-place, in-place run */
	bool pair_scan;               /* the ring's links one by one, at the largest size */
	unsigned pair_iters;
	double timeout_s; /* bound on the init and on every batch's end */
};

/* --- What a rank's node says of its paths (facts.c) ----------------------- */

/* The GPU's PCIe link and NVLinks, the NIC nearest to it, and that NIC's
 * fabric counters that moved while the collectives ran (probes/core/
 * counters.h: drops, pauses, ECN marks, CNPs, retransmissions, errors,
 * link downs). A plain struct (fixed arrays): wire.c carries it as it is. */
struct ix_coll_facts {
	bool pcie_known;
	int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
	double pcie_Bps; /* per direction, after line encoding */
	bool pcie_downtrained;
	int nvlinks;        /* active NVLinks; -1 not read */
	int nvlink_version; /* NVML's nvmlNvlinkVersion_t; 0 unknown */
	double nvlink_Bps;  /* the active links together, per direction */
	char nvml_error[128];
	char nic[48];      /* "mlx5_0/1" or "eth2"; "" none found */
	char nic_path[8];  /* to the GPU, as nvidia-smi topo -m: "PIX", ..., "SYS" */
	double nic_Bps;    /* its link's rate in bytes/s; 0 unknown */
	bool fabric_known; /* its counters were read at the start and the end */
	struct ix_ctr_sum fabric_moved;
};

/* --- One rank's report (filled by run.c, carried by wire.c) --------------- */

struct ix_coll_rank_cell {
	bool measured;
	double host_us;    /* the batch's host time / iters */
	double dev_med_us; /* the median of the iterations' event times */
	double dev_min_us, dev_max_us;
	int64_t wrong; /* elements wrong in the check; -1: not checked */
	uint64_t first_wrong;
};

struct ix_coll_rank {
	int rank;
	char node[IX_COLL_NAME_MAX];
	int device;                 /* the backend's ordinal, -1 unknown */
	char gpu[IX_COLL_NAME_MAX]; /* its name */
	char pci_bus_id[32];
	bool joined;            /* the library's communicator was made */
	bool missing;           /* sent no report (rank 0 sets it; not carried) */
	bool complete;          /* every row ran */
	char error[IX_ERR_MAX]; /* why not, "" when complete */
	int nrows;
	struct ix_coll_rank_cell cell[IX_COLL_MAX_ROWS][IX_COLL_NPLACES];
	/* The largest row, out-of-place (else in-place): every iteration's
	 * event time, in order, to compare the ranks iteration by iteration. */
	unsigned niter;
	float iter_us[IX_COLL_MAX_ITERS];
	/* The pair scan: this rank and the next in the ring ((rank + 1) % n),
	 * each way: bytes per second of the sendrecv, 0 when not measured. */
	double pair_bps;
	struct ix_coll_facts facts;
};

/* --- The result (merge.c, on rank 0) ------------------------------------- */

struct ix_coll_cell {
	bool measured;
	double time_us;                  /* the mean over the ranks of their host time */
	double algbw, busbw;             /* bytes per second (GB/s x 1e9) */
	double rank_min_us, rank_max_us; /* the fastest and slowest rank's host time */
	int64_t wrong;                   /* over every rank; -1: not checked */
	int wrong_ranks;                 /* how many ranks had one wrong */
	int first_wrong_rank;            /* -1 when none */
};

struct ix_coll_row {
	size_t bytes; /* the row's label: the larger buffer */
	size_t count; /* the library's count argument */
	struct ix_coll_cell cell[IX_COLL_NPLACES];
};

/* A ring link's pair scan. */
struct ix_coll_pair {
	int a, b;   /* ranks: b = (a + 1) % n */
	double bps; /* each way; 0: not measured */
	bool slow;  /* below IX_COLL_SLOW_SHARE of the pairs' median */
};

#define IX_COLL_SLOW_SHARE     0.8 /* a pair below 80% of the median is slow */
#define IX_COLL_LATE_SHARE     0.1 /* a rank the others wait for, over 10% of an iteration */
#define IX_COLL_LATE_MIN_ITERS 5   /* in at least half of this many iterations or more */

enum ix_coll_culprit {
	IX_COLL_NONE = 0, /* no rank or link stands out */
	IX_COLL_RANK,     /* one rank: both its links are slow */
	IX_COLL_LINK,     /* one link between two ranks */
	IX_COLL_MANY,     /* slow links that no single rank or link explains */
};

struct ix_coll_verdict {
	/* The pair scan. */
	enum ix_coll_culprit culprit;
	int rank;     /* IX_COLL_RANK: the rank; IX_COLL_LINK: the link's first rank */
	int rank_b;   /* IX_COLL_LINK: its second */
	double share; /* the culprit's bandwidth / the pairs' median */
	double median_bps;
	int slow_pairs;
	/* The largest row's iterations: the rank the others waited for. */
	int late_rank;       /* -1: none stands out */
	double late_us;      /* how long the others waited for it, a mean per iteration */
	unsigned late_iters; /* iterations in which it was the last to arrive */
};

/* The bus bandwidth the links allow (facts.c): the slowest of each GPU's
 * links to the others within a node (NVLink, else PCIe) and, across nodes,
 * the NICs of the node that has the least (a ring per NIC). */
struct ix_coll_ceiling {
	double Bps;        /* 0: unknown (unknown says why) */
	char limit[16];    /* "nvlink", "pcie", "network" */
	char why[256];     /* "NVLink 4.0, 18 links x 25 GB/s each way (rank 3 on n2)" */
	double share;      /* the largest row's out-of-place busbw / Bps; 0 unknown */
	char unknown[256]; /* what was not read, "" when nothing */
};

struct ix_coll_result {
	char library[256]; /* the library loaded, as dlopen found it */
	char lib_name[16]; /* "nccl", "rccl" */
	char lib_version[32];
	char gpu_backend[16];
	char simulation[256]; /* what a simulated library models; "" for a real one */
	struct ix_coll_opts opts;
	int nranks;
	int nnodes;
	int nrows;
	struct ix_coll_row rows[IX_COLL_MAX_ROWS];
	double bus_factor;
	double avg_busbw; /* the mean of the rows' out-of-place busbw, as nccl-tests' "Avg bus bandwidth" */
	struct ix_coll_rank *ranks; /* nranks, owned */
	struct ix_coll_pair *pairs; /* npairs, owned */
	int npairs;
	struct ix_coll_verdict verdict;
	struct ix_coll_ceiling ceiling;
	bool complete; /* every rank reported every row */
	int missing;   /* ranks that sent no report */
	int64_t wrong; /* over every cell checked; -1: no check */
	char error[IX_ERR_MAX];
};

void ix_coll_result_free(struct ix_coll_result *r);

/* --- Facts and the ceiling (facts.c) -------------------------------------- */

/* Read what this node says of the GPU at pci_bus_id: sysfs under root (""
 * the live system), NVML through nvml_lib (NULL the default), and the
 * NIC's fabric counters into before (replaced; ix_coll_facts_end frees
 * it). Whatever cannot be read is left unknown. */
void ix_coll_facts_read(const char *root, const char *nvml_lib, const char *pci_bus_id,
			struct ix_coll_facts *f, struct ix_ctr_set *before);
/* At the run's end: what moved on the NIC's counters since before. */
void ix_coll_facts_end(const char *root, struct ix_coll_facts *f, struct ix_ctr_set *before);
/* The ceiling of r's ranks and its share, from their facts (rank 0). */
void ix_coll_ceiling(struct ix_coll_result *r);

#endif
