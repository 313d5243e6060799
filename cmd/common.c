#include "config.h"

#include <errno.h>
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/common.h"
#include "cmd/launch.h"
#include "probes/capture/capture.h"
#include "probes/cluster/coord.h"
#include "probes/cluster/fleet.h"
#include "probes/ctl/auth.h"
#include "probes/ctl/client.h"
#include "probes/net/net.h"
#include "report/fmt/output.h"
#include "report/fmt/safe.h"
#include "report/fmt/suggest.h"
#include "report/json/json.h"

static int store(const struct ix_option *o, const char *arg, void *dst, struct ix_err *err)
{
	char *field = (char *)dst + o->offset;
	uint64_t u;
	double d;
	int rc = 0;

	switch (o->type) {
	case IX_OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case IX_OPT_STRING:
		if (!*arg)
			return ix_fail(err, IX_EXIT_USAGE, "empty value");
		*(const char **)field = arg;
		return 0;
	case IX_OPT_LIST: {
		struct ix_opt_list *l = (struct ix_opt_list *)field;

		if (!*arg)
			return ix_fail(err, IX_EXIT_USAGE, "empty value");
		if (l->n >= IX_OPT_LIST_MAX)
			return ix_fail(err, IX_EXIT_USAGE, "given more than %d times",
				       IX_OPT_LIST_MAX);
		l->v[l->n++] = arg;
		return 0;
	}
	case IX_OPT_UINT:
		rc = ix_parse_uint(arg, 0, UINT64_MAX, &u, err);
		break;
	case IX_OPT_SIZE:
		rc = ix_parse_size(arg, &u, err);
		break;
	case IX_OPT_RATE:
		rc = ix_parse_rate(arg, &u, err);
		break;
	case IX_OPT_SECONDS:
	case IX_OPT_NUMBER: {
		const char *unit = o->type == IX_OPT_SECONDS ? " s" : "";
		char *end;

		if (o->type == IX_OPT_SECONDS) {
			if (ix_parse_seconds(arg, &d, err) < 0)
				return -1;
		} else {
			d = strtod(arg, &end);
			if (end == arg || *end || !isfinite(d) || arg[0] == '-' || arg[0] == '+' ||
			    isspace((unsigned char)arg[0]))
				return ix_fail(err, IX_EXIT_USAGE, "'%s' is not a number", arg);
		}
		if (d < o->min || (o->max > 0 && d > o->max))
			return ix_fail(err, IX_EXIT_USAGE, "'%s' is out of range [%g%s, %g%s]", arg,
				       o->min, unit, o->max, unit);
		*(double *)field = d;
		return 0;
	}
	}
	if (rc < 0)
		return -1;
	if ((double)u < o->min)
		return ix_fail(err, IX_EXIT_USAGE, "'%s' must be at least %.0f", arg, o->min);
	if (o->max > 0 && (double)u > o->max)
		return ix_fail(err, IX_EXIT_USAGE, "'%s' must be at most %.0f", arg, o->max);
	*(uint64_t *)field = u;
	return 0;
}

/* Flags of the tools users come from that ixperf spells otherwise. A row
 * only speaks where the command does not take the flag itself (bw takes
 * iperf3's -P, -R and -b with their meaning). */
