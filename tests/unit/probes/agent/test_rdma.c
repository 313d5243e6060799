/* Unit tests for probes/agent/rdma.c: who may ask this agent for an RDMA
 * test. (The tests themselves, held to their peer, run in the soft-RoCE
 * VMs: tests/integration/rdma_rxe.sh.) */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/agent/session.h"
#include "probes/agent/slots.h"
#include "probes/ctl/auth.h"

static struct ix_agent agent(void)
{
	struct ix_agent a;

	memset(&a, 0, sizeof(a));
	pthread_mutex_init(&a.lock, NULL);
	pthread_cond_init(&a.cond, NULL);
	a.cfg.max_tests = 4;
	a.cfg.rdma_gpu = -1;
	a.cfg.log = NULL;
	return a;
}

static const char *refusal(struct ix_agent *a, int fd, bool authenticated)
{
	static struct ix_err err;
	json_t *req = json_pack("{s:s}", "kind", "rdma");

	memset(&err, 0, sizeof(err));
	cr_assert_eq(ix_agent_serve_rdma(a, fd, "peer", authenticated, req, &err), -1);
	json_decref(req);
	return err.msg;
}

Test(agent_rdma, a_peer_it_cannot_hold_is_refused_before_anything)
{
	struct ix_agent a = agent();
	struct ix_token tok = { .set = true, .len = 16 };
	int sv[2];

	/* No address to hold the client to (not an IP connection). */
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_assert(strstr(refusal(&a, sv[0], false),
			 "RDMA test refused: this agent has no token (--token-file) and peer is "
			 "not in its --allow-run list"));
	cr_assert_eq(a.active_tests, 0, "no slot was taken");
	/* An agent with a token: only on an authenticated session. */
	a.cfg.token = &tok;
	cr_assert(strstr(refusal(&a, sv[0], false), "an RDMA test needs authentication"));
	/* Authenticated: past the policy, to the request itself. */
	cr_assert_null(strstr(refusal(&a, sv[0], true), "refused"));
	close(sv[0]);
	close(sv[1]);
}

Test(agent_rdma, a_client_on_this_host_is_taken)
{
	struct ix_agent a = agent();
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(in);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), s;
	const char *why;

	cr_assert_eq(bind(l, (struct sockaddr *)&in, sizeof(in)), 0);
	cr_assert_eq(listen(l, 1), 0);
	cr_assert_eq(getsockname(l, (struct sockaddr *)&in, &len), 0);
	cr_assert_eq(connect(c, (struct sockaddr *)&in, sizeof(in)), 0);
	s = accept(l, NULL, NULL);
	cr_assert_geq(s, 0);
	/* Loopback passes the policy: what fails is the request (no RDMA
	 * here, or a malformed setup), never the refusal. */
	why = refusal(&a, s, false);
	cr_assert_null(strstr(why, "refused"), "%s", why);
	cr_assert_null(strstr(why, "authentication"), "%s", why);
	close(s);
	close(c);
	close(l);
}
