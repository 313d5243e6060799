/* Unit tests for probes/rdma/session.c: the client's and the agent's side
 * of an RDMA test over a socketpair, each end's device a SIMULATION (the
 * simulated NIC of tests/unit/probes/rdma/sim.c behind a test-only device), plus
 * malformed and hostile setup messages sent to the agent's side. */
#include "config.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/ctl/client.h"
#include "probes/net/proto.h"
#include "probes/rdma/session.h"
#include "tests/unit/probes/rdma/simdev.h"

static struct ix_rdma_params params(enum ix_rdma_kind k, enum ix_rdma_op op, uint64_t iters)
{
	struct ix_rdma_params p;

	ix_rdma_params_init(&p, k, op);
	p.msg_size = 4096;
	p.iterations = iters;
	return p;
}

static struct sim_pair *pair_new(void)
{
	struct sim_pair *t = calloc(1, sizeof(*t));

	cr_assert_not_null(t);
	t->cdev = sim_dev("sim_c", 0x100, IX_RDMA_MTU_4096);
	t->adev = sim_dev("sim_a", 0x200, IX_RDMA_MTU_1024);
	return t;
}

static void pair_free(struct sim_pair *t)
{
	ix_rdma_result_free(&t->r);
	free(t);
}

Test(rdma_session, write_bw_exchanges_endpoints_and_derives_one_test)
{
	struct sim_pair *t = pair_new();
	struct ix_rdma_params p = params(IX_RDMA_BW, IX_RDMA_OP_WRITE, 2000);

	p.qps = 4;
	sim_pair_run(t, &p);
	cr_assert_eq(t->rc, 0, "%s", t->err.msg);
	cr_assert_eq(t->agent.rc, 0, "%s", t->agent.err.msg);
	/* Each end connected to exactly what the other sent. */
	cr_assert_eq(t->cdev.peer.nqps, 4);
	for (uint32_t i = 0; i < 4; i++) {
		cr_assert_eq(t->cdev.peer.qps[i].qpn, 0x200 + i);
		cr_assert_eq(t->adev.peer.qps[i].qpn, 0x100 + i);
		cr_assert_eq(t->adev.peer.qps[i].psn, 100 + i);
	}
	cr_assert_eq(memcmp(t->cdev.peer.gid, t->adev.self.gid, 16), 0);
	cr_assert_eq(t->adev.peer.rkey, 0x1234);
	/* Path MTU: the smaller of both ports, the same on both ends. */
	cr_assert_eq(t->cdev.path_mtu, IX_RDMA_MTU_1024);
	cr_assert_eq(t->adev.path_mtu, IX_RDMA_MTU_1024);
	/* The agent ran the client's filled parameters, defaults included. */
	cr_assert_eq(t->adev.p.qps, 4);
	cr_assert_eq(t->adev.p.tx_depth, 128);
	cr_assert_eq(t->adev.p.cq_mod, 64);
	cr_assert_eq(t->adev.p.iterations, 2000);
	cr_assert(t->r.complete);
	cr_assert(t->r.remote_complete);
	cr_assert_eq(t->r.bw.tx.messages, 2000 * 4);
	cr_assert_eq(t->r.bw.tx.bytes, 2000ull * 4 * 4096);
	cr_assert(t->r.bw.tx.peak_bits_per_second.valid);
	cr_assert_not(t->r.remote_tx.valid, "a write's responder is passive");
	cr_assert_str_eq(t->r.remote.dev, "sim_a");
	cr_assert_str_eq(t->r.local.dev, "sim_c");
	cr_assert_eq(t->r.remote.active_mtu, IX_RDMA_MTU_1024);
	cr_assert_eq(t->cdev.closes, 1);
	cr_assert_eq(t->adev.closes, 1);
	{
		struct ix_rdma_summary s;
		ix_rdma_summarize(&t->r, &s);
		cr_assert(s.valid);
		cr_assert_eq(s.messages, 8000);
		cr_assert_gt(s.bits_per_second, 0);
	}
	pair_free(t);
}

Test(rdma_session, send_bw_reports_the_agents_receive_side)
{
	struct sim_pair *t = pair_new();
	struct ix_rdma_params p = params(IX_RDMA_BW, IX_RDMA_OP_SEND, 3000);

	p.warmup_s = 1; /* iterations mode: a tenth of them first */
	sim_pair_run(t, &p);
	cr_assert_eq(t->rc, 0, "%s", t->err.msg);
	cr_assert_eq(t->adev.p.rx_depth, 512, "rx depth defaults to perftest's 512 on both ends");
	cr_assert_eq(t->r.bw.tx.messages, 3000);
	cr_assert(t->r.remote_rx.valid);
	cr_assert_eq(t->r.remote_rx.messages, 3000, "the agent counts the measured messages");
	cr_assert_eq(t->r.remote_rx.bytes, 3000ull * 4096);
	cr_assert_gt(t->r.remote_rx.bits_per_second, 0);
	pair_free(t);
}

