/* Unit tests for probes/net/seal.c: frames on a sealed connection carry a
 * tag that binds them to the session, the sender's role and their place in
 * the sequence; anything injected, replayed, altered or reflected fails. */
#include "config.h"

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/net/proto.h"
#include "probes/net/seal.h"

static const uint8_t key[IX_SEAL_KEY] = "0123456789abcdef0123456789abcde";

static int64_t soon(void)
{
	return ix_now_ns() + IX_NSEC_PER_SEC;
}

/* A connected pair, agent end sv[0], client end sv[1], both sealed. */
static void sealed_pair(int sv[2])
{
	struct ix_err err = { 0 };

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_assert_eq(ix_seal_bind(sv[0], key, 'a', &err), 0, "%s", err.msg);
	cr_assert_eq(ix_seal_bind(sv[1], key, 'c', &err), 0, "%s", err.msg);
}

static void close_pair(int sv[2])
{
	ix_seal_unbind(sv[0]);
	ix_seal_unbind(sv[1]);
	close(sv[0]);
	close(sv[1]);
}

static int recv_one(int fd, uint16_t *type, json_t **body, struct ix_err *err)
{
	return ix_frame_recv(fd, type, body, soon(), err);
}

Test(seal, frames_both_ways_in_order)
{
	int sv[2];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b = json_pack("{s:i}", "n", 1), *got;

	sealed_pair(sv);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(ix_frame_send(sv[1], IX_MSG_PING, b, soon(), &err), 0, "%s", err.msg);
		cr_assert_eq(recv_one(sv[0], &type, &got, &err), 0, "frame %d: %s", i, err.msg);
		cr_assert_eq(type, IX_MSG_PING);
		json_decref(got);
		cr_assert_eq(ix_frame_send(sv[0], IX_MSG_PONG, b, soon(), &err), 0, "%s", err.msg);
		cr_assert_eq(recv_one(sv[1], &type, &got, &err), 0, "frame %d: %s", i, err.msg);
		cr_assert_eq(type, IX_MSG_PONG);
		json_decref(got);
	}
	json_decref(b);
	close_pair(sv);
}

/* Raw bytes on the wire: what a relay that passed the handshake sends. */
static void inject(int fd, uint16_t type, json_t *body)
{
	uint8_t *buf;
	size_t len;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_frame_encode(type, body, &buf, &len, &err), 0);
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	free(buf);
}

Test(seal, an_injected_frame_without_a_tag_fails)
{
	int sv[2];
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *run = json_pack("{s:s,s:[]}", "kind", "bw", "targets"), *got = NULL;

	sealed_pair(sv);
	ix_seal_unbind(sv[1]); /* the relay's end: no key */
	inject(sv[1], IX_MSG_RUN, run);
	cr_assert_eq(recv_one(sv[0], &type, &got, &err), -1);
	cr_assert(strstr(err.msg, "authenticated connection"), "%s", err.msg);
	cr_assert_null(got);
	json_decref(run);
	close_pair(sv);
}

Test(seal, a_replayed_frame_fails)
{
	int sv[2];
	struct ix_err err = { 0 };
	uint16_t type;
	uint8_t wire[512];
	ssize_t n;
	json_t *b = json_pack("{s:s}", "kind", "lat"), *got;

	sealed_pair(sv);
	/* Capture one sealed frame's bytes, deliver it, then deliver it again. */
	cr_assert_eq(ix_frame_send(sv[1], IX_MSG_TEST, b, soon(), &err), 0);
	n = read(sv[0], wire, sizeof(wire));
	cr_assert_gt(n, IX_FRAME_HDR + IX_SEAL_TAG);
	cr_assert_eq(write(sv[1], wire, (size_t)n), n);
	cr_assert_eq(recv_one(sv[0], &type, &got, &err), 0, "the first delivery: %s", err.msg);
	json_decref(got);
	cr_assert_eq(write(sv[1], wire, (size_t)n), n);
	cr_assert_eq(recv_one(sv[0], &type, &got, &err), -1, "the replay");
	cr_assert(strstr(err.msg, "tag is wrong"), "%s", err.msg);
	json_decref(b);
	close_pair(sv);
}

