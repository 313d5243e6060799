/* Unit tests for probes/rdma/setup_msg.c: test parameters derived from
 * one side's options and checked against a device, the queues' and
 * buffers' charge, and the setup message against hostile input. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/rdma/setup.h"
#include "tests/unit/common.h"

#define ZERO_GID "0000:0000:0000:0000:0000:0000:0000:0000"
#define V4(x)    "0000:0000:0000:0000:0000:ffff:" x

/* A ConnectX-like device. */
static const struct ix_rdma_caps cx = {
	.max_qp_wr = 32768,
	.max_sge = 30,
	.max_inline_data = 512,
	.max_qp = 262144,
	.max_qp_rd_atom = 16,
	.max_mr_size = 1ull << 40,
	.max_msg_size = 1ull << 30,
};

static struct ix_rdma_params checked(enum ix_rdma_kind kind, enum ix_rdma_op op, uint64_t size,
				     const struct ix_rdma_caps *caps)
{
	struct ix_rdma_params p;
	struct ix_err err = { 0 };

	ix_rdma_params_init(&p, kind, op);
	p.msg_size = size;
	cr_assert_eq(ix_rdma_params_check(&p, caps ? caps : &cx, &err), 0, "%s", err.msg);
	return p;
}

Test(params, bw_defaults)
{
	struct ix_rdma_params p = checked(IX_RDMA_BW, IX_RDMA_OP_WRITE, 65536, NULL);

	cr_assert_eq(p.qps, 1);
	cr_assert_eq(p.tx_depth, 128);
	cr_assert_eq(p.rx_depth, 0);
	cr_assert_eq(p.cq_mod, 64);
	cr_assert_eq(p.inline_size, 0);
	cr_assert_eq(p.rd_atom, 0);
	cr_assert_float_eq(p.duration_s, 10, 1e-9);
	cr_assert_float_eq(p.warmup_s, 1, 1e-9);
	p = checked(IX_RDMA_INCAST, IX_RDMA_OP_SEND, 4096, NULL);
	cr_assert_eq(p.rx_depth, 512, "perftest's default, not the tx depth");
	{
		struct ix_rdma_caps small = cx;

		small.max_qp_wr = 200; /* a device smaller than the default: its limit */
		p = checked(IX_RDMA_BW, IX_RDMA_OP_SEND, 4096, &small);
		cr_assert_eq(p.tx_depth, 128);
		cr_assert_eq(p.rx_depth, 200);
		small.max_qp_rd_atom = 128; /* soft-RoCE's: reads in flight default to it */
		p = checked(IX_RDMA_BW, IX_RDMA_OP_READ, 4096, &small);
		cr_assert_eq(p.rd_atom, 128, "perftest's default, the device's max");
		small.max_qp_wr = 100; /* never below the tx depth */
		p = checked(IX_RDMA_BW, IX_RDMA_OP_WRITE_IMM, 4096, &small);
		cr_assert_eq(p.rx_depth, p.tx_depth);
	}
	p = checked(IX_RDMA_MESH, IX_RDMA_OP_READ, 4096, NULL);
	cr_assert_eq(p.rd_atom, 16);
	cr_assert_eq(p.inline_size, 0);
}

Test(params, cq_moderation)
{
	struct ix_rdma_params p;
	struct ix_err err = { 0 };
	const uint32_t depth[] = { 1, 8, 128, 1000 }, mod[] = { 1, 4, 64, 100 };

	for (int i = 0; i < 4; i++) {
		ix_rdma_params_init(&p, IX_RDMA_BW, IX_RDMA_OP_WRITE);
		p.msg_size = 65536;
		p.tx_depth = depth[i];
		cr_assert_eq(ix_rdma_params_check(&p, &cx, &err), 0, "%s", err.msg);
		cr_assert_eq(p.cq_mod, mod[i], "tx_depth %u: cq_mod %u", depth[i], p.cq_mod);
	}
}

