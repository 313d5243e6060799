/* Shared-token HMAC-SHA256 challenge-response (see probes/ctl/auth.h).
 *
 * MAC input, keyed with the token bytes (no terminating NUL of anything but
 * the separators below):
 *
 *   "ixperf-auth-v1" 0x00 role 0x00 server_challenge 0x00 client_challenge
 *
 * where role is a non-empty string of at most IX_AUTH_ROLE_MAX bytes
 * ("agent" or "client") and both challenges are exactly 64 lowercase hex
 * digits, taken as their ASCII text. The result is sent as 64 lowercase hex
 * digits. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "probes/ctl/auth.h"

#define IX_AUTH_LABEL    "ixperf-auth-v1"
#define IX_AUTH_RAW      32
#define IX_AUTH_ROLE_MAX 32

static const char hexdig[] = "0123456789abcdef";

static void hex_encode(const uint8_t *in, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hexdig[in[i] >> 4];
		out[2 * i + 1] = hexdig[in[i] & 0x0f];
	}
	out[2 * n] = '\0';
}

/* Exactly 2 * IX_AUTH_RAW lowercase hex digits, then the end of the string. */
static bool valid_hex(const char *s)
{
	size_t i;

	if (!s)
		return false;
	for (i = 0; i < 2 * IX_AUTH_RAW; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	return s[i] == '\0';
}

static bool valid_role(const char *role)
{
	size_t n;

	if (!role)
		return false;
	n = strnlen(role, IX_AUTH_ROLE_MAX + 1);
	return n > 0 && n <= IX_AUTH_ROLE_MAX;
}

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The directory holding path must not let others replace the file: not
 * writable by group or others, unless sticky (then only the file's owner,
 * checked by the caller, may rename or remove it). */
static int check_token_dir(const char *path, struct ix_err *err)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return ix_fail(err, IX_EXIT_USAGE, "token file %s: path too long", path);
	if (stat(dir, &st) < 0)
		return ix_fail(err, IX_EXIT_USAGE, "token file %s: directory %s: %s", path, dir,
			       strerror(errno));
	if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
		return ix_fail(err, IX_EXIT_USAGE,
			       "token file %s is in %s, which group or others may write to (mode "
			       "%04o) without the sticky bit: they could replace the token; move "
			       "it to a private directory",
			       path, dir, (unsigned int)(st.st_mode & 07777));
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "token file %s is in %s, owned by uid %u (not you, uid %u, nor "
			       "root), who could replace the token; move it to a directory of your "
			       "own",
			       path, dir, (unsigned int)st.st_uid, (unsigned int)geteuid());
	return 0;
}

static void token_clear(struct ix_token *t)
{
	OPENSSL_cleanse(t, sizeof(*t));
	t->set = false;
	t->len = 0;
}

int ix_token_load(const char *path, struct ix_token *t, struct ix_err *err)
{
	/* Room for a full token, a CRLF, and one byte to see it is too long. */
	uint8_t buf[IX_TOKEN_MAX + 3];
	size_t len = 0, i;
	struct stat st;
	int fd;

	if (!t)
		return ix_fail(err, IX_EXIT_FAIL, "token: no destination");
	token_clear(t);
	if (!path || !*path)
		return ix_fail(err, IX_EXIT_USAGE, "token file: no path given");

	/* O_NONBLOCK so that a FIFO is refused below rather than waited on. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ELOOP)
			return ix_fail(err, IX_EXIT_USAGE,
				       "token file %s is a symbolic link; refusing to follow it",
				       path);
		return ix_fail(err, IX_EXIT_USAGE, "token file %s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		ix_fail(err, IX_EXIT_FAIL, "token file %s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ix_fail(err, IX_EXIT_USAGE, "token file %s is not a regular file", path);
		goto fail;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		ix_fail(err, IX_EXIT_USAGE,
			"token file %s is owned by uid %u, not by you (uid %u) nor root; "
			"use a token file of your own",
			path, (unsigned int)st.st_uid, (unsigned int)geteuid());
		goto fail;
	}
	if ((st.st_mode & 077) != 0) {
		ix_fail(err, IX_EXIT_USAGE,
			"token file %s may be accessed by group or others (mode %04o); "
			"run chmod 600 %s",
			path, (unsigned int)(st.st_mode & 07777), path);
		goto fail;
	}
	if (check_token_dir(path, err) < 0)
		goto fail;
	if (st.st_size > (off_t)(IX_TOKEN_MAX + 2)) {
		ix_fail(err, IX_EXIT_USAGE, "token file %s is longer than %d bytes", path,
			IX_TOKEN_MAX);
		goto fail;
	}

	/* Do not trust st_size: the file may change; read until EOF or too much. */
	while (len < sizeof(buf)) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ix_fail(err, IX_EXIT_FAIL, "token file %s: %s", path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	fd = -1;

	if (len > 0 && buf[len - 1] == '\n') {
		len--;
		if (len > 0 && buf[len - 1] == '\r')
			len--;
	}
	if (len == 0) {
		ix_fail(err, IX_EXIT_USAGE, "token file %s is empty", path);
		goto fail;
	}
	if (len > IX_TOKEN_MAX) {
		ix_fail(err, IX_EXIT_USAGE, "token file %s is longer than %d bytes", path,
			IX_TOKEN_MAX);
		goto fail;
	}
	for (i = 0; i < len && is_blank(buf[i]); i++)
		;
	if (i == len) {
		ix_fail(err, IX_EXIT_USAGE, "token file %s holds only white space", path);
		goto fail;
	}
	if (len < IX_TOKEN_MIN) {
		ix_fail(err, IX_EXIT_USAGE,
			"token file %s holds %zu bytes, too few: a short token can be guessed "
			"offline by anyone who reaches an agent; use at least %d random bytes, "
			"made with: umask 077; head -c 32 /dev/urandom | base64 > %s",
			path, len, IX_TOKEN_MIN, path);
		goto fail;
	}

	memcpy(t->key, buf, len);
	t->len = len;
	t->set = true;
	OPENSSL_cleanse(buf, sizeof(buf));
	return 0;

fail:
	if (fd >= 0)
		close(fd);
	OPENSSL_cleanse(buf, sizeof(buf));
	token_clear(t);
	return -1;
}

int ix_auth_challenge(char out[IX_AUTH_HEX], struct ix_err *err)
{
	uint8_t raw[IX_AUTH_RAW];
	size_t got = 0;

	if (!out)
		return ix_fail(err, IX_EXIT_FAIL, "challenge: no destination");
	out[0] = '\0';
	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			OPENSSL_cleanse(raw, sizeof(raw));
			return ix_fail(err, IX_EXIT_FAIL, "getrandom: %s", strerror(errno));
		}
		got += (size_t)n;
	}
	hex_encode(raw, sizeof(raw), out);
	OPENSSL_cleanse(raw, sizeof(raw));
	return 0;
}

