/* Unit tests for probes/ctl/auth.c: the HMAC-SHA256 challenge-response against
 * an independent computation and a fixed vector, replay and reflection
 * refusals, malformed input, and the checks made on token files. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "probes/ctl/auth.h"

/* 64 lowercase hex digits each. */
#define CS   "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define CC   "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define CS_2 "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
/* A token file's secret of exactly the least length accepted. */
#define SECRET     "s3cret-s3cret-16"
#define SECRET_LEN (sizeof(SECRET) - 1)

static struct ix_token token_of(const char *s)
{
	struct ix_token t;

	memset(&t, 0, sizeof(t));
	t.len = strlen(s);
	cr_assert(t.len > 0 && t.len <= IX_TOKEN_MAX);
	memcpy(t.key, s, t.len);
	t.set = true;
	return t;
}

/* The documented layout, built here independently of probes/ctl/auth.c:
 * "ixperf-auth-v1" 0x00 role 0x00 server_challenge 0x00 client_challenge. */
static void expected_mac(const char *key, const char *role, const char *cs, const char *cc,
			 char out[IX_AUTH_HEX])
{
	unsigned char msg[512], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	size_t off = 0;
	const char *parts[] = { "ixperf-auth-v1", role, cs, cc };
	size_t i;

	for (i = 0; i < 4; i++) {
		size_t n = strlen(parts[i]);

		cr_assert(off + n + 1 <= sizeof(msg));
		memcpy(msg + off, parts[i], n);
		off += n;
		if (i < 3)
			msg[off++] = 0x00;
	}
	cr_assert_eq(off, 15 + strlen(role) + 1 + 64 + 1 + 64);
	cr_assert_not_null(HMAC(EVP_sha256(), key, (int)strlen(key), msg, off, md, &mdlen));
	cr_assert_eq(mdlen, 32);
	for (i = 0; i < mdlen; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static bool is_lower_hex64(const char *s)
{
	size_t i;

	if (strlen(s) != 64)
		return false;
	for (i = 0; i < 64; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

Test(auth, known_answer_independent)
{
	struct ix_token t = token_of("s3cret");
	const char *roles[] = { "agent", "client" };
	char got[IX_AUTH_HEX], want[IX_AUTH_HEX];
	size_t i;

	for (i = 0; i < 2; i++) {
		cr_assert_eq(ix_auth_mac(&t, roles[i], CS, CC, got), 0);
		expected_mac("s3cret", roles[i], CS, CC, want);
		cr_assert_str_eq(got, want, "role %s", roles[i]);
		cr_assert(is_lower_hex64(got));
		cr_assert(ix_auth_verify(&t, roles[i], CS, CC, want));
	}
}

/* Computed with:
 *   printf 'ixperf-auth-v1\0%s\0%s\0%s' agent $CS $CC |
 *           openssl dgst -sha256 -mac HMAC -macopt key:s3cret */
Test(auth, known_answer_fixed_vector)
{
	struct ix_token t = token_of("s3cret");
	char got[IX_AUTH_HEX];

	cr_assert_eq(ix_auth_mac(&t, "agent", CS, CC, got), 0);
	cr_assert_str_eq(got, "23923b02f718a97c15347f48c789093cd3ba77122755a0d3841fe3340d535fb0");
	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, got), 0);
	cr_assert_str_eq(got, "a5975865fed5eedd8fa4453a5c46ed35d3cb61ed85c041a8062d92ef99048805");
}

/* The full handshake with fresh challenges, each side with its own copy. */
Test(auth, both_sides_verify)
{
	struct ix_token agent = token_of("shared token"), client = token_of("shared token");
	char cs[IX_AUTH_HEX], cc[IX_AUTH_HEX], proof[IX_AUTH_HEX], mac[IX_AUTH_HEX];
	struct ix_err err = { 0 };

	cr_assert_eq(ix_auth_challenge(cc, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_auth_challenge(cs, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_auth_mac(&agent, "agent", cs, cc, proof), 0);
	cr_assert(ix_auth_verify(&client, "agent", cs, cc, proof));
	cr_assert_eq(ix_auth_mac(&client, "client", cs, cc, mac), 0);
	cr_assert(ix_auth_verify(&agent, "client", cs, cc, mac));
	cr_assert_str_neq(proof, mac);
}

Test(auth, wrong_token_fails)
{
	struct ix_token good = token_of("s3cret"), bad = token_of("s3creT"),
			longer = token_of("s3cret2");
	char mac[IX_AUTH_HEX];

	cr_assert_eq(ix_auth_mac(&bad, "client", CS, CC, mac), 0);
	cr_assert_not(ix_auth_verify(&good, "client", CS, CC, mac));
	cr_assert_eq(ix_auth_mac(&longer, "client", CS, CC, mac), 0);
	cr_assert_not(ix_auth_verify(&good, "client", CS, CC, mac));
	cr_assert_eq(ix_auth_mac(&good, "client", CS, CC, mac), 0);
	cr_assert(ix_auth_verify(&good, "client", CS, CC, mac));
}

/* A recorded answer replayed on a new connection, where the server picks a
 * new challenge and the attacker reuses the old client challenge. */
Test(auth, replay_with_new_server_challenge_fails)
{
	struct ix_token t = token_of("s3cret");
	char mac[IX_AUTH_HEX], cs[IX_AUTH_HEX];
	struct ix_err err = { 0 };

	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, mac), 0);
	cr_assert(ix_auth_verify(&t, "client", CS, CC, mac));
	cr_assert_not(ix_auth_verify(&t, "client", CS_2, CC, mac));
	cr_assert_eq(ix_auth_challenge(cs, &err), 0, "%s", err.msg);
	cr_assert_not(ix_auth_verify(&t, "client", cs, CC, mac));
}

/* The agent's proof is also bound to the client's challenge. */
Test(auth, replayed_proof_with_new_client_challenge_fails)
{
	struct ix_token t = token_of("s3cret");
	char proof[IX_AUTH_HEX];

	cr_assert_eq(ix_auth_mac(&t, "agent", CS, CC, proof), 0);
	cr_assert_not(ix_auth_verify(&t, "agent", CS, CS_2, proof));
}

/* Reflection: the agent's proof sent back as the client's answer. */
Test(auth, role_bound_reflection_fails)
{
	struct ix_token t = token_of("s3cret");
	char proof[IX_AUTH_HEX], mac[IX_AUTH_HEX];

	cr_assert_eq(ix_auth_mac(&t, "agent", CS, CC, proof), 0);
	cr_assert(ix_auth_verify(&t, "agent", CS, CC, proof));
	cr_assert_not(ix_auth_verify(&t, "client", CS, CC, proof));
	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, mac), 0);
	cr_assert_not(ix_auth_verify(&t, "agent", CS, CC, mac));
	cr_assert_str_neq(proof, mac);
}