Test(params, lat_defaults)
{
	struct ix_err err = { 0 };
	struct ix_rdma_caps small = cx;
	struct ix_rdma_params p = checked(IX_RDMA_LAT, IX_RDMA_OP_WRITE, 64, NULL);

	cr_assert_eq(p.tx_depth, 1);
	cr_assert_eq(p.cq_mod, 8, "one send in 8 signaled, in a send queue of 16");
	cr_assert_eq(ix_rdma_sq_depth(&p), 16);
	cr_assert_eq(p.inline_size, 220);
	cr_assert_float_eq(p.duration_s, 2, 1e-9);
	cr_assert_float_eq(p.warmup_s, 0.5, 1e-9);
	small.max_inline_data = 64;
	small.max_qp_rd_atom = 4;
	cr_assert_eq(checked(IX_RDMA_LAT, IX_RDMA_OP_SEND, 64, &small).inline_size, 64);
	p = checked(IX_RDMA_LAT, IX_RDMA_OP_READ, 64, &small);
	cr_assert_eq(p.inline_size, 0);
	cr_assert_eq(p.rd_atom, 4);
	/* A count instead of a time: no warmup unless asked. */
	ix_rdma_params_init(&p, IX_RDMA_LAT, IX_RDMA_OP_SEND);
	p.msg_size = 8;
	p.iterations = 100000;
	cr_assert_eq(ix_rdma_params_check(&p, &cx, &err), 0, "%s", err.msg);
	cr_assert(p.duration_s == 0 && p.warmup_s == 0);
}

/* The queues' charge: what the defaults become counts before they are
 * filled in, and the largest queues a client may ask for are costed. */
Test(params, queue_bytes)
{
	struct ix_rdma_params p;
	struct ix_err err = { 0 };
	uint64_t before;

	ix_rdma_params_init(&p, IX_RDMA_BW, IX_RDMA_OP_SEND);
	p.msg_size = 65536;
	p.qps = 2;
	before = ix_rdma_queue_bytes(&p);
	cr_assert_eq(ix_rdma_params_check(&p, &cx, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_queue_bytes(&p), before, "defaults counted as they are filled");
	/* Two QPs: 128 sends of 256 bytes, 512 receives and 1280 completions (2048) of 64. */
	cr_assert_eq(before, 2 * (128 * 256 + 512 * 64) + 2048 * 64);
	ix_rdma_params_init(&p, IX_RDMA_LAT, IX_RDMA_OP_WRITE);
	p.msg_size = 64;
	before = ix_rdma_queue_bytes(&p);
	cr_assert_eq(ix_rdma_params_check(&p, &cx, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_queue_bytes(&p), before);
	/* 16 sends with 220 bytes inline (256), one receive, 32 completions. */
	cr_assert_eq(before, 16 * (256 + 256) + 64 + 32 * 64);
	/* 128 QPs of 16384 each way: close to a GiB, which a limit must see. */
	ix_rdma_params_init(&p, IX_RDMA_BW, IX_RDMA_OP_SEND);
	p.qps = 128;
	p.tx_depth = p.rx_depth = 16384;
	cr_assert_geq(ix_rdma_queue_bytes(&p), 896ull << 20);
}

/* Options that must be refused with a message containing part. */
static void refused(struct ix_rdma_params p, const struct ix_rdma_caps *caps, const char *part)
{
	struct ix_err err = { 0 };

	cr_assert_eq(ix_rdma_params_check(&p, caps ? caps : &cx, &err), -1, "accepted ('%s')",
		     part);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, part), "'%s' lacks '%s'", err.msg, part);
}

Test(params, capability_violations)
{
	struct ix_rdma_caps noread = cx;
	struct ix_rdma_params p, q;

	ix_rdma_params_init(&p, IX_RDMA_BW, IX_RDMA_OP_WRITE);
	p.msg_size = 65536;
	q = p, q.msg_size = (1ull << 30) + 1, refused(q, NULL, "max_msg_size");
	q = p, q.inline_size = 1024, refused(q, NULL, "max_inline_data 512");
	q = p, q.tx_depth = 65536, refused(q, NULL, "max_qp_wr 32768");
	q = p, q.qps = 300, refused(q, NULL, "--qps 300");
	noread.max_qp = 8;
	q = p, q.qps = 9, refused(q, &noread, "max_qp 8");
	noread.max_qp_rd_atom = 0;
	q = p, q.op = IX_RDMA_OP_READ, refused(q, &noread, "max_qp_rd_atom 0");
	q = p, q.op = IX_RDMA_OP_READ, q.rd_atom = 32, refused(q, NULL, "max_qp_rd_atom 16");
	q = p, q.op = IX_RDMA_OP_READ, q.inline_size = 64, refused(q, NULL, "--inline");
}

