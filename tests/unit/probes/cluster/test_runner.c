/* Unit tests for probes/cluster/runner.c: RUN requests and REPORT bodies. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/phasewire.h"
#include "probes/cluster/runner.h"
#include "probes/core/stats.h"
#include "probes/net/transport.h"
#include "probes/rdma/setup.h"

static const struct ix_limits limits = { .max_duration_s = 60, .max_streams = 8 };

static struct ix_bw_params bw(void)
{
	return (struct ix_bw_params){
		.path = "tcp", .msg_size = 131072, .streams = 1, .duration_s = 1, .warmup_s = 0
	};
}

Test(request, bw_names_its_target)
{
	struct ix_host h = { "node07", 6000, 0, "" };
	struct ix_bw_params p = bw();
	struct ix_run_job job = { .kind = IX_RUN_BW, .targets = &h, .ntargets = 1, .bw = &p };
	json_t *run = ix_runner_request(&job), *t;

	cr_assert_str_eq(json_string_value(json_object_get(run, "kind")), "bw");
	t = json_array_get(json_object_get(run, "targets"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(t, "host")), "node07");
	cr_assert_eq(json_integer_value(json_object_get(t, "port")), 6000);
	cr_assert_eq(json_integer_value(json_object_get(run, "delay_us")), 0);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(run, "bw"), "msg_size")),
		     131072);
	json_decref(run);
}

static void refused(const char *text, const char *part)
{
	struct ix_runner_ctx ctx = { .limits = &limits };
	struct ix_err err = { 0 };
	json_t *run = json_loads(text, 0, NULL), *rep;

	cr_assert_not_null(run, "bad test JSON: %s", text);
	rep = ix_runner_run(&ctx, run, &err);
	cr_assert_null(rep, "accepted: %s", text);
	cr_assert_not_null(strstr(err.msg, part), "'%s' lacks '%s'", err.msg, part);
	json_decref(run);
}

Test(run, refuses_malformed_requests)
{
	refused("{}", "malformed");
	refused("{\"kind\":\"bw\",\"delay_us\":-1,\"targets\":[]}", "malformed");
	refused("{\"kind\":\"bw\",\"delay_us\":99999999999,\"targets\":[]}", "malformed");
	refused("{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[]}", "targets");
	refused("{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":0}]}",
		"malformed");
	refused("{\"kind\":\"nuke\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}]}",
		"unknown kind");
	refused("{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],"
		"\"bw\":{\"path\":\"tcp\"}}",
		"test request");
	/* beyond the agent's own limits */
	refused("{\"kind\":\"lat\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],"
		"\"lat\":{\"path\":\"tcp\",\"msg_size\":64,\"iters\":0,\"duration\":3600,"
		"\"warmup\":0,\"timeout\":1,\"busy_poll\":false}}",
		"limit");
}

/* A rail's job leaves from the agent's own address on the rail: the
 * request names it, numeric only; an address the agent does not hold
 * fails the test (bind), it never sends from elsewhere. */
Test(run, a_rail_job_leaves_from_its_source)
{
	struct ix_runner_ctx ctx = { .limits = &limits };
	struct ix_host h = { "127.0.0.1", 1, 0, "" };
	struct ix_bw_params p = bw();
	struct ix_run_job job = {
		.kind = IX_RUN_BW, .targets = &h, .ntargets = 1, .bw = &p, .source = "192.0.2.7"
	};
	struct ix_err err = { 0 };
	json_t *run = ix_runner_request(&job), *rep;

	cr_assert_str_eq(json_string_value(json_object_get(run, "source")), "192.0.2.7");
	rep = ix_runner_run(&ctx, run, &err);
	cr_assert_not_null(rep, "%s", err.msg);
	cr_assert(json_is_false(json_object_get(rep, "ok")));
	cr_assert_not_null(strstr(json_string_value(json_object_get(rep, "error")),
				  "cannot bind to '192.0.2.7'"),
			   "%s", json_string_value(json_object_get(rep, "error")));
	json_decref(rep);
	json_decref(run);
	job.source = NULL;
	run = ix_runner_request(&job);
	cr_assert_null(json_object_get(run, "source"), "none unless asked");
	json_decref(run);
	refused("{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],"
		"\"source\":\"node07\"}",
		"'source' must be a numeric address");
	refused("{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],"
		"\"source\":7}",
		"'source' must be a numeric address");
}

