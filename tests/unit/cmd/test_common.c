/* Unit tests for cmd/common.c (option-table parser, help text, output
 * sinks) and report/fmt/output.c (atomic file output). */
#include "config.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cmd/common.h"
#include "probes/ctl/client.h"
#include "probes/net/net.h"
#include "report/fmt/output.h"

/* ---- option table ------------------------------------------------------- */

struct topts {
	uint64_t count;
	uint64_t size;
	uint64_t rate;
	double secs;
	const char *name;
	bool flag;
	bool help;
};

static const struct ix_option topt_rows[] = {
	{ 'n', "count", IX_OPT_UINT, offsetof(struct topts, count), "N", "how many", 1, 100 },
	{ 's', "size", IX_OPT_SIZE, offsetof(struct topts, size), "BYTES", "message size", 1, 0 },
	{ 'r', "rate", IX_OPT_RATE, offsetof(struct topts, rate), "RATE", "target rate", 0, 0 },
	{ 't', "time", IX_OPT_SECONDS, offsetof(struct topts, secs), "SECONDS", "duration", 0.5,
	  60 },
	{ 0, "name", IX_OPT_STRING, offsetof(struct topts, name), "NAME", "a label", 0, 0 },
	{ 'f', "flag", IX_OPT_FLAG, offsetof(struct topts, flag), NULL, "a switch", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct topts, help), NULL, "show this help", 0, 0 },
};

static const struct ix_cmd_spec tspec = {
	.name = "test",
	.usage = "[OPTIONS] HOST",
	.summary = "A command for the tests.",
	.opts = topt_rows,
	.nopts = IX_OPTS_END(topt_rows),
	.epilog = "Examples:\n  ixperf test -n 3 host\n",
};

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Parse argv into a zeroed struct; returns the parser's result. */
static int parse(int argc, char **argv, struct topts *o, int *pos, bool *help, struct ix_err *err)
{
	memset(o, 0, sizeof(*o));
	memset(err, 0, sizeof(*err));
	*pos = -1;
	return ix_opts_parse(&tspec, argc, argv, o, pos, help, err);
}

static void parse_fails(int argc, char **argv, const char *part1, const char *part2)
{
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	cr_assert_eq(parse(argc, argv, &o, &pos, &help, &err), -1, "accepted");
	cr_assert_eq(err.code, IX_EXIT_USAGE, "code %d (%s)", err.code, err.msg);
	if (part1)
		cr_assert_not_null(strstr(err.msg, part1), "message '%s' lacks '%s'", err.msg,
				   part1);
	if (part2)
		cr_assert_not_null(strstr(err.msg, part2), "message '%s' lacks '%s'", err.msg,
				   part2);
}

Test(opts, good_values_land_in_the_struct)
{
	char *argv[] = { "test",   "-n",  "42",     "--size=64Ki", "-r", "1G",
			 "--time", "2.5", "--name", "bob",         "-f", "host1" };
	struct topts o;
	struct ix_err err;
	bool help = true;
	int pos;

	cr_assert_eq(parse(ARGC(argv), argv, &o, &pos, &help, &err), 0, "%s", err.msg);
	cr_assert_eq(o.count, 42);
	cr_assert_eq(o.size, 65536);
	cr_assert_eq(o.rate, 1000000000ull);
	cr_assert_float_eq(o.secs, 2.5, 1e-12);
	cr_assert_str_eq(o.name, "bob");
	cr_assert(o.flag);
	cr_assert_not(o.help);
	cr_assert_not(help);
	cr_assert_eq(pos, ARGC(argv) - 1);
	cr_assert_str_eq(argv[pos], "host1");
}

