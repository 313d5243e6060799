/* ixperf fabric [-- COMMAND...]: the InfiniBand subnet, its cables and
 * their counters, read once, or twice around an interval or a command. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "probes/ibfab/ibfab.h"
#include "report/doc/figures.h"
#include "report/json/json.h"
#include "report/json/read.h"
#include "report/model/fabric.h"
#include "report/model/ibblame.h"
#include "report/text/text.h"

#define MAD_TIMEOUT_MS 200

struct fabric_opts {
	const char *ca;
	uint64_t ca_port;
	double interval_s;
	const char *baseline;
	const char *mesh;
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
	{ 0, "mesh", IX_OPT_STRING, offsetof(struct fabric_opts, mesh), "FILE",
	  "an 'ixperf mesh --json' document (read after the COMMAND, which may write it): its "
	  "bad pairs followed through the switches' forwarding tables to the cable to blame",
	  0, 0 },
	{ 0, "check", IX_OPT_FLAG, offsetof(struct fabric_opts, check), NULL,
	  "exit 4 when there are findings or a cable is blamed", 0, 0 },
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
		"With --mesh, the switches' forwarding tables are read at the first read and each\n"
		"pair of the mesh is followed through them: the cable, uplinks or switch its bad\n"
		"pairs share is blamed, with the counters that moved between the reads.\n"
		"Exit status: 0 read (no findings, or without --check), 4 findings or blame with\n"
		"--check,\n"
		"1 no subnet answered, 2 a bad command line, 3 built without libibnetdisc.\n"
		"Examples:\n"
		"  ixperf fabric --json -o fabric-baseline.json\n"
		"  ixperf fabric --check --baseline fabric-baseline.json --interval 60\n"
		"  ixperf fabric --check -- ixperf mesh --path rdma 'node[01-16]'\n"
		"  ixperf fabric --check --mesh m.json -- ixperf mesh --path rdma -J -o m.json "
		"'node[01-16]'\n",
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

/* A mesh joined with the subnet (--mesh). */
struct mesh_join {
	bool loaded;
	struct ix_mesh_saved m;
	struct ix_ibblame b;
	bool built;
};

/* The first "mesh" result of path, written at or after started (else
 * stale says so: its pairs ran outside the window of the reads). */
static int load_mesh(const char *path, time_t started, struct mesh_join *j, char *stale, size_t len,
		     struct ix_err *err)
{
	json_t *doc = ix_doc_load(path, err), *res = NULL, *v;
	struct stat st;
	size_t i;
	int rc;

	if (!doc)
		return -1;
	json_array_foreach(json_object_get(doc, "results"), i, v)
	{
		const char *kind = json_string_value(json_object_get(v, "kind"));

		if (kind && strcmp(kind, "mesh") == 0) {
			res = v;
			break;
		}
	}
	if (!res) {
		json_decref(doc);
		return ix_fail(err, IX_EXIT_USAGE,
			       "%s: no mesh result in it (an 'ixperf mesh "
			       "--json' document is needed)",
			       path);
	}
	rc = ix_json_read_mesh(res, &j->m, err);
	json_decref(doc);
	if (rc < 0)
		return ix_fail_prefix(err, "%s", path);
	j->loaded = true;
	if (stat(path, &st) == 0 && st.st_mtime < started)
		snprintf(stale, len,
			 "the mesh document is older than the first read: its pairs did not run "
			 "between the reads");
	return 0;
}

/* Each tied host's switch as its neighbour where its link has none, so
 * that the mesh's fabric groups hosts under their InfiniBand switches. */
static void place_hosts(struct mesh_join *j, const struct ix_ibfab *routes)
{
	struct ix_mesh_result *r = &j->m.r;
	struct ix_neighbor *nb = calloc(r->n ? r->n : 1, sizeof(*nb));

	if (!nb || !r->nodes) {
		free(nb);
		return;
	}
	ix_ibblame_neighbors(&j->b, routes, nb);
	for (uint32_t i = 0; i < r->n; i++) {
		struct ix_link_limit *l = &r->nodes[i].link;
		const struct ix_ibb_tie *t = &j->b.ties[i];

		if (!nb[i].source[0] || l->neighbor.source[0])
			continue;
		l->neighbor = nb[i];
		if (!l->iface[0]) { /* the adapter port is the link the mesh used */
			snprintf(l->iface, sizeof(l->iface), "%.48s port %u",
				 routes->nodes[t->node].desc, t->port);
			snprintf(l->source, sizeof(l->source), "unknown");
		}
	}
	free(nb);
}