Test(run, unreachable_peer_is_a_failed_report)
{
	struct ix_runner_ctx ctx = { .limits = &limits };
	struct ix_host h = { "127.0.0.1", 1, 0, "" };
	struct ix_bw_params p = bw();
	struct ix_run_job job = { .kind = IX_RUN_BW, .targets = &h, .ntargets = 1, .bw = &p };
	struct ix_err err = { 0 };
	struct ix_run_figures f;
	json_t *run = ix_runner_request(&job), *rep = ix_runner_run(&ctx, run, &err);

	cr_assert_not_null(rep, "%s", err.msg);
	cr_assert_eq(ix_runner_parse_report(rep, &f), 0);
	cr_assert(!f.ok);
	cr_assert_not_null(strstr(f.error, "cannot connect"), "%s", f.error);
	json_decref(run);
	json_decref(rep);
}

Test(report, counters_of_both_ends)
{
	struct ix_ctr_set local, remote;
	struct ix_err err = { 0 };
	json_t *rep = json_loads(
		"{\"ok\":true,\"counters\":{\"local\":{\"iface\":\"eth0\",\"rdma\":\"\","
		"\"sources\":[\"qdisc\"],\"moved\":{\"qdisc:tbf_drops\":426},\"summary\":{}},"
		"\"remote\":null}}",
		0, NULL);
	json_t *bad =
		json_loads("{\"ok\":true,\"counters\":{\"local\":{\"moved\":{\"x\":1}}}}", 0, NULL);
	json_t *absent = json_loads("{\"ok\":true}", 0, NULL);

	cr_assert_eq(ix_runner_parse_counters(rep, &local, &remote, &err), 0, "%s", err.msg);
	cr_assert(local.valid && !remote.valid);
	cr_assert_eq(local.n, 1);
	cr_assert_eq(local.v[0].cls, IX_CC_DISCARD);
	cr_assert_eq(local.v[0].value, 426);
	ix_ctr_set_free(&local);
	cr_assert_eq(ix_runner_parse_counters(bad, &local, &remote, &err), -1);
	cr_assert_not_null(strstr(err.msg, "SOURCE:NAME"), "%s", err.msg);
	cr_assert_eq(ix_runner_parse_counters(absent, &local, &remote, &err), 0);
	cr_assert(!local.valid && !remote.valid);
	json_decref(rep);
	json_decref(bad);
	json_decref(absent);
}

Test(report, links_of_both_ends)
{
	struct ix_link_limit local, remote;
	struct ix_err err = { 0 };
	json_t *rep = json_loads(
		"{\"ok\":true,\"link\":{\"local\":{\"iface\":\"ibp1s0\",\"bps\":4e11,"
		"\"source\":\"infiniband rate\",\"pcie\":{\"bdf\":\"0000:01:00.0\",\"gen\":4,"
		"\"width\":8,\"expected_gen\":5,\"expected_width\":16,\"bps\":1.26e11,"
		"\"downtrained\":true},\"ceiling_bps\":1.26e11,\"bottleneck\":\"pcie\"},"
		"\"remote\":null}}",
		0, NULL);
	json_t *bad = json_loads("{\"ok\":true,\"link\":{\"local\":{\"iface\":\"eth0\","
				 "\"bps\":\"fast\"}}}",
				 0, NULL);
	json_t *absent = json_loads("{\"ok\":true}", 0, NULL);

	cr_assert_eq(ix_runner_parse_links(rep, &local, &remote, &err), 0, "%s", err.msg);
	cr_assert_str_eq(local.iface, "ibp1s0");
	cr_assert_str_eq(local.bottleneck, "pcie");
	cr_assert(local.pcie.downtrained);
	cr_assert_str_eq(remote.iface, "");
	cr_assert_eq(ix_runner_parse_links(bad, &local, &remote, &err), -1);
	cr_assert_not_null(strstr(err.msg, "REPORT: link: 'bps'"), "%s", err.msg);
	cr_assert_str_eq(local.iface, "");
	cr_assert_eq(ix_runner_parse_links(absent, &local, &remote, &err), 0);
	cr_assert_str_eq(local.iface, "");
	json_decref(rep);
	json_decref(bad);
	json_decref(absent);
}