static const struct {
	const char *flag, *hint;
} foreign[] = {
	{ "-c", "iperf3's -c HOST: ixperf takes the host as an argument, 'ixperf bw HOST'" },
	{ "-s", "iperf3's -s: to start an agent: ixperf server" },
	{ "-u", "iperf3's -u is --path udp here" },
	{ "-P", "iperf3's -P N is 'ixperf bw -P N' or 'ixperf mesh -P N'" },
	{ "-R", "iperf3's -R is 'ixperf bw -R', the server sending" },
	{ "-b", "iperf3's -b RATE is 'ixperf bw -b RATE' or 'ixperf incast -b RATE'" },
	{ "-d", "perftest's -d DEV is --ib-dev DEV, with --path rdma" },
	{ "-x", "perftest's -x N is --gid-index N, with --path rdma" },
	{ "-q", "perftest's -q N is --qps N, with --path rdma" },
	{ "-D", "perftest's -D SECONDS is -t SECONDS here" },
	{ "-F", "perftest's -F: ixperf has no CPU frequency warning to silence; leave it out" },
	{ "--report_gbits", "perftest's --report_gbits: ixperf reports bit/s already, scaled; "
			    "--units Gbit fixes the unit" },
	{ "--server", "to start an agent: ixperf server" },
	{ "--client", "iperf3's --client HOST: ixperf takes the host as an argument, 'ixperf bw "
		      "HOST'" },
	{ "--udp", "iperf3's --udp is --path udp here" },
};

const char *ix_help_foreign(const char *flag)
{
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++)
		if (strcmp(flag, foreign[i].flag) == 0)
			return foreign[i].hint;
	return NULL;
}

void ix_help_unknown_opt(const struct ix_cmd_spec *spec, const char *arg, char *buf, size_t len)
{
	const char *names[128], *hint, *near;
	char word[IX_SUGGEST_MAX + 1];
	size_t n = 0, w = strcspn(arg, "=");

	snprintf(word, sizeof(word), "%.*s", (int)w, arg);
	buf[0] = '\0';
	if ((hint = ix_help_foreign(word))) {
		snprintf(buf, len, " (%s)", hint);
		return;
	}
	if (strncmp(word, "--", 2) != 0)
		return;
	for (size_t i = 0; i < spec->nopts && n < sizeof(names) / sizeof(names[0]); i++)
		names[n++] = spec->opts[i].long_name;
	if ((near = ix_suggest(word + 2, names, n)))
		snprintf(buf, len, "; did you mean '--%s'?", near);
}

static const char *opt_label(const struct ix_option *o, char *buf, size_t len)
{
	if (o->short_name)
		snprintf(buf, len, "-%c/--%s", o->short_name, o->long_name);
	else
		snprintf(buf, len, "--%s", o->long_name);
	return buf;
}

int ix_opts_parse(const struct ix_cmd_spec *spec, int argc, char **argv, void *dst, int *first_pos,
		  bool *help, struct ix_err *err)
{
	struct option *lo = calloc(spec->nopts + 1, sizeof(*lo));
	char shorts[2 + 3 * 64] = ":";
	size_t sl = 1;
	int c, idx, rc = 0;

	*help = false;
	if (!lo)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (size_t i = 0; i < spec->nopts; i++) {
		const struct ix_option *o = &spec->opts[i];
		lo[i].name = o->long_name;
		lo[i].has_arg = o->type == IX_OPT_FLAG ? no_argument : required_argument;
		lo[i].val = 256 + (int)i;
		if (o->short_name && sl + 3 < sizeof(shorts)) {
			shorts[sl++] = (char)o->short_name;
			if (o->type != IX_OPT_FLAG)
				shorts[sl++] = ':';
		}
	}
	shorts[sl] = '\0';
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
		const struct ix_option *o = NULL;
		char label[64];

		if (c == '?') {
			char flag[3] = { '-', (char)optopt, '\0' }, why[256];

			ix_help_unknown_opt(spec, optopt ? flag : argv[optind - 1], why,
					    sizeof(why));
			if (optopt >= 256)
				rc = ix_fail(err, IX_EXIT_USAGE, "option '--%s' takes no value",
					     spec->opts[optopt - 256].long_name);
			else if (optopt)
				rc = ix_fail(err, IX_EXIT_USAGE, "unknown option '-%c'%s", optopt,
					     why);
			else
				rc = ix_fail(err, IX_EXIT_USAGE, "unknown option '%s'%s",
					     argv[optind - 1], why);
			break;
		}
		if (c == ':') {
			const char *hint = ix_help_foreign(argv[optind - 1]);

			rc = ix_fail(err, IX_EXIT_USAGE, "option '%s' needs a value%s%s%s",
				     argv[optind - 1], hint ? " (" : "", hint ? hint : "",
				     hint ? ")" : "");
			break;
		}
		if (c >= 256)
			o = &spec->opts[c - 256];
		else
			for (size_t i = 0; i < spec->nopts && !o; i++)
				if (spec->opts[i].short_name == c)
					o = &spec->opts[i];
		if (!o)
			continue;
		if (strcmp(o->long_name, "help") == 0)
			*help = true;
		if (store(o, optarg, dst, err) < 0) {
			rc = ix_fail_prefix(err, "invalid value for %s",
					    opt_label(o, label, sizeof(label)));
			break;
		}
	}
	*first_pos = optind;
	free(lo);
	return rc;
}

