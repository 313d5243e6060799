/* Unit tests for probes/cluster/phasewire.c: the bodies of ixperf ecmp
 * --path rdma's jobs, there and back, hostile ones refused, and a series
 * of this host's own counters against the kernel's (/sys). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/phasewire.h"
#include "probes/core/clock.h"

Test(phasewire, phases_go_there_and_back_and_bad_ones_are_named)
{
	struct ix_rdma_phases ph = { .lead_s = 3, .alone_s = 1.5, .gap_s = 0.5 }, back;
	struct ix_err err = { 0 };
	json_t *j = ix_phasewire_phases(&ph);

	cr_assert_eq(ix_phasewire_parse_phases(j, &back, &err), 0, "%s", err.msg);
	cr_assert_float_eq(back.lead_s, 3, 1e-9);
	cr_assert_float_eq(back.alone_s, 1.5, 1e-9);
	cr_assert_float_eq(back.gap_s, 0.5, 1e-9);
	json_object_set_new(j, "gap", json_real(-1));
	cr_assert_eq(ix_phasewire_parse_phases(j, &back, &err), -1);
	cr_assert(strstr(err.msg, "RUN: rdma.phases: 'gap' must be a number from"), "%s", err.msg);
	json_decref(j);
}

Test(phasewire, a_phased_report_goes_there_and_back)
{
	static struct ix_rdma_phased o, back;
	struct ix_err err = { 0 };
	json_t *j;

	o.nqps = 2;
	o.ready_s = 0.7;
	o.how = IX_RDMA_SPORT_FLOW_LABEL;
	o.qpn[1] = 0x12;
	o.remote_qpn[1] = 0x13;
	o.flow_label[1] = 849;
	o.sport[1] = 50001;
	o.alone[1] = (struct ix_rdma_phase_fig){ true, 5, 6.1, 123456 };
	o.together = (struct ix_rdma_phase_fig){ true, 7, 10.2, 999 };
	o.together_bytes[1] = 555;
	j = ix_phasewire_phased(&o);
	cr_assert_eq(ix_phasewire_parse_phased(j, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.nqps, 2);
	cr_assert_eq(back.how, IX_RDMA_SPORT_FLOW_LABEL);
	cr_assert_eq(back.qpn[1], 0x12);
	cr_assert_eq(back.remote_qpn[1], 0x13);
	cr_assert_eq(back.flow_label[1], 849);
	cr_assert_eq(back.sport[1], 50001);
	cr_assert(back.alone[1].ran);
	cr_assert_eq(back.alone[1].bytes, 123456);
	cr_assert_float_eq(back.alone[1].end_s, 6.1, 1e-9);
	cr_assert_eq(back.together.bytes, 999);
	cr_assert_eq(back.together_bytes[1], 555);
	/* A hostile agent: a QP number past 24 bits, a negative byte count. */
	json_object_set_new(json_array_get(json_object_get(j, "qps"), 0), "qpn",
			    json_integer(1 << 24));
	cr_assert_eq(ix_phasewire_parse_phased(j, &back, &err), -1);
	cr_assert(strstr(err.msg, "phased QP 0 is malformed"), "%s", err.msg);
	json_object_set_new(json_object_get(j, "together"), "bytes", json_integer(-1));
	cr_assert_eq(ix_phasewire_parse_phased(j, &back, &err), -1);
	cr_assert(strstr(err.msg, "'phased' is malformed"), "%s", err.msg);
	json_decref(j);
}

static uint64_t sys_tx(const char *ifname)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_bytes", ifname);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

Test(phasewire, a_series_reads_this_host_s_counters_on_its_schedule)
{
	static struct ix_series s, back;
	static struct ix_ifstat v[IX_IFSTAT_MAX], out[IX_SERIES_MAX_IFS];
	struct ix_err err = { 0 };
	bool trunc;
	uint32_t n = ix_ifstats_read(v, IX_IFSTAT_MAX, NULL, &trunc);
	uint64_t before, after;
	int64_t t0;
	json_t *req, *rep;

	if (n == 0)
		cr_skip_test("this namespace has no interface but loopback");
	s.nreads = 2;
	s.at_s[0] = 0.01;
	s.at_s[1] = 0.05;
	s.nifs = 2;
	snprintf(s.names[0], IX_IFNAME_SIZE, "%s", v[0].name);
	snprintf(s.names[1], IX_IFNAME_SIZE, "nosuchif0");
	req = ix_phasewire_series_request(&s);
	cr_assert_eq(ix_phasewire_parse_series_request(req, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.nreads, 2);
	cr_assert_str_eq(back.names[1], "nosuchif0");
	before = sys_tx(v[0].name);
	t0 = ix_now_ns();
	rep = ix_phasewire_series_run(&back, t0, NULL);
	after = sys_tx(v[0].name);
	cr_assert((double)(ix_now_ns() - t0) / 1e9 >= 0.05, "it ran before its time");
	cr_assert_geq(back.at_s[1], 0.05);
	cr_assert(back.found[0]);
	cr_assert(!back.found[1]);
	/* The coordinator's side of the REPORT, against the kernel's count. */
	s.nreads = 2;
	cr_assert_eq(ix_phasewire_parse_series(rep, &s, &err), 0, "%s", err.msg);
	cr_assert(s.tx[0][0] >= before && s.tx[1][0] <= after && s.tx[0][0] <= s.tx[1][0]);
	cr_assert_eq(ix_series_read(&s, 1, out), 2);
	cr_assert_str_eq(out[0].name, v[0].name);
	cr_assert_eq(out[0].tx_bytes, s.tx[1][0]);
	cr_assert(out[0].up && !out[0].control);
	/* One read short: malformed. */
	json_array_remove(json_object_get(rep, "at"), 1);
	cr_assert_eq(ix_phasewire_parse_series(rep, &s, &err), -1);
	cr_assert(strstr(err.msg, "does not have the 2 reads asked"), "%s", err.msg);
	json_decref(req);
	json_decref(rep);
}

Test(phasewire, a_series_request_out_of_order_or_too_long_is_refused)
{
	struct ix_series s;
	struct ix_err err = { 0 };
	json_t *j = json_pack("{s:[f,f],s:[s]}", "at", 2.0, 1.0, "names", "swp1");

	cr_assert_eq(ix_phasewire_parse_series_request(j, &s, &err), -1);
	cr_assert(strstr(err.msg, "must be increasing times"), "%s", err.msg);
	json_decref(j);
	j = json_pack("{s:[f],s:[s]}", "at", 1.0, "names", "an_interface_name_too_long");
	cr_assert_eq(ix_phasewire_parse_series_request(j, &s, &err), -1);
	cr_assert(strstr(err.msg, "must be interface names"), "%s", err.msg);
	json_decref(j);
}