Test(report, bw_and_lat_figures)
{
	struct ix_run_figures f;
	json_t *rep = json_loads("{\"ok\":true,\"error\":null,\"bw\":{\"bps\":9.5e9,\"bytes\":1000,"
				 "\"seconds\":1.0,\"retransmits\":3,\"loss_percent\":0.5},"
				 "\"lat\":{\"samples\":10,\"lost\":0,\"min\":100,\"p50\":200,"
				 "\"p99\":300,\"max\":400,\"mean\":210.5}}",
				 0, NULL);

	cr_assert_eq(ix_runner_parse_report(rep, &f), 0);
	cr_assert(f.ok);
	cr_assert_float_eq(f.bw_bps, 9.5e9, 1);
	cr_assert(f.retransmits.valid && f.retransmits.v == 3);
	cr_assert(f.loss_percent.valid);
	cr_assert(f.lat.valid);
	cr_assert_eq(f.lat.p50, 200);
	cr_assert_eq(f.lat.max, 400);
	json_decref(rep);
}

Test(report, read_figures_round_trip)
{
	struct ix_read_figures in = { .complete = true,
				      .senders = 8,
				      .rounds = 100,
				      .bytes = 100 * 8 * 16384,
				      .seconds = 2.5,
				      .goodput_bps = 4.2e6,
				      .rto_rounds = 7,
				      .slow_rounds = 9,
				      .stalled_rounds = 10,
				      .retransmits = { true, 42 } };
	struct ix_run_figures f;
	json_t *rep;

	in.round = (struct ix_lat_stats){ .valid = true, .min = 1, .p50 = 2, .p99 = 3, .max = 4 };
	rep = json_pack("{s:b,s:n,s:o}", "ok", 1, "error", "read", ix_wire_read_figures(&in));
	cr_assert_eq(ix_runner_parse_report(rep, &f), 0);
	cr_assert_eq(f.read.senders, 8);
	cr_assert_eq(f.read.rounds, 100);
	cr_assert_eq(f.read.stalled_rounds, 10);
	cr_assert_eq(f.read.rto_rounds, 7);
	cr_assert(f.read.retransmits.valid && f.read.retransmits.v == 42);
	cr_assert(f.read.round.valid && f.read.round.p99 == 3);
	json_decref(rep);
}

Test(report, malformed_is_refused)
{
	struct ix_run_figures f;
	json_t *a = json_loads("{\"error\":\"x\"}", 0, NULL);
	json_t *b = json_loads("{\"ok\":true,\"read\":{\"senders\":-1}}", 0, NULL);

	cr_assert_eq(ix_runner_parse_report(a, &f), -1, "ok is required");
	cr_assert_eq(ix_runner_parse_report(b, &f), -1, "bad read figures");
	json_decref(a);
	json_decref(b);
}

Test(request, rdma_jobs_carry_the_operation_and_qps)
{
	struct ix_host h = { "node07", 6000, 0, "" };
	struct ix_bw_params p = bw();
	struct ix_rdma_params rp;
	struct ix_run_job job = {
		.kind = IX_RUN_BW, .targets = &h, .ntargets = 1, .bw = &p, .rdma = &rp
	};
	json_t *run, *r;

	ix_rdma_params_init(&rp, IX_RDMA_MESH, IX_RDMA_OP_READ);
	rp.qps = 4;
	rp.traffic_class = 106;
	run = ix_runner_request(&job);
	cr_assert_null(json_object_get(run, "rdma"), "a tcp job has no rdma member");
	json_decref(run);
	p.path = "rdma";
	run = ix_runner_request(&job);
	r = json_object_get(run, "rdma");
	cr_assert_str_eq(json_string_value(json_object_get(r, "op")), "read");
	cr_assert_eq(json_integer_value(json_object_get(r, "qps")), 4);
	cr_assert_eq(json_integer_value(json_object_get(r, "traffic_class")), 106);
	cr_assert_null(json_object_get(r, "gpu"), "host memory unless asked");
	json_decref(run);
	job.gpu = "auto";
	run = ix_runner_request(&job);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(run, "rdma"), "gpu")),
			 "auto");
	json_decref(run);
}

