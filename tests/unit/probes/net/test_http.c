/* Unit tests for probes/net/http.c: request heads from a hostile peer,
 * each refused with the status it earns, and the listen address of the
 * command line. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/net/http.h"

static enum ix_http_parse parse(const char *s, struct ix_http_req *req)
{
	return ix_http_parse(s, strlen(s), req);
}

Test(http, a_plain_get)
{
	struct ix_http_req r;

	cr_assert_eq(parse("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n", &r),
		     IX_HTTP_DONE);
	cr_assert_str_eq(r.method, "GET");
	cr_assert_str_eq(r.path, "/metrics");
	cr_assert_eq(r.minor, 1);
	cr_assert_eq(r.head_len, strlen("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n"));
}

Test(http, bare_lf_query_and_http10)
{
	struct ix_http_req r;

	cr_assert_eq(parse("HEAD /metrics?x=1&y HTTP/1.0\n\n", &r), IX_HTTP_DONE);
	cr_assert_str_eq(r.method, "HEAD");
	cr_assert_str_eq(r.path, "/metrics");
	cr_assert_eq(r.minor, 0);
}

Test(http, an_unfinished_head_wants_more)
{
	struct ix_http_req r;

	cr_assert_eq(parse("", &r), IX_HTTP_MORE);
	cr_assert_eq(parse("GET /metrics HTT", &r), IX_HTTP_MORE);
	cr_assert_eq(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r), IX_HTTP_MORE);
}

static void refused(const char *s, size_t len, int status)
{
	struct ix_http_req r;

	cr_assert_eq(ix_http_parse(s, len, &r), IX_HTTP_BAD, "accepted: %.60s", s);
	cr_assert_eq(r.status, status, "%.60s: %d, expected %d", s, r.status, status);
}

Test(http, malformed_request_lines)
{
	refused("GET\r\n\r\n", 7, 400);
	refused(" GET / HTTP/1.1\r\n\r\n", 19, 400);
	refused("GET metrics HTTP/1.1\r\n\r\n", 24, 400); /* not origin-form */
	refused("GET http://x/ HTTP/1.1\r\n\r\n", 26, 400);
	refused("GET /a\tb HTTP/1.1\r\n\r\n", 21, 400);
	refused("GET / HTTP/1.1 x\r\n\r\n", 20, 400);
	refused("GET / HTTP/11\r\n\r\n", 17, 400);
	refused("GET / FTP/1.1\r\n\r\n", 17, 400);
	refused("G(T / HTTP/1.1\r\n\r\n", 18, 400);
	refused("GET / HTTP/1.1\r\r\n\r\n", 19, 400); /* a CR inside a line */
}

Test(http, statuses_of_what_it_will_not_do)
{
	refused("GET / HTTP/2.0\r\n\r\n", 18, 505);
	refused("GET / HTTP/0.9\r\n\r\n", 18, 505);
	refused("PROPPATCHX / HTTP/1.1\r\n\r\n", 25, 501); /* method of 10 */
}

Test(http, a_nul_anywhere_is_refused)
{
	static const char s[] = "GET /metrics HTTP/1.1\r\nHost: a\0b\r\n\r\n";

	refused(s, sizeof(s) - 1, 400);
}

