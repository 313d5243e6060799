/* Unit tests for report/post/spool.c: arrival order, atomic entries, flushing
 * with a deliverer that the test controls (no network). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "report/post/spool.h"

static char tmpdir[256];
static char spool[320];

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/ixspool-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(spool, sizeof(spool), "%s/state/ixperf/spool", tmpdir);
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(spool, .init = setup, .fini = teardown);

static void put(const char *url, const char *body, char *name, size_t len)
{
	struct ix_spool_entry e = { .url = (char *)url,
				    .method = "POST",
				    .content_type = "application/json",
				    .format = "webhook",
				    .body = (char *)body,
				    .len = strlen(body) };
	struct ix_err err = { 0 };

	cr_assert_eq(ix_spool_put(spool, &e, name, len, &err), 0, "%s", err.msg);
}

static char *body_of(const char *name)
{
	struct ix_spool_entry e;
	struct ix_err err = { 0 };
	char *b;

	cr_assert_eq(ix_spool_read(spool, name, &e, &err), 0, "%s", err.msg);
	b = strdup(e.body);
	ix_spool_entry_free(&e);
	return b;
}

static size_t count(void)
{
	char **names;
	size_t n;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_spool_list(spool, &names, &n, &err), 0, "%s", err.msg);
	ix_spool_names_free(names, n);
	return n;
}

static void touch(const char *dir, const char *name, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(spool, entries_come_back_oldest_first)
{
	static const char *const bodies[] = { "{\"n\":1}", "{\"n\":2}", "{\"n\":3}", "{\"n\":4}" };
	char **names;
	size_t n;
	struct ix_err err = { 0 };

	for (size_t i = 0; i < 4; i++)
		put("http://127.0.0.1:9/hook", bodies[i], NULL, 0);
	cr_assert_eq(ix_spool_list(spool, &names, &n, &err), 0);
	cr_assert_eq(n, 4);
	for (size_t i = 0; i < n; i++) {
		char *b = body_of(names[i]);
		cr_expect_str_eq(b, bodies[i]);
		free(b);
		if (i > 0)
			cr_expect_lt(strcmp(names[i - 1], names[i]), 0);
	}
	ix_spool_names_free(names, n);
}

Test(spool, entry_keeps_its_header_fields_and_binary_body)
{
	static const char body[] = "line one\nline two\n\0after a NUL";
	struct ix_spool_entry e = { .url = "https://pgw:9091/metrics/job/ixperf/instance/vm",
				    .method = "PUT",
				    .content_type = "text/plain; version=0.0.4",
				    .format = "pushgateway",
				    .body = (char *)body,
				    .len = sizeof(body) - 1 };
	struct ix_spool_entry r;
	struct ix_err err = { 0 };
	char name[128];

	cr_assert_eq(ix_spool_put(spool, &e, name, sizeof(name), &err), 0, "%s", err.msg);
	cr_assert_eq(ix_spool_read(spool, name, &r, &err), 0, "%s", err.msg);
	cr_expect_str_eq(r.url, e.url);
	cr_expect_str_eq(r.method, "PUT");
	cr_expect_str_eq(r.content_type, e.content_type);
	cr_expect_str_eq(r.format, "pushgateway");
	cr_expect_str_eq(r.name, name);
	cr_assert_eq(r.len, e.len);
	cr_expect_eq(memcmp(r.body, body, r.len), 0);
	ix_spool_entry_free(&r);
}

Test(spool, files_are_private_and_the_directory_is_made)
{
	char name[128], path[600];
	struct stat st;

	put("http://h/x", "{}", name, sizeof(name));
	cr_assert_eq(stat(spool, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700);
	snprintf(path, sizeof(path), "%s/%s", spool, name);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600);
	cr_expect(strstr(name, IX_SPOOL_SUFFIX) != NULL);
}

Test(spool, partial_and_foreign_files_are_not_entries)
{
	char name[128];

	put("http://h/x", "{}", name, sizeof(name));
	/* What a writer that died leaves: hidden temporaries, never renamed. */
	touch(spool, ".tmp-0000000000000001-0000000001-000000.ixspool.AbCdEf", "half");
	touch(spool, "0000000000000001-0000000001-000000.ixspool.XyZ123", "half");
	touch(spool, "notes.txt", "hello");
	touch(spool, "12345.ixspool", "short stamp");
	cr_expect_eq(count(), 1);
}