Test(params, option_conflicts)
{
	struct ix_rdma_params p, q;

	ix_rdma_params_init(&p, IX_RDMA_BW, IX_RDMA_OP_SEND);
	p.msg_size = 4096;
	q = p, q.tx_depth = 128, q.rx_depth = 64, refused(q, NULL, "--rx-depth 64 is below");
	q = p, q.op = IX_RDMA_OP_WRITE, q.rx_depth = 64, refused(q, NULL, "--rx-depth applies");
	q = p, q.tx_depth = 16, q.cq_mod = 32, refused(q, NULL, "--cq-mod 32");
	q = p, q.iterations = 10, q.duration_s = 5, refused(q, NULL, "--iters and --time");
	q = p, q.msg_size = 0, refused(q, NULL, "--size");
	q = p, q.service_level = 16, refused(q, NULL, "--sl");
	q = p, q.mtu_cap = 6, refused(q, NULL, "--mtu");
	q = p, q.kind = IX_RDMA_LAT, q.bidirectional = true, refused(q, NULL, "--bidir");
	q = p, q.kind = IX_RDMA_LAT, q.tx_depth = 16, refused(q, NULL, "--tx-depth");
}

static void same_params(const struct ix_rdma_params *a, const struct ix_rdma_params *b)
{
	cr_assert(a->kind == b->kind && a->op == b->op && a->msg_size == b->msg_size &&
		  a->qps == b->qps && a->tx_depth == b->tx_depth && a->rx_depth == b->rx_depth &&
		  a->cq_mod == b->cq_mod && a->inline_size == b->inline_size &&
		  a->rd_atom == b->rd_atom && a->iterations == b->iterations &&
		  a->duration_s == b->duration_s && a->warmup_s == b->warmup_s &&
		  a->bidirectional == b->bidirectional && a->traffic_class == b->traffic_class &&
		  a->service_level == b->service_level && a->mtu_cap == b->mtu_cap);
}

