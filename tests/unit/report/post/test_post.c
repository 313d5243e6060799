/* Unit tests for report/post/post.c and report/post/format.c: the Pushgateway exposition,
 * the chat message, the webhook body, credentials and secrets; the transport
 * against a one-thread HTTP responder on 127.0.0.1 (no other network). */
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

static json_t *load(const char *name)
{
	json_error_t je;
	json_t *doc = json_load_file(ix_test_data(name), 0, &je);

	cr_assert_not_null(doc, "%s: %s", ix_test_data(name), je.text);
	return doc;
}

static char *body_of(const char *name, enum ix_post_format f, struct ix_post_msg *m)
{
	struct ix_post_opts o = { .url = "http://127.0.0.1:9091", .format = f };
	struct ix_err err = { 0 };
	json_t *doc = load(name);

	cr_assert_eq(ix_post_payload(&o, doc, NULL, 0, m, &err), 0, "%s", err.msg);
	json_decref(doc);
	return m->body;
}

/* ---- a small parser of the text exposition format ----------------------------- */

#define MAXL 8

struct sample {
	char name[128];
	char key[MAXL][64];
	char val[MAXL][256];
	int nl;
	double v;
};

static bool matches(const char *re, const char *s)
{
	regex_t r;
	bool ok;

	cr_assert_eq(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
	ok = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return ok;
}

static int parse_sample(const char *p, struct sample *s)
{
	char *end;
	size_t n = strcspn(p, "{ ");

	memset(s, 0, sizeof(*s));
	if (n == 0 || n >= sizeof(s->name))
		return -1;
	memcpy(s->name, p, n);
	p += n;
	if (*p == '{') {
		p++;
		while (*p != '}') {
			size_t k = strcspn(p, "="), o = 0;
			if (s->nl == MAXL || k == 0 || k >= sizeof(s->key[0]) || p[k] != '=' ||
			    p[k + 1] != '"')
				return -1;
			memcpy(s->key[s->nl], p, k);
			for (p += k + 2; *p != '"'; p++) {
				char c = *p;
				if (!c || o + 1 >= sizeof(s->val[0]))
					return -1;
				if (c == '\\') {
					c = *++p;
					if (c == 'n')
						c = '\n';
					else if (c != '\\' && c != '"')
						return -1;
				} else if (c == '\n') {
					return -1;
				}
				s->val[s->nl][o++] = c;
			}
			s->nl++;
			p++;
			if (*p == ',')
				p++;
			else if (*p != '}')
				return -1;
		}
		p++;
	}
	if (*p++ != ' ')
		return -1;
	s->v = strtod(p, &end);
	return end != p && *end == '\0' ? 0 : -1;
}

static const char *label(const struct sample *s, const char *key)
{
	for (int i = 0; i < s->nl; i++)
		if (strcmp(s->key[i], key) == 0)
			return s->val[i];
	return NULL;
}

/* Parse the whole body, checking the format rules; returns the samples. */
static struct sample *parse_body(char *body, size_t *n)
{
	struct sample *all = calloc(4096, sizeof(*all));
	char families[64][128], current[128] = "";
	int helps[64] = { 0 }, types[64] = { 0 }, nf = 0;
	json_t *seen = json_object();

	*n = 0;
	for (char *line = body, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		char name[128];
		int f;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0) {
			bool help = line[2] == 'H';
			cr_assert_eq(sscanf(line + 7, "%127s", name), 1);
			for (f = 0; f < nf && strcmp(families[f], name) != 0; f++)
				;
			if (f == nf)
				snprintf(families[nf++], sizeof(families[0]), "%s", name);
			(help ? helps : types)[f]++;
			cr_expect_eq((help ? helps : types)[f], 1, "second %s line for %s",
				     help ? "HELP" : "TYPE", name);
			if (!help) {
				cr_expect(matches(" (gauge|counter)$", line), "%s", line);
				snprintf(current, sizeof(current), "%s", name);
			}
			continue;
		}
		cr_assert_eq(parse_sample(line, &all[*n]), 0, "bad sample line: %s", line);
		cr_expect(matches("^[a-zA-Z_:][a-zA-Z0-9_:]*$", all[*n].name), "%s", line);
		cr_expect_str_eq(all[*n].name, current, "sample outside its family: %s", line);
		for (int i = 0; i < all[*n].nl; i++)
			cr_expect(matches("^[a-zA-Z_][a-zA-Z0-9_]*$", all[*n].key[i]) &&
					  strncmp(all[*n].key[i], "__", 2) != 0,
				  "%s", line);
		cr_expect_null(json_object_get(seen, line), "duplicate series: %s", line);
		json_object_set_new(seen, line, json_true());
		(*n)++;
	}
	for (int f = 0; f < nf; f++)
		cr_expect(helps[f] == 1 && types[f] == 1, "%s: HELP %d, TYPE %d", families[f],
			  helps[f], types[f]);
	json_decref(seen);
	return all;
}

