/*
 * The request side of a tiny HTTP/1.x server (httpd.h): a request head
 * parsed from bytes a peer sent, which may be hostile, and the ADDR:PORT a
 * listener is asked for on the command line. Nothing here touches a socket.
 */
#ifndef IX_HTTP_H
#define IX_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

#define IX_HTTP_HEAD_MAX   4096 /* request line and headers, blank line included */
#define IX_HTTP_TARGET_MAX 256  /* the request target, query included */

struct ix_http_req {
	char method[8];                /* "GET" */
	char path[IX_HTTP_TARGET_MAX]; /* the target up to '?': "/metrics" */
	int minor;                     /* HTTP/1.minor */
	int status;                    /* when malformed: the status to answer */
	size_t head_len;               /* bytes of the head, blank line included */
};

enum ix_http_parse {
	IX_HTTP_MORE = 0, /* no blank line yet, and room for more */
	IX_HTTP_DONE = 1, /* a whole head, well formed */
	IX_HTTP_BAD = -1, /* malformed or too long: req->status says how */
};

/* Parse the head of a request from the len bytes a peer sent so far.
 * Lines end in CRLF (a bare LF is taken too). The request line must be
 * "METHOD SP TARGET SP HTTP/1.x" with a token for METHOD (8 characters at
 * most, else 501) and an origin-form TARGET of visible ASCII (400; longer
 * than IX_HTTP_TARGET_MAX: 414); another version is 505. A header line
 * must be "name: value" with a token name and no control character but
 * tab in the value (400). A head longer than IX_HTTP_HEAD_MAX is 431.
 * A NUL anywhere is 400. */
enum ix_http_parse ix_http_parse(const char *buf, size_t len, struct ix_http_req *req);

/* "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT" (every address) into host
 * (a numeric address or a name; "" for every address) and port (0: a free
 * one). -1 with err (IX_EXIT_USAGE) naming what is wrong. */
int ix_http_parse_listen(const char *s, char *host, size_t hostlen, uint16_t *port,
			 struct ix_err *err);

/* The reason phrase of a status this server answers with: "Not Found". */
const char *ix_http_reason(int status);

#endif
