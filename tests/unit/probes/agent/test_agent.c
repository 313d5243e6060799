/* Unit tests for probes/agent/agent.c: the --allow-run list, and the
 * accept loop with its workers on loopback. (The agent's sessions are
 * tested live: tests/integration/agent_limits.sh, faults.sh.) */
#include "config.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/agent/agent.h"

Test(allow_run, addresses_of_both_families_and_any)
{
	struct ix_agent_config c;
	struct ix_err err = { 0 };
	char buf[INET6_ADDRSTRLEN];

	memset(&c, 0, sizeof(c));
	cr_assert_eq(ix_agent_parse_allow("198.18.0.1,fd00::7", &c, &err), 0, "%s", err.msg);
	cr_assert_eq(c.n_allow_run, 2);
	cr_assert_not(c.allow_run_any);
	cr_assert_eq(c.allow_run[0].ss_family, AF_INET);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&c.allow_run[0])->sin_addr, buf, sizeof(buf));
	cr_assert_str_eq(buf, "198.18.0.1");
	cr_assert_eq(c.allow_run[1].ss_family, AF_INET6);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&c.allow_run[1])->sin6_addr, buf, sizeof(buf));
	cr_assert_str_eq(buf, "fd00::7");
	cr_assert_eq(ix_agent_parse_allow("any", &c, &err), 0);
	cr_assert(c.allow_run_any);
	cr_assert_eq(c.n_allow_run, 0, "a new list replaces the old");
	cr_assert_eq(ix_agent_parse_allow(NULL, &c, &err), 0);
	cr_assert_not(c.allow_run_any);
}

Test(allow_run, a_name_or_garbage_is_refused_naming_it)
{
	struct ix_agent_config c;
	struct ix_err err = { 0 };

	memset(&c, 0, sizeof(c));
	cr_assert_eq(ix_agent_parse_allow("10.0.0.1,node7", &c, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "'node7' is not an IPv4 or IPv6 address"), "%s", err.msg);
	cr_assert_eq(ix_agent_parse_allow("10.0.0.1,,10.0.0.2", &c, &err), -1);
	cr_assert(strstr(err.msg, "is not an address"), "%s", err.msg);
}

Test(allow_run, the_list_is_bounded)
{
	struct ix_agent_config c;
	struct ix_err err = { 0 };
	char list[IX_AGENT_MAX_ALLOW * 16 + 32] = "";
	size_t used = 0;

	memset(&c, 0, sizeof(c));
	for (int i = 0; i <= IX_AGENT_MAX_ALLOW; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s10.0.0.%d",
					 i ? "," : "", i + 1);
	cr_assert_eq(ix_agent_parse_allow(list, &c, &err), -1);
	cr_assert(strstr(err.msg, "more than 32 addresses"), "%s", err.msg);
}

/* ---- the accept loop and its workers, on loopback ---- */

struct live_agent {
	struct ix_agent a;
	atomic_int stop;
	pthread_t th;
	int rc;
	struct ix_err err;
};

static void *run_agent(void *arg)
{
	struct live_agent *l = arg;

	l->rc = ix_agent_run(&l->a, &l->err);
	return NULL;
}

/* An agent on 127.0.0.1 that sees a bare stop flag only after a minute:
 * what ends it sooner is ix_agent_stop. */
static void live_start(struct live_agent *l)
{
	struct ix_agent_config cfg;
	struct ix_err err = { 0 };

	memset(l, 0, sizeof(*l));
	ix_agent_config_defaults(&cfg);
	cfg.bind_addr = "127.0.0.1";
	cfg.stop_check_ms = 60000;
	cr_assert_eq(ix_agent_open(&l->a, &cfg, &l->stop, &err), 0, "%s", err.msg);
	cr_assert_eq(pthread_create(&l->th, NULL, run_agent, l), 0);
}

/* Join within bound_s, else fail (the thread is left). */
static void live_join(struct live_agent *l, int bound_s)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += bound_s;
	cr_assert_eq(pthread_timedjoin_np(l->th, NULL, &until), 0,
		     "the agent did not stop within %d s", bound_s);
	cr_assert_eq(l->rc, 0, "%s", l->err.msg);
	ix_agent_close(&l->a);
}

/* A connection that says nothing useful and is refused, served to its end. */
static void one_connection(struct live_agent *l)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(ix_agent_port(&l->a)) };
	char buf[256];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(write(fd, "not a frame header", 18), 18);
	/* the agent answers ERROR and closes: read to the end */
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/* Until the agent has n idle workers (10 s at most). */
static void wait_idle(struct live_agent *l, uint32_t n)
{
	for (int i = 0; i < 1000; i++) {
		uint32_t idle;

		pthread_mutex_lock(&l->a.lock);
		idle = l->a.idle_workers;
		pthread_mutex_unlock(&l->a.lock);
		if (idle == n)
			return;
		usleep(10000);
	}
	cr_assert_fail("never %u idle worker(s)", n);
}

Test(accept_loop, ix_agent_stop_ends_it_at_once)
{
	struct live_agent l;

	live_start(&l);
	ix_agent_stop(&l.a);
	live_join(&l, 10); /* a bare flag would take 60 s */
}

Test(accept_loop, a_worker_serves_the_next_connection)
{
	struct live_agent l;
	uint32_t workers;

	live_start(&l);
	one_connection(&l);
	wait_idle(&l, 1);
	one_connection(&l);
	wait_idle(&l, 1);
	pthread_mutex_lock(&l.a.lock);
	workers = l.a.workers;
	pthread_mutex_unlock(&l.a.lock);
	cr_assert_eq(workers, 1, "one thread served both connections (%u)", workers);
	ix_agent_stop(&l.a);
	live_join(&l, 10);
	cr_assert_eq(l.a.workers, 0, "the idle worker ended with the agent");
}

/* What the metrics listener reads: the counters as they stand, at once. */
Test(agent, stats_read_copies_the_counters)
{
	struct ix_agent a;
	struct ix_agent_stats st;

	memset(&a, 0, sizeof(a));
	pthread_mutex_init(&a.lock, NULL);
	a.tests_run = 5;
	a.refused_by[IX_AGENT_REFUSE_CONNECTIONS] = 2;
	a.active_tests = 1;
	a.active_conns = 3;
	a.mem_in_use = 4096;
	a.cfg.max_mem = 1 << 20;
	ix_agent_stats_read(&a, &st);
	cr_assert_eq(st.tests_served, 5);
	cr_assert_eq(st.refused[IX_AGENT_REFUSE_CONNECTIONS], 2);
	cr_assert_eq(st.refused[IX_AGENT_REFUSE_TESTS], 0);
	cr_assert_eq(st.tests_running, 1);
	cr_assert_eq(st.connections, 3);
	cr_assert_eq(st.mem_held, 4096);
	cr_assert_eq(st.mem_limit, 1 << 20);
	pthread_mutex_destroy(&a.lock);
}