Test(auth, swapped_challenges_fail)
{
	struct ix_token t = token_of("s3cret");
	char mac[IX_AUTH_HEX], swapped[IX_AUTH_HEX];

	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, mac), 0);
	cr_assert_not(ix_auth_verify(&t, "client", CC, CS, mac));
	cr_assert_eq(ix_auth_mac(&t, "client", CC, CS, swapped), 0);
	cr_assert_str_neq(mac, swapped);
}

static const char *const bad_hex[] = {
	"",
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",   /* 63 */
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0", /* 65 */
	"0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",  /* upper */
	"0123456789abcdeg0123456789abcdef0123456789abcdef0123456789abcdef",  /* 'g' */
	"0123456789abcde 0123456789abcdef0123456789abcdef0123456789abcdef",  /* space */
	"0x23456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",  /* 'x' */
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", /* newline */
	NULL,
};

Test(auth, malformed_challenges_rejected)
{
	struct ix_token t = token_of("s3cret");
	char mac[IX_AUTH_HEX], good[IX_AUTH_HEX];
	size_t i;

	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, good), 0);
	for (i = 0; i < sizeof(bad_hex) / sizeof(bad_hex[0]); i++) {
		memset(mac, 'z', sizeof(mac));
		cr_assert_eq(ix_auth_mac(&t, "client", bad_hex[i], CC, mac), -1, "server #%zu", i);
		cr_assert_eq(mac[0], '\0', "output cleared on failure (#%zu)", i);
		cr_assert_eq(ix_auth_mac(&t, "client", CS, bad_hex[i], mac), -1, "client #%zu", i);
		cr_assert_not(ix_auth_verify(&t, "client", bad_hex[i], CC, good), "#%zu", i);
		cr_assert_not(ix_auth_verify(&t, "client", CS, bad_hex[i], good), "#%zu", i);
	}
	/* Uppercase of the very challenge used is not the same challenge. */
	cr_assert_eq(ix_auth_mac(&t, "client", CC, CS, mac), 0);
	cr_assert_not(ix_auth_verify(
		&t, "client", "FEDCBA9876543210FEDCBA9876543210FEDCBA9876543210FEDCBA9876543210",
		CS, mac));
}

