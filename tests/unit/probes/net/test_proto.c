/* Unit tests for probes/net/proto.c: frame encoding, header and body
 * validation, and framed I/O over a socketpair. */
#include "config.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/net/proto.h"

#define MS (1000000LL)

/* A hand-made header: magic, version, type, length. */
static void make_hdr(uint8_t *p, uint32_t magic, uint16_t version, uint16_t type, uint32_t len)
{
	uint32_t m = htonl(magic), l = htonl(len);
	uint16_t v = htons(version), t = htons(type);

	memcpy(p, &m, 4);
	memcpy(p + 4, &v, 2);
	memcpy(p + 6, &t, 2);
	memcpy(p + 8, &l, 4);
}

static void good_hdr(uint8_t *p, uint16_t type, uint32_t len)
{
	make_hdr(p, IX_PROTO_MAGIC, IX_PROTO_VERSION, type, len);
}

static void assert_msg_has(const struct ix_err *err, const char *part)
{
	cr_assert_not_null(strstr(err->msg, part), "message '%s' lacks '%s'", err->msg, part);
}

/* ---- encode / parse ----------------------------------------------------- */

Test(frame, encode_then_parse_round_trip)
{
	json_t *body =
		json_pack("{s:i,s:s,s:[i,i],s:b}", "n", 42, "s", "h\xc3\xa9llo", "a", 1, 2, "t", 1);
	struct ix_err err = { 0 };
	struct ix_frame_hdr h;
	uint8_t *buf = NULL;
	size_t len = 0;
	json_t *back;

	cr_assert_not_null(body);
	cr_assert_eq(ix_frame_encode(IX_MSG_TEST, body, &buf, &len, &err), 0, "%s", err.msg);
	cr_assert_gt(len, IX_FRAME_HDR);
	cr_assert_eq(memcmp(buf, "IXPF", 4), 0);
	cr_assert_eq(buf[4], 0);
	cr_assert_eq(buf[5], IX_PROTO_VERSION);
	cr_assert_eq(buf[6], 0);
	cr_assert_eq(buf[7], IX_MSG_TEST);

	cr_assert_eq(ix_frame_parse_header(buf, len, &h, &err), 0, "%s", err.msg);
	cr_assert_eq(h.version, IX_PROTO_VERSION);
	cr_assert_eq(h.type, IX_MSG_TEST);
	cr_assert_eq(h.length, len - IX_FRAME_HDR);

	back = ix_frame_parse_body(buf + IX_FRAME_HDR, h.length, &err);
	cr_assert_not_null(back, "%s", err.msg);
	cr_assert(json_equal(body, back));
	json_decref(back);
	json_decref(body);
	free(buf);
}

Test(frame, empty_object_round_trip)
{
	json_t *body = json_object();
	struct ix_err err = { 0 };
	struct ix_frame_hdr h;
	uint8_t *buf;
	size_t len;
	json_t *back;

	cr_assert_eq(ix_frame_encode(IX_MSG_START, body, &buf, &len, &err), 0);
	cr_assert_eq(len, IX_FRAME_HDR + 2); /* "{}" */
	cr_assert_eq(ix_frame_parse_header(buf, len, &h, &err), 0);
	cr_assert_eq(h.type, IX_MSG_START);
	back = ix_frame_parse_body(buf + IX_FRAME_HDR, h.length, &err);
	cr_assert(json_is_object(back));
	cr_assert_eq(json_object_size(back), 0);
	json_decref(back);
	json_decref(body);
	free(buf);
}

Test(frame, message_names)
{
	cr_assert_str_eq(ix_msg_name(IX_MSG_HELLO), "HELLO");
	cr_assert_str_eq(ix_msg_name(IX_MSG_INTERVAL), "INTERVAL");
	cr_assert_str_eq(ix_msg_name(IX_MSG_ERROR), "ERROR");
	/* every message type has its name */
	for (uint16_t t = IX_MSG_HELLO; t < IX_MSG__MAX; t++)
		cr_assert_str_neq(ix_msg_name(t), "unknown", "message type %u has no name", t);
	cr_assert_str_eq(ix_msg_name(IX_MSG_REPORT), "REPORT");
	cr_assert_str_eq(ix_msg_name(0), "unknown");
	cr_assert_str_eq(ix_msg_name(IX_MSG__MAX), "unknown");
	cr_assert_str_eq(ix_msg_name(0xffff), "unknown");
}

