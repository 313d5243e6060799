/* ixperf help [CMD]: the same text as 'ixperf CMD --help'; and what to
 * say of a command or an option typed wrong: the nearest name, or the
 * ixperf spelling of a flag of iperf3 or perftest. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/gpu/bench.h"
#include "report/fmt/suggest.h"

void ix_help_unknown_cmd(const char *word, char *buf, size_t len)
{
	const char *names[64], *hint = ix_help_foreign(word), *near;
	const struct ix_command *all;
	size_t n, k = 0;

	buf[0] = '\0';
	if (hint) {
		snprintf(buf, len, " (%s)", hint);
		return;
	}
	all = ix_commands(&n);
	for (size_t i = 0; i < n && k < sizeof(names) / sizeof(names[0]); i++)
		names[k++] = all[i].name;
	if ((near = ix_suggest(word, names, k)))
		snprintf(buf, len, "; did you mean '%s'?", near);
}

struct help_opts {
	bool help;
	bool list_opts;
	bool list_values;
};

#define UNITS "bits bytes bit Kbit Mbit Gbit Tbit B KB MB GB TB KiB MiB GiB TiB"
#define OPS   "write read send write_imm"
#define POSTS "webhook chat pushgateway html textfile"

/* The words an option takes, for completion: command NULL for every
 * command that has the option. tests/cli/completion.sh checks each row
 * against the command table and the completion against these. */
static const struct {
	const char *cmd, *opt, *values;
} option_values[] = {
	{ "bw", "path", "tcp udp rdma pcie" },
	{ "lat", "path", "tcp udp rdma" },
	{ "mesh", "path", "tcp udp rdma" },
	{ "incast", "path", "tcp udp rdma" },
	{ "gpu", "path", "pcie" },
	{ NULL, "op", OPS },
	{ NULL, "units", UNITS },
	{ NULL, "post-format", POSTS },
	{ "post", "format", POSTS },
	{ "report", "format", "text html json csv" },
	{ "mesh", "test", "bw lat both" },
	{ "mesh", "pattern", "all-pairs all-to-all bisection permutation ring" },
	{ "incast", "mode", "stream read" },
	{ NULL, "gid-type", "v2 v1 v2-ipv4 v2-ipv6" },
};

/* ixperf gpu's --test: its groups and every test, from the test table. */
static void gpu_test_values(void)
{
	const char *const *g = ix_gpu_groups();
	const struct ix_gpu_test *t;
	size_t n = ix_gpu_tests(&t);

	fputs("--test", stdout);
	for (; *g; g++)
		printf(" %s", *g);
	for (size_t i = 0; i < n; i++)
		printf(" %s", t[i].name);
	putchar('\n');
}

/* "--NAME WORD WORD..." for each option of spec that takes one of a few words. */
static void list_values(const struct ix_cmd_spec *spec)
{
	for (size_t i = 0; i < spec->nopts; i++)
		if (!strcmp(spec->name, "gpu") && !strcmp(spec->opts[i].long_name, "test"))
			gpu_test_values();
	for (size_t i = 0; i < spec->nopts; i++)
		for (size_t k = 0; k < sizeof(option_values) / sizeof(option_values[0]); k++)
			if ((!option_values[k].cmd || !strcmp(option_values[k].cmd, spec->name)) &&
			    !strcmp(option_values[k].opt, spec->opts[i].long_name)) {
				printf("--%s %s\n", spec->opts[i].long_name,
				       option_values[k].values);
				break;
			}
}

static const struct ix_option help_options[] = {
	{ 0, "list-opts", IX_OPT_FLAG, offsetof(struct help_opts, list_opts), NULL,
	  "list the long options of COMMAND, one per line (shell completion)", 0, 0 },
	{ 0, "list-values", IX_OPT_FLAG, offsetof(struct help_opts, list_values), NULL,
	  "list the options of COMMAND that take one of a few words, with the words", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct help_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_help_spec = {
	.name = "help",
	.usage = "[--list-opts | --list-values] [COMMAND]",
	.summary = "Show help for ixperf or one of its commands",
	.opts = help_options,
	.nopts = IX_OPTS_END(help_options),
};

int cmd_help(int argc, char **argv, const struct ix_env *env)
{
	struct help_opts o = { 0 };
	const struct ix_command *cmd, *all;
	struct ix_err err = { 0 };
	bool help;
	int pos;
	size_t n;

	(void)env;
	if (ix_opts_parse(&ix_help_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("help", &err);
	if (help) {
		ix_opts_help(&ix_help_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos >= argc && (o.list_opts || o.list_values)) {
		fprintf(stderr, "ixperf help: --list-opts and --list-values need a COMMAND\n");
		return IX_EXIT_USAGE;
	}
	if (pos >= argc) {
		all = ix_commands(&n);
		printf("usage: ixperf <command> [<args>]\n\nCommands:\n");
		for (size_t i = 0; i < n; i++)
			printf("  %-8s %s\n", all[i].name, all[i].spec->summary);
		return IX_EXIT_OK;
	}
	if (pos + 1 < argc) {
		fprintf(stderr, "ixperf help: one command at a time\n");
		return IX_EXIT_USAGE;
	}
	cmd = ix_command_find(argv[pos]);
	if (!cmd) {
		char why[256];

		ix_help_unknown_cmd(argv[pos], why, sizeof(why));
		fprintf(stderr, "ixperf help: '%s' is not a command%s\n", argv[pos], why);
		return IX_EXIT_USAGE;
	}
	if (o.list_opts)
		ix_opts_list(cmd->spec, stdout);
	else if (o.list_values)
		list_values(cmd->spec);
	else
		ix_opts_help(cmd->spec, stdout);
	return IX_EXIT_OK;
}