Test(opts, long_forms_and_attached_values)
{
	char *argv[] = { "test", "--count", "7", "-s64K", "--rate=25MB/s", "-t1m", "--flag" };
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	cr_assert_eq(parse(ARGC(argv), argv, &o, &pos, &help, &err), 0, "%s", err.msg);
	cr_assert_eq(o.count, 7);
	cr_assert_eq(o.size, 65536);
	cr_assert_eq(o.rate, 200000000ull);
	cr_assert_float_eq(o.secs, 60.0, 1e-12);
	cr_assert(o.flag);
	cr_assert_eq(pos, ARGC(argv), "no positional arguments");
}

Test(opts, grouped_short_flags)
{
	char *argv[] = { "test", "-fn", "3" };
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	cr_assert_eq(parse(ARGC(argv), argv, &o, &pos, &help, &err), 0, "%s", err.msg);
	cr_assert(o.flag);
	cr_assert_eq(o.count, 3);
}

Test(opts, positionals_are_moved_after_options)
{
	char *argv[] = { "test", "hostA", "-n", "3", "extra" };
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	cr_assert_eq(parse(ARGC(argv), argv, &o, &pos, &help, &err), 0, "%s", err.msg);
	cr_assert_eq(o.count, 3);
	cr_assert_eq(pos, ARGC(argv) - 2);
	cr_assert_str_eq(argv[pos], "hostA");
	cr_assert_str_eq(argv[pos + 1], "extra");
}

Test(opts, double_dash_ends_options)
{
	char *argv[] = { "test", "-n", "3", "--", "-x", "--nope" };
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	cr_assert_eq(parse(ARGC(argv), argv, &o, &pos, &help, &err), 0, "%s", err.msg);
	cr_assert_eq(pos, 4);
	cr_assert_str_eq(argv[pos], "-x");
	cr_assert_str_eq(argv[pos + 1], "--nope");
}

Test(opts, parses_twice_in_one_process)
{
	char *a1[] = { "test", "-n", "1", "h" };
	char *a2[] = { "test", "-n", "2", "h" };
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	cr_assert_eq(parse(ARGC(a1), a1, &o, &pos, &help, &err), 0);
	cr_assert_eq(o.count, 1);
	cr_assert_eq(parse(ARGC(a2), a2, &o, &pos, &help, &err), 0, "getopt state not reset");
	cr_assert_eq(o.count, 2);
	cr_assert_eq(pos, 3);
}

Test(opts, unknown_short_option)
{
	char *argv[] = { "test", "-x" };

	parse_fails(ARGC(argv), argv, "unknown option", "'-x'");
}

Test(opts, unknown_long_option)
{
	char *argv[] = { "test", "--nope" };
	char *argv2[] = { "test", "-n", "3", "--nope=5", "host" };

	parse_fails(ARGC(argv), argv, "unknown option", "--nope");
	parse_fails(ARGC(argv2), argv2, "unknown option", "--nope");
}

Test(opts, missing_value)
{
	char *a1[] = { "test", "-n" };
	char *a2[] = { "test", "--count" };
	char *a3[] = { "test", "-f", "--name" };

	parse_fails(ARGC(a1), a1, "needs a value", "-n");
	parse_fails(ARGC(a2), a2, "needs a value", "--count");
	parse_fails(ARGC(a3), a3, "needs a value", "--name");
}

Test(opts, bad_values_name_the_flag)
{
	char *a1[] = { "test", "-s", "12x" };
	char *a2[] = { "test", "--size", "1.1Ki" };
	char *a3[] = { "test", "-n", "abc" };
	char *a4[] = { "test", "-r", "-5" };
	char *a5[] = { "test", "--time", "5 parsecs" };
	char *a6[] = { "test", "--name=" };

	parse_fails(ARGC(a1), a1, "-s/--size", "12x");
	parse_fails(ARGC(a2), a2, "-s/--size", "whole number");
	parse_fails(ARGC(a3), a3, "-n/--count", "abc");
	parse_fails(ARGC(a4), a4, "-r/--rate", "negative");
	parse_fails(ARGC(a5), a5, "-t/--time", "parsecs");
	parse_fails(ARGC(a6), a6, "--name", "empty");
}