/* The value of the one sample of name whose labels match kv (NULL-ended). */
static double value(const struct sample *s, size_t n, const char *name, const char *const *kv)
{
	const struct sample *hit = NULL;

	for (size_t i = 0; i < n; i++) {
		bool ok = strcmp(s[i].name, name) == 0;
		for (size_t k = 0; ok && kv && kv[k]; k += 2) {
			const char *v = label(&s[i], kv[k]);
			ok = v && strcmp(v, kv[k + 1]) == 0;
		}
		if (ok) {
			cr_assert_null(hit, "more than one %s matches", name);
			hit = &s[i];
		}
	}
	cr_assert_not_null(hit, "no %s with those labels", name);
	return hit->v;
}

/* Labels to match, name and value pairs. */
#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })

static double num(json_t *doc, const char *path)
{
	json_t *v = json_object_get(doc, path);
	cr_assert(json_is_number(v));
	return json_number_value(v);
}

static json_t *check_of(json_t *doc, size_t i)
{
	return json_array_get(
		json_object_get(json_array_get(json_object_get(doc, "results"), 0), "checks"), i);
}

Test(prom, run_exposition_is_valid_and_carries_the_figures)
{
	struct ix_post_msg m;
	json_t *doc = load("post-run.json");
	char *body = body_of("post-run.json", IX_POST_PUSHGATEWAY, &m);
	json_t *bw = json_array_get(json_object_get(check_of(doc, 0), "results"), 0);
	json_t *lat = json_array_get(json_object_get(check_of(doc, 3), "results"), 0);
	json_t *fwd = json_object_get(json_object_get(bw, "summary"), "forward");
	json_t *st = json_object_get(lat, "stats");
	size_t n;
	struct sample *s;

	cr_expect_str_eq(m.method, "PUT");
	cr_expect_str_eq(m.content_type, "text/plain; version=0.0.4; charset=utf-8");
	cr_expect_str_eq(m.url, "http://127.0.0.1:9091/metrics/job/ixperf/instance/vm");
	s = parse_body(body, &n);
	cr_assert_gt(n, 50);
	cr_expect_eq(value(s, n, "ixperf_bandwidth_bits_per_second",
			   L("check", "tcp-bw", "src", "vm", "dst", "127.0.0.1", "size", "131072",
			     "path", "tcp")),
		     num(fwd, "bits_per_second"));
	cr_expect_eq(value(s, n, "ixperf_retransmits_total", L("check", "tcp-bw")),
		     num(fwd, "retransmits"));
	cr_expect_eq(
		value(s, n, "ixperf_latency_seconds", L("check", "tcp-lat", "quantile", "0.99")),
		num(st, "p99_ns") / 1e9);
	cr_expect_eq(
		value(s, n, "ixperf_latency_seconds", L("check", "tcp-lat", "quantile", "0.5")),
		num(st, "p50_ns") / 1e9);
	cr_expect_eq(value(s, n, "ixperf_run_pass", NULL), 0);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "FAIL")), 1);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "PASS")), 0);
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "tcp-lat")), 0);
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "tcp-bw")), 1);
	cr_expect_eq(value(s, n, "ixperf_run_duration_seconds", NULL), 42);
	cr_expect_eq(value(s, n, "ixperf_run_timestamp_seconds", NULL), 1795988304);
	cr_expect_eq(value(s, n, "ixperf_packet_loss_ratio", L("check", "udp-bw")), 0);
	/* Mesh: one series per measured pair; incast: one per step. */
	cr_expect_eq(value(s, n, "ixperf_bandwidth_bits_per_second",
			   L("check", "mesh", "src", "127.0.0.1:6203", "dst", "127.0.0.1:6201")),
		     27382235140.0);
	cr_expect_eq(value(s, n, "ixperf_latency_seconds",
			   L("check", "mesh", "src", "127.0.0.1:6201", "dst", "127.0.0.1:6202",
			     "quantile", "0.99")),
		     9844.0 / 1e9);
	cr_expect_eq(value(s, n, "ixperf_bandwidth_bits_per_second",
			   L("check", "incast", "senders", "3")),
		     51168460740.0);
	cr_expect_eq(value(s, n, "ixperf_incast_round_seconds",
			   L("check", "incast-read", "senders", "3", "quantile", "0.99")),
		     81531 / 1e9);
	{
		size_t pairs = 0;
		for (size_t i = 0; i < n; i++)
			if (strcmp(s[i].name, "ixperf_bandwidth_bits_per_second") == 0 &&
			    strcmp(label(&s[i], "check"), "mesh") == 0)
				pairs++;
		cr_expect_eq(pairs, 6);
	}
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}

