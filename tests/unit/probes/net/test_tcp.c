/* Unit tests for probes/net/tcp.c: a latency ping towards a peer that
 * stops reading ends at its deadline or at the stop flag. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/net/net.h"
#include "probes/net/transport.h"

#define MSG (8u * 1024 * 1024) /* far more than the socket buffers hold */

struct rig {
	int sv[2];
	atomic_int stop;
	struct ix_stream s;
	uint8_t *buf;
};

/* sv[0] pings; sv[1] is a peer that never reads. */
static void rig_open(struct rig *r)
{
	int small = 4096;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, r->sv), 0);
	setsockopt(r->sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	setsockopt(r->sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	/* As the client sets it: blocked sends wake up to check. */
	cr_assert_eq(ix_net_set_timeouts(r->sv[0], 100), 0);
	atomic_init(&r->stop, 0);
	ix_stream_init(&r->s, 0, IX_DIR_FORWARD, true);
	r->s.fd = r->sv[0];
	r->s.tp = &ix_tcp_transport;
	r->s.stop = &r->stop;
	r->s.msg_size = MSG;
	r->buf = calloc(1, MSG);
	cr_assert_not_null(r->buf);
}

static void rig_close(struct rig *r)
{
	close(r->sv[0]);
	close(r->sv[1]);
	free(r->buf);
}

/* The deadline is 0.5 s; the 10 s limit only catches a hang. */
Test(tcp_ping, peer_not_reading_hits_the_deadline, .timeout = 10)
{
	struct rig r;

	rig_open(&r);
	cr_assert_eq(ix_tcp_transport.ping(&r.s, r.buf, 0, 500 * 1000000LL), -1);
	cr_assert_not_null(strstr(r.s.err.msg, "not reading"), "message: %s", r.s.err.msg);
	rig_close(&r);
}

Test(tcp_ping, peer_not_reading_honours_stop, .timeout = 10)
{
	struct rig r;

	rig_open(&r);
	atomic_store(&r.stop, 1);
	cr_assert_eq(ix_tcp_transport.ping(&r.s, r.buf, 0, 3600 * IX_NSEC_PER_SEC), -1);
	cr_assert_str_eq(r.s.err.msg, "stopped");
	rig_close(&r);
}
