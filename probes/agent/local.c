/* Agents on this machine, each a child process (see local.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probes/agent/agent.h"
#include "probes/agent/local.h"
#include "probes/core/clock.h"
#include "probes/gpu/gpu.h"
#include "probes/rdma/setup.h"
#include "probes/rdma/verbs.h"

static atomic_int child_stop;
static struct ix_agent *child_agent; /* once open, for the handler */

static void on_term(int sig)
{
	(void)sig;
	if (child_agent)
		ix_agent_stop(child_agent);
	else
		atomic_store(&child_stop, 1);
}

/* The child: an agent on bind with the run's token and the limits of
 * 'ixperf server' by default; its port goes up the pipe. */
static void agent_child(int wfd, const char *bind, const struct ix_token *token)
{
	struct ix_agent_config cfg;
	struct ix_agent a;
	struct ix_err err = { 0 };
	struct sigaction sa = { .sa_handler = on_term };
	uint16_t port = 0;

	ix_agent_config_defaults(&cfg); /* RDMA buffers in host memory among them */
	cfg.bind_addr = bind;
	cfg.token = token;
	cfg.idle_s = 3600;  /* a check's session waits through the others */
	cfg.max_tests = 64; /* an incast over every local agent at once */
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	if (ix_agent_open(&a, &cfg, &child_stop, &err) == 0) {
		port = ix_agent_port(&a);
		child_agent = &a;
	}
	if (write(wfd, &port, sizeof(port)) != (ssize_t)sizeof(port) || !port)
		_exit(1);
	close(wfd);
	ix_agent_run(&a, &err);
	_exit(0);
}

void ix_local_agents_stop(struct ix_local_agents *la)
{
	for (uint32_t i = 0; i < la->n; i++)
		kill(la->pid[i], SIGTERM);
	for (uint32_t i = 0; i < la->n; i++) {
		int64_t deadline = ix_now_ns() + 6 * IX_NSEC_PER_SEC;
		while (waitpid(la->pid[i], NULL, WNOHANG) == 0) {
			if (ix_now_ns() > deadline) {
				kill(la->pid[i], SIGKILL);
				waitpid(la->pid[i], NULL, 0);
				break;
			}
			usleep(20000);
		}
	}
	la->n = 0;
}

/* One more agent, on bind; its port into la->port. */
static int start_agent(struct ix_local_agents *la, const char *bind, struct ix_err *err)
{
	uint32_t i = la->n;
	struct pollfd pfd;
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return ix_fail(err, IX_EXIT_FAIL, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		agent_child(fds[1], bind, &la->token);
	}
	close(fds[1]);
	la->pid[la->n++] = pid;
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	if (poll(&pfd, 1, 5000) <= 0 ||
	    read(fds[0], &la->port[i], sizeof(la->port[i])) != sizeof(la->port[i]) ||
	    !la->port[i]) {
		close(fds[0]);
		return ix_fail(err, IX_EXIT_FAIL, "a local agent did not start");
	}
	close(fds[0]);
	return 0;
}

/* An IPv4 address of this machine that a RoCE v2 GID of an ACTIVE port
 * holds (the GID is the address, IPv4-mapped), into buf; "" when none
 * (no device, InfiniBand, no address). */
static void rdma_local_addr(char *buf, size_t len)
{
	struct ix_verbs_port ports[8];
	struct ix_rdma_gid_pref pref = { .type = "v2", .family = AF_INET };
	struct ix_err err = { 0 };
	size_t n = 0;

	buf[0] = '\0';
	if (ix_verbs_ports(ports, 8, &n, &err) < 0)
		return;
	for (size_t i = 0; i < n && !buf[0]; i++) {
		struct ix_rdma_gid g;

		if (ports[i].active && ports[i].ethernet &&
		    ix_rdma_pick_gid(NULL, ports[i].dev, ports[i].port, NULL, NULL, 0, &pref, &g,
				     &err) == 0 &&
		    !inet_ntop(AF_INET, g.raw + 12, buf, (socklen_t)len))
			buf[0] = '\0';
	}
}

/* n agents on loopback, and with rdma one on an address a RoCE GID holds
 * (when this machine has one). */
int ix_local_agents_start(struct ix_local_agents *la, uint32_t n, bool rdma, struct ix_err *err)
{
	char addr[INET_ADDRSTRLEN];

	memset(la, 0, sizeof(*la));
	la->token.len = 32;
	if (getrandom(la->token.key, la->token.len, 0) != (ssize_t)la->token.len)
		return ix_fail(err, IX_EXIT_FAIL, "no random bytes for the agents' token: %s",
			       strerror(errno));
	la->token.set = true;
	for (uint32_t i = 0; i < n; i++) {
		if (start_agent(la, "127.0.0.1", err) < 0)
			return -1;
		snprintf(la->hosts + strlen(la->hosts), sizeof(la->hosts) - strlen(la->hosts),
			 "%s127.0.0.1:%u", i ? "," : "", la->port[i]);
	}
	if (rdma)
		rdma_local_addr(addr, sizeof(addr));
	if (rdma && addr[0]) {
		if (start_agent(la, addr, err) < 0)
			return -1;
		snprintf(la->rdma_host, sizeof(la->rdma_host), "%s:%u", addr, la->port[la->n - 1]);
	}
	return 0;
}

bool ix_local_has(bool rdma, bool gpu, const char *backend, const char *lib, char *why, size_t len)
{
	struct ix_err err = { 0 };

	if (rdma) {
		char devs[1][64];
		size_t n = 0;

		if (ix_verbs_devices(devs, 1, &n, &err) < 0 || !n) {
			snprintf(why, len, "requires rdma: %.400s",
				 err.msg[0] ? err.msg : "no RDMA device on this machine");
			return false;
		}
	}
	if (gpu) {
		struct ix_gpu_ctx *g = calloc(1, sizeof(*g));
		bool ok = g && ix_gpu_open(g, backend, lib, &err) == 0;

		if (ok)
			ix_gpu_close(g);
		free(g);
		if (!ok) {
			snprintf(why, len, "requires gpu: %.400s",
				 err.msg[0] ? err.msg : "no memory");
			return false;
		}
	}
	return true;
}