Test(spool, a_clock_stepped_back_keeps_arrival_order)
{
	struct timespec ts;
	char future[128], name[128], **names;
	unsigned long long stamp;
	size_t n;
	struct ix_err err = { 0 };

	clock_gettime(CLOCK_REALTIME, &ts);
	stamp = (unsigned long long)ts.tv_sec * 1000000ull + 3600ull * 1000000ull;
	put("http://h/x", "{\"n\":1}", name, sizeof(name));
	/* Rename the first entry as if it was stamped an hour from now. */
	snprintf(future, sizeof(future), "%016llu-0000000001-000000" IX_SPOOL_SUFFIX, stamp);
	{
		char a[600], b[600];
		snprintf(a, sizeof(a), "%s/%s", spool, name);
		snprintf(b, sizeof(b), "%s/%s", spool, future);
		cr_assert_eq(rename(a, b), 0);
	}
	put("http://h/x", "{\"n\":2}", name, sizeof(name));
	cr_expect_gt(strcmp(name, future), 0, "%s after %s", name, future);
	cr_assert_eq(ix_spool_list(spool, &names, &n, &err), 0);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(names[0], future);
	ix_spool_names_free(names, n);
}

Test(spool, corrupt_entries_are_refused)
{
	struct ix_spool_entry e;
	struct ix_err err = { 0 };
	char name[128], path[600];
	FILE *f;

	put("http://h/x", "{\"n\":1}", name, sizeof(name));
	/* Cut the body short: the header's length no longer matches. */
	snprintf(path, sizeof(path), "%s/%s", spool, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"ixperf_spool\":1,\"url\":\"http://h/x\",\"method\":\"POST\","
	      "\"content_type\":\"a/b\",\"format\":\"webhook\",\"length\":99}\n{}",
	      f);
	fclose(f);
	cr_expect_eq(ix_spool_read(spool, name, &e, &err), -1);
	cr_expect(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
	touch(spool, "0000000000000001-0000000001-000000.ixspool", "not a spool entry");
	cr_expect_eq(ix_spool_read(spool, "0000000000000001-0000000001-000000.ixspool", &e, &err),
		     -1);
}

Test(spool, missing_directory_is_an_empty_spool)
{
	size_t delivered = 7;
	struct ix_err err = { 0 };

	cr_expect_eq(count(), 0);
	cr_expect_eq(ix_spool_flush(spool, NULL, NULL, NULL, NULL, &delivered, &err), 0);
	cr_expect_eq(delivered, 0);
}

Test(spool, default_directory_follows_xdg)
{
	char buf[512];
	struct ix_err err = { 0 };
	char *old_xdg = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	setenv("XDG_STATE_HOME", "/srv/state", 1);
	cr_assert_eq(ix_spool_default_dir(buf, sizeof(buf), &err), 0);
	cr_expect_str_eq(buf, "/srv/state/ixperf/spool");
	setenv("XDG_STATE_HOME", "relative/ignored", 1);
	setenv("HOME", "/home/op", 1);
	cr_assert_eq(ix_spool_default_dir(buf, sizeof(buf), &err), 0);
	cr_expect_str_eq(buf, "/home/op/.local/state/ixperf/spool");
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	cr_expect_eq(ix_spool_default_dir(buf, sizeof(buf), &err), -1);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
	if (old_xdg)
		setenv("XDG_STATE_HOME", old_xdg, 1);
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_xdg);
	free(old_home);
}

Test(spool, url_under_a_prefix)
{
	cr_expect(ix_spool_url_under("http://a:9091/metrics/job/x", "http://a:9091"));
	cr_expect(ix_spool_url_under("http://a:9091", "http://a:9091"));
	cr_expect(ix_spool_url_under("http://a/hook?k=1", "http://a/hook"));
	cr_expect(ix_spool_url_under("http://a/x/y", "http://a/x/"));
	cr_expect_not(ix_spool_url_under("http://a:90910/x", "http://a:9091"));
	cr_expect_not(ix_spool_url_under("http://a/hooks", "http://a/hook"));
	cr_expect_not(ix_spool_url_under("http://b/x", "http://a"));
}

