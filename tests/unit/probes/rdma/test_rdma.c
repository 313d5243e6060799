/* Unit tests for probes/rdma/rdma.c (the engine's run from the agreed options)
 * and probes/rdma/verbs.c where no RDMA device exists: every entry point says
 * so with IX_EXIT_UNAVAILABLE and one sentence, none crashes. The verbs
 * data path itself needs RDMA hardware: contrib/rdma-compare.sh. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/rdma/rdma.h"

static struct ix_rdma_params agreed(enum ix_rdma_kind kind, enum ix_rdma_op op)
{
	struct ix_rdma_params p;
	struct ix_rdma_caps caps = { .max_qp_wr = 4096,
				     .max_sge = 4,
				     .max_inline_data = 256,
				     .max_qp = 1024,
				     .max_qp_rd_atom = 16,
				     .max_mr_size = 1ull << 40,
				     .max_msg_size = 1u << 30 };
	struct ix_err err = { 0 };

	ix_rdma_params_init(&p, kind, op);
	p.msg_size = kind == IX_RDMA_LAT ? 2 : 65536;
	cr_assert_eq(ix_rdma_params_check(&p, &caps, &err), 0, "%s", err.msg);
	return p;
}

Test(rdma, bw_run_follows_the_agreed_options)
{
	struct ix_rdma_params p = agreed(IX_RDMA_BW, IX_RDMA_OP_WRITE);
	struct ix_rdma_run req, resp;

	ix_rdma_run_from_params(&p, true, false, &req);
	ix_rdma_run_from_params(&p, false, false, &resp);
	cr_assert_eq(req.opcode, IX_RDMA_WRITE);
	cr_assert_eq(req.side, IX_RDMA_REQUESTER);
	cr_assert_eq(resp.side, IX_RDMA_RESPONDER);
	cr_assert_eq(req.size, 65536);
	cr_assert_eq(req.tx_depth, p.tx_depth);
	cr_assert_eq(req.cq_mod, p.cq_mod);
	cr_assert_eq(req.qps, p.qps);
	cr_assert_eq(req.iters, 0, "duration mode by default");
	cr_assert_eq(req.duration_ns, (int64_t)(p.duration_s * 1e9));
	cr_assert_gt(req.warmup_ns, 0);
	cr_assert_not(req.peak, "no peak in duration mode, as perftest");
	cr_assert_not(req.inline_data, "64 KiB messages are never inline");
}

Test(rdma, iterations_mode_has_a_counted_warmup_and_a_peak)
{
	struct ix_rdma_params p = agreed(IX_RDMA_BW, IX_RDMA_OP_SEND);
	struct ix_rdma_run run;

	p.iterations = 5000;
	p.duration_s = 0;
	ix_rdma_run_from_params(&p, true, false, &run);
	cr_assert_eq(run.iters, 5000);
	cr_assert_eq(run.duration_ns, 0);
	cr_assert_eq(run.warmup_iters, 500);
	cr_assert(run.peak);
	cr_assert_eq(run.opcode, IX_RDMA_SEND);
	cr_assert_eq(run.rx_depth, p.rx_depth);
}

Test(rdma, latency_uses_one_qp_and_inline_when_it_fits)
{
	struct ix_rdma_params p = agreed(IX_RDMA_LAT, IX_RDMA_OP_WRITE);
	struct ix_rdma_run run;

	p.qps = 4;
	ix_rdma_run_from_params(&p, true, true, &run);
	cr_assert_eq(run.qps, 1);
	cr_assert_eq(run.size, 2);
	cr_assert(run.inline_data, "2-byte latency messages go inline (inline %d)", p.inline_size);
	cr_assert_not(run.peak);
}

Test(verbs, no_device_is_a_clear_unavailable_error)
{
	char names[4][64];
	size_t n = 99;
	struct ix_err err = { 0 };
	struct ix_verbs *v = (struct ix_verbs *)&n;
	struct ix_verbs_local local;
	struct ix_verbs_open_opts o = { .qps = 1, .tx_depth = 16, .buf_size = 4096 };

	if (ix_verbs_devices(names, 4, &n, &err) == 0)
		cr_skip_test("this machine has an RDMA device (%s): nothing to check here",
			     names[0]);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert_eq(n, 0);
	cr_assert(strstr(err.msg, "RDMA") &&
			  (strstr(err.msg, "check") || strstr(err.msg, "install")),
		  "%s", err.msg);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(ix_verbs_open(&v, &o, &local, &err), -1);
	cr_assert_null(v);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE, "%s", err.msg);
	ix_verbs_close(NULL);
}

Test(verbs, bad_queue_pair_counts_are_refused_before_any_device_call)
{
	const uint32_t bad[] = { 0, IX_VERBS_MAX_QPS + 1 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ix_err err = { 0 };
		struct ix_verbs *v = (struct ix_verbs *)&err;
		struct ix_verbs_local local;
		struct ix_verbs_open_opts o = { .qps = bad[i], .tx_depth = 16 };

		cr_assert_eq(ix_verbs_open(&v, &o, &local, &err), -1, "--qps %u", bad[i]);
		cr_assert_null(v);
		cr_assert_eq(err.code, IX_EXIT_USAGE, "--qps %u: %d %s", bad[i], err.code, err.msg);
		cr_assert_str_eq(err.msg, "between 1 and 64 queue pairs");
	}
}
