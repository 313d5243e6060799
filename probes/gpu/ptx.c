#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probes/gpu/ptx.h"

/*
 * The PTX of the kernels ptx.h describes. In ix_gpu_copy, %rd1..%rd3
 * are the parameters, %rd20 the thread's index in the grid, %rd6 the
 * number of threads in the grid and %rd8 the number of whole 16-byte
 * vectors. The chase uses .cg loads (cached in L2, never in L1) so that
 * each hop pays at least an L2 access; the chain's size and order decide
 * whether it also pays a memory access. The gate reads its flag with
 * volatile loads, which the driver cannot hoist out of the loop.
 */
const char ix_gpu_ptx[] =
	".version 7.0\n"
	".target sm_70\n"
	".address_size 64\n"
	"\n"
	"// dst[0, bytes) = src[0, bytes), grid-stride; 16-byte vectors when aligned.\n"
	".visible .entry ix_gpu_copy(\n"
	"  .param .u64 ix_gpu_copy_dst,\n"
	"  .param .u64 ix_gpu_copy_src,\n"
	"  .param .u64 ix_gpu_copy_bytes\n"
	")\n"
	"{\n"
	"  .reg .pred %p<4>;\n"
	"  .reg .b16 %rs<2>;\n"
	"  .reg .b32 %r<24>;\n"
	"  .reg .b64 %rd<24>;\n"
	"\n"
	"  ld.param.u64 %rd1, [ix_gpu_copy_dst];\n"
	"  ld.param.u64 %rd2, [ix_gpu_copy_src];\n"
	"  ld.param.u64 %rd3, [ix_gpu_copy_bytes];\n"
	"  mov.u32 %r1, %ctaid.x;\n"
	"  mov.u32 %r2, %ntid.x;\n"
	"  mov.u32 %r3, %tid.x;\n"
	"  mov.u32 %r4, %nctaid.x;\n"
	"  mul.wide.u32 %rd4, %r1, %r2;\n"
	"  cvt.u64.u32 %rd5, %r3;\n"
	"  add.u64 %rd20, %rd4, %rd5;\n"
	"  mul.wide.u32 %rd6, %r4, %r2;\n"
	"  mov.u64 %rd4, %rd20;\n"
	"  mov.u64 %rd8, 0;\n"
	"  or.b64 %rd7, %rd1, %rd2;\n"
	"  and.b64 %rd7, %rd7, 15;\n"
	"  setp.ne.u64 %p1, %rd7, 0;\n"
	"  @%p1 bra COPY_TAIL;\n"
	"  shr.u64 %rd8, %rd3, 4;\n"
	"  shl.b64 %rd9, %rd6, 2;\n"
	"  mul.lo.u64 %rd10, %rd6, 3;\n"
	"  shl.b64 %rd13, %rd6, 4;\n"
	"  // four vectors per thread in flight: i, i + n, i + 2n, i + 3n\n"
	"COPY_V4:\n"
	"  add.u64 %rd11, %rd4, %rd10;\n"
	"  setp.ge.u64 %p2, %rd11, %rd8;\n"
	"  @%p2 bra COPY_V1;\n"
	"  shl.b64 %rd12, %rd4, 4;\n"
	"  add.u64 %rd14, %rd2, %rd12;\n"
	"  add.u64 %rd15, %rd14, %rd13;\n"
	"  add.u64 %rd16, %rd15, %rd13;\n"
	"  add.u64 %rd17, %rd16, %rd13;\n"
	"  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd14];\n"
	"  ld.global.v4.u32 {%r9, %r10, %r11, %r12}, [%rd15];\n"
	"  ld.global.v4.u32 {%r13, %r14, %r15, %r16}, [%rd16];\n"
	"  ld.global.v4.u32 {%r17, %r18, %r19, %r20}, [%rd17];\n"
	"  add.u64 %rd14, %rd1, %rd12;\n"
	"  add.u64 %rd15, %rd14, %rd13;\n"
	"  add.u64 %rd16, %rd15, %rd13;\n"
	"  add.u64 %rd17, %rd16, %rd13;\n"
	"  st.global.v4.u32 [%rd14], {%r5, %r6, %r7, %r8};\n"
	"  st.global.v4.u32 [%rd15], {%r9, %r10, %r11, %r12};\n"
	"  st.global.v4.u32 [%rd16], {%r13, %r14, %r15, %r16};\n"
	"  st.global.v4.u32 [%rd17], {%r17, %r18, %r19, %r20};\n"
	"  add.u64 %rd4, %rd4, %rd9;\n"
	"  bra.uni COPY_V4;\n"
	"  // the vectors left, one per thread\n"
	"COPY_V1:\n"
	"  setp.ge.u64 %p2, %rd4, %rd8;\n"
	"  @%p2 bra COPY_TAIL;\n"
	"  shl.b64 %rd12, %rd4, 4;\n"
	"  add.u64 %rd14, %rd2, %rd12;\n"
	"  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd14];\n"
	"  add.u64 %rd14, %rd1, %rd12;\n"
	"  st.global.v4.u32 [%rd14], {%r5, %r6, %r7, %r8};\n"
	"  add.u64 %rd4, %rd4, %rd6;\n"
	"  bra.uni COPY_V1;\n"
	"  // the bytes after the last whole vector (all of them when misaligned)\n"
	"COPY_TAIL:\n"
	"  shl.b64 %rd18, %rd8, 4;\n"
	"  add.u64 %rd19, %rd18, %rd20;\n"
	"COPY_B1:\n"
	"  setp.ge.u64 %p3, %rd19, %rd3;\n"
	"  @%p3 bra COPY_DONE;\n"
	"  add.u64 %rd14, %rd2, %rd19;\n"
	"  ld.global.u8 %rs1, [%rd14];\n"
	"  add.u64 %rd14, %rd1, %rd19;\n"
	"  st.global.u8 [%rd14], %rs1;\n"
	"  add.u64 %rd19, %rd19, %rd6;\n"
	"  bra.uni COPY_B1;\n"
	"COPY_DONE:\n"
	"  ret;\n"
	"}\n"
	"\n"
	"// One thread follows the chain: L2-only loads (.cg), each one\n"
	"// depending on the address the one before returned, unrolled by four.\n"
	".visible .entry ix_gpu_chase(\n"
	"  .param .u64 ix_gpu_chase_start,\n"
	"  .param .u64 ix_gpu_chase_hops,\n"
	"  .param .u64 ix_gpu_chase_out\n"
	")\n"
	"{\n"
	"  .reg .pred %p<2>;\n"
	"  .reg .b64 %rd<4>;\n"
	"\n"
	"  ld.param.u64 %rd1, [ix_gpu_chase_start];\n"
	"  ld.param.u64 %rd2, [ix_gpu_chase_hops];\n"
	"  ld.param.u64 %rd3, [ix_gpu_chase_out];\n"
	"CHASE_X4:\n"
	"  setp.lt.u64 %p1, %rd2, 4;\n"
	"  @%p1 bra CHASE_X1;\n"
	"  ld.global.cg.u64 %rd1, [%rd1];\n"
	"  ld.global.cg.u64 %rd1, [%rd1];\n"
	"  ld.global.cg.u64 %rd1, [%rd1];\n"
	"  ld.global.cg.u64 %rd1, [%rd1];\n"
	"  sub.u64 %rd2, %rd2, 4;\n"
	"  bra.uni CHASE_X4;\n"
	"CHASE_X1:\n"
	"  setp.eq.u64 %p1, %rd2, 0;\n"
	"  @%p1 bra CHASE_DONE;\n"
	"  ld.global.cg.u64 %rd1, [%rd1];\n"
	"  sub.u64 %rd2, %rd2, 1;\n"
	"  bra.uni CHASE_X1;\n"
	"CHASE_DONE:\n"
	"  st.global.u64 [%rd3], %rd1;\n"
	"  ret;\n"
	"}\n"
	"\n"
	"// The launch gate: spin until the host writes a non-zero release word,\n"
	"// sleeping ~1 us between reads; after limit reads give up and mark it.\n"
	".visible .entry ix_gpu_spin(\n"
	"  .param .u64 ix_gpu_spin_flag,\n"
	"  .param .u64 ix_gpu_spin_limit\n"
	")\n"
	"{\n"
	"  .reg .pred %p<2>;\n"
	"  .reg .b32 %r<3>;\n"
	"  .reg .b64 %rd<4>;\n"
	"\n"
	"  ld.param.u64 %rd1, [ix_gpu_spin_flag];\n"
	"  ld.param.u64 %rd2, [ix_gpu_spin_limit];\n"
	"  mov.u64 %rd3, 0;\n"
	"SPIN_LOOP:\n"
	"  ld.volatile.global.u32 %r1, [%rd1];\n"
	"  setp.ne.u32 %p1, %r1, 0;\n"
	"  @%p1 bra SPIN_DONE;\n"
	"  setp.ge.u64 %p1, %rd3, %rd2;\n"
	"  @%p1 bra SPIN_EXPIRED;\n"
	"  add.u64 %rd3, %rd3, 1;\n"
	"  nanosleep.u32 1000;\n"
	"  bra.uni SPIN_LOOP;\n"
	"SPIN_EXPIRED:\n"
	"  mov.u32 %r2, 1;\n"
	"  st.volatile.global.u32 [%rd1+4], %r2;\n"
	"SPIN_DONE:\n"
	"  ret;\n"
	"}\n";

int ix_gpu_ptx_chain(uint8_t *img, size_t size, size_t stride, uint64_t base)
{
	size_t n = stride ? size / stride : 0;
	uint64_t *order, x = 0x9e3779b97f4a7c15ull;

	if (!n)
		return 0;
	order = malloc(n * sizeof(*order));
	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates, xorshift64 */
		size_t j;
		uint64_t t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % (i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	/* Slot order[k] points to slot order[k + 1], the last to the first. */
	for (size_t k = 0; k < n; k++) {
		uint64_t next = base + order[(k + 1) % n] * stride;

		memcpy(img + order[k] * stride, &next, sizeof(next));
	}
	free(order);
	return 0;
}
