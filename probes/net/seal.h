/* Sealed control connections: once the shared-token handshake is done
 * (probes/ctl/auth.h), both ends bind the connection to a key derived from
 * it, and every later frame carries an HMAC-SHA256 tag over the sender's
 * role, a per-direction sequence number, the header and the body. A relay
 * that passed the handshake through can then neither inject nor replay,
 * reorder or drop a frame: the next frame checked fails.
 *
 * ix_frame_send, ix_frame_recv and the frame reader (proto.h) seal and
 * check on their own once a descriptor is bound; the binding is kept per
 * descriptor and tied to the socket (its inode), so a descriptor number
 * reused by another connection is never taken for the bound one. */
#ifndef IX_SEAL_H
#define IX_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

#define IX_SEAL_KEY       32
#define IX_SEAL_TAG       32
#define IX_SEAL_FRAME_HDR 12                   /* IX_FRAME_HDR of proto.h */
#define IX_SEAL_NAME      "hmac-sha256-frames" /* in HELLO_ACK and AUTH */

/* role: this end's, 'a' (agent) or 'c' (client); the peer's is the other. */
int ix_seal_bind(int fd, const uint8_t key[IX_SEAL_KEY], char role, struct ix_err *err);
void ix_seal_unbind(int fd);
bool ix_seal_bound(int fd);

/* Sending: frame (header whose length counts the tag, then the body) gets
 * its tag. 0: tag written, 1: fd not bound (no tag), -1: err. */
int ix_seal_tag(int fd, const uint8_t *frame, size_t len, uint8_t tag[IX_SEAL_TAG],
		struct ix_err *err);
/* Receiving: frame as received (header, body, tag). 0: the tag checked and
 * *body_len is the body's length without it; 1: fd not bound; -1: err
 * (missing or wrong tag). */
int ix_seal_check(int fd, const uint8_t *frame, size_t len, size_t *body_len, struct ix_err *err);

#endif