Test(seal, an_altered_byte_fails)
{
	int sv[2];
	struct ix_err err = { 0 };
	uint16_t type;
	uint8_t wire[512];
	ssize_t n;
	json_t *b = json_pack("{s:s}", "host", "10.0.0.1"), *got;

	sealed_pair(sv);
	ix_seal_unbind(sv[1]);
	cr_assert_eq(ix_seal_bind(sv[1], key, 'c', &err), 0);
	cr_assert_eq(ix_frame_send(sv[1], IX_MSG_RUN, b, soon(), &err), 0);
	n = read(sv[0], wire, sizeof(wire));
	cr_assert_gt(n, 20);
	wire[IX_FRAME_HDR + 10] ^= 1; /* inside the body */
	cr_assert_eq(write(sv[1], wire, (size_t)n), n);
	cr_assert_eq(recv_one(sv[0], &type, &got, &err), -1);
	cr_assert(strstr(err.msg, "tag is wrong"), "%s", err.msg);
	json_decref(b);
	close_pair(sv);
}

Test(seal, a_frame_reflected_to_its_sender_fails)
{
	int sv[2], w[2];
	struct ix_err err = { 0 };
	uint16_t type;
	uint8_t wire[512];
	ssize_t n;
	json_t *b = json_pack("{s:i}", "n", 2), *got;

	sealed_pair(sv);
	/* The agent's own PONG sent back to it as if the client had sent it. */
	cr_assert_eq(ix_frame_send(sv[0], IX_MSG_PONG, b, soon(), &err), 0);
	n = read(sv[1], wire, sizeof(wire));
	cr_assert_gt(n, 0);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, w), 0);
	cr_assert_eq(ix_seal_bind(w[0], key, 'a', &err), 0);
	cr_assert_eq(write(w[1], wire, (size_t)n), n);
	cr_assert_eq(recv_one(w[0], &type, &got, &err), -1, "the agent's role is in the tag");
	ix_seal_unbind(w[0]);
	close(w[0]);
	close(w[1]);
	json_decref(b);
	close_pair(sv);
}

Test(seal, the_incremental_reader_checks_tags_too)
{
	int sv[2];
	struct ix_frame_reader rd = { 0 };
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *b = json_pack("{s:i}", "n", 3), *got = NULL;
	int rc;

	sealed_pair(sv);
	cr_assert_eq(ix_frame_send(sv[0], IX_MSG_PONG, b, soon(), &err), 0);
	do
		rc = ix_frame_reader_feed(&rd, sv[1], &type, &got, &err);
	while (rc == 0);
	cr_assert_eq(rc, 1, "%s", err.msg);
	cr_assert_eq(json_integer_value(json_object_get(got, "n")), 3);
	json_decref(got);
	got = NULL;
	ix_seal_unbind(sv[0]);
	inject(sv[0], IX_MSG_PONG, b);
	do
		rc = ix_frame_reader_feed(&rd, sv[1], &type, &got, &err);
	while (rc == 0);
	cr_assert_eq(rc, -1);
	cr_assert(strstr(err.msg, "authenticated connection"), "%s", err.msg);
	ix_frame_reader_reset(&rd);
	json_decref(b);
	close_pair(sv);
}

Test(seal, a_descriptor_number_reused_by_another_socket_is_not_sealed)
{
	int sv[2], again[2];

	sealed_pair(sv);
	cr_assert(ix_seal_bound(sv[0]));
	close(sv[0]); /* closed without unbinding */
	close(sv[1]);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, again), 0);
	cr_assert(again[0] == sv[0] || again[1] == sv[0], "the number comes back");
	cr_assert_not(ix_seal_bound(sv[0]), "another socket: not the bound one");
	close(again[0]);
	close(again[1]);
}
