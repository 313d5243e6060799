/* Unit tests for probes/rdma/phased.c: the schedule, the source ports as
 * the kernel derives them, and the phases run by the engine against the
 * simulated NIC (tests/unit/probes/rdma/sim.h), whose own count of the
 * WRs posted on each QP is the oracle. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "probes/rdma/phased.h"
#include "tests/unit/probes/rdma/sim.h"

Test(phased, the_schedule_reads_the_switches_in_the_middle_of_each_gap)
{
	struct ix_rdma_phases ph = {
		.lead_s = 3, .alone_s = 2, .gap_s = 1, .warmup_s = 1, .duration_s = 5
	};

	cr_assert_float_eq(ix_rdma_phase_start_s(&ph, 4, 0), 3, 1e-9);
	cr_assert_float_eq(ix_rdma_phase_start_s(&ph, 4, 3), 12, 1e-9);
	cr_assert_float_eq(ix_rdma_phase_start_s(&ph, 4, 4), 15, 1e-9); /* all at once */
	cr_assert_float_eq(ix_rdma_phases_end_s(&ph, 4), 21, 1e-9);
	cr_assert_float_eq(ix_rdma_phase_read_s(&ph, 4, 0), 2.5, 1e-9);
	/* After QP 0 alone (3 to 5), before QP 1 (6). */
	cr_assert_float_eq(ix_rdma_phase_read_s(&ph, 4, 1), 5.5, 1e-9);
	cr_assert_float_eq(ix_rdma_phase_read_s(&ph, 4, 4), 14.5, 1e-9);
	cr_assert_float_eq(ix_rdma_phase_read_s(&ph, 4, 5), 21.5, 1e-9);
}

/* Ports a capture saw rdma_rxe (Debian's 6.12) send from, with no flow
 * label set, for QPs 0x11 to 0x14 connected to peers of the same numbers:
 * rdma_get_udp_sport(0, qpn, qpn). */
Test(phased, ports_without_a_label_are_rxe_s_from_both_qp_numbers)
{
	static const uint16_t seen[] = { 49441, 49476, 49513, 49552 };

	for (uint32_t q = 0x11; q <= 0x14; q++)
		cr_assert_eq(ix_rdma_flow_label_sport(ix_rdma_calc_flow_label(q, q)),
			     seen[q - 0x11], "QPN %#x", q);
	/* The high bits of a label fold into the low ones. */
	cr_assert_eq(ix_rdma_flow_label_sport(0x4000 | 0x5), 0xc000 | (0x5 ^ 0x1));
	/* The 40-bit fold of a large product. */
	cr_assert_eq(ix_rdma_calc_flow_label(0xffffff, 0xffffff),
		     (uint32_t)((0xfffffe000001ull ^ (0xfffffe000001ull >> 20) ^
				 ((0xfffffe000001ull ^ (0xfffffe000001ull >> 20)) >> 40)) &
				0xfffff));
}

Test(phased, ports_come_from_the_labels_then_rxe_s_rule_then_are_unknown)
{
	struct ix_rdma_phased o;

	memset(&o, 0, sizeof(o));
	o.nqps = 2;
	o.qpn[0] = o.remote_qpn[0] = 0x11;
	o.qpn[1] = o.remote_qpn[1] = 0x12;
	o.flow_label[0] = 50000 - 0xc000;
	o.flow_label[1] = 50001 - 0xc000;
	ix_rdma_phased_sports(&o, 0x02c9); /* Mellanox: the label rules */
	cr_assert_eq(o.how, IX_RDMA_SPORT_FLOW_LABEL);
	cr_assert_eq(o.sport[0], 50000);
	cr_assert_eq(o.sport[1], 50001);
	cr_assert_str_eq(ix_rdma_sport_how_name(o.how), "flow_label");
	o.flow_label[1] = 0; /* one QP without a label: the rule is not one */
	ix_rdma_phased_sports(&o, IX_RDMA_RXE_VENDOR);
	cr_assert_eq(o.how, IX_RDMA_SPORT_QPN);
	cr_assert_eq(o.sport[0], 49441);
	cr_assert_eq(o.sport[1], 49476);
	ix_rdma_phased_sports(&o, 0x02c9);
	cr_assert_eq(o.how, IX_RDMA_SPORT_UNKNOWN);
	cr_assert_eq(o.sport[0], 0);
	cr_assert_str_eq(ix_rdma_sport_how_name(o.how), "unknown");
}

