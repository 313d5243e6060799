#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

#include "probes/core/clock.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/seal.h"

_Static_assert(IX_SEAL_FRAME_HDR == IX_FRAME_HDR, "seal.h and proto.h disagree on the header");

/* What a body may hold: parsing multiplies its size in memory (a value
 * of two bytes, "1,", becomes a node of about 40), most of all for many
 * small values and containers, so those are bounded before the parser
 * sees them. Every message of the protocol is within: a frame full of
 * the most compact records, {"src":1,"dst":0,"bps":9.4e9}, holds about
 * 12,000. A parse then takes at most a megabyte or two. */
#define BODY_MAX_DEPTH      32
#define BODY_MAX_CONTAINERS 4096
#define BODY_MAX_VALUES     16384
/* Bodies from this size on are parsed a few at a time across the process,
 * so many connections sending large bodies at once cannot multiply the
 * peak: the parse itself takes well under a millisecond. */
#define BODY_GATED_BYTES 4096
#define BODY_GATE_SLOTS  4

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static unsigned gate_busy, gate_peak;

static const char *const msg_names[IX_MSG__MAX] = {
	[IX_MSG_HELLO] = "HELLO",
	[IX_MSG_HELLO_ACK] = "HELLO_ACK",
	[IX_MSG_TEST] = "TEST",
	[IX_MSG_TEST_ACK] = "TEST_ACK",
	[IX_MSG_ATTACH] = "ATTACH",
	[IX_MSG_READY] = "READY",
	[IX_MSG_START] = "START",
	[IX_MSG_INTERVAL] = "INTERVAL",
	[IX_MSG_STOP] = "STOP",
	[IX_MSG_RESULT] = "RESULT",
	[IX_MSG_ERROR] = "ERROR",
	[IX_MSG_AUTH] = "AUTH",
	[IX_MSG_AUTH_OK] = "AUTH_OK",
	[IX_MSG_PING] = "PING",
	[IX_MSG_PONG] = "PONG",
	[IX_MSG_RUN] = "RUN",
	[IX_MSG_REPORT] = "REPORT",
	[IX_MSG_INVENTORY] = "INVENTORY",
	[IX_MSG_INVENTORY_REPLY] = "INVENTORY_REPLY",
	[IX_MSG_IFSTATS] = "IFSTATS",
	[IX_MSG_IFSTATS_REPLY] = "IFSTATS_REPLY",
};

const char *ix_msg_name(uint16_t type)
{
	if (type < IX_MSG__MAX && msg_names[type])
		return msg_names[type];
	return "unknown";
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	v = htons(v);
	memcpy(p, &v, 2);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return ntohl(v);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return ntohs(v);
}

