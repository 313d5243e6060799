/*
 * The command table lives in main.c. Adding a new command:
 *   1. cmd/NAME.c with its option table (struct ix_cmd_spec ix_NAME_spec)
 *      and int cmd_NAME(int argc, char **argv, const struct ix_env *env) last;
 *   2. a row in main.c's table and the two declarations below;
 *   3. the file in Makefile.am (ixperf_SOURCES);
 *   4. man/ixperf-NAME.1 (and man_MANS in Makefile.am);
 *   5. tests: tests/cli cases, and unit tests for any new module.
 * What the command measures goes in the probes/ folder of its subsystem,
 * what it prints in report/ (json/ and text/ at least); each folder's
 * README says what it may include, and tests/layers.sh checks it. A new
 * module gets its unit test at its own path under tests/unit/ (probes/X/Y.c:
 * tests/unit/probes/X/test_Y.c) and a row in Makefile.am's UNIT_TESTS.
 * tests/cli/run.sh checks that every listed command answers --help and
 * has a man page, and that every file of cmd/ (common.c and main.c aside)
 * is one with its page man/ixperf-NAME.[157]: what is not a command goes
 * in probes/ or report/.
 */
#ifndef IX_CMD_H
#define IX_CMD_H

#include "cmd/common.h"

#define IX_CMD_NETWORK 1u /* ignore SIGPIPE: sockets report EPIPE instead */

struct ix_command {
	const char *name;
	int (*fn)(int argc, char **argv, const struct ix_env *env);
	const struct ix_cmd_spec *spec;
	unsigned flags;
};

const struct ix_command *ix_commands(size_t *n);
const struct ix_command *ix_command_find(const char *name);

int cmd_bw(int argc, char **argv, const struct ix_env *env);
int cmd_lat(int argc, char **argv, const struct ix_env *env);
int cmd_server(int argc, char **argv, const struct ix_env *env);
int cmd_help(int argc, char **argv, const struct ix_env *env);
int cmd_mesh(int argc, char **argv, const struct ix_env *env);
int cmd_incast(int argc, char **argv, const struct ix_env *env);
int cmd_ecmp(int argc, char **argv, const struct ix_env *env);
int cmd_run(int argc, char **argv, const struct ix_env *env);
int cmd_report(int argc, char **argv, const struct ix_env *env);
int cmd_compare(int argc, char **argv, const struct ix_env *env);
int cmd_post(int argc, char **argv, const struct ix_env *env);
int cmd_top(int argc, char **argv, const struct ix_env *env);
int cmd_topo(int argc, char **argv, const struct ix_env *env);
int cmd_wire(int argc, char **argv, const struct ix_env *env);
int cmd_fabric(int argc, char **argv, const struct ix_env *env);
int cmd_gpu(int argc, char **argv, const struct ix_env *env);
int cmd_coll(int argc, char **argv, const struct ix_env *env);
int cmd_mem(int argc, char **argv, const struct ix_env *env);

extern const struct ix_cmd_spec ix_bw_spec;
extern const struct ix_cmd_spec ix_lat_spec;
extern const struct ix_cmd_spec ix_server_spec;
extern const struct ix_cmd_spec ix_help_spec;
extern const struct ix_cmd_spec ix_mesh_spec;
extern const struct ix_cmd_spec ix_incast_spec;
extern const struct ix_cmd_spec ix_ecmp_spec;
extern const struct ix_cmd_spec ix_run_spec;
extern const struct ix_cmd_spec ix_report_spec;
extern const struct ix_cmd_spec ix_compare_spec;
extern const struct ix_cmd_spec ix_post_spec;
extern const struct ix_cmd_spec ix_top_spec;
extern const struct ix_cmd_spec ix_topo_spec;
extern const struct ix_cmd_spec ix_wire_spec;
extern const struct ix_cmd_spec ix_fabric_spec;
extern const struct ix_cmd_spec ix_gpu_spec;
extern const struct ix_cmd_spec ix_coll_spec;
extern const struct ix_cmd_spec ix_mem_spec;

/* ixperf bw --path pcie: the host <-> GPU tests of ixperf gpu over each
 * GPU's PCIe link (cmd/gpu.c). argv is bw's (argv[0] "bw"); it takes
 * --path pcie, the GPU options (--backend, --gpus, -s, -i, --samples, -w),
 * -J and -o, and reports errors as "ixperf bw". */
int ix_gpu_cmd_pcie(int argc, char **argv, const struct ix_env *env);
/* The GPU tests of a check of ixperf run (cmd/gpu.c), on this machine:
 * tests, gpus, backend and lib as --test, --gpus, --backend and --lib take
 * them (NULL: the defaults; size, iterations, samples 0: the defaults).
 * *out: the gpu result object, also when a test failed (NULL when nothing
 * ran). -1 with err: no backend (IX_EXIT_UNAVAILABLE, each tried and why),
 * a test failed, or none of the tests can run here. */
struct ix_gpu_req {
	const char *tests, *gpus, *backend, *lib;
	uint64_t size;
	uint32_t iterations, samples;
};
int ix_gpu_check_run(const struct ix_gpu_req *q, json_t **out, struct ix_err *err);
/* The collective of a check of ixperf run (cmd/coll.c), on this machine,
 * every GPU (or gpus) a rank of one process: op, dtype, redop, lib (nccl,
 * rccl), lib_path, backend, gpu_lib, gpus and sysfs as ixperf coll takes
 * them (NULL: the defaults); minbytes, maxbytes, factor, iters, warmup and
 * timeout_s as -b, -e, -f, -n, -w and --timeout (0: the defaults; warmup
 * UINT32_MAX for 0). *out: the coll result object, also when the run
 * failed (NULL when nothing ran); wrong elements are counted there, for
 * the check's max_wrong. -1 with err: no library or GPU
 * (IX_EXIT_UNAVAILABLE), a bad setting, a rank that failed or never
 * reported. */
struct ix_coll_req {
	const char *op, *dtype, *redop, *lib, *lib_path, *backend, *gpu_lib, *gpus, *sysfs;
	uint64_t minbytes, maxbytes, factor;
	uint32_t iters, warmup;
	double timeout_s;
};
int ix_coll_check_run(const struct ix_coll_req *q, json_t **out, struct ix_err *err);

/* The memory of a mem check of ixperf run (cmd/mem.c), on this machine,
 * its nodes read under sysfs: the mem result appended to results (when it
 * ran); -1 with err when it could not run, or when a pair could not be
 * measured (naming it). */
struct ix_mem_params;
int ix_mem_check_run(const struct ix_mem_params *p, const char *sysfs, json_t *results,
		     struct ix_err *err);

#endif
