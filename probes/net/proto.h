/*
 * Control protocol: framed, versioned messages with a JSON body.
 *
 *   0      4        6      8          12
 *   +------+--------+------+----------+----------------------+
 *   | IXPF | version| type | length   | JSON object (length) |
 *   +------+--------+------+----------+----------------------+
 *   all integers big-endian; length <= IX_FRAME_MAX.
 *
 * A control connection opens with HELLO; a data connection (one per TCP
 * stream) opens with ATTACH naming its test's cookie and stream index.
 */
#ifndef IX_PROTO_H
#define IX_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "probes/core/err.h"

#define IX_PROTO_MAGIC   0x49585046u /* "IXPF" */
#define IX_PROTO_VERSION 1
#define IX_FRAME_HDR     12
#define IX_FRAME_MAX     (64u * 1024)
#define IX_COOKIE_LEN    32

enum ix_msg {
	IX_MSG_HELLO = 1,       /* client -> server: versions, host */
	IX_MSG_HELLO_ACK,       /* server -> client: host, limits */
	IX_MSG_TEST,            /* client -> server: test parameters */
	IX_MSG_TEST_ACK,        /* server -> client: cookie, transport setup */
	IX_MSG_ATTACH,          /* data connection -> server: cookie, stream */
	IX_MSG_READY,           /* server -> client: every data channel is up */
	IX_MSG_START,           /* client -> server: go */
	IX_MSG_INTERVAL,        /* either way: per-stream counters of one interval */
	IX_MSG_STOP,            /* client -> server: local side finished */
	IX_MSG_RESULT,          /* server -> client: server-side figures */
	IX_MSG_ERROR,           /* either way: a refusal or failure, then close */
	IX_MSG_AUTH,            /* client -> server: MAC over both challenges (auth.h) */
	IX_MSG_AUTH_OK,         /* server -> client: the client is authenticated */
	IX_MSG_PING,            /* coordinator -> agent: round-trip measurement */
	IX_MSG_PONG,            /* agent -> coordinator */
	IX_MSG_RUN,             /* coordinator -> agent: run a test towards named peers */
	IX_MSG_REPORT,          /* agent -> coordinator: the figures of a RUN */
	IX_MSG_INVENTORY,       /* client -> agent: what is this node made of (invwire.h) */
	IX_MSG_INVENTORY_REPLY, /* agent -> client: its inventory and findings */
	IX_MSG_IFSTATS,         /* client -> agent: its interfaces' byte counters (ifwire.h) */
	IX_MSG_IFSTATS_REPLY,   /* agent -> client */
	IX_MSG__MAX
};

const char *ix_msg_name(uint16_t type);

struct ix_frame_hdr {
	uint16_t version;
	uint16_t type;
	uint32_t length;
};

/* Encode header + body into a new buffer (free it). */
int ix_frame_encode(uint16_t type, json_t *body, uint8_t **out, size_t *outlen, struct ix_err *err);
/* Validate a received header: magic, version, type, length. */
int ix_frame_parse_header(const uint8_t *buf, size_t len, struct ix_frame_hdr *h,
			  struct ix_err *err);
/* Parse a body: it must be one JSON object. */
json_t *ix_frame_parse_body(const uint8_t *buf, size_t len, struct ix_err *err);
/* The most large bodies parsed at once in this process so far. */
unsigned ix_frame_parse_peak(void);

/* Blocking I/O on a socket, bounded by an absolute monotonic deadline. */
int ix_frame_send(int fd, uint16_t type, json_t *body, int64_t deadline_ns, struct ix_err *err);
/* Receive one frame; *body is a new reference. Returns 0, or -1 with err
 * (err->code IX_EXIT_FAIL; msg says EOF, timeout or the protocol fault). */
int ix_frame_recv(int fd, uint16_t *type, json_t **body, int64_t deadline_ns, struct ix_err *err);
/* The same, refusing a body over max_len bytes before reading it (where
 * only small messages are expected, such as a connection's first). */
int ix_frame_recv_upto(int fd, uint32_t max_len, uint16_t *type, json_t **body, int64_t deadline_ns,
		       struct ix_err *err);
/* Incremental receive for event loops: feed it when the socket is
 * readable; it never blocks. Returns 1 with a frame, 0 when more bytes are
 * needed, -1 on EOF, a protocol fault or a socket error. */
struct ix_frame_reader {
	uint8_t hdr[IX_FRAME_HDR];
	size_t got; /* bytes of header + body so far */
	struct ix_frame_hdr h;
	uint8_t *body;
};

int ix_frame_reader_feed(struct ix_frame_reader *r, int fd, uint16_t *type, json_t **body,
			 struct ix_err *err);
void ix_frame_reader_reset(struct ix_frame_reader *r);

/* Best-effort ERROR frame to a peer, with a short deadline. */
void ix_frame_send_error(int fd, const char *msg);

#endif