int ix_frame_encode(uint16_t type, json_t *body, uint8_t **out, size_t *outlen, struct ix_err *err)
{
	char *text;
	size_t len;
	uint8_t *buf;

	text = json_dumps(body, JSON_COMPACT);
	if (!text)
		return ix_fail(err, IX_EXIT_FAIL, "cannot encode %s message", ix_msg_name(type));
	len = strlen(text);
	if (len > IX_FRAME_MAX) {
		free(text);
		return ix_fail(err, IX_EXIT_FAIL,
			       "%s message of %zu bytes exceeds the %u-byte frame limit",
			       ix_msg_name(type), len, IX_FRAME_MAX);
	}
	buf = malloc(IX_FRAME_HDR + len);
	if (!buf) {
		free(text);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	put32(buf, IX_PROTO_MAGIC);
	put16(buf + 4, IX_PROTO_VERSION);
	put16(buf + 6, type);
	put32(buf + 8, (uint32_t)len);
	memcpy(buf + IX_FRAME_HDR, text, len);
	free(text);
	*out = buf;
	*outlen = IX_FRAME_HDR + len;
	return 0;
}

int ix_frame_parse_header(const uint8_t *buf, size_t len, struct ix_frame_hdr *h,
			  struct ix_err *err)
{
	if (len < IX_FRAME_HDR)
		return ix_fail(err, IX_EXIT_FAIL, "truncated frame header (%zu of %d bytes)", len,
			       IX_FRAME_HDR);
	if (get32(buf) != IX_PROTO_MAGIC)
		return ix_fail(err, IX_EXIT_FAIL, "not an ixperf control frame (bad magic)");
	h->version = get16(buf + 4);
	h->type = get16(buf + 6);
	h->length = get32(buf + 8);
	if (h->version != IX_PROTO_VERSION)
		return ix_fail(err, IX_EXIT_FAIL,
			       "unsupported protocol version %u (this side speaks %d)", h->version,
			       IX_PROTO_VERSION);
	if (h->type == 0 || h->type >= IX_MSG__MAX)
		return ix_fail(err, IX_EXIT_FAIL, "unknown message type %u", h->type);
	if (h->length > IX_FRAME_MAX)
		return ix_fail(err, IX_EXIT_FAIL, "frame of %u bytes exceeds the %u-byte limit",
			       h->length, IX_FRAME_MAX);
	return 0;
}

/* Depth and count of objects and arrays, and of all keys and values (one
 * starts at the first character after '{', '[', ':' or ','), strings
 * skipped. */
static int body_shape(const uint8_t *buf, size_t len, struct ix_err *err)
{
	unsigned depth = 0, containers = 0, values = 0;
	bool in_str = false, expect = true;

	for (size_t i = 0; i < len; i++) {
		uint8_t c = buf[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (expect && c != ']' && c != '}' && ++values > BODY_MAX_VALUES)
			return ix_fail(err, IX_EXIT_FAIL,
				       "malformed message body: more than %d keys and values",
				       BODY_MAX_VALUES);
		expect = c == '{' || c == '[' || c == ':' || c == ',';
		if (c == '"') {
			in_str = true;
		} else if (c == '{' || c == '[') {
			if (++depth > BODY_MAX_DEPTH)
				return ix_fail(err, IX_EXIT_FAIL,
					       "malformed message body: nested deeper than %d",
					       BODY_MAX_DEPTH);
			if (++containers > BODY_MAX_CONTAINERS)
				return ix_fail(err, IX_EXIT_FAIL,
					       "malformed message body: more than %d objects and "
					       "arrays",
					       BODY_MAX_CONTAINERS);
		} else if ((c == '}' || c == ']') && depth) {
			depth--;
		}
	}
	return 0;
}

static void gate_enter(void)
{
	pthread_mutex_lock(&gate_lock);
	while (gate_busy >= BODY_GATE_SLOTS)
		pthread_cond_wait(&gate_cond, &gate_lock);
	if (++gate_busy > gate_peak)
		gate_peak = gate_busy;
	pthread_mutex_unlock(&gate_lock);
}

static void gate_leave(void)
{
	pthread_mutex_lock(&gate_lock);
	gate_busy--;
	pthread_cond_signal(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

unsigned ix_frame_parse_peak(void)
{
	unsigned n;

	pthread_mutex_lock(&gate_lock);
	n = gate_peak;
	pthread_mutex_unlock(&gate_lock);
	return n;
}

json_t *ix_frame_parse_body(const uint8_t *buf, size_t len, struct ix_err *err)
{
	json_error_t jerr;
	bool gated = len >= BODY_GATED_BYTES;
	json_t *j;

	if (body_shape(buf, len, err) < 0)
		return NULL;
	if (gated)
		gate_enter();
	j = json_loadb((const char *)buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (gated)
		gate_leave();
	if (!j) {
		ix_fail(err, IX_EXIT_FAIL, "malformed message body: %s", jerr.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		ix_fail(err, IX_EXIT_FAIL, "malformed message body: not a JSON object");
		return NULL;
	}
	return j;
}

int ix_frame_send(int fd, uint16_t type, json_t *body, int64_t deadline_ns, struct ix_err *err)
{
	uint8_t *buf;
	size_t len;
	int rc = 0;

	if (ix_frame_encode(type, body, &buf, &len, err) < 0)
		return -1;
	if (ix_seal_bound(fd)) {
		/* The tag counts in the length, and the header is in the tag. */
		uint8_t *sealed = realloc(buf, len + IX_SEAL_TAG);

		if (!sealed) {
			free(buf);
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		}
		buf = sealed;
		if (len - IX_FRAME_HDR + IX_SEAL_TAG > IX_FRAME_MAX)
			rc = ix_fail(err, IX_EXIT_FAIL,
				     "%s message exceeds the %u-byte frame limit",
				     ix_msg_name(type), IX_FRAME_MAX);
		else
			put32(buf + 8, (uint32_t)(len - IX_FRAME_HDR + IX_SEAL_TAG));
		if (rc == 0 && ix_seal_tag(fd, buf, len, buf + len, err) < 0)
			rc = -1;
		len += IX_SEAL_TAG;
	}
	if (rc == 0)
		rc = ix_net_write_full(fd, buf, len, deadline_ns, err);
	free(buf);
	return rc;
}

/* A whole frame (header, body, tag when sealed) to its message. */
static json_t *frame_body(int fd, const uint8_t *frame, size_t len, struct ix_err *err)
{
	size_t body_len = len - IX_FRAME_HDR;

	if (ix_seal_check(fd, frame, len, &body_len, err) < 0)
		return NULL;
	return ix_frame_parse_body(frame + IX_FRAME_HDR, body_len, err);
}

int ix_frame_recv(int fd, uint16_t *type, json_t **body, int64_t deadline_ns, struct ix_err *err)
{
	return ix_frame_recv_upto(fd, IX_FRAME_MAX, type, body, deadline_ns, err);
}

int ix_frame_recv_upto(int fd, uint32_t max_len, uint16_t *type, json_t **body, int64_t deadline_ns,
		       struct ix_err *err)
{
	uint8_t hdrbuf[IX_FRAME_HDR], *buf;
	struct ix_frame_hdr h;
	json_t *j;

	*body = NULL;
	if (ix_net_read_full(fd, hdrbuf, sizeof(hdrbuf), deadline_ns, err) < 0)
		return -1;
	if (ix_frame_parse_header(hdrbuf, sizeof(hdrbuf), &h, err) < 0)
		return -1;
	if (h.length > max_len)
		return ix_fail(err, IX_EXIT_FAIL,
			       "%s frame of %u bytes exceeds the %u-byte limit here",
			       ix_msg_name(h.type), h.length, max_len);
	buf = malloc(IX_FRAME_HDR + h.length);
	if (!buf)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	memcpy(buf, hdrbuf, IX_FRAME_HDR);
	if (ix_net_read_full(fd, buf + IX_FRAME_HDR, h.length, deadline_ns, err) < 0) {
		free(buf);
		return ix_fail_prefix(err, "truncated %s frame", ix_msg_name(h.type));
	}
	j = frame_body(fd, buf, IX_FRAME_HDR + h.length, err);
	free(buf);
	if (!j)
		return -1;
	*type = h.type;
	*body = j;
	return 0;
}

void ix_frame_reader_reset(struct ix_frame_reader *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

int ix_frame_reader_feed(struct ix_frame_reader *r, int fd, uint16_t *type, json_t **body,
			 struct ix_err *err)
{
	for (;;) {
		uint8_t *dst;
		size_t want;
		ssize_t n;

		if (r->got < IX_FRAME_HDR) {
			dst = r->hdr + r->got;
			want = IX_FRAME_HDR - r->got;
		} else {
			dst = r->body + r->got; /* the body follows a copy of the header */
			want = IX_FRAME_HDR + r->h.length - r->got;
		}
		if (want == 0) {
			json_t *j = frame_body(fd, r->body, IX_FRAME_HDR + r->h.length, err);
			*type = r->h.type;
			free(r->body);
			r->body = NULL;
			r->got = 0;
			if (!j)
				return -1;
			*body = j;
			return 1;
		}
		n = recv(fd, dst, want, MSG_DONTWAIT);
		if (n == 0)
			return ix_fail(err, IX_EXIT_FAIL, "connection closed by peer");
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return ix_fail(err, IX_EXIT_FAIL, "receive failed: %s", strerror(errno));
		}
		r->got += (size_t)n;
		if (r->got == IX_FRAME_HDR) {
			if (ix_frame_parse_header(r->hdr, IX_FRAME_HDR, &r->h, err) < 0)
				return -1;
			r->body = malloc(IX_FRAME_HDR + r->h.length);
			if (!r->body)
				return ix_fail(err, IX_EXIT_FAIL, "out of memory");
			memcpy(r->body, r->hdr, IX_FRAME_HDR);
		}
	}
}

void ix_frame_send_error(int fd, const char *msg)
{
	json_t *j = json_pack("{s:s}", "error", msg);
	if (j) {
		ix_frame_send(fd, IX_MSG_ERROR, j, ix_now_ns() + 500 * 1000000LL, NULL);
		json_decref(j);
	}
}