Test(params, same_derivation_on_both_ends)
{
	struct ix_rdma_params client, server, echo;
	struct ix_err err = { 0 };
	json_t *j;

	ix_rdma_params_init(&client, IX_RDMA_BW, IX_RDMA_OP_WRITE_IMM);
	client.msg_size = 8192;
	client.qps = 4;
	client.bidirectional = true;
	client.traffic_class = 26 << 2 | 2;
	client.service_level = 3;
	client.mtu_cap = IX_RDMA_MTU_2048;
	server = client; /* the server given the client's options */
	cr_assert_eq(ix_rdma_params_check(&client, &cx, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_params_check(&server, &cx, &err), 0, "%s", err.msg);
	same_params(&client, &server);
	/* The filled values as the peer reads them, checked again there. */
	j = ix_test_json_roundtrip(ix_rdma_params_json(&client));
	cr_assert_eq(ix_rdma_params_parse(j, NULL, &echo, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_params_check(&echo, &cx, &err), 0, "%s", err.msg);
	same_params(&client, &echo);
	json_decref(j);
}

Test(params, peer_values_are_checked_against_this_device)
{
	struct ix_rdma_params client = checked(IX_RDMA_LAT, IX_RDMA_OP_WRITE, 32, NULL), echo;
	struct ix_rdma_caps small = cx;
	struct ix_err err = { 0 };
	json_t *j = ix_test_json_roundtrip(ix_rdma_params_json(&client));

	small.max_inline_data = 64;
	cr_assert_eq(ix_rdma_params_parse(j, NULL, &echo, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_params_check(&echo, &small, &err), -1);
	cr_assert_not_null(strstr(err.msg, "--inline 220"), "%s", err.msg);
	json_decref(j);
}

/* ---- The setup message ---- */

static struct ix_rdma_endpoint endpoint(void)
{
	struct ix_rdma_endpoint e = { 0 };

	e.params = checked(IX_RDMA_BW, IX_RDMA_OP_WRITE, 65536, NULL);
	e.params.qps = 4;
	cr_assert_eq(ix_rdma_gid_parse(V4("0a00:0001"), e.gid), 0);
	e.gid_index = 3;
	e.mtu = IX_RDMA_MTU_4096;
	e.nqps = 4;
	for (uint32_t i = 0; i < 4; i++)
		e.qps[i] = (struct ix_rdma_qp_id){ .qpn = 0x1a2 + i, .psn = 0xabcde0 + i };
	e.buf_addr = 0x7f0012345000ull;
	e.rkey = 0xdeadbeef;
	e.buf_len = 1 << 20;
	e.numa_node = 1;
	return e;
}

static const struct ix_rdma_limits lim = { .max_qps = 16, .max_buffer = 1 << 24 };

Test(setup, round_trip)
{
	struct ix_rdma_endpoint e = endpoint(), back;
	struct ix_err err = { 0 };
	json_t *j = ix_test_json_roundtrip(ix_rdma_setup_json(&e));

	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), 0, "%s", err.msg);
	cr_assert_not(back.infiniband);
	cr_assert_eq(back.lid, 0);
	cr_assert_arr_eq(back.gid, e.gid, 16);
	cr_assert_eq(back.gid_index, 3);
	cr_assert_eq(back.mtu, IX_RDMA_MTU_4096);
	cr_assert_eq(back.nqps, 4);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(back.qps[i].qpn, e.qps[i].qpn);
		cr_assert_eq(back.qps[i].psn, e.qps[i].psn);
	}
	cr_assert_eq(back.buf_addr, e.buf_addr);
	cr_assert_eq(back.rkey, 0xdeadbeef);
	cr_assert_eq(back.buf_len, 1 << 20);
	cr_assert_eq(back.numa_node, 1);
	same_params(&back.params, &e.params);
	json_decref(j);
	/* InfiniBand with a LID; NUMA node not known. */
	e.infiniband = true;
	e.lid = 0x1a;
	e.numa_node = -1;
	e.buf_addr = UINT64_MAX - (1 << 20);
	j = ix_test_json_roundtrip(ix_rdma_setup_json(&e));
	cr_assert_null(json_object_get(j, "numa_node"));
	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), 0, "%s", err.msg);
	cr_assert(back.infiniband);
	cr_assert_eq(back.lid, 0x1a);
	cr_assert_eq(back.numa_node, -1);
	cr_assert_eq(back.buf_addr, UINT64_MAX - (1 << 20));
	json_decref(j);
}

/* The good message with member path (dotted, [i] for arrays) replaced by
 * value (NULL: removed); parsing must fail naming field. */
static void hostile(const char *path, json_t *value, const char *field)
{
	struct ix_rdma_endpoint e = endpoint(), back;
	struct ix_err err = { 0 };
	json_t *j = ix_test_json_roundtrip(ix_rdma_setup_json(&e)), *o = j;
	char buf[128], *key = buf, *dot;

	snprintf(buf, sizeof(buf), "%s", path);
	while ((dot = strchr(key, '.'))) {
		*dot = '\0';
		o = json_object_get(o, key);
		key = dot + 1;
	}
	if (strchr(key, '[')) {
		*strchr(key, '[') = '\0';
		o = json_array_get(json_object_get(o, key),
				   (size_t)strtoul(key + strlen(key) + 1, NULL, 10));
		key = NULL;
	}
	cr_assert_not_null(o, "%s", path);
	if (!key)
		json_object_update(o, value);
	else if (value)
		json_object_set(o, key, value);
	else
		json_object_del(o, key);
	json_decref(value);
	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), -1, "accepted %s", path);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, field), "'%s' does not name '%s'", err.msg, field);
	json_decref(j);
}