Test(auth, malformed_macs_rejected)
{
	struct ix_token t = token_of("s3cret");
	char mac[IX_AUTH_HEX], upper[IX_AUTH_HEX], longer[IX_AUTH_HEX + 1];
	size_t i;

	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, mac), 0);
	cr_assert(ix_auth_verify(&t, "client", CS, CC, mac));
	for (i = 0; i < sizeof(bad_hex) / sizeof(bad_hex[0]); i++)
		cr_assert_not(ix_auth_verify(&t, "client", CS, CC, bad_hex[i]), "#%zu", i);

	/* The right MAC, but in uppercase, truncated or with a byte more. */
	for (i = 0; i < IX_AUTH_HEX; i++)
		upper[i] = (mac[i] >= 'a' && mac[i] <= 'f') ? (char)(mac[i] - 'a' + 'A') : mac[i];
	cr_assert_str_neq(upper, mac, "the vector must contain a letter");
	cr_assert_not(ix_auth_verify(&t, "client", CS, CC, upper));
	memcpy(longer, mac, 64);
	longer[64] = '0';
	longer[65] = '\0';
	cr_assert_not(ix_auth_verify(&t, "client", CS, CC, longer));
	longer[63] = '\0';
	cr_assert_not(ix_auth_verify(&t, "client", CS, CC, longer));
	/* One digit off. */
	memcpy(longer, mac, IX_AUTH_HEX);
	longer[10] = longer[10] == '0' ? '1' : '0';
	cr_assert_not(ix_auth_verify(&t, "client", CS, CC, longer));
}

Test(auth, bad_roles_rejected)
{
	struct ix_token t = token_of("s3cret");
	char mac[IX_AUTH_HEX], good[IX_AUTH_HEX];

	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, good), 0);
	cr_assert_eq(ix_auth_mac(&t, NULL, CS, CC, mac), -1);
	cr_assert_eq(ix_auth_mac(&t, "", CS, CC, mac), -1);
	cr_assert_eq(ix_auth_mac(&t, "a-role-name-much-longer-than-32-bytes", CS, CC, mac), -1);
	cr_assert_not(ix_auth_verify(&t, NULL, CS, CC, good));
	cr_assert_not(ix_auth_verify(&t, "", CS, CC, good));
	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, NULL), -1);
	cr_assert_eq(ix_auth_mac(NULL, "client", CS, CC, mac), -1);
	cr_assert_not(ix_auth_verify(NULL, "client", CS, CC, good));
}

Test(auth, unset_token_never_verifies)
{
	struct ix_token unset, t = token_of("s3cret");
	char mac[IX_AUTH_HEX], empty_key[IX_AUTH_HEX];

	memset(&unset, 0, sizeof(unset));
	cr_assert_eq(ix_auth_mac(&unset, "client", CS, CC, mac), -1);
	/* Whatever an attacker may guess: a MAC under the empty key, or a real one. */
	expected_mac("", "client", CS, CC, empty_key);
	cr_assert_not(ix_auth_verify(&unset, "client", CS, CC, empty_key));
	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, mac), 0);
	cr_assert_not(ix_auth_verify(&unset, "client", CS, CC, mac));
	/* Key bytes left behind but not marked set. */
	t.set = false;
	cr_assert_not(ix_auth_verify(&t, "client", CS, CC, mac));
	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, mac), -1);
}

