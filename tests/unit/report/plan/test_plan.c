/* Unit tests for report/plan/plan.c: plan files, their defaults and their errors. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "report/plan/plan.h"
#include "tests/unit/report/plan/plan_test.h"

Test(plan, default_plan_parses)
{
	struct ix_plan p;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_plan_load(NULL, &p, &err), 0, "%s", err.msg);
	cr_assert_geq(p.nchecks, 6);
	cr_assert_str_eq(p.checks[0].name, "tcp-bw");
	cr_assert_eq(p.checks[0].probe, IX_CHECK_BW);
	cr_assert_eq(p.checks[0].nexpect, 2);
	cr_assert_str_eq(p.checks[0].expect[1].figure, "fabric_errors");
	ix_plan_free(&p);
}

/* Every built-in check expects something: a check without expectations is
 * never a PASS, and the built-in plan is an acceptance run. */
Test(plan, default_plan_checks_all_expect_something)
{
	struct ix_plan p;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_plan_load(NULL, &p, &err), 0, "%s", err.msg);
	for (uint32_t i = 0; i < p.nchecks; i++)
		cr_expect_geq(p.checks[i].nexpect, 1, "[%s] expects nothing", p.checks[i].name);
	for (uint32_t i = 0; i < p.nchecks; i++) {
		if (strcmp(p.checks[i].name, "tcp-bw-sizes") != 0)
			continue;
		cr_expect_str_eq(p.checks[i].expect[0].key, "min_bw");
		cr_expect_float_eq(p.checks[i].expect[0].limit, 100e6, 1,
				   "every size >= 100 Mbit/s");
	}
	ix_plan_free(&p);
}

/* bw results, one per size, with these goodputs. */
static json_t *bw_results(double a, double b)
{
	return json_pack("[{s:{s:{s:f}}},{s:{s:{s:f}}}]", "summary", "forward", "bits_per_second",
			 a, "summary", "forward", "bits_per_second", b);
}

static const char *judged(const char *plan, json_t *results, json_t **out)
{
	struct ix_plan p;
	char why[256] = "";
	const char *v;

	good(plan, &p);
	*out = json_array();
	v = ix_check_judge(&p.checks[0], results, NULL, "127.0.0.1", *out, why, sizeof(why));
	ix_plan_free(&p);
	return v;
}

Test(plan, a_check_that_expects_nothing_is_info_not_pass)
{
	json_t *res = bw_results(9e9, 2e8), *out;

	cr_expect_str_eq(judged("[s]\nprobe = bw\nsizes = 1Ki,1Mi\n", res, &out), "INFO");
	cr_expect_eq(json_array_size(out), 0);
	json_decref(out);
	cr_expect_str_eq(judged("[s]\nprobe = bw\nmin_bw = 100Mbit\n", res, &out), "PASS");
	cr_expect(json_is_true(json_object_get(json_array_get(out, 0), "pass")));
	cr_expect_float_eq(json_number_value(json_object_get(json_array_get(out, 0), "measured")),
			   2e8, 1, "the slowest size counts");
	json_decref(out);
	cr_expect_str_eq(judged("[s]\nprobe = bw\nmin_bw = 1Gbit\n", res, &out), "FAIL");
	json_decref(out);
	json_decref(res);
	res = json_array();
	cr_expect_str_eq(judged("[s]\nprobe = bw\nmin_bw = 1Gbit\n", res, &out), "ERROR",
			 "nothing measured");
	json_decref(out);
	json_decref(res);
}

Test(plan, errors_name_file_and_line)
{
	refused("[a]\nprobe = bw\nmin_bww = 1G\n", "t.ini:3: unknown key 'min_bww' in [a]");
	refused("[a]\nprobe = bw\n\nmin_bw = 12x\n", "t.ini:4: bad value for min_bw");
	refused("[a]\nprobe = warp\n", "t.ini:2: unknown probe 'warp'");
	refused("[a]\ntime = 5\n", "t.ini:2: [a] must name its probe first");
	refused("[a]\nprobe = lat\nmin_jain = 0.9\n",
		"t.ini:3: 'min_jain' does not apply to a lat");
	refused("[a]\nprobe = bw\n[b]\nprobe = bw\n[a]\ntime = 1\n", "t.ini:6: [a] appears twice");
	refused("[plan]\ncolour = blue\n[a]\nprobe = bw\n", "t.ini:2: unknown key 'colour'");
	refused("[a]\nprobe = bw\nthis is not ini\n", "t.ini:3: not an INI line");
	refused("[plan]\nname = x\n", "no checks");
	refused("[a]\nprobe = bw\nmax_regression = ten\n", "t.ini:3: bad value for max_regression");
	refused("[a]\nprobe = bw\nmin_bw = 150%line\n", "t.ini:3: bad value '150%line'");
	refused("[a]\nprobe = bw\nsizes = 1Ki,zero\n", "t.ini:3: bad size in sizes");
	refused("[a]\nprobe = bw\npath = udp\nsizes = 8\n", "size 8 outside [24, 65507] for udp");
	refused("[a]\nprobe = incast\nmode = read\npath = udp\n",
		"synchronised reads need path tcp");
	refused("[a]\nprobe = bw\nstreams = 0\n", "t.ini:3: bad value for streams");
}

