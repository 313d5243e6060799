/* Shared by the commands: the option-table parser and help, output sinks. */
#ifndef IX_CMD_COMMON_H
#define IX_CMD_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/hostlist.h"
#include "probes/core/err.h"
#include "probes/ctl/auth.h"
#include "report/fmt/units.h"
#include "report/json/json.h"
#include "report/post/post.h"
#include "report/post/targets.h"

struct ix_spmd;

enum ix_opt_type {
	IX_OPT_FLAG,    /* bool */
	IX_OPT_UINT,    /* uint64_t, plain integer */
	IX_OPT_SIZE,    /* uint64_t bytes with K/Ki... suffixes */
	IX_OPT_RATE,    /* uint64_t bit/s */
	IX_OPT_SECONDS, /* double, with s/ms/us/m/h */
	IX_OPT_NUMBER,  /* double, a plain decimal number */
	IX_OPT_STRING,  /* const char * */
	IX_OPT_LIST,    /* struct ix_opt_list: every occurrence, in order */
};

#define IX_OPT_LIST_MAX 16
struct ix_opt_list {
	const char *v[IX_OPT_LIST_MAX];
	size_t n;
};

/* One row: the only source of both parsing and --help text. */
struct ix_option {
	int short_name; /* 0 when there is none */
	const char *long_name;
	enum ix_opt_type type;
	size_t offset; /* into the command's options struct */
	const char *argname;
	const char *help;
	double min, max; /* numeric range, inclusive; max 0 = none */
};

struct ix_cmd_spec {
	const char *name;
	const char *usage; /* after "ixperf NAME " */
	const char *summary;
	const struct ix_option *opts;
	size_t nopts;
	const char *epilog; /* examples, notes */
};

#define IX_OPTS_END(spec_opts) (sizeof(spec_opts) / sizeof((spec_opts)[0]))

/* Parse argv (argv[0] is the command name) into dst. Positional arguments
 * are left in argv[*first_pos .. argc). --help sets *help. */
int ix_opts_parse(const struct ix_cmd_spec *spec, int argc, char **argv, void *dst, int *first_pos,
		  bool *help, struct ix_err *err);
void ix_opts_help(const struct ix_cmd_spec *spec, FILE *f);
/* What to add to "unknown option 'ARG'": " (iperf3's -u:
 * --path udp)" for a flag of iperf3 or perftest that ixperf spells
 * otherwise, "; did you mean '--time'?" for a long option a typo away from
 * one of spec's; "" else. */
void ix_help_unknown_opt(const struct ix_cmd_spec *spec, const char *arg, char *buf, size_t len);
/* The same after "'WORD' is not a command" (cmd/help.c: it reads the
 * command table). */
void ix_help_unknown_cmd(const char *word, char *buf, size_t len);
/* The ixperf spelling of flag, a flag of iperf3 or perftest; NULL if none. */
const char *ix_help_foreign(const char *flag);
/* Names of long options, one per line (shell completion). */
void ix_opts_list(const struct ix_cmd_spec *spec, FILE *f);

/* Options every client command (bw, lat) shares; first member of their
 * option structs so one block of rows serves both tables. */
struct ix_client_opts {
	uint64_t port;
	const char *bind;
	bool json;
	const char *output;
	const char *path;
	double time_s;
	double warmup_s;
	uint64_t size;
	bool sweep;
	double connect_timeout_s;
	const char *token_file;
	const char *capture;        /* --capture IFACE: wire diagnostics */
	const char *capture_filter; /* BPF; default: the server's addresses */
	const char *pcap;           /* keep the capture in this file */
	bool help;
};

