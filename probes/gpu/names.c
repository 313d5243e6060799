/* Names and derived figures of the GPU tests, for every renderer. */
#include "config.h"

#include <stdio.h>

#include "probes/gpu/bench.h"

void ix_gpu_test_describe(const struct ix_gpu_test *t, char *buf, size_t len)
{
	const char *eng = t->engine == IX_GPU_SM ? "copy kernel" : "copy engine";
	const char *who = t->read ? "reader" : "writer";
	const char *many = t->kind == IX_GPU_T_AGG && t->to != t->read ? "s" : "";

	switch (t->kind) {
	case IX_GPU_T_HOST:
		snprintf(buf, len, "%s%s, %s memory, %s", t->to ? "host -> GPU" : "GPU -> host",
			 !t->bidir ? ""
			 : t->to   ? " while GPU -> host runs"
				   : " while host -> GPU runs",
			 ix_gpu_mem_name(t->host_mem), eng);
		break;
	case IX_GPU_T_LOCAL:
		snprintf(buf, len, "within each GPU's memory, %s (memory traffic: twice the bytes)",
			 eng);
		break;
	case IX_GPU_T_PEER:
		snprintf(buf, len, "GPU -> GPU%s, peer access, %s of the %s%s",
			 t->bidir ? " while the reverse copy runs" : "", eng, who,
			 t->bidir ? "s" : "");
		break;
	case IX_GPU_T_AGG:
		snprintf(buf, len, "%s at once, %s of the %s%s",
			 t->to ? "all other GPUs -> GPU" : "GPU -> all other GPUs", eng, who, many);
		break;
	case IX_GPU_T_STAGED:
		snprintf(buf, len,
			 "GPU -> GPU with peer access off: the driver stages it through "
			 "host memory");
		break;
	case IX_GPU_T_IPC:
		snprintf(buf, len,
			 "GPU -> GPU from another process (CUDA/HIP IPC), %s of the reader", eng);
		break;
	case IX_GPU_T_LAT_HOST:
		snprintf(buf, len, "pointer chase in pinned host memory from each GPU, ns per hop");
		break;
	case IX_GPU_T_LAT_PEER:
		snprintf(buf, len,
			 "pointer chase in the row GPU's memory from the column GPU "
			 "(diagonal: its own), ns per hop");
		break;
	}
}

void ix_gpu_label(int dev, char *buf, size_t len)
{
	if (dev >= 0)
		snprintf(buf, len, "GPU%d", dev);
	else
		snprintf(buf, len, "%s",
			 dev == IX_GPU_HOST  ? "host"
			 : dev == IX_GPU_ALL ? "all"
					     : "local");
}

const char *ix_gpu_ref_name(enum ix_gpu_ref r)
{
	static const char *const n[] = { NULL, "pcie_link", "hbm", "in_process" };
	return r <= IX_GPU_REF_INPROC ? n[r] : NULL;
}

const char *ix_gpu_status_name(enum ix_gpu_status s)
{
	return s == IX_GPU_OK ? "ok" : s == IX_GPU_SKIPPED ? "skipped" : "failed";
}

const char *ix_gpu_cap_name(unsigned bit)
{
	return bit == IX_GPU_CAP_PEER     ? "peer"
	       : bit == IX_GPU_CAP_KERNEL ? "kernel"
	       : bit == IX_GPU_CAP_IPC    ? "ipc"
	       : bit == IX_GPU_CAP_DMABUF ? "dmabuf"
					  : NULL;
}

const char *ix_gpu_cell_state_name(uint8_t s)
{
	static const char *const n[] = { "pending", "ok", "failed", "none" };
	return s < 4 ? n[s] : "pending";
}

bool ix_gpu_cell_percent(const struct ix_gpu_meas *m, const struct ix_gpu_cell *c, double *pct)
{
	if (!c->value.valid || !c->reference.valid || !(c->reference.v > 0))
		return false;
	*pct = 100.0 * m->traffic_factor * c->value.v / c->reference.v;
	return true;
}

bool ix_gpu_test_is_latency(const struct ix_gpu_test *t)
{
	return t->kind == IX_GPU_T_LAT_HOST || t->kind == IX_GPU_T_LAT_PEER;
}