void ix_opts_help(const struct ix_cmd_spec *spec, FILE *f)
{
	bool sizes = false, rates = false;

	fprintf(f, "usage: ixperf %s %s\n\n%s\n\nOptions:\n", spec->name, spec->usage,
		spec->summary);
	for (size_t i = 0; i < spec->nopts; i++) {
		const struct ix_option *o = &spec->opts[i];
		char left[64];

		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->long_name,
				 o->argname ? " " : "", o->argname ? o->argname : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->long_name,
				 o->argname ? " " : "", o->argname ? o->argname : "");
		fprintf(f, "  %-30s %s\n", left, o->help);
		sizes |= o->type == IX_OPT_SIZE;
		rates |= o->type == IX_OPT_RATE;
	}
	if (sizes)
		fprintf(f, "\nBYTES: K, M, G, T (also KB, KiB...) are 1024, 1024^2...; kB is 1000 "
			   "(64K = 65536, 64kB = 64000)\n");
	if (rates)
		fprintf(f,
			"%sRATE: bit/s, prefixes of 1000 (10G = 10^10 bit/s; 25MB = 200 Mbit/s)\n",
			sizes ? "" : "\n");
	if (spec->epilog)
		fprintf(f, "\n%s", spec->epilog);
}

void ix_opts_list(const struct ix_cmd_spec *spec, FILE *f)
{
	for (size_t i = 0; i < spec->nopts; i++)
		fprintf(f, "--%s\n", spec->opts[i].long_name);
}

int ix_sink_open(struct ix_sink *s, const char *path, struct ix_err *err)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	if (!path) {
		s->f = stdout;
		return 0;
	}
	{
		/* Refuse an unwritable destination before measuring, not after. */
		char dir[4096];
		const char *slash = strrchr(path, '/');
		int n = slash ? (int)(slash - path) : 1;

		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : n, slash ? path : ".");
		if (access(dir, W_OK | X_OK) < 0)
			return ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s: %s", path, dir,
				       strerror(errno));
	}
	s->f = open_memstream(&s->buf, &s->len);
	if (!s->f)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	return 0;
}

/* The stashed lazy document, into the temporary file. */
static int write_lazy_doc(FILE *f, void *arg)
{
	const struct ix_sink *s = arg;

	return ix_json_write(f, s->doc, s->lazy, s->nlazy);
}

int ix_sink_commit(struct ix_sink *s, struct ix_err *err)
{
	int rc;

	if (s->doc) {
		/* Written into the file itself, not through the buffer. */
		fclose(s->f);
		free(s->buf);
		s->f = NULL;
		s->buf = NULL;
		rc = ix_output_atomic_stream(s->path, write_lazy_doc, s, err);
		json_decref(s->doc);
		s->doc = NULL;
		return rc;
	}
	if (!s->path)
		return fflush(stdout) == 0 ? 0
					   : ix_fail(err, IX_EXIT_FAIL, "cannot write to stdout");
	fclose(s->f);
	s->f = NULL;
	rc = ix_output_atomic(s->path, s->buf, s->len, err);
	free(s->buf);
	s->buf = NULL;
	return rc;
}