/* clang-format off */
#define IX_CLIENT_OPTION_ROWS(type, pathhelp)                                            \
	{ 'p', "port", IX_OPT_UINT, offsetof(type, c.port), "PORT",                     \
	  "server port (default 5301)", 1, 65535 },                                      \
	{ 'B', "bind", IX_OPT_STRING, offsetof(type, c.bind), "ADDR",                   \
	  "local address to send from", 0, 0 },                                          \
	{ 0, "path", IX_OPT_STRING, offsetof(type, c.path), "PATH",                     \
	  pathhelp, 0, 0 },                                                               \
	{ 't', "time", IX_OPT_SECONDS, offsetof(type, c.time_s), "SECONDS",             \
	  "measured duration (per size in a sweep)", 0.01, 86400 },                      \
	{ 'w', "warmup", IX_OPT_SECONDS, offsetof(type, c.warmup_s), "SECONDS",         \
	  "warm-up before measuring, excluded from every figure", 0, 3600 },             \
	{ 's', "size", IX_OPT_SIZE, offsetof(type, c.size), "BYTES",                    \
	  "message size (with -a: the largest size); K = KB = Ki = 1024, kB = 1000", 1, 0 },       \
	{ 'a', "all-sizes", IX_OPT_FLAG, offsetof(type, c.sweep), NULL,                 \
	  "sweep message sizes in powers of two up to --size", 0, 0 },                   \
	{ 'J', "json", IX_OPT_FLAG, offsetof(type, c.json), NULL,                       \
	  "one JSON document on stdout (diagnostics on stderr)", 0, 0 },                 \
	{ 'o', "output", IX_OPT_STRING, offsetof(type, c.output), "FILE",               \
	  "write the report to FILE atomically instead of stdout", 0, 0 },               \
	{ 0, "connect-timeout", IX_OPT_SECONDS, offsetof(type, c.connect_timeout_s),    \
	  "SECONDS", "give up connecting after this long (default 5)", 0.1, 600 },       \
	{ 0, "token-file", IX_OPT_STRING, offsetof(type, c.token_file), "FILE",         \
	  "shared token for agents that require one (mode 600)", 0, 0 },                 \
	{ 0, "capture", IX_OPT_STRING, offsetof(type, c.capture), "IFACE",              \
	  "capture on IFACE during the test and add its wire diagnostics (CAP_NET_RAW)", 0, 0 }, \
	{ 0, "capture-filter", IX_OPT_STRING, offsetof(type, c.capture_filter), "BPF",  \
	  "what --capture keeps (default: host SERVER, the test's own traffic)", 0, 0 }, \
	{ 0, "pcap", IX_OPT_STRING, offsetof(type, c.pcap), "FILE",                     \
	  "keep the --capture packets in FILE (pcap, written atomically)", 0, 0 },       \
	{ 'h', "help", IX_OPT_FLAG, offsetof(type, c.help), NULL, "show this help", 0, 0 }
/* clang-format on */

/* Options of --path rdma (bw, lat); see cmd/rdma.c. Values where 0 is
 * meaningful are kept as text and parsed with their own range. */
struct ix_rdma_cli {
	const char *op;
	uint64_t qps, tx_depth, rx_depth, cq_mod, rd_atom, mtu, ib_port, threads;
	const char *inline_size, *gid_index, *gid_type, *tclass, *sl, *dev, *numa, *gpu;
};

