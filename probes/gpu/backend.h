/*
 * What the GPU backends (cuda.c, hip.c) share: the checks, the
 * decisions and the bookkeeping that do not depend on the vendor's API.
 * Internal to the backends: other code uses gpu.h only.
 *
 * Each backend's struct ix_gpu stays private to its file; these helpers
 * take the pieces they need (device count, peer matrix, host page size) as
 * parameters, and never call a vendor function.
 */
#ifndef IX_GPU_BACKEND_H
#define IX_GPU_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"
#include "probes/core/probe.h"
#include "probes/gpu/gpu.h"

/* The most copies queued behind a start gate: the driver's queue of
 * pending work is finite, and were it to fill, queuing would wait on the
 * held streams until the gate expired. */
#define IX_GPU_BE_GATE_MAX_OPS 1024

/* Device buffers are whole GPU pages of this size (see ix_gpu_be_alloc_begin). */
#define IX_GPU_BE_DEVICE_PAGE ((size_t)2 << 20)

/* Peer access as set_peer left it: on[from][to]. */
struct ix_gpu_be_peers {
	bool on[IX_GPU_MAX_DEVICES][IX_GPU_MAX_DEVICES];
};

/* One library function: the name exported, an older name or NULL, and
 * where its pointer goes in the backend's table of functions. */
struct ix_gpu_be_sym {
	const char *name, *alt;
	size_t off;
};

/* --- Opening and closing ------------------------------------------------ */

/* dlsym every one of the n syms (name, then alt) into api at its offset.
 * A missing one is IX_EXIT_UNAVAILABLE ("LIB has no NAME: not WHAT, or too
 * old") unless its offset is one of the nopt in optional (left NULL). */
int ix_gpu_be_resolve(void *lib, const struct ix_gpu_be_sym *syms, size_t n, const size_t *optional,
		      size_t nopt, void *api, const char *libname, const char *what,
		      struct ix_err *err);

/* The host's page size (4096 when sysconf does not say). */
size_t ix_gpu_be_host_page(void);

/* info->library: the path dlopen found for lib, or name. */
void ix_gpu_be_library(void *lib, const char *name, struct ix_gpu_backend_info *info);

/* Close lib unless the vendor's init has run: the driver's threads then
 * outlive every context, and dlclose would unmap the code they run. */
void ix_gpu_be_unload(void *lib, bool inited);

/* IX_GPU_CAP_PEER when can_access_peer says yes for some pair of distinct
 * devices among the ndev (a failing query counts as no), else 0. */
unsigned ix_gpu_be_peer_cap(struct ix_gpu *g, int ndev,
			    int (*can_access_peer)(struct ix_gpu *g, int from, int to, bool *yes,
						   struct ix_err *err));

/* --- Errors ------------------------------------------------------------- */

/* A failing vendor call: "CALL failed: NAME (R)", NAME the vendor's error
 * name or "unknown error" when NULL. IX_EXIT_FAIL; returns -1. */
int ix_gpu_be_call_fail(struct ix_err *err, const char *call, const char *name, int r);

/* 0 when d is one of the ndev devices, else IX_EXIT_USAGE ("no VENDOR
 * device D (of NDEV)"). */
int ix_gpu_be_check_device(const char *vendor, int d, int ndev, struct ix_err *err);

/* --- Device information ------------------------------------------------- */

/* Empty out for device d with its multiprocessor count (0 when not > 0),
 * the NUMA node unknown. */
void ix_gpu_be_info_init(struct ix_gpu_info *out, int d, int multiprocessors);

/* The driver's PCI bus id in sysfs' form ("0000:18:00.0"), whatever the
 * case or the domain's width it used; one that does not parse is copied
 * in lowercase. */
void ix_gpu_be_bus_id(const char *bus, char *out, size_t size);

/* Theoretical memory bandwidth in bytes per second from the memory clock
 * (kHz) and bus width (bits), double data rate; not valid unless both are
 * reported (> 0). */