Test(frame, oversize_body_refused_by_encode)
{
	size_t n = IX_FRAME_MAX + 1;
	char *big = malloc(n + 1);
	json_t *body;
	struct ix_err err = { 0 };
	uint8_t *buf = NULL;
	size_t len = 0;

	cr_assert_not_null(big);
	memset(big, 'x', n);
	big[n] = '\0';
	body = json_pack("{s:s}", "s", big);
	cr_assert_eq(ix_frame_encode(IX_MSG_RESULT, body, &buf, &len, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	assert_msg_has(&err, "exceeds");
	assert_msg_has(&err, "RESULT");
	cr_assert_null(buf);
	json_decref(body);
	free(big);
}

Test(frame, body_of_exactly_the_limit_is_accepted)
{
	/* {"s":"xxx..."}: 8 bytes of syntax around the string. */
	size_t n = IX_FRAME_MAX - 8;
	char *s = malloc(n + 1);
	json_t *body;
	struct ix_err err = { 0 };
	struct ix_frame_hdr h;
	uint8_t *buf;
	size_t len;

	cr_assert_not_null(s);
	memset(s, 'x', n);
	s[n] = '\0';
	body = json_pack("{s:s}", "s", s);
	cr_assert_eq(ix_frame_encode(IX_MSG_RESULT, body, &buf, &len, &err), 0, "%s", err.msg);
	cr_assert_eq(len, IX_FRAME_HDR + IX_FRAME_MAX);
	cr_assert_eq(ix_frame_parse_header(buf, len, &h, &err), 0, "%s", err.msg);
	cr_assert_eq(h.length, IX_FRAME_MAX);
	free(buf);
	json_decref(body);
	free(s);
}

Test(header, bad_magic)
{
	uint8_t b[IX_FRAME_HDR];
	struct ix_frame_hdr h;
	struct ix_err err = { 0 };

	make_hdr(b, 0x48545450u /* "HTTP" */, IX_PROTO_VERSION, IX_MSG_HELLO, 2);
	cr_assert_eq(ix_frame_parse_header(b, sizeof(b), &h, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	assert_msg_has(&err, "magic");
}

Test(header, wrong_version_names_it)
{
	uint8_t b[IX_FRAME_HDR];
	struct ix_frame_hdr h;
	struct ix_err err = { 0 };

	make_hdr(b, IX_PROTO_MAGIC, 7, IX_MSG_HELLO, 2);
	cr_assert_eq(ix_frame_parse_header(b, sizeof(b), &h, &err), -1);
	assert_msg_has(&err, "version 7");
	make_hdr(b, IX_PROTO_MAGIC, 0, IX_MSG_HELLO, 2);
	cr_assert_eq(ix_frame_parse_header(b, sizeof(b), &h, &err), -1);
	assert_msg_has(&err, "version 0");
}

Test(header, unknown_types)
{
	static const uint16_t bad[] = { 0, IX_MSG__MAX, IX_MSG__MAX + 1, 0xffff };
	uint8_t b[IX_FRAME_HDR];
	struct ix_frame_hdr h;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ix_err err = { 0 };

		good_hdr(b, bad[i], 2);
		cr_assert_eq(ix_frame_parse_header(b, sizeof(b), &h, &err), -1, "type %u accepted",
			     bad[i]);
		assert_msg_has(&err, "unknown message type");
	}
	for (uint16_t t = IX_MSG_HELLO; t < IX_MSG__MAX; t++) {
		struct ix_err err = { 0 };

		good_hdr(b, t, 2);
		cr_assert_eq(ix_frame_parse_header(b, sizeof(b), &h, &err), 0, "type %u: %s", t,
			     err.msg);
		cr_assert_eq(h.type, t);
	}
}

Test(header, length_over_limit)
{
	uint8_t b[IX_FRAME_HDR];
	struct ix_frame_hdr h;
	struct ix_err err = { 0 };

	good_hdr(b, IX_MSG_RESULT, IX_FRAME_MAX + 1);
	cr_assert_eq(ix_frame_parse_header(b, sizeof(b), &h, &err), -1);
	assert_msg_has(&err, "exceeds");
	good_hdr(b, IX_MSG_RESULT, 0xffffffffu);
	cr_assert_eq(ix_frame_parse_header(b, sizeof(b), &h, &err), -1);
	good_hdr(b, IX_MSG_RESULT, IX_FRAME_MAX);
	cr_assert_eq(ix_frame_parse_header(b, sizeof(b), &h, &err), 0);
	cr_assert_eq(h.length, IX_FRAME_MAX);
}

Test(header, truncated)
{
	uint8_t b[IX_FRAME_HDR];
	struct ix_frame_hdr h;

	good_hdr(b, IX_MSG_HELLO, 2);
	for (size_t n = 0; n < IX_FRAME_HDR; n++) {
		struct ix_err err = { 0 };

		cr_assert_eq(ix_frame_parse_header(b, n, &h, &err), -1, "%zu bytes accepted", n);
		assert_msg_has(&err, "truncated");
	}
}

static void body_bad(const char *text, const char *part)
{
	struct ix_err err = { 0 };
	json_t *j = ix_frame_parse_body((const uint8_t *)text, strlen(text), &err);

	cr_assert_null(j, "body '%s' accepted", text);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	assert_msg_has(&err, "malformed message body");
	if (part)
		assert_msg_has(&err, part);
}

Test(body, malformed)
{
	body_bad("", NULL);
	body_bad("{nope", NULL);
	body_bad("{\"a\":}", NULL);
	body_bad("{} trailing", NULL);
	body_bad("\xff\xfe{}", NULL);
}

Test(body, not_an_object)
{
	body_bad("[1,2,3]", "not a JSON object");
	body_bad("[]", "not a JSON object");
	/* jansson refuses bare scalars while parsing; refused either way. */
	body_bad("\"text\"", NULL);
	body_bad("42", NULL);
	body_bad("null", NULL);
}

Test(body, duplicate_keys)
{
	body_bad("{\"a\":1,\"a\":2}", NULL);
}

Test(body, length_limits_what_is_read)
{
	/* Only the first len bytes count: "{}" then junk past the end. */
	static const char text[] = "{}GARBAGE";
	struct ix_err err = { 0 };
	json_t *j = ix_frame_parse_body((const uint8_t *)text, 2, &err);

	cr_assert_not_null(j, "%s", err.msg);
	cr_assert(json_is_object(j));
	json_decref(j);
}

/* ---- framed I/O over a socketpair --------------------------------------- */

static void pair(int sv[2])
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void write_all(int fd, const void *p, size_t n)
{
	cr_assert_eq(write(fd, p, n), (ssize_t)n);
}

Test(io, send_then_recv)
{
	int sv[2];
	json_t *body = json_pack("{s:s,s:I}", "cookie", "abc", "bytes", (json_int_t)1 << 40);
	json_t *got = NULL;
	struct ix_err err = { 0 };
	uint16_t type = 0;

	pair(sv);
	cr_assert_eq(ix_frame_send(sv[0], IX_MSG_TEST_ACK, body, ix_now_ns() + 1000 * MS, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(ix_frame_recv(sv[1], &type, &got, ix_now_ns() + 1000 * MS, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(type, IX_MSG_TEST_ACK);
	cr_assert_not_null(got);
	cr_assert(json_equal(body, got));
	json_decref(got);
	json_decref(body);
	close(sv[0]);
	close(sv[1]);
}

Test(io, several_frames_in_order)
{
	int sv[2];
	struct ix_err err = { 0 };

	pair(sv);
	for (int i = 0; i < 5; i++) {
		json_t *b = json_pack("{s:i}", "k", i);
		cr_assert_eq(
			ix_frame_send(sv[0], IX_MSG_INTERVAL, b, ix_now_ns() + 1000 * MS, &err), 0);
		json_decref(b);
	}
	for (int i = 0; i < 5; i++) {
		uint16_t type;
		json_t *b;

		cr_assert_eq(ix_frame_recv(sv[1], &type, &b, ix_now_ns() + 1000 * MS, &err), 0,
			     "%s", err.msg);
		cr_assert_eq(type, IX_MSG_INTERVAL);
		cr_assert_eq(json_integer_value(json_object_get(b, "k")), i);
		json_decref(b);
	}
	close(sv[0]);
	close(sv[1]);
}

Test(io, truncated_body_then_close)
{
	int sv[2];
	uint8_t hdr[IX_FRAME_HDR];
	struct ix_err err = { 0 };
	uint16_t type = 0;
	json_t *b = (json_t *)1;

	pair(sv);
	good_hdr(hdr, IX_MSG_RESULT, 100);
	write_all(sv[0], hdr, sizeof(hdr));
	write_all(sv[0], "{\"a\":", 5);
	close(sv[0]);
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, ix_now_ns() + 1000 * MS, &err), -1);
	cr_assert_null(b);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	assert_msg_has(&err, "truncated RESULT frame");
	assert_msg_has(&err, "closed");
	close(sv[1]);
}

Test(io, header_only_then_close)
{
	int sv[2];
	uint8_t hdr[IX_FRAME_HDR];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b;

	pair(sv);
	good_hdr(hdr, IX_MSG_HELLO, 10);
	write_all(sv[0], hdr, sizeof(hdr));
	close(sv[0]);
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, ix_now_ns() + 1000 * MS, &err), -1);
	assert_msg_has(&err, "truncated");
	close(sv[1]);
}

Test(io, partial_header_then_close)
{
	int sv[2];
	uint8_t hdr[IX_FRAME_HDR];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b;

	pair(sv);
	good_hdr(hdr, IX_MSG_HELLO, 10);
	write_all(sv[0], hdr, 6);
	close(sv[0]);
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, ix_now_ns() + 1000 * MS, &err), -1);
	assert_msg_has(&err, "closed");
	close(sv[1]);
}

Test(io, immediate_eof)
{
	int sv[2];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b;

	pair(sv);
	close(sv[0]);
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, ix_now_ns() + 1000 * MS, &err), -1);
	assert_msg_has(&err, "closed by peer");
	close(sv[1]);
}

