#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_CURL
#include <curl/curl.h>
#endif

#include "report/doc/verdict.h"
#include "report/post/post.h"
#include "report/post/spool.h"

static const char *const format_names[] = { "webhook", "chat", "pushgateway", "html", "textfile" };

int ix_post_format_parse(const char *name, enum ix_post_format *f, struct ix_err *err)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (strcmp(name, format_names[i]) == 0) {
			*f = (enum ix_post_format)i;
			return 0;
		}
	return ix_fail(err, IX_EXIT_USAGE,
		       "unknown format '%s' (webhook, chat, pushgateway, html or textfile)", name);
}

const char *ix_post_format_name(enum ix_post_format f)
{
	return (unsigned)f < sizeof(format_names) / sizeof(format_names[0]) ? format_names[f] : "?";
}

/* ---- URLs ----------------------------------------------------------------- */

struct url_parts {
	size_t auth;  /* start of the authority, after "://" (0: no scheme) */
	size_t host;  /* after "user:password@", or = auth */
	size_t path;  /* end of the authority */
	size_t query; /* first '?' or '#' at or after path, or the end */
};

static void url_split(const char *u, struct url_parts *p)
{
	const char *s = strstr(u, "://");

	p->auth = s ? (size_t)(s - u) + 3 : 0;
	p->path = p->auth + strcspn(u + p->auth, "/?#");
	p->host = p->auth;
	for (size_t i = p->auth; i < p->path; i++)
		if (u[i] == '@')
			p->host = i + 1;
	p->query = p->path + strcspn(u + p->path, "?#");
}

void ix_post_url_redact(const char *url, bool keep_path, char *buf, size_t len)
{
	struct url_parts p;
	bool more;

	url_split(url, &p);
	more = keep_path ? url[p.query] != '\0' : url[p.path] != '\0';
	snprintf(buf, len, "%.*s%.*s%s", (int)p.auth, url,
		 (int)((keep_path ? p.query : p.path) - p.host), url + p.host,
		 more ? (keep_path ? "?..." : "/...") : "");
}

/* The scheme, host and port of u, lower case, the port always given. */
static void url_origin(const char *u, char *buf, size_t len)
{
	struct url_parts p;
	size_t n, i, colon = 0, slen;
	bool https;

	url_split(u, &p);
	slen = p.auth >= 3 ? p.auth - 3 : 0;
	https = slen == 5 && strncasecmp(u, "https", 5) == 0;
	for (i = p.host; i < p.path; i++)
		if (u[i] == ':')
			colon = i;
		else if (u[i] == ']')
			colon = 0; /* inside an IPv6 literal */
	n = (size_t)snprintf(buf, len, "%.*s://%.*s:%s", (int)slen, u,
			     (int)((colon ? colon : p.path) - p.host), u + p.host,
			     colon && colon + 1 < p.path ? "" : (https ? "443" : "80"));
	if (colon && colon + 1 < p.path && n < len)
		snprintf(buf + n, len - n, "%.*s", (int)(p.path - colon - 1), u + colon + 1);
	for (i = 0; buf[i]; i++)
		if (buf[i] >= 'A' && buf[i] <= 'Z')
			buf[i] = (char)(buf[i] - 'A' + 'a');
}

bool ix_post_same_origin(const char *a, const char *b)
{
	char oa[1024], ob[1024];

	if (!a || !b || !strstr(a, "://") || !strstr(b, "://"))
		return false;
	url_origin(a, oa, sizeof(oa));
	url_origin(b, ob, sizeof(ob));
	return strcmp(oa, ob) == 0;
}

