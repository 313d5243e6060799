/* Unit tests for report/plan/keys.c: the keys of a check, the probes and paths
 * each applies to, their values and their errors. */
#include "config.h"

#include <stdio.h>

#include <criterion/criterion.h>

#include "report/plan/plan.h"
#include "tests/unit/report/plan/plan_test.h"

Test(plan_keys, settings_and_expectations)
{
	struct ix_plan p;

	good("[plan]\nname = nightly\nhosts = node[01-04]\n"
	     "[bw-1]\nprobe = bw\npath = udp\nrate = 2G\nsizes = 1Ki, 8972\ntime = 2\n"
	     "min_bw = 1.5Gbit\nmax_loss = 0.5%\n"
	     "[lat-1]\nprobe = lat\niters = 1000\nmax_p99 = 25us\nmax_regression = 10%\n"
	     "[m]\nprobe = mesh\ntest = lat\nmax_bad_pairs = 0\n"
	     "[i]\nprobe = incast\nmode = read\nsenders = 1,2,4\nsru = 16Ki\nmax_stalled = 3\n",
	     &p);
	cr_assert_str_eq(p.name, "nightly");
	cr_assert_str_eq(p.hosts, "node[01-04]");
	cr_assert_eq(p.nchecks, 4);
	cr_assert_str_eq(p.checks[0].bw.path, "udp");
	cr_assert_eq(p.checks[0].bw.rate_bps, 2000000000ull);
	cr_assert_eq(p.checks[0].nsizes, 2);
	cr_assert_eq(p.checks[0].sizes[1], 8972);
	cr_assert_float_eq(p.checks[0].expect[0].limit, 1.5e9, 1);
	cr_assert_float_eq(p.checks[0].expect[1].limit, 0.5, 1e-9, "percent");
	cr_assert_eq(p.checks[0].expect[1].line, 11);
	cr_assert_eq(p.checks[1].lat.iters, 1000);
	cr_assert_float_eq(p.checks[1].expect[0].limit, 25000, 1e-6, "ns");
	cr_assert_eq(p.checks[1].expect[1].kind, IX_EXPECT_REGRESSION);
	cr_assert_float_eq(p.checks[1].expect[1].limit, 0.10, 1e-9);
	cr_assert_eq(p.checks[2].mesh.tests, IX_MESH_LAT);
	cr_assert_eq(p.checks[3].incast.mode, IX_INCAST_READ);
	cr_assert_eq(p.checks[3].incast.nsweep, 3);
	cr_assert_eq(p.checks[3].sweep[2], 4);
	cr_assert_eq(p.checks[3].incast.read.sru, 16384);
	ix_plan_free(&p);
}

Test(plan_keys, fabric_counter_expectations)
{
	static const char *const keys[][2] = {
		{ "max_pfc_pauses", "pfc_pauses" },
		{ "max_cnp", "cnp" },
		{ "max_ecn_marked", "ecn_marked" },
		{ "max_fabric_drops", "fabric_drops" },
		{ "max_fabric_retransmissions", "fabric_retransmissions" },
		{ "max_fabric_errors", "fabric_errors" },
	};
	static const char *const probes[] = { "bw", "lat", "mesh", "incast" };
	char text[256];
	struct ix_plan p;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++) {
			snprintf(text, sizeof(text), "[c]\nprobe = %s\n%s = %zu\n", probes[k],
				 keys[i][0], i);
			good(text, &p);
			cr_assert_str_eq(p.checks[0].expect[0].figure, keys[i][1]);
			cr_assert_eq(p.checks[0].expect[0].kind, IX_EXPECT_MAX);
			cr_assert_float_eq(p.checks[0].expect[0].limit, (double)i, 1e-9);
			ix_plan_free(&p);
		}
	refused("[c]\nprobe = bw\nmax_pfc_pauses = lots\n", "bad value for max_pfc_pauses");
	refused("[c]\nprobe = mesh\nmax_cnp = -1\n", "bad value for max_cnp");
}

Test(plan_keys, line_relative_bandwidth)
{
	struct ix_plan p;

	good("[a]\nprobe = bw\nmin_bw = 90%line\n", &p);
	cr_assert(p.checks[0].expect[0].line_relative);
	cr_assert_float_eq(p.checks[0].expect[0].limit, 0.9, 1e-9);
	ix_plan_free(&p);
}

/* path = rdma: the RDMA keys into the test's parameters, and into mesh and
 * incast's (op, qps, tc, sl: what their agents run). */
