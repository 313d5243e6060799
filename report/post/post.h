/* Posting result documents to HTTP endpoints: a JSON webhook, a chat
 * incoming webhook (Slack, Mattermost), a Prometheus Pushgateway, or an
 * HTML upload; or the same metrics as the Pushgateway's into a directory
 * that node_exporter's textfile collector reads. What could not be delivered waits in a spool (report/post/spool.h)
 * and goes first next time. Library code: errors come back in struct ix_err
 * and never carry a credential. */
#ifndef IX_POST_H
#define IX_POST_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "probes/core/err.h"

enum ix_post_format {
	IX_POST_WEBHOOK,
	IX_POST_CHAT,
	IX_POST_PUSHGATEWAY,
	IX_POST_HTML,
	IX_POST_TEXTFILE, /* url is a directory: DIR/ixperf-JOB.prom, no HTTP */
};

#define IX_POST_DEFAULT_TIMEOUT_S 30.0
#define IX_POST_DEFAULT_RETRIES   3
#define IX_POST_DEFAULT_JOB       "ixperf"

/* What a post tells the user besides its outcome. */
enum ix_post_warning {
	IX_POST_WARN_PLAIN_HTTP,   /* credentials about to go over plain http:// */
	IX_POST_WARN_SPOOL_ENTRY,  /* a spool entry not ours, skipped (msg names it) */
	IX_POST_WARN_CREDS_ORIGIN, /* a flush without a URL: the token goes to no entry */
};

struct ix_post_opts {
	const char *url; /* flush: NULL = every entry, else the entries below this URL */
	enum ix_post_format format;
	double timeout_s; /* per request; 0 = IX_POST_DEFAULT_TIMEOUT_S */
	int retries;      /* after the first try, 0: none (backoff 0.5 s, 1 s ... 8 s) */
	bool insecure;    /* no TLS certificate or host name verification */
	const char *credentials_file; /* NULL: $IXPERF_POST_TOKEN if set */
	const char *spool_dir;        /* NULL: ix_spool_default_dir() */
	const char *job;              /* Pushgateway job label; NULL: "ixperf" */
	bool pairs;                   /* Prometheus: a mesh's per-pair series too */
	/* Warnings for the user, with a sentence to show (no secret in it);
	 * NULL: none. Called for every request that sends credentials over
	 * plain http, so a caller that says it once keeps count. */
	void (*warn)(void *arg, enum ix_post_warning w, const char *msg);
	void *warn_arg;
};

/* One request, ready to send or to spool. */
struct ix_post_msg {
	char *body;
	size_t len;
	const char *content_type; /* static strings */
	const char *method;       /* "POST"; "PUT" for the Pushgateway */
	char *url;                /* o->url, or the Pushgateway grouping-key URL */
	enum ix_post_format format;
};

int ix_post_format_parse(const char *name, enum ix_post_format *f, struct ix_err *err);
const char *ix_post_format_name(enum ix_post_format f);

/* Build the request for an ixperf result document. html/html_len: the
 * rendered report for IX_POST_HTML (NULL otherwise). A document that is not
 * an ixperf result fails with IX_EXIT_FAIL, a URL that is not http(s) with
 * IX_EXIT_USAGE. IX_POST_TEXTFILE: m->url is the file DIR/ixperf-JOB.prom
 * (JOB: o->job, default ixperf; a name that is not [A-Za-z0-9_.-] is a
 * usage error). */
int ix_post_payload(const struct ix_post_opts *o, json_t *doc, const char *html, size_t html_len,
		    struct ix_post_msg *m, struct ix_err *err);
void ix_post_msg_free(struct ix_post_msg *m);

/* Deliver m: 2xx is success. 408, 429, 5xx and transport errors are retried
 * with backoff and, when retries run out, the payload is spooled and -1
 * returned with err saying so. Other answers (3xx, 4xx) mean the endpoint
 * will never take this payload: -1, not spooled. When the spool already
 * holds payloads for the same URL, m is spooled behind them and the spool
 * flushed, so that the endpoint sees results in order. Without libcurl:
 * -1 with IX_EXIT_UNAVAILABLE. */
int ix_post_send(const struct ix_post_opts *o, const struct ix_post_msg *m, struct ix_err *err);
/* IX_POST_TEXTFILE: write m's body to m->url through a temporary file
 * that the collector ignores (not *.prom) and a rename; the directory
 * must exist (node_exporter's, created by whoever runs it). Not spooled:
 * a directory that cannot be written is an error now. */
int ix_post_textfile(const struct ix_post_msg *m, struct ix_err *err);
/* ix_post_payload for IX_POST_TEXTFILE (report/post/textfile.c). */
int ix_post_textfile_payload(const struct ix_post_opts *o, json_t *doc, struct ix_post_msg *m,
			     struct ix_err *err);

/* Deliver the spooled payloads under o->url (every one when NULL), oldest
 * first, each removed after a 2xx; stop at the first that still fails and
 * keep it and the rest. Entries an endpoint refuses (4xx) move to
 * SPOOL/rejected/. Returns the number delivered, or -1 with err when some
 * were left. The credentials (and a URL's user:password) go only to the
 * entries of the URL's origin (scheme, host and port): the entries below
 * it. Without a URL they go to no entry: credentials_file is then a usage
 * error, and $IXPERF_POST_TOKEN is left out with a warning (credentials
 * are never written to the spool). Entries the caller does
 * not own, or that others may write to, are skipped with a warning: no
 * credentials go to a URL someone else wrote. A spool directory others
 * may write to is refused (as ix_post_send refuses it). */
int ix_post_flush(const struct ix_post_opts *o, struct ix_err *err);

/* url for messages: without user:password, query or fragment (and, when
 * keep_path is false, without the path: a chat webhook's path is its key). */
void ix_post_url_redact(const char *url, bool keep_path, char *buf, size_t len);

/* Internals shared by post.c and format.c (and the unit tests). */
/* Whether a and b have the same scheme, host and port (80 or 443 when the
 * URL names none), case aside. */
bool ix_post_same_origin(const char *a, const char *b);
/* Not an ixperf result document (or a newer schema): IX_EXIT_FAIL. */
int ix_post_check_doc(json_t *doc, struct ix_err *err);
/* {"text": ...} for a Slack or Mattermost incoming webhook. */
int ix_post_chat_body(json_t *doc, char **body, size_t *len, struct ix_err *err);
/* Prometheus text exposition format 0.0.4 (report/post/prom.c): the
 * verdict, the checks, per-host and summary series (a traffic pattern's
 * and the rails' too, prom_shape.c); with pairs, a mesh's series per pair
 * (n x (n - 1) of each: ask only for small meshes) and a pattern's tests. */
int ix_post_prom_body(json_t *doc, bool pairs, char **body, size_t *len, struct ix_err *err);
/* URL/metrics/job/JOB/instance/INSTANCE with the Pushgateway's escaping (a
 * URL that already holds /metrics/job is used as it is). */
char *ix_post_grouping_url(const char *url, const char *job, const char *instance);

#endif