Test(run, refuses_malformed_rdma_jobs)
{
	const char *bwj = "\"bw\":{\"path\":\"rdma\",\"msg_size\":65536,\"duration\":1,"
			  "\"warmup\":0}";
	char text[512];

	snprintf(text, sizeof(text),
		 "{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],%s,"
		 "\"rdma\":{\"op\":\"swap\",\"qps\":1}}",
		 bwj);
	refused(text, "rdma.op");
	snprintf(text, sizeof(text),
		 "{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],%s,"
		 "\"rdma\":{\"op\":\"write\",\"qps\":100000}}",
		 bwj);
	refused(text, "'qps'");
	snprintf(text, sizeof(text),
		 "{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1},"
		 "{\"host\":\"b\",\"port\":1}],%s,\"rdma\":{\"op\":\"write\",\"qps\":1}}",
		 bwj);
	refused(text, "one target");
	for (int i = 0; i < 4; i++) {
		static const char *const bad[] = { "\"all\"", "\"64\"", "\"-1\"", "3" };

		snprintf(
			text, sizeof(text),
			"{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],"
			"%s,\"rdma\":{\"op\":\"write\",\"qps\":1,\"gpu\":%s}}",
			bwj, bad[i]);
		refused(text, "'rdma.gpu' must be \"auto\" or 0 to 63");
	}
	refused("{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],"
		"\"bw\":{\"path\":\"rdma\",\"msg_size\":65536,\"duration\":59,\"warmup\":2},"
		"\"rdma\":{\"op\":\"write\",\"qps\":1}}",
		"limit of 60 s");
	refused("{\"kind\":\"lat\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],"
		"\"lat\":{\"path\":\"rdma\",\"msg_size\":0,\"duration\":1,\"warmup\":0},"
		"\"rdma\":{\"op\":\"send\",\"qps\":1}}",
		"'msg_size'");
}

Test(run, an_rdma_job_towards_a_dead_peer_is_a_failed_report)
{
	struct ix_runner_ctx ctx = { .limits = &limits };
	struct ix_host h = { "127.0.0.1", 1, 0, "" };
	struct ix_lat_params lp = { .path = "rdma", .msg_size = 8, .duration_s = 1 };
	struct ix_rdma_params rp;
	struct ix_run_job job = {
		.kind = IX_RUN_LAT, .targets = &h, .ntargets = 1, .lat = &lp, .rdma = &rp
	};
	struct ix_err err = { 0 };
	struct ix_run_figures f;
	json_t *run, *rep;

	ix_rdma_params_init(&rp, IX_RDMA_LAT, IX_RDMA_OP_SEND);
	run = ix_runner_request(&job);
	rep = ix_runner_run(&ctx, run, &err);
	cr_assert_not_null(rep, "%s", err.msg);
	cr_assert_eq(ix_runner_parse_report(rep, &f), 0);
	cr_assert_not(f.ok);
	cr_assert_not(f.lat.valid);
	cr_assert_not_null(strstr(f.error, "cannot connect"), "%s", f.error);
	json_decref(run);
	json_decref(rep);
}

static int budget_1m(void *arg, uint64_t bytes, struct ix_err *err)
{
	*(uint64_t *)arg = bytes;
	return bytes > (1u << 20) ? ix_fail(err, IX_EXIT_FAIL, "over budget: %llu bytes",
					    (unsigned long long)bytes)
				  : 0;
}

/* Every kind of job is charged before it allocates or connects: what it
 * asks for is its buffers, windows, queues and samples. */
