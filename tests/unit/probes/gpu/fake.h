/*
 * A SIMULATED GPU backend for the unit tests of probes/gpu/bench.c and
 * report/json/gpu.c. It is not a driver and measures nothing: copy_batch works
 * out each copy's time from its bytes and the rates configured here (copies
 * of one batch that share a link share its bandwidth), a pointer chase
 * returns the configured latency, and any call can be made to fail. It is
 * linked into tests/unit/probes/gpu/test_bench only: not into ixperf, and not in
 * the backend table of probes/gpu/gpu.c, so no command line reaches it.
 */
#ifndef IX_TESTS_UNIT_GPU_FAKE_H
#define IX_TESTS_UNIT_GPU_FAKE_H

#include <stdbool.h>

#include "probes/gpu/gpu.h"

#define GPU_FAKE_JITTER 8

struct gpu_fake_config {
	int ndevices;
	unsigned caps; /* enum ix_gpu_cap */
	/* Bytes per second. hbm: reported as info.hbm_bps (0: not reported);
	 * a copy within one device moves at half of it (read and write). */
	double hbm_Bps[IX_GPU_MAX_DEVICES];
	double pcie_Bps[IX_GPU_MAX_DEVICES]; /* each direction */
	double host_Bps; /* host memory, each way, shared by every host copy (0: no limit) */
	/* Peer links, [from][to], for data moving that way; a GPU can reach
	 * another's memory when a link joins them either way, unless denied. */
	double peer_Bps[IX_GPU_MAX_DEVICES][IX_GPU_MAX_DEVICES];
	bool deny[IX_GPU_MAX_DEVICES][IX_GPU_MAX_DEVICES]; /* [from][to]: no peer access */
	double nvlink_Bps[IX_GPU_MAX_DEVICES]; /* all peer traffic into a device, and out of
						* it (0: no such limit) */
	double pageable_factor; /* pageable host memory runs at this share of the link */
	double staged_factor;   /* a copy through the host, of the lower link */
	double sm_factor;       /* copy kernels */
	double ipc_factor;      /* copies from an imported buffer */
	double host_lat_ns[IX_GPU_MAX_DEVICES];                     /* chase in host memory */
	double peer_lat_ns[IX_GPU_MAX_DEVICES][IX_GPU_MAX_DEVICES]; /* [owner][reader] */
	/* The times of successive batches and chases are multiplied by these
	 * in turn (none: by 1). */
	double jitter[GPU_FAKE_JITTER];
	int njitter;
	char bus_id[IX_GPU_MAX_DEVICES][32];
	/* Failure injection: calls of this backend function ("copy_batch",
	 * "alloc", "fill", "chase", "set_peer", "ipc_export", "ipc_import")
	 * after the first fail_after fail, each with IX_EXIT_FAIL. */
	const char *fail_call;
	int fail_after;
};

extern const struct ix_gpu_backend gpu_fake_backend;

/* n devices: HBM 4 TB/s, PCIe 50 GB/s, peer links 300 GB/s both ways,
 * every capability, factors 1, latencies 800 ns (host), 600 ns (local),
 * 1500 ns (peer), bus ids 0000:18:00.0, 0000:19:00.0, ... */
void gpu_fake_defaults(struct gpu_fake_config *cfg, int n);
/* What ix_gpu_open does, for the simulated backend: c holds it and the
 * info of every device. */
int gpu_fake_ctx(struct ix_gpu_ctx *c, const struct gpu_fake_config *cfg, struct ix_err *err);

/* What the bench left behind and did. */
int gpu_fake_live_buffers(const struct ix_gpu *g); /* allocated and imported, not freed */
bool gpu_fake_peer_on(const struct ix_gpu *g, int from, int to);
int gpu_fake_max_batch(const struct ix_gpu *g); /* most copies in one batch */
int gpu_fake_calls(const struct ix_gpu *g, const char *call);

#endif