/* clang-format off */
#define IX_RDMA_OPTION_ROWS(type, m)                                                     \
	{ 0, "op", IX_OPT_STRING, offsetof(type, m.op), "OP",                           \
	  "rdma: write (default), read, send or write_imm", 0, 0 },                       \
	{ 0, "qps", IX_OPT_UINT, offsetof(type, m.qps), "N",                            \
	  "rdma: queue pairs (default 1)", 1, 256 },                                      \
	{ 0, "threads", IX_OPT_UINT, offsetof(type, m.threads), "N",                    \
	  "bandwidth: threads at each end; rdma: QP q polled by thread q % N, each with " \
	  "its own CQ (default: 1 below 4 QPs, else one per 2 QPs on at most half the "  \
	  "CPUs); tcp: stream i of a direction on thread i % N (default: a thread per "  \
	  "stream on loopback or beyond twice the CPUs, else at most half the CPUs)",    \
	  1, 16 },                                                                        \
	{ 0, "tx-depth", IX_OPT_UINT, offsetof(type, m.tx_depth), "N",                  \
	  "rdma: send WRs in flight per QP (default 128; lat 1)", 1, 65536 },             \
	{ 0, "rx-depth", IX_OPT_UINT, offsetof(type, m.rx_depth), "N",                  \
	  "rdma: receives posted ahead per QP (send, write_imm; default 512 or the tx depth)", 1, 65536 }, \
	{ 0, "cq-mod", IX_OPT_UINT, offsetof(type, m.cq_mod), "N",                      \
	  "rdma: one completion per N WRs (default min(100, tx depth / 2); lat 8)", 1, 65536 },  \
	{ 0, "inline", IX_OPT_STRING, offsetof(type, m.inline_size), "BYTES",            \
	  "rdma: inline sends up to BYTES (default 0; lat 220 or the device's limit)", 0, 0 }, \
	{ 0, "rd-atom", IX_OPT_UINT, offsetof(type, m.rd_atom), "N",                    \
	  "rdma: reads in flight per QP (read; default the device's max, as perftest)", 1, 255 },       \
	{ 0, "ib-dev", IX_OPT_STRING, offsetof(type, m.dev), "DEV",                     \
	  "rdma: local device (default: the one on the route to HOST)", 0, 0 },           \
	{ 0, "ib-port", IX_OPT_UINT, offsetof(type, m.ib_port), "PORT",                 \
	  "rdma: local port (default: its first ACTIVE one)", 1, 255 },                   \
	{ 0, "gid-index", IX_OPT_STRING, offsetof(type, m.gid_index), "N",              \
	  "rdma: local GID index (default: chosen, RoCE v2 on the route to HOST)", 0, 0 }, \
	{ 0, "gid-type", IX_OPT_STRING, offsetof(type, m.gid_type), "TYPE",             \
	  "rdma RoCE: v2 (default), v1, v2-ipv4 or v2-ipv6", 0, 0 },                      \
	{ 0, "tc", IX_OPT_STRING, offsetof(type, m.tclass), "N",                        \
	  "rdma: GRH traffic class 0-255, DSCP << 2 | ECN (default 0)", 0, 0 },           \
	{ 0, "sl", IX_OPT_STRING, offsetof(type, m.sl), "N",                            \
	  "rdma: service level / priority 0-15 (default 0)", 0, 0 },                      \
	{ 0, "mtu", IX_OPT_UINT, offsetof(type, m.mtu), "BYTES",                        \
	  "rdma: cap the path MTU: 256, 512, 1024, 2048 or 4096", 256, 4096 },            \
	{ 0, "numa", IX_OPT_STRING, offsetof(type, m.numa), "NODE",                     \
	  "rdma: buffers and CPUs on NODE, 'device' (default: the NIC's node) or 'none'", 0, 0 }, \
	{ 0, "gpu", IX_OPT_STRING, offsetof(type, m.gpu), "N|auto",                     \
	  "rdma: buffers in GPU N's memory (GPUDirect RDMA through a dmabuf); auto: the GPU " \
	  "nearest the NIC, host memory where there is none", 0, 0 }
/* clang-format on */

/* What main sets up once, from the command table row's flags (cmd/cmd.h). */
struct ix_env {
	int argc; /* the whole command line, for JSON envelopes */
	char **argv;
};
/* ixperf bw|lat --path rdma HOST (cmd/rdma.c). iters: 0 = by --time. */
/* mesh and incast: --op and --qps into rdma on path rdma (where -P,
 * parallel, must not be set), usage errors for them on other paths. */
struct ix_transport;
struct ix_rdma_params;
int ix_rdma_opts_fill(const struct ix_transport *tp, const char *op, uint64_t qps,
		      uint64_t parallel, int kind, struct ix_rdma_params *p, struct ix_err *err);
/* An RDMA test per size (bw, lat, and the checks of ixperf run): each on a
 * fresh device (gpu >= 0: buffers in that GPU's memory), against the
 * connected client cl, with params (msg_size set from sizes). each, when
 * set, sees every result that measured as it ends. Returns 0, or -1 with
 * err at the first failure; *done results of res hold figures (a failed
 * one that measured included). */
struct ix_client;
struct ix_rdma_result;
struct ix_rdma_how {
	const char *dev; /* NULL: the one on the route to the agent */
	unsigned port;   /* 0: its first ACTIVE one */
	int gpu;         /* -1: host memory; IX_RDMA_GPU_AUTO: the nearest */
	void (*each)(void *arg, size_t i, const struct ix_rdma_result *r);
	void *arg;
};
int ix_rdma_run_sizes(struct ix_client *cl, const struct ix_rdma_params *params,
		      const struct ix_rdma_how *how, const uint64_t *sizes, size_t n,
		      struct ix_rdma_result *res, size_t *done, struct ix_err *err);