int ix_client_capture_check(const struct ix_client_opts *c, struct ix_err *err)
{
	if (!c->capture && (c->capture_filter || c->pcap))
		return ix_fail(err, IX_EXIT_USAGE,
			       "--capture-filter and --pcap need --capture IFACE");
	return 0;
}

int ix_client_capture_begin(const struct ix_client_opts *c, const char *host,
			    struct ix_capture **cap, struct ix_err *err)
{
	struct ix_capture_opts co = { .iface = c->capture,
				      .filter = c->capture_filter,
				      .pcap_path = c->pcap };

	*cap = NULL;
	return c->capture ? ix_capture_start_hosts(cap, &co, &host, 1, err) : 0;
}

int ix_coord_capture_check(const struct ix_coord_capture *c, struct ix_err *err)
{
	if (!c->iface && (c->filter || c->pcap))
		return ix_fail(err, IX_EXIT_USAGE,
			       "--capture-filter and --pcap need --capture IFACE");
	return 0;
}

int ix_coord_capture_begin(const struct ix_coord_capture *c, const struct ix_hostlist *hosts,
			   struct ix_capture **cap, struct ix_err *err)
{
	struct ix_capture_opts co = { .iface = c->iface,
				      .filter = c->filter,
				      .pcap_path = c->pcap };
	const char **names;
	int rc;

	*cap = NULL;
	if (!c->iface)
		return 0;
	names = calloc(hosts->n, sizeof(*names));
	if (!names)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (size_t i = 0; i < hosts->n; i++)
		names[i] = hosts->v[i].name;
	rc = ix_capture_start_hosts(cap, &co, names, hosts->n, err);
	free(names);
	return rc;
}

void ix_client_from_opts(struct ix_client *cl, const struct ix_client_opts *o, const char *host)
{
	memset(cl, 0, sizeof(*cl));
	cl->host = host;
	cl->port = o->port ? (uint16_t)o->port : IX_DEFAULT_PORT;
	cl->bind_addr = o->bind;
	cl->connect_timeout_s = o->connect_timeout_s;
	cl->fd = -1;
}

int ix_token_from_opt(const char *path, struct ix_token *t, struct ix_err *err)
{
	memset(t, 0, sizeof(*t));
	if (!path)
		return 0;
	if (ix_token_load(path, t, err) < 0)
		return ix_fail_prefix(err, "--token-file");
	return 0;
}

