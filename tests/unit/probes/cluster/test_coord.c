/* Unit tests for probes/cluster/coord.c: connecting to every address of a
 * host, and again to an agent still starting. The resolver is this program's own: "multi.test" resolves to two
 * addresses on loopback, the first refusing connections, so the test does
 * not depend on the machine's /etc/hosts. */
#include "config.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/cluster/coord.h"
#include "probes/core/clock.h"

#define NADDRS 3

static uint16_t port_of[NADDRS]; /* the ports "multi.test" resolves to, 0: unused */

struct fake_ai {
	struct addrinfo ai;
	struct sockaddr_in sin;
};

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		struct addrinfo **res)
{
	struct addrinfo *head = NULL, **tail = &head;

	(void)service;
	(void)hints;
	if (!node || strcmp(node, "multi.test") != 0)
		return EAI_NONAME;
	for (int i = 0; i < NADDRS; i++) {
		struct fake_ai *f;

		if (!port_of[i])
			continue;
		f = calloc(1, sizeof(*f));
		cr_assert_not_null(f);
		f->sin.sin_family = AF_INET;
		f->sin.sin_port = htons(port_of[i]);
		f->sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		f->ai.ai_family = AF_INET;
		f->ai.ai_socktype = SOCK_STREAM;
		f->ai.ai_protocol = IPPROTO_TCP;
		f->ai.ai_addr = (struct sockaddr *)&f->sin;
		f->ai.ai_addrlen = sizeof(f->sin);
		*tail = &f->ai;
		tail = &f->ai.ai_next;
	}
	*res = head;
	return head ? 0 : EAI_NONAME;
}

void freeaddrinfo(struct addrinfo *ai)
{
	while (ai) {
		struct addrinfo *next = ai->ai_next;
		free(ai); /* the first member of struct fake_ai */
		ai = next;
	}
}

/* A socket bound on loopback; listening or not (then it refuses). */
static int bound(bool listening, uint16_t *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	cr_assert_geq(fd, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	if (listening)
		cr_assert_eq(listen(fd, 4), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

/* An agent that takes the HELLO and refuses with a message of its own. */
static void *agent_says_no(void *arg)
{
	struct pollfd pfd = { .fd = *(int *)arg, .events = POLLIN };
	struct ix_err err = { 0 };
	uint16_t type;
	json_t *body;
	int fd;

	if (poll(&pfd, 1, 5000) != 1 || (fd = accept(pfd.fd, NULL, NULL)) < 0)
		return NULL; /* nobody came */
	if (ix_frame_recv(fd, &type, &body, ix_now_ns() + 5 * IX_NSEC_PER_SEC, &err) == 0)
		json_decref(body);
	ix_frame_send_error(fd, "test agent says no");
	close(fd);
	return NULL;
}

static void open_one(const char *name, uint16_t port, struct ix_coord *co)
{
	struct ix_host h = { .port = port };
	struct ix_hostlist hl = { .v = &h, .n = 1, .cap = 1 };
	struct ix_err err = { 0 };

	snprintf(h.name, sizeof(h.name), "%s", name);
	cr_assert_eq(ix_coord_open(co, &hl, NULL, 5, &err), 0, "no peer is ready");
}

Test(coord, every_address_is_tried_until_one_connects)
{
	uint16_t refusing, listening;
	int rfd = bound(false, &refusing), lfd = bound(true, &listening);
	struct ix_coord co;
	pthread_t t;

	port_of[0] = refusing;
	port_of[1] = refusing;
	port_of[2] = listening;
	cr_assert_eq(pthread_create(&t, NULL, agent_says_no, &lfd), 0);
	open_one("multi.test", listening, &co);
	pthread_join(t, NULL);
	/* The third address answered: the refusal is the agent's own. */
	cr_expect(strstr(co.peers[0].error, "refused: test agent says no"), "%s",
		  co.peers[0].error);
	cr_expect_null(co.peers[0].addrs);
	ix_coord_close(&co);
	close(rfd);
	close(lfd);
}

Test(coord, a_host_none_of_whose_addresses_connects_names_the_last_failure)
{
	uint16_t refusing;
	int rfd = bound(false, &refusing);
	struct ix_coord co;
	char want[64];

	port_of[0] = refusing;
	port_of[1] = refusing;
	port_of[2] = 0;
	open_one("multi.test", 6001, &co);
	snprintf(want, sizeof(want), "cannot connect to multi.test port 6001: ");
	cr_expect(strstr(co.peers[0].error, want), "%s", co.peers[0].error);
	cr_expect(strstr(co.peers[0].error, "refused"), "%s", co.peers[0].error);
	ix_coord_close(&co);
	close(rfd);
}

Test(coord, a_name_that_does_not_resolve_is_named)
{
	struct ix_coord co;

	open_one("nowhere.test", 6001, &co);
	cr_expect(strstr(co.peers[0].error, "cannot resolve 'nowhere.test'"), "%s",
		  co.peers[0].error);
	ix_coord_close(&co);
}

/* The agent's socket starts refusing and listens after a while: a task
 * still starting. */
static void *agent_listens_late(void *arg)
{
	int fd = *(int *)arg;

	usleep(300 * 1000);
	cr_assert_eq(listen(fd, 4), 0);
	return agent_says_no(arg);
}

Test(coord, a_starting_agent_is_tried_again_until_it_listens)
{
	uint16_t port;
	int fd = bound(false, &port);
	struct ix_host h = { .port = port };
	struct ix_hostlist hl = { .v = &h, .n = 1, .cap = 1 };
	struct ix_err err = { 0 };
	struct ix_coord co;
	int64_t t0 = ix_now_ns();
	pthread_t t;

	port_of[0] = port;
	port_of[1] = port_of[2] = 0;
	snprintf(h.name, sizeof(h.name), "multi.test");
	cr_assert_eq(pthread_create(&t, NULL, agent_listens_late, &fd), 0);
	cr_assert_eq(ix_coord_open_patient(&co, &hl, NULL, 5, 3, &err), 0);
	pthread_join(t, NULL);
	/* Refused at first, retried every 100 ms: the agent's own answer. */
	cr_expect(strstr(co.peers[0].error, "refused: test agent says no"), "%s",
		  co.peers[0].error);
	cr_expect_geq(ix_now_ns() - t0, 300 * 1000000LL);
	ix_coord_close(&co);
	close(fd);
}