/* IXPERF_RDMA_TIMEOUT, where set: the seconds (0.1 to 3600) an RDMA
 * test's end waits without any completion (ix_rdma_set_stall_timeout_ns). */
int ix_env_rdma_timeout(const char *value, int64_t *ns, struct ix_err *err);
/* A GPU index (0 to 63) of option name, or auto (IX_RDMA_GPU_AUTO). */
int ix_parse_gpu_index(const char *s, const char *name, int *out, struct ix_err *err);
/* The first --path rdma option set, or NULL (for other paths' checks). */
const char *ix_rdma_cli_used(const struct ix_rdma_cli *o);
int ix_rdma_cmd(const char *cmd, const struct ix_client_opts *c, const struct ix_rdma_cli *o,
		int kind, bool bidir, uint64_t iters, const char *host, const struct ix_env *env);

/* Options of the commands that coordinate many agents (mesh, incast). */
struct ix_coord_opts {
	uint64_t port;
	bool json;
	const char *output;
	const char *units;
	const char *token_file;
	double connect_timeout_s;
	const char *task_bind;     /* launched: addresses or interfaces by local rank */
	const char *task_rdma_dev; /* launched: RDMA devices by local rank */
	bool help;
};

/* clang-format off */
#define IX_COORD_OPTION_ROWS(type)                                                       \
	{ 'p', "port", IX_OPT_UINT, offsetof(type, k.port), "PORT",                     \
	  "agent port for hosts given without one (default 5301)", 1, 65535 },           \
	{ 0, "token-file", IX_OPT_STRING, offsetof(type, k.token_file), "FILE",         \
	  "shared token the agents require (mode 600)", 0, 0 },                          \
	{ 'J', "json", IX_OPT_FLAG, offsetof(type, k.json), NULL,                       \
	  "one JSON document on stdout (diagnostics on stderr)", 0, 0 },                 \
	{ 'o', "output", IX_OPT_STRING, offsetof(type, k.output), "FILE",               \
	  "write the report to FILE atomically instead of stdout", 0, 0 },               \
	{ 0, "units", IX_OPT_STRING, offsetof(type, k.units), "UNIT",                   \
	  "bits (default), bytes, or bit Kbit Mbit Gbit Tbit B KB MB GB TB KiB MiB GiB TiB", 0, 0 }, \
	{ 0, "connect-timeout", IX_OPT_SECONDS, offsetof(type, k.connect_timeout_s),    \
	  "SECONDS", "time to reach and authenticate every agent (default 10; launched: 60)", \
	  0.1, 600 },                                                                     \
	{ 0, "task-bind", IX_OPT_STRING, offsetof(type, k.task_bind), "LIST",           \
	  "launched: the task of local rank i binds entry i mod n (IP address or interface)", \
	  0, 0 },                                                                         \
	{ 0, "task-rdma-dev", IX_OPT_STRING, offsetof(type, k.task_rdma_dev), "LIST",   \
	  "launched: the task of local rank i runs RDMA tests on device i mod n", 0, 0 }, \
	{ 'h', "help", IX_OPT_FLAG, offsetof(type, k.help), NULL, "show this help", 0, 0 }
/* clang-format on */

/* The token of --token-file, or an unset one without it. */
int ix_token_from_opt(const char *path, struct ix_token *t, struct ix_err *err);

/* A report destination: stdout, or a memory buffer committed atomically;
 * a document with lazy values is written straight to a temporary file at
 * commit instead (doc, lazy: nothing of it is held twice). */
#define IX_SINK_MAX_LAZY 4
struct ix_sink {
	FILE *f;
	const char *path;
	char *buf;
	size_t len;
	json_t *doc;
	struct ix_json_lazy lazy[IX_SINK_MAX_LAZY];
	size_t nlazy;
};

int ix_sink_open(struct ix_sink *s, const char *path, struct ix_err *err);
int ix_sink_commit(struct ix_sink *s, struct ix_err *err);

