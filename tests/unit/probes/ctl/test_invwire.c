/* Unit tests for probes/ctl/invwire.c: the inventory request as the agent
 * accepts or refuses it, and the reply round trip with what a hostile
 * agent may send instead. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "probes/ctl/invwire.h"
#include "probes/net/proto.h"

Test(invwire, the_request_it_sends_is_accepted)
{
	struct ix_err err = { 0 };
	json_t *req = ix_inv_request();

	cr_assert_eq(ix_inv_request_parse(req, &err), 0, "%s", err.msg);
	json_decref(req);
	req = json_object();
	cr_expect_eq(ix_inv_request_parse(req, &err), 0, "an empty request: %s", err.msg);
	json_decref(req);
}

Test(invwire, requests_that_name_anything_are_refused)
{
	static const char *const bad[] = {
		"{\"version\": 2}",
		"{\"version\": \"1\"}",
		"{\"version\": 1, \"path\": \"/etc/shadow\"}",
		"{\"root\": \"/\"}",
	};
	struct ix_err err = { 0 };
	json_t *j;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = json_loads(bad[i], 0, NULL);
		cr_assert_not_null(j);
		err.msg[0] = '\0';
		cr_expect_eq(ix_inv_request_parse(j, &err), -1, "%s", bad[i]);
		cr_expect_eq(strncmp(err.msg, "inventory request: ", 19), 0, "%s", err.msg);
		json_decref(j);
	}
	j = json_array();
	cr_expect_eq(ix_inv_request_parse(j, &err), -1);
	json_decref(j);
	/* Refused for its size before anything in it is looked at. */
	char pad[IX_INV_REQUEST_MAX + 1];

	memset(pad, 'x', IX_INV_REQUEST_MAX);
	pad[IX_INV_REQUEST_MAX] = '\0';
	j = json_pack("{s:i,s:s}", "version", 1, "pad", pad);
	cr_assert_not_null(j);
	cr_expect_eq(ix_inv_request_parse(j, &err), -1);
	cr_expect_neq(strstr(err.msg, "byte limit"), NULL, "%s", err.msg);
	json_decref(j);
}

static void sample(struct ix_node_inv *inv)
{
	memset(inv, 0, sizeof(*inv));
	snprintf(inv->hostname, sizeof(inv->hostname), "node07");
	snprintf(inv->kernel, sizeof(inv->kernel), "6.1.0-18-amd64");
	snprintf(inv->verbs, sizeof(inv->verbs), "libibverbs.so.1.14.44.0");
	inv->nnics = 2;
	snprintf(inv->nics[0].name, sizeof(inv->nics[0].name), "ibp1s0");
	snprintf(inv->nics[0].rdma, sizeof(inv->nics[0].rdma), "mlx5_0");
	snprintf(inv->nics[0].bdf, sizeof(inv->nics[0].bdf), "0000:01:00.0");
	snprintf(inv->nics[0].model, sizeof(inv->nics[0].model), "MT4129");
	snprintf(inv->nics[0].fw, sizeof(inv->nics[0].fw), "28.39.1002");
	snprintf(inv->nics[0].driver, sizeof(inv->nics[0].driver), "mlx5_core");
	inv->nics[0].mtu_known = true;
	inv->nics[0].mtu = 4092;
	inv->nics[0].numa_node = 1;
	inv->nics[0].pcie = (struct ix_inv_pcie){ true, 4, 8, 5, 16, true };
	snprintf(inv->nics[1].name, sizeof(inv->nics[1].name), "eth0");
	inv->nics[1].numa_node = -1;
	inv->ngpus = 1;
	snprintf(inv->gpus[0].bdf, sizeof(inv->gpus[0].bdf), "0000:03:00.0");
	snprintf(inv->gpus[0].model, sizeof(inv->gpus[0].model), "NVIDIA H100");
	inv->gpus[0].numa_node = 0;
	inv->nfindings = 1;
	inv->findings_total = 3;
	snprintf(inv->findings[0].kind, sizeof(inv->findings[0].kind), "pcie_downtrained");
	snprintf(inv->findings[0].device, sizeof(inv->findings[0].device), "0000:01:00.0");
	snprintf(inv->findings[0].message, sizeof(inv->findings[0].message), "trained low.");
	inv->truncated = true;
	inv->naddrs = 2;
	snprintf(inv->addrs[0].iface, sizeof(inv->addrs[0].iface), "ibp1s0");
	inv->addrs[0].family = AF_INET;
	snprintf(inv->addrs[0].addr, sizeof(inv->addrs[0].addr), "10.1.0.7");
	inv->addrs[0].prefix = 24;
	snprintf(inv->addrs[0].rdma, sizeof(inv->addrs[0].rdma), "mlx5_0");
	snprintf(inv->addrs[0].leaf, sizeof(inv->addrs[0].leaf), "leaf-r1-a");
	snprintf(inv->addrs[1].iface, sizeof(inv->addrs[1].iface), "eth0");
	inv->addrs[1].family = AF_INET6;
	snprintf(inv->addrs[1].addr, sizeof(inv->addrs[1].addr), "fd00:1::7");
	inv->addrs[1].prefix = 128;
}

