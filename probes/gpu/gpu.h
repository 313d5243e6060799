/*
 * GPU backends: one file per vendor (cuda.c: the CUDA driver API in
 * libcuda.so.1; hip.c: HIP in libamdhip64.so), both opened with dlopen
 * at run time, with the few types and prototypes they use declared in the
 * backend file itself. Nothing here includes a vendor header, and the
 * binary builds and runs where neither library exists.
 *
 * A backend executes batches of copies and kernels and times them; what to
 * copy where (the test plan, the matrices, the units) lives in bench.c
 * and never calls a vendor function. Other probes take GPU buffers from
 * the same interface (ix_gpu_alloc + dmabuf export for GPUDirect RDMA).
 *
 * Backends are listed in the explicit table of gpu.c; ix_gpu_open tries
 * them in order (or the one named) and reports, one line each, why a
 * backend is not available.
 */
#ifndef IX_GPU_H
#define IX_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"
#include "probes/core/probe.h"

#define IX_GPU_MAX_DEVICES 64
#define IX_GPU_NAME_MAX    128
#define IX_GPU_IPC_HANDLE  64 /* bytes of an IPC memory handle (CUDA and HIP) */
#define IX_GPU_MAX_COPIES  (2 * IX_GPU_MAX_DEVICES)

/* What a backend can do on this machine (ix_gpu_backend_info.caps). */
enum ix_gpu_cap {
	IX_GPU_CAP_PEER = 1u << 0,   /* peer access between devices (some pair) */
	IX_GPU_CAP_KERNEL = 1u << 1, /* the embedded kernels load: SM copies, pointer chase */
	IX_GPU_CAP_IPC = 1u << 2,    /* device buffers exported to another process */
	IX_GPU_CAP_DMABUF = 1u << 3, /* a dmabuf fd of device memory (GPUDirect RDMA) */
};

struct ix_gpu_info {
	int index; /* the backend's device ordinal */
	char name[IX_GPU_NAME_MAX];
	uint64_t mem_bytes;
	char pci_bus_id[32];       /* sysfs form, lowercase: "0000:18:00.0" */
	struct ix_opt_f64 hbm_bps; /* theoretical memory bandwidth (clock x bus width x 2),
				    * bytes per second; not valid when not reported */
	uint32_t multiprocessors;  /* SMs / CUs */
	int numa_node;             /* -1: unknown (filled by gpu_bench from sysfs) */
};

enum ix_gpu_mem {
	IX_GPU_MEM_DEVICE = 0, /* device memory of buf.device */
	IX_GPU_MEM_PINNED,     /* page-locked host memory, mapped for every device */
	IX_GPU_MEM_PAGEABLE,   /* plain malloc'd host memory */
};

/* A buffer. dev is the device address (device memory, or the device
 * mapping of pinned host memory), host the host address (host kinds). */
struct ix_gpu_buf {
	enum ix_gpu_mem mem;
	int device; /* owner (device memory), or -1 for host kinds */
	size_t size;
	uint64_t dev;
	void *host;
	bool imported; /* from ix_gpu_ipc_import: released with ix_gpu_ipc_close */
	void *priv;    /* backend bookkeeping */
};

/* How a copy is carried out. */
enum ix_gpu_engine {
	IX_GPU_CE = 0, /* copy engine: cuMemcpyAsync / hipMemcpyAsync */
	IX_GPU_SM,     /* the embedded copy kernel, run on exec_device */
};

/* One copy of a batch: bytes from src to dst, repeated reps times on a
 * stream of exec_device. A peer copy (device to another device) needs peer
 * access enabled first for IX_GPU_SM; IX_GPU_CE copies between devices
 * without peer access go through the host (the driver stages them). */
struct ix_gpu_copy {
	const struct ix_gpu_buf *src, *dst;
	size_t bytes;
	int exec_device;
	enum ix_gpu_engine engine;
	/* Filled by the backend: time from the copy's first byte to its last
	 * repetition, from events on its own stream, in ns. */
	double ns;
};

struct ix_gpu;               /* a backend's state once opened */
struct ix_gpu_backend_info { /* what ix_gpu_open found */
	const char *name;    /* "cuda", "rocm" */
	char library[256];   /* the library loaded, as dlopen found it */
	char version[64];    /* driver / runtime version */
	unsigned caps;       /* enum ix_gpu_cap */
	int ndevices;
	char no_kernel[256]; /* without IX_GPU_CAP_KERNEL: why, and what runs instead */
};

/*
 * A backend. Every function returns 0, or -1 with err filled: a missing
 * library or driver is IX_EXIT_UNAVAILABLE with one sentence ("libcuda.so.1
 * not found: no NVIDIA driver on this machine", "libcuda.so.1 is the CUDA
 * toolkit's stub library: install the NVIDIA driver"), a failing call is
 * IX_EXIT_FAIL naming the call and the vendor's error name.
 */
