/* Unit tests for report/post/post.c: the webhook body, the payloads,
 * credentials and secrets; the transport against a one-thread HTTP
 * responder on 127.0.0.1 (no other network). The Pushgateway exposition and
 * the chat message are format.c's (test_format.c). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "report/post/post.h"
#include "report/post/spool.h"
#include "tests/unit/data.h"

#include "tests/unit/report/post/payload.h"

Test(webhook, body_is_the_document)
{
	struct ix_post_msg m;
	json_t *doc = load("post-run.json"), *back;

	body_of("post-run.json", IX_POST_WEBHOOK, &m);
	cr_expect_str_eq(m.content_type, "application/json");
	cr_expect_str_eq(m.method, "POST");
	cr_expect_str_eq(m.url, "http://127.0.0.1:9091");
	back = json_loadb(m.body, m.len, 0, NULL);
	cr_assert_not_null(back);
	/* the document, with the run's verdict on top */
	cr_expect_str_eq(json_string_value(json_object_get(back, "verdict")), "FAIL");
	json_object_del(back, "verdict");
	cr_expect(json_equal(back, doc));
	json_decref(back);
	json_decref(doc);
	ix_post_msg_free(&m);
}

Test(webhook, a_mesh_document_carries_its_verdict)
{
	struct ix_post_msg m;
	json_t *back;

	body_of("mesh-bad.json", IX_POST_WEBHOOK, &m);
	back = json_loadb(m.body, m.len, 0, NULL);
	cr_assert_not_null(back);
	cr_expect_str_eq(json_string_value(json_object_get(back, "verdict")), "FAIL");
	json_decref(back);
	ix_post_msg_free(&m);
}

Test(html, body_is_the_rendered_page)
{
	static const char page[] = "<!doctype html><p>r\xc3\xa9sultat</p>";
	struct ix_post_opts o = { .url = "https://reports.example/up", .format = IX_POST_HTML };
	struct ix_post_msg m;
	struct ix_err err = { 0 };
	json_t *doc = load("post-bw.json");

	cr_assert_eq(ix_post_payload(&o, doc, page, sizeof(page) - 1, &m, &err), 0, "%s", err.msg);
	cr_expect_str_eq(m.content_type, "text/html; charset=utf-8");
	cr_expect_eq(m.len, sizeof(page) - 1);
	cr_expect_eq(memcmp(m.body, page, m.len), 0);
	ix_post_msg_free(&m);
	json_decref(doc);
}