void ix_sink_put_json(struct ix_sink *s, json_t *doc)
{
	json_dumpf(doc, s->f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', s->f);
	json_decref(doc);
}

int ix_sink_put_json_lazy(struct ix_sink *s, json_t *doc, const struct ix_json_lazy *lazy, size_t n,
			  struct ix_err *err)
{
	int rc = 0;

	if (n > IX_SINK_MAX_LAZY) {
		json_decref(doc);
		return ix_fail(err, IX_EXIT_FAIL, "too many lazy values in one document");
	}
	if (s->path && !s->doc) {
		s->doc = doc;
		memcpy(s->lazy, lazy, n * sizeof(*lazy));
		s->nlazy = n;
		return 0;
	}
	if (ix_json_write(s->f, doc, lazy, n) < 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "cannot write the JSON document");
	json_decref(doc);
	return rc;
}

int ix_post_cli_parse(const struct ix_post_cli *p, struct ix_post_target *t, size_t *n,
		      struct ix_err *err)
{
	enum ix_post_format dflt = IX_POST_WEBHOOK;

	*n = 0;
	if (!p->to.n && (p->format || p->job || p->pairs))
		return ix_fail(err, IX_EXIT_USAGE,
			       "--post-format, --post-job and --post-pairs need --post");
	if (p->format && ix_post_format_parse(p->format, &dflt, err) < 0)
		return ix_fail_prefix(err, "--post-format");
	for (size_t i = 0; i < p->to.n; i++)
		if (ix_post_target_parse(p->to.v[i], dflt, &t[i], err) < 0)
			return -1;
	*n = p->to.n;
	return 0;
}

struct post_cli_ctx {
	const char *cmd, *history;
	ix_html_fn html;
};

static int post_cli_html(void *arg, json_t *doc, char **html, size_t *len, struct ix_err *err)
{
	const struct post_cli_ctx *x = arg;
	FILE *f = open_memstream(html, len);
	int rc;

	if (!f)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	rc = x->html ? x->html(f, doc, x->history, err)
		     : ix_fail(err, IX_EXIT_FAIL, "no HTML renderer here");
	if (fclose(f) != 0 && rc == 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (rc < 0) {
		free(*html);
		*html = NULL;
	}
	return rc;
}

static void post_cli_done(void *arg, const struct ix_post_target *t, const struct ix_err *err)
{
	const struct post_cli_ctx *x = arg;
	char where[256];

	if (t->format == IX_POST_TEXTFILE)
		snprintf(where, sizeof(where), "%s", t->url);
	else
		ix_post_url_redact(t->url, t->format != IX_POST_CHAT, where, sizeof(where));
	if (err)
		fprintf(stderr, "ixperf %s: posting to %s (%s) failed: %s\n", x->cmd, where,
			ix_post_format_name(t->format), err->msg);
	else
		fprintf(stderr, "ixperf %s: posted to %s (%s)\n", x->cmd, where,
			ix_post_format_name(t->format));
}

size_t ix_post_cli_send(const char *cmd, const struct ix_post_cli *p,
			const struct ix_post_target *t, size_t n, json_t *doc, ix_html_fn html,
			const char *history)
{
	struct ix_post_opts po = { .retries = IX_POST_DEFAULT_RETRIES,
				   .job = p->job,
				   .pairs = p->pairs,
				   .warn = ix_post_warn_stderr,
				   .warn_arg = (void *)cmd };
	struct post_cli_ctx x = { cmd, history, html };
	struct ix_post_each how = { post_cli_html, post_cli_done, &x };
	char *text;
	json_t *as_saved;
	size_t failed;

	if (!n)
		return 0;
	/* The figures as -J writes them (10 digits): every target, and
	 * 'ixperf post' of the saved file, says the same numbers. */
	text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(10));
	as_saved = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	failed = ix_post_targets(&po, t, n, as_saved ? as_saved : doc, &how);
	json_decref(as_saved);
	return failed;
}

int ix_post_exit(int rc, size_t failed)
{
	return rc == IX_EXIT_OK && failed ? IX_EXIT_POST : rc;
}

int ix_report_error(const char *cmd, const struct ix_err *err)
{
	char msg[IX_ERR_MAX];

	/* It may quote a peer: an agent's ERROR, a REPORT's error. */
	ix_text_safe(err->msg, msg, sizeof(msg));
	fprintf(stderr, "ixperf %s: %s\n", cmd, msg);
	return err->code ? err->code : IX_EXIT_FAIL;
}

int ix_report_error_json(const char *cmd, bool json, const char *output, const struct ix_env *env,
			 const struct ix_err *err)
{
	struct ix_sink sink;
	struct ix_err e2 = { 0 };
	int rc = ix_report_error(cmd, err);

	if (!json || ix_sink_open(&sink, output, &e2) < 0)
		return rc;
	ix_sink_put_json(&sink, ix_json_document(cmd, env->argc, env->argv, json_array(),
						 err->msg[0] ? err->msg : "failed"));
	if (ix_sink_commit(&sink, &e2) < 0)
		ix_report_error(cmd, &e2);
	return rc;
}

void ix_post_warn_stderr(void *cmd, enum ix_post_warning w, const char *msg)
{
	static bool plain_http_said;

	if (w == IX_POST_WARN_PLAIN_HTTP) {
		if (plain_http_said)
			return;
		plain_http_said = true;
	}
	fprintf(stderr, "ixperf %s: WARNING: %s\n", (const char *)cmd, msg);
}

int ix_coord_cmd_prepare(struct ix_coord_cmd *c, const char *name, const struct ix_coord_opts *k,
			 const char *spec, struct ix_err *err)
{
	struct ix_token file;
	int rc;

	memset(c, 0, sizeof(*c));
	c->name = name;
	if (ix_parse_units(k->units ? k->units : "bits", &c->units, err) < 0 ||
	    ix_token_from_opt(k->token_file, &file, err) < 0)
		return -1;
	if (!spec) {
		struct ix_spmd_opts so = { .token_file = &file,
					   .bind = k->task_bind,
					   .rdma_dev = k->task_rdma_dev,
					   .startup_s = k->connect_timeout_s,
					   .allow_missing = true };

		c->spmd = calloc(1, sizeof(*c->spmd));
		if (!c->spmd)
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		rc = ix_spmd_start(c->spmd, name, &so, &c->hosts, &c->token, &c->spmd_exit, err);
		if (rc == 1)
			return 0;
		free(c->spmd);
		c->spmd = NULL;
		if (rc != 0)
			return rc == 2 ? 1 : -1;
	}
	if (k->task_bind || k->task_rdma_dev)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--%s is for the tasks of a launch (srun, mpirun, without HOSTS)",
			       k->task_bind ? "task-bind" : "task-rdma-dev");
	c->token = file;
	return ix_hostlist_parse(spec, k->port ? (uint16_t)k->port : IX_DEFAULT_PORT, &c->hosts,
				 err);
}