Test(io, garbage_header)
{
	int sv[2];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b;

	pair(sv);
	write_all(sv[0], "GET / HTTP/1.1\r\n\r\n", 18);
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, ix_now_ns() + 1000 * MS, &err), -1);
	assert_msg_has(&err, "magic");
	cr_assert_null(b);
	close(sv[0]);
	close(sv[1]);
}

Test(io, oversize_length_refused_before_reading)
{
	int sv[2];
	uint8_t hdr[IX_FRAME_HDR];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b;
	int64_t t0;

	pair(sv);
	good_hdr(hdr, IX_MSG_RESULT, 0x7fffffff);
	write_all(sv[0], hdr, sizeof(hdr));
	/* Refused at once, or after waiting out the 6 s deadline for the
	 * body: half of it tells the two apart on any loaded machine. */
	t0 = ix_now_ns();
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, ix_now_ns() + 6000 * MS, &err), -1);
	cr_assert_lt(ix_now_ns() - t0, 3000 * MS, "waited for a body it should refuse");
	assert_msg_has(&err, "exceeds");
	close(sv[0]);
	close(sv[1]);
}

Test(io, body_not_json)
{
	int sv[2];
	uint8_t hdr[IX_FRAME_HDR];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b;

	pair(sv);
	good_hdr(hdr, IX_MSG_HELLO, 7);
	write_all(sv[0], hdr, sizeof(hdr));
	write_all(sv[0], "[1,2,3]", 7);
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, ix_now_ns() + 1000 * MS, &err), -1);
	assert_msg_has(&err, "not a JSON object");
	cr_assert_null(b);
	close(sv[0]);
	close(sv[1]);
}

