/* Unit tests for probes/agent/inventory.c: an INVENTORY answered over a
 * socket pair from the agent's --sysfs root with this namespace's
 * addresses, a request that names something refused, and the cap on
 * inventories read at once; and IFSTATS, the interfaces with their counters. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/agent/session.h"
#include "probes/core/clock.h"
#include "probes/ctl/ifwire.h"
#include "probes/ctl/invwire.h"
#include "probes/host/ifaddr.h"
#include "probes/net/proto.h"
#include "tests/unit/common.h"

static char root[64];
static struct ix_agent agent;
static int fds[2];

/* An agent whose --sysfs root holds a kernel release and nothing else. */
static void setup(void)
{
	char dir[128];

	snprintf(root, sizeof(root), "/tmp/ixperf-agentinv.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/proc/sys/kernel", root);
	ix_test_mkdirs(dir);
	ix_test_put(dir, "osrelease", "6.1.0-agent");
	memset(&agent, 0, sizeof(agent));
	pthread_mutex_init(&agent.lock, NULL);
	agent.cfg.sysfs = root;
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
}

static void teardown(void)
{
	char cmd[128];

	close(fds[0]);
	close(fds[1]);
	pthread_mutex_destroy(&agent.lock);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_expect_eq(system(cmd), 0);
}

Test(agent_inventory, answers_from_its_root, .init = setup, .fini = teardown)
{
	struct ix_node_inv inv;
	struct ix_err err = { 0 };
	json_t *req = ix_inv_request(), *body;
	uint16_t type;

	cr_assert_eq(ix_agent_serve_inventory(&agent, fds[0], req, &err), 0, "%s", err.msg);
	json_decref(req);
	cr_assert_eq(ix_frame_recv(fds[1], &type, &body, ix_now_ns() + IX_NSEC_PER_SEC, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(type, IX_MSG_INVENTORY_REPLY);
	cr_assert_eq(ix_inv_reply_parse(body, &inv, &err), 0, "%s", err.msg);
	cr_expect_str_eq(inv.kernel, "6.1.0-agent");
	cr_expect_eq(inv.nnics, 0, "a root without a PCI bus has no NICs");
	/* The addresses are the live ones of this network namespace. */
	struct ix_ifaddr live[IX_IFADDR_MAX];

	cr_expect_eq(inv.naddrs, ix_ifaddr_list("", live, IX_IFADDR_MAX));
	for (uint32_t i = 0; i < inv.naddrs; i++)
		cr_expect_str_eq(inv.addrs[i].addr, live[i].addr);
	cr_expect_eq(agent.inventories, 0, "its claim is released");
	json_decref(body);
}

Test(agent_inventory, a_request_naming_a_path_is_refused, .init = setup, .fini = teardown)
{
	struct ix_err err = { 0 };
	json_t *req = json_pack("{s:i,s:s}", "version", 1, "root", "/");

	cr_expect_eq(ix_agent_serve_inventory(&agent, fds[0], req, &err), -1);
	cr_expect_not_null(strstr(err.msg, "unexpected member 'root'"), "%s", err.msg);
	cr_expect_eq(agent.inventories, 0);
	json_decref(req);
}

Test(agent_inventory, too_many_at_once_are_refused, .init = setup, .fini = teardown)
{
	struct ix_err err = { 0 };
	json_t *req = ix_inv_request();

	agent.inventories = 2;
	cr_expect_eq(ix_agent_serve_inventory(&agent, fds[0], req, &err), -1);
	cr_expect_not_null(strstr(err.msg, "being read already"), "%s", err.msg);
	cr_expect_eq(agent.inventories, 2, "the others' claims are left as they were");
	json_decref(req);
}

/* IFSTATS: every interface of this namespace but loopback, as the live
 * read has them; a socket pair is no interface, so none is marked. */
Test(agent_ifstats, answers_with_this_namespace_s_interfaces, .init = setup, .fini = teardown)
{
	static struct ix_ifstat got[IX_IFSTAT_MAX], live[IX_IFSTAT_MAX];
	struct ix_err err = { 0 };
	json_t *req = ix_ifstats_request(), *body;
	uint32_t n, nlive;
	bool trunc;
	uint16_t type;

	cr_assert_eq(ix_agent_serve_ifstats(&agent, fds[0], req, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_frame_recv(fds[1], &type, &body, ix_now_ns() + IX_NSEC_PER_SEC, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(type, IX_MSG_IFSTATS_REPLY);
	cr_assert_eq(ix_ifstats_reply_parse(body, got, &n, &trunc, &err), 0, "%s", err.msg);
	nlive = ix_ifstats_read(live, IX_IFSTAT_MAX, NULL, &trunc);
	cr_expect_eq(n, nlive);
	for (uint32_t i = 0; i < n; i++) {
		cr_expect_str_eq(got[i].name, live[i].name);
		cr_expect_not(got[i].control);
	}
	json_decref(body);
	/* A request that asks for more is refused. */
	json_object_set_new(req, "iface", json_string("eth0"));
	cr_expect_eq(ix_agent_serve_ifstats(&agent, fds[0], req, &err), -1);
	json_decref(req);
}