Test(rdma_session, latency_ping_pong_keeps_percentiles)
{
	struct sim_pair *t = pair_new();
	struct ix_rdma_params p = params(IX_RDMA_LAT, IX_RDMA_OP_SEND, 500);

	p.msg_size = 8;
	sim_pair_run(t, &p);
	cr_assert_eq(t->rc, 0, "%s", t->err.msg);
	cr_assert(t->r.latency);
	cr_assert_eq(t->r.lat.iters, 500);
	cr_assert(t->r.lat.one_way);
	cr_assert(t->r.lat.stats.valid);
	cr_assert_eq(t->r.lat.stats.count, 500);
	cr_assert_geq(t->r.lat.stats.p99, t->r.lat.stats.p50);
	cr_assert_str_eq(t->r.lat.clock, "simulated", "the simulation's clock is named as one");
	cr_assert_eq(t->adev.p.inline_size, 220, "latency inlines up to 220 B by default");
	pair_free(t);
}

Test(rdma_session, the_agents_device_refusal_names_the_option)
{
	struct sim_pair *t = pair_new();
	struct ix_rdma_params p = params(IX_RDMA_BW, IX_RDMA_OP_WRITE, 100);

	t->adev.caps.max_qp_wr = 64; /* the client's default depth of 128 does not fit */
	sim_pair_run(t, &p);
	cr_assert_eq(t->rc, -1);
	cr_assert(strstr(t->err.msg, "--tx-depth 128 exceeds this device's max_qp_wr 64"), "%s",
		  t->err.msg);
	cr_assert(strstr(t->err.msg, "sim-agent"), "%s", t->err.msg);
	cr_assert_not(t->r.complete);
	cr_assert_eq(t->adev.connects, 0);
	cr_assert_eq(t->cdev.connects, 0);
	cr_assert_eq(t->cdev.closes, 1, "the client's QPs are released");
	pair_free(t);
}

Test(rdma_session, a_local_device_refusal_stops_before_the_agent)
{
	struct sim_pair *t = pair_new();
	struct ix_rdma_params p = params(IX_RDMA_BW, IX_RDMA_OP_READ, 100);

	t->cdev.caps.max_qp_rd_atom = 0;
	sim_pair_run(t, &p);
	cr_assert_eq(t->rc, -1);
	cr_assert_eq(t->err.code, IX_EXIT_USAGE);
	cr_assert(strstr(t->err.msg, "cannot serve RDMA reads"), "%s", t->err.msg);
	cr_assert_eq(t->adev.probes, 0, "nothing reached the agent's device");
	pair_free(t);
}

Test(rdma_session, a_vanishing_peer_keeps_partial_figures)
{
	struct sim_pair *t = pair_new();
	struct ix_rdma_params p = params(IX_RDMA_BW, IX_RDMA_OP_WRITE, 1000);

	t->cdev.vanish_after = 300; /* the requester's WRs stop completing */
	sim_pair_run(t, &p);
	cr_assert_eq(t->rc, -1);
	cr_assert(strstr(t->err.msg, "stopped responding"), "%s", t->err.msg);
	cr_assert_not(t->r.complete);
	cr_assert_str_eq(t->r.error, t->err.msg);
	cr_assert_gt(t->r.bw.posted, 0);
	cr_assert_lt(t->r.bw.cqes, 1000, "what was done is kept");
	cr_assert(t->r.remote_complete, "the agent still reported its end");
	pair_free(t);
}

Test(rdma_session, an_agent_gone_mid_test_is_a_bounded_failure)
{
	struct sim_pair *t = pair_new();
	struct ix_rdma_params p = params(IX_RDMA_BW, IX_RDMA_OP_WRITE, 500);

	t->agent.vanish_after_start = true;
	sim_pair_run(t, &p);
	cr_assert_eq(t->rc, -1);
	cr_assert_not(t->r.complete);
	cr_assert_eq(t->r.bw.tx.messages, 500, "the local figures survive: %s", t->err.msg);
	cr_assert(strstr(t->err.msg, "sim-agent"), "%s", t->err.msg);
	pair_free(t);
}

