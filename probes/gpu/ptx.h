/*
 * The kernels the CUDA backend loads (cuModuleLoadDataEx JITs the PTX for
 * the GPU it runs on), kept as hand-written PTX text so that building the
 * project needs no CUDA toolkit. tests/integration/gpu_ptx.sh assembles
 * the text with ptxas where a toolkit is installed.
 */
#ifndef IX_PROBES_GPU_PTX_H
#define IX_PROBES_GPU_PTX_H

#include <stddef.h>
#include <stdint.h>

/* The module: .version 7.0, .target sm_70 (Volta and every later GPU). */
extern const char ix_gpu_ptx[];

/*
 * ix_gpu_copy(u64 dst, u64 src, u64 bytes): grid-stride copy, 16-byte
 * loads and stores (four in flight per thread) when dst and src are both
 * 16-byte aligned, then byte by byte for the tail (or for everything when
 * they are not aligned). Launch with any grid.
 */
#define IX_GPU_PTX_COPY "ix_gpu_copy"

/*
 * ix_gpu_chase(u64 start, u64 hops, u64 out): one thread loads the u64 at
 * start, then at the address it read, hops times (L2-only loads, each
 * depending on the one before), and stores the last address read to out.
 * Launch as 1 block of 1 thread.
 */
#define IX_GPU_PTX_CHASE "ix_gpu_chase"

/*
 * ix_gpu_spin(u64 flag, u64 limit): waits until the u32 at flag (host
 * memory mapped for the device) is non-zero, re-reading it about once a
 * microsecond, at most limit times; when the limit runs out it stores 1
 * to the u32 at flag + 4 and returns. Launch as 1 block of 1 thread.
 */
#define IX_GPU_PTX_SPIN "ix_gpu_spin"

/* Layout of the gate's host flag: u32 release word, u32 timed-out word. */
#define IX_GPU_GATE_RELEASE 0
#define IX_GPU_GATE_EXPIRED 1

/*
 * Lay out the chain ix_gpu_chase follows in img, the host image (size
 * bytes) of a buffer at device address base: the size / stride slots in a
 * random order (fixed seed, the same every run) linked in a ring, the
 * first 8 bytes of each slot holding the address of the next, so that no
 * stride or prefetcher predicts the next hop. The chase may start at
 * base. Returns 0, or -1 when out of memory.
 */
int ix_gpu_ptx_chain(uint8_t *img, size_t size, size_t stride, uint64_t base);

#endif
