/* Unit tests for report/post/targets.c: --post [FORMAT=]URL, and posting
 * one result to several targets, one failing without stopping the rest. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "report/post/targets.h"
#include "tests/unit/report/post/payload.h"

Test(targets, format_prefix_or_the_default)
{
	struct ix_post_target t;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_post_target_parse("http://h:9091", IX_POST_PUSHGATEWAY, &t, &err), 0);
	cr_expect_eq(t.format, IX_POST_PUSHGATEWAY);
	cr_expect_str_eq(t.url, "http://h:9091");
	cr_assert_eq(ix_post_target_parse("chat=https://hooks.example/T/B/x?a=b", IX_POST_WEBHOOK,
					  &t, &err),
		     0, "%s", err.msg);
	cr_expect_eq(t.format, IX_POST_CHAT);
	cr_expect_str_eq(t.url, "https://hooks.example/T/B/x?a=b");
	/* an '=' in a URL's query is not a format */
	cr_assert_eq(ix_post_target_parse("http://h/x?k=v", IX_POST_WEBHOOK, &t, &err), 0);
	cr_expect_eq(t.format, IX_POST_WEBHOOK);
	cr_expect_str_eq(t.url, "http://h/x?k=v");
	cr_assert_eq(ix_post_target_parse("textfile=/var/lib/nx", IX_POST_WEBHOOK, &t, &err), 0);
	cr_expect_eq(t.format, IX_POST_TEXTFILE);
	cr_expect_str_eq(t.url, "/var/lib/nx");
}

Test(targets, bad_targets_are_usage_errors_naming_them)
{
	struct ix_post_target t;
	struct ix_err err = { 0 };

	cr_expect_eq(ix_post_target_parse("yaml=http://h", IX_POST_WEBHOOK, &t, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
	cr_expect(strstr(err.msg, "yaml=http://h") && strstr(err.msg, "unknown format"), "%s",
		  err.msg);
	cr_expect_eq(ix_post_target_parse("/tmp/x", IX_POST_WEBHOOK, &t, &err), -1);
	cr_expect(strstr(err.msg, "not an http:// or https:// URL") != NULL, "%s", err.msg);
	cr_expect_eq(ix_post_target_parse("chat=", IX_POST_WEBHOOK, &t, &err), -1);
	cr_expect(strstr(err.msg, "no URL") != NULL, "%s", err.msg);
}

struct seen {
	int done, failed;
	enum ix_post_format order[4];
};

static void on_done(void *arg, const struct ix_post_target *t, const struct ix_err *err)
{
	struct seen *s = arg;

	s->order[s->done++] = t->format;
	s->failed += err != NULL;
}

/* A target that fails (a directory that is not there) does not stop the
 * next one, and is counted. */
Test(targets, one_failure_does_not_stop_the_others)
{
	char dir[] = "/tmp/ixperf-targets-XXXXXX", path[128];
	struct ix_post_target t[3] = { { IX_POST_TEXTFILE, "/nonexistent/ixperf-dir" },
				       { IX_POST_TEXTFILE, dir },
				       { IX_POST_HTML, "http://127.0.0.1:1/x" } };
	struct ix_post_opts base = { .job = "t" };
	struct seen s = { 0 };
	struct ix_post_each how = { NULL, on_done, &s };
	json_t *doc = load("post-run.json");

	cr_assert_not_null(mkdtemp(dir));
	/* the html target has no renderer here: it fails before any request */
	cr_expect_eq(ix_post_targets(&base, t, 3, doc, &how), 2);
	cr_expect_eq(s.done, 3);
	cr_expect_eq(s.failed, 2);
	cr_expect_eq(s.order[1], IX_POST_TEXTFILE);
	snprintf(path, sizeof(path), "%s/ixperf-t.prom", dir);
	cr_expect_eq(access(path, R_OK), 0, "the second target was not written");
	unlink(path);
	rmdir(dir);
	json_decref(doc);
}
