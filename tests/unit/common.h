/* Small pieces several unit tests share: a JSON document as a reader of
 * the output (or the peer) sees it, directory trees for sysfs fixtures
 * built at run time, and a loopback TCP connection. */
#ifndef IX_TEST_COMMON_H
#define IX_TEST_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <jansson.h>

/* Dump j to text and parse it back as the framing and the file readers
 * do (duplicates refused); j is released. */
static inline json_t *ix_test_json_roundtrip(json_t *j)
{
	json_error_t jerr;
	char *text;
	json_t *back;

	cr_assert_not_null(j, "the renderer returned NULL");
	text = json_dumps(j, JSON_COMPACT);
	cr_assert_not_null(text);
	back = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	cr_assert_not_null(back, "cannot parse its own output: %s", jerr.text);
	free(text);
	json_decref(j);
	return back;
}

/* A connected loopback TCP pair: fds[0] dialled, fds[1] accepted. */
static inline void ix_test_tcp_pair(int fds[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	cr_assert_geq(l, 0);
	cr_assert_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(l, 1), 0);
	cr_assert_eq(getsockname(l, (struct sockaddr *)&a, &al), 0);
	fds[0] = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_eq(connect(fds[0], (struct sockaddr *)&a, sizeof(a)), 0);
	fds[1] = accept(l, NULL, NULL);
	cr_assert_geq(fds[1], 0);
	close(l);
}

/* mkdir -p */
static inline void ix_test_mkdirs(const char *path)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

/* DIR/NAME holding VALUE and a newline, as sysfs attributes read. */
static inline void ix_test_put(const char *dir, const char *name, const char *value)
{
	char path[1024];
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		cr_assert_fail("path too long: %s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fprintf(f, "%s\n", value);
	fclose(f);
}

#include "probes/host/topo.h"

/* A layout of tests/topo/mkfixture.py scanned into t, built under a fresh
 * directory that is removed again (the test skips without python3). */
/* A layout of tests/topo/mkfixture.py built under dir/t, dir a fresh
 * directory made from the mkdtemp template tmpl (the test skips without
 * python3); the caller removes dir. */
static inline void ix_test_mkfixture(const char *layout, char *dir, size_t len, const char *tmpl)
{
	char cmd[512], *top = getenv("top_srcdir");

	if (system("command -v python3 >/dev/null") != 0)
		cr_skip_test("python3 is not installed (tests/topo/mkfixture.py builds the tree)");
	snprintf(dir, len, "%s", tmpl);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/topo/mkfixture.py' %s '%s/t'",
		 top && *top ? top : ".", layout, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static inline void ix_test_topo_fixture(const char *layout, struct ix_topo *t)
{
	char dir[64], cmd[512];
	struct ix_err err = { 0 };

	ix_test_mkfixture(layout, dir, sizeof(dir), "/tmp/ixperf-topofx.XXXXXX");
	snprintf(cmd, sizeof(cmd), "%s/t", dir);
	cr_assert_eq(ix_topo_scan(cmd, t, &err), 0, "%s", err.msg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

#endif
