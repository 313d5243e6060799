/* Unit tests for report/fmt/output.c: files written atomically, with the
 * mode any tool would give them. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "report/fmt/output.h"

static char dir[256];
static mode_t saved_umask;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/ixperf-output-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	cr_assert_not_null(mkdtemp(dir));
	saved_umask = umask(022);
}

static void teardown(void)
{
	char cmd[300];

	umask(saved_umask);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(output, .init = setup, .fini = teardown);

static mode_t write_mode(const char *name, const char *text)
{
	char path[400];
	struct ix_err err = { 0 };
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(ix_output_atomic(path, text, strlen(text), &err), 0, "%s", err.msg);
	cr_assert_eq(stat(path, &st), 0);
	return st.st_mode & 07777;
}

static char *read_back(const char *name)
{
	static char buf[256];
	char path[400];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

Test(output, a_new_file_follows_the_umask)
{
	umask(077);
	cr_expect_eq(write_mode("private.json", "{}\n"), 0600);
	umask(027);
	cr_expect_eq(write_mode("group.json", "{}\n"), 0640);
	umask(022);
	cr_expect_eq(write_mode("usual.json", "{}\n"), 0644);
	umask(0);
	cr_expect_eq(write_mode("open.json", "{}\n"), 0666);
}

Test(output, a_replaced_file_keeps_its_mode)
{
	char path[400];

	umask(022);
	write_mode("kept.json", "old\n");
	snprintf(path, sizeof(path), "%s/kept.json", dir);
	cr_assert_eq(chmod(path, 0640), 0);
	cr_expect_eq(write_mode("kept.json", "new\n"), 0640);
	cr_expect_str_eq(read_back("kept.json"), "new\n");
	umask(077);
	cr_assert_eq(chmod(path, 0604), 0);
	cr_expect_eq(write_mode("kept.json", "newer\n"), 0604);
	cr_expect_str_eq(read_back("kept.json"), "newer\n");
}

Test(output, no_temporary_is_left_behind)
{
	struct ix_err err = { 0 };
	char path[400];
	struct dirent *de;
	DIR *d;
	int n = 0;

	write_mode("a.json", "a\n");
	write_mode("a.json", "b\n");
	snprintf(path, sizeof(path), "%s/missing/a.json", dir);
	cr_expect_eq(ix_output_atomic(path, "x", 1, &err), -1);
	cr_expect(strstr(err.msg, "cannot create") && strstr(err.msg, "missing/a.json."), "%s",
		  err.msg);
	d = opendir(dir);
	cr_assert_not_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	cr_expect_eq(n, 1, "only a.json in the directory");
}