/* ---- flush with a scripted deliverer ---------------------------------------- */

struct script {
	enum ix_spool_outcome plan[16]; /* per call; past the end: delivered */
	size_t calls;
	char seen[16][64]; /* bodies in the order offered */
	bool put_during;   /* spool one more entry on the first call */
};

static enum ix_spool_outcome scripted(void *arg, const struct ix_spool_entry *e, struct ix_err *err)
{
	struct script *s = arg;
	enum ix_spool_outcome out = s->calls < 16 ? s->plan[s->calls] : IX_SPOOL_DELIVERED;

	if (s->calls < 16)
		snprintf(s->seen[s->calls], sizeof(s->seen[0]), "%s", e->body);
	if (s->put_during && s->calls == 0)
		put("http://h/x", "late", NULL, 0);
	s->calls++;
	if (out != IX_SPOOL_DELIVERED)
		ix_fail(err, IX_EXIT_FAIL, "endpoint said %s",
			out == IX_SPOOL_KEEP ? "503" : "400");
	return out;
}

Test(spool, flush_removes_only_what_was_delivered_and_stops_at_the_first_failure)
{
	struct script s = { .plan = { IX_SPOOL_DELIVERED, IX_SPOOL_DELIVERED, IX_SPOOL_KEEP } };
	struct ix_err err = { 0 };
	size_t delivered;
	char **names;
	size_t n;

	put("http://h/x", "b1", NULL, 0);
	put("http://h/x", "b2", NULL, 0);
	put("http://h/x", "b3", NULL, 0);
	put("http://h/x", "b4", NULL, 0);
	cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), -1);
	cr_expect_eq(delivered, 2);
	cr_expect_eq(s.calls, 3, "b4 must not be tried after b3 failed");
	cr_expect_str_eq(s.seen[0], "b1");
	cr_expect_str_eq(s.seen[1], "b2");
	cr_expect_str_eq(s.seen[2], "b3");
	cr_expect(strstr(err.msg, "503") != NULL, "%s", err.msg);
	cr_expect(strstr(err.msg, "2 left") != NULL, "%s", err.msg);
	cr_assert_eq(ix_spool_list(spool, &names, &n, &err), 0);
	cr_assert_eq(n, 2);
	{
		char *a = body_of(names[0]), *b = body_of(names[1]);
		cr_expect_str_eq(a, "b3");
		cr_expect_str_eq(b, "b4");
		free(a);
		free(b);
	}
	ix_spool_names_free(names, n);

	/* The endpoint heals: the rest goes, in order; then nothing is left. */
	memset(&s, 0, sizeof(s));
	cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(delivered, 2);
	cr_expect_str_eq(s.seen[0], "b3");
	cr_expect_str_eq(s.seen[1], "b4");
	cr_expect_eq(count(), 0);
	memset(&s, 0, sizeof(s));
	cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), 0);
	cr_expect_eq(delivered, 0);
	cr_expect_eq(s.calls, 0);
}

Test(spool, rejected_entries_move_aside_and_do_not_block)
{
	struct script s = { .plan = { IX_SPOOL_REJECTED, IX_SPOOL_DELIVERED } };
	struct ix_err err = { 0 };
	char name[128], path[700];
	size_t delivered;

	put("http://h/x", "bad", name, sizeof(name));
	put("http://h/x", "good", NULL, 0);
	cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), -1);
	cr_expect_eq(delivered, 1);
	cr_expect_eq(s.calls, 2);
	cr_expect(strstr(err.msg, IX_SPOOL_REJECTED_DIR) != NULL, "%s", err.msg);
	cr_expect_eq(count(), 0);
	snprintf(path, sizeof(path), "%s/%s/%s", spool, IX_SPOOL_REJECTED_DIR, name);
	cr_expect_eq(access(path, F_OK), 0, "kept for inspection in %s", path);
}