Test(plan_keys, rdma_keys)
{
	struct ix_plan p;

	good("[b]\nprobe = bw\npath = rdma\nop = read\nqps = 4\ntc = 106\nsl = 3\n"
	     "gid_index = 1\nmtu = 1024\nib_dev = mlx5_0\nib_port = 2\ngpu = 1\ntime = 3\n"
	     "warmup = 0.5\nmin_bw = 90%line\n"
	     "[l]\nprobe = lat\npath = rdma\nop = send\niters = 500\nmax_p99 = 10us\n"
	     "[m]\nprobe = mesh\npath = rdma\nop = write_imm\nqps = 2\ntc = 32\n"
	     "[i]\nprobe = incast\npath = rdma\nsenders = 1,2\n",
	     &p);
	cr_assert_eq(p.nchecks, 4);
	cr_expect_str_eq(p.checks[0].bw.path, "rdma");
	cr_expect_eq(p.checks[0].rdma.kind, IX_RDMA_BW);
	cr_expect_eq(p.checks[0].rdma.op, IX_RDMA_OP_READ);
	cr_expect_eq(p.checks[0].rdma.qps, 4);
	cr_expect_eq(p.checks[0].rdma.traffic_class, 106);
	cr_expect_eq(p.checks[0].rdma.service_level, 3);
	cr_expect(p.checks[0].rdma.gid.by_index);
	cr_expect_eq(p.checks[0].rdma.gid.index, 1);
	cr_expect_eq(p.checks[0].rdma.mtu_cap, IX_RDMA_MTU_1024);
	cr_expect_str_eq(p.checks[0].ib_dev, "mlx5_0");
	cr_expect_eq(p.checks[0].ib_port, 2);
	cr_expect_eq(p.checks[0].gpu, 1);
	cr_expect_float_eq(p.checks[0].rdma.duration_s, 3, 1e-9);
	cr_expect_float_eq(p.checks[0].rdma.warmup_s, 0.5, 1e-9);
	cr_expect_eq(p.checks[0].nsizes, 1);
	cr_expect_eq(p.checks[0].sizes[0], 65536, "ixperf bw --path rdma's default");
	cr_expect_eq(p.checks[1].rdma.kind, IX_RDMA_LAT);
	cr_expect_eq(p.checks[1].rdma.op, IX_RDMA_OP_SEND);
	cr_expect_eq(p.checks[1].rdma.iterations, 500);
	cr_expect_float_eq(p.checks[1].rdma.duration_s, 0, 1e-9, "a count, not a time");
	cr_expect_lt(p.checks[1].rdma.warmup_s, 0, "the default warm-up");
	cr_expect_eq(p.checks[1].sizes[0], 2, "ixperf lat --path rdma's default");
	cr_expect_eq(p.checks[1].gpu, IX_PLAN_GPU_NONE);
	cr_expect_str_eq(p.checks[2].mesh.bw.path, "rdma");
	cr_expect_eq(p.checks[2].mesh.rdma.kind, IX_RDMA_MESH);
	cr_expect_eq(p.checks[2].mesh.rdma.op, IX_RDMA_OP_WRITE_IMM);
	cr_expect_eq(p.checks[2].mesh.rdma.qps, 2);
	cr_expect_eq(p.checks[2].mesh.rdma.traffic_class, 32);
	cr_expect_str_eq(p.checks[3].incast.bw.path, "rdma");
	cr_expect_eq(p.checks[3].incast.rdma.kind, IX_RDMA_INCAST);
	cr_expect_eq(p.checks[3].incast.rdma.op, IX_RDMA_OP_WRITE);
	ix_plan_free(&p);
}

/* A key of the other kind of path is refused at its own line, whichever
 * comes first, the key or the path. */
Test(plan_keys, keys_of_the_other_path)
{
	refused("[b]\nprobe = bw\nstreams = 2\npath = rdma\n",
		"t.ini:3: [b]: 'streams' does not apply to path rdma");
	refused("[b]\nprobe = bw\npath = rdma\ntime = 1\nrate = 1G\n",
		"t.ini:5: [b]: 'rate' does not apply to path rdma");
	refused("[b]\nprobe = bw\npath = rdma\nmax_retransmits = 0\n",
		"t.ini:4: [b]: 'max_retransmits' does not apply to path rdma");
	refused("[b]\nprobe = lat\npath = rdma\nbusy_poll = yes\n", "t.ini:4:");
	refused("[b]\nprobe = bw\nop = write\n",
		"t.ini:3: [b]: 'op' applies to path = rdma only (this check runs tcp)");
	refused("[b]\nprobe = bw\npath = udp\nqps = 2\n", "t.ini:4: [b]: 'qps' applies to path");
	refused("[b]\nprobe = bw\niters = 100\n", "t.ini:3: [b]: 'iters' applies to path");
	refused("[m]\nprobe = mesh\npath = rdma\nib_dev = mlx5_0\n",
		"t.ini:4: 'ib_dev' does not apply to a mesh check");
	refused("[m]\nprobe = incast\npath = rdma\ngpu = 0\n",
		"t.ini:4: 'gpu' does not apply to a incast check");
}

