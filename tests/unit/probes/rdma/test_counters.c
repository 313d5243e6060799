/* Unit tests for probes/rdma/counters.c: hw_counters read from a sysfs
 * tree, deltas (a reset left out), the meanings, and the peer's counters
 * parsed with every malformed form refused. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/rdma/counters.h"
#include "tests/unit/common.h"

static char root[64];
static char dir[256];

static void tree(void)
{
	snprintf(root, sizeof(root), "/tmp/ixperf-counters.XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/sys/class/infiniband/rxe0/ports/1/hw_counters", root);
	ix_test_mkdirs(dir);
}

static void untree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_expect_eq(system(cmd), 0);
}

static uint64_t value(const struct ix_rdma_counters *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].name, name) == 0)
			return c->v[i].value;
	cr_assert_fail("no counter %s", name);
	return 0;
}

Test(counters, read_and_delta, .init = tree, .fini = untree)
{
	struct ix_rdma_counters a, b, d;

	ix_test_put(dir, "rcvd_rnr_err", "3");
	ix_test_put(dir, "sent_pkts", "1000");
	ix_test_put(dir, "lifespan", "12");
	ix_test_put(dir, "garbage", "12x");
	ix_test_put(dir, "Bad-Name", "1");
	ix_rdma_counters_read(root, "rxe0", 1, &a);
	cr_assert(a.valid);
	cr_assert_eq(a.n, 3, "numbers with good names only: %zu", a.n);
	cr_assert_str_eq(a.v[0].name, "lifespan", "sorted by name");
	ix_test_put(dir, "rcvd_rnr_err", "194");
	ix_test_put(dir, "sent_pkts", "31444");
	ix_test_put(dir, "lifespan", "0"); /* went down: a reset, left out */
	ix_rdma_counters_read(root, "rxe0", 1, &b);
	ix_rdma_counters_delta(&a, &b, &d);
	cr_assert(d.valid);
	cr_assert_eq(d.n, 2);
	cr_assert_eq(value(&d, "rcvd_rnr_err"), 191);
	cr_assert_eq(value(&d, "sent_pkts"), 30444);
}

Test(counters, a_port_without_counters, .init = tree, .fini = untree)
{
	struct ix_rdma_counters a, d;

	ix_rdma_counters_read(root, "mlx5_9", 1, &a);
	cr_assert(!a.valid);
	ix_rdma_counters_delta(&a, &a, &d);
	cr_assert(!d.valid);
	cr_assert(json_is_null(ix_rdma_counters_json(&d)));
}

Test(counters, meanings)
{
	cr_assert_not_null(ix_rdma_counter_meaning("rcvd_rnr_err"));
	cr_assert_not_null(ix_rdma_counter_meaning("completer_retry_err"));
	cr_assert_not_null(ix_rdma_counter_meaning("local_ack_timeout_err"));
	cr_assert_not_null(ix_rdma_counter_meaning("out_of_buffer"));
	cr_assert_null(ix_rdma_counter_meaning("sent_pkts"), "traffic is not trouble");
}

Test(counters, json_round_trip)
{
	struct ix_rdma_counters c = { .valid = true, .n = 2 }, back;
	struct ix_err err = { 0 };
	json_t *j;

	snprintf(c.v[0].name, sizeof(c.v[0].name), "rcvd_seq_err");
	c.v[0].value = 7;
	snprintf(c.v[1].name, sizeof(c.v[1].name), "sent_pkts");
	c.v[1].value = (uint64_t)1 << 40;
	j = ix_test_json_roundtrip(ix_rdma_counters_json(&c));
	cr_assert_eq(ix_rdma_counters_parse(j, &back, &err), 0, "%s", err.msg);
	cr_assert(back.valid);
	cr_assert_eq(back.n, 2);
	cr_assert_eq(value(&back, "sent_pkts"), (uint64_t)1 << 40);
	json_decref(j);
	cr_assert_eq(ix_rdma_counters_parse(json_null(), &back, &err), 0);
	cr_assert(!back.valid, "null: the agent's port has none");
}

static void refused(const char *text, const char *part)
{
	struct ix_rdma_counters c;
	struct ix_err err = { 0 };
	json_error_t jerr;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);

	cr_assert_not_null(j, "%s", text);
	cr_assert_eq(ix_rdma_counters_parse(j, &c, &err), -1, "%s accepted", text);
	cr_assert_not_null(strstr(err.msg, part), "%s: %s", text, err.msg);
	json_decref(j);
}

Test(counters, hostile_peers_are_refused)
{
	char big[8192];
	size_t o = 0;

	refused("[1]", "not an object");
	refused("{\"x\": -1}", "non-negative");
	refused("{\"x\": 1.5}", "non-negative");
	refused("{\"x\": \"1\"}", "non-negative");
	refused("{\"\\u001b[31m\": 1}", "name");
	refused("{\"a/../b\": 1}", "name");
	o += (size_t)snprintf(big + o, sizeof(big) - o, "{");
	for (int i = 0; i <= IX_RDMA_MAX_COUNTERS; i++)
		o += (size_t)snprintf(big + o, sizeof(big) - o, "%s\"c%d\": 1", i ? "," : "", i);
	snprintf(big + o, sizeof(big) - o, "}");
	refused(big, "more than");
}
