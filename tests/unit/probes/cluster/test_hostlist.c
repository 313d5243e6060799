/* Unit tests for probes/cluster/hostlist.c: comma lists, Slurm ranges, ports, IPv6
 * literals, @files, $SLURM_JOB_NODELIST, and the error messages. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/cluster/hostlist.h"

#define PORT 5201

/* Parse spec into a fresh list, asserting success. */
static struct ix_hostlist parse_ok(const char *spec)
{
	struct ix_hostlist l = { 0 };
	struct ix_err err = { 0 };
	int rc = ix_hostlist_parse(spec, PORT, &l, &err);

	cr_assert_eq(rc, 0, "'%s' refused: %s", spec ? spec : "(null)", err.msg);
	return l;
}

/* Parse spec, asserting a usage error whose message holds every non-NULL needle
 * and an empty list afterwards. */
static void parse_bad(const char *spec, const char *a, const char *b, const char *c)
{
	struct ix_hostlist l = { 0 };
	struct ix_err err = { 0 };
	const char *needles[] = { a, b, c };
	int rc = ix_hostlist_parse(spec, PORT, &l, &err);

	cr_assert_eq(rc, -1, "'%s' accepted (%zu hosts)", spec, l.n);
	cr_assert_eq(err.code, IX_EXIT_USAGE, "'%s': code %d", spec, err.code);
	for (size_t i = 0; i < 3; i++)
		cr_assert(!needles[i] || strstr(err.msg, needles[i]),
			  "'%s': message \"%s\" lacks \"%s\"", spec, err.msg, needles[i]);
	cr_assert_eq(l.n, 0, "'%s': %zu hosts left after an error", spec, l.n);
	ix_hostlist_free(&l);
}

/* Assert l holds exactly the given names (NULL-terminated), all on port. */
static void expect_names(const struct ix_hostlist *l, uint16_t port, const char *const *names)
{
	size_t n = 0;

	while (names[n])
		n++;
	cr_assert_eq(l->n, n, "%zu hosts, expected %zu", l->n, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(l->v[i].name, names[i], "host %zu", i);
		cr_assert_eq(l->v[i].port, port, "port of %s", names[i]);
	}
}

/* ---- comma lists -------------------------------------------------------- */

Test(list, plain_names_keep_order_and_default_port)
{
	struct ix_hostlist l = parse_ok("alpha,beta.example.com,gamma_1,10.0.0.7");

	expect_names(
		&l, PORT,
		(const char *const[]){ "alpha", "beta.example.com", "gamma_1", "10.0.0.7", NULL });
	cr_assert_geq(l.cap, l.n);
	ix_hostlist_free(&l);
	cr_assert_null(l.v);
	cr_assert_eq(l.n, 0);
	cr_assert_eq(l.cap, 0);
}

Test(list, whitespace_around_entries_is_trimmed)
{
	struct ix_hostlist l = parse_ok("  a ,\tb\t,c  ,\n d");

	expect_names(&l, PORT, (const char *const[]){ "a", "b", "c", "d", NULL });
	ix_hostlist_free(&l);
}

Test(list, empty_entries_are_refused_with_position)
{
	parse_bad("a,,b", "empty entry at position 3", NULL, NULL);
	parse_bad("a,b,", "empty entry at position 5", NULL, NULL);
	parse_bad(",a", "empty entry at position 1", NULL, NULL);
	parse_bad("a, ,b", "empty entry at position 3", NULL, NULL);
	parse_bad("   ", "empty entry at position 1", NULL, NULL);
}

Test(list, appends_to_an_existing_list)
{
	struct ix_hostlist l = parse_ok("a");
	struct ix_err err = { 0 };

	cr_assert_eq(ix_hostlist_parse("b,c", 7000, &l, &err), 0, "%s", err.msg);
	cr_assert_eq(l.n, 3);
	cr_assert_str_eq(l.v[0].name, "a");
	cr_assert_eq(l.v[0].port, PORT);
	cr_assert_str_eq(l.v[2].name, "c");
	cr_assert_eq(l.v[2].port, 7000);
	ix_hostlist_free(&l);
}

Test(list, free_is_safe_on_empty_and_null_lists)
{
	struct ix_hostlist l = { 0 };

	ix_hostlist_free(&l);
	ix_hostlist_free(NULL);
	cr_assert_null(l.v);
}