Test(rdma_session, the_agent_fails_when_the_sender_stops_sending)
{
	struct sim_pair *t = pair_new();
	struct ix_rdma_params p = params(IX_RDMA_BW, IX_RDMA_OP_SEND, 1000);

	t->adev.peer_vanishes = true; /* half the messages arrive */
	sim_pair_run(t, &p);
	cr_assert_eq(t->agent.rc, 0, "the agent reports, it does not hang: %s", t->agent.err.msg);
	cr_assert_eq(t->rc, -1);
	cr_assert(strstr(t->err.msg, "the agent's end failed"), "%s", t->err.msg);
	cr_assert_not(t->r.remote_complete);
	pair_free(t);
}

/* ---- hostile setup messages ---- */

static json_t *good_setup(void)
{
	struct ix_rdma_endpoint e;
	struct ix_rdma_caps caps = sim_dev("x", 1, 5).caps;
	struct ix_err err;

	memset(&e, 0, sizeof(e));
	ix_rdma_params_init(&e.params, IX_RDMA_BW, IX_RDMA_OP_WRITE);
	e.params.msg_size = 4096;
	cr_assert_eq(ix_rdma_params_check(&e.params, &caps, &err), 0);
	e.gid[15] = 1;
	e.gid_index = 1;
	e.mtu = IX_RDMA_MTU_4096;
	e.nqps = 1;
	e.qps[0] = (struct ix_rdma_qp_id){ 0x44, 1 };
	e.buf_addr = 0x1000;
	e.rkey = 5;
	e.buf_len = 4096;
	e.numa_node = -1;
	return ix_rdma_setup_json(&e);
}

static void serve_expect(json_t *rdma, const char *want)
{
	struct sim_dev d = sim_dev("sim_a", 0x200, IX_RDMA_MTU_4096);
	struct ix_rdma_dev dev = { &sim_dev_ops, &d };
	struct ix_rdma_serve_cfg cfg = { .dev = &dev, .limits = { .max_duration_s = 60 } };
	struct ix_err err = { 0 };
	json_t *req = json_pack("{s:s}", "kind", "rdma");
	int sv[2];

	if (rdma)
		json_object_set_new(req, "rdma", rdma);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_assert_eq(ix_rdma_serve(sv[1], req, &cfg, &err), -1, "accepted: %s", want);
	cr_assert(strstr(err.msg, want), "'%s' not in '%s'", want, err.msg);
	cr_assert_eq(d.setups, 0, "no QP was created for a bad message");
	close(sv[0]);
	close(sv[1]);
	json_decref(req);
}

static json_t *with(const char *path, json_t *v)
{
	json_t *s = good_setup(), *o = s;
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	if (v)
		json_object_set_new(o, path, v);
	else
		json_object_del(o, path);
	return s;
}

Test(rdma_session, malformed_setup_messages_are_refused_by_name)
{
	serve_expect(NULL, "the message is not an object");
	serve_expect(json_string("hello"), "the message is not an object");
	serve_expect(with("gid", json_string("::1")), "'gid'");
	serve_expect(with("gid", json_string("0000:0000:0000:0000:0000:0000:0000:0000")),
		     "all zeros");
	serve_expect(with("lid", json_integer(5)), "RoCE has no LIDs");
	serve_expect(with("mtu", json_integer(9)), "'mtu'");
	serve_expect(with("qps", json_array()), "'qps' has 0 entries");
	serve_expect(with("qps", json_pack("[{s:i,s:i}]", "qpn", 0, "psn", 1)), "qpn");
	serve_expect(with("qps", json_pack("[{s:i,s:i}]", "qpn", 1 << 24, "psn", 1)), "qpn");
	serve_expect(with("buffer.addr", json_string("0xffffffffffffffff")), "wraps around");
	serve_expect(with("buffer.addr", json_string("12345")), "'buffer.addr'");
	serve_expect(with("buffer.length", json_integer(1)), "below 'params.msg_size'");
	serve_expect(with("buffer.length", json_integer((json_int_t)1 << 40)), "buffer.length");
	serve_expect(with("params", NULL), "params");
	serve_expect(with("params.op", json_string("atomic")), "op");
	serve_expect(with("params.duration", json_real(3600)), "limit of 60 s");
	serve_expect(with("params.qps", json_integer(100000)), "qps");
	serve_expect(with("link_layer", json_string("Omni-Path")), "'link_layer'");
}

