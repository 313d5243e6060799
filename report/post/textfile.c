/* Metrics for node_exporter's textfile collector: the Pushgateway's
 * exposition in DIR/ixperf-JOB.prom, replaced atomically after each run. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/fmt/output.h"
#include "report/post/post.h"

/* The exposition into DIR/ixperf-JOB.prom: a name node_exporter reads. */
int ix_post_textfile_payload(const struct ix_post_opts *o, json_t *doc, struct ix_post_msg *m,
			     struct ix_err *err)
{
	const char *job = o->job ? o->job : IX_POST_DEFAULT_JOB;
	size_t n;

	if (!o->url || !*o->url)
		return ix_fail(err, IX_EXIT_USAGE, "no directory to write the metrics into");
	if (!*job ||
	    strspn(job, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
		    strlen(job) ||
	    job[0] == '.')
		return ix_fail(err, IX_EXIT_USAGE,
			       "--job '%s' names the file ixperf-JOB.prom: letters, digits, '_', "
			       "'.' and '-' only",
			       job);
	if (ix_post_check_doc(doc, err) < 0)
		return -1;
	m->method = "WRITE";
	m->content_type = "text/plain; version=0.0.4; charset=utf-8";
	if (ix_post_prom_body(doc, o->pairs, &m->body, &m->len, err) < 0)
		return -1;
	n = strlen(o->url) + strlen(job) + 16;
	m->url = malloc(n);
	if (!m->url) {
		ix_post_msg_free(m);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	snprintf(m->url, n, "%s%sixperf-%s.prom", o->url,
		 o->url[strlen(o->url) - 1] == '/' ? "" : "/", job);
	return 0;
}

int ix_post_textfile(const struct ix_post_msg *m, struct ix_err *err)
{
	struct stat st;
	char dir[4096];
	const char *slash = strrchr(m->url, '/');

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - m->url) : 1, slash ? m->url : ".");
	if (stat(dir[0] ? dir : "/", &st) < 0 || !S_ISDIR(st.st_mode))
		return ix_fail(err, IX_EXIT_FAIL,
			       "%s is not a directory (the textfile collector's)", dir);
	return ix_output_atomic(m->url, m->body, m->len, err);
}