Test(setup, hostile_messages)
{
	hostile("link_layer", NULL, "'link_layer' is missing");
	hostile("link_layer", json_string("Token Ring"), "'link_layer'");
	hostile("lid", json_integer(5), "'lid'"); /* RoCE has none */
	hostile("lid", json_string("1"), "'lid' is not an integer");
	hostile("gid", json_string("fe80::1"), "'gid'");
	hostile("gid", json_string(ZERO_GID), "'gid' is all zeros");
	hostile("gid", json_integer(1), "'gid' is not a string");
	hostile("gid_index", json_integer(256), "'gid_index'");
	hostile("mtu", json_integer(0), "'mtu'");
	hostile("mtu", json_integer(6), "'mtu'");
	hostile("qps", json_array(), "'qps'");
	hostile("qps", json_object(), "'qps' is missing or not an array");
	hostile("qps[1]", json_pack("{s:i}", "qpn", 0), "'qps[1].qpn' = 0");
	hostile("qps[0]", json_pack("{s:i}", "qpn", 0x1000000), "'qps[0].qpn'");
	hostile("qps[2]", json_pack("{s:i}", "psn", -1), "'qps[2].psn'");
	hostile("qps[3]", json_pack("{s:i}", "qpn", 0x1a2), "'qps[3].qpn' repeats qps[0]");
	hostile("params.qps", json_integer(3), "'qps' has 4 entries");
	hostile("params.qps", json_integer(17), "'params.qps'"); /* above the limit of 16 */
	hostile("buffer.length", json_integer(0), "'buffer.length'");
	hostile("buffer.length", json_integer((1 << 24) + 1), "'buffer.length'");
	hostile("buffer.length", json_integer(4096), "'buffer.length' 4096 is below");
	hostile("buffer.addr", json_string("12345"), "'buffer.addr'");
	hostile("buffer.addr", json_string("0x10000000000000000"), "'buffer.addr'");
	hostile("buffer.addr", json_string("0xfffffffffffff000"), "'buffer.addr' plus length");
	hostile("buffer.rkey", json_integer(1ll << 32), "'buffer.rkey'");
	hostile("buffer", NULL, "'buffer'");
	hostile("params", NULL, "'params'");
	hostile("params.op", json_string("atomic"), "'params.op'");
	hostile("params.kind", json_string("bandwidth"), "'params.kind'");
	hostile("params.msg_size", json_integer(0), "'params.msg_size'");
	hostile("params.tx_depth", json_string("128"), "'params.tx_depth' is not an integer");
	hostile("params.cq_mod", json_integer(1000), "'params.cq_mod'");
	hostile("params.duration", json_real(-1), "'params.duration'");
	hostile("params.duration", json_real(90000), "'params.duration'");
	hostile("params.duration", json_real(0), "'params.iterations'");
	hostile("params.warmup", NULL, "'params.warmup' is missing");
	hostile("params.bidirectional", json_integer(1), "'params.bidirectional'");
	hostile("params.mtu_cap", json_integer(1000), "'params.mtu_cap'");
	hostile("params.service_level", json_integer(16), "'params.service_level'");
	hostile("numa_node", json_string("1"), "'numa_node'");
	hostile("numa_node", json_integer(5000), "'numa_node'");
}

Test(setup, infiniband_peer_needs_a_lid)
{
	struct ix_rdma_endpoint e = endpoint(), back;
	struct ix_err err = { 0 };
	json_t *j;

	e.infiniband = true;
	e.lid = 0;
	j = ix_test_json_roundtrip(ix_rdma_setup_json(&e));
	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), -1);
	cr_assert_not_null(strstr(err.msg, "'lid' = 0"), "%s", err.msg);
	json_decref(j);
	cr_assert_eq(ix_rdma_setup_parse(NULL, &lim, &back, &err), -1);
	j = json_array();
	cr_assert_eq(ix_rdma_setup_parse(j, &lim, &back, &err), -1);
	cr_assert_not_null(strstr(err.msg, "not an object"), "%s", err.msg);
	json_decref(j);
}
