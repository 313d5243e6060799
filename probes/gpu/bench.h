/*
 * The GPU test plan over the backend interface (probes/gpu/gpu.h): which
 * copies and pointer chases run on which devices, how they are timed, and
 * the figures as matrices. Nothing here calls a vendor function; the
 * results are plain structs that report/json/gpu.c renders.
 *
 * Units. A bandwidth cell is bytes copied per second: a byte counts once,
 * however often memory sees it (traffic_factor says how often: 2 for a
 * copy within one device's memory, read once and written once). A latency
 * cell is nanoseconds per hop of a pointer chase. Each cell holds the
 * median of the samples and their lowest and highest value.
 *
 * Matrices: row = where the data comes from, column = where it goes (as
 * in a mesh: row a, column b is a -> b). Rows and columns are devices, or
 * the host, or "all other selected GPUs at once", or "local".
 */
#ifndef IX_GPU_BENCH_H
#define IX_GPU_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "probes/core/probe.h"
#include "probes/gpu/gpu.h"
#include "probes/host/pci.h"

#define IX_GPU_MAX_TESTS   48
#define IX_GPU_MAX_SAMPLES 1000
#define IX_GPU_MAX_NOTES   8

/* Row and column labels that are not a device index. */
#define IX_GPU_HOST  (-1) /* host memory */
#define IX_GPU_ALL   (-2) /* every other selected GPU at once */
#define IX_GPU_LOCAL (-3) /* the column's own memory (device_local_copy) */

/* Defaults, as nvbandwidth's: 512 MiB per copy, 16 repetitions, 3 samples. */
#define IX_GPU_DEFAULT_SIZE       (512ull << 20)
#define IX_GPU_DEFAULT_ITERATIONS 16
#define IX_GPU_DEFAULT_SAMPLES    3
#define IX_GPU_DEFAULT_WARMUP     2
#define IX_GPU_DEFAULT_HOPS       100000
#define IX_GPU_DEFAULT_STRIDE     4096

enum ix_gpu_kind {
	IX_GPU_T_HOST,     /* host -> each GPU (1 x N) or each GPU -> host (N x 1) */
	IX_GPU_T_HOST_ALL, /* as IX_GPU_T_HOST while every other selected GPU copies too */
	IX_GPU_T_LOCAL,    /* a copy within each GPU's memory (1 x N) */
	IX_GPU_T_PEER,     /* GPU -> GPU with peer access (N x N) */
	IX_GPU_T_AGG,      /* all_to_one (1 x N) or one_to_all (N x 1) at once */
	IX_GPU_T_STAGED,   /* GPU -> GPU without peer access, through the host (N x N) */
	IX_GPU_T_IPC,      /* GPU -> GPU across a process boundary (N x N) */
	IX_GPU_T_LAT_HOST, /* pointer chase in host memory from each GPU (1 x N) */
	IX_GPU_T_LAT_PEER, /* pointer chase in row's memory from column (N x N) */
};

enum ix_gpu_metric { IX_GPU_BANDWIDTH, IX_GPU_LATENCY };

/* The figure a cell is compared with. */
enum ix_gpu_ref {
	IX_GPU_REF_NONE,
	IX_GPU_REF_PCIE,   /* the GPU's PCIe link, per direction (the lower of two) */
	IX_GPU_REF_HBM,    /* the device's memory bandwidth (ix_gpu_info.hbm_bps) */
	IX_GPU_REF_INPROC, /* the same copy within one process, measured just before */
};

/* One test, named in nvbandwidth's vocabulary (its description follows
 * from the fields: ix_gpu_test_describe in report/json/gpu.h). */
struct ix_gpu_test {
	const char *name;
	enum ix_gpu_kind kind;
	enum ix_gpu_engine engine;
	enum ix_gpu_mem host_mem; /* host tests: pinned or pageable */
	bool to;                  /* host: host -> GPU; aggregate: all_to_one */
	bool read;                /* run by the GPU that receives (else the one that sends) */
	bool bidir;               /* the opposite copy runs at once; its figure is not counted */
};

enum ix_gpu_status { IX_GPU_OK, IX_GPU_SKIPPED, IX_GPU_FAILED };

enum ix_gpu_cell_state {
	IX_GPU_CELL_PENDING, /* not measured: the test stopped before it */
	IX_GPU_CELL_OK,
	IX_GPU_CELL_FAILED,
	IX_GPU_CELL_NONE, /* the diagonal, or a pair without peer access */
};

