/*
 * Control frames as a peer sends them (probes/net/proto.h): the header
 * check and the body decoder on the raw bytes, then the same bytes read
 * from a socket by the blocking receiver and by the incremental reader
 * of the event loops, on a plain connection and on sealed ones
 * (probes/net/seal.h) as the agent and as the client. Every frame decoded
 * is encoded again and must decode the same way.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "probes/core/clock.h"
#include "probes/ctl/auth.h"
#include "probes/net/proto.h"
#include "probes/net/seal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The handshake recorded in the seed corpus (token "secret"): the sealed
 * frames of corpus/frame/sealed-* check with its session key. */
static const char server_challenge[] =
	"9b488c6856a607fcda291048583e57ab3337cd538014a41042f87ccaa360b820";
static const char client_challenge[] =
	"d7f77b0f71cf4ccb94d2557039d14f9f10524bbbe7fd05641ff1a8b704fc91c1";
static uint8_t session_key[IX_SEAL_KEY];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ix_token t;

	(void)argc;
	(void)argv;
	memset(&t, 0, sizeof(t));
	t.set = true;
	t.len = 6;
	memcpy(t.key, "secret", 6);
	if (ix_auth_session_key(&t, server_challenge, client_challenge, session_key) < 0) {
		fprintf(stderr, "no session key\n");
		exit(1);
	}
	return 0;
}

/* A decoded frame must survive encoding: header valid, same type, body an
 * object again. */
static void reencode(uint16_t type, json_t *body)
{
	struct ix_frame_hdr h;
	struct ix_err err;
	uint8_t *buf;
	size_t len;
	json_t *again;

	(void)ix_msg_name(type);
	if (ix_frame_encode(type, body, &buf, &len, &err) < 0)
		return; /* a body that grows past IX_FRAME_MAX when re-encoded */
	if (ix_frame_parse_header(buf, len, &h, &err) < 0 || h.type != type ||
	    h.length != len - IX_FRAME_HDR) {
		fprintf(stderr, "re-encoded frame refused: %s\n", err.msg);
		abort();
	}
	again = ix_frame_parse_body(buf + IX_FRAME_HDR, h.length, &err);
	if (!again || !json_equal(again, body)) {
		fprintf(stderr, "re-encoded body differs: %s\n", again ? "" : err.msg);
		abort();
	}
	json_decref(again);
	free(buf);
}

/* The pure decoders, frame after frame. */
static void decode_bytes(const uint8_t *data, size_t size)
{
	while (size > 0) {
		struct ix_frame_hdr h;
		struct ix_err err;
		size_t avail;
		json_t *body;

		if (ix_frame_parse_header(data, size, &h, &err) < 0)
			return;
		avail = size - IX_FRAME_HDR;
		body = ix_frame_parse_body(data + IX_FRAME_HDR, h.length < avail ? h.length : avail,
					   &err);
		if (body) {
			reencode(h.type, body);
			json_decref(body);
		}
		if (h.length > avail)
			return;
		data += IX_FRAME_HDR + h.length;
		size -= IX_FRAME_HDR + h.length;
	}
}

/* A socket pair holding the bytes, its writing end shut: the reader sees
 * them, then EOF, and never waits. role: 0, or this end's role ('a' agent,
 * 'c' client) on a sealed connection. */
static int loaded_socket(const uint8_t *data, size_t size, char role)
{
	int sv[2], big = 1 << 20;
	size_t put = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	while (put < size) {
		ssize_t n = send(sv[0], data + put, size - put, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n <= 0)
			break; /* the rest does not fit: the reader sees a shorter stream */
		put += (size_t)n;
	}
	shutdown(sv[0], SHUT_WR);
	close(sv[0]);
	if (role && ix_seal_bind(sv[1], session_key, role, NULL) < 0) {
		close(sv[1]);
		return -1;
	}
	return sv[1];
}

static void close_socket(int fd)
{
	ix_seal_unbind(fd);
	close(fd);
}

static void receive_blocking(const uint8_t *data, size_t size, char role)
{
	int fd = loaded_socket(data, size, role);

	if (fd < 0)
		return;
	for (;;) {
		struct ix_err err;
		uint16_t type = 0;
		json_t *body;

		if (ix_frame_recv(fd, &type, &body, ix_now_ns(), &err) < 0)
			break;
		reencode(type, body);
		json_decref(body);
	}
	close_socket(fd);
}

static void receive_incremental(const uint8_t *data, size_t size, char role)
{
	struct ix_frame_reader r;
	int fd = loaded_socket(data, size, role);

	if (fd < 0)
		return;
	memset(&r, 0, sizeof(r));
	for (;;) {
		struct ix_err err;
		uint16_t type = 0;
		json_t *body = NULL;
		int rc = ix_frame_reader_feed(&r, fd, &type, &body, &err);

		if (rc <= 0)
			break;
		reencode(type, body);
		json_decref(body);
	}
	ix_frame_reader_reset(&r);
	close_socket(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char roles[] = { 0, 'a', 'c' };

	decode_bytes(data, size);
	for (size_t i = 0; i < sizeof(roles); i++) {
		receive_blocking(data, size, roles[i]);
		receive_incremental(data, size, roles[i]);
	}
	return 0;
}