Test(plan_keys, bad_rdma_values)
{
	refused("[b]\nprobe = bw\npath = rdma\nop = atomic\n",
		"t.ini:4: bad value 'atomic' for op");
	refused("[b]\nprobe = bw\npath = rdma\nqps = 0\n", "t.ini:4: bad value for qps");
	refused("[b]\nprobe = bw\npath = rdma\nqps = 257\n", "t.ini:4: bad value for qps");
	refused("[b]\nprobe = bw\npath = rdma\ntc = 256\n", "t.ini:4: bad value for tc");
	refused("[b]\nprobe = bw\npath = rdma\nsl = 16\n", "t.ini:4: bad value for sl");
	refused("[b]\nprobe = bw\npath = rdma\ngid_index = x\n",
		"t.ini:4: bad value for gid_index");
	refused("[b]\nprobe = bw\npath = rdma\nmtu = 1500\n", "t.ini:4: bad value '1500' for mtu");
	refused("[b]\nprobe = bw\npath = rdma\ngpu = 64\n", "t.ini:4: bad value for gpu");
	refused("[b]\nprobe = bw\npath = rdma\nib_dev =\n", "t.ini:4: bad value '' for ib_dev");
	refused("[b]\nprobe = bw\npath = roce\n", "t.ini:3: invalid value for --path: 'roce'");
}

Test(plan_keys, requires)
{
	struct ix_plan p;

	good("[a]\nprobe = bw\npath = rdma\nrequires = rdma\n[g]\nprobe = gpu\nrequires = gpu\n"
	     "[b]\nprobe = topo\nrequires = rdma, gpu\n[n]\nprobe = bw\n",
	     &p);
	cr_expect_eq(p.checks[0].needs, IX_NEED_RDMA);
	cr_expect_eq(p.checks[1].needs, IX_NEED_GPU);
	cr_expect_eq(p.checks[2].needs, IX_NEED_RDMA | IX_NEED_GPU);
	cr_expect_eq(p.checks[3].needs, 0);
	ix_plan_free(&p);
	refused("[a]\nprobe = bw\nrequires = fpga\n", "t.ini:3: bad value 'fpga' for requires");
	refused("[a]\nprobe = bw\nrequires = ,\n", "t.ini:3: 'requires' names nothing");
}

/* probe = gpu: tests by ixperf gpu's names, absolute rates or shares of
 * the PCIe link or HBM; probe = topo: max_findings, 0 when not named. */
