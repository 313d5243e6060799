/* Names and derived figures of the GPU tests, for every renderer. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

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
	case IX_GPU_T_HOST_ALL:
		snprintf(buf, len, "%s at once%s, each GPU's figure, %s memory, %s",
			 t->to ? "host -> every GPU" : "every GPU -> host",
			 !t->bidir ? ""
			 : t->to   ? " while every GPU -> host runs"
				   : " while host -> every GPU runs",
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

/* ---- ixperf gpu's lists (gpu, and the gpu checks of plans) ---- */

const char *const *ix_gpu_groups(void)
{
	static const char *const g[] = { "all", "bandwidth", "latency", "pcie", NULL };
	return g;
}

/* Whether test t is in group g; -1 when g is not a group. */
static int in_group(const struct ix_gpu_test *t, const char *g)
{
	bool lat = t->kind == IX_GPU_T_LAT_HOST || t->kind == IX_GPU_T_LAT_PEER;

	if (strcmp(g, "all") == 0)
		return 1;
	if (strcmp(g, "bandwidth") == 0)
		return !lat;
	if (strcmp(g, "latency") == 0)
		return lat;
	if (strcmp(g, "pcie") == 0)
		return t->kind == IX_GPU_T_HOST;
	return -1;
}

/* A comma list of test names and groups into sel. */
int ix_gpu_select_tests(const char *list, bool *sel, struct ix_err *err)
{
	const struct ix_gpu_test *t;
	size_t n = ix_gpu_tests(&t);
	const char *p = list;

	memset(sel, 0, IX_GPU_MAX_TESTS * sizeof(*sel));
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char name[64];
		int k;

		if (len == 0 || len >= sizeof(name))
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid value for --test: '%s' is not a list of tests",
				       list);
		memcpy(name, p, len);
		name[len] = '\0';
		if (in_group(&t[0], name) >= 0) {
			for (size_t i = 0; i < n; i++)
				sel[i] |= in_group(&t[i], name) == 1;
		} else if ((k = ix_gpu_test_find(name)) >= 0) {
			sel[k] = true;
		} else {
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid value for --test: unknown test '%s' ('ixperf gpu "
				       "list' shows them)",
				       name);
		}
		if (!end)
			return 0;
		p = end + 1;
	}
}

static int dev_num(const char **s, unsigned *v)
{
	unsigned x = 0;

	if (!isdigit((unsigned char)**s))
		return -1;
	for (; isdigit((unsigned char)**s); (*s)++)
		if ((x = x * 10 + (unsigned)(**s - '0')) >= IX_GPU_MAX_DEVICES)
			return -1;
	*v = x;
	return 0;
}

/* "0,2,4-7" into a mask of device indexes. */
int ix_gpu_parse_list(const char *list, uint64_t *mask, struct ix_err *err)
{
	const char *s = list;

	*mask = 0;
	while (*s) {
		unsigned a, b;

		if (dev_num(&s, &a) < 0)
			break;
		b = a;
		if (*s == '-' && (s++, dev_num(&s, &b) < 0 || b < a))
			break;
		for (unsigned k = a; k <= b; k++)
			*mask |= 1ull << k;
		if (!*s)
			return 0;
		if (*s++ != ',' || !*s)
			break;
	}
	return ix_fail(err, IX_EXIT_USAGE,
		       "invalid value for --gpus: '%s' is not a list of GPU indexes 0-%d, such "
		       "as 0,2-3",
		       list, IX_GPU_MAX_DEVICES - 1);
}