/* ---- Slurm ranges ------------------------------------------------------- */

Test(range, list_and_single_values_in_order)
{
	struct ix_hostlist l = parse_ok("node[01-16,20]");

	cr_assert_eq(l.n, 17);
	cr_assert_str_eq(l.v[0].name, "node01");
	cr_assert_str_eq(l.v[8].name, "node09");
	cr_assert_str_eq(l.v[9].name, "node10");
	cr_assert_str_eq(l.v[15].name, "node16");
	cr_assert_str_eq(l.v[16].name, "node20");
	for (size_t i = 0; i < l.n; i++)
		cr_assert_eq(l.v[i].port, PORT);
	ix_hostlist_free(&l);
}

Test(range, padding_follows_the_start_bound)
{
	struct ix_hostlist l = parse_ok("n[8-11]");

	expect_names(&l, PORT, (const char *const[]){ "n8", "n9", "n10", "n11", NULL });
	ix_hostlist_free(&l);
	l = parse_ok("n[008-010]");
	expect_names(&l, PORT, (const char *const[]){ "n008", "n009", "n010", NULL });
	ix_hostlist_free(&l);
	l = parse_ok("n[05],m[7,09-10]");
	expect_names(&l, PORT, (const char *const[]){ "n05", "m7", "m09", "m10", NULL });
	ix_hostlist_free(&l);
}

Test(range, several_groups_expand_as_a_cartesian_product)
{
	struct ix_hostlist l = parse_ok("r[1-2]n[1-3]");

	expect_names(&l, PORT,
		     (const char *const[]){ "r1n1", "r1n2", "r1n3", "r2n1", "r2n2", "r2n3", NULL });
	ix_hostlist_free(&l);
	l = parse_ok("r[1,3]c[0-1]n[7]");
	expect_names(&l, PORT,
		     (const char *const[]){ "r1c0n7", "r1c1n7", "r3c0n7", "r3c1n7", NULL });
	ix_hostlist_free(&l);
}

Test(range, prefix_and_suffix_around_brackets)
{
	struct ix_hostlist l = parse_ok("gpu[1-2]-ib,[1-2]x,node[9-10].cluster.local");

	expect_names(&l, PORT,
		     (const char *const[]){ "gpu1-ib", "gpu2-ib", "1x", "2x", "node9.cluster.local",
					    "node10.cluster.local", NULL });
	ix_hostlist_free(&l);
}

Test(range, commas_inside_brackets_belong_to_the_range)
{
	struct ix_hostlist l = parse_ok("node[01-02,05],gpu[1,3], login");

	expect_names(&l, PORT,
		     (const char *const[]){ "node01", "node02", "node05", "gpu1", "gpu3", "login",
					    NULL });
	ix_hostlist_free(&l);
}

Test(range, large_expansion_keeps_padding)
{
	struct ix_hostlist l = parse_ok("node[0001-4096]");
	char want[32];

	cr_assert_eq(l.n, 4096);
	cr_assert_str_eq(l.v[0].name, "node0001");
	cr_assert_str_eq(l.v[999].name, "node1000");
	cr_assert_str_eq(l.v[4095].name, "node4096");
	for (size_t i = 0; i < l.n; i++) {
		snprintf(want, sizeof(want), "node%04u", (unsigned)(i + 1));
		cr_assert_str_eq(l.v[i].name, want);
	}
	ix_hostlist_free(&l);
}

Test(range, exactly_the_cap_is_accepted_and_one_more_refused)
{
	struct ix_hostlist l = parse_ok("n[1-65536]");
	struct ix_err err = { 0 };

	cr_assert_eq(l.n, IX_HOSTLIST_MAX);
	cr_assert_str_eq(l.v[IX_HOSTLIST_MAX - 1].name, "n65536");
	cr_assert_eq(ix_hostlist_parse("extra", PORT, &l, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "'extra' at position 1"), "%s", err.msg);
	cr_assert(strstr(err.msg, "65536"), "%s", err.msg);
	cr_assert_eq(l.n, IX_HOSTLIST_MAX);
	ix_hostlist_free(&l);
}