Test(plan_keys, gpu_and_topo_checks)
{
	struct ix_plan p;

	good("[g]\nprobe = gpu\ntests = pcie,device_local_copy\ngpus = 0,2-3\nbackend = cuda\n"
	     "lib = /opt/libcuda.so.1\nsize = 64Mi\niters = 4\nsamples = 2\n"
	     "min_bw = 80%link\nmin_bw = 90%hbm\nmin_bw = 300GB/s\nmax_lat = 2us\n"
	     "[t]\nprobe = topo\nsysfs = /srv/fixture\n"
	     "[t2]\nprobe = topo\nmax_findings = 2\n",
	     &p);
	cr_assert_eq(p.nchecks, 3);
	cr_expect_str_eq(p.checks[0].gpu_tests, "pcie,device_local_copy");
	cr_expect_str_eq(p.checks[0].gpus, "0,2-3");
	cr_expect_str_eq(p.checks[0].gpu_backend, "cuda");
	cr_expect_str_eq(p.checks[0].gpu_lib, "/opt/libcuda.so.1");
	cr_expect_eq(p.checks[0].gpu_size, 64ull << 20);
	cr_expect_eq(p.checks[0].gpu_iterations, 4);
	cr_expect_eq(p.checks[0].gpu_samples, 2);
	cr_expect_str_eq(p.checks[0].expect[0].figure, "percent_of_link");
	cr_expect_float_eq(p.checks[0].expect[0].limit, 80, 1e-9);
	cr_expect_str_eq(p.checks[0].expect[0].unit, "%");
	cr_expect_str_eq(p.checks[0].expect[1].figure, "percent_of_hbm");
	cr_expect_str_eq(p.checks[0].expect[2].figure, "bits_per_second");
	cr_expect_float_eq(p.checks[0].expect[2].limit, 2.4e12, 1, "300 GB/s in bit/s");
	cr_expect_str_eq(p.checks[0].expect[3].figure, "latency_ns");
	cr_expect_float_eq(p.checks[0].expect[3].limit, 2000, 1e-6);
	cr_expect_str_eq(p.checks[1].sysfs, "/srv/fixture");
	cr_assert_eq(p.checks[1].nexpect, 1, "max_findings = 0 when not named");
	cr_expect_str_eq(p.checks[1].expect[0].key, "max_findings");
	cr_expect_float_eq(p.checks[1].expect[0].limit, 0, 1e-9);
	cr_expect_eq(p.checks[2].nexpect, 1);
	cr_expect_float_eq(p.checks[2].expect[0].limit, 2, 1e-9);
	cr_expect_eq(ix_plan_local_agents(&p, 17), 0, "gpu and topo run without agents");
	ix_plan_free(&p);
	refused("[g]\nprobe = gpu\ntests = warp_drive\n", "t.ini:3: bad value for tests");
	refused("[g]\nprobe = gpu\ngpus = 0-\n", "t.ini:3: bad value for gpus");
	refused("[g]\nprobe = gpu\nbackend = opencl\n", "t.ini:3: bad value 'opencl'");
	refused("[g]\nprobe = gpu\nmin_bw = 90%line\n", "t.ini:3: '90%line' is no share");
	refused("[g]\nprobe = gpu\nmin_bw = 120%link\n", "t.ini:3: bad value '120%link'");
	refused("[b]\nprobe = bw\nmin_bw = 80%hbm\n", "t.ini:3: '80%hbm' is no share");
	refused("[g]\nprobe = gpu\ntime = 1\n", "t.ini:3: 'time' does not apply to a gpu check");
	refused("[g]\nprobe = gpu\nhosts = a\n", "t.ini:3: 'hosts' does not apply to a gpu");
	refused("[g]\nprobe = gpu\nmax_p99 = 1ms\n", "t.ini:3: 'max_p99' does not apply");
	refused("[t]\nprobe = topo\nmin_bw = 1G\n", "t.ini:3: 'min_bw' does not apply to a topo");
	refused("[t]\nprobe = topo\nmax_findings = some\n", "t.ini:3: bad value for max_findings");
	refused("[b]\nprobe = bw\nsysfs = /x\n", "t.ini:3: 'sysfs' does not apply to a bw");
	refused("[t]\nprobe = topo\nprobe = gpu\n", "t.ini:3: [t] names its probe twice");
}

/* Health from every node: both expectations at 0 unless named. */
Test(plan_keys, inventory_checks)
{
	struct ix_plan p;

	good("[plan]\nhosts = n[1-4]\n[i]\nprobe = inventory\n[j]\nprobe = inventory\n"
	     "hosts = a,b\nmax_odd_nodes = 1\n",
	     &p);
	cr_assert_eq(p.checks[0].nexpect, 2);
	cr_expect_str_eq(p.checks[0].expect[0].key, "max_findings");
	cr_expect_str_eq(p.checks[0].expect[1].key, "max_odd_nodes");
	cr_expect_str_eq(p.checks[0].expect[1].figure, "odd_nodes");
	cr_expect_float_eq(p.checks[0].expect[1].limit, 0, 1e-9);
	cr_expect_str_eq(p.checks[1].hosts, "a,b");
	cr_expect_float_eq(p.checks[1].expect[0].limit, 1, 1e-9);
	cr_expect_str_eq(p.checks[1].bw.path, "agents");
	ix_plan_free(&p);
	refused("[i]\nprobe = inventory\nmin_bw = 1G\n", "'min_bw' does not apply to an inventory");
	refused("[t]\nprobe = topo\nmax_odd_nodes = 0\n", "'max_odd_nodes' does not apply");
}