Test(invwire, reply_round_trip)
{
	struct ix_node_inv a, b;
	struct ix_err err = { 0 };
	json_t *j;

	sample(&a);
	j = ix_inv_reply(&a);
	cr_assert_not_null(j);
	cr_assert_eq(ix_inv_reply_parse(j, &b, &err), 0, "%s", err.msg);
	json_decref(j);
	cr_expect_eq(memcmp(&a, &b, sizeof(a)), 0, "the reply decodes into what was sent");
	cr_expect(b.nics[0].pcie.downtrained);
	cr_expect_not(b.nics[1].mtu_known);
	cr_expect_eq(b.nics[1].numa_node, -1);
	cr_expect_eq(b.naddrs, 2);
	cr_expect_eq(b.addrs[1].family, AF_INET6);
	cr_expect_str_eq(b.addrs[0].leaf, "leaf-r1-a");
}

Test(invwire, addrs_on_the_wire)
{
	struct ix_node_inv inv, out;
	struct ix_err err = { 0 };
	json_t *j, *a;

	sample(&inv);
	j = ix_inv_reply(&inv);
	a = json_array_get(json_object_get(j, "addrs"), 1);
	cr_expect_str_eq(json_string_value(json_object_get(a, "family")), "inet6");
	cr_expect_str_eq(json_string_value(json_object_get(a, "addr")), "fd00:1::7");
	cr_expect_eq(json_integer_value(json_object_get(a, "prefix")), 128);
	cr_expect_str_eq(json_string_value(json_object_get(a, "rdma")), "");
	/* An agent from before the addresses answers without them. */
	json_object_del(j, "addrs");
	cr_expect_eq(ix_inv_reply_parse(j, &out, &err), 0, "%s", err.msg);
	cr_expect_eq(out.naddrs, 0);
	json_decref(j);
}

/* The sample's reply with one member replaced (JSON text). */
static void expect_refused(const char *pointer_key, const char *value, const char *want)
{
	struct ix_node_inv inv, out;
	struct ix_err err = { 0 };
	json_t *j, *v = json_loads(value, JSON_DECODE_ANY, NULL);

	cr_assert_not_null(v, "%s", value);
	sample(&inv);
	j = ix_inv_reply(&inv);
	if (strncmp(pointer_key, "nics.", 5) == 0)
		json_object_set_new(json_array_get(json_object_get(j, "nics"), 0), pointer_key + 5,
				    v);
	else if (strncmp(pointer_key, "addrs.", 6) == 0)
		json_object_set_new(json_array_get(json_object_get(j, "addrs"), 0), pointer_key + 6,
				    v);
	else
		json_object_set_new(j, pointer_key, v);
	cr_expect_eq(ix_inv_reply_parse(j, &out, &err), -1, "%s = %s", pointer_key, value);
	cr_expect_neq(strstr(err.msg, want), NULL, "%s: '%s' lacks '%s'", pointer_key, err.msg,
		      want);
	json_decref(j);
}

