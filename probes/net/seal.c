/* Sealed control connections (probes/net/seal.h). The bindings live in one
 * table indexed by descriptor, under a lock: frames are sent and received
 * through descriptors by every layer, so the table is the one place that
 * sees them all. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "probes/net/seal.h"

struct binding {
	bool on;
	char role; /* this end's */
	dev_t dev;
	ino_t ino;
	uint64_t tx_seq, rx_seq;
	uint8_t key[IX_SEAL_KEY];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct binding *table;
static size_t table_len;

static bool same_socket(int fd, const struct binding *b)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == b->dev && st.st_ino == b->ino;
}

int ix_seal_bind(int fd, const uint8_t key[IX_SEAL_KEY], char role, struct ix_err *err)
{
	struct stat st;
	int rc = 0;

	if (fd < 0 || fstat(fd, &st) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot seal descriptor %d", fd);
	pthread_mutex_lock(&lock);
	if ((size_t)fd >= table_len) {
		size_t n = (size_t)fd + 64;
		struct binding *t = realloc(table, n * sizeof(*t));

		if (!t) {
			rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
		} else {
			memset(t + table_len, 0, (n - table_len) * sizeof(*t));
			table = t;
			table_len = n;
		}
	}
	if (rc == 0) {
		table[fd] = (struct binding){
			.on = true, .role = role, .dev = st.st_dev, .ino = st.st_ino
		};
		memcpy(table[fd].key, key, IX_SEAL_KEY);
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

void ix_seal_unbind(int fd)
{
	pthread_mutex_lock(&lock);
	if (fd >= 0 && (size_t)fd < table_len) {
		OPENSSL_cleanse(&table[fd], sizeof(table[fd]));
		table[fd].on = false;
	}
	pthread_mutex_unlock(&lock);
}

/* The binding of fd, locked, or NULL (unlocked). A binding left by a
 * closed connection whose number fd now has is dropped here. */
static struct binding *lookup(int fd)
{
	struct binding *b;

	pthread_mutex_lock(&lock);
	if (fd < 0 || (size_t)fd >= table_len || !table[fd].on) {
		pthread_mutex_unlock(&lock);
		return NULL;
	}
	b = &table[fd];
	if (!same_socket(fd, b)) {
		OPENSSL_cleanse(b, sizeof(*b));
		b->on = false;
		pthread_mutex_unlock(&lock);
		return NULL;
	}
	return b;
}

bool ix_seal_bound(int fd)
{
	struct binding *b = lookup(fd);

	if (b)
		pthread_mutex_unlock(&lock);
	return b != NULL;
}

/* HMAC-SHA256(key, role || seq (8 bytes, big-endian) || frame). */
static int mac(const struct binding *b, char role, uint64_t seq, const uint8_t *frame, size_t len,
	       uint8_t out[IX_SEAL_TAG])
{
	uint8_t pre[9];
	EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = m ? EVP_MAC_CTX_new(m) : NULL;
	OSSL_PARAM params[] = { OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
				OSSL_PARAM_construct_end() };
	size_t outl = 0;
	int ok;

	pre[0] = (uint8_t)role;
	for (int i = 0; i < 8; i++)
		pre[1 + i] = (uint8_t)(seq >> (56 - 8 * i));
	ok = ctx && EVP_MAC_init(ctx, b->key, IX_SEAL_KEY, params) &&
	     EVP_MAC_update(ctx, pre, sizeof(pre)) && EVP_MAC_update(ctx, frame, len) &&
	     EVP_MAC_final(ctx, out, &outl, IX_SEAL_TAG) && outl == IX_SEAL_TAG;
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(m);
	return ok ? 0 : -1;
}

int ix_seal_tag(int fd, const uint8_t *frame, size_t len, uint8_t tag[IX_SEAL_TAG],
		struct ix_err *err)
{
	struct binding *b = lookup(fd);
	int rc;

	if (!b)
		return 1;
	rc = mac(b, b->role, b->tx_seq, frame, len, tag);
	if (rc == 0)
		b->tx_seq++;
	pthread_mutex_unlock(&lock);
	return rc == 0 ? 0 : ix_fail(err, IX_EXIT_FAIL, "cannot compute a frame's tag");
}

int ix_seal_check(int fd, const uint8_t *frame, size_t len, size_t *body_len, struct ix_err *err)
{
	struct binding *b = lookup(fd);
	uint8_t want[IX_SEAL_TAG];
	int rc;

	if (!b)
		return 1;
	if (len < IX_SEAL_FRAME_HDR + IX_SEAL_TAG) {
		pthread_mutex_unlock(&lock);
		return ix_fail(err, IX_EXIT_FAIL,
			       "a frame without its tag on an authenticated connection");
	}
	rc = mac(b, b->role == 'a' ? 'c' : 'a', b->rx_seq, frame, len - IX_SEAL_TAG, want);
	if (rc == 0 && CRYPTO_memcmp(want, frame + len - IX_SEAL_TAG, IX_SEAL_TAG) == 0) {
		b->rx_seq++;
		pthread_mutex_unlock(&lock);
		*body_len = len - IX_SEAL_FRAME_HDR - IX_SEAL_TAG;
		return 0;
	}
	pthread_mutex_unlock(&lock);
	return ix_fail(err, IX_EXIT_FAIL,
		       "a frame whose tag is wrong on an authenticated connection (injected, "
		       "replayed or altered on the way)");
}
