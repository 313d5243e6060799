/* ixperf help [CMD]: the same text as 'ixperf CMD --help'. */
#include "config.h"

#include <stdio.h>

#include "cmd/cmd.h"

struct help_opts {
	bool help;
	bool list_opts;
};

static const struct ix_option help_options[] = {
	{ 0, "list-opts", IX_OPT_FLAG, offsetof(struct help_opts, list_opts), NULL,
	  "list the long options of COMMAND, one per line (shell completion)", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct help_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_help_spec = {
	.name = "help",
	.usage = "[--list-opts] [COMMAND]",
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
	if (pos >= argc && o.list_opts) {
		fprintf(stderr, "ixperf help: --list-opts needs a COMMAND\n");
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
		fprintf(stderr, "ixperf help: '%s' is not a command\n", argv[pos]);
		return IX_EXIT_USAGE;
	}
	if (o.list_opts)
		ix_opts_list(cmd->spec, stdout);
	else
		ix_opts_help(cmd->spec, stdout);
	return IX_EXIT_OK;
}