Test(range, too_many_hosts_are_refused)
{
	parse_bad("n[1-70000]", "'n[1-70000]' at position 1", "more than 65536 hosts", NULL);
	parse_bad("a,r[1-300]n[1-300]", "'r[1-300]n[1-300]' at position 3", "more than 65536",
		  NULL);
	parse_bad("n[1-40000],m[1-40000]", "'m[1-40000]' at position 12", "more than 65536", NULL);
	parse_bad("n[0-99999999999999999]", "more than 65536", NULL, NULL);
}

Test(range, reversed_range_names_token_and_position)
{
	struct ix_hostlist l = { 0 };
	struct ix_err err = { 0 };

	cr_assert_eq(ix_hostlist_parse("a,b,c,node[05-01]", PORT, &l, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_str_eq(
		err.msg,
		"host list: 'node[05-01]' at position 7: range start 05 is above its end 01");
	ix_hostlist_free(&l);
}

Test(range, malformed_brackets_are_refused)
{
	parse_bad("a,node[1-2", "'node[1-2' at position 3", "unbalanced '['", NULL);
	parse_bad("node1-2]", "'node1-2]' at position 1", "unbalanced ']'", NULL);
	parse_bad("node[1-2]]", "unbalanced ']'", NULL, NULL);
	parse_bad("node[]", "'node[]' at position 1", "empty brackets", NULL);
	parse_bad("node[1-[2-3]]", "'node[1-[2-3]]'", "nested brackets", NULL);
	parse_bad("node[a-3]", "'node[a-3]'", "range bound 'a' is not a number", NULL);
	parse_bad("node[1-b]", "range bound 'b' is not a number", NULL, NULL);
	parse_bad("node[1-2-3]", "range bound '2-3' is not a number", NULL, NULL);
	parse_bad("node[ 1-2]", "range bound ' 1' is not a number", NULL, NULL);
	parse_bad("node[-3]", "empty range bound", NULL, NULL);
	parse_bad("node[1-]", "empty range bound", NULL, NULL);
	parse_bad("node[1,,2]", "empty range in brackets", NULL, NULL);
	parse_bad("node[1,]", "empty range in brackets", NULL, NULL);
	parse_bad("n[1234567890123456789]", "too large", NULL, NULL);
}

/* ---- names -------------------------------------------------------------- */

Test(name, invalid_characters_are_named)
{
	parse_bad("good,no/de", "'no/de' at position 6", "invalid character '/'", NULL);
	parse_bad("no de", "invalid character ' '", NULL, NULL);
	parse_bad("node#1", "invalid character '#'", NULL, NULL);
	parse_bad("n[1-2]*", "invalid character '*'", NULL, NULL);
	parse_bad("bad\x01name", "invalid character 0x01", NULL, NULL);
}

Test(name, length_limit)
{
	char spec[IX_HOST_NAME_MAX + 8];
	struct ix_hostlist l;

	memset(spec, 'a', IX_HOST_NAME_MAX - 1);
	spec[IX_HOST_NAME_MAX - 1] = '\0';
	l = parse_ok(spec);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(strlen(l.v[0].name), IX_HOST_NAME_MAX - 1);
	ix_hostlist_free(&l);
	memset(spec, 'a', IX_HOST_NAME_MAX);
	spec[IX_HOST_NAME_MAX] = '\0';
	parse_bad(spec, "longer than 255 characters", "...' at position 1", NULL);
	/* The limit holds for expanded names too. */
	memset(spec, 'a', IX_HOST_NAME_MAX - 2);
	memcpy(spec + IX_HOST_NAME_MAX - 2, "[9-10]", 7);
	parse_bad(spec, "longer than 255 characters", NULL, NULL);
}

Test(name, duplicates_are_refused)
{
	struct ix_hostlist l;
	struct ix_err err = { 0 };

	parse_bad("a,b,a", "'a' at position 5", "duplicate host a:5201", NULL);
	parse_bad("node[1-3],node2", "'node2' at position 11", "duplicate host node2:5201", NULL);
	parse_bad("n[1,1]", "duplicate host n1:5201", NULL, NULL);
	parse_bad("n[1-3,2]", "'n[1-3,2]' at position 1", "duplicate host n2:5201", NULL);
	parse_bad("x:5201,x", "duplicate host x:5201", NULL, NULL);
	parse_bad("[::1]:5201,::1", "duplicate host [::1]:5201", NULL, NULL);
	/* Same name on another port, or another padding, is another host. */
	l = parse_ok("a:6000,a:6001,a,n1,n01");
	cr_assert_eq(l.n, 5);
	/* Duplicates across calls are caught, and the list is rolled back. */
	cr_assert_eq(ix_hostlist_parse("b,c,a:6001", PORT, &l, &err), -1);
	cr_assert(strstr(err.msg, "duplicate host a:6001"), "%s", err.msg);
	cr_assert_eq(l.n, 5);
	ix_hostlist_free(&l);
}

/* ---- ports and IPv6 ----------------------------------------------------- */

Test(port, override_per_entry)
{
	struct ix_hostlist l = parse_ok("a:6000,b,c:1,d:65535");

	cr_assert_eq(l.n, 4);
	cr_assert_str_eq(l.v[0].name, "a");
	cr_assert_eq(l.v[0].port, 6000);
	cr_assert_eq(l.v[1].port, PORT);
	cr_assert_eq(l.v[2].port, 1);
	cr_assert_eq(l.v[3].port, 65535);
	ix_hostlist_free(&l);
}

Test(port, applies_to_every_expanded_host)
{
	struct ix_hostlist l = parse_ok("node[1-4]:6000,gpu[1-2]-ib:7000,login");

	cr_assert_eq(l.n, 7);
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(l.v[i].port, 6000, "host %zu", i);
	cr_assert_str_eq(l.v[3].name, "node4");
	cr_assert_str_eq(l.v[5].name, "gpu2-ib");
	cr_assert_eq(l.v[5].port, 7000);
	cr_assert_eq(l.v[6].port, PORT);
	ix_hostlist_free(&l);
}

Test(port, bad_ports_are_refused)
{
	parse_bad("a,host:0", "'host:0' at position 3", "port 0 is out of range 1-65535", NULL);
	parse_bad("host:70000", "port 70000 is out of range", NULL, NULL);
	parse_bad("host:99999999999999999999", "out of range", NULL, NULL);
	parse_bad("host:abc", "'host:abc' at position 1", "port 'abc' is not a decimal number",
		  NULL);
	parse_bad("host:0x10", "not a decimal number", NULL, NULL);
	parse_bad("host:+80", "not a decimal number", NULL, NULL);
	parse_bad("host:-1", "not a decimal number", NULL, NULL);
	parse_bad("host:", "missing port after ':'", NULL, NULL);
	parse_bad(":6000", "missing host name before ':'", NULL, NULL);
	parse_bad("n[1-2]:", "missing port", NULL, NULL);
}

Test(ipv6, bracketed_literals_with_and_without_port)
{
	struct ix_hostlist l = parse_ok("[::1]:6000,[fe80::1],[2001:db8::10]:443");

	cr_assert_eq(l.n, 3);
	cr_assert_str_eq(l.v[0].name, "::1");
	cr_assert_eq(l.v[0].port, 6000);
	/* "[fe80::1]" holds a ':', so it is a literal and not a Slurm range. */
	cr_assert_str_eq(l.v[1].name, "fe80::1");
	cr_assert_eq(l.v[1].port, PORT);
	cr_assert_str_eq(l.v[2].name, "2001:db8::10");
	cr_assert_eq(l.v[2].port, 443);
	ix_hostlist_free(&l);
}

Test(ipv6, bare_literals_take_the_default_port)
{
	struct ix_hostlist l = parse_ok("fe80::1,::1,::ffff:10.0.0.1");

	expect_names(&l, PORT, (const char *const[]){ "fe80::1", "::1", "::ffff:10.0.0.1", NULL });
	ix_hostlist_free(&l);
}

Test(ipv6, bad_literals_are_refused)
{
	parse_bad("[::1]x", "'[::1]x' at position 1", "unexpected 'x'", NULL);
	parse_bad("[::1]:", "missing port", NULL, NULL);
	parse_bad("[::1]:0", "out of range", NULL, NULL);
	parse_bad("[::1]:80:90", "not a decimal number", NULL, NULL);
	parse_bad("[::g]", "not an IPv6 address", NULL, NULL);
	parse_bad("host:80:90", "'host:80:90' at position 1", "not an IPv6 address", NULL);
	parse_bad("[fe80::1%eth0]", "invalid character '%'", NULL, NULL);
	parse_bad("[:]", "not an IPv6 address", NULL, NULL);
}

Test(format, name_port_and_brackets_for_ipv6)
{
	struct ix_host h = { .name = "node01", .port = 6000 };
	struct ix_host v6 = { .name = "fe80::1", .port = 443 };
	char buf[IX_HOST_NAME_MAX + 16];
	char small[6];

	ix_host_format(&h, buf, sizeof(buf));
	cr_assert_str_eq(buf, "node01:6000");
	ix_host_format(&v6, buf, sizeof(buf));
	cr_assert_str_eq(buf, "[fe80::1]:443");
	ix_host_format(&h, small, sizeof(small));
	cr_assert_str_eq(small, "node0");
	ix_host_format(&h, small, 0);
}

Test(format, launched_tasks_by_rank_and_node)
{
	struct ix_host plain = { .name = "node07", .port = 40211, .task = 4 };
	struct ix_host same = { .name = "node07", .port = 1, .task = 1, .node = "node07" };
	struct ix_host bound = { .name = "10.0.0.2", .port = 5301, .task = 3, .node = "node1" };
	struct ix_host v6 = { .name = "fd00::2", .port = 5301, .task = 1, .node = "node1" };
	struct ix_host missing = { .name = "", .port = 0, .task = 3, .node = "node1" };
	struct ix_host unlaunched = { .name = "10.0.0.2", .port = 5301, .node = "node1" };
	char buf[IX_HOST_NAME_MAX + 16];

	ix_host_format(&plain, buf, sizeof(buf));
	cr_assert_str_eq(buf, "r3@node07:40211");
	ix_host_format(&same, buf, sizeof(buf));
	cr_assert_str_eq(buf, "r0@node07:1");
	/* --task-bind: the node and the address it listens on */
	ix_host_format(&bound, buf, sizeof(buf));
	cr_assert_str_eq(buf, "r2@node1(10.0.0.2):5301");
	ix_host_format(&v6, buf, sizeof(buf));
	cr_assert_str_eq(buf, "r0@node1(fd00::2):5301");
	/* a task that never published an agent */
	ix_host_format(&missing, buf, sizeof(buf));
	cr_assert_str_eq(buf, "r2@node1:0");
	ix_host_format(&unlaunched, buf, sizeof(buf));
	cr_assert_str_eq(buf, "10.0.0.2:5301");
}

/* ---- @files ------------------------------------------------------------- */

static char tmp_paths[3][64];

static void tmp_teardown(void)
{
	for (size_t i = 0; i < 3; i++)
		if (tmp_paths[i][0])
			unlink(tmp_paths[i]);
}

/* Write text to a new temporary file and return its path. */
static const char *tmp_file(size_t slot, const char *text)
{
	char *path = tmp_paths[slot];
	size_t n = strlen(text);
	int fd;

	snprintf(path, sizeof(tmp_paths[slot]), "/tmp/ixperf-hostlist-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0, "mkstemp failed");
	cr_assert_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	return path;
}

TestSuite(file, .fini = tmp_teardown);

Test(file, entries_comments_and_blank_lines)
{
	const char *path = tmp_file(0, "# cluster A\n"
				       "node[01-03]   # compute\n"
				       "\n"
				       "   \t\n"
				       "login1, login2:6000\r\n"
				       "[::1]:7000\n"
				       "gpu[1-2]-ib");
	char spec[128];
	struct ix_hostlist l;

	snprintf(spec, sizeof(spec), "@%s", path);
	const char *names[] = { "node01", "node02", "node03",  "login1",
				"login2", "::1",    "gpu1-ib", "gpu2-ib" };
	const uint16_t ports[] = { PORT, PORT, PORT, PORT, 6000, 7000, PORT, PORT };

	l = parse_ok(spec);
	cr_assert_eq(l.n, 8);
	for (size_t i = 0; i < 8; i++) {
		cr_assert_str_eq(l.v[i].name, names[i], "host %zu", i);
		cr_assert_eq(l.v[i].port, ports[i], "port of %s", names[i]);
	}
	ix_hostlist_free(&l);
}

Test(file, one_entry_of_a_comma_list)
{
	const char *path = tmp_file(0, "m1\nm2\n");
	char spec[128];
	struct ix_hostlist l;

	snprintf(spec, sizeof(spec), "a, @%s ,b", path);
	l = parse_ok(spec);
	expect_names(&l, PORT, (const char *const[]){ "a", "m1", "m2", "b", NULL });
	ix_hostlist_free(&l);
}

Test(file, nested_at_is_refused_with_file_and_line)
{
	const char *inner = tmp_file(0, "x\n");
	char text[128], spec[128], want[160];
	const char *outer;

	snprintf(text, sizeof(text), "a\n# comment\n@%s\n", inner);
	outer = tmp_file(1, text);
	snprintf(spec, sizeof(spec), "@%s", outer);
	snprintf(want, sizeof(want), "at %s line 3", outer);
	parse_bad(spec, want, "cannot be nested", inner);
}

Test(file, errors_inside_a_file_name_file_and_line)
{
	const char *path = tmp_file(0, "ok1\n\nnode[05-01]\n");
	char spec[128], want[160];

	snprintf(spec, sizeof(spec), "@%s", path);
	snprintf(want, sizeof(want), "'node[05-01]' at %s line 3", path);
	parse_bad(spec, want, "range start 05 is above its end 01", NULL);
	path = tmp_file(1, "a\nb,\n");
	snprintf(spec, sizeof(spec), "@%s", path);
	snprintf(want, sizeof(want), "empty entry at %s line 2", path);
	parse_bad(spec, want, NULL, NULL);
	/* Duplicates between the spec and a file are caught too. */
	path = tmp_file(2, "b\na\n");
	snprintf(spec, sizeof(spec), "a,@%s", path);
	snprintf(want, sizeof(want), "line 2");
	parse_bad(spec, want, "duplicate host a:5201", NULL);
}

Test(file, missing_or_empty_files_are_refused)
{
	const char *path = tmp_file(0, "# nothing here\n\n");
	char spec[128];

	parse_bad("a,@/nonexistent/ixperf-hosts.txt",
		  "'@/nonexistent/ixperf-hosts.txt' at position 3",
		  "cannot read host file /nonexistent/ixperf-hosts.txt", NULL);
	parse_bad("@", "missing file name after '@'", NULL, NULL);
	snprintf(spec, sizeof(spec), "@%s", path);
	parse_bad(spec, "holds no hosts", path, NULL);
}

/* ---- $SLURM_JOB_NODELIST ------------------------------------------------ */

Test(slurm, nodelist_is_the_default)
{
	struct ix_hostlist l;

	cr_assert_eq(setenv("SLURM_JOB_NODELIST", "gpu[01-03],login", 1), 0);
	l = parse_ok(NULL);
	expect_names(&l, PORT, (const char *const[]){ "gpu01", "gpu02", "gpu03", "login", NULL });
	ix_hostlist_free(&l);
	l = parse_ok("");
	cr_assert_eq(l.n, 4);
	ix_hostlist_free(&l);
	/* An explicit spec wins over the variable. */
	l = parse_ok("other");
	expect_names(&l, PORT, (const char *const[]){ "other", NULL });
	ix_hostlist_free(&l);
}

Test(slurm, unset_or_empty_nodelist_is_an_error)
{
	struct ix_hostlist l = { 0 };
	struct ix_err err = { 0 };

	cr_assert_eq(unsetenv("SLURM_JOB_NODELIST"), 0);
	cr_assert_eq(ix_hostlist_parse(NULL, PORT, &l, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_str_eq(err.msg, "no hosts given and SLURM_JOB_NODELIST is not set");
	cr_assert_eq(setenv("SLURM_JOB_NODELIST", "", 1), 0);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(ix_hostlist_parse("", PORT, &l, &err), -1);
	cr_assert_str_eq(err.msg, "no hosts given and SLURM_JOB_NODELIST is not set");
	cr_assert_eq(l.n, 0);
}

Test(slurm, errors_name_the_variable)
{
	cr_assert_eq(setenv("SLURM_JOB_NODELIST", "n[1-2],n[3-", 1), 0);
	parse_bad(NULL, "'n[3-' at position 8 of SLURM_JOB_NODELIST", "unbalanced '['", NULL);
}
