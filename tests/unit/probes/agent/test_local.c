/* Unit tests for probes/agent/local.c: agents on this machine, each its
 * own process, started on loopback and stopped again. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/agent/local.h"

/* A TCP connection to 127.0.0.1:port: 0 when something accepted it. */
static int connect_loopback(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int rc;

	cr_assert_geq(fd, 0, "socket: %s", strerror(errno));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return rc;
}

/* Whether pid is gone and reaped: no such child left to wait for. */
static bool reaped(pid_t pid)
{
	return waitpid(pid, NULL, WNOHANG) == -1 && errno == ECHILD && kill(pid, 0) == -1 &&
	       errno == ESRCH;
}

Test(local_agents, two_on_loopback_listen_and_are_reaped)
{
	struct ix_local_agents la;
	struct ix_err err = { 0 };
	pid_t pid[2];
	char want[64];

	cr_assert_eq(ix_local_agents_start(&la, 2, false, &err), 0, "%s", err.msg);
	cr_assert_eq(la.n, 2);
	cr_assert_str_empty(la.rdma_host, "no RDMA agent asked for");
	for (uint32_t i = 0; i < 2; i++) {
		cr_assert_gt(la.pid[i], 0);
		cr_assert_neq(la.port[i], 0, "agent %u has a port", i);
		cr_assert_eq(kill(la.pid[i], 0), 0, "agent %u runs", i);
		cr_assert_eq(connect_loopback(la.port[i]), 0, "agent %u on port %u: %s", i,
			     la.port[i], strerror(errno));
		pid[i] = la.pid[i];
	}
	cr_assert_neq(la.port[0], la.port[1], "each agent its own port");
	snprintf(want, sizeof(want), "127.0.0.1:%u,127.0.0.1:%u", la.port[0], la.port[1]);
	cr_assert_str_eq(la.hosts, want);

	ix_local_agents_stop(&la);
	cr_assert_eq(la.n, 0);
	for (int i = 0; i < 2; i++)
		cr_assert(reaped(pid[i]), "agent %d (pid %d) stopped and waited for", i, pid[i]);
}

/* With rdma, one more agent only where a RoCE v2 GID holds an address; the
 * loopback ones come first either way. */
Test(local_agents, rdma_adds_one_only_on_a_roce_address)
{
	struct ix_local_agents la;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_local_agents_start(&la, 1, true, &err), 0, "%s", err.msg);
	cr_assert_neq(la.port[0], 0);
	if (la.rdma_host[0]) {
		char port[16];

		cr_assert_eq(la.n, 2);
		snprintf(port, sizeof(port), ":%u", la.port[1]);
		cr_assert_not_null(strstr(la.rdma_host, port), "%s", la.rdma_host);
	} else {
		cr_assert_eq(la.n, 1, "no RoCE address here: loopback only");
	}
	cr_assert_eq(connect_loopback(la.port[0]), 0, "%s", strerror(errno));
	ix_local_agents_stop(&la);
	cr_assert_eq(la.n, 0);
}

Test(local_agents, none_started_stops_cleanly)
{
	struct ix_local_agents la;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_local_agents_start(&la, 0, false, &err), 0, "%s", err.msg);
	cr_assert_eq(la.n, 0);
	cr_assert_str_empty(la.hosts);
	ix_local_agents_stop(&la);
	cr_assert_eq(la.n, 0);
}