int ix_coord_cmd_connect(struct ix_coord_cmd *c, const struct ix_coord_opts *k, struct ix_err *err)
{
	uint32_t open = 0;

	if (ix_sink_open(&c->sink, k->output, err) < 0)
		return -1;
	c->sink_open = true;
	/* Launched tasks may still be starting: a refused connect is retried
	 * for the connect timeout (default then the startup bound). */
	double ct = k->connect_timeout_s > 0 ? k->connect_timeout_s
		    : c->spmd                ? IX_SPMD_STARTUP_S
					     : 10;

	ix_coord_open_patient(&c->co, &c->hosts, &c->token, c->spmd ? ct + 10 : ct,
			      c->spmd ? ct : 0, err);
	c->coord_open = true;
	if (c->spmd)
		ix_spmd_fail_missing(c->spmd, &c->co);
	for (uint32_t i = 0; i < c->co.n / (c->lanes ? c->lanes : 1); i++) {
		char name[IX_HOST_NAME_MAX + 16], why[sizeof(c->co.peers[i].error)];

		ix_host_format(&c->co.peers[i].host, name, sizeof(name));
		ix_text_safe(c->co.peers[i].error, why, sizeof(why)); /* the agent's words */
		if (c->co.peers[i].error[0])
			fprintf(stderr, "ixperf %s: %s: %s\n", c->name, name, why);
		else if (c->co.peers[i].unauthenticated)
			open++;
	}
	if (open)
		fprintf(stderr,
			"ixperf %s: WARNING: %u agent(s) run without a token: anyone who can "
			"reach them can make them send traffic\n",
			c->name, open);
	return 0;
}

int ix_coord_cmd_json(struct ix_coord_cmd *c, const struct ix_env *env, json_t *result,
		      const char *error, struct ix_err *err)
{
	json_t *arr = json_array();

	json_array_append_new(arr, result);
	ix_sink_put_json(&c->sink, ix_json_document(c->name, env->argc, env->argv, arr, error));
	return ix_coord_cmd_commit(c, err);
}

int ix_coord_cmd_json_lazy(struct ix_coord_cmd *c, const struct ix_env *env, json_t *result,
			   const struct ix_json_lazy *lazy, size_t n, const char *error,
			   struct ix_err *err)
{
	json_t *arr = json_array();

