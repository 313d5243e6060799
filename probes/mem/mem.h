/*
 * Memory from every initiator: for each NUMA node with CPUs (an initiator)
 * and each node with memory (a target, CPU-less ones included: CXL
 * expanders, GPU memory a driver onlined), the read, write, non-temporal
 * write and copy bandwidth of threads bound to the initiator's CPUs over
 * buffers bound to the target, the idle latency of a dependent pointer
 * chase and the latency under increasing load, with what the firmware
 * advertises (ACPI HMAT, as the kernel shows it) beside.
 */
#ifndef IX_MEM_H
#define IX_MEM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "probes/core/err.h"
#include "probes/host/hmat.h"

#define IX_MEM_MAX_NODES 64 /* node ids 0..63 */
#define IX_MEM_CURVE_MAX 10 /* loaded-latency points: idle, then 9 loads */

enum ix_mem_kind {
	IX_MEM_READ,
	IX_MEM_WRITE,
	IX_MEM_NTWRITE, /* non-temporal (streaming) stores, where the CPU has them */
	IX_MEM_COPY,
	IX_MEM_NKINDS,
};

/* Which measurements run (ix_mem_params.tests). */
enum {
	IX_MEM_T_READ = 1u << IX_MEM_READ,
	IX_MEM_T_WRITE = 1u << IX_MEM_WRITE,
	IX_MEM_T_NTWRITE = 1u << IX_MEM_NTWRITE,
	IX_MEM_T_COPY = 1u << IX_MEM_COPY,
	IX_MEM_T_LATENCY = 1u << 4,
	IX_MEM_T_LOADED = 1u << 5,
	IX_MEM_T_ALL = (1u << 6) - 1,
};

struct ix_mem_node {
	int id;
	char cpus[256]; /* cpulist; "" for a CPU-less node */
	uint32_t ncpus;
	bool mem_known;
	uint64_t mem_bytes, free_bytes;
	struct ix_hmat access[2]; /* HMAT classes 0 and 1 */
};

/* What backed a latency buffer. */
struct ix_mem_pages {
	uint64_t page_bytes; /* the base page size */
	uint64_t huge_bytes; /* bytes of the buffer in huge pages (THP) */
	bool huge_asked;     /* madvise(MADV_HUGEPAGE) was made */
	char thp[16];        /* transparent_hugepage/enabled: "always", "madvise", "never", "" */
};

struct ix_mem_point {
	uint32_t delay_ns; /* the loaders' wait after each line (pauses that long) */
	double load_Bps;   /* what the loaders read, bytes/s (0 at the idle point) */
	double lat_ns;     /* the chase's latency meanwhile */
};

/* From one initiator node to one target node. */
struct ix_mem_cell {
	int initiator, target;
	bool measured;
	char why[192]; /* not measured, or part of it not: why */
	uint32_t threads;
	uint64_t buf_bytes;        /* per thread, bandwidth */
	double bw[IX_MEM_NKINDS];  /* bytes/s; < 0: not run */
	double lat_ns;             /* idle latency; < 0: not run */
	uint64_t lat_bytes;        /* the chase's buffer */
	struct ix_mem_pages pages; /* of the chase's buffer */
	double placed;             /* share of sampled pages found on the target; < 0 unknown */
	struct ix_mem_point curve[IX_MEM_CURVE_MAX];
	uint32_t ncurve;
	/* HMAT beside: the class whose initiators include this one (-1: none,
	 * the kernel shows no figure for this pair). */
	int hmat_class;
	double ratio_read, ratio_write, ratio_lat; /* measured / advertised; < 0 none */
	bool slow;                                 /* slower than advertised beyond the slack */
};

struct ix_mem_params {
	uint64_t initiators, targets; /* node bit masks; 0 = every one */
	uint32_t threads;             /* per initiator; 0 = one per CPU it may run on */
	uint64_t buf_bytes;           /* per thread; 0 = automatic */
	uint64_t lat_bytes;           /* chase buffer; 0 = automatic */
	double time_s;                /* per measurement */
	unsigned tests;               /* IX_MEM_T_* */
	bool no_huge;                 /* the chase over base pages (MADV_NOHUGEPAGE) */
	double slack;                 /* a finding past advertised x (1 -/+ slack) */
	const char *sysfs;            /* root of /sys ("" = live) */
};

struct ix_mem_result {
	struct ix_mem_params params;
	char sysfs[256];
	struct ix_mem_node nodes[IX_MEM_MAX_NODES];
	uint32_t nnodes;
	struct ix_mem_cell *cells;
	uint32_t ncells;
	uint64_t llc_bytes; /* the largest CPU cache, 0 unknown */
	bool nt_stores;     /* the non-temporal kernel exists on this CPU */
	bool complete;
	char error[256];
};

/* Read the nodes under root (sysfs), HMAT classes included; -1 with err
 * when there is no node directory at all. */
int ix_mem_nodes(const char *root, struct ix_mem_result *r, struct ix_err *err);
/* Parse a cpulist ("0-3,8,10-11") into CPU numbers; the count, -1 when
 * malformed or longer than max. */
int ix_mem_cpulist(const char *s, int *cpus, int max);
/* Parse a list of tests ("read,latency", "all") into IX_MEM_T_* bits; -1
 * with err naming the bad one. */
int ix_mem_tests_parse(const char *s, unsigned *out, struct ix_err *err);
/* Parse a node list ("0,2-3", "all") into a mask; -1 with err. */
int ix_mem_nodelist(const char *s, uint64_t *mask, struct ix_err *err);

/* Measure every (initiator, target) pair the params select. stop, when
 * set, ends the run early (the result marked incomplete). */
int ix_mem_run(const struct ix_mem_params *p, struct ix_mem_result *r, atomic_int *stop,
	       struct ix_err *err);
void ix_mem_result_free(struct ix_mem_result *r);

/* Advertised against measured for every cell (ratios and slow marks). */
void ix_mem_compare(struct ix_mem_result *r);
const struct ix_mem_node *ix_mem_node(const struct ix_mem_result *r, int id);
const char *ix_mem_kind_name(enum ix_mem_kind k);

#endif
