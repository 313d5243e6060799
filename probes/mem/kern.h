/* The loops that move memory: one pass of a kernel over a buffer, and a
 * dependent pointer chase. Each is a plain function of one thread. */
#ifndef IX_MEM_KERN_H
#define IX_MEM_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IX_MEM_LINE 64 /* bytes a chase step and a loaded-latency step touch */

/* The vector width of the kernels on this CPU: 64 (AVX-512), 32 (AVX2) or
 * 16 bytes. */
unsigned ix_mem_vector_bytes(void);
/* Whether this build and CPU have non-temporal stores (x86-64: SSE2). */
bool ix_mem_have_nt(void);

/* One pass over buf (len a multiple of IX_MEM_LINE); returns a value that
 * depends on every byte read (read) so that no load can be left out. */
uint64_t ix_mem_read_pass(const void *buf, size_t len);
void ix_mem_write_pass(void *buf, size_t len, uint64_t v);
/* Non-temporal stores; false (nothing written) where there are none. */
bool ix_mem_ntwrite_pass(void *buf, size_t len, uint64_t v);
/* Copy src to dst: streaming stores where the CPU has them and both are
 * 64-byte aligned, else memcpy. */
void ix_mem_copy_pass(void *dst, const void *src, size_t len);
/* What one pause of ix_mem_read_delayed takes here, in ns (measured once). */
double ix_mem_pause_ns(void);
/* Read a line, then pause (x86: the PAUSE instruction) delay times; the loaders of the
 * loaded-latency curve. */
uint64_t ix_mem_read_delayed(const void *buf, size_t len, uint32_t delay);

/* Link the lines of buf (len / IX_MEM_LINE of them) into one cycle in a
 * random order (Sattolo's algorithm, seeded): every line once, and no
 * prefetcher can guess the next. Returns the first line. */
void *ix_mem_chase_build(void *buf, size_t len, uint64_t seed);
/* Follow n links from p; returns where it ended (the next start). */
void *ix_mem_chase(void *p, uint64_t n);

#endif
