#include "config.h"

#include <errno.h>
#include <time.h> /* before linux/errqueue.h, which uses struct timespec */
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "probes/core/clock.h"
#include "probes/net/zcopy.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

#define ENOBUFS_WAIT_MS 100 /* a wait for completions before a retry */

void ix_zc_open(struct ix_zc *z, int fd)
{
	int one = 1;

	memset(z, 0, sizeof(*z));
	z->fd = fd;
	z->st.asked = true;
	if (setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) == 0) {
		z->st.used = true;
		return;
	}
	snprintf(z->st.why, sizeof(z->st.why), "SO_ZEROCOPY refused: %s", strerror(errno));
}

/* One notification: send calls lo..hi (32-bit, wrapping) are done. */
static void completed(struct ix_zc *z, const struct sock_extended_err *ee)
{
	uint32_t n = ee->ee_data - ee->ee_info + 1;

	z->st.completed += n;
	if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
		z->st.copied += n;
}

static int reap_now(struct ix_zc *z)
{
	int got = 0;

	for (;;) {
		char ctrl[CMSG_SPACE(sizeof(struct sock_extended_err) +
				     sizeof(struct sockaddr_in6))];
		struct msghdr m = { .msg_control = ctrl, .msg_controllen = sizeof(ctrl) };
		struct cmsghdr *c;
		uint64_t before = z->st.completed;

		if (recvmsg(z->fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return got;
			return got ? got : -1;
		}
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			const struct sock_extended_err *ee;

			if (!((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
			      (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)))
				continue;
			ee = (const struct sock_extended_err *)(void *)CMSG_DATA(c);
			if (ee->ee_errno == 0 && ee->ee_origin == SO_EE_ORIGIN_ZEROCOPY)
				completed(z, ee);
		}
		got += (int)(z->st.completed - before);
	}
}

int ix_zc_reap(struct ix_zc *z, int timeout_ms)
{
	struct pollfd p = { .fd = z->fd, .events = 0 };
	int got;

	if (z->st.completed >= z->st.sends)
		return 0;
	if (timeout_ms > 0 && poll(&p, 1, timeout_ms) <= 0)
		return 0;
	got = reap_now(z);
	/* Woken by the socket's own error (a reset) with no completion
	 * queued: none will come, and a wait would only spin. */
	if (got == 0 && timeout_ms > 0 && (p.revents & (POLLERR | POLLHUP))) {
		errno = EPIPE;
		return -1;
	}
	return got;
}

ssize_t ix_zc_send(struct ix_zc *z, const void *buf, size_t len, int flags)
{
	ssize_t n;

	if (!z->st.used)
		return send(z->fd, buf, len, flags);
	if (z->st.sends - z->st.completed >= IX_ZC_INFLIGHT)
		reap_now(z);
	n = send(z->fd, buf, len, flags | MSG_ZEROCOPY);
	if (n < 0 && errno == ENOBUFS) {
		/* Too many pages pinned (optmem, RLIMIT_MEMLOCK): wait a while
		 * for some back and let the caller try again (EAGAIN). With
		 * none in flight, none will come back: copy from now on. */
		z->st.waits++;
		if (z->st.completed < z->st.sends) {
			ix_zc_reap(z, ENOBUFS_WAIT_MS);
			errno = EAGAIN;
			return -1;
		}
		z->st.used = false;
		snprintf(z->st.why, sizeof(z->st.why), "ENOBUFS with no send in flight");
		return send(z->fd, buf, len, flags);
	}
	if (n > 0)
		z->st.sends++;
	return n;
}

bool ix_zc_drain(struct ix_zc *z, int64_t deadline)
{
	while (z->st.completed < z->st.sends) {
		int64_t left = deadline - ix_now_ns();

		if (left <= 0)
			return false;
		if (ix_zc_reap(z, (int)(left / 1000000 + 1)) < 0)
			return false;
	}
	return true;
}

json_t *ix_zc_json(const struct ix_zerocopy *z)
{
	return json_pack("{s:b,s:I,s:I,s:I,s:I,s:o}", "used", z->used, "sends",
			 (json_int_t)z->sends, "completed", (json_int_t)z->completed, "copied",
			 (json_int_t)z->copied, "waits", (json_int_t)z->waits, "reason",
			 z->why[0] ? json_string(z->why) : json_null());
}

int ix_zc_parse(json_t *j, struct ix_zerocopy *z)
{
	static const char *const keys[] = { "sends", "completed", "copied", "waits" };
	struct ix_zerocopy t = { .asked = true };
	uint64_t *v[] = { &t.sends, &t.completed, &t.copied, &t.waits };
	json_t *r = json_object_get(j, "reason");

	memset(z, 0, sizeof(*z));
	if (!json_is_object(j) || !json_is_boolean(json_object_get(j, "used")))
		return -1;
	for (size_t i = 0; i < 4; i++) {
		json_t *x = json_object_get(j, keys[i]);

		if (!json_is_integer(x) || json_integer_value(x) < 0)
			return -1;
		*v[i] = (uint64_t)json_integer_value(x);
	}
	if (t.completed > t.sends || t.copied > t.completed)
		return -1;
	if (r && !json_is_null(r) && !json_is_string(r))
		return -1;
	t.used = json_is_true(json_object_get(j, "used"));
	if (json_is_string(r))
		snprintf(t.why, sizeof(t.why), "%s", json_string_value(r));
	*z = t;
	return 0;
}