Test(run, jobs_are_charged_before_they_start)
{
	static const struct ix_limits wide = { .max_duration_s = 3600, .max_streams = 256 };
	uint64_t asked = 0;
	struct ix_runner_ctx ctx = { .limits = &wide, .claim = budget_1m, .claim_arg = &asked };
	struct ix_host h = { "127.0.0.1", 1, 0, "" };
	struct ix_bw_params p = bw();
	struct ix_lat_params lp = {
		.path = "tcp", .msg_size = 64, .duration_s = 1, .timeout_s = 1
	};
	struct ix_rdma_params rp;
	struct ix_run_job job = { .kind = IX_RUN_BW, .targets = &h, .ntargets = 1, .bw = &p };
	struct ix_err err = { 0 };
	json_t *run;

	p.streams = 128;
	p.msg_size = 64ull << 20;
	run = ix_runner_request(&job);
	cr_assert_null(ix_runner_run(&ctx, run, &err), "128 x 64 MiB ran");
	cr_assert_eq(asked, 128 * (64ull << 20), "%llu", (unsigned long long)asked);
	cr_assert_not_null(strstr(err.msg, "over budget"), "%s", err.msg);
	json_decref(run);
	/* RDMA: the registered buffer and 128 QPs' queues */
	p.path = "rdma";
	job.rdma = &rp;
	ix_rdma_params_init(&rp, IX_RDMA_MESH, IX_RDMA_OP_WRITE);
	rp.qps = 128;
	run = ix_runner_request(&job);
	cr_assert_null(ix_runner_run(&ctx, run, &err));
	rp.msg_size = p.msg_size;
	cr_assert_eq(asked, (64ull << 20) + ix_rdma_queue_bytes(&rp));
	json_decref(run);
	/* A latency job keeps a sample a round trip: an hour of them is capped. */
	job = (struct ix_run_job){ .kind = IX_RUN_LAT, .targets = &h, .ntargets = 1, .lat = &lp };
	lp.duration_s = 3000;
	run = ix_runner_request(&job);
	cr_assert_null(ix_runner_run(&ctx, run, &err));
	cr_assert_eq(asked, IX_STREAM_BUF_MIN + ix_samples_bytes(UINT64_MAX));
	json_decref(run);
	/* What fits is charged and runs (here: towards a dead peer). */
	lp.duration_s = 0.01;
	run = ix_runner_request(&job);
	json_decref(ix_runner_run(&ctx, run, &err));
	cr_assert_eq(asked, IX_STREAM_BUF_MIN + ix_samples_bytes(10000));
	cr_assert_leq(asked, 1u << 20);
	json_decref(run);
}

Test(request, bw_carries_the_source_port_only_when_set)
{
	struct ix_host h = { "node07", 6000, 0, "" };
	struct ix_bw_params p = bw(), back;
	struct ix_run_job job = { .kind = IX_RUN_BW, .targets = &h, .ntargets = 1, .bw = &p };
	struct ix_err err = { 0 };
	json_t *run = ix_runner_request(&job);

	cr_assert_null(json_object_get(json_object_get(run, "bw"), "src_port"));
	json_decref(run);
	p.src_port = 30000;
	p.streams = 4;
	run = ix_runner_request(&job);
	cr_assert_eq(ix_wire_parse_bw(json_object_get(run, "bw"), &limits, &back, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(back.src_port, 30000);
	/* An agent refuses ports it cannot give every stream. */
	json_object_set_new(json_object_get(run, "bw"), "src_port", json_integer(65533));
	cr_assert_eq(ix_wire_parse_bw(json_object_get(run, "bw"), &limits, &back, &err), -1);
	cr_assert_not_null(strstr(err.msg, "source ports 65533 to 65536 go past 65535"), "%s",
			   err.msg);
	json_object_set_new(json_object_get(run, "bw"), "src_port", json_integer(80));
	cr_assert_eq(ix_wire_parse_bw(json_object_get(run, "bw"), &limits, &back, &err), -1);
	cr_assert_not_null(strstr(err.msg, "'src_port' = 80 is out of range"), "%s", err.msg);
	json_decref(run);
}

static int streams_of(const char *text, struct ix_run_stream *st, uint32_t cap, uint32_t *n)
{
	struct ix_err err = { 0 };
	json_t *rep = json_loads(text, 0, NULL);
	int rc;

	cr_assert_not_null(rep, "bad test JSON: %s", text);
	rc = ix_runner_parse_streams(rep, st, cap, n, &err);
	json_decref(rep);
	return rc;
}

Test(report, streams_with_their_ports)
{
	struct ix_run_stream st[2];
	uint32_t n = 9;

	cr_assert_eq(streams_of("{\"ok\":true,\"bw\":{\"bps\":1}}", st, 2, &n), 0);
	cr_assert_eq(n, 0, "an older agent's REPORT has none");
	cr_assert_eq(streams_of("{\"bw\":{\"streams\":[{\"sport\":30000,\"dport\":5301,"
				"\"bytes\":1000,\"seconds\":2.0},{\"sport\":30001,\"dport\":5301,"
				"\"bytes\":3000,\"seconds\":2.0}]}}",
				st, 2, &n),
		     0);
	cr_assert_eq(n, 2);
	cr_assert_eq(st[1].sport, 30001);
	cr_assert_eq(st[1].dport, 5301);
	cr_assert_eq(st[1].bytes, 3000);
	cr_assert_eq(streams_of("{\"bw\":{\"streams\":[{\"sport\":70000,\"dport\":1,"
				"\"bytes\":1,\"seconds\":1}]}}",
				st, 2, &n),
		     -1);
	cr_assert_eq(streams_of("{\"bw\":{\"streams\":[{\"sport\":1,\"dport\":1,"
				"\"bytes\":-1,\"seconds\":1}]}}",
				st, 2, &n),
		     -1);
	cr_assert_eq(streams_of("{\"bw\":{\"streams\":[{},{},{}]}}", st, 2, &n), -1, "over cap");
}

/* A one-second rdma write job with this "rdma" member, refused for part. */
static void phased_refused(const char *rdma, const char *part)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "{\"kind\":\"bw\",\"delay_us\":0,\"targets\":[{\"host\":\"a\",\"port\":1}],"
		 "\"bw\":{\"path\":\"rdma\",\"msg_size\":65536,\"duration\":1,\"warmup\":0},"
		 "\"rdma\":%s}",
		 rdma);
	refused(text, part);
}

