/* Unit tests for probes/net/zcopy.c: MSG_ZEROCOPY sends over a loopback
 * TCP connection arrive whole and in order, every send's completion comes
 * back, and loopback's are marked as copied (it delivers by copy); a
 * socket that refuses SO_ZEROCOPY sends by copy and says why; the
 * figures' JSON round-trips and refuses counts that cannot be. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/net/zcopy.h"
#include "tests/unit/common.h"

#define CHUNK (64u * 1024)
#define SENDS 400

struct reader {
	int fd;
	uint64_t got;
	bool intact;
};

/* Read to the end, checking every byte against the pattern at its offset. */
static void *read_all(void *arg)
{
	struct reader *r = arg;
	uint8_t buf[16384];
	ssize_t n;

	r->intact = true;
	while ((n = recv(r->fd, buf, sizeof(buf), 0)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != (uint8_t)(((r->got + (uint64_t)i) % CHUNK) * 7u))
				r->intact = false;
		r->got += (uint64_t)n;
	}
	return NULL;
}

Test(zcopy, loopback_sends_complete_copied)
{
	static uint8_t chunk[CHUNK];
	struct reader rd = { 0 };
	struct ix_zc z;
	pthread_t th;
	uint64_t sent = 0;
	int fds[2];

	for (size_t i = 0; i < CHUNK; i++)
		chunk[i] = (uint8_t)(i * 7u);
	ix_test_tcp_pair(fds);
	ix_zc_open(&z, fds[0]);
	if (!z.st.used)
		cr_skip_test("this kernel refuses SO_ZEROCOPY: %s", z.st.why);
	rd.fd = fds[1];
	cr_assert_eq(pthread_create(&th, NULL, read_all, &rd), 0);
	/* Whole chunks, so that the pattern's offset stays the stream's. */
	for (int i = 0; i < SENDS; i++) {
		size_t off = 0;

		while (off < CHUNK) {
			ssize_t n = ix_zc_send(&z, chunk + off, CHUNK - off, MSG_NOSIGNAL);

			if (n < 0 && errno == EAGAIN)
				continue;
			cr_assert_gt(n, 0, "send: %s", strerror(errno));
			off += (size_t)n;
			sent += (uint64_t)n;
		}
	}
	cr_assert(ix_zc_drain(&z, ix_now_ns() + 5 * 1000000000LL), "%llu of %llu completed",
		  (unsigned long long)z.st.completed, (unsigned long long)z.st.sends);
	shutdown(fds[0], SHUT_WR);
	pthread_join(th, NULL);
	cr_expect_eq(rd.got, sent);
	cr_expect(rd.intact, "the data arrived changed");
	cr_expect_geq(z.st.sends, SENDS);
	cr_expect_eq(z.st.completed, z.st.sends);
	/* Loopback hands the receiver a copy: the kernel says so. */
	cr_expect_eq(z.st.copied, z.st.completed);
	cr_expect(z.st.used);
	cr_expect_eq(z.st.why[0], '\0');
	close(fds[0]);
	close(fds[1]);
}

/* A reap with nothing in flight returns at once: were it to wait its
 * hour, the test's 30 s timeout would fail it. */
Test(zcopy, reap_idle_does_not_wait, .timeout = 30)
{
	struct ix_zc z;
	int fds[2];

	ix_test_tcp_pair(fds);
	ix_zc_open(&z, fds[0]);
	cr_expect_eq(ix_zc_reap(&z, 3600 * 1000), 0);
	cr_expect(ix_zc_drain(&z, ix_now_ns() + 3600 * IX_NSEC_PER_SEC));
	close(fds[0]);
	close(fds[1]);
}

/* Completions still open when the peer resets: the wait for them ends
 * with the socket's error instead of spinning to its deadline. */