struct ix_transport;
struct ix_client;
/* A client for HOST from the shared options. */
void ix_client_from_opts(struct ix_client *cl, const struct ix_client_opts *o, const char *host);
/* --capture-filter and --pcap without --capture are usage errors. */
int ix_client_capture_check(const struct ix_client_opts *c, struct ix_err *err);
/* --capture: started before the test, on the server's addresses unless a
 * filter is given; *cap stays NULL without --capture. */
struct ix_capture;
int ix_client_capture_begin(const struct ix_client_opts *c, const char *host,
			    struct ix_capture **cap, struct ix_err *err);
/* --capture of the coordinators (mesh, incast): on this machine's IFACE
 * over the whole run. */
struct ix_coord_capture {
	const char *iface, *filter, *pcap;
};
/* clang-format off */
#define IX_COORD_CAPTURE_ROWS(type, field, during)                                        \
	{ 0, "capture", IX_OPT_STRING, offsetof(type, field.iface), "IFACE",              \
	  "capture on IFACE (of this machine) " during " and add its wire diagnostics", 0, 0 }, \
	{ 0, "capture-filter", IX_OPT_STRING, offsetof(type, field.filter), "BPF",        \
	  "what --capture keeps (default: the hosts' addresses, when that is short; else all)", \
	  0, 0 },                                                                          \
	{ 0, "pcap", IX_OPT_STRING, offsetof(type, field.pcap), "FILE",                   \
	  "keep the --capture packets in FILE (pcap, written atomically)", 0, 0 }
/* clang-format on */
/* --capture-filter and --pcap without --capture are usage errors. */
int ix_coord_capture_check(const struct ix_coord_capture *c, struct ix_err *err);
/* Started before the agents are reached, by default on the addresses of
 * the hosts; *cap stays NULL without --capture. */
int ix_coord_capture_begin(const struct ix_coord_capture *c, const struct ix_hostlist *hosts,
			   struct ix_capture **cap, struct ix_err *err);
/* Write a JSON document to the sink (reference stolen). */
void ix_sink_put_json(struct ix_sink *s, json_t *doc);
/* The same with lazy values (ix_json_write): written now on stdout, at
 * commit into a file; what the lazy writers read must last until then.
 * -1 with err when stdout cannot take it. */
int ix_sink_put_json_lazy(struct ix_sink *s, json_t *doc, const struct ix_json_lazy *lazy, size_t n,
			  struct ix_err *err);

/* Print "ixperf CMD: message" on stderr and return the error's exit code. */
int ix_report_error(const char *cmd, const struct ix_err *err);
/* The same, for a command asked for JSON (json true): the error goes on
 * stderr and, as a document with complete false, no results and the
 * error, to output (stdout when NULL), so that a script reading the JSON
 * has a document for every failure. For failures before the command
 * wrote anything. */
int ix_report_error_json(const char *cmd, bool json, const char *output, const struct ix_env *env,
			 const struct ix_err *err);
/* struct ix_post_opts's warn for a command (cmd: its name, a const char *):
 * "ixperf CMD: WARNING: msg" on stderr, credentials over plain http said
 * once per process. */
void ix_post_warn_stderr(void *cmd, enum ix_post_warning w, const char *msg);

/* The HTML report of a document, with the run documents in history_dir
 * (NULL: none) that are older than it as trends (cmd/report.c). */
int ix_report_html(FILE *f, json_t *doc, const char *history_dir, struct ix_err *err);

/* --post [FORMAT=]URL (any number of times) and its options, for the
 * commands that measure (run, mesh, incast). */
struct ix_post_cli {
	struct ix_opt_list to;
	const char *format; /* of targets that name none; NULL: webhook */
	const char *job;
	bool pairs;
};

