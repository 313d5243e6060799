/* ixperf topo: the machine as the fabric sees it, and what is wrong with it. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/host/topo_check.h"
#include "report/json/json.h"
#include "report/text/text.h"

struct topo_opts {
	const char *sysfs;
	bool json;
	const char *output;
	bool check;
	bool help;
};

static const struct ix_option topo_options[] = {
	{ 0, "sysfs", IX_OPT_STRING, offsetof(struct topo_opts, sysfs), "ROOT",
	  "read ROOT/sys instead of /sys (a saved tree, test fixtures)", 0, 0 },
	{ 'J', "json", IX_OPT_FLAG, offsetof(struct topo_opts, json), NULL,
	  "one JSON document on stdout (diagnostics on stderr)", 0, 0 },
	{ 'o', "output", IX_OPT_STRING, offsetof(struct topo_opts, output), "FILE",
	  "write the report to FILE atomically instead of stdout", 0, 0 },
	{ 0, "check", IX_OPT_FLAG, offsetof(struct topo_opts, check), NULL,
	  "exit 4 when anything is flagged (for cron jobs and acceptance)", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct topo_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_topo_spec = {
	.name = "topo",
	.usage = "[OPTIONS]",
	.summary = "Discover PCIe, NUMA, NICs, GPUs, RDMA ports and CXL; flag degraded links",
	.opts = topo_options,
	.nopts = IX_OPTS_END(topo_options),
	.epilog = "Flags links trained below what both ends support, RDMA ports not\n"
		  "ACTIVE/LinkUp, RoCE MTUs below 4200 or unequal, RDMA NICs whose nearest GPU\n"
		  "is on another NUMA node, and PCIe AER errors, one sentence each.\n"
		  "Paths between GPUs and NICs are named as nvidia-smi topo -m names them:\n"
		  "X, PIX, PXB, PHB, NODE, SYS.\n"
		  "Exit status: 0 (also with findings, unless --check), 4 with --check when\n"
		  "anything is flagged, 1 when the PCI bus cannot be read, 2 a bad command line.\n"
		  "Examples:\n"
		  "  ixperf topo\n"
		  "  ixperf topo --check || mail -s \"$(hostname): topology\" ops < /dev/null\n"
		  "  ixperf topo --json | jq '.results[0].paths'\n",
};

int cmd_topo(int argc, char **argv, const struct ix_env *env)
{
	struct topo_opts o = { 0 };
	struct ix_err err = { 0 };
	struct ix_topo t;
	struct ix_sink sink;
	bool help;
	int pos, rc;

	if (ix_opts_parse(&ix_topo_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("topo", &err);
	if (help) {
		ix_opts_help(&ix_topo_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos < argc) {
		ix_fail(&err, IX_EXIT_USAGE, "unexpected argument '%s'", argv[pos]);
		return ix_report_error("topo", &err);
	}
	if (ix_topo_read(o.sysfs ? o.sysfs : "", &t, &err) < 0) {
		if (err.code == IX_EXIT_UNAVAILABLE)
			err.code = IX_EXIT_FAIL;
		return ix_report_error_json("topo", o.json, o.output, env, &err);
	}
	if (ix_sink_open(&sink, o.output, &err) < 0) {
		ix_topo_free(&t);
		return ix_report_error("topo", &err);
	}
	if (o.json)
		ix_sink_put_json(&sink, ix_json_document("topo", env->argc, env->argv,
							 json_pack("[o]", ix_json_topo(&t)), NULL));
	else
		ix_text_topo(sink.f, &t);
	rc = o.check && t.nfindings ? IX_EXIT_THRESHOLD : IX_EXIT_OK;
	ix_topo_free(&t);
	if (ix_sink_commit(&sink, &err) < 0)
		return ix_report_error("topo", &err);
	return rc;
}