Test(auth, challenges_are_fresh_hex)
{
	char a[IX_AUTH_HEX], b[IX_AUTH_HEX];
	struct ix_err err = { 0 };

	memset(a, 'z', sizeof(a));
	memset(b, 'z', sizeof(b));
	cr_assert_eq(ix_auth_challenge(a, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_auth_challenge(b, &err), 0, "%s", err.msg);
	cr_assert(is_lower_hex64(a), "%s", a);
	cr_assert(is_lower_hex64(b), "%s", b);
	cr_assert_str_neq(a, b);
}

/* Token files, each test in its own temporary directory. */

static char tmpdir[64];

static void tmp_setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s", "/tmp/ixperf-auth-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void tmp_teardown(void)
{
	struct dirent *de;
	DIR *d;

	if (!tmpdir[0])
		return;
	d = opendir(tmpdir);
	if (d) {
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (unlinkat(dirfd(d), de->d_name, 0) < 0)
				unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		}
		closedir(d);
	}
	rmdir(tmpdir);
	tmpdir[0] = '\0';
}

static const char *tmp_path(const char *name)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	return p;
}

static const char *write_file(const char *name, const void *data, size_t len, mode_t mode)
{
	const char *p = tmp_path(name);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	cr_assert(fd >= 0, "create %s", p);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	cr_assert_eq(fchmod(fd, mode), 0); /* exactly mode, whatever the umask */
	close(fd);
	return p;
}

static const char *write_token(const char *name, const char *text, mode_t mode)
{
	return write_file(name, text, strlen(text), mode);
}

static bool key_is_zero(const struct ix_token *t)
{
	size_t i;

	for (i = 0; i < sizeof(t->key); i++)
		if (t->key[i])
			return false;
	return true;
}

/* The load must fail with IX_EXIT_USAGE and a message containing want, and
 * leave no key behind even when a good token was loaded in t before. */
static void expect_refused(const char *path, const char *want)
{
	struct ix_token t;
	struct ix_err err = { 0 };

	memset(&t, 0xa5, sizeof(t));
	t.set = true;
	t.len = 8;
	cr_assert_eq(ix_token_load(path, &t, &err), -1, "%s should be refused", path);
	cr_assert_eq(err.code, IX_EXIT_USAGE, "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, want), "message '%s' lacks '%s'", err.msg, want);
	cr_assert_not_null(strstr(err.msg, path), "message '%s' does not name the file", err.msg);
	cr_assert_not(t.set);
	cr_assert_eq(t.len, 0);
	cr_assert(key_is_zero(&t), "key bytes left behind");
	cr_assert_not(
		ix_auth_verify(&t, "client", CS, CC,
			       "0000000000000000000000000000000000000000000000000000000000000000"));
}

static void load_ok(const char *path, struct ix_token *t)
{
	struct ix_err err = { 0 };

	cr_assert_eq(ix_token_load(path, t, &err), 0, "%s", err.msg);
	cr_assert(t->set);
}

TestSuite(token, .init = tmp_setup, .fini = tmp_teardown);

Test(token, mode_0600_loads)
{
	struct ix_token t, ref = token_of(SECRET);
	char a[IX_AUTH_HEX], b[IX_AUTH_HEX];

	load_ok(write_token("tok", SECRET, 0600), &t);
	cr_assert_eq(t.len, SECRET_LEN);
	cr_assert_eq(memcmp(t.key, SECRET, SECRET_LEN), 0);
	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, a), 0);
	cr_assert_eq(ix_auth_mac(&ref, "client", CS, CC, b), 0);
	cr_assert_str_eq(a, b);
	/* Read-only for the owner is fine too. */
	load_ok(write_token("ro", SECRET, 0400), &t);
}

