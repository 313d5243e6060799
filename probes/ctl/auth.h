/*
 * Shared-token authentication of control connections, both ways, by
 * HMAC-SHA256 challenge-response. The token never crosses the wire: each
 * side sends a fresh random challenge and proves knowledge of the token by
 * a MAC over both challenges and its role, so a recorded answer is useless
 * on another connection and one role's answer cannot stand for the other's.
 *
 *   client -> HELLO     { nonce: Cc }
 *   server -> HELLO_ACK { auth: "hmac-sha256", challenge: Cs,
 *                         proof: MAC(token, "agent", Cs, Cc) }
 *   client -> AUTH      { mac: MAC(token, "client", Cs, Cc) }
 *   server -> AUTH_OK   {}   (or ERROR, and the connection is closed)
 */
#ifndef IX_AUTH_H
#define IX_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

#define IX_TOKEN_MAX 1024
/* Fewer bytes could be guessed offline from one recorded HELLO_ACK proof. */
#define IX_TOKEN_MIN 16
#define IX_AUTH_HEX  65 /* 32 bytes as hex, NUL-terminated */

struct ix_token {
	bool set;
	size_t len;
	uint8_t key[IX_TOKEN_MAX];
};

/* Read a token file: refused when it is not owned by the caller (or root),
 * when group or others may read or write it, when its directory lets
 * others replace it (writable by group or others without the sticky bit,
 * or owned by someone but the caller or root), when it is empty, shorter
 * than IX_TOKEN_MIN or longer than IX_TOKEN_MAX; one trailing newline is
 * dropped. */
int ix_token_load(const char *path, struct ix_token *t, struct ix_err *err);
/* A fresh random challenge, 32 bytes as lowercase hex. */
int ix_auth_challenge(char out[IX_AUTH_HEX], struct ix_err *err);
/* MAC(token, role, server challenge, client challenge) as lowercase hex.
 * Challenges must be 64 hex digits; returns -1 otherwise. */
int ix_auth_mac(const struct ix_token *t, const char *role, const char *server_challenge,
		const char *client_challenge, char out[IX_AUTH_HEX]);
/* Constant-time check of a received MAC. */
bool ix_auth_verify(const struct ix_token *t, const char *role, const char *server_challenge,
		    const char *client_challenge, const char *mac_hex);
/* The key both ends seal the rest of the connection with (probes/net/
 * seal.h): MAC(token, "session", both challenges), never sent. */
int ix_auth_session_key(const struct ix_token *t, const char *server_challenge,
			const char *client_challenge, uint8_t key[32]);

#endif