Test(io, times_out, .timeout = 5)
{
	int sv[2];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b;
	int64_t t0, took;

	pair(sv);
	t0 = ix_now_ns();
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, t0 + 50 * MS, &err), -1);
	took = ix_now_ns() - t0;
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	assert_msg_has(&err, "timed out");
	/* Never before the deadline (a poll does not end early; 10 ms for
	 * the clock's rounding); after it by as long as the thread waits for
	 * a CPU, for which 3 s is ample. */
	cr_assert_geq(took, 40 * MS, "gave up after %lld ns", (long long)took);
	cr_assert_lt(took, 3000 * MS, "took %lld ns", (long long)took);
	close(sv[0]);
	close(sv[1]);
}

Test(io, times_out_mid_body, .timeout = 5)
{
	int sv[2];
	uint8_t hdr[IX_FRAME_HDR];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b;
	int64_t t0;

	pair(sv);
	good_hdr(hdr, IX_MSG_HELLO, 50);
	write_all(sv[0], hdr, sizeof(hdr));
	write_all(sv[0], "{", 1);
	t0 = ix_now_ns();
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, t0 + 50 * MS, &err), -1);
	cr_assert_lt(ix_now_ns() - t0, 3000 * MS); /* as above */
	assert_msg_has(&err, "timed out");
	close(sv[0]);
	close(sv[1]);
}