Test(prom, hostile_names_are_escaped_and_never_duplicate_a_series)
{
	struct ix_post_msg m;
	char *body = body_of("post-hostile.json", IX_POST_PUSHGATEWAY, &m);
	size_t n;
	struct sample *s;

	cr_expect(strstr(body, "check=\"evil \\\"quoted\\\" \\\\ back\\nslash\"") != NULL);
	/* The host has a '/': base64 in the grouping key, as the Pushgateway asks. */
	cr_expect_str_eq(m.url, "http://127.0.0.1:9091/metrics/job/ixperf/instance@base64/"
				"cmFjazEvbm9kZSA3");
	s = parse_body(body, &n); /* fails on a duplicate series (two checks share a name) */
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "evil \"quoted\" \\ back\nslash")),
		     1);
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "<!channel> @here `tick`")), 0);
	cr_expect_eq(value(s, n, "ixperf_run_verdict", L("verdict", "ERROR")), 1);
	free(s);
	ix_post_msg_free(&m);
}

Test(prom, single_command_document)
{
	struct ix_post_msg m;
	char *body = body_of("post-bw.json", IX_POST_PUSHGATEWAY, &m);
	size_t n;
	struct sample *s = parse_body(body, &n);

	cr_expect_eq(value(s, n, "ixperf_bandwidth_bits_per_second",
			   L("check", "bw", "src", "vm", "dst", "vm")),
		     2.832092625e10);
	cr_expect_eq(value(s, n, "ixperf_run_complete", NULL), 1);
	for (size_t i = 0; i < n; i++)
		cr_expect_str_neq(s[i].name, "ixperf_run_pass", "no verdict outside a run");
	free(s);
	ix_post_msg_free(&m);
}

Test(prom, grouping_key_escaping)
{
	char *u = ix_post_grouping_url("http://pgw:9091/", "fabric tests", "");

	cr_expect_str_eq(u, "http://pgw:9091/metrics/job/fabric%20tests/instance@base64/=");
	free(u);
	u = ix_post_grouping_url("http://pgw:9091", "a/b", "node1");
	cr_expect_str_eq(u, "http://pgw:9091/metrics/job@base64/YS9i/instance/node1");
	free(u);
	u = ix_post_grouping_url("http://pgw:9091/metrics/job/mine/rack/r1", "x", "y");
	cr_expect_str_eq(u, "http://pgw:9091/metrics/job/mine/rack/r1");
	free(u);
}

/* ---- chat, webhook, html ------------------------------------------------------ */