static int check_url(const char *url, struct ix_err *err)
{
	struct url_parts p;

	if (!url || !*url)
		return ix_fail(err, IX_EXIT_USAGE, "no URL to post to");
	url_split(url, &p);
	if ((strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) ||
	    p.path == p.host)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid URL (want http://HOST[:PORT]/PATH or https://...)");
	return 0;
}

int ix_post_payload(const struct ix_post_opts *o, json_t *doc, const char *html, size_t html_len,
		    struct ix_post_msg *m, struct ix_err *err)
{
	int rc = 0;

	memset(m, 0, sizeof(*m));
	m->format = o->format;
	m->method = "POST";
	if (o->format == IX_POST_TEXTFILE)
		return ix_post_textfile_payload(o, doc, m, err);
	if (check_url(o->url, err) < 0 || ix_post_check_doc(doc, err) < 0)
		return -1;
	switch (o->format) {
	case IX_POST_WEBHOOK: {
		/* The document with its verdict, the command's exit status in a
		 * word, on top: a receiver need not know every result kind. */
		json_t *top = json_copy(doc);

		m->content_type = "application/json";
		if (top)
			json_object_set_new(top, "verdict", json_string(ix_doc_verdict(doc)));
		m->body = top ? json_dumps(top, JSON_COMPACT | JSON_REAL_PRECISION(10)) : NULL;
		m->len = m->body ? strlen(m->body) : 0;
		json_decref(top);
		break;
	}
	case IX_POST_CHAT:
		m->content_type = "application/json";
		rc = ix_post_chat_body(doc, &m->body, &m->len, err);
		break;
	case IX_POST_PUSHGATEWAY:
		/* PUT replaces the whole group: series of checks that are gone go too. */
		m->method = "PUT";
		m->content_type = "text/plain; version=0.0.4; charset=utf-8";
		rc = ix_post_prom_body(doc, o->pairs, &m->body, &m->len, err);
		break;
	case IX_POST_TEXTFILE: /* built above */
		break;
	case IX_POST_HTML:
		if (!html)
			return ix_fail(err, IX_EXIT_FAIL, "no HTML report to upload");
		m->content_type = "text/html; charset=utf-8";
		m->body = malloc(html_len + 1);
		if (m->body) {
			memcpy(m->body, html, html_len);
			m->body[html_len] = '\0';
			m->len = html_len;
		}
		break;
	}
	m->url = o->format == IX_POST_PUSHGATEWAY
			 ? ix_post_grouping_url(o->url, o->job ? o->job : IX_POST_DEFAULT_JOB,
						json_string_value(json_object_get(doc, "host")))
			 : strdup(o->url);
	if (rc == 0 && (!m->body || !m->url))
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (rc < 0)
		ix_post_msg_free(m);
	return rc;
}

void ix_post_msg_free(struct ix_post_msg *m)
{
	free(m->body);
	free(m->url);
	m->body = NULL;
	m->url = NULL;
}

/* ---- transport -------------------------------------------------------------- */

#ifndef HAVE_CURL

int ix_post_send(const struct ix_post_opts *o, const struct ix_post_msg *m, struct ix_err *err)
{
	if (m && m->format == IX_POST_TEXTFILE)
		return ix_post_textfile(m, err);
	return ix_fail(err, IX_EXIT_UNAVAILABLE,
		       "posting is not built in: ixperf was configured without libcurl");
}

int ix_post_flush(const struct ix_post_opts *o, struct ix_err *err)
{
	return ix_post_send(o, NULL, err);
}

#else

#define BACKOFF_FIRST_S 0.5
#define BACKOFF_MAX_S   8.0
#define RETRY_AFTER_MAX 30
#define CONNECT_MAX_S   10.0
#define MIN_SCRUB       4 /* shorter secrets would blank ordinary words */

/* The URL without user:password (what the spool stores). */
static char *url_strip_userinfo(const char *url)
{
	struct url_parts p;
	size_t n = strlen(url);
	char *s;

	url_split(url, &p);
	s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, url, p.auth);
	memcpy(s + p.auth, url + p.host, n - p.host + 1);
	return s;
}

struct creds {
	char *token;       /* Authorization: Bearer */
	char *user, *pass; /* basic authentication */
};