static struct rdma_sim sim;

static struct ix_rdma_run write_run(uint32_t qps)
{
	struct ix_rdma_run r;

	ix_rdma_run_defaults(&r);
	r.opcode = IX_RDMA_WRITE;
	r.qps = qps;
	r.size = 4096;
	r.tx_depth = 8;
	r.cq_mod = 4; /* the phases signal every WR whatever this says */
	r.iters = 0;
	r.duration_ns = 1000000;
	r.timeout_ns = 1000000000;
	return r;
}

Test(phased, each_qp_alone_then_all_at_once_every_byte_counted)
{
	struct rdma_sim_cfg c;
	struct ix_rdma_run run = write_run(3);
	struct ix_rdma_phases ph = {
		.lead_s = 0.05, .alone_s = 0.02, .gap_s = 0.02, .warmup_s = 0.01, .duration_s = 0.02
	};
	struct ix_rdma_phased o;
	struct ix_err err = { 0 };

	rdma_sim_cfg_default(&c);
	c.qps = 3;
	c.sq_depth = 8;
	c.rate = 1.0; /* 1 byte per ns */
	c.lat_ns = 1000;
	c.fast_forward = true;
	cr_assert_eq(rdma_sim_init(&sim, &c), 0);
	memset(&o, 0, sizeof(o));
	o.nqps = 3;
	cr_assert_eq(ix_rdma_phased_run(&rdma_sim_ops, &sim, &run, &ph, ix_now_ns(), &o, &err), 0,
		     "%s", err.msg);
	for (uint32_t q = 0; q < 3; q++) {
		cr_assert(o.alone[q].ran);
		cr_assert_gt(o.alone[q].bytes, 0);
		cr_assert_gt(o.together_bytes[q], 0);
		/* Every WR the NIC saw on the QP, counted once, alone or at once. */
		cr_assert_eq(o.alone[q].bytes + o.together_bytes[q], sim.qp_posts[q] * 4096,
			     "QP %u", q);
		/* On schedule: alone from its start on, after the one before. */
		cr_assert_geq(o.alone[q].start_s, ix_rdma_phase_start_s(&ph, 3, q));
		cr_assert(q == 0 || o.alone[q].start_s >= o.alone[q - 1].end_s);
	}
	cr_assert(o.together.ran);
	cr_assert_eq(o.together.bytes,
		     o.together_bytes[0] + o.together_bytes[1] + o.together_bytes[2]);
	cr_assert_geq(o.together.start_s, ix_rdma_phase_start_s(&ph, 3, 3));
	cr_assert_eq(sim.sq_full, 0, "a phase left WRs in a send queue");
	rdma_sim_free(&sim);
}

Test(phased, a_setup_past_the_lead_or_a_read_test_is_refused)
{
	struct ix_rdma_run run = write_run(2);
	struct ix_rdma_phases ph = { .lead_s = 1, .alone_s = 1, .gap_s = 1, .duration_s = 1 };
	struct ix_rdma_phased o;
	struct ix_err err = { 0 };

	memset(&o, 0, sizeof(o));
	o.nqps = 2;
	o.ready_s = 1.5;
	cr_assert_eq(ix_rdma_phased_run(&rdma_sim_ops, &sim, &run, &ph, ix_now_ns(), &o, &err), -1);
	cr_assert(strstr(err.msg, "connected 1.50 s after the start, past the 1.00 s"), "%s",
		  err.msg);
	run.opcode = IX_RDMA_READ;
	o.ready_s = 0;
	cr_assert_eq(ix_rdma_phased_run(&rdma_sim_ops, &sim, &run, &ph, ix_now_ns(), &o, &err), -1);
	cr_assert(strstr(err.msg, "a phased test is a write test"), "%s", err.msg);
}