struct ix_gpu_cell {
	uint8_t state;                     /* enum ix_gpu_cell_state */
	struct ix_opt_f64 value, min, max; /* median, lowest, highest of the samples */
	struct ix_opt_f64 reference;       /* same unit as value */
};

/* What one test measured. */
struct ix_gpu_meas {
	const struct ix_gpu_test *test;
	enum ix_gpu_status status;
	char reason[IX_ERR_MAX]; /* why it was skipped or failed */
	enum ix_gpu_ref ref;
	double traffic_factor; /* memory traffic per byte copied, against the reference */
	uint64_t bytes;        /* per copy; a latency test: the chain's size */
	int rows, cols;
	int row_dev[IX_GPU_MAX_DEVICES], col_dev[IX_GPU_MAX_DEVICES]; /* or IX_GPU_HOST... */
	struct ix_gpu_cell *cells;                                    /* rows x cols, by rows */
};

/* How the IPC test starts its second process: with fd (its end of a
 * SOCK_SEQPACKET socket pair) as the channel on which it runs
 * ix_gpu_ipc_serve, over the same backend and library as this one.
 * cmd/gpu.c execs "ixperf gpu ipc-child"; tests fork. */
struct ix_gpu_ipc_start {
	int (*start)(void *arg, int fd, pid_t *pid, struct ix_err *err);
	void *arg;
};

struct ix_gpu_params {
	bool tests[IX_GPU_MAX_TESTS]; /* by index into ix_gpu_tests() */
	uint64_t gpus;                /* bit i: GPU i takes part; 0 = all */
	uint64_t size;                /* bytes per copy, and of a latency chain */
	uint32_t iterations;          /* timed repetitions per sample */
	uint32_t samples;
	uint32_t warmup; /* untimed repetitions before a cell's first sample */
	uint64_t hops;   /* pointer-chase hops per sample */
	uint64_t stride; /* bytes between the elements of a chain */
	double ipc_timeout_s;
	struct ix_gpu_ipc_start ipc; /* start == NULL: the IPC test is skipped */
};

enum ix_gpu_peer { IX_GPU_PEER_UNKNOWN, IX_GPU_PEER_NO, IX_GPU_PEER_YES };

struct ix_gpu_dev {
	struct ix_gpu_info info;
	bool selected;
	bool pci_found;             /* its PCI function is in sysfs */
	struct ix_pci_link link;    /* from sysfs; link.present false when unread */
	struct ix_opt_f64 link_Bps; /* per direction, bytes/s: the link both ends support
				     * (GPUs slow an idle link down), else as trained */
};

struct ix_gpu_result {
	struct ix_gpu_backend_info backend;
	struct ix_gpu_params params;
	int ndevices;
	struct ix_gpu_dev dev[IX_GPU_MAX_DEVICES];
	uint8_t peer[IX_GPU_MAX_DEVICES][IX_GPU_MAX_DEVICES]; /* enum ix_gpu_peer: row can
							       * access column's memory */
	struct ix_gpu_meas *meas;
	size_t nmeas;
	bool measured; /* tests ran (false: an inventory) */
	bool complete; /* no test failed */
	char error[IX_ERR_MAX];
	char notes[IX_GPU_MAX_NOTES][256];
	size_t nnotes;
};

/* The tests, in the order they run. */
size_t ix_gpu_tests(const struct ix_gpu_test **v);
/* The groups --test takes besides the names ("all", ...), NULL-terminated. */
const char *const *ix_gpu_groups(void);
/* Index of a test by exact name, or -1. */
int ix_gpu_test_find(const char *name);
/* ixperf gpu's --test and --gpus lists (into sel[IX_GPU_MAX_TESTS], a
 * mask of GPU indexes); IX_EXIT_USAGE naming the option. */
int ix_gpu_select_tests(const char *list, bool *sel, struct ix_err *err);
int ix_gpu_parse_list(const char *list, uint64_t *mask, struct ix_err *err);
/* Every test selected, nvbandwidth's defaults, no IPC starter. */
void ix_gpu_params_default(struct ix_gpu_params *p);

/* The backend, every device (with its PCIe link and NUMA node from the
 * sysfs under root, "" for the live system) and the peer-access matrix.
 * gpus: the mask of --gpus (0 = all); a GPU that does not exist is a
 * usage error, no GPU at all unavailable. */