Test(http, malformed_headers)
{
	refused("GET / HTTP/1.1\r\nno colon\r\n\r\n", 28, 400);
	refused("GET / HTTP/1.1\r\n: empty name\r\n\r\n", 32, 400);
	refused("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 31, 400);
	refused("GET / HTTP/1.1\r\nX: a\x01z\r\n\r\n", 25, 400);
	refused("GET / HTTP/1.1\r\nX: a\x7fz\r\n\r\n", 25, 400);
}

Test(http, a_header_value_with_tabs_and_utf8_passes)
{
	struct ix_http_req r;

	cr_assert_eq(parse("GET / HTTP/1.1\r\nUser-Agent:\tPrometheus/2.42 \xc3\xa9\r\n\r\n", &r),
		     IX_HTTP_DONE);
	cr_assert_str_eq(r.path, "/");
}

Test(http, too_long_is_431_or_414)
{
	static char big[IX_HTTP_HEAD_MAX + 64];
	int n;

	/* No end of line within the limit. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	refused(big, sizeof(big), 431);
	/* Lines that never end the head. */
	n = snprintf(big, sizeof(big), "GET / HTTP/1.1\r\n");
	while ((size_t)n + 8 < sizeof(big))
		n += snprintf(big + n, sizeof(big) - (size_t)n, "X: 12\r\n");
	refused(big, (size_t)n, 431);
	/* A target of IX_HTTP_TARGET_MAX characters. */
	memset(big, 0, sizeof(big));
	memcpy(big, "GET /", 5);
	memset(big + 5, 'm', IX_HTTP_TARGET_MAX);
	memcpy(big + 5 + IX_HTTP_TARGET_MAX, " HTTP/1.1\r\n\r\n", 13);
	refused(big, strlen(big), 414);
}

Test(http, the_head_limit_is_exact)
{
	static char s[IX_HTTP_HEAD_MAX + 1];
	struct ix_http_req r;
	size_t fill;

	/* A head of exactly IX_HTTP_HEAD_MAX bytes is taken. */
	memcpy(s, "GET / HTTP/1.1\r\nX: ", 19);
	fill = IX_HTTP_HEAD_MAX - 19 - 4;
	memset(s + 19, 'v', fill);
	memcpy(s + 19 + fill, "\r\n\r\n", 4);
	cr_assert_eq(ix_http_parse(s, IX_HTTP_HEAD_MAX, &r), IX_HTTP_DONE);
	cr_assert_eq(r.head_len, IX_HTTP_HEAD_MAX);
	/* One byte more is not. */
	memmove(s + 20, s + 19, IX_HTTP_HEAD_MAX - 19);
	cr_assert_eq(ix_http_parse(s, IX_HTTP_HEAD_MAX + 1, &r), IX_HTTP_BAD);
	cr_assert_eq(r.status, 431);
}

Test(http, listen_addresses)
{
	struct ix_err err = { 0 };
	char host[64];
	uint16_t port;

	cr_assert_eq(ix_http_parse_listen("127.0.0.1:9310", host, sizeof(host), &port, &err), 0);
	cr_assert_str_eq(host, "127.0.0.1");
	cr_assert_eq(port, 9310);
	cr_assert_eq(ix_http_parse_listen(":0", host, sizeof(host), &port, &err), 0);
	cr_assert_str_eq(host, "");
	cr_assert_eq(port, 0);
	cr_assert_eq(ix_http_parse_listen("[::1]:65535", host, sizeof(host), &port, &err), 0);
	cr_assert_str_eq(host, "::1");
	cr_assert_eq(port, 65535);
	cr_assert_eq(ix_http_parse_listen("node7:80", host, sizeof(host), &port, &err), 0);
	cr_assert_str_eq(host, "node7");
}

static void bad_listen(const char *s, const char *says)
{
	struct ix_err err = { 0 };
	char host[64];
	uint16_t port;

	cr_assert_eq(ix_http_parse_listen(s, host, sizeof(host), &port, &err), -1, "took '%s'", s);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, says), "'%s': %s", s, err.msg);
}

Test(http, bad_listen_addresses_are_named)
{
	bad_listen("", "expected ADDR:PORT");
	bad_listen("9310", "expected ADDR:PORT");
	bad_listen("127.0.0.1:", "port must be a number");
	bad_listen("127.0.0.1:65536", "port must be a number");
	bad_listen("127.0.0.1:99999999999", "port must be a number");
	bad_listen("127.0.0.1:-1", "port must be a number");
	bad_listen("127.0.0.1:80x", "port must be a number");
	bad_listen("::1:80", "brackets");
	bad_listen("[::1]", "[ADDR]:PORT");
	bad_listen("[]:80", "empty IPv6");
	bad_listen("a b:80", "space or control");
	bad_listen("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:1",
		   "too long");
}

Test(http, reasons)
{
	cr_assert_str_eq(ix_http_reason(404), "Not Found");
	cr_assert_str_eq(ix_http_reason(431), "Request Header Fields Too Large");
	cr_assert_str_eq(ix_http_reason(999), "Error");
}
