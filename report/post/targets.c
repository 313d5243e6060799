/* Several destinations for one result: --post [FORMAT=]URL given any
 * number of times (a chat webhook and a Pushgateway from one run). Each
 * target is tried; one that fails does not stop the others. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/post/post.h"
#include "report/post/targets.h"

int ix_post_target_parse(const char *spec, enum ix_post_format dflt, struct ix_post_target *t,
			 struct ix_err *err)
{
	const char *eq = strchr(spec, '=');
	size_t n = eq ? (size_t)(eq - spec) : 0;
	char name[16];

	t->format = dflt;
	t->url = spec;
	/* FORMAT= before a URL: a word, no ':' or '/' (a URL's query may hold '='). */
	if (eq && n > 0 && n < sizeof(name) && strcspn(spec, ":/") > n) {
		memcpy(name, spec, n);
		name[n] = '\0';
		if (ix_post_format_parse(name, &t->format, err) < 0)
			return ix_fail_prefix(err, "--post %s", spec);
		t->url = eq + 1;
	}
	if (!*t->url)
		return ix_fail(err, IX_EXIT_USAGE, "--post %s: no %s", spec,
			       t->format == IX_POST_TEXTFILE ? "directory" : "URL");
	if (t->format != IX_POST_TEXTFILE && strncmp(t->url, "http://", 7) != 0 &&
	    strncmp(t->url, "https://", 8) != 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--post %s: not an http:// or https:// URL (textfile=DIR writes "
			       "metrics into a directory)",
			       spec);
	return 0;
}

/* One target: the spool of its URL first, then this document. */
static int post_target(const struct ix_post_opts *base, const struct ix_post_target *t, json_t *doc,
		       const struct ix_post_each *how, struct ix_err *err)
{
	struct ix_post_opts po = *base;
	struct ix_post_msg m;
	struct ix_err e2 = { 0 };
	char *html = NULL;
	size_t n = 0;
	int rc;

	po.url = t->url;
	po.format = t->format;
	if (t->format == IX_POST_HTML) {
		if (!how->html)
			return ix_fail(err, IX_EXIT_FAIL, "no HTML renderer here");
		if (how->html(how->arg, doc, &html, &n, err) < 0)
			return -1;
	}
	rc = ix_post_payload(&po, doc, html, n, &m, err);
	free(html);
	if (rc < 0)
		return -1;
	if (t->format != IX_POST_TEXTFILE)
		ix_post_flush(&po, &e2); /* what waits goes first; it says so itself */
	rc = ix_post_send(&po, &m, err);
	ix_post_msg_free(&m);
	return rc;
}

size_t ix_post_targets(const struct ix_post_opts *base, const struct ix_post_target *t, size_t n,
		       json_t *doc, const struct ix_post_each *how)
{
	size_t failed = 0;

	for (size_t i = 0; i < n; i++) {
		struct ix_err err = { 0 };
		int rc = post_target(base, &t[i], doc, how, &err);

		failed += rc < 0;
		if (how->done)
			how->done(how->arg, &t[i], rc < 0 ? &err : NULL);
	}
	return failed;
}