Test(payload, refuses_what_is_not_an_ixperf_document_or_url)
{
	struct ix_post_opts o = { .url = "http://h/x" };
	struct ix_post_msg m;
	struct ix_err err = { 0 };
	json_t *foreign = json_pack("{s:i}", "a", 1);
	json_t *newer = load("post-bw.json");
	json_t *doc = load("post-bw.json");

	cr_expect_eq(ix_post_payload(&o, foreign, NULL, 0, &m, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_FAIL);
	cr_expect(strstr(err.msg, "not an ixperf result document") != NULL, "%s", err.msg);
	json_object_set_new(newer, "schema_version", json_integer(2));
	cr_expect_eq(ix_post_payload(&o, newer, NULL, 0, &m, &err), -1);
	cr_expect(strstr(err.msg, "schema_version 2 is newer") != NULL, "%s", err.msg);
	o.url = "ftp://h/x";
	cr_expect_eq(ix_post_payload(&o, doc, NULL, 0, &m, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
	json_decref(foreign);
	json_decref(newer);
	json_decref(doc);
}

Test(payload, format_names)
{
	enum ix_post_format f;
	struct ix_err err = { 0 };

	cr_expect_eq(ix_post_format_parse("pushgateway", &f, &err), 0);
	cr_expect_eq(f, IX_POST_PUSHGATEWAY);
	cr_expect_str_eq(ix_post_format_name(IX_POST_CHAT), "chat");
	cr_expect_eq(ix_post_format_parse("xml", &f, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
}

Test(payload, url_redaction)
{
	char buf[256];

	ix_post_url_redact("https://alice:s3cret@h.example:8443/a/b?token=x#f", true, buf,
			   sizeof(buf));
	cr_expect_str_eq(buf, "https://h.example:8443/a/b?...");
	ix_post_url_redact("https://hooks.slack.com/services/T0/B0/XYZ", false, buf, sizeof(buf));
	cr_expect_str_eq(buf, "https://hooks.slack.com/...");
	ix_post_url_redact("http://h:1", true, buf, sizeof(buf));
	cr_expect_str_eq(buf, "http://h:1");
}

Test(payload, same_origin)
{
	cr_expect(ix_post_same_origin("http://h:8080/a", "http://h:8080"));
	cr_expect(ix_post_same_origin("HTTP://H.example/a?x", "http://h.EXAMPLE:80/b"));
	cr_expect(ix_post_same_origin("https://h/a", "https://u:pw@h:443/"));
	cr_expect(ix_post_same_origin("http://[::1]:9/a", "http://[::1]:9"));
	cr_expect_not(ix_post_same_origin("http://h:8080/a", "http://h:8081/a"));
	cr_expect_not(ix_post_same_origin("http://h/a", "https://h/a"));
	cr_expect_not(ix_post_same_origin("http://h/a", "http://h:443/a"));
	cr_expect_not(ix_post_same_origin("http://h.evil/a", "http://h/a"));
	cr_expect_not(ix_post_same_origin("http://[::1]/a", "http://[::2]/a"));
	cr_expect_not(ix_post_same_origin("http://h/a", NULL));
	cr_expect_not(ix_post_same_origin("h/a", "h/a"));
}

/* ---- transport, against a responder on 127.0.0.1 -------------------------------- */
#ifdef HAVE_CURL

struct responder {
	int fd, port, max, nreq;
	int status[8];     /* the answer to request i; past the last given, the last */
	bool echo_auth;    /* answer with the request's Authorization line */
	char req[8][4096]; /* what came */
	pthread_t th;
};

static void *serve(void *arg)
{
	struct responder *r = arg;

	while (r->nreq < r->max) {
		struct timeval tv = { 5, 0 };
		char *q = r->req[r->nreq], out[1200], body[600] = "no thanks";
		const char *h, *cl;
		size_t got = 0;
		int c = accept(r->fd, NULL, NULL), st, n;

		if (c < 0)
			break;
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		while (got < sizeof(r->req[0]) - 1) {
			ssize_t k = recv(c, q + got, sizeof(r->req[0]) - 1 - got, 0);
			if (k <= 0)
				break;
			got += (size_t)k;
			q[got] = '\0';
			h = strstr(q, "\r\n\r\n");
			cl = strcasestr(q, "Content-Length:");
			if (h && (size_t)(h + 4 - q) + (cl ? strtoul(cl + 15, NULL, 10) : 0) <= got)
				break;
		}
		st = r->status[r->nreq < 8 ? r->nreq : 7];
		for (int i = r->nreq; st == 0 && i > 0; i--)
			st = r->status[i - 1 < 8 ? i - 1 : 7];
		if (r->echo_auth && (h = strcasestr(q, "Authorization:")))
			snprintf(body, sizeof(body), "you sent %.*s", (int)strcspn(h, "\r"), h);
		n = snprintf(
			out, sizeof(out),
			"HTTP/1.1 %d Test\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
			"Connection: close\r\n\r\n%s",
			st, strlen(body), body);
		send(c, out, (size_t)n, MSG_NOSIGNAL);
		close(c);
		r->nreq++;
	}
	return NULL;
}

static void start(struct responder *r, int max)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r->max = max;
	r->fd = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_geq(r->fd, 0);
	cr_assert_eq(bind(r->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(r->fd, 8), 0);
	getsockname(r->fd, (struct sockaddr *)&a, &len);
	r->port = ntohs(a.sin_port);
	cr_assert_eq(pthread_create(&r->th, NULL, serve, r), 0);
}

static void stop(struct responder *r)
{
	shutdown(r->fd, SHUT_RDWR);
	pthread_join(r->th, NULL);
	close(r->fd);
}

static char tmp[256], spooldir[300], creds[300], url[300];

static void http_setup(void)
{
	snprintf(tmp, sizeof(tmp), "%s/ixpost-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(tmp));
	snprintf(spooldir, sizeof(spooldir), "%s/spool", tmp);
	snprintf(creds, sizeof(creds), "%s/creds", tmp);
	unsetenv("IXPERF_POST_TOKEN");
}

static void http_teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(http, .init = http_setup, .fini = http_teardown, .timeout = 60);

static void write_creds(const char *text, mode_t mode)
{
	FILE *f = fopen(creds, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(chmod(creds, mode), 0);
}

/* Post fixture (its host set to host when given) to u; returns ix_post_send's result. */
static int post(const char *u, enum ix_post_format f, const char *host, int retries,
		const char *cred, struct ix_err *err)
{
	struct ix_post_opts o = { .url = u,
				  .format = f,
				  .timeout_s = 5,
				  .retries = retries,
				  .credentials_file = cred,
				  .spool_dir = spooldir };
	struct ix_post_msg m;
	json_t *doc = load("post-bw.json");
	int rc;

	if (host)
		json_object_set_new(doc, "host", json_string(host));
	cr_assert_eq(ix_post_payload(&o, doc, NULL, 0, &m, err), 0, "%s", err->msg);
	rc = ix_post_send(&o, &m, err);
	ix_post_msg_free(&m);
	json_decref(doc);
	return rc;
}

static size_t spooled(void)
{
	size_t n;

	cr_assert_eq(ix_spool_count(spooldir, NULL, &n, NULL), 0);
	return n;
}

Test(http, delivered_with_the_bearer_token)
{
	struct responder r = { .status = { 200 } };
	struct ix_err err = { 0 };

	setenv("IXPERF_POST_TOKEN", "tok-0123456789abcdef", 1);
	start(&r, 1);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hook", r.port);
	cr_expect_eq(post(url, IX_POST_WEBHOOK, NULL, 0, NULL, &err), 0, "%s", err.msg);
	stop(&r);
	cr_assert_eq(r.nreq, 1);
	cr_expect_eq(strncmp(r.req[0], "POST /hook HTTP/1.1\r\n", 21), 0, "%s", r.req[0]);
	cr_expect(strstr(r.req[0], "Authorization: Bearer tok-0123456789abcdef\r\n") != NULL);
	cr_expect(strstr(r.req[0], "Content-Type: application/json\r\n") != NULL);
	cr_expect(strstr(r.req[0], "\"kind\":\"bw\"") != NULL);
	cr_expect_eq(spooled(), 0);
}

Test(http, pushgateway_is_put_to_the_grouping_key_with_basic_auth)
{
	struct responder r = { .status = { 200 } };
	struct ix_err err = { 0 };

	write_creds("alice:pw-x\n", 0600);
	start(&r, 1);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", r.port);
	cr_expect_eq(post(url, IX_POST_PUSHGATEWAY, NULL, 0, creds, &err), 0, "%s", err.msg);
	stop(&r);
	cr_expect_eq(strncmp(r.req[0], "PUT /metrics/job/ixperf/instance/vm HTTP/1.1\r\n", 45), 0,
		     "%s", r.req[0]);
	cr_expect(strstr(r.req[0], "Authorization: Basic YWxpY2U6cHcteA==\r\n") != NULL);
	cr_expect(strstr(r.req[0], "# TYPE ixperf_bandwidth_bytes_per_second gauge") != NULL);
}

Test(http, a_4xx_is_neither_retried_nor_spooled)
{
	struct responder r = { .status = { 400, 401 } };
	struct ix_err err = { 0 };

	start(&r, 2);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hook", r.port);
	cr_expect_eq(post(url, IX_POST_WEBHOOK, NULL, 3, NULL, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_FAIL);
	cr_expect(strstr(err.msg, "HTTP 400: no thanks") != NULL, "%s", err.msg);
	cr_expect(strstr(err.msg, "not spooled") != NULL, "%s", err.msg);
	cr_expect_eq(post(url, IX_POST_WEBHOOK, NULL, 3, NULL, &err), -1);
	cr_expect(strstr(err.msg, "check the credentials") != NULL, "%s", err.msg);
	stop(&r);
	cr_expect_eq(r.nreq, 2, "one try each");
	cr_expect_eq(spooled(), 0);
}

Test(http, a_503_is_retried_then_spooled_then_flushed)
{
	struct responder r = { .status = { 503, 503, 200 } };
	struct ix_post_opts o = { .timeout_s = 5, .spool_dir = spooldir };
	struct ix_err err = { 0 };

	start(&r, 3);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hook", r.port);
	cr_expect_eq(post(url, IX_POST_WEBHOOK, "first", 1, NULL, &err), -1);
	cr_expect(strstr(err.msg, "gave up after 2 tries") != NULL, "%s", err.msg);
	cr_expect(strstr(err.msg, "spooled as") != NULL, "%s", err.msg);
	cr_expect_eq(spooled(), 1);
	cr_expect_eq(ix_post_flush(&o, &err), 1, "%s", err.msg);
	stop(&r);
	cr_expect_eq(r.nreq, 3);
	cr_expect(strstr(r.req[2], "\"host\":\"first\"") != NULL);
	cr_expect_eq(spooled(), 0);
	cr_expect_eq(ix_post_flush(&o, &err), 0);
}

Test(http, what_waits_in_the_spool_goes_first)
{
	struct responder r = { .status = { 503, 200 } };
	struct ix_err err = { 0 };

	start(&r, 3);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hook", r.port);
	cr_expect_eq(post(url, IX_POST_WEBHOOK, "older", 0, NULL, &err), -1);
	cr_expect_eq(post(url, IX_POST_WEBHOOK, "newer", 0, NULL, &err), 0, "%s", err.msg);
	stop(&r);
	cr_assert_eq(r.nreq, 3);
	cr_expect(strstr(r.req[1], "\"host\":\"older\"") != NULL);
	cr_expect(strstr(r.req[2], "\"host\":\"newer\"") != NULL);
	cr_expect_eq(spooled(), 0);
}

Test(http, a_flush_url_lends_its_password_to_the_entries_below_it)
{
	struct responder r = { .status = { 503, 200 } };
	struct ix_post_opts o = { .timeout_s = 5, .spool_dir = spooldir };
	struct ix_err err = { 0 };
	char with[300];

	start(&r, 2);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hook", r.port);
	cr_expect_eq(post(url, IX_POST_WEBHOOK, NULL, 0, NULL, &err), -1);
	snprintf(with, sizeof(with), "http://u:p4ss-word@127.0.0.1:%d", r.port);
	o.url = with;
	cr_expect_eq(ix_post_flush(&o, &err), 1, "%s", err.msg);
	stop(&r);
	cr_expect(strstr(r.req[1], "Authorization: Basic dTpwNHNzLXdvcmQ=\r\n") != NULL, "%s",
		  r.req[1]);
}

static void keep_warning(void *arg, enum ix_post_warning w, const char *msg)
{
	if (w == IX_POST_WARN_CREDS_ORIGIN)
		snprintf(arg, 256, "%s", msg);
}

/* Spooled entries for two endpoints: the token given for one reaches that
 * one only, and a flush without a URL sends it to none. */
Test(http, a_flush_sends_credentials_only_to_their_origin)
{
	struct responder a = { .status = { 503, 200 } }, b = { .status = { 503, 200 } };
	char said[256] = "", ua[300], ub[300];
	struct ix_post_opts o = {
		.timeout_s = 5, .spool_dir = spooldir, .warn = keep_warning, .warn_arg = said
	};
	struct ix_err err = { 0 };

	start(&a, 2);
	start(&b, 2);
	snprintf(ua, sizeof(ua), "http://127.0.0.1:%d/hook", a.port);
	snprintf(ub, sizeof(ub), "http://127.0.0.1:%d/hook", b.port);
	cr_expect_eq(post(ua, IX_POST_WEBHOOK, NULL, 0, NULL, &err), -1);
	cr_expect_eq(post(ub, IX_POST_WEBHOOK, NULL, 0, NULL, &err), -1);
	cr_assert_eq(spooled(), 2);

	setenv("IXPERF_POST_TOKEN", "tok-for-a-only-0123", 1);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", a.port);
	o.url = url;
	cr_expect_eq(ix_post_flush(&o, &err), 1, "%s", err.msg);
	cr_expect_eq(spooled(), 1, "b's entry is not below a's URL");

	o.url = NULL;
	cr_expect_eq(ix_post_flush(&o, &err), 1, "%s", err.msg);
	stop(&a);
	stop(&b);
	cr_assert_eq(a.nreq, 2);
	cr_assert_eq(b.nreq, 2);
	cr_expect(strstr(a.req[1], "Authorization: Bearer tok-for-a-only-0123\r\n") != NULL, "%s",
		  a.req[1]);
	cr_expect_null(strcasestr(b.req[1], "Authorization"), "%s", b.req[1]);
	cr_expect(strstr(said, "IXPERF_POST_TOKEN is not sent") != NULL, "'%s'", said);

	/* A credentials file with nothing to bind it to is a usage error. */
	write_creds("tok-file-0123456789\n", 0600);
	o.credentials_file = creds;
	cr_expect_eq(ix_post_flush(&o, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
	cr_expect(strstr(err.msg, "needs the URL") != NULL, "%s", err.msg);
}

Test(http, secrets_never_reach_errors_nor_the_spool)
{
	struct responder r = { .status = { 500 }, .echo_auth = true };
	struct ix_err err = { 0 };
	char **names, path[700], text[8192];
	size_t n, len;
	FILE *f;

	setenv("IXPERF_POST_TOKEN", "tok-0123456789abcdef", 1);
	start(&r, 1);
	snprintf(url, sizeof(url), "http://bob:urlpass-777@127.0.0.1:%d/hook?key=query-secret-42",
		 r.port);
	cr_expect_eq(post(url, IX_POST_WEBHOOK, NULL, 0, NULL, &err), -1);
	stop(&r);
	cr_expect(strstr(r.req[0], "tok-0123456789abcdef") != NULL, "the token was sent");
	cr_expect(strstr(err.msg, "you sent") != NULL, "%s", err.msg);
	cr_expect_null(strstr(err.msg, "tok-0123456789abcdef"), "%s", err.msg);
	cr_expect_null(strstr(err.msg, "urlpass-777"), "%s", err.msg);
	cr_expect_null(strstr(err.msg, "query-secret-42"), "%s", err.msg);
	cr_expect_null(strstr(err.msg, "bob:"), "%s", err.msg);

	/* The spool keeps the URL (query included: it may be the endpoint's key)
	 * but never the user:password nor the token, in a 0600 file. */
	cr_assert_eq(ix_spool_list(spooldir, &names, &n, NULL), 0);
	cr_assert_eq(n, 1);
	snprintf(path, sizeof(path), "%s/%s", spooldir, names[0]);
	ix_spool_names_free(names, n);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	cr_expect_null(strstr(text, "urlpass-777"));
	cr_expect_null(strstr(text, "tok-0123456789abcdef"));
	cr_expect(strstr(text, "/hook?key=query-secret-42") != NULL);

	/* A connection refused: curl's own message, scrubbed just the same. */
	write_creds("Bearer tok-from-the-file-99\n", 0600);
	cr_expect_eq(post("http://carol:urlpass-888@127.0.0.1:1/x?sig=query-secret-43",
			  IX_POST_WEBHOOK, NULL, 0, creds, &err),
		     -1);
	cr_expect(strstr(err.msg, "127.0.0.1") != NULL, "%s", err.msg);
	cr_expect_null(strstr(err.msg, "urlpass-888"), "%s", err.msg);
	cr_expect_null(strstr(err.msg, "query-secret-43"), "%s", err.msg);
	cr_expect_null(strstr(err.msg, "tok-from-the-file-99"), "%s", err.msg);
}

Test(http, a_credentials_file_others_can_read_is_refused)
{
	struct ix_err err = { 0 };

	write_creds("tok-readable-by-all-1234\n", 0644);
	cr_expect_eq(post("http://127.0.0.1:1/x", IX_POST_WEBHOOK, NULL, 0, creds, &err), -1);
	cr_expect_eq(err.code, IX_EXIT_USAGE);
	cr_expect(strstr(err.msg, "chmod 600") != NULL, "%s", err.msg);
	cr_expect_null(strstr(err.msg, "tok-readable"), "%s", err.msg);
	write_creds("tok-readable-by-group-1234\n", 0640);
	cr_expect_eq(post("http://127.0.0.1:1/x", IX_POST_WEBHOOK, NULL, 0, creds, &err), -1);
	cr_expect(strstr(err.msg, "mode 0640") != NULL, "%s", err.msg);
	cr_expect_eq(spooled(), 0, "refused before anything was sent or spooled");
}

#endif /* HAVE_CURL */