static int join_mesh(const struct fabric_opts *o, time_t started, const struct ix_ibfab *routes,
		     const struct ix_ibfab *ctrs, const char *no_ctrs,
		     const struct ix_ibfab *judged, const struct ix_ibfab_findings *fs,
		     struct mesh_join *j, struct ix_err *err)
{
	char stale[160] = "";
	struct ix_ibblame_input in = { .mesh = &j->m.r,
				       .routes = routes,
				       .ctrs = stale[0] ? NULL : ctrs,
				       .why_no_counters = stale[0] ? stale : no_ctrs,
				       .judged = judged,
				       .findings = fs };

	if (load_mesh(o->mesh, started, j, stale, sizeof(stale), err) < 0)
		return -1;
	in.ctrs = stale[0] ? NULL : ctrs;
	in.why_no_counters = stale[0] ? stale : no_ctrs;
	if (ix_ibblame_build(&in, &j->b, err) < 0)
		return -1;
	j->built = true;
	place_hosts(j, routes);
	return 0;
}

static void put_text(FILE *f, const struct fabric_opts *o, const struct mesh_join *j)
{
	struct ix_unit_choice u = { 0 };
	struct ix_fabric fab;

	ix_text_ibblame(f, &j->b, &j->m.r, o->mesh);
	if (ix_fabric_of_mesh(&j->m.r, &fab) < 0)
		return;
	if (ix_fabric_worth_drawing(&fab))
		ix_text_fabric(f, &fab, j->m.r.hosts, &u);
	ix_fabric_free(&fab);
}

int cmd_fabric(int argc, char **argv, const struct ix_env *env)
{
	struct fabric_opts o = { 0 };
	struct ix_err err = { 0 }, jerr = { 0 };
	struct ix_ibfab first, now, ref;
	struct ix_ibfab_findings fs = { 0 };
	struct mesh_join mj = { 0 };
	char between[160] = "";
	struct ix_sink sink;
	int pos, reads = 1, rc = IX_EXIT_OK;
	bool help, have_ref = false, partial = false, join_failed = false;
	time_t started = time(NULL);

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
	if (o.mesh && pos >= argc && access(o.mesh, R_OK) < 0) {
		ix_fail(&err, IX_EXIT_USAGE,
			"--mesh %s: %s (without a command, the document must "
			"exist)",
			o.mesh, strerror(errno));
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
	if (o.mesh && ix_ibfab_read_routes(&first, o.ca, (int)o.ca_port, MAD_TIMEOUT_MS, &err) < 0)
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
	/* the routes of the first read: those the mesh's pairs took */
	if (o.mesh &&
	    join_mesh(&o, started, first.n ? &first : &now, reads > 1 ? &now : NULL,
		      partial      ? "the second read failed"
		      : reads == 1 ? "the subnet was read once (give a COMMAND or --interval)"
				   : NULL,
		      &now, &fs, &mj, &jerr) < 0)
		join_failed = true;
	if (o.json) {
		json_t *res = ix_json_ibfab(&now, &fs, reads), *arr = json_array();

		json_object_set_new(res, "between",
				    between[0] ? json_string(between) : json_null());
		json_object_set_new(res, "complete", json_boolean(!partial && !join_failed));
		if (mj.built) {
			json_t *b = ix_json_ibblame(&mj.b, &mj.m.r, first.n ? &first : &now);

			json_object_set_new(b, "mesh", json_string(o.mesh));
			json_object_set_new(res, "blame", b);
		} else if (o.mesh) {
			json_object_set_new(res, "blame", json_null());
		}
		json_array_append_new(arr, res);
		if (mj.built)
			json_array_append_new(arr, ix_json_mesh(&mj.m.r));
		ix_sink_put_json(&sink, ix_json_document("fabric", env->argc, env->argv, arr,
							 partial       ? err.msg
							 : join_failed ? jerr.msg
								       : NULL));
	} else {
		ix_text_ibfab(sink.f, &now, &fs, reads, between);
		if (mj.built)
			put_text(sink.f, &o, &mj);
		if (partial)
			ix_text_why(sink.f, "INCOMPLETE: the second read failed", err.msg);
		if (join_failed)
			ix_text_why(sink.f, "INCOMPLETE: the mesh was not joined", jerr.msg);
	}
	if (o.check && (fs.n || (mj.built && mj.b.n)))
		rc = IX_EXIT_THRESHOLD;
	if (join_failed)
		rc = ix_report_error("fabric", &jerr);
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
	if (mj.built)
		ix_ibblame_free(&mj.b);
	if (mj.loaded)
		ix_mesh_saved_free(&mj.m);
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&first);
	ix_ibfab_free(&now);
	ix_ibfab_free(&ref);
	return rc;
}