Test(plan, missing_file)
{
	struct ix_plan p;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_plan_load("/nonexistent/plan.ini", &p, &err), -1);
	cr_assert_not_null(strstr(err.msg, "cannot open plan /nonexistent/plan.ini"), "%s",
			   err.msg);
}

/* Where each check's agents come from: its hosts, the plan's, the tasks
 * ("hosts = tasks"), or with neither loopback agents, or the tasks when
 * launched. */
Test(plan, check_source)
{
	struct ix_plan p;

	good("[own]\nprobe = bw\nhosts = node01\n"
	     "[none]\nprobe = lat\n"
	     "[tasks]\nprobe = mesh\nhosts = tasks\n",
	     &p);
	cr_assert_eq(p.nchecks, 3);
	cr_expect_eq(ix_check_source(&p, &p.checks[0], false), IX_SRC_HOSTS);
	cr_expect_eq(ix_check_source(&p, &p.checks[0], true), IX_SRC_HOSTS);
	cr_expect_eq(ix_check_source(&p, &p.checks[1], false), IX_SRC_LOCAL);
	cr_expect_eq(ix_check_source(&p, &p.checks[1], true), IX_SRC_TASKS);
	cr_expect_eq(ix_check_source(&p, &p.checks[2], false), IX_SRC_TASKS,
		     "explicit: an ERROR outside a launch, never loopback");
	cr_expect_eq(ix_check_source(&p, &p.checks[2], true), IX_SRC_TASKS);
	ix_plan_free(&p);
}

Test(plan, plan_hosts_apply_to_checks_without_their_own)
{
	struct ix_plan p;

	good("[plan]\nhosts = tasks\n[a]\nprobe = bw\n[b]\nprobe = lat\nhosts = node[01-02]\n", &p);
	cr_assert_str_eq(p.hosts, IX_PLAN_TASKS);
	cr_expect_eq(ix_check_source(&p, &p.checks[0], false), IX_SRC_TASKS);
	cr_expect_eq(ix_check_source(&p, &p.checks[0], true), IX_SRC_TASKS);
	cr_expect_eq(ix_check_source(&p, &p.checks[1], false), IX_SRC_HOSTS);
	cr_expect_eq(ix_check_source(&p, &p.checks[1], true), IX_SRC_HOSTS);
	ix_plan_free(&p);

	good("[plan]\nhosts = node[01-04]\n[a]\nprobe = bw\n", &p);
	cr_expect_eq(ix_check_source(&p, &p.checks[0], false), IX_SRC_HOSTS);
	cr_expect_eq(ix_check_source(&p, &p.checks[0], true), IX_SRC_HOSTS);
	ix_plan_free(&p);
}

Test(plan, uses_tasks)
{
	struct ix_plan p;

	good("[a]\nprobe = bw\nhosts = node01\n[b]\nprobe = lat\nhosts = node02\n", &p);
	cr_expect_not(ix_plan_uses_tasks(&p), "every check names its hosts");
	ix_plan_free(&p);
	good("[plan]\nhosts = node[01-04]\n[a]\nprobe = bw\n", &p);
	cr_expect_not(ix_plan_uses_tasks(&p), "the plan names the hosts");
	ix_plan_free(&p);
	good("[a]\nprobe = bw\nhosts = node01\n[b]\nprobe = lat\n", &p);
	cr_expect(ix_plan_uses_tasks(&p), "[b] names no hosts");
	ix_plan_free(&p);
	good("[plan]\nhosts = node[01-04]\n[a]\nprobe = bw\n[b]\nprobe = mesh\nhosts = tasks\n",
	     &p);
	cr_expect(ix_plan_uses_tasks(&p), "[b] names the tasks");
	ix_plan_free(&p);
	good("[plan]\nhosts = tasks\n[a]\nprobe = bw\n", &p);
	cr_expect(ix_plan_uses_tasks(&p));
	ix_plan_free(&p);
}