Test(zcopy, a_reset_ends_the_wait, .timeout = 30)
{
	struct linger lg = { 1, 0 };
	struct ix_zc z;
	int fds[2];

	ix_test_tcp_pair(fds);
	ix_zc_open(&z, fds[0]);
	if (!z.st.used)
		cr_skip_test("this kernel refuses SO_ZEROCOPY: %s", z.st.why);
	/* Sends the kernel has not completed, as after a stuck transfer. */
	z.st.sends = 5;
	cr_assert_eq(setsockopt(fds[1], SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)), 0);
	close(fds[1]); /* RST */
	cr_assert_eq(ix_zc_reap(&z, 3600 * 1000), -1);
	cr_expect_not(ix_zc_drain(&z, ix_now_ns() + 3600 * IX_NSEC_PER_SEC));
	close(fds[0]);
}

/* A socket without SO_ZEROCOPY: sends go by copy, and why is said. */
Test(zcopy, refused_falls_back_to_copy)
{
	struct ix_zc z;
	char b[4] = "abc";
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ix_zc_open(&z, sv[0]);
	cr_expect(z.st.asked);
	cr_expect_not(z.st.used);
	cr_expect_neq(strstr(z.st.why, "SO_ZEROCOPY refused"), NULL, "why: %s", z.st.why);
	cr_expect_eq(ix_zc_send(&z, "xyz", 3, 0), 3);
	cr_expect_eq(recv(sv[1], b, sizeof(b), 0), 3);
	cr_expect_eq(memcmp(b, "xyz", 3), 0);
	cr_expect_eq(z.st.sends, 0);
	close(sv[0]);
	close(sv[1]);
}

Test(zcopy, json_round_trip)
{
	struct ix_zerocopy z = { .asked = true,
				 .used = true,
				 .sends = 1000,
				 .completed = 998,
				 .copied = 990,
				 .waits = 3 },
			   y;
	json_t *j = ix_zc_json(&z);

	cr_assert_eq(ix_zc_parse(j, &y), 0);
	cr_assert(y.asked && y.used);
	cr_assert_eq(y.sends, 1000);
	cr_assert_eq(y.completed, 998);
	cr_assert_eq(y.copied, 990);
	cr_assert_eq(y.waits, 3);
	cr_assert_str_eq(y.why, "");
	cr_assert(json_is_null(json_object_get(j, "reason")));
	json_decref(j);
	z = (struct ix_zerocopy){ .asked = true };
	snprintf(z.why, sizeof(z.why), "SO_ZEROCOPY refused: x");
	j = ix_zc_json(&z);
	cr_assert_eq(ix_zc_parse(j, &y), 0);
	cr_assert(y.asked);
	cr_assert_not(y.used);
	cr_assert_str_eq(y.why, "SO_ZEROCOPY refused: x");
	json_decref(j);
}

/* Counts that cannot be (more completions than sends, more copied than
 * completed, negative, missing, of the wrong type) are refused, and
 * leave nothing behind. */
Test(zcopy, json_hostile)
{
	static const char *const bad[] = {
		"{\"used\": true, \"sends\": 1, \"completed\": 2, \"copied\": 0, \"waits\": 0}",
		"{\"used\": true, \"sends\": 3, \"completed\": 2, \"copied\": 3, \"waits\": 0}",
		"{\"used\": true, \"sends\": -1, \"completed\": 0, \"copied\": 0, \"waits\": 0}",
		"{\"used\": 1, \"sends\": 1, \"completed\": 0, \"copied\": 0, \"waits\": 0}",
		"{\"used\": true, \"sends\": 1, \"completed\": 0, \"copied\": 0}",
		"{\"used\": true, \"sends\": 1, \"completed\": 0, \"copied\": 0, \"waits\": 0, "
		"\"reason\": 5}",
		"[1, 2]",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_error_t e;
		json_t *j = json_loads(bad[i], 0, &e);
		struct ix_zerocopy z;

		cr_assert_not_null(j, "%s: %s", bad[i], e.text);
		cr_assert_eq(ix_zc_parse(j, &z), -1, "%s accepted", bad[i]);
		cr_assert_not(z.asked);
		cr_assert_eq(z.sends, 0);
		json_decref(j);
	}
}
