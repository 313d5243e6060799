/* Unit tests for probes/net/httpd.c: a listener on loopback served in
 * this thread between the steps of its clients; bad clients are answered
 * or closed, and the others served on. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/net/httpd.h"

static int renders;

static int render(void *arg, char **body, size_t *len)
{
	renders++;
	if (arg)
		return -1;
	*body = strdup("ixperf_up 1\n");
	*len = strlen(*body);
	return 0;
}

static struct ix_httpd *start(void *arg, unsigned max_clients, double timeout_s)
{
	struct ix_httpd_config c = { .host = "127.0.0.1",
				     .render = render,
				     .arg = arg,
				     .title = "ixperf test",
				     .max_clients = max_clients,
				     .timeout_s = timeout_s };
	struct ix_err err = { 0 };
	struct ix_httpd *h;

	cr_assert_eq(ix_httpd_open(&h, &c, &err), 0, "%s", err.msg);
	cr_assert_gt(ix_httpd_port(h), 0);
	renders = 0;
	return h;
}

static int dial(struct ix_httpd *h)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(ix_httpd_port(h)) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Send req on fd, serve until the answer is whole (the server closes),
 * 3 s at most; the answer, malloc'd. */
static char *exchange(struct ix_httpd *h, int fd, const char *req, size_t len)
{
	char *got = calloc(1, 65536);
	size_t n = 0;
	int64_t end = ix_now_ns() + 3000000000LL;

	cr_assert_eq(send(fd, req, len, MSG_NOSIGNAL), (ssize_t)len);
	while (ix_now_ns() < end) {
		ssize_t k;

		ix_httpd_serve(h, ix_now_ns() + 20000000);
		k = recv(fd, got + n, 65535 - n, MSG_DONTWAIT);
		if (k == 0)
			break;
		if (k > 0)
			n += (size_t)k;
	}
	close(fd);
	return got;
}

static char *ask(struct ix_httpd *h, const char *req)
{
	return exchange(h, dial(h), req, strlen(req));
}

Test(httpd, serves_metrics_with_the_exposition_type)
{
	struct ix_httpd *h = start(NULL, 0, 0);
	char *a = ask(h, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
	struct ix_httpd_stats st;

	cr_assert(!strncmp(a, "HTTP/1.1 200 OK\r\n", 17), "%s", a);
	cr_assert(strstr(a, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
	cr_assert(strstr(a, "Content-Length: 12\r\n"));
	cr_assert(strstr(a, "Connection: close\r\n"));
	cr_assert(strstr(a, "\r\n\r\nixperf_up 1\n"));
	ix_httpd_stats(h, &st);
	cr_assert_eq(st.answered, 1);
	free(a);
	ix_httpd_close(h);
}

Test(httpd, head_gets_no_body_index_and_404)
{
	struct ix_httpd *h = start(NULL, 0, 0);
	char *a = ask(h, "HEAD /metrics HTTP/1.1\r\n\r\n");

	cr_assert(strstr(a, "Content-Length: 12\r\n"));
	cr_assert(!strstr(a, "ixperf_up"), "%s", a);
	free(a);
	a = ask(h, "GET / HTTP/1.0\r\n\r\n");
	cr_assert(strstr(a, "text/html"));
	cr_assert(strstr(a, "<a href=\"/metrics\">"));
	free(a);
	a = ask(h, "GET /metrics/../etc HTTP/1.1\r\n\r\n");
	cr_assert(!strncmp(a, "HTTP/1.1 404 ", 13), "%s", a);
	free(a);
	a = ask(h, "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
	cr_assert(!strncmp(a, "HTTP/1.1 405 ", 13), "%s", a);
	cr_assert(strstr(a, "Allow: GET, HEAD\r\n"));
	free(a);
	cr_assert_eq(renders, 1); /* HEAD renders; the others do not */
	ix_httpd_close(h);
}

Test(httpd, a_failed_render_is_500)
{
	struct ix_httpd *h = start(&renders, 0, 0);
	char *a = ask(h, "GET /metrics HTTP/1.1\r\n\r\n");

	cr_assert(!strncmp(a, "HTTP/1.1 500 ", 13), "%s", a);
	free(a);
	ix_httpd_close(h);
}

Test(httpd, an_oversized_head_gets_its_431_whole)
{
	struct ix_httpd *h = start(NULL, 0, 0);
	size_t len = 20000;
	char *req = malloc(len);
	char *a;

	memset(req, 'x', len);
	memcpy(req, "GET /metrics HTTP/1.1\r\nX: ", 26);
	a = exchange(h, dial(h), req, len);
	cr_assert(!strncmp(a, "HTTP/1.1 431 ", 13), "%s", a);
	free(a);
	free(req);
	ix_httpd_close(h);
}

Test(httpd, silent_clients_do_not_hold_the_slots)
{
	struct ix_httpd *h = start(NULL, 4, 30);
	int idle[10];
	char *a;
	struct ix_httpd_stats st;

	for (int i = 0; i < 10; i++) {
		idle[i] = dial(h);
		ix_httpd_serve(h, ix_now_ns() + 5000000);
	}
	a = ask(h, "GET /metrics HTTP/1.1\r\n\r\n");
	cr_assert(!strncmp(a, "HTTP/1.1 200 ", 13), "%s", a);
	ix_httpd_stats(h, &st);
	cr_assert_geq(st.timed_out, 7, "evicted %llu", (unsigned long long)st.timed_out);
	free(a);
	for (int i = 0; i < 10; i++)
		close(idle[i]);
	ix_httpd_close(h);
}

Test(httpd, a_client_past_its_deadline_is_closed)
{
	struct ix_httpd *h = start(NULL, 0, 0.1);
	int fd = dial(h);
	int64_t end = ix_now_ns() + 2000000000LL;
	struct ix_httpd_stats st = { 0 };
	char c;

	(void)!send(fd, "GET /met", 8, 0);
	while (ix_now_ns() < end && !st.timed_out) {
		ix_httpd_serve(h, ix_now_ns() + 20000000);
		ix_httpd_stats(h, &st);
	}
	cr_assert_eq(st.timed_out, 1);
	cr_assert_eq(recv(fd, &c, 1, 0), 0); /* closed */
	close(fd);
	ix_httpd_close(h);
}

Test(httpd, a_taken_port_is_an_error)
{
	struct ix_httpd *h = start(NULL, 0, 0), *h2;
	struct ix_httpd_config c = {
		.host = "127.0.0.1", .port = ix_httpd_port(h), .render = render, .title = "x"
	};
	struct ix_err err = { 0 };

	cr_assert_eq(ix_httpd_open(&h2, &c, &err), -1);
	cr_assert(strstr(err.msg, "cannot listen"), "%s", err.msg);
	ix_httpd_close(h);
}