Test(token, group_or_other_access_refused)
{
	const mode_t modes[] = { 0640, 0604, 0620, 0602, 0610, 0601, 0644, 0666, 0660 };
	char name[16];
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(name, sizeof(name), "tok%04o", (unsigned int)modes[i]);
		expect_refused(write_token(name, SECRET, modes[i]), "chmod 600");
	}
}

Test(token, symlink_refused)
{
	char target[256];
	const char *link;

	snprintf(target, sizeof(target), "%s", write_token("real", SECRET, 0600));
	link = tmp_path("link");
	cr_assert_eq(symlink(target, link), 0);
	expect_refused(link, "symbolic link");
}

Test(token, directory_refused)
{
	const char *p = tmp_path("dir");

	cr_assert_eq(mkdir(p, 0700), 0);
	expect_refused(p, "not a regular file");
}

Test(token, fifo_refused_without_blocking)
{
	const char *p = tmp_path("fifo");

	cr_assert_eq(mkfifo(p, 0600), 0);
	expect_refused(p, "not a regular file");
}

Test(token, empty_refused)
{
	expect_refused(write_token("empty", "", 0600), "empty");
	expect_refused(write_token("nl", "\n", 0600), "empty");
	expect_refused(write_token("crlf", "\r\n", 0600), "empty");
}

Test(token, whitespace_only_refused)
{
	expect_refused(write_token("sp", "   ", 0600), "white space");
	expect_refused(write_token("mix", " \t \n", 0600), "white space");
	expect_refused(write_token("nls", "\n\n", 0600), "white space");
}

/* A short secret can be guessed offline from a recorded HELLO_ACK proof. */
Test(token, short_refused)
{
	struct ix_token t;

	cr_assert_eq(SECRET_LEN, IX_TOKEN_MIN);
	expect_refused(write_token("short", "s3cret", 0600), "at least 16 random bytes");
	expect_refused(write_token("short15", "s3cret-s3cret-1\n", 0600),
		       "head -c 32 /dev/urandom");
	/* Blanks around the secret count, the dropped newline does not. */
	load_ok(write_token("min", SECRET "\n", 0600), &t);
	cr_assert_eq(t.len, IX_TOKEN_MIN);
}

Test(token, oversize_refused)
{
	static char big[IX_TOKEN_MAX + 8];
	struct ix_token t;

	memset(big, 'k', sizeof(big));
	/* A token of exactly the maximum, alone or with its newline, is fine. */
	load_ok(write_file("max", big, IX_TOKEN_MAX, 0600), &t);
	cr_assert_eq(t.len, IX_TOKEN_MAX);
	big[IX_TOKEN_MAX] = '\n';
	load_ok(write_file("maxnl", big, IX_TOKEN_MAX + 1, 0600), &t);
	cr_assert_eq(t.len, IX_TOKEN_MAX);
	big[IX_TOKEN_MAX] = 'k';

	expect_refused(write_file("over", big, IX_TOKEN_MAX + 1, 0600), "longer than");
	big[IX_TOKEN_MAX + 1] = '\n';
	expect_refused(write_file("overnl", big, IX_TOKEN_MAX + 2, 0600), "longer than");
	expect_refused(write_file("huge", big, sizeof(big), 0600), "longer than");
}

Test(token, trailing_newline_stripped)
{
	struct ix_token a, b;
	char ma[IX_AUTH_HEX], mb[IX_AUTH_HEX];

	load_ok(write_token("plain", SECRET, 0600), &a);
	load_ok(write_token("nl", SECRET "\n", 0600), &b);
	cr_assert_eq(b.len, SECRET_LEN);
	cr_assert_eq(ix_auth_mac(&a, "agent", CS, CC, ma), 0);
	cr_assert_eq(ix_auth_mac(&b, "agent", CS, CC, mb), 0);
	cr_assert_str_eq(ma, mb);
	cr_assert(ix_auth_verify(&a, "agent", CS, CC, mb));
}

