/* ixperf post RESULT.json URL: send a result document to a JSON webhook, a
 * chat channel, a Prometheus Pushgateway or a web server; what cannot be
 * delivered waits in a spool that --flush (and the next post) delivers. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "report/html/html.h"
#include "report/post/post.h"

struct post_opts {
	const char *format;
	double timeout_s;
	uint64_t retries;
	bool insecure;
	const char *credentials;
	const char *spool;
	const char *job;
	bool pairs;
	bool flush;
	bool help;
};

static const struct ix_option post_options[] = {
	{ 'f', "format", IX_OPT_STRING, offsetof(struct post_opts, format), "FORMAT",
	  "webhook (the JSON document, default), chat (Slack/Mattermost), pushgateway, html, "
	  "textfile (URL is a directory: node_exporter's textfile collector)",
	  0, 0 },
	{ 0, "timeout", IX_OPT_SECONDS, offsetof(struct post_opts, timeout_s), "SECONDS",
	  "give up a request after this long (default 30; connecting: at most 10)", 0.1, 3600 },
	{ 0, "retries", IX_OPT_UINT, offsetof(struct post_opts, retries), "N",
	  "tries after the first when there is no answer, 408, 429 or 5xx (default 3)", 0, 20 },
	{ 'k', "insecure", IX_OPT_FLAG, offsetof(struct post_opts, insecure), NULL,
	  "do not verify the server's TLS certificate (warns)", 0, 0 },
	{ 0, "credentials", IX_OPT_STRING, offsetof(struct post_opts, credentials), "FILE",
	  "first line: a bearer token or user:password (mode 600); else $IXPERF_POST_TOKEN", 0, 0 },
	{ 0, "spool", IX_OPT_STRING, offsetof(struct post_opts, spool), "DIR",
	  "where undelivered payloads wait (default $XDG_STATE_HOME/ixperf/spool)", 0, 0 },
	{ 0, "job", IX_OPT_STRING, offsetof(struct post_opts, job), "NAME",
	  "Pushgateway job label (default ixperf; the instance is the result's host); textfile: "
	  "the file ixperf-NAME.prom",
	  0, 0 },
	{ 0, "pairs", IX_OPT_FLAG, offsetof(struct post_opts, pairs), NULL,
	  "pushgateway, textfile: a mesh's series per pair too (default: per host and summary)", 0,
	  0 },
	{ 0, "flush", IX_OPT_FLAG, offsetof(struct post_opts, flush), NULL,
	  "deliver the spooled payloads (only those below URL if given), oldest first", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct post_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_post_spec = {
	.name = "post",
	.usage = "[OPTIONS] RESULT.json URL | --flush [URL]",
	.summary = "Send a result to a webhook, chat, Pushgateway or web server",
	.opts = post_options,
	.nopts = IX_OPTS_END(post_options),
	.epilog =
		"A 2xx answer is delivery. No answer, 408, 429 or 5xx: retried with backoff,\n"
		"then spooled; the next post to that URL, or --flush, sends spooled payloads\n"
		"first, oldest first. Other 4xx: the endpoint refuses the payload; not spooled.\n"
		"Credentials are never printed nor spooled; give them to --flush with the\n"
		"URL they are for: they go only to that origin's payloads.\n"
		"textfile: DIR/ixperf-JOB.prom written through a temporary file and a rename\n"
		"(never spooled); DIR must exist.\n"
		"Exit: 0 delivered, 1 not delivered (spooled or refused), 2 usage, 3 no libcurl.\n"
		"Examples:\n"
		"  ixperf post result.json https://ci.example.org/hooks/ixperf\n"
		"  ixperf post -f chat result.json https://hooks.slack.com/services/...\n"
		"  ixperf post -f pushgateway --job fabric result.json http://pgw:9091\n"
		"  ixperf post -f textfile --job nightly result.json "
		"/var/lib/node_exporter/textfile\n"
		"  ixperf post --flush\n",
};

/* The document in path, checked to be an ixperf result. */
static json_t *load_doc(const char *path, struct ix_err *err)
{
	FILE *f = fopen(path, "r");
	json_error_t je;
	json_t *doc;

	if (!f) {
		ix_fail(err, IX_EXIT_FAIL, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	doc = json_loadf(f, 0, &je);
	fclose(f);
	if (!doc) {
		ix_fail(err, IX_EXIT_FAIL, "%s: not valid JSON (line %d, column %d: %s)", path,
			je.line, je.column, je.text);
		return NULL;
	}
	if (ix_post_check_doc(doc, err) < 0) {
		ix_fail_prefix(err, "%s", path);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

static int render_html(json_t *doc, char **html, size_t *len, struct ix_err *err)
{
	FILE *f = open_memstream(html, len);
	int rc;

	if (!f)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	rc = ix_html_render(f, doc, NULL, 0, err);
	if (fclose(f) != 0 && rc == 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (rc < 0) {
		free(*html);
		*html = NULL;
	}
	return rc;
}

static int post_one(struct ix_post_opts *po, const char *path, struct ix_err *err)
{
	struct ix_post_msg m;
	char *html = NULL, where[256];
	size_t hlen = 0;
	json_t *doc = load_doc(path, err);
	int rc = -1;

	if (!doc)
		return -1;
	if (po->format == IX_POST_HTML && render_html(doc, &html, &hlen, err) < 0)
		goto out;
	if (ix_post_payload(po, doc, html, hlen, &m, err) < 0)
		goto out;
	rc = ix_post_send(po, &m, err);
	if (rc == 0) {
		if (po->format == IX_POST_TEXTFILE)
			snprintf(where, sizeof(where), "%s", m.url);
		else
			ix_post_url_redact(m.url, po->format != IX_POST_CHAT, where, sizeof(where));
		fprintf(stderr, "ixperf post: delivered %s to %s (%s)\n", path, where,
			ix_post_format_name(po->format));
	}
	ix_post_msg_free(&m);
out:
	free(html);
	json_decref(doc);
	return rc;
}

/* The positional arguments: RESULT.json URL, or with --flush an optional URL. */
static int check_args(const struct post_opts *o, int argc, char **argv, int pos, struct ix_err *err)
{
	int n = argc - pos, max = o->flush ? 1 : 2;

	if (o->flush && (o->format || o->job || o->pairs))
		return ix_fail(err, IX_EXIT_USAGE,
			       "--flush sends payloads as they were spooled: no "
			       "--format, --job or --pairs");
	if (n > max)
		return ix_fail(err, IX_EXIT_USAGE, "%s; unexpected '%s'",
			       o->flush ? "--flush takes at most a URL"
					: "one RESULT.json and one URL",
			       argv[pos + max]);
	if (!o->flush && n < 2)
		return ix_fail(err, IX_EXIT_USAGE, "%s",
			       n == 0 ? "missing RESULT.json and URL"
				      : "missing URL (where to send the result)");
	return 0;
}

int cmd_post(int argc, char **argv, const struct ix_env *env)
{
	struct post_opts o = { .retries = IX_POST_DEFAULT_RETRIES };
	struct ix_post_opts po = { .format = IX_POST_WEBHOOK };
	struct ix_err err = { 0 };
	bool help;
	int pos, n;

	if (ix_opts_parse(&ix_post_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("post", &err);
	if (help) {
		ix_opts_help(&ix_post_spec, stdout);
		return IX_EXIT_OK;
	}
	if (o.format && ix_post_format_parse(o.format, &po.format, &err) < 0)
		return ix_report_error("post", &err);
	if (check_args(&o, argc, argv, pos, &err) < 0)
		return ix_report_error("post", &err);
#ifndef HAVE_CURL
	if (po.format != IX_POST_TEXTFILE || o.flush) {
		ix_fail(&err, IX_EXIT_UNAVAILABLE,
			"posting is not built in: this ixperf was built without libcurl");
		return ix_report_error("post", &err);
	}
#endif
	po.url = pos + (o.flush ? 0 : 1) < argc ? argv[pos + (o.flush ? 0 : 1)] : NULL;
	po.timeout_s = o.timeout_s;
	po.retries = (int)o.retries;
	po.insecure = o.insecure;
	po.credentials_file = o.credentials;
	po.spool_dir = o.spool;
	po.job = o.job;
	po.pairs = o.pairs;
	po.warn = ix_post_warn_stderr;
	po.warn_arg = (void *)"post";
	if (o.insecure)
		fprintf(stderr, "ixperf post: WARNING: --insecure: the server's certificate is not "
				"verified; anyone on the path can read and change what is sent\n");
	if (!o.flush)
		return post_one(&po, argv[pos], &err) < 0 ? ix_report_error("post", &err)
							  : IX_EXIT_OK;
	n = ix_post_flush(&po, &err);
	if (n < 0)
		return ix_report_error("post", &err);
	fprintf(stderr, "ixperf post: delivered %d spooled payload(s)\n", n);
	return IX_EXIT_OK;
}