/* Loopback agents: 1 for bw/lat, 4 for mesh, the largest incast step + 1,
 * only for checks that use them, and at most max. */
Test(plan, local_agents)
{
	struct ix_plan p;

	good("[a]\nprobe = bw\n[b]\nprobe = lat\n", &p);
	cr_expect_eq(ix_plan_local_agents(&p, 17), 1);
	ix_plan_free(&p);
	good("[a]\nprobe = bw\n[m]\nprobe = mesh\n", &p);
	cr_expect_eq(ix_plan_local_agents(&p, 17), 4);
	ix_plan_free(&p);
	good("[a]\nprobe = bw\n[i]\nprobe = incast\nsenders = 1,8,2\n[m]\nprobe = mesh\n", &p);
	cr_expect_eq(ix_plan_local_agents(&p, 17), 9, "the largest step, 8, + 1");
	cr_expect_eq(ix_plan_local_agents(&p, 5), 5, "bounded by max");
	ix_plan_free(&p);
	good("[i]\nprobe = incast\nsenders = 1,2,4,8,16,32\n", &p);
	cr_expect_eq(ix_plan_local_agents(&p, 17), 17);
	ix_plan_free(&p);
	good("[plan]\nhosts = node[01-04]\n[i]\nprobe = incast\nsenders = 16\n"
	     "[t]\nprobe = mesh\nhosts = tasks\n[a]\nprobe = bw\nhosts = node01\n",
	     &p);
	cr_expect_eq(ix_plan_local_agents(&p, 17), 0, "no check runs on loopback");
	ix_plan_free(&p);
	good("[i]\nprobe = incast\nhosts = node[01-20]\nsenders = 16\n[l]\nprobe = lat\n", &p);
	cr_expect_eq(ix_plan_local_agents(&p, 17), 1, "only [l] runs on loopback");
	ix_plan_free(&p);
}

/* Incast steps that the agents do not hold are left out, never shrunk. */
Test(plan, incast_fit)
{
	struct ix_plan p;
	uint32_t fit[64];
	char skipped[160];

	good("[i]\nprobe = incast\nsenders = 1,3,8,16\n", &p);
	cr_assert_eq(ix_check_incast_fit(&p.checks[0], 4, fit, skipped, sizeof(skipped)), 2);
	cr_expect_eq(fit[0], 1);
	cr_expect_eq(fit[1], 3);
	cr_expect_str_eq(skipped, "8,16");
	cr_expect_eq(ix_check_incast_fit(&p.checks[0], 17, fit, skipped, sizeof(skipped)), 4,
		     "16 senders and a receiver");
	cr_expect_eq(fit[3], 16);
	cr_expect_str_eq(skipped, "");
	cr_expect_eq(ix_check_incast_fit(&p.checks[0], 1, fit, skipped, sizeof(skipped)), 0,
		     "a receiver alone");
	cr_expect_str_eq(skipped, "1,3,8,16");
	cr_expect_eq(ix_check_incast_fit(&p.checks[0], 0, fit, skipped, sizeof(skipped)), 0);
	cr_expect_str_eq(skipped, "1,3,8,16");
	ix_plan_free(&p);

	good("[i]\nprobe = incast\nsenders = 8,16\n", &p);
	cr_expect_eq(ix_check_incast_fit(&p.checks[0], 4, fit, skipped, sizeof(skipped)), 0,
		     "no step fits");
	cr_expect_str_eq(skipped, "8,16");
	ix_plan_free(&p);
}

/* A mesh check fails on a bad pair unless it says how many it allows; a
 * dead pair (measured at 0) fails the floor and is a bad pair. */