Test(token, crlf_stripped)
{
	struct ix_token a, b;
	char ma[IX_AUTH_HEX], mb[IX_AUTH_HEX];

	load_ok(write_token("plain", SECRET, 0600), &a);
	load_ok(write_token("crlf", SECRET "\r\n", 0600), &b);
	cr_assert_eq(b.len, SECRET_LEN);
	cr_assert_eq(ix_auth_mac(&a, "client", CS, CC, ma), 0);
	cr_assert_eq(ix_auth_mac(&b, "client", CS, CC, mb), 0);
	cr_assert_str_eq(ma, mb);
}

/* Exactly one newline goes; anything else is part of the token. */
Test(token, only_one_newline_stripped)
{
	struct ix_token t;

	load_ok(write_token("two", SECRET "\n\n", 0600), &t);
	cr_assert_eq(t.len, SECRET_LEN + 1);
	cr_assert_eq(memcmp(t.key, SECRET "\n", SECRET_LEN + 1), 0);
	load_ok(write_token("cr", SECRET "\r", 0600), &t);
	cr_assert_eq(t.len, SECRET_LEN + 1);
	load_ok(write_token("sp", " " SECRET " \n", 0600), &t);
	cr_assert_eq(t.len, SECRET_LEN + 2);
	cr_assert_eq(memcmp(t.key, " " SECRET " ", SECRET_LEN + 2), 0);
}

Test(token, missing_file_named)
{
	const char *p = tmp_path("no-such-token");
	struct ix_token t;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_token_load(p, &t, &err), -1);
	cr_assert_not_null(strstr(err.msg, p), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, strerror(ENOENT)), "%s", err.msg);
	cr_assert_not(t.set);
	cr_assert(key_is_zero(&t));
}

/* A failed reload must not leave the previous key usable. */
Test(token, failed_reload_clears_previous_key)
{
	struct ix_token t;
	char mac[IX_AUTH_HEX];
	struct ix_err err = { 0 };

	load_ok(write_token("good", SECRET, 0600), &t);
	cr_assert_eq(ix_auth_mac(&t, "client", CS, CC, mac), 0);
	cr_assert_eq(ix_token_load(write_token("bad", SECRET, 0644), &t, &err), -1);
	cr_assert_not(t.set);
	cr_assert(key_is_zero(&t));
	cr_assert_not(ix_auth_verify(&t, "client", CS, CC, mac));
}

/* Another user's token file, or one in a directory others may write to,
 * could be replaced by them: refused. chown needs root. */
Test(token, someone_elses_file_refused)
{
	const char *p = write_token("theirs", SECRET, 0600);

	if (geteuid() != 0)
		cr_skip_test("changing a file's owner needs root");
	cr_assert_eq(chown(p, 65534, 65534), 0);
	expect_refused(p, "owned by uid 65534");
	cr_assert_eq(chown(p, 0, 0), 0);
	{
		struct ix_token t;
		load_ok(p, &t); /* root's own file */
	}
}

Test(token, directory_others_may_write_refused)
{
	const char *p = write_token("tok", SECRET, 0600);
	struct ix_token t;
	char path[256];

	snprintf(path, sizeof(path), "%s", p);
	cr_assert_eq(chmod(tmpdir, 0777), 0);
	expect_refused(path, "without the sticky bit");
	cr_assert_eq(chmod(tmpdir, 0770), 0);
	expect_refused(path, "mode 0770");
	/* Sticky, like /tmp: only the file's owner may replace it. */
	cr_assert_eq(chmod(tmpdir, 01777), 0);
	load_ok(path, &t);
	cr_assert_eq(chmod(tmpdir, 0755), 0);
	load_ok(path, &t);
	cr_assert_eq(chmod(tmpdir, 0700), 0);
}

Test(token, directory_of_someone_else_refused)
{
	char dir[256], path[300];
	struct ix_token t;
	int fd;

	if (geteuid() != 0)
		cr_skip_test("changing a directory's owner needs root");
	snprintf(dir, sizeof(dir), "%s", tmp_path("theirs"));
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/tok", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, SECRET, SECRET_LEN), (ssize_t)SECRET_LEN);
	close(fd);
	load_ok(path, &t);
	cr_assert_eq(chown(dir, 65534, 65534), 0);
	expect_refused(path, "owned by uid 65534");
	unlink(path);
}