Test(spool, unreadable_entries_move_aside)
{
	struct script s = { .calls = 0 };
	struct ix_err err = { 0 };
	size_t delivered;

	put("http://h/x", "one", NULL, 0);
	touch(spool, "0000000000000001-0000000001-000000.ixspool", "garbage without a header");
	cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), -1);
	cr_expect_eq(delivered, 1);
	cr_expect_eq(s.calls, 1);
	cr_expect_eq(count(), 0);
}

Test(spool, flush_below_a_url_leaves_other_endpoints_alone)
{
	struct script s = { .calls = 0 };
	struct ix_err err = { 0 };
	size_t delivered, left;

	put("http://a:9091/metrics/job/ixperf/instance/n1", "a1", NULL, 0);
	put("http://b/hook", "b1", NULL, 0);
	put("http://a:9091/metrics/job/ixperf/instance/n2", "a2", NULL, 0);
	put("http://a:90910/x", "c1", NULL, 0);
	cr_expect_eq(ix_spool_flush(spool, "http://a:9091", scripted, NULL, &s, &delivered, &err),
		     0, "%s", err.msg);
	cr_expect_eq(delivered, 2);
	cr_expect_str_eq(s.seen[0], "a1");
	cr_expect_str_eq(s.seen[1], "a2");
	cr_expect_eq(ix_spool_count(spool, NULL, &left, &err), 0);
	cr_expect_eq(left, 2);
	cr_expect_eq(ix_spool_count(spool, "http://b/hook", &left, &err), 0);
	cr_expect_eq(left, 1);
}

Test(spool, entries_spooled_during_a_flush_are_delivered_too)
{
	struct script s = { .put_during = true };
	struct ix_err err = { 0 };
	size_t delivered;

	put("http://h/x", "first", NULL, 0);
	cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(delivered, 2);
	cr_expect_str_eq(s.seen[1], "late");
	cr_expect_eq(count(), 0);
}

Test(spool, one_flush_at_a_time)
{
	struct script s = { .calls = 0 };
	struct ix_err err = { 0 };
	char lock[600];
	size_t delivered;
	int fd;

	put("http://h/x", "one", NULL, 0);
	snprintf(lock, sizeof(lock), "%s/.lock", spool);
	fd = open(lock, O_RDWR | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(flock(fd, LOCK_EX), 0);
	cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), -1);
	cr_expect(strstr(err.msg, "another ixperf") != NULL, "%s", err.msg);
	cr_expect_eq(s.calls, 0);
	close(fd);
	cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), 0);
	cr_expect_eq(delivered, 1);
}

/* Trust: a spool others may write to is refused, and entries someone else
 * planted are never offered to the deliverer (which would send the
 * credentials to the URL they name). */
Test(spool, a_directory_others_may_write_to_is_refused)
{
	struct script s = { .calls = 0 };
	struct ix_spool_entry e = { .url = "http://h/x",
				    .method = "POST",
				    .content_type = "application/json",
				    .format = "webhook",
				    .body = "b",
				    .len = 1 };
	struct ix_err err = { 0 };
	const mode_t modes[] = { 0777, 01777, 0770, 0720 };
	char link[600];
	size_t delivered;

	put("http://h/x", "one", NULL, 0);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		cr_assert_eq(chmod(spool, modes[i]), 0);
		cr_expect_eq(ix_spool_check_dir(spool, &err), -1, "mode %04o", modes[i]);
		cr_expect(strstr(err.msg, "writable by group or others") && strstr(err.msg, spool),
			  "%s", err.msg);
		cr_expect_eq(err.code, IX_EXIT_USAGE);
		cr_expect_eq(ix_spool_put(spool, &e, NULL, 0, &err), -1);
		cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), -1);
		cr_expect(strstr(err.msg, "chmod 700"), "%s", err.msg);
		cr_expect_eq(s.calls, 0, "nothing offered from a spool others may write to");
	}
	cr_assert_eq(chmod(spool, 0700), 0);
	cr_expect_eq(ix_spool_check_dir(spool, &err), 0, "%s", err.msg);
	snprintf(link, sizeof(link), "%s/link", tmpdir);
	cr_assert_eq(symlink(spool, link), 0);
	cr_expect_eq(ix_spool_check_dir(link, &err), -1);
	cr_expect(strstr(err.msg, "not a directory"), "%s", err.msg);
	snprintf(link, sizeof(link), "%s/missing", tmpdir);
	cr_expect_eq(ix_spool_check_dir(link, &err), 0, "a missing spool is created private");
	if (geteuid() == 0) {
		cr_assert_eq(chown(spool, 65534, 65534), 0);
		cr_expect_eq(ix_spool_check_dir(spool, &err), -1);
		cr_expect(strstr(err.msg, "owned by uid 65534"), "%s", err.msg);
		cr_expect_eq(ix_spool_flush(spool, NULL, scripted, NULL, &s, &delivered, &err), -1);
		cr_expect_eq(s.calls, 0);
	}
}