Test(plan, a_mesh_check_never_passes_a_dead_pair)
{
	json_t *dead = json_pack("[{s:o,s:[{}],s:{s:[[n,f],[n,n]]}}]", "median_bw_bps",
				 json_real(9e9), "bad_pairs", "matrix", "bw_bps", 0.0);
	json_t *out;
	struct ix_plan p;

	cr_expect_str_eq(judged("[m]\nprobe = mesh\nmin_bw = 1Gbit\n", dead, &out), "FAIL");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(out, 1), "key")),
			 "max_bad_pairs");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(out, 1), "text")),
			 "0 (the default)");
	json_decref(out);
	cr_expect_str_eq(judged("[m]\nprobe = mesh\nmax_bad_pairs = 1\n", dead, &out), "PASS",
			 "the check allows one");
	json_decref(out);
	cr_expect_str_eq(
		judged("[m]\nprobe = mesh\nmax_bad_pairs = 1\nmin_pair_bw = 1Gbit\n", dead, &out),
		"FAIL");
	cr_expect_eq(json_number_value(json_object_get(json_array_get(out, 1), "measured")), 0,
		     "the slowest pair is the dead one, at 0");
	json_decref(out);
	cr_expect_str_eq(judged("[m]\nprobe = mesh\nmax_bad_pairs = 1\nmax_pair_regression = 10%\n",
				dead, &out),
			 "ERROR", "no baseline to compare the nodes and pairs with");
	cr_expect(json_is_array(json_object_get(json_array_get(out, 1), "regressed")));
	json_decref(out);
	json_decref(dead);
	/* The floors are the mesh's rules too. */
	good("[m]\nprobe = mesh\nmin_pair_bw = 40Gbit\nmax_pair_lat = 20us\n", &p);
	cr_expect_eq(p.checks[0].mesh.rules.min_bw_bps, 40e9);
	cr_expect_float_eq(p.checks[0].mesh.rules.max_lat_ns, 20000, 1e-6);
	cr_expect_eq(p.checks[0].nexpect, 3, "with the default max_bad_pairs");
	ix_plan_free(&p);
	refused("[m]\nprobe = mesh\nmin_pair_bw = 90%line\n",
		"t.ini:3: 'min_pair_bw' takes a rate");
	refused("[b]\nprobe = bw\nmin_pair_bw = 1Gbit\n", "does not apply to a bw check");
}

/* inih goes on after a section header without ']'; the error is that
 * line's, not the next key's. */
Test(plan, unclosed_section_at_its_line)
{
	refused("[plan\nname = x\n[a]\nprobe = bw\n", "t.ini:1: '[' without ']'");
	refused("[a]\nprobe = bw\n\n  [b\nprobe = lat\n", "t.ini:4: '[' without ']'");
}

/* rdma, gpu and topo results judged: the figures of their result kinds. */
Test(plan, judges_rdma_gpu_and_topo_results)
{
	json_t *out, *res;

	res = json_pack("[{s:s,s:{s:f}}]", "kind", "rdma_bw", "rdma", "bits_per_second", 3e9);
	cr_expect_str_eq(judged("[b]\nprobe = bw\npath = rdma\nmin_bw = 1Gbit\n", res, &out),
			 "PASS");
	cr_expect_float_eq(json_number_value(json_object_get(json_array_get(out, 0), "measured")),
			   3e9, 1);
	json_decref(out);
	cr_expect_str_eq(judged("[b]\nprobe = bw\npath = rdma\nmin_bw = 100Gbit\n", res, &out),
			 "FAIL");
	json_decref(out);
	json_decref(res);
	res = json_pack("[{s:s,s:{s:f}}]", "kind", "rdma_lat", "stats", "p99_ns", 4000.0);
	cr_expect_str_eq(judged("[l]\nprobe = lat\npath = rdma\nmax_p99 = 3us\n", res, &out),
			 "FAIL");
	json_decref(out);
	json_decref(res);
	res = json_pack("[{s:s,s:[{s:s,s:s}]}]", "kind", "topo", "findings", "kind", "aer",
			"message", "0000:01:00.0: 3 correctable AER errors");
	cr_expect_str_eq(judged("[t]\nprobe = topo\n", res, &out), "FAIL");
	cr_expect_str_eq(json_string_value(json_array_get(
				 json_object_get(json_array_get(out, 0), "findings"), 0)),
			 "0000:01:00.0: 3 correctable AER errors", "the finding's sentence");
	json_decref(out);
	cr_expect_str_eq(judged("[t]\nprobe = topo\nmax_findings = 1\n", res, &out), "PASS");
	json_decref(out);
	json_decref(res);
}

/* The default plan runs the paths this machine has: its rdma, gpu and
 * topo checks say what they require, so a machine without is a SKIP. */
Test(plan, default_plan_requires_what_it_runs)
{
	struct ix_plan p;
	struct ix_err err = { 0 };
	bool rdma = false, gpu = false, topo = false;

	cr_assert_eq(ix_plan_load(NULL, &p, &err), 0, "%s", err.msg);
	for (uint32_t i = 0; i < p.nchecks; i++) {
		const struct ix_check *c = &p.checks[i];

		if (!strcmp(c->bw.path, "rdma")) {
			rdma = true;
			cr_expect_eq(c->needs, IX_NEED_RDMA, "[%s]", c->name);
		}
		if (c->probe == IX_CHECK_GPU) {
			gpu = true;
			cr_expect_eq(c->needs, IX_NEED_GPU, "[%s]", c->name);
		}
		topo |= c->probe == IX_CHECK_TOPO;
	}
	cr_expect(rdma && gpu && topo);
	ix_plan_free(&p);
}