static void wipe(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static void creds_free(struct creds *c)
{
	wipe(c->token);
	wipe(c->user);
	wipe(c->pass);
	memset(c, 0, sizeof(*c));
}

/* One line: "user:password" for basic authentication, else a bearer token
 * (with or without a leading "Bearer "). */
static int creds_parse(char *line, struct creds *c, const char *from, struct ix_err *err)
{
	size_t n = strcspn(line, "\r\n");
	char *colon;

	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	line[n] = '\0';
	if (strncasecmp(line, "Bearer ", 7) == 0)
		line += 7 + strspn(line + 7, " ");
	else if ((colon = strchr(line, ':'))) {
		*colon = '\0';
		c->user = strdup(line);
		c->pass = strdup(colon + 1);
		return c->user && c->pass ? 0 : ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	if (!*line)
		return ix_fail(err, IX_EXIT_USAGE, "%s: no credentials on its first line", from);
	c->token = strdup(line);
	return c->token ? 0 : ix_fail(err, IX_EXIT_FAIL, "out of memory");
}

/* --credentials FILE, refused like ssh refuses a private key when others
 * may read it; else $IXPERF_POST_TOKEN; else none. */
static int creds_load(const struct ix_post_opts *o, struct creds *c, struct ix_err *err)
{
	const char *path = o->credentials_file, *env = getenv("IXPERF_POST_TOKEN");
	char buf[4096];
	struct stat st;
	ssize_t n;
	int fd, rc;

	memset(c, 0, sizeof(*c));
	if (!path) {
		if (!env || !*env)
			return 0;
		if (strncasecmp(env, "Bearer ", 7) == 0)
			env += 7 + strspn(env + 7, " ");
		c->token = strdup(env);
		return c->token ? 0 : ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ix_fail(err, IX_EXIT_USAGE, "cannot open credentials file %s: %s", path,
			       strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ix_fail(err, IX_EXIT_USAGE, "credentials file %s is not a regular file",
			       path);
	}
	if ((st.st_mode & 077) || (st.st_uid != geteuid() && st.st_uid != 0)) {
		close(fd);
		return ix_fail(err, IX_EXIT_USAGE,
			       "credentials file %s is accessible by others (mode %04o, owner %u); "
			       "chmod 600 it",
			       path, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return ix_fail(err, IX_EXIT_USAGE, "cannot read %s: %s", path, strerror(errno));
	buf[n] = '\0';
	rc = creds_parse(buf, c, path, err);
	explicit_bzero(buf, sizeof(buf));
	if (rc < 0)
		creds_free(c);
	return rc;
}

/* Blank every occurrence of secret (n bytes) in msg, and a piece of it that
 * a truncated message ends with. */
static void scrub(char *msg, const char *secret, size_t n)
{
	char s[IX_ERR_MAX];
	size_t ml;
	char *p;

	if (n < MIN_SCRUB)
		return;
	if (n >= sizeof(s))
		n = sizeof(s) - 1; /* longer than any message: its head is enough */
	memcpy(s, secret, n);
	s[n] = '\0';
	while ((p = strstr(msg, s))) {
		memmove(p + 3, p + n, strlen(p + n) + 1);
		memcpy(p, "***", 3);
	}
	ml = strlen(msg);
	for (size_t k = n - 1; k >= MIN_SCRUB; k--)
		if (k <= ml && memcmp(msg + ml - k, s, k) == 0) {
			memcpy(msg + ml - k, "***", 4);
			break;
		}
	explicit_bzero(s, sizeof(s));
}

/* No secret in a message: not the token or password, nor the URL's
 * user:password or query (nor a chat webhook's path), whatever curl or the
 * server put in it. */
static void scrub_all(char *msg, const struct creds *c, const char *url, bool keep_path)
{
	struct url_parts p;

	url_split(url, &p);
	if (!keep_path && p.query > p.path + 1)
		scrub(msg, url + p.path + 1, p.query - p.path - 1); /* a chat webhook's key */
	if (p.host > p.auth)
		scrub(msg, url + p.auth, p.host - 1 - p.auth);
	if (url[p.query])
		scrub(msg, url + p.query + 1, strlen(url + p.query + 1));
	for (size_t i = p.auth; i < p.host; i++)
		if (url[i] == ':') {
			scrub(msg, url + i + 1, p.host - 2 - i);
			break;
		}
	if (c->token)
		scrub(msg, c->token, strlen(c->token));
	if (c->pass)
		scrub(msg, c->pass, strlen(c->pass));
}

struct req {
	const struct ix_post_opts *o;
	const struct creds *c;
	const char *url, *method, *content_type, *body;
	size_t len;
	bool keep_path; /* in messages: false for chat webhooks, whose path is the key */
};

enum outcome {
	O_OK,      /* 2xx */
	O_RETRY,   /* no answer, 408, 429, 5xx: try again, then spool */
	O_SPOOL,   /* TLS verification failed: no point retrying now; spool */
	O_AUTH,    /* 401, 403, 407: the credentials, not the payload */
	O_REFUSED, /* 3xx, other 4xx: the endpoint will never take this payload */
	O_USAGE,   /* the URL itself is wrong */
};

struct reply {
	char text[160];
	size_t len;
};

static size_t on_reply(char *p, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	size_t room = sizeof(r->text) - 1 - r->len, bytes = size * n;

	if (room > bytes)
		room = bytes;
	for (size_t i = 0; i < room; i++)
		r->text[r->len++] = (p[i] >= 0 && p[i] < 0x20) || p[i] == 0x7f ? ' ' : p[i];
	r->text[r->len] = '\0';
	return bytes;
}

static enum outcome attempt(CURL *h, const struct req *q, long *wait_s, struct ix_err *err)
{
	char ebuf[CURL_ERROR_SIZE] = "", where[256];
	struct reply rep = { .len = 0 };
	long status = 0;
	CURLcode rc;

	curl_easy_setopt(h, CURLOPT_WRITEDATA, &rep);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
	rc = curl_easy_perform(h);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
	ix_post_url_redact(q->url, q->keep_path, where, sizeof(where));
	if (rc != CURLE_OK) {
		ix_fail(err, IX_EXIT_FAIL, "cannot post to %s: %s", where,
			ebuf[0] ? ebuf : curl_easy_strerror(rc));
		switch (rc) {
		case CURLE_UNSUPPORTED_PROTOCOL:
		case CURLE_URL_MALFORMAT:
			err->code = IX_EXIT_USAGE;
			return O_USAGE;
		case CURLE_PEER_FAILED_VERIFICATION:
		case CURLE_SSL_CACERT_BADFILE:
		case CURLE_SSL_CERTPROBLEM:
		case CURLE_SSL_ISSUER_ERROR:
		case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
			return O_SPOOL;
		default:
			return O_RETRY;
		}
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 200 && status < 300)
		return O_OK;
	ix_fail(err, IX_EXIT_FAIL, "%s answered HTTP %ld%s%s", where, status, rep.len ? ": " : "",
		rep.text);
	if (status == 408 || status == 429 || status >= 500) {
#if LIBCURL_VERSION_NUM >= 0x074200
		curl_off_t ra = 0;
		if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
			*wait_s = ra < RETRY_AFTER_MAX ? (long)ra : RETRY_AFTER_MAX;
#endif
		return O_RETRY;
	}
	return status == 401 || status == 403 || status == 407 ? O_AUTH : O_REFUSED;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static struct curl_slist *add_header(struct curl_slist *l, const char *head, const char *v)
{
	char line[4200];
	struct curl_slist *n;

	snprintf(line, sizeof(line), "%s%s", head, v);
	n = curl_slist_append(l, line);
	explicit_bzero(line, sizeof(line));
	if (!n)
		curl_slist_free_all(l);
	return n;
}

static enum outcome setup(CURL *h, const struct req *q, struct curl_slist **hdrs)
{
	const struct ix_post_opts *o = q->o;
	double total = o->timeout_s > 0 ? o->timeout_s : IX_POST_DEFAULT_TIMEOUT_S;
	double conn = total < CONNECT_MAX_S ? total : CONNECT_MAX_S;

	*hdrs = add_header(NULL, "Content-Type: ", q->content_type);
	if (*hdrs)
		*hdrs = curl_slist_append(*hdrs, "Expect:"); /* no 100-continue round trip */
	if (*hdrs && q->c->token)
		*hdrs = add_header(*hdrs, "Authorization: Bearer ", q->c->token);
	if (!*hdrs)
		return O_RETRY;
	curl_easy_setopt(h, CURLOPT_URL, q->url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, q->body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)q->len);
	if (strcmp(q->method, "POST") != 0)
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, q->method);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "ixperf/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(total * 1000));
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(conn * 1000));
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_reply);
	if (q->c->user) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, q->c->user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, q->c->pass);
	}
	if (o->insecure) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	return O_OK;
}