static char warned[4][512];
static size_t nwarned;

static void record_warning(void *arg, const char *msg)
{
	(void)arg;
	if (nwarned < 4)
		snprintf(warned[nwarned], sizeof(warned[0]), "%s", msg);
	nwarned++;
}

/* A well-formed entry, as another user could write it. */
static void plant(const char *name, const char *url, mode_t mode)
{
	char text[512], path[600];

	snprintf(text, sizeof(text),
		 "{\"ixperf_spool\":1,\"url\":\"%s\",\"method\":\"POST\",\"content_type\":"
		 "\"application/json\",\"format\":\"webhook\",\"length\":6}\nstolen",
		 url);
	touch(spool, name, text);
	snprintf(path, sizeof(path), "%s/%s", spool, name);
	cr_assert_eq(chmod(path, mode), 0);
}

Test(spool, entries_not_ours_are_skipped_with_a_warning)
{
	static const char *const open_name = "0000000000000001-0000000001-000001.ixspool";
	static const char *const theirs = "0000000000000002-0000000001-000002.ixspool";
	struct script s = { .calls = 0 };
	struct ix_err err = { 0 };
	struct ix_spool_entry e;
	size_t delivered, left;
	char path[600];

	put("http://h/x", "mine", NULL, 0);
	plant(open_name, "http://evil/steal", 0666);
	plant(theirs, "http://evil/steal", 0600);
	snprintf(path, sizeof(path), "%s/%s", spool, theirs);
	if (geteuid() == 0)
		cr_assert_eq(chown(path, 65534, 65534), 0);
	else
		cr_assert_eq(chmod(path, 0620), 0); /* writable by others instead */
	nwarned = 0;
	cr_expect_eq(ix_spool_flush(spool, NULL, scripted, record_warning, &s, &delivered, &err), 0,
		     "%s", err.msg);
	cr_expect_eq(delivered, 1);
	cr_expect_eq(s.calls, 1, "only our own entry is offered");
	cr_expect_str_eq(s.seen[0], "mine");
	cr_expect_eq(nwarned, 2, "one warning per planted entry, whatever the passes");
	cr_expect(strstr(warned[0], open_name) && strstr(warned[0], "mode 0666") &&
			  strstr(warned[0], "skipped"),
		  "%s", warned[0]);
	if (geteuid() == 0)
		cr_expect(strstr(warned[1], theirs) && strstr(warned[1], "owned by uid 65534"),
			  "%s", warned[1]);
	cr_expect_eq(access(path, F_OK), 0, "left where it is");
	cr_expect_eq(ix_spool_read(spool, theirs, &e, &err), -1);
	cr_expect_eq(ix_spool_read(spool, open_name, &e, &err), -1);
	cr_expect(strstr(err.msg, "writable by group or others"), "%s", err.msg);
	cr_expect_eq(ix_spool_count(spool, NULL, &left, &err), 0);
	cr_expect_eq(left, 0, "planted entries do not count as waiting");
	cr_expect_eq(ix_spool_count(spool, "http://evil", &left, &err), 0);
	cr_expect_eq(left, 0);
}