Test(opts, integer_range)
{
	char *lo[] = { "test", "-n", "0" };
	char *hi[] = { "test", "-n", "101" };
	char *edge[] = { "test", "-n", "100" };
	char *size0[] = { "test", "-s", "0" };
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	parse_fails(ARGC(lo), lo, "-n/--count", "at least 1");
	parse_fails(ARGC(hi), hi, "-n/--count", "at most 100");
	parse_fails(ARGC(size0), size0, "-s/--size", "at least 1");
	cr_assert_eq(parse(ARGC(edge), edge, &o, &pos, &help, &err), 0, "%s", err.msg);
	cr_assert_eq(o.count, 100);
}

Test(opts, seconds_range)
{
	char *lo[] = { "test", "-t", "100ms" };
	char *hi[] = { "test", "-t", "61" };
	char *edge[] = { "test", "-t", "500ms" };
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	parse_fails(ARGC(lo), lo, "-t/--time", "out of range");
	parse_fails(ARGC(hi), hi, "-t/--time", "out of range");
	cr_assert_eq(parse(ARGC(edge), edge, &o, &pos, &help, &err), 0, "%s", err.msg);
	cr_assert_float_eq(o.secs, 0.5, 1e-12);
}

Test(opts, no_max_means_unbounded)
{
	char *argv[] = { "test", "-s", "1Ti", "-r", "400G" };
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	cr_assert_eq(parse(ARGC(argv), argv, &o, &pos, &help, &err), 0, "%s", err.msg);
	cr_assert_eq(o.size, 1ull << 40);
	cr_assert_eq(o.rate, 400000000000ull);
}

Test(opts, flag_takes_no_value)
{
	char *argv[] = { "test", "--flag=yes" };
	struct topts o;
	struct ix_err err;
	bool help;
	int pos;

	cr_assert_eq(parse(ARGC(argv), argv, &o, &pos, &help, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not(o.flag);
}

Test(opts, help_long_and_short)
{
	char *a1[] = { "test", "--help" };
	char *a2[] = { "test", "-n", "5", "-h" };
	char *a3[] = { "test", "-n", "5" };
	struct topts o;
	struct ix_err err;
	bool help = false;
	int pos;

	cr_assert_eq(parse(ARGC(a1), a1, &o, &pos, &help, &err), 0);
	cr_assert(help);
	cr_assert(o.help);
	help = false;
	cr_assert_eq(parse(ARGC(a2), a2, &o, &pos, &help, &err), 0);
	cr_assert(help);
	cr_assert_eq(o.count, 5);
	help = true;
	cr_assert_eq(parse(ARGC(a3), a3, &o, &pos, &help, &err), 0);
	cr_assert_not(help, "help must be reset when not given");
}

Test(opts, help_text_lists_every_option)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	ix_opts_help(&tspec, f);
	fclose(f);
	cr_assert_not_null(strstr(text, "usage: ixperf test [OPTIONS] HOST\n"), "%s", text);
	cr_assert_not_null(strstr(text, "A command for the tests."));
	cr_assert_not_null(strstr(text, "-n, --count N"));
	cr_assert_not_null(strstr(text, "    --name NAME"));
	cr_assert_not_null(strstr(text, "-f, --flag "));
	cr_assert_not_null(strstr(text, "how many"));
	cr_assert_not_null(strstr(text, "Examples:"));
	free(text);
}

Test(opts, list_long_names)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	ix_opts_list(&tspec, f);
	fclose(f);
	cr_assert_str_eq(text, "--count\n--size\n--rate\n--time\n--name\n--flag\n--help\n");
	free(text);
}

/* The shared client rows compile into a table the parser accepts. */
struct client_only {
	struct ix_client_opts c;
};

static const struct ix_option client_rows[] = { IX_CLIENT_OPTION_ROWS(struct client_only,
								      "transport") };