int ix_gpu_inventory(const struct ix_gpu_ctx *c, const char *root, uint64_t gpus,
		     struct ix_gpu_result *r, struct ix_err *err);
/* Run the selected tests over r's selected devices (r from
 * ix_gpu_inventory). A test that cannot run here is skipped with its
 * reason; one that fails keeps what it measured and the rest go on.
 * Returns -1 only when nothing can run (out of memory, bad parameters);
 * r->complete says whether any test failed. */
int ix_gpu_bench_run(struct ix_gpu_ctx *c, const struct ix_gpu_params *p, struct ix_gpu_result *r,
		     struct ix_err *err);
void ix_gpu_result_free(struct ix_gpu_result *r);

/*
 * The IPC channel (ipc.c): fixed-size messages on a SOCK_SEQPACKET socket pair
 * between two processes of one binary, the second started with the same
 * backend and library. The parent sends COPY requests (the exported
 * handle, the device to map it on and copy to, bytes, repetitions: the
 * child maps the handle, copies into a buffer of its own and lets go of
 * both before it answers OK with the copy's ns, or ERR with an exit code
 * and one sentence), then QUIT.
 */
#define IX_GPU_IPC_MAGIC   0x49584750u /* "IXGP" */
#define IX_GPU_IPC_VERSION 1u

enum ix_gpu_ipc_op {
	IX_GPU_IPC_COPY = 1,
	IX_GPU_IPC_QUIT,
	IX_GPU_IPC_OK,
	IX_GPU_IPC_ERR,
};

struct ix_gpu_ipc_msg {
	uint32_t magic, version, op;
	int32_t device; /* COPY: where to map the handle and copy */
	int32_t code;   /* ERR: an exit code */
	uint32_t reps, warmup;
	uint64_t size;  /* COPY: the exported buffer's size */
	uint64_t bytes; /* COPY: bytes per repetition */
	double ns;      /* OK: the copy's time */
	uint8_t handle[IX_GPU_IPC_HANDLE];
	char text[IX_ERR_MAX]; /* ERR: why */
};

/* A message as the channel carries it; op sets the rest to zero. */
void ix_gpu_ipc_init(struct ix_gpu_ipc_msg *m, enum ix_gpu_ipc_op op);
/* Check a message of got bytes: size, magic, version, op, terminated
 * text, ranges. */
int ix_gpu_ipc_check(const struct ix_gpu_ipc_msg *m, size_t got, struct ix_err *err);
/* One message on the channel (ipc.c); a peer gone is an error. */
int ix_gpu_ipc_send(int fd, const struct ix_gpu_ipc_msg *m, struct ix_err *err);
/* One message within timeout_s (< 0: no limit), checked; 1 when the other
 * end left. */
int ix_gpu_ipc_recv(int fd, struct ix_gpu_ipc_msg *m, double timeout_s, struct ix_err *err);
/* The second process: serve requests on fd until QUIT or the parent
 * leaves. c: the opened backend; NULL to answer every request with ERR
 * and why (the backend did not open). */
int ix_gpu_ipc_serve(int fd, struct ix_gpu_ctx *c, const struct ix_err *why, struct ix_err *err);

/* ---- names.c: names and derived figures every renderer shows ---- */

/* What a test does, from its fields: "host -> GPU, pinned memory, copy engine". */
void ix_gpu_test_describe(const struct ix_gpu_test *t, char *buf, size_t len);
/* A latency test (pointer chase): figures in ns, lower is better. */
bool ix_gpu_test_is_latency(const struct ix_gpu_test *t);
/* "GPU3", "host", "all", "local". */
void ix_gpu_label(int dev, char *buf, size_t len);
const char *ix_gpu_ref_name(enum ix_gpu_ref r);       /* "pcie_link", "hbm", "in_process"; NULL */
const char *ix_gpu_status_name(enum ix_gpu_status s); /* "ok", "skipped", "failed" */
const char *ix_gpu_cell_state_name(uint8_t s);        /* "pending", "ok", "failed", "none" */
const char *ix_gpu_cap_name(unsigned bit);            /* "peer", "kernel", "ipc", "dmabuf" */
/* 100 x traffic_factor x value / reference; false when either is missing. */
bool ix_gpu_cell_percent(const struct ix_gpu_meas *m, const struct ix_gpu_cell *c, double *pct);

#endif