	json_array_append_new(arr, result);
	if (ix_sink_put_json_lazy(&c->sink,
				  ix_json_document(c->name, env->argc, env->argv, arr, error), lazy,
				  n, err) < 0) {
		struct ix_err ignored = { 0 };

		ix_coord_cmd_commit(c, &ignored);
		return -1;
	}
	return ix_coord_cmd_commit(c, err);
}

int ix_coord_cmd_commit(struct ix_coord_cmd *c, struct ix_err *err)
{
	c->sink_open = false;
	return ix_sink_commit(&c->sink, err);
}

void ix_coord_cmd_free(struct ix_coord_cmd *c)
{
	if (c->coord_open)
		ix_coord_close(&c->co);
	if (c->spmd) {
		/* The coordinator's sessions are closed: the other tasks end. */
		ix_spmd_end(c->spmd);
		free(c->spmd);
	}
	if (c->sink_open && c->sink.path) {
		fclose(c->sink.f);
		free(c->sink.buf);
		json_decref(c->sink.doc);
	}
	ix_hostlist_free(&c->hosts);
	memset(c, 0, sizeof(*c));
}

int ix_env_rdma_timeout(const char *value, int64_t *ns, struct ix_err *err)
{
	double s;

	if (ix_parse_seconds(value, &s, NULL) < 0 || s < 0.1 || s > 3600)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid IXPERF_RDMA_TIMEOUT '%s' (0.1 to 3600 seconds)", value);
	*ns = (int64_t)(s * 1e9);
	return 0;
}

/* Host name (host:port) already in l. */
static bool hostlist_has(const struct ix_hostlist *l, const struct ix_host *h)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].port == h->port && strcmp(l->v[i].name, h->name) == 0)
			return true;
	return false;
}

json_t *ix_run_fleet(json_t *checks, const struct ix_token *token, const char *local,
		     const struct ix_token *local_token, struct ix_coord *co,
		     const struct ix_hostlist *tasks)
{
	struct ix_hostlist all = { 0 }, own = { 0 }, mine = { 0 };
	struct ix_fleet_result r, more;
	struct ix_err err = { 0 };
	size_t i, k;
	json_t *c, *h, *out;

	if (local && local[0])
		ix_hostlist_parse(local, IX_DEFAULT_PORT, &own, &err);
	json_array_foreach(checks, i, c)
	{
		json_array_foreach(json_object_get(c, "hosts"), k, h)
		{
			struct ix_hostlist one = { 0 };
			const char *name = json_string_value(h);
			struct ix_hostlist *to;

			if (!name || strchr(name, '@') ||
			    ix_hostlist_parse(name, IX_DEFAULT_PORT, &one, &err) < 0 ||
			    one.n != 1) {
				ix_hostlist_free(&one);
				continue;
			}
			/* the run's own agents answer to their token */
			to = hostlist_has(&own, &one.v[0]) ? &mine : &all;
			if (!hostlist_has(to, &one.v[0]))
				ix_hostlist_parse(name, IX_DEFAULT_PORT, to, &err);
			ix_hostlist_free(&one);
		}
	}
	ix_fleet_collect(NULL, &all, token, IX_FLEET_TIMEOUT_S, &r, &err);
	if (mine.n) {
		ix_fleet_collect(NULL, &mine, local_token, IX_FLEET_TIMEOUT_S, &more, &err);
		ix_fleet_append(&r, &more);
		ix_fleet_free(&more);
	}
	if (co && tasks) {
		ix_fleet_collect(co, tasks, NULL, IX_FLEET_TIMEOUT_S, &more, &err);
		ix_fleet_append(&r, &more);
		ix_fleet_free(&more);
	}
	out = ix_json_fleet(&r);
	ix_fleet_free(&r);
	ix_hostlist_free(&all);
	ix_hostlist_free(&mine);
	ix_hostlist_free(&own);
	return out;
}