Test(run, refuses_phased_rdma_jobs_it_cannot_run)
{
	phased_refused("{\"op\":\"read\",\"qps\":2,\"sport\":50000,\"phases\":{\"lead\":1,"
		       "\"alone\":1,\"gap\":1}}",
		       "a phased rdma job is a write test of 1 to 64 QPs");
	phased_refused("{\"op\":\"write\",\"qps\":2,\"sport\":40000,\"phases\":{\"lead\":1,"
		       "\"alone\":1,\"gap\":1}}",
		       "rdma.sport 0 or above 49152");
	phased_refused("{\"op\":\"write\",\"qps\":2,\"phases\":{\"lead\":1,\"alone\":-1,"
		       "\"gap\":1}}",
		       "rdma.phases: 'alone' must be a number");
	/* The whole schedule, not the phase at once, against the agent's
	 * 60 s: 12 + 16 x (2 + 1) + 1 = 61. */
	phased_refused("{\"op\":\"write\",\"qps\":16,\"phases\":{\"lead\":12,\"alone\":2,"
		       "\"gap\":1}}",
		       "limit of 60 s");
}

Test(run, an_ifseries_job_reads_this_host_s_counters_without_a_target)
{
	struct ix_runner_ctx ctx = { .limits = &limits };
	static struct ix_series s;
	struct ix_run_job job = { .kind = IX_RUN_IFSERIES, .series = &s };
	struct ix_err err = { 0 };
	json_t *run, *rep;

	s.nreads = 2;
	s.at_s[0] = 0;
	s.at_s[1] = 0.01;
	s.nifs = 1;
	snprintf(s.names[0], IX_IFNAME_SIZE, "nosuchif0");
	run = ix_runner_request(&job);
	cr_assert_str_eq(json_string_value(json_object_get(run, "kind")), "ifseries");
	rep = ix_runner_run(&ctx, run, &err);
	cr_assert_not_null(rep, "%s", err.msg);
	cr_assert(json_is_true(json_object_get(rep, "ok")));
	cr_assert_eq(ix_phasewire_parse_series(json_object_get(rep, "ifseries"), &s, &err), 0, "%s",
		     err.msg);
	json_decref(rep);
	json_object_set_new(json_object_get(run, "ifseries"), "at", json_pack("[f]", 61.0));
	cr_assert_null(ix_runner_run(&ctx, run, &err));
	cr_assert(strstr(err.msg, "limit of 60 s"), "%s", err.msg);
	json_decref(run);
}