Test(io, send_to_closed_peer_fails)
{
	int sv[2];
	json_t *body = json_object();
	struct ix_err err = { 0 };

	pair(sv);
	close(sv[1]);
	/* MSG_NOSIGNAL: an error, not SIGPIPE. */
	cr_assert_eq(ix_frame_send(sv[0], IX_MSG_STOP, body, ix_now_ns() + 1000 * MS, &err), -1);
	assert_msg_has(&err, "send failed");
	json_decref(body);
	close(sv[0]);
}

Test(io, send_error_frame)
{
	int sv[2];
	struct ix_err err = { 0 };
	uint16_t type = 0;
	json_t *b;

	pair(sv);
	ix_frame_send_error(sv[0], "server busy");
	cr_assert_eq(ix_frame_recv(sv[1], &type, &b, ix_now_ns() + 1000 * MS, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(type, IX_MSG_ERROR);
	cr_assert_str_eq(json_string_value(json_object_get(b, "error")), "server busy");
	json_decref(b);
	close(sv[0]);
	close(sv[1]);
}

/* ---- the incremental reader of event loops -------------------------------- */

Test(reader, frames_arrive_in_pieces)
{
	int sv[2];
	struct ix_frame_reader rd = { 0 };
	struct ix_err err = { 0 };
	uint8_t *buf;
	size_t len;
	uint16_t type;
	json_t *body = json_pack("{s:i}", "n", 7), *got = NULL;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_assert_eq(ix_frame_encode(IX_MSG_PING, body, &buf, &len, &err), 0);
	for (size_t i = 0; i < len; i++) {
		cr_assert_eq(write(sv[1], buf + i, 1), 1);
		int rc = ix_frame_reader_feed(&rd, sv[0], &type, &got, &err);
		cr_assert_eq(rc, i + 1 == len ? 1 : 0, "byte %zu: %d (%s)", i, rc, err.msg);
	}
	cr_assert_eq(type, IX_MSG_PING);
	cr_assert_eq(json_integer_value(json_object_get(got, "n")), 7);
	cr_assert_eq(ix_frame_reader_feed(&rd, sv[0], &type, &got, &err), 0, "nothing more yet");
	close(sv[1]);
	cr_assert_eq(ix_frame_reader_feed(&rd, sv[0], &type, &got, &err), -1, "EOF");
	ix_frame_reader_reset(&rd);
	close(sv[0]);
	free(buf);
	json_decref(body);
	json_decref(got);
}

Test(reader, garbage_is_refused)
{
	int sv[2];
	struct ix_frame_reader rd = { 0 };
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *got = NULL;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_assert_eq(write(sv[1], "GARBAGE-GARBAGE", 15), 15);
	cr_assert_eq(ix_frame_reader_feed(&rd, sv[0], &type, &got, &err), -1);
	cr_assert_not_null(strstr(err.msg, "bad magic"), "%s", err.msg);
	ix_frame_reader_reset(&rd);
	close(sv[0]);
	close(sv[1]);
}

/* Parsing multiplies a body in memory, nested and small containers most:
 * both are bounded before the parser runs. */
Test(body, deep_nesting_is_refused_before_parsing)
{
	char deep[2 * 40 + 8];
	struct ix_err err = { 0 };
	size_t n = 0;
	json_t *j;

	for (int i = 0; i < 40; i++)
		deep[n++] = '[';
	for (int i = 0; i < 40; i++)
		deep[n++] = ']';
	j = ix_frame_parse_body((const uint8_t *)deep, n, &err);
	cr_assert_null(j);
	assert_msg_has(&err, "nested deeper than 32");
}

Test(body, many_containers_are_refused_and_strings_do_not_count)
{
	size_t cap = 5 * 5000 + 64, n = 0;
	char *b = malloc(cap);
	struct ix_err err = { 0 };
	json_t *j;

	cr_assert_not_null(b);
	n += (size_t)snprintf(b + n, cap - n, "{\"a\":[");
	for (int i = 0; i < 5000; i++)
		n += (size_t)snprintf(b + n, cap - n, "%s{}", i ? "," : "");
	n += (size_t)snprintf(b + n, cap - n, "]}");
	j = ix_frame_parse_body((const uint8_t *)b, n, &err);
	cr_assert_null(j);
	assert_msg_has(&err, "more than 4096 objects and arrays");
	/* Braces inside strings (escaped quotes too) are text, not containers. */
	n = (size_t)snprintf(b, cap, "{\"s\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"{{{{\"}");
	j = ix_frame_parse_body((const uint8_t *)b, n, &err);
	cr_assert_not_null(j, "%s", err.msg);
	json_decref(j);
	free(b);
}

Test(body, many_small_values_are_refused_before_parsing)
{
	size_t cap = IX_FRAME_MAX, n = 0;
	char *b = malloc(cap);
	struct ix_err err = { 0 };
	json_t *j;

	cr_assert_not_null(b);
	/* {"a":[1,1,...]}: a node of about 40 bytes for every two. */
	n += (size_t)snprintf(b + n, cap - n, "{\"a\":[");
	for (int i = 0; i < 30000; i++)
		n += (size_t)snprintf(b + n, cap - n, "%s1", i ? "," : "");
	n += (size_t)snprintf(b + n, cap - n, "]}");
	j = ix_frame_parse_body((const uint8_t *)b, n, &err);
	cr_assert_null(j);
	assert_msg_has(&err, "more than 16384 keys and values");
	/* Keys count too: [{"a":0,...,"z":0},...], 53 per object. */
	n = (size_t)snprintf(b, cap, "{\"a\":[");
	for (int i = 0; i < 320; i++) {
		n += (size_t)snprintf(b + n, cap - n, "%s{", i ? "," : "");
		for (char k = 'a'; k <= 'z'; k++)
			n += (size_t)snprintf(b + n, cap - n, "%s\"%c\":0", k > 'a' ? "," : "", k);
		n += (size_t)snprintf(b + n, cap - n, "}");
	}
	n += (size_t)snprintf(b + n, cap - n, "]}");
	cr_assert_lt(n, cap);
	j = ix_frame_parse_body((const uint8_t *)b, n, &err);
	cr_assert_null(j);
	assert_msg_has(&err, "keys and values");
	free(b);
}

/* A message of the protocol's shape (names and figures) that fills most of
 * a frame is far within the bound. */
Test(body, a_large_message_of_names_and_figures_passes)
{
	size_t cap = IX_FRAME_MAX, n = 0;
	char *b = malloc(cap);
	struct ix_err err = { 0 };
	json_t *j;
	int i;

	cr_assert_not_null(b);
	n += (size_t)snprintf(b + n, cap - n, "{\"pairs\":[");
	for (i = 0; n < cap - 200; i++)
		n += (size_t)snprintf(b + n, cap - n,
				      "%s{\"src\":%d,\"dst\":%d,\"bps\":%.1f,\"ok\":true}",
				      i ? "," : "", i % 64, i / 64, 9.4e9 + i);
	n += (size_t)snprintf(b + n, cap - n, "]}");
	j = ix_frame_parse_body((const uint8_t *)b, n, &err);
	cr_assert_not_null(j, "%s", err.msg);
	cr_assert_eq(json_array_size(json_object_get(j, "pairs")), (size_t)i);
	json_decref(j);
	free(b);
}

struct parse_job {
	const char *body;
	size_t len;
	int ok;
};

static void *parse_many(void *arg)
{
	struct parse_job *p = arg;
	struct ix_err err = { 0 };

	for (int k = 0; k < 20; k++) {
		json_t *j = ix_frame_parse_body((const uint8_t *)p->body, p->len, &err);

		p->ok += j != NULL;
		json_decref(j);
	}
	return NULL;
}

/* Many connections parsing large bodies at once: a few at a time. */
Test(body, large_bodies_are_parsed_a_few_at_a_time)
{
	size_t cap = IX_FRAME_MAX, n = 0;
	char *b = malloc(cap);
	struct parse_job jobs[16];
	pthread_t th[16];

	cr_assert_not_null(b);
	n += (size_t)snprintf(b + n, cap - n, "{\"a\":[");
	for (int i = 0; i < 4000; i++)
		n += (size_t)snprintf(b + n, cap - n, "%s{\"x\":%d}", i ? "," : "", i);
	n += (size_t)snprintf(b + n, cap - n, "]}");
	for (int i = 0; i < 16; i++) {
		jobs[i] = (struct parse_job){ b, n, 0 };
		cr_assert_eq(pthread_create(&th[i], NULL, parse_many, &jobs[i]), 0);
	}
	for (int i = 0; i < 16; i++) {
		pthread_join(th[i], NULL);
		cr_assert_eq(jobs[i].ok, 20);
	}
	cr_assert_geq(ix_frame_parse_peak(), 1);
	cr_assert_leq(ix_frame_parse_peak(), 4, "%u parsed at once", ix_frame_parse_peak());
	free(b);
}