/* Credentials about to cross the network in clear text: say so. */
static void warn_plain_http(const struct req *q)
{
	char where[256], msg[400];

	if (!q->o->warn || (!q->c->token && !q->c->user) || strncasecmp(q->url, "http://", 7) != 0)
		return;
	ix_post_url_redact(q->url, false, where, sizeof(where));
	snprintf(msg, sizeof(msg),
		 "%s go%s to %s over plain http: anyone on the path can read %s; use https",
		 q->c->token ? "the bearer token" : "the user name and password",
		 q->c->token ? "es" : "", where, q->c->token ? "it" : "them");
	q->o->warn(q->o->warn_arg, IX_POST_WARN_PLAIN_HTTP, msg);
}

/* One request with its retries; err says why unless O_OK. */
static enum outcome deliver(const struct req *q, struct ix_err *err)
{
	static bool ready;
	struct curl_slist *hdrs = NULL;
	enum outcome out;
	CURL *h;
	int i;

	warn_plain_http(q);

	if (!ready && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		ix_fail(err, IX_EXIT_FAIL, "cannot initialise libcurl");
		return O_SPOOL;
	}
	ready = true;
	h = curl_easy_init();
	if (!h || setup(h, q, &hdrs) != O_OK) {
		if (h)
			curl_easy_cleanup(h);
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		return O_SPOOL;
	}
	for (i = 0;; i++) {
		double delay = BACKOFF_FIRST_S * (double)(1u << (i < 8 ? i : 8));
		long wait = 0;

		out = attempt(h, q, &wait, err);
		if (out != O_RETRY || i >= q->o->retries)
			break;
		if (delay > BACKOFF_MAX_S)
			delay = BACKOFF_MAX_S;
		sleep_s(wait > delay ? (double)wait : delay);
	}
	if (out == O_RETRY && i > 0)
		ix_fail_prefix(err, "gave up after %d tries", i + 1);
	curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	if (out != O_OK)
		scrub_all(err->msg, q->c, q->url, q->keep_path);
	return out;
}