/* The raw MAC; false on bad input or a libcrypto failure. */
static bool auth_mac_raw(const struct ix_token *t, const char *role, const char *server_challenge,
			 const char *client_challenge, uint8_t mac[IX_AUTH_RAW])
{
	uint8_t msg[sizeof(IX_AUTH_LABEL) + IX_AUTH_ROLE_MAX + 1 + 2 * IX_AUTH_RAW + 1 +
		    2 * IX_AUTH_RAW];
	size_t rlen, off = 0, maclen = 0;
	bool ok;

	if (!t || !t->set || t->len == 0 || t->len > IX_TOKEN_MAX)
		return false;
	if (!valid_role(role) || !valid_hex(server_challenge) || !valid_hex(client_challenge))
		return false;
	rlen = strlen(role);

	memcpy(msg + off, IX_AUTH_LABEL, sizeof(IX_AUTH_LABEL)); /* with its NUL */
	off += sizeof(IX_AUTH_LABEL);
	memcpy(msg + off, role, rlen);
	off += rlen;
	msg[off++] = '\0';
	memcpy(msg + off, server_challenge, 2 * IX_AUTH_RAW);
	off += 2 * IX_AUTH_RAW;
	msg[off++] = '\0';
	memcpy(msg + off, client_challenge, 2 * IX_AUTH_RAW);
	off += 2 * IX_AUTH_RAW;

	ok = EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, t->key, t->len, msg, off, mac,
		       IX_AUTH_RAW, &maclen) != NULL &&
	     maclen == IX_AUTH_RAW;
	if (!ok)
		OPENSSL_cleanse(mac, IX_AUTH_RAW);
	return ok;
}

int ix_auth_mac(const struct ix_token *t, const char *role, const char *server_challenge,
		const char *client_challenge, char out[IX_AUTH_HEX])
{
	uint8_t mac[IX_AUTH_RAW];

	if (!out)
		return -1;
	out[0] = '\0';
	if (!auth_mac_raw(t, role, server_challenge, client_challenge, mac))
		return -1;
	hex_encode(mac, sizeof(mac), out);
	OPENSSL_cleanse(mac, sizeof(mac));
	return 0;
}

bool ix_auth_verify(const struct ix_token *t, const char *role, const char *server_challenge,
		    const char *client_challenge, const char *mac_hex)
{
	uint8_t mac[IX_AUTH_RAW];
	char want[IX_AUTH_HEX];
	bool ok;

	if (!valid_hex(mac_hex))
		return false;
	if (!auth_mac_raw(t, role, server_challenge, client_challenge, mac))
		return false;
	hex_encode(mac, sizeof(mac), want);
	ok = CRYPTO_memcmp(want, mac_hex, 2 * IX_AUTH_RAW) == 0;
	OPENSSL_cleanse(mac, sizeof(mac));
	OPENSSL_cleanse(want, sizeof(want));
	return ok;
}

int ix_auth_session_key(const struct ix_token *t, const char *server_challenge,
			const char *client_challenge, uint8_t key[32])
{
	char hex[IX_AUTH_HEX];
	int rc = ix_auth_mac(t, "session", server_challenge, client_challenge, hex);

	for (int i = 0; rc == 0 && i < 32; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			rc = -1;
		key[i] = (uint8_t)v;
	}
	OPENSSL_cleanse(hex, sizeof(hex));
	return rc;
}
