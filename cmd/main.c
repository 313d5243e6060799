/* ixperf: one binary, one command table. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "probes/rdma/engine.h"

static const struct ix_command commands[] = {
	{ "bw", cmd_bw, &ix_bw_spec, IX_CMD_NETWORK },
	{ "lat", cmd_lat, &ix_lat_spec, IX_CMD_NETWORK },
	{ "server", cmd_server, &ix_server_spec, IX_CMD_NETWORK },
	{ "mesh", cmd_mesh, &ix_mesh_spec, IX_CMD_NETWORK },
	{ "incast", cmd_incast, &ix_incast_spec, IX_CMD_NETWORK },
	{ "ecmp", cmd_ecmp, &ix_ecmp_spec, IX_CMD_NETWORK },
	{ "run", cmd_run, &ix_run_spec, IX_CMD_NETWORK },
	{ "report", cmd_report, &ix_report_spec, 0 },
	{ "compare", cmd_compare, &ix_compare_spec, 0 },
	{ "post", cmd_post, &ix_post_spec, IX_CMD_NETWORK },
	{ "top", cmd_top, &ix_top_spec, 0 },
	{ "topo", cmd_topo, &ix_topo_spec, 0 },
	{ "wire", cmd_wire, &ix_wire_spec, 0 },
	{ "fabric", cmd_fabric, &ix_fabric_spec, 0 },
	{ "gpu", cmd_gpu, &ix_gpu_spec, 0 },
	{ "coll", cmd_coll, &ix_coll_spec, 0 },
	{ "mem", cmd_mem, &ix_mem_spec, 0 },
	{ "help", cmd_help, &ix_help_spec, 0 },
};

const struct ix_command *ix_commands(size_t *n)
{
	*n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

const struct ix_command *ix_command_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ixperf [--version] [--list-cmds] [--help] <command> [<args>]\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].spec->summary);
	fprintf(f, "\n'ixperf help <command>' or 'ixperf <command> --help' shows a command's "
		   "options.\n"
		   "Exit codes: 0 success, 1 runtime failure, 2 usage error, 3 path unavailable,\n"
		   "4 threshold failed, 5 passed but a --post target did not take the result.\n");
}

/* A full disk under "ixperf ... > out.json" must not pass silently. */
static int check_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE)
			return IX_EXIT_FAIL; /* the reader left: nothing to say */
		fprintf(stderr, "ixperf: write error on standard output: %s\n", strerror(errno));
		return IX_EXIT_FAIL;
	}
	if (fclose(stdout) != 0 && errno != EBADF) {
		fprintf(stderr, "ixperf: close failed on standard output: %s\n", strerror(errno));
		return IX_EXIT_FAIL;
	}
	return rc;
}

/* The optional parts this binary has (configure's --with-X). */
static const char built_with[] = ""
#ifdef HAVE_IBVERBS
				 " ibverbs"
#endif
#ifdef HAVE_PCAP
				 " pcap"
#endif
#ifdef HAVE_NCURSES
				 " ncurses"
#endif
#ifdef HAVE_CURL
				 " curl"
#endif
#ifdef HAVE_PMIX
				 " pmix"
#endif
#ifdef HAVE_LLDPCTL
				 " lldpctl"
#endif
	;

int main(int argc, char **argv)
{
	const struct ix_command *cmd;
	struct ix_env env = { argc, argv };
	const char *rdma_timeout = getenv("IXPERF_RDMA_TIMEOUT");

	if (argc < 2) {
		usage(stderr);
		return IX_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("ixperf %s\nbuilt with:%s\n", PACKAGE_VERSION, built_with);
		return check_stdout(IX_EXIT_OK);
	}
	if (strcmp(argv[1], "--list-cmds") == 0) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			printf("%s\n", commands[i].name);
		return check_stdout(IX_EXIT_OK);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return check_stdout(IX_EXIT_OK);
	}
	cmd = ix_command_find(argv[1]);
	if (!cmd) {
		char why[256];

		ix_help_unknown_cmd(argv[1], why, sizeof(why));
		fprintf(stderr, "ixperf: '%s' is not a command%s\n", argv[1],
			why[0] ? why : "; see 'ixperf --help'");
		return IX_EXIT_USAGE;
	}
	if (cmd->flags & IX_CMD_NETWORK)
		signal(SIGPIPE, SIG_IGN);
	/* Set and not empty: an RDMA test's stall bound (empty: the default). */
	if (rdma_timeout && *rdma_timeout) {
		struct ix_err err = { 0 };
		int64_t ns;

		if (ix_env_rdma_timeout(rdma_timeout, &ns, &err) < 0)
			return ix_report_error(argv[1], &err);
		ix_rdma_set_stall_timeout_ns(ns);
	}
	return check_stdout(cmd->fn(argc - 1, argv + 1, &env));
}