static int spool_dir(const struct ix_post_opts *o, char *buf, size_t len, struct ix_err *err)
{
	if (!o->spool_dir)
		return ix_spool_default_dir(buf, len, err);
	if ((size_t)snprintf(buf, len, "%s", o->spool_dir) >= len)
		return ix_fail(err, IX_EXIT_USAGE, "spool directory path too long");
	return 0;
}

static void err_append(struct ix_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void err_append(struct ix_err *err, const char *fmt, ...)
{
	size_t n = strlen(err->msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
}

struct flush_ctx {
	const struct ix_post_opts *o;
	const struct creds *c;
	size_t plen; /* of the prefix: o->url without user:password */
};

static const struct creds no_creds;

static void flush_warn(void *arg, const char *msg)
{
	const struct flush_ctx *f = arg;

	if (f->o->warn)
		f->o->warn(f->o->warn_arg, IX_POST_WARN_SPOOL_ENTRY, msg);
}

static enum ix_spool_outcome flush_deliver(void *arg, const struct ix_spool_entry *e,
					   struct ix_err *err)
{
	const struct flush_ctx *f = arg;
	/* Credentials go only to the origin of the URL they came with. */
	bool ours = f->o->url && ix_post_same_origin(e->url, f->o->url);
	struct req q = { .o = f->o,
			 .c = ours ? f->c : &no_creds,
			 .url = e->url,
			 .method = e->method,
			 .content_type = e->content_type,
			 .body = e->body,
			 .len = e->len,
			 .keep_path = strcmp(e->format, "chat") != 0 };
	char *lent = NULL;
	struct url_parts p;
	enum outcome out;

	/* The flush URL's user:password goes with the entries below it. */
	if (ours && (url_split(f->o->url, &p), p.host > p.auth)) {
		size_t a = strlen(f->o->url), b = strlen(e->url + f->plen);
		lent = malloc(a + b + 1);
		if (!lent) {
			ix_fail(err, IX_EXIT_FAIL, "out of memory");
			return IX_SPOOL_KEEP;
		}
		memcpy(lent, f->o->url, a);
		memcpy(lent + a, e->url + f->plen, b + 1);
		q.url = lent;
	}
	out = deliver(&q, err);
	if (lent)
		wipe(lent);
	if (out == O_OK)
		return IX_SPOOL_DELIVERED;
	return out == O_REFUSED || out == O_USAGE ? IX_SPOOL_REJECTED : IX_SPOOL_KEEP;
}

static int flush_dir(const struct ix_post_opts *o, const struct creds *c, const char *dir,
		     size_t *n, struct ix_err *err)
{
	char *prefix = o->url ? url_strip_userinfo(o->url) : NULL;
	struct flush_ctx f = { o, c, prefix ? strlen(prefix) : 0 };
	int rc;

	if (o->url && !prefix)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	rc = ix_spool_flush(dir, prefix, flush_deliver, flush_warn, &f, n, err);
	free(prefix);
	return rc;
}

int ix_post_flush(const struct ix_post_opts *o, struct ix_err *err)
{
	char dir[4096];
	struct creds c;
	size_t n = 0;
	int rc;

	if (!o->url && o->credentials_file)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--credentials with --flush needs the URL they are for: they go "
			       "only to the entries below it");
	if ((o->url && check_url(o->url, err) < 0) || spool_dir(o, dir, sizeof(dir), err) < 0 ||
	    creds_load(o, &c, err) < 0)
		return -1;
	if (!o->url && (c.token || c.user) && o->warn)
		o->warn(o->warn_arg, IX_POST_WARN_CREDS_ORIGIN,
			"IXPERF_POST_TOKEN is not sent: a flush without a URL does not know "
			"which endpoint it is for; give the URL to send it there");
	rc = flush_dir(o, &c, dir, &n, err);
	creds_free(&c);
	return rc < 0 ? -1 : (int)n;
}

static int spool_msg(const char *dir, const struct ix_post_msg *m, const char *stored, char *name,
		     size_t len, struct ix_err *err)
{
	struct ix_spool_entry e = {
		.url = (char *)stored,
		.method = (char *)m->method,
		.content_type = (char *)m->content_type,
		.format = (char *)ix_post_format_name(m->format),
		.body = m->body,
		.len = m->len,
	};

	return ix_spool_put(dir, &e, name, len, err);
}

/* Payloads for this URL wait in the spool: queue m behind them and flush,
 * so that the endpoint sees them in order. */
static int send_behind(const struct ix_post_opts *o, const struct ix_post_msg *m,
		       const struct creds *c, const char *dir, const char *stored, size_t pending,
		       struct ix_err *err)
{
	struct ix_post_opts fo = *o;
	struct ix_err why = { 0 };
	char name[128], path[4400];
	size_t n = 0;

	if (spool_msg(dir, m, stored, name, sizeof(name), err) < 0)
		return -1;
	fo.url = m->url;
	if (flush_dir(&fo, c, dir, &n, &why) == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (access(path, F_OK) == 0) {
		*err = why;
		return ix_fail_prefix(err, "spooled as %s behind %zu earlier payload(s)", path,
				      pending);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", dir, IX_SPOOL_REJECTED_DIR, name);
	if (access(path, F_OK) == 0) {
		*err = why;
		return -1;
	}
	return 0; /* ours went through; an older one was refused */
}

int ix_post_send(const struct ix_post_opts *o, const struct ix_post_msg *m, struct ix_err *err)
{
	char dir[4096], name[128];
	struct ix_err e2 = { 0 };
	size_t pending = 0;
	struct creds c;
	enum outcome out;
	bool have_dir;
	char *stored;
	int rc = -1;

	if (m->format == IX_POST_TEXTFILE)
		return ix_post_textfile(m, err);
	if (check_url(m->url, err) < 0 || creds_load(o, &c, err) < 0)
		return -1;
	stored = url_strip_userinfo(m->url);
	if (!stored) {
		creds_free(&c);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	/* No spool (no HOME) does not stop a post, only its spooling; a spool
	 * others may write to does. */
	have_dir = spool_dir(o, dir, sizeof(dir), &e2) == 0;
	if (have_dir && ix_spool_check_dir(dir, err) < 0) {
		free(stored);
		creds_free(&c);
		return -1;
	}
	if (have_dir && ix_spool_count(dir, stored, &pending, NULL) == 0 && pending > 0) {
		rc = send_behind(o, m, &c, dir, stored, pending, err);
		goto out;
	}
	out = deliver(&(struct req){ .o = o,
				     .c = &c,
				     .url = m->url,
				     .method = m->method,
				     .content_type = m->content_type,
				     .body = m->body,
				     .len = m->len,
				     .keep_path = m->format != IX_POST_CHAT },
		      err);
	if (out == O_OK) {
		rc = 0;
	} else if (out == O_RETRY || out == O_SPOOL) {
		if (!have_dir || spool_msg(dir, m, stored, name, sizeof(name), &e2) < 0)
			err_append(err, "; NOT spooled either: %s", e2.msg);
		else
			err_append(err, "; spooled as %s/%s ('ixperf post --flush' sends it)", dir,
				   name);
	} else if (out != O_USAGE) {
		err_append(err, "; not spooled: %s",
			   out == O_AUTH ? "check the credentials" : "the endpoint refuses it");
	}
out:
	free(stored);
	creds_free(&c);
	return rc;
}

#endif /* HAVE_CURL */
