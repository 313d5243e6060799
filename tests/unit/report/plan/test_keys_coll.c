/* Unit tests for report/plan/keys_coll.c: the settings of a probe = coll
 * check, its expectations and defaults, and the values refused. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include <criterion/criterion.h>

#include "report/plan/plan.h"
#include "tests/unit/report/plan/plan_test.h"

Test(plan_keys_coll, settings)
{
	struct ix_plan p;
	const struct ix_check *c;
	const struct ix_expect *e;

	good("[ar]\nprobe = coll\nrequires = gpu\ncollective = reduce_scatter\n"
	     "datatype = bfloat16\nreduction = max\nlibrary = nccl\n"
	     "library_path = /opt/nccl/lib/libnccl.so.2\nmin_bytes = 1M\nmax_bytes = 1G\n"
	     "step_factor = 4\niters = 50\nwarmup_iters = 0\ntimeout = 2m\ngpus = 0-3\n"
	     "backend = cuda\nlib = /usr/lib/libcuda.so.1\nmin_busbw = 150GB/s\n",
	     &p);
	c = &p.checks[0];
	cr_assert_eq(c->probe, IX_CHECK_COLL);
	cr_assert_str_eq(ix_check_probe_name(c->probe), "coll");
	cr_assert_str_eq(c->coll_op, "reduce_scatter");
	cr_assert_str_eq(c->coll_dtype, "bfloat16");
	cr_assert_str_eq(c->coll_redop, "max");
	cr_assert_str_eq(c->coll_lib, "nccl");
	cr_assert_str_eq(c->coll_lib_path, "/opt/nccl/lib/libnccl.so.2");
	cr_assert_eq(c->coll_minbytes, 1u << 20);
	cr_assert_eq(c->coll_maxbytes, 1u << 30);
	cr_assert_eq(c->coll_factor, 4);
	cr_assert_eq(c->gpu_iterations, 50);
	cr_assert_eq(c->coll_warmup, UINT32_MAX, "0 warm-up iterations is none, not the default");
	cr_assert_float_eq(c->coll_timeout_s, 120.0, 1e-9);
	cr_assert_str_eq(c->gpus, "0-3");
	cr_assert_str_eq(c->gpu_backend, "cuda");
	cr_assert_str_eq(c->gpu_lib, "/usr/lib/libcuda.so.1");
	cr_assert_eq(c->needs, IX_NEED_GPU);
	cr_assert_str_eq(c->bw.path, "gpu");
	e = expect_of(c, "min_busbw");
	cr_assert_not_null(e);
	cr_assert_str_eq(e->figure, "busbw_bits_per_second");
	cr_assert_float_eq(e->limit, 150e9 * 8, 1, "GB/s read as bytes: %g", e->limit);
	ix_plan_free(&p);
}

Test(plan_keys_coll, wrong_and_slow_fail_unless_allowed)
{
	struct ix_plan p;
	const struct ix_expect *w, *s;

	good("[ar]\nprobe = coll\n", &p);
	w = expect_of(&p.checks[0], "max_wrong");
	s = expect_of(&p.checks[0], "max_slow");
	cr_assert(w && s, "a coll check expects no wrong element and nothing slow by default");
	cr_assert_eq(w->kind, IX_EXPECT_MAX);
	cr_assert_float_eq(w->limit, 0, 1e-12);
	cr_assert_str_eq(w->figure, "wrong");
	cr_assert_str_eq(s->figure, "slow");
	cr_assert_str_eq(w->text, "0 (default)");
	cr_assert_eq(p.checks[0].coll_op[0], '\0', "the default collective is ixperf coll's");
	cr_assert_eq(p.checks[0].coll_warmup, 0);
	ix_plan_free(&p);

	good("[ar]\nprobe = coll\nmax_slow = 2\nmax_wrong = 10\n", &p);
	cr_assert_float_eq(expect_of(&p.checks[0], "max_slow")->limit, 2, 1e-12);
	cr_assert_float_eq(expect_of(&p.checks[0], "max_wrong")->limit, 10, 1e-12);
	cr_assert_eq(p.checks[0].nexpect, 2, "the check's own limits replace the defaults");
	ix_plan_free(&p);
}

Test(plan_keys_coll, refused)
{
	refused("[c]\nprobe = coll\ncollective = allreduce\n", "t.ini:3: bad value for collective");
	refused("[c]\nprobe = coll\ndatatype = float128\n", "t.ini:3: bad value for datatype");
	refused("[c]\nprobe = coll\nreduction = xor\n", "t.ini:3: bad value for reduction");
	refused("[c]\nprobe = coll\ncollective = all_gather\nreduction = max\n",
		"all_gather takes no reduction");
	refused("[c]\nprobe = coll\nreduction = max\ncollective = broadcast\n",
		"broadcast takes no reduction");
	refused("[c]\nprobe = coll\nlibrary = mpi\n", "bad value 'mpi' for library (nccl or rccl)");
	refused("[c]\nprobe = coll\nmin_bytes = 0\n", "bad value for min_bytes");
	refused("[c]\nprobe = coll\nmax_bytes = 1M\nmin_bytes = 2M\n",
		"min_bytes 2097152 is more than max_bytes 1048576");
	refused("[c]\nprobe = coll\nstep_factor = 1\n", "bad value for step_factor");
	refused("[c]\nprobe = coll\niters = 1001\n", "bad value for iters");
	refused("[c]\nprobe = coll\nwarmup_iters = x\n", "bad value for warmup_iters");
	refused("[c]\nprobe = coll\ntimeout = 0\n", "bad value for timeout");
	refused("[c]\nprobe = coll\nmin_busbw = fast\n", "bad value for min_busbw");
	refused("[c]\nprobe = coll\nmin_bw = 1G\n", "'min_bw' does not apply to a coll check");
	refused("[c]\nprobe = coll\ntests = all\n", "'tests' does not apply to a coll check");
	refused("[c]\nprobe = gpu\ncollective = all_reduce\n",
		"'collective' does not apply to a gpu check");
	refused("[c]\nprobe = bw\nmax_wrong = 0\n", "'max_wrong' does not apply to a bw check");
	refused("[c]\nprobe = colll\n", "unknown probe 'colll' (bw, lat, mesh, incast, gpu, coll,");
}