struct ix_opt_f64 ix_gpu_be_hbm_bps(int clock_khz, int width_bits);

/* --- Buffers ------------------------------------------------------------ */

size_t ix_gpu_be_round_up(size_t n, size_t to);

/*
 * The start of an allocation: out described (mem, size, device or -1 for
 * host kinds), a size of 0 refused, pageable host memory allocated here
 * (whole host pages). 1: the backend allocates the device or pinned memory
 * on device *use (device memory's owner, else the device named or 0);
 * 0: done; -1: error.
 */
int ix_gpu_be_alloc_begin(enum ix_gpu_mem mem, int device, size_t size, size_t page,
			  struct ix_gpu_buf *out, int *use, struct ix_err *err);

/* The end of every free: pageable host memory released, b emptied. */
void ix_gpu_be_free_end(struct ix_gpu_buf *b);

/* Fill a host buffer (pinned or pageable) with v: true; false for device
 * memory, which the backend fills. */
bool ix_gpu_be_fill_host(const struct ix_gpu_buf *b, uint8_t v);

/* 0 when b is device memory allocated here, else IX_EXIT_UNAVAILABLE. */
int ix_gpu_be_check_export(const struct ix_gpu_buf *b, struct ix_err *err);

/* 0 when b can be exported as a dmabuf (device memory allocated here, on a
 * host page boundary), else IX_EXIT_UNAVAILABLE. */
int ix_gpu_be_check_dmabuf(const struct ix_gpu_buf *b, size_t page, struct ix_err *err);

/* out: device memory of device, mapped from another process at dev. */
void ix_gpu_be_imported(struct ix_gpu_buf *out, int device, size_t size, uint64_t dev);

/* --- Copies ------------------------------------------------------------- */

/* 0 when a batch of n copies, reps timed and warmup untimed repetitions,
 * is one a backend runs, else IX_EXIT_USAGE. */
int ix_gpu_be_check_batch(int n, int reps, int warmup, struct ix_err *err);

/* 0 when c's exec_device is one of the ndev and its bytes fit both
 * buffers, else IX_EXIT_USAGE. */
int ix_gpu_be_check_copy(const char *vendor, int ndev, const struct ix_gpu_copy *c,
			 struct ix_err *err);

/* 0 when a kernel on device d can reach b (not pageable host memory, not
 * another device's memory without peer access from d), else
 * IX_EXIT_UNAVAILABLE naming what (the copy's "source", ...). */
int ix_gpu_be_kernel_reach(const struct ix_gpu_be_peers *peer, int d, const struct ix_gpu_buf *b,
			   const char *what, struct ix_err *err);

/* Whether c goes between two devices with no peer access from the
 * stream's device to one of them: the driver then stages it through the
 * host (the vendor's MemcpyPeerAsync). */
bool ix_gpu_be_staged(const struct ix_gpu_be_peers *peer, const struct ix_gpu_copy *c);

/* Whether c cannot wait behind a start gate: the driver may carry out a
 * copy from or to pageable memory, or a staged one, on the queuing
 * thread, which would then wait on a held stream. */
bool ix_gpu_be_ungated(const struct ix_gpu_be_peers *peer, const struct ix_gpu_copy *c);

/* Whether n copies of warmup + reps repetitions fit behind a gate. */
bool ix_gpu_be_gate_fits(int n, int reps, int warmup);

/* --- Host transfers (upload, download) ---------------------------------- */

/*
 * The start of a synchronous transfer of n bytes between host memory and b
 * at byte offset off: from src (upload) or into dst (download), the other
 * NULL. [off, off + n) outside b is IX_EXIT_USAGE; host memory of either
 * kind is copied here. 1: the backend copies device memory (b->dev + off,
 * on device b->device); 0: done; -1: error.
 */
int ix_gpu_be_transfer_begin(const struct ix_gpu_buf *b, size_t off, const void *src, void *dst,
			     size_t n, struct ix_err *err);

#endif