Test(rdma_session, an_incomplete_parameter_set_is_refused)
{
	/* A parameter a check would still fill (cq_mod 0) cannot come from a
	 * real client: the agent does not fill it in silently. */
	json_t *s = with("params.cq_mod", json_integer(0));

	serve_expect(s, "cq_mod");
}

Test(rdma_session, figures_round_trip_and_are_recomputed)
{
	struct ix_rdma_bw_figures bw;
	struct ix_rdma_result r;
	struct ix_rdma_params p = params(IX_RDMA_BW, IX_RDMA_OP_SEND, 10);
	struct ix_err err;
	json_t *j;

	memset(&bw, 0, sizeof(bw));
	bw.complete = true;
	bw.rx = (struct ix_rdma_dir_figures){ .valid = true,
					      .messages = 1000,
					      .bytes = 4096000,
					      .ns = 1000000,
					      .bits_per_second = 1, /* wrong on purpose */
					      .mpps = 1 };
	j = ix_rdma_figures_json(true, NULL, &bw, NULL);
	ix_rdma_result_init(&r, &p);
	cr_assert_eq(ix_rdma_figures_parse(j, &r, &err), 0, "%s", err.msg);
	cr_assert(r.remote_rx.valid);
	cr_assert_not(r.remote_tx.valid);
	cr_assert_float_eq(r.remote_rx.bits_per_second, 4096000 * 8e3, 1);
	cr_assert_float_eq(r.remote_rx.mpps, 1.0, 1e-9);
	cr_assert_not(r.ctr_remote.valid, "no counters: none reported");
	json_object_set_new(j, "counters",
			    json_loads("{\"iface\":\"eth0\",\"rdma\":\"rxe0/1\","
				       "\"sources\":[\"hw_counters\",\"qdisc\"],\"moved\":{\"hw_"
				       "counters:rcvd_rnr_err\":3,"
				       "\"qdisc:tbf_drops\":9}}",
				       0, NULL));
	cr_assert_eq(ix_rdma_figures_parse(j, &r, &err), 0, "%s", err.msg);
	cr_assert(r.ctr_remote.valid && r.ctr_remote.n == 2);
	cr_assert_str_eq(r.ctr_remote.rdma, "rxe0/1");
	cr_assert_str_eq(r.ctr_remote.v[0].name, "rcvd_rnr_err");
	cr_assert_eq(r.ctr_remote.v[0].cls, IX_CC_RNR);
	cr_assert_eq(r.ctr_remote.v[0].value, 3);
	/* A malformed set is left out; the figures stand. */
	json_object_set_new(j, "counters",
			    json_loads("{\"moved\":{\"hw_counters:rcvd_rnr_err\":-3}}", 0, NULL));
	cr_assert_eq(ix_rdma_figures_parse(j, &r, &err), 0, "%s", err.msg);
	cr_assert_not(r.ctr_remote.valid, "a negative counter is not kept");
	cr_assert(r.remote_rx.valid);
	json_object_del(j, "counters");
	json_object_set_new(json_object_get(j, "bw"), "rx", json_pack("{s:i}", "messages", -4));
	cr_assert_eq(ix_rdma_figures_parse(j, &r, &err), -1);
	cr_assert(strstr(err.msg, "'messages'"), "%s", err.msg);
	json_decref(j);
	ix_rdma_result_free(&r);
}

static int refuse_over_1k(void *arg, uint64_t bytes, struct ix_err *err)
{
	*(uint64_t *)arg = bytes;
	return bytes > 1024 ? ix_fail(err, IX_EXIT_FAIL, "over budget: %llu bytes",
				      (unsigned long long)bytes)
			    : 0;
}

