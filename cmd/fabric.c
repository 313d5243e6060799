/* ixperf fabric [-- COMMAND...]: the InfiniBand subnet, its cables and
 * their counters, read once, or twice around an interval or a command. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "probes/ibfab/ibfab.h"
#include "report/doc/figures.h"
#include "report/json/json.h"
#include "report/json/read.h"
#include "report/text/text.h"

#define MAD_TIMEOUT_MS 200

struct fabric_opts {
	const char *ca;
	uint64_t ca_port;
	double interval_s;
	const char *baseline;
	bool check;
	bool json;
	const char *output;
	bool help;
};

static const struct ix_option fabric_options[] = {
	{ 0, "ca", IX_OPT_STRING, offsetof(struct fabric_opts, ca), "NAME",
	  "local adapter to reach the subnet through (default: the first active one)", 0, 0 },
	{ 0, "ca-port", IX_OPT_UINT, offsetof(struct fabric_opts, ca_port), "N",
	  "its port (default: the first active one)", 0, 255 },
	{ 0, "interval", IX_OPT_SECONDS, offsetof(struct fabric_opts, interval_s), "SECONDS",
	  "read the subnet again after this long and judge what moved", 0, 86400 },
	{ 0, "baseline", IX_OPT_STRING, offsetof(struct fabric_opts, baseline), "FILE",
	  "a saved 'ixperf fabric --json' document: its nodes and cables that are gone are "
	  "findings",
	  0, 0 },
	{ 0, "check", IX_OPT_FLAG, offsetof(struct fabric_opts, check), NULL,
	  "exit 4 when there are findings", 0, 0 },
	{ 'J', "json", IX_OPT_FLAG, offsetof(struct fabric_opts, json), NULL,
	  "one JSON document on stdout (diagnostics on stderr)", 0, 0 },
	{ 'o', "output", IX_OPT_STRING, offsetof(struct fabric_opts, output), "FILE",
	  "write the report to FILE atomically instead of stdout", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct fabric_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_fabric_spec = {
	.name = "fabric",
	.usage = "[OPTIONS] [-- COMMAND [ARG...]]",
	.summary =
		"The InfiniBand subnet: every switch, adapter and cable, their counters, findings",
	.opts = fabric_options,
	.nopts = IX_OPTS_END(fabric_options),
	.epilog =
		"Discovers the subnet through libibnetdisc (as ibnetdiscover) and reads the PMA\n"
		"counters of every cabled port through libibmad (as perfquery). With --interval "
		"or\n"
		"a COMMAND after --, reads everything again after it and judges what moved.\n"
		"Findings: a cable trained narrower or slower than its ends can, a cabled port\n"
		"not Active, error counters that moved, counters that cannot be read, and nodes\n"
		"or cables of the first read (or of --baseline) that are gone.\n"
		"Exit status: 0 read (no findings, or without --check), 4 findings with --check,\n"
		"1 no subnet answered, 2 a bad command line, 3 built without libibnetdisc.\n"
		"Examples:\n"
		"  ixperf fabric --json -o fabric-baseline.json\n"
		"  ixperf fabric --check --baseline fabric-baseline.json --interval 60\n"
		"  ixperf fabric --check -- ixperf mesh --path rdma 'node[01-16]'\n",
};

/* Run argv between the reads; its exit status, or -1 with err. */
static int run_between(char **argv, struct ix_err *err)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot start %s: %s", argv[0], strerror(errno));
	if (pid == 0) {
		/* its output is its own: keep ours (a JSON document) clean */
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "ixperf fabric: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return ix_fail(err, IX_EXIT_FAIL, "lost %s: %s", argv[0], strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One read: the subnet and its counters into slot. */
static int read_subnet(const struct fabric_opts *o, struct ix_ibfab *f, int slot,
		       struct ix_err *err)
{
	if (ix_ibfab_discover(f, o->ca, (int)o->ca_port, err) < 0)
		return -1;
	return ix_ibfab_read_counters(f, o->ca, (int)o->ca_port, slot, MAD_TIMEOUT_MS, err);
}

static int load_baseline(const char *path, struct ix_ibfab *ref, struct ix_err *err)
{
	json_t *doc = ix_doc_load(path, err), *res;
	const char *cmd;
	int rc;

	if (!doc)
		return -1;
	cmd = json_string_value(json_object_get(doc, "command"));
	res = json_array_get(json_object_get(doc, "results"), 0);
	if (!cmd || strcmp(cmd, "fabric") != 0 || !res) {
		ix_fail(err, IX_EXIT_USAGE,
			"%s: not an 'ixperf fabric --json' document (command %s)", path,
			cmd ? cmd : "missing");
		json_decref(doc);
		return -1;
	}
	rc = ix_json_read_ibfab(res, ref, err);
	json_decref(doc);
	return rc < 0 ? ix_fail_prefix(err, "%s", path) : 0;
}

int cmd_fabric(int argc, char **argv, const struct ix_env *env)
{
	struct fabric_opts o = { 0 };
	struct ix_err err = { 0 };
	struct ix_ibfab first, now, ref;
	struct ix_ibfab_findings fs = { 0 };
	char between[160] = "";
	struct ix_sink sink;
	int pos, reads = 1, rc = IX_EXIT_OK;
	bool help, have_ref = false, partial = false;

	ix_ibfab_init(&first);
	ix_ibfab_init(&now);
	ix_ibfab_init(&ref);
	if (ix_opts_parse(&ix_fabric_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("fabric", &err);
	if (help) {
		ix_opts_help(&ix_fabric_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos < argc && strcmp(argv[pos - 1], "--") != 0) {
		ix_fail(&err, IX_EXIT_USAGE, "unexpected '%s': a command to run goes after --",
			argv[pos]);
		return ix_report_error("fabric", &err);
	}
	if (pos < argc && o.interval_s > 0) {
		ix_fail(&err, IX_EXIT_USAGE,
			"--interval and a command exclude each other: the second read follows one");
		return ix_report_error("fabric", &err);
	}
	if (o.baseline) {
		if (load_baseline(o.baseline, &ref, &err) < 0)
			return ix_report_error("fabric", &err);
		have_ref = true;
	}
	if (ix_sink_open(&sink, o.output, &err) < 0)
		goto fail;
	if (read_subnet(&o, &first, 0, &err) < 0)
		goto fail_sink;
	if (pos < argc || o.interval_s > 0) {
		if (pos < argc) {
			int st = run_between(&argv[pos], &err);

			if (st < 0)
				goto fail_sink;
			snprintf(between, sizeof(between), "around %.100s (exit %d)", argv[pos],
				 st);
		} else {
			struct timespec ts = {
				(time_t)o.interval_s,
				(long)((o.interval_s - (double)(time_t)o.interval_s) * 1e9)
			};

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
			snprintf(between, sizeof(between), "over %.1f s", o.interval_s);
		}
		if (read_subnet(&o, &now, 1, &err) < 0) {
			/* the first read stands, marked incomplete */
			ix_ibfab_free(&now);
			now = first;
			ix_ibfab_init(&first);
			partial = true;
		} else {
			ix_ibfab_take_first(&now, &first);
			reads = 2;
		}
	} else {
		now = first;
		ix_ibfab_init(&first);
	}
	if (ix_ibfab_check(&now, have_ref ? &ref : (reads > 1 ? &first : NULL), &fs, &err) < 0)
		goto fail_sink;
	if (o.json) {
		json_t *res = ix_json_ibfab(&now, &fs, reads), *arr = json_array();

		json_object_set_new(res, "between",
				    between[0] ? json_string(between) : json_null());
		json_object_set_new(res, "complete", json_boolean(!partial));
		json_array_append_new(arr, res);
		ix_sink_put_json(&sink, ix_json_document("fabric", env->argc, env->argv, arr,
							 partial ? err.msg : NULL));
	} else {
		ix_text_ibfab(sink.f, &now, &fs, reads, between);
		if (partial)
			ix_text_why(sink.f, "INCOMPLETE: the second read failed", err.msg);
	}
	if (o.check && fs.n)
		rc = IX_EXIT_THRESHOLD;
	if (partial)
		rc = ix_report_error("fabric", &err);
	if (ix_sink_commit(&sink, &err) < 0)
		rc = ix_report_error("fabric", &err);
	goto out;
fail_sink:
	rc = ix_report_error("fabric", &err);
	if (o.json) {
		/* a document that says what failed, as every command's -J */
		struct ix_err cerr = { 0 };

		ix_sink_put_json(&sink, ix_json_document("fabric", env->argc, env->argv,
							 json_array(), err.msg));
		if (ix_sink_commit(&sink, &cerr) < 0)
			ix_report_error("fabric", &cerr);
	} else if (sink.path) {
		fclose(sink.f);
		free(sink.buf);
	}
	goto out;
fail:
	rc = ix_report_error("fabric", &err);
out:
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&first);
	ix_ibfab_free(&now);
	ix_ibfab_free(&ref);
	return rc;
}
