/* The request side of the metrics listener: a hostile peer's bytes parsed
 * into a method and a path, or into the status that refuses them. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "probes/net/http.h"

/* RFC 9110 tchar. */
static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static enum ix_http_parse bad(struct ix_http_req *req, int status)
{
	req->status = status;
	return IX_HTTP_BAD;
}

/* The request line s[0..n): "METHOD SP TARGET SP HTTP/1.x". */
static enum ix_http_parse request_line(const char *s, size_t n, struct ix_http_req *req)
{
	size_t i = 0, m, t0, tn;

	while (i < n && is_tchar((unsigned char)s[i]))
		i++;
	if (!i || i >= n || s[i] != ' ')
		return bad(req, 400);
	if (i >= sizeof(req->method))
		return bad(req, 501);
	memcpy(req->method, s, i);
	req->method[i] = '\0';
	t0 = ++i;
	while (i < n && s[i] > ' ' && s[i] < 0x7f)
		i++;
	tn = i - t0;
	if (i >= n || s[i] != ' ' || !tn || s[t0] != '/')
		return bad(req, tn >= IX_HTTP_TARGET_MAX ? 414 : 400);
	if (tn >= IX_HTTP_TARGET_MAX)
		return bad(req, 414);
	for (m = 0; m < tn && s[t0 + m] != '?' && s[t0 + m] != '#'; m++)
		req->path[m] = s[t0 + m];
	req->path[m] = '\0';
	i++;
	if (n - i != 8 || memcmp(s + i, "HTTP/", 5) || s[i + 6] != '.' || s[i + 7] < '0' ||
	    s[i + 7] > '9' || s[i + 5] < '0' || s[i + 5] > '9')
		return bad(req, 400);
	if (s[i + 5] != '1')
		return bad(req, 505);
	req->minor = s[i + 7] - '0';
	return IX_HTTP_DONE;
}

/* One header line s[0..n): a token, a colon, a value of visible
 * characters, spaces and tabs. */
static bool header_line(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && is_tchar((unsigned char)s[i]))
		i++;
	if (!i || i >= n || s[i] != ':')
		return false;
	for (i++; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < ' ' && c != '\t') || c == 0x7f)
			return false;
	}
	return true;
}

enum ix_http_parse ix_http_parse(const char *buf, size_t len, struct ix_http_req *req)
{
	size_t pos = 0, line = 0;

	memset(req, 0, sizeof(*req));
	if (memchr(buf, '\0', len))
		return bad(req, 400);
	for (;;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end, n;

		if (!nl)
			return len >= IX_HTTP_HEAD_MAX ? bad(req, 431) : IX_HTTP_MORE;
		end = (size_t)(nl - buf);
		if (end + 1 > IX_HTTP_HEAD_MAX)
			return bad(req, 431);
		n = end - pos;
		if (n && buf[end - 1] == '\r')
			n--;
		if (memchr(buf + pos, '\r', n))
			return bad(req, 400);
		if (line == 0 && request_line(buf + pos, n, req) == IX_HTTP_BAD)
			return IX_HTTP_BAD;
		if (line > 0 && n == 0) {
			req->head_len = end + 1;
			return IX_HTTP_DONE;
		}
		if (line > 0 && !header_line(buf + pos, n))
			return bad(req, 400);
		pos = end + 1;
		line++;
	}
}

static int parse_port(const char *s, const char *whole, uint16_t *port, struct ix_err *err)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; s[i] >= '0' && s[i] <= '9' && i < 6; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	if (!i || s[i] || v > 65535)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid listen address '%s': the port must be a number from 0 to "
			       "65535",
			       whole);
	*port = (uint16_t)v;
	return 0;
}

int ix_http_parse_listen(const char *s, char *host, size_t hostlen, uint16_t *port,
			 struct ix_err *err)
{
	const char *colon, *h = s;
	size_t n;

	if (!s || !*s)
		return ix_fail(err, IX_EXIT_USAGE, "invalid listen address '': expected ADDR:PORT");
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid listen address '%s': expected [ADDR]:PORT", s);
		h = s + 1;
		n = (size_t)(close - h);
		colon = close + 1;
		if (!n)
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid listen address '%s': empty IPv6 address", s);
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid listen address '%s': expected ADDR:PORT (or :PORT "
				       "for every address)",
				       s);
		n = (size_t)(colon - s);
		if (memchr(s, ':', n))
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid listen address '%s': write an IPv6 address in "
				       "brackets, [ADDR]:PORT",
				       s);
	}
	if (n >= hostlen)
		return ix_fail(err, IX_EXIT_USAGE, "invalid listen address '%s': address too long",
			       s);
	for (size_t i = 0; i < n; i++)
		if (h[i] <= ' ' || h[i] >= 0x7f)
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid listen address '%s': a space or control character "
				       "in the address",
				       s);
	memcpy(host, h, n);
	host[n] = '\0';
	return parse_port(colon + 1, s, port, err);
}

const char *ix_http_reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 414:
		return "URI Too Long";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	case 503:
		return "Service Unavailable";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Error";
	}
}