Test(rdma_session, the_buffer_and_queues_are_claimed_before_anything_is_created)
{
	struct sim_dev d = sim_dev("sim_a", 0x200, IX_RDMA_MTU_4096);
	struct ix_rdma_dev dev = { &sim_dev_ops, &d };
	uint64_t asked = 0;
	struct ix_rdma_serve_cfg cfg = { .dev = &dev,
					 .limits = { .max_duration_s = 60 },
					 .claim = refuse_over_1k,
					 .claim_arg = &asked };
	struct ix_err err = { 0 };
	json_t *req = json_pack("{s:s,s:o}", "kind", "rdma", "rdma", good_setup());
	int sv[2];
	struct ix_rdma_endpoint e;
	char want[64];

	cr_assert_eq(ix_rdma_setup_parse(json_object_get(req, "rdma"), &cfg.limits, &e, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_assert_eq(ix_rdma_serve(sv[1], req, &cfg, &err), -1);
	/* 128 sends, no receives, 256 completions: 48 KiB of queues. */
	cr_assert_eq(ix_rdma_queue_bytes(&e.params), 128 * 256 + 64 + 256 * 64);
	cr_assert_eq(asked, 4096 + ix_rdma_queue_bytes(&e.params),
		     "the buffer of a 4096-byte write test and its queues: %llu",
		     (unsigned long long)asked);
	snprintf(want, sizeof(want), "over budget: %llu bytes", (unsigned long long)asked);
	cr_assert(strstr(err.msg, want), "%s", err.msg);
	cr_assert_eq(d.setups, 0, "nothing was allocated for a refused test");
	close(sv[0]);
	close(sv[1]);
	json_decref(req);
}

Test(rdma_session, write_latency_claims_both_halves)
{
	struct ix_rdma_params p;

	ix_rdma_params_init(&p, IX_RDMA_LAT, IX_RDMA_OP_WRITE);
	p.msg_size = 1 << 20;
	cr_assert_eq(ix_rdma_buffer_bytes(&p), 2u << 20);
	ix_rdma_params_init(&p, IX_RDMA_LAT, IX_RDMA_OP_SEND);
	p.msg_size = 1 << 20;
	cr_assert_eq(ix_rdma_buffer_bytes(&p), 1u << 20);
}

static struct sockaddr_storage v4(const char *a)
{
	struct sockaddr_storage s;
	struct sockaddr_in *i = (struct sockaddr_in *)&s;

	memset(&s, 0, sizeof(s));
	i->sin_family = AF_INET;
	cr_assert_eq(inet_pton(AF_INET, a, &i->sin_addr), 1);
	return s;
}

static struct ix_rdma_endpoint roce(const char *a)
{
	struct ix_rdma_endpoint e;
	struct sockaddr_storage s = v4(a);

	memset(&e, 0, sizeof(e));
	e.gid[10] = e.gid[11] = 0xff;
	memcpy(e.gid + 12, &((struct sockaddr_in *)&s)->sin_addr, 4);
	return e;
}

/* Without a token an RDMA test goes only to the host at the other end of
 * the control connection: a GID naming a third address is refused,
 * before anything is set up. */
Test(rdma_session, an_unauthenticated_peer_is_bound_to_its_address)
{
	struct ix_rdma_addr own[2] = { 0 };
	struct sockaddr_storage ctl = v4("10.77.0.2"), lo = v4("127.0.0.1");
	struct ix_rdma_endpoint e = roce("10.77.0.2"), third = roce("10.77.0.3");
	struct ix_err err = { 0 };

	own[0].addr = v4("10.77.0.1");
	own[1].addr = v4("192.0.2.1");
	cr_assert_eq(ix_rdma_peer_bound(&e, &ctl, own, 2, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_peer_bound(&third, &ctl, own, 2, &err), -1);
	cr_assert(strstr(err.msg, "the peer's RoCE GID 0000:0000:0000:0000:0000:ffff:0a4d:0003 is "
				  "not the address it speaks from "
				  "(0000:0000:0000:0000:0000:ffff:0a4d:0002)"),
		  "%s", err.msg);
	/* A client on this host: its GID is one of this host's addresses. */
	e = roce("192.0.2.1");
	cr_assert_eq(ix_rdma_peer_bound(&e, &lo, own, 2, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_rdma_peer_bound(&third, &lo, own, 2, &err), -1);
	ctl = v4("10.77.0.1"); /* this host's own address, not loopback */
	cr_assert_eq(ix_rdma_peer_bound(&e, &ctl, own, 2, &err), 0, "%s", err.msg);
	/* This host's addresses are no excuse for a peer elsewhere. */
	ctl = v4("10.77.0.2");
	cr_assert_eq(ix_rdma_peer_bound(&e, &ctl, own, 2, &err), -1);
	/* An InfiniBand LID has no address to be held to: from this host
	 * only, whatever its GID. */
	third.infiniband = true;
	cr_assert_eq(ix_rdma_peer_bound(&third, &ctl, own, 2, &err), -1);
	cr_assert(strstr(err.msg, "is on InfiniBand, where its LID cannot be tied to the address"),
		  "%s", err.msg);
	cr_assert_eq(ix_rdma_peer_bound(&third, &lo, own, 2, &err), 0, "%s", err.msg);
	ctl = v4("10.77.0.1");
	cr_assert_eq(ix_rdma_peer_bound(&third, &ctl, own, 2, &err), 0, "%s", err.msg);
}