Test(opts, client_rows)
{
	static const struct ix_cmd_spec spec = { .name = "x",
						 .usage = "",
						 .summary = "",
						 .opts = client_rows,
						 .nopts = IX_OPTS_END(client_rows) };
	char *argv[] = { "x", "-p", "6000", "-J", "-t", "3", "-s", "1Ki", "--path", "udp", "srv" };
	char *bad[] = { "x", "--port", "70000" };
	struct client_only o = { { 0 } };
	struct ix_err err = { 0 };
	bool help;
	int pos;

	cr_assert_eq(ix_opts_parse(&spec, ARGC(argv), argv, &o, &pos, &help, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(o.c.port, 6000);
	cr_assert(o.c.json);
	cr_assert_float_eq(o.c.time_s, 3.0, 1e-12);
	cr_assert_eq(o.c.size, 1024);
	cr_assert_str_eq(o.c.path, "udp");
	cr_assert_str_eq(argv[pos], "srv");
	cr_assert_eq(ix_opts_parse(&spec, ARGC(bad), bad, &o, &pos, &help, &err), -1);
	cr_assert_not_null(strstr(err.msg, "-p/--port"), "%s", err.msg);
}

/* ---- report errors ------------------------------------------------------ */

Test(report, error_line_and_code, .init = cr_redirect_stderr)
{
	struct ix_err err = { 0 };

	ix_fail(&err, IX_EXIT_UNAVAILABLE, "path '%s' is not available", "rdma");
	cr_assert_eq(ix_report_error("bw", &err), IX_EXIT_UNAVAILABLE);
	err.code = 0;
	cr_assert_eq(ix_report_error("lat", &err), IX_EXIT_FAIL, "code 0 still means failure");
	fflush(stderr);
	cr_assert_stderr_eq_str("ixperf bw: path 'rdma' is not available\n"
				"ixperf lat: path 'rdma' is not available\n");
}

/* An error may quote a peer (an agent's ERROR frame): no escape reaches the
 * terminal, raw C1 bytes included; UTF-8 text stays. */
Test(report, peer_text_is_made_safe, .init = cr_redirect_stderr)
{
	struct ix_err err = { 0 };

	ix_fail(&err, IX_EXIT_FAIL, "server h: %s",
		"bad\x1b]0;owned\x07 \x9b"
		"2J \xc2\x9b"
		"1m 5 \xc2\xb5s");
	cr_assert_eq(ix_report_error("mesh", &err), IX_EXIT_FAIL);
	fflush(stderr);
	cr_assert_stderr_eq_str("ixperf mesh: server h: bad?]0;owned? ?2J ?1m 5 \xc2\xb5s\n");
}

/* ---- sinks and atomic output -------------------------------------------- */

static char tmpdir[64];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ixperf-unit-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(tmpdir);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* Names in tmpdir, other than "." and "..". */
static int count_entries(char *only_name, size_t len)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (only_name)
			snprintf(only_name, len, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

TestSuite(sink, .init = make_tmpdir, .fini = remove_tmpdir);

Test(sink, commit_writes_file_atomically)
{
	char path[256], name[256];
	struct ix_sink s;
	struct ix_err err = { 0 };
	struct stat st;
	char *got;
	size_t len;

	snprintf(path, sizeof(path), "%s/out.json", tmpdir);
	cr_assert_eq(ix_sink_open(&s, path, &err), 0, "%s", err.msg);
	cr_assert_not_null(s.f);
	cr_assert_neq(s.f, stdout);
	fprintf(s.f, "{\"hello\": %d}\n", 42);
	fputs("second line\n", s.f);
	/* Nothing reaches the disk before the commit. */
	cr_assert_eq(count_entries(NULL, 0), 0);
	cr_assert_eq(ix_sink_commit(&s, &err), 0, "%s", err.msg);
	got = slurp(path, &len);
	cr_assert_str_eq(got, "{\"hello\": 42}\nsecond line\n");
	cr_assert_eq(len, strlen("{\"hello\": 42}\nsecond line\n"));
	free(got);
	cr_assert_eq(count_entries(name, sizeof(name)), 1, "temporary files left behind");
	cr_assert_str_eq(name, "out.json");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644);
}

Test(sink, commit_replaces_existing_file)
{
	char path[256];
	struct ix_sink s;
	struct ix_err err = { 0 };
	FILE *f;
	char *got;

	snprintf(path, sizeof(path), "%s/report.txt", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("an old and much longer report that must disappear entirely\n", f);
	fclose(f);
	cr_assert_eq(ix_sink_open(&s, path, &err), 0);
	fputs("new\n", s.f);
	cr_assert_eq(ix_sink_commit(&s, &err), 0, "%s", err.msg);
	got = slurp(path, NULL);
	cr_assert_str_eq(got, "new\n");
	free(got);
	cr_assert_eq(count_entries(NULL, 0), 1);
}

Test(sink, empty_report)
{
	char path[256];
	struct ix_sink s;
	struct ix_err err = { 0 };
	size_t len = 99;
	char *got;

	snprintf(path, sizeof(path), "%s/empty", tmpdir);
	cr_assert_eq(ix_sink_open(&s, path, &err), 0);
	cr_assert_eq(ix_sink_commit(&s, &err), 0, "%s", err.msg);
	got = slurp(path, &len);
	cr_assert_eq(len, 0);
	free(got);
}

/* An unwritable destination is refused, at open (before the test runs) or
 * at the latest at commit, with a message naming the path. */
Test(sink, missing_directory_fails)
{
	char path[256];
	struct ix_sink s;
	struct ix_err err = { 0 };
	int rc;

	snprintf(path, sizeof(path), "%s/no/such/dir/out.json", tmpdir);
	rc = ix_sink_open(&s, path, &err);
	if (rc == 0) {
		fputs("data\n", s.f);
		rc = ix_sink_commit(&s, &err);
	}
	cr_assert_eq(rc, -1);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	cr_assert_not_null(strstr(err.msg, path), "message '%s' does not name %s", err.msg, path);
	cr_assert_eq(count_entries(NULL, 0), 0);
}

Test(sink, output_atomic_into_missing_directory_fails)
{
	char path[256];
	struct ix_err err = { 0 };

	snprintf(path, sizeof(path), "%s/nodir/out.json", tmpdir);
	cr_assert_eq(ix_output_atomic(path, "x", 1, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	cr_assert_not_null(strstr(err.msg, path), "message '%s' does not name %s", err.msg, path);
	cr_assert_eq(count_entries(NULL, 0), 0);
}

Test(sink, file_in_current_directory)
{
	char cwd[512];
	struct ix_sink s;
	struct ix_err err = { 0 };
	char *got;

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(tmpdir), 0);
	cr_assert_eq(ix_sink_open(&s, "plain.txt", &err), 0, "%s", err.msg);
	fputs("here\n", s.f);
	cr_assert_eq(ix_sink_commit(&s, &err), 0, "%s", err.msg);
	got = slurp("plain.txt", NULL);
	cr_assert_str_eq(got, "here\n");
	free(got);
	cr_assert_eq(chdir(cwd), 0);
}

Test(sink, stdout_sink)
{
	struct ix_sink s;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_sink_open(&s, NULL, &err), 0);
	cr_assert_eq(s.f, stdout);
	cr_assert_null(s.path);
	cr_assert_eq(ix_sink_commit(&s, &err), 0);
}

Test(sink, output_atomic_writes_exact_bytes)
{
	static const char data[] = "a\0b\0c"; /* embedded NULs: length counts */
	char path[256];
	struct ix_err err = { 0 };
	size_t len;
	char *got;

	snprintf(path, sizeof(path), "%s/bin", tmpdir);
	cr_assert_eq(ix_output_atomic(path, data, 5, &err), 0, "%s", err.msg);
	got = slurp(path, &len);
	cr_assert_eq(len, 5);
	cr_assert_eq(memcmp(got, data, 5), 0);
	free(got);
	cr_assert_eq(count_entries(NULL, 0), 1);
}

Test(sink, output_atomic_large)
{
	size_t n = 3u * 1024 * 1024 + 7;
	char *data = malloc(n), *got, path[256];
	struct ix_err err = { 0 };
	size_t len;

	cr_assert_not_null(data);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	snprintf(path, sizeof(path), "%s/big", tmpdir);
	cr_assert_eq(ix_output_atomic(path, data, n, &err), 0, "%s", err.msg);
	got = slurp(path, &len);
	cr_assert_eq(len, n);
	cr_assert_eq(memcmp(got, data, n), 0);
	free(got);
	free(data);
}

Test(sink, output_atomic_path_too_long)
{
	char *path = malloc(5000);
	struct ix_err err = { 0 };

	cr_assert_not_null(path);
	memset(path, 'a', 4999);
	path[4999] = '\0';
	cr_assert_eq(ix_output_atomic(path, "x", 1, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, "too long"));
	free(path);
}

Test(sink, output_atomic_onto_a_directory_fails_cleanly)
{
	char path[256];
	struct ix_err err = { 0 };
	char name[256];

	snprintf(path, sizeof(path), "%s/sub", tmpdir);
	cr_assert_eq(mkdir(path, 0755), 0);
	cr_assert_eq(ix_output_atomic(path, "x", 1, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	cr_assert_not_null(strstr(err.msg, path), "%s", err.msg);
	/* the temporary file was removed: only the directory is left */
	cr_assert_eq(count_entries(name, sizeof(name)), 1);
	cr_assert_str_eq(name, "sub");
	rmdir(path);
}

/* ---- helpers shared by the client commands -------------------------------- */

Test(client_opts, defaults_and_overrides)
{
	struct ix_client_opts o = { 0 };
	struct ix_client cl;

	ix_client_from_opts(&cl, &o, "node07");
	cr_assert_str_eq(cl.host, "node07");
	cr_assert_eq(cl.port, IX_DEFAULT_PORT);
	cr_assert_eq(cl.fd, -1);
	o.port = 6000;
	o.bind = "10.0.0.1";
	ix_client_from_opts(&cl, &o, "node08");
	cr_assert_eq(cl.port, 6000);
	cr_assert_str_eq(cl.bind_addr, "10.0.0.1");
}

/* IXPERF_RDMA_TIMEOUT: seconds as -t takes them, 0.1 to 3600; anything
 * else is refused, naming the variable and the value. */
Test(common, rdma_timeout_from_the_environment)
{
	static const struct {
		const char *v;
		int64_t ns; /* 0: refused */
	} cases[] = {
		{ "60", 60000000000LL },
		{ "0.5", 500000000LL },
		{ "0.1", 100000000LL },
		{ "3600", 3600000000000LL },
		{ "0", 0 },
		{ "-3", 0 },
		{ "3601", 0 },
		{ "abc", 0 },
		{ "nan", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ix_err err = { 0 };
		int64_t ns = -1;
		int rc = ix_env_rdma_timeout(cases[i].v, &ns, &err);

		if (cases[i].ns) {
			cr_assert_eq(rc, 0, "'%s': %s", cases[i].v, err.msg);
			cr_assert_eq(ns, cases[i].ns, "'%s'", cases[i].v);
		} else {
			cr_assert_lt(rc, 0, "'%s' taken", cases[i].v);
			cr_assert(strstr(err.msg, "IXPERF_RDMA_TIMEOUT") &&
					  strstr(err.msg, cases[i].v),
				  "%s", err.msg);
			cr_assert_eq(err.code, IX_EXIT_USAGE);
		}
	}
}