static const char *chat_text(struct ix_post_msg *m, json_t **msg)
{
	*msg = json_loadb(m->body, m->len, 0, NULL);
	cr_assert_not_null(*msg, "chat body is not JSON: %s", m->body);
	cr_assert(json_is_string(json_object_get(*msg, "text")));
	return json_string_value(json_object_get(*msg, "text"));
}

Test(chat, run_message_has_verdict_and_figures)
{
	struct ix_post_msg m;
	json_t *msg;
	const char *t;

	body_of("post-run.json", IX_POST_CHAT, &m);
	cr_expect_str_eq(m.content_type, "application/json");
	t = chat_text(&m, &msg);
	cr_expect(strstr(t, "FAIL") != NULL, "%s", t);
	cr_expect(strstr(t, "local acceptance") != NULL, "%s", t);
	cr_expect(strstr(t, "`vm`") != NULL, "%s", t);
	cr_expect(strstr(t, "2026-11-29T21:38:24Z") != NULL, "%s", t);
	cr_expect(strstr(t, "`tcp-bw` goodput: 28.3 Gbit/s") != NULL, "%s", t);
	cr_expect(strstr(t, "`tcp-lat` p99: 49.3 us") != NULL, "%s", t);
	cr_expect(strstr(t, "max_p99 5us") != NULL, "%s", t);
	json_decref(msg);
	ix_post_msg_free(&m);
}

Test(chat, hostile_names_cannot_ping_or_forge_lines)
{
	struct ix_post_msg m;
	json_t *msg;
	const char *t;
	size_t lines = 1;

	body_of("post-hostile.json", IX_POST_CHAT, &m);
	t = chat_text(&m, &msg);
	cr_expect_null(strstr(t, "<!channel>"), "%s", t);
	cr_expect_null(strstr(t, "<script>"), "%s", t);
	cr_expect(strstr(t, "&lt;!channel&gt;") != NULL, "%s", t);
	for (const char *p = t; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 4, "a title and one line per check: %s", t);
	json_decref(msg);
	ix_post_msg_free(&m);
}

Test(chat, single_command_is_one_line)
{
	struct ix_post_msg m;
	json_t *msg;
	const char *t;

	body_of("post-bw.json", IX_POST_CHAT, &m);
	t = chat_text(&m, &msg);
	cr_expect_null(strchr(t, '\n'), "%s", t);
	cr_expect(strstr(t, "ixperf bw") != NULL, "%s", t);
	cr_expect(strstr(t, "28.3 Gbit/s") != NULL, "%s", t);
	json_decref(msg);
	ix_post_msg_free(&m);
}

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
	cr_expect(json_equal(back, doc));
	json_decref(back);
	json_decref(doc);
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
	cr_expect(strstr(r.req[0], "# TYPE ixperf_bandwidth_bits_per_second gauge") != NULL);
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

/* A check skipped for want of a device is neither a pass nor a failure:
 * no ixperf_check_pass series, as for a check that expects nothing. */
Test(prom, skipped_check_has_no_pass_series)
{
	struct ix_post_opts o = { .url = "http://127.0.0.1:9091", .format = IX_POST_PUSHGATEWAY };
	struct ix_err err = { 0 };
	struct ix_post_msg m;
	json_t *doc = load("post-run.json");
	size_t n;
	struct sample *s;

	json_object_set_new(check_of(doc, 0), "verdict", json_string("SKIP"));
	cr_assert_eq(ix_post_payload(&o, doc, NULL, 0, &m, &err), 0, "%s", err.msg);
	s = parse_body(m.body, &n);
	for (size_t i = 0; i < n; i++)
		cr_expect(strcmp(s[i].name, "ixperf_check_pass") != 0 ||
				  strcmp(label(&s[i], "check"), "tcp-bw") != 0,
			  "a pass series for the skipped check");
	cr_expect_eq(value(s, n, "ixperf_check_pass", L("check", "tcp-lat")), 0);
	free(s);
	ix_post_msg_free(&m);
	json_decref(doc);
}