/* clang-format off */
#define IX_POST_OPTION_ROWS(type, m)                                                       \
	{ 0, "post", IX_OPT_LIST, offsetof(type, m.to), "[FORMAT=]URL",                    \
	  "post the result there (spooled when down); again for more targets; FORMAT: "    \
	  "webhook, chat, pushgateway, html, or textfile=DIR", 0, 0 },                      \
	{ 0, "post-format", IX_OPT_STRING, offsetof(type, m.format), "FORMAT",             \
	  "format of --post targets that name none (default webhook)", 0, 0 },             \
	{ 0, "post-job", IX_OPT_STRING, offsetof(type, m.job), "NAME",                     \
	  "Pushgateway job label and textfile name ixperf-NAME.prom (default ixperf)", 0, 0 }, \
	{ 0, "post-pairs", IX_OPT_FLAG, offsetof(type, m.pairs), NULL,                     \
	  "Prometheus: a mesh's series per pair too (default: per host and summary)", 0, 0 }
/* clang-format on */

/* The targets, read before anything is measured (usage errors first). */
int ix_post_cli_parse(const struct ix_post_cli *p, struct ix_post_target *t, size_t *n,
		      struct ix_err *err);
/* Post doc to the n targets of t; each that fails is said on stderr
 * ("ixperf CMD: posting to WHERE: why"). html renders html targets
 * (ix_report_html), with history: earlier documents for the HTML
 * report's trends (NULL: none). Returns how many failed. */
typedef int (*ix_html_fn)(FILE *f, json_t *doc, const char *history_dir, struct ix_err *err);
size_t ix_post_cli_send(const char *cmd, const struct ix_post_cli *p,
			const struct ix_post_target *t, size_t n, json_t *doc, ix_html_fn html,
			const char *history);
/* The exit status after posting: a failed post turns a 0 into
 * IX_EXIT_POST; a failure or error of the run itself stands. */
int ix_post_exit(int rc, size_t failed);

/* What mesh and incast share: hosts, token, units, output, the agents. */
struct ix_coord_cmd {
	const char *name;
	struct ix_hostlist hosts;
	struct ix_token token;
	struct ix_unit_choice units;
	struct ix_sink sink;
	struct ix_coord co;
	bool sink_open, coord_open;
	struct ix_spmd *spmd; /* one task of a launch: rank 0's agent and launch */
	/* hosts holds the list this many times (mesh --pattern: a connection
	 * per test a host starts at once); each agent is said once. 0: 1. */
	uint32_t lanes;
	int spmd_exit; /* prepare returned 1: the task's exit status */
};

/* Units, the host list and the token. Without hosts (spec NULL): when this
 * process is one task of a launch (srun, mpirun), every task's agent
 * (cmd/launch.h) and the job's token, or on ranks other than 0, serve and
 * return 1 with spmd_exit set (the caller exits with it); else
 * $SLURM_JOB_NODELIST. --task-bind and --task-rdma-dev are usage errors
 * outside a launch. */
int ix_coord_cmd_prepare(struct ix_coord_cmd *c, const char *name, const struct ix_coord_opts *k,
			 const char *spec, struct ix_err *err);
/* The output and the agents; which failed to join and which run without a
 * token is said on stderr. Launched tasks that never published an agent
 * are failed hosts, named by rank and node. */
int ix_coord_cmd_connect(struct ix_coord_cmd *c, const struct ix_coord_opts *k, struct ix_err *err);
/* Write the JSON document (result stolen) and commit the output. */
int ix_coord_cmd_json(struct ix_coord_cmd *c, const struct ix_env *env, json_t *result,
		      const char *error, struct ix_err *err);
/* The same for a result with lazy values (ix_json_mesh_lazy). */
int ix_coord_cmd_json_lazy(struct ix_coord_cmd *c, const struct ix_env *env, json_t *result,
			   const struct ix_json_lazy *lazy, size_t n, const char *error,
			   struct ix_err *err);
int ix_coord_cmd_commit(struct ix_coord_cmd *c, struct ix_err *err);
void ix_coord_cmd_free(struct ix_coord_cmd *c);

/* ixperf run: the inventory of every agent its checks ran over, as the
 * run's "fleet" object: the hosts the checks name (their "hosts" members;
 * tasks' agents, "rN@...", left out) through sessions of their own with
 * token (those of the host list local, the run's own agents, with
 * local_token), and every task of a job through co and tasks (NULL: no
 * job). Call it while the agents still run. */
json_t *ix_run_fleet(json_t *checks, const struct ix_token *token, const char *local,
		     const struct ix_token *local_token, struct ix_coord *co,
		     const struct ix_hostlist *tasks);

#endif