struct ix_gpu_backend {
	const char *name;
	/* dlopen, resolve, initialise; *out is the backend's state. lib: a
	 * library path to use instead of the default (tests), or NULL. */
	int (*open)(struct ix_gpu **out, const char *lib, struct ix_gpu_backend_info *info,
		    struct ix_err *err);
	void (*close)(struct ix_gpu *g);
	int (*info)(struct ix_gpu *g, int device, struct ix_gpu_info *out, struct ix_err *err);
	int (*can_access_peer)(struct ix_gpu *g, int from, int to, bool *yes, struct ix_err *err);
	/* Enable (or disable) device from's access to device to's memory. */
	int (*set_peer)(struct ix_gpu *g, int from, int to, bool on, struct ix_err *err);
	int (*alloc)(struct ix_gpu *g, enum ix_gpu_mem mem, int device, size_t size,
		     struct ix_gpu_buf *out, struct ix_err *err);
	void (*free)(struct ix_gpu *g, struct ix_gpu_buf *b);
	/* Fill b with byte value v (device or host), synchronously. */
	int (*fill)(struct ix_gpu *g, const struct ix_gpu_buf *b, uint8_t v, struct ix_err *err);
	/* Run the n copies of a batch at once, each on its own stream, all held
	 * back until every one is queued (a spin kernel or an event gate), and
	 * time each (copies[i].ns). warmup repetitions run first, untimed. */
	int (*copy_batch)(struct ix_gpu *g, struct ix_gpu_copy *copies, int n, int reps, int warmup,
			  struct ix_err *err);
	/* Pointer chase: a single thread on exec_device follows a chain of
	 * `hops` pointers laid out in chain (stride bytes apart, in an order
	 * that defeats prefetch), and the mean time per hop comes back, in
	 * ns. Needs IX_GPU_CAP_KERNEL. */
	int (*chase)(struct ix_gpu *g, int exec_device, const struct ix_gpu_buf *chain,
		     size_t stride, uint64_t hops, double *ns_per_hop, struct ix_err *err);
	/* CUDA/HIP IPC: export a device buffer as a handle another process
	 * imports and maps. Needs IX_GPU_CAP_IPC. */
	int (*ipc_export)(struct ix_gpu *g, const struct ix_gpu_buf *b,
			  uint8_t handle[IX_GPU_IPC_HANDLE], struct ix_err *err);
	int (*ipc_import)(struct ix_gpu *g, int device, const uint8_t handle[IX_GPU_IPC_HANDLE],
			  size_t size, struct ix_gpu_buf *out, struct ix_err *err);
	void (*ipc_close)(struct ix_gpu *g, struct ix_gpu_buf *b);
	/* A dmabuf fd for [b->dev, b->dev + b->size) (GPUDirect RDMA through
	 * ibv_reg_dmabuf_mr); IX_EXIT_UNAVAILABLE when the driver has none. */
	int (*dmabuf_fd)(struct ix_gpu *g, const struct ix_gpu_buf *b, int *fd, struct ix_err *err);

	/* --- Work another library queues (NCCL, RCCL: probes/coll) --------- */
	/* Make device's context current on the calling thread (the vendor's
	 * runtime, and a library over it, then use that device). */
	int (*use)(struct ix_gpu *g, int device, struct ix_err *err);
	/* A stream of device (CUstream / hipStream_t, as the library takes
	 * it), non-blocking with respect to the default stream. */
	int (*stream_new)(struct ix_gpu *g, int device, void **stream, struct ix_err *err);
	void (*stream_free)(struct ix_gpu *g, int device, void *stream);
	/* 1: all the stream's work is done; 0: some is still queued or
	 * running; -1 with err: the stream failed. Never waits. */
	int (*stream_done)(struct ix_gpu *g, void *stream, struct ix_err *err);
	/* Events on device's streams: recorded where the stream has reached,
	 * and the time between two that completed, in ms. */
	int (*event_new)(struct ix_gpu *g, int device, void **event, struct ix_err *err);
	void (*event_free)(struct ix_gpu *g, int device, void *event);
	int (*event_record)(struct ix_gpu *g, void *event, void *stream, struct ix_err *err);
	int (*event_ms)(struct ix_gpu *g, void *start, void *end, float *ms, struct ix_err *err);
	/* Synchronous copies between host memory and a buffer of any kind, at
	 * byte offset off of b ([off, off + n) must lie within b). */
	int (*upload)(struct ix_gpu *g, const struct ix_gpu_buf *b, size_t off, const void *src,
		      size_t n, struct ix_err *err);
	int (*download)(struct ix_gpu *g, void *dst, const struct ix_gpu_buf *b, size_t off,
			size_t n, struct ix_err *err);
};

extern const struct ix_gpu_backend ix_gpu_cuda;
extern const struct ix_gpu_backend ix_gpu_hip;

/* The table, in the order ix_gpu_open tries them. */
const struct ix_gpu_backend *const *ix_gpu_backends(size_t *n);
const struct ix_gpu_backend *ix_gpu_backend_find(const char *name);

/* An opened backend and its devices. */
struct ix_gpu_ctx {
	const struct ix_gpu_backend *be;
	struct ix_gpu *g;
	struct ix_gpu_backend_info info;
	int ndevices;
	struct ix_gpu_info dev[IX_GPU_MAX_DEVICES];
};

/* Open the backend named (NULL: the first that opens, in table order) and
 * read every device's info. lib overrides the library path (NULL: the
 * vendor's default). When none opens, IX_EXIT_UNAVAILABLE with one line
 * per backend tried, joined by "; ". */
int ix_gpu_open(struct ix_gpu_ctx *c, const char *backend, const char *lib, struct ix_err *err);
void ix_gpu_close(struct ix_gpu_ctx *c);

const char *ix_gpu_mem_name(enum ix_gpu_mem m);       /* "device", "pinned", "pageable" */
const char *ix_gpu_engine_name(enum ix_gpu_engine e); /* "ce", "sm" */

#endif