Test(invwire, hostile_replies_are_refused)
{
	char longs[256], many[4096];
	size_t used = 0;

	memset(longs, 'a', sizeof(longs) - 3);
	longs[0] = '"';
	longs[sizeof(longs) - 3] = '"';
	longs[sizeof(longs) - 2] = '\0';
	expect_refused("kernel", longs, "kernel is longer than");
	expect_refused("kernel", "\"6.1\\u001b[2J\"", "control character");
	expect_refused("kernel", "7", "kernel is not a string");
	expect_refused("nics", "{}", "nics is not an array");
	used += (size_t)snprintf(many, sizeof(many), "[");
	for (int i = 0; i <= IX_INV_MAX_NICS; i++)
		used += (size_t)snprintf(many + used, sizeof(many) - used, "%s{}", i ? "," : "");
	snprintf(many + used, sizeof(many) - used, "]");
	expect_refused("nics", many, "more than");
	expect_refused("nics.mtu", "-1", "nics[0].mtu is not an integer");
	expect_refused("nics.pcie", "{\"gen\": 99, \"width\": 8}", "nics[0].gen");
	expect_refused("nics.name", "\"\"", "nics[0].name is empty");
	expect_refused("findings_total", "0", "findings_total");
	expect_refused("truncated", "null", "truncated is not a boolean");
	expect_refused("addrs", "{}", "addrs is not an array");
	expect_refused("addrs.family", "\"ipx\"", "addrs[0].family is neither inet nor inet6");
	expect_refused("addrs.family", "\"inet6\"", "addrs[0].addr is not an inet6 address");
	expect_refused("addrs.addr", "\"10.1.0.300\"", "addrs[0].addr is not an inet address");
	expect_refused("addrs.addr", "\"fd00::7\"", "addrs[0].addr is not an inet address");
	expect_refused("addrs.prefix", "33", "addrs[0].prefix is not an integer from 0 to 32");
	expect_refused("addrs.prefix", "-1", "addrs[0].prefix");
	expect_refused("addrs.iface", "\"\"", "addrs[0].iface is empty");
	expect_refused("addrs.leaf", "\"a\\u0007b\"", "addrs[0].leaf holds a control character");
	used = (size_t)snprintf(many, sizeof(many), "[");
	for (int i = 0; i <= IX_IFADDR_MAX; i++)
		used += (size_t)snprintf(many + used, sizeof(many) - used, "%s{}", i ? "," : "");
	snprintf(many + used, sizeof(many) - used, "]");
	expect_refused("addrs", many, "more than 32 addrs");
}

Test(invwire, an_inet6_prefix_runs_to_128)
{
	struct ix_node_inv inv, out;
	struct ix_err err = { 0 };
	json_t *j;

	sample(&inv);
	j = ix_inv_reply(&inv);
	json_object_set_new(json_array_get(json_object_get(j, "addrs"), 1), "prefix",
			    json_integer(129));
	cr_expect_eq(ix_inv_reply_parse(j, &out, &err), -1);
	cr_expect_neq(strstr(err.msg, "addrs[1].prefix is not an integer from 0 to 128"), NULL,
		      "%s", err.msg);
	json_decref(j);
}

/* An inventory full to every limit, its strings as long as they may be,
 * still fits one control frame. */
Test(invwire, a_full_reply_fits_a_frame)
{
	struct ix_node_inv *inv = calloc(1, sizeof(*inv));
	json_t *j;
	size_t size;

	cr_assert_not_null(inv);
#define FILL(s) memset((s), 'x', sizeof(s) - 1)
	FILL(inv->hostname), FILL(inv->kernel), FILL(inv->verbs), FILL(inv->gpu_driver);
	inv->nnics = IX_INV_MAX_NICS;
	for (uint32_t i = 0; i < inv->nnics; i++) {
		FILL(inv->nics[i].name), FILL(inv->nics[i].rdma), FILL(inv->nics[i].bdf);
		FILL(inv->nics[i].model), FILL(inv->nics[i].fw), FILL(inv->nics[i].driver);
		FILL(inv->nics[i].driver_version);
	}
	inv->ngpus = IX_INV_MAX_GPUS;
	for (uint32_t i = 0; i < inv->ngpus; i++) {
		FILL(inv->gpus[i].bdf), FILL(inv->gpus[i].model), FILL(inv->gpus[i].driver);
	}
	inv->nfindings = inv->findings_total = IX_INV_MAX_FINDINGS;
	for (uint32_t i = 0; i < inv->nfindings; i++) {
		FILL(inv->findings[i].kind), FILL(inv->findings[i].device);
		FILL(inv->findings[i].message);
	}
	inv->naddrs = IX_IFADDR_MAX;
	for (uint32_t i = 0; i < inv->naddrs; i++) {
		inv->addrs[i].family = AF_INET6;
		snprintf(inv->addrs[i].addr, sizeof(inv->addrs[i].addr),
			 "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255");
		inv->addrs[i].prefix = 128;
		FILL(inv->addrs[i].iface), FILL(inv->addrs[i].rdma), FILL(inv->addrs[i].leaf);
	}
#undef FILL
	j = ix_inv_reply(inv);
	cr_assert_not_null(j);
	size = json_dumpb(j, NULL, 0, JSON_COMPACT);
	cr_log_info("a full inventory reply: %zu bytes", size);
	cr_expect_leq(size, IX_FRAME_MAX, "%zu bytes", size);
	json_decref(j);
	free(inv);
}