Test(plan_keys, rails)
{
	struct ix_plan p;

	good("[plan]\nhosts = n[1-4]\n[a]\nprobe = mesh\nrails = auto\n"
	     "[b]\nprobe = mesh\nrails = 10.1.0.0/24,10.2.0.0/24\nmax_bad_rails = 1\n"
	     "[c]\nprobe = mesh\n",
	     &p);
	cr_assert(p.checks[0].rails.discover);
	/* with rails, a bad rail fails the check unless it says otherwise */
	cr_assert_eq(p.checks[0].nexpect, 2);
	cr_expect_str_eq(p.checks[0].expect[1].key, "max_bad_rails");
	cr_expect_str_eq(p.checks[0].expect[1].text, "0 (the default)");
	cr_expect_str_eq(p.checks[0].expect[1].figure, "bad_rails");
	cr_assert_eq(p.checks[1].rails.n, 2);
	cr_expect_str_eq(p.checks[1].rails.item[1], "10.2.0.0/24");
	cr_expect_float_eq(p.checks[1].expect[0].limit, 1, 1e-9);
	cr_assert_eq(p.checks[1].nexpect, 2); /* and max_bad_pairs = 0 */
	cr_assert_eq(p.checks[2].nexpect, 1); /* no rails, no max_bad_rails */
	ix_plan_free(&p);
	refused("[m]\nprobe = mesh\nrails = 10.1.0.0/33\n",
		"t.ini:3: bad value for rails: item 1: '10.1.0.0/33' is not a subnet");
	refused("[m]\nprobe = mesh\nrails = eth0,10.1.0.0/24\n", "subnets and interface names");
	refused("[m]\nprobe = mesh\nmax_bad_rails = 0\n",
		"t.ini:3: max_bad_rails needs rails (auto, or a list)");
	refused("[b]\nprobe = bw\nrails = auto\n", "'rails' does not apply");
}

Test(plan_keys, gpu_auto)
{
	struct ix_plan p;

	good("[plan]\nhosts = n[1-4]\n[m]\nprobe = mesh\npath = rdma\ngpu = auto\n"
	     "[b]\nprobe = bw\npath = rdma\ngpu = 3\n[c]\nprobe = mesh\npath = rdma\n",
	     &p);
	cr_assert_eq(p.checks[0].gpu, IX_PLAN_GPU_AUTO);
	cr_expect_str_eq(p.checks[0].mesh.gpu, "auto");
	cr_assert_eq(p.checks[1].gpu, 3);
	cr_expect_str_eq(p.checks[2].mesh.gpu, "", "host memory unless asked");
	ix_plan_free(&p);
	refused("[m]\nprobe = mesh\ngpu = auto\n", "gpu");
	refused("[m]\nprobe = mesh\npath = rdma\ngpu = nearest\n", "bad value for gpu");
}

Test(plan_keys, mesh_pattern)
{
	struct ix_plan p;

	good("[plan]\nhosts = n[1-4]\n"
	     "[perm]\nprobe = mesh\npattern = permutation\nrounds = 5\nseed = 99\nmin_bw = 1G\n"
	     "[bis]\nprobe = mesh\npattern = bisection\nmax_bad_hosts = 1\n"
	     "[all]\nprobe = mesh\nmax_bad_pairs = 2\n",
	     &p);
	cr_assert_eq(p.checks[0].pattern, IX_PATTERN_PERMUTATION);
	cr_assert_eq(p.checks[0].pattern_rounds, 5);
	cr_assert(p.checks[0].have_seed);
	cr_assert_eq(p.checks[0].seed, 99);
	cr_assert_eq(p.checks[0].mesh.tests, IX_MESH_BW, "a pattern measures bandwidth");
	cr_assert_str_eq(p.checks[0].expect[1].key, "max_bad_hosts");
	cr_assert_str_eq(p.checks[0].expect[1].text, "0 (the default)");
	cr_assert_eq(p.checks[1].pattern, IX_PATTERN_BISECTION);
	cr_assert_eq(p.checks[1].nexpect, 1, "max_bad_hosts as given, no max_bad_pairs");
	cr_assert_eq(p.checks[2].pattern, IX_PATTERN_ALL_PAIRS);
	ix_plan_free(&p);
	refused("[m]\nprobe = mesh\npattern = star\n", "t.ini:3: bad value for pattern: unknown "
						       "pattern 'star'");
	refused("[m]\nprobe = mesh\npattern = ring\nrounds = 2\n",
		"[m]: rounds and seed are for pattern = permutation");
	refused("[m]\nprobe = mesh\nseed = 2\n", "rounds and seed are for pattern = permutation");
	refused("[m]\nprobe = mesh\npattern = permutation\nrounds = 0\n", "bad value for rounds");
	refused("[m]\nprobe = mesh\npattern = permutation\nrounds = 1001\n",
		"rounds: at most 1000");
	refused("[m]\nprobe = mesh\npattern = ring\ntest = lat\n",
		"pattern ring measures bandwidth: test = lat or both is for all-pairs");
	refused("[m]\nprobe = mesh\npattern = all-to-all\nrails = auto\n",
		"rails are for all-pairs");
	refused("[m]\nprobe = mesh\npattern = ring\nseed = x\n", "bad value for seed");
}
