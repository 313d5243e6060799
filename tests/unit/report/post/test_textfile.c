/* Unit tests for report/post/textfile.c: the metrics file for
 * node_exporter's textfile collector, its name, and its atomic write. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tests/unit/report/post/payload.h"

static char dir[64];

static void mkdir_tmp(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ixperf-textfile-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void rm_tmp(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

TestSuite(textfile, .init = mkdir_tmp, .fini = rm_tmp);

static int post_to(const char *url, const char *job, struct ix_post_msg *m, struct ix_err *err)
{
	struct ix_post_opts o = { .url = url, .format = IX_POST_TEXTFILE, .job = job };
	json_t *doc = load("post-run.json");
	int rc = ix_post_payload(&o, doc, NULL, 0, m, err);

	json_decref(doc);
	return rc;
}

Test(textfile, writes_the_exposition_as_job_prom_and_nothing_else)
{
	struct ix_post_msg m, p;
	struct ix_post_opts o = { .url = "http://127.0.0.1:9091", .format = IX_POST_PUSHGATEWAY };
	struct ix_err err = { 0 };
	json_t *doc = load("post-run.json");
	char path[256], *buf = NULL;
	size_t n = 0;
	FILE *f;
	int files = 0;
	DIR *d;
	struct dirent *e;

	cr_assert_eq(post_to(dir, "nightly", &m, &err), 0, "%s", err.msg);
	snprintf(path, sizeof(path), "%s/ixperf-nightly.prom", dir);
	cr_expect_str_eq(m.url, path);
	cr_assert_eq(ix_post_send(&o, &m, &err), 0, "%s", err.msg);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_gt(getdelim(&buf, &n, '\0', f), 0);
	fclose(f);
	/* the same metrics as the Pushgateway gets */
	cr_assert_eq(ix_post_payload(&o, doc, NULL, 0, &p, &err), 0, "%s", err.msg);
	cr_expect_str_eq(buf, p.body);
	/* no temporary file is left behind */
	d = opendir(dir);
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	closedir(d);
	cr_expect_eq(files, 1);
	free(buf);
	ix_post_msg_free(&m);
	ix_post_msg_free(&p);
	json_decref(doc);
}

Test(textfile, a_job_that_is_not_a_file_name_is_a_usage_error)
{
	struct ix_post_msg m;
	struct ix_err err = { 0 };

	cr_expect_eq(post_to(dir, "../etc", &m, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
	cr_expect(strstr(err.msg, "ixperf-JOB.prom") != NULL, "%s", err.msg);
	cr_expect_eq(post_to(dir, ".hidden", &m, &err), -1);
	cr_expect_eq(post_to("", NULL, &m, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
}

Test(textfile, a_missing_directory_fails_and_writes_nothing)
{
	struct ix_post_msg m;
	struct ix_post_opts o = { .format = IX_POST_TEXTFILE };
	struct ix_err err = { 0 };
	char missing[128];

	snprintf(missing, sizeof(missing), "%s/no-such-dir", dir);
	cr_assert_eq(post_to(missing, NULL, &m, &err), 0, "%s", err.msg);
	cr_expect_eq(ix_post_send(&o, &m, &err), -1);
	cr_expect(strstr(err.msg, "is not a directory") != NULL, "%s", err.msg);
	ix_post_msg_free(&m);
}
