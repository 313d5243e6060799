/*
 * A SIMULATED libnvidia-ml.so.1 for tests: the NVLink calls of NVML over
 * GPUs that do not exist. FAKENVML_LINKS lists them,
 * "BUSID=ACTIVE[:VERSION],..." (bus ids as sysfs writes them, VERSION as
 * nvmlNvlinkVersion_t, default 6: NVLink 4.0); any other bus id is not
 * found. FAKENVML_FAIL=init makes nvmlInit_v2 fail.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NVML_SUCCESS                0
#define NVML_ERROR_UNINITIALIZED    1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED    3
#define NVML_ERROR_NOT_FOUND        6
#define MAX_GPUS                    16

struct gpu {
	char bus_id[32];
	unsigned active, version;
};

static struct gpu gpus[MAX_GPUS];
static int ngpus, inits;

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, void **dev);
int nvmlDeviceGetNvLinkState(void *dev, unsigned link, int *active);
int nvmlDeviceGetNvLinkVersion(void *dev, unsigned link, unsigned *version);
const char *nvmlErrorString(int r);

int nvmlInit_v2(void)
{
	const char *fail = getenv("FAKENVML_FAIL"), *spec = getenv("FAKENVML_LINKS");
	char buf[1024], *tok, *save = NULL;

	if (fail && !strcmp(fail, "init"))
		return NVML_ERROR_UNINITIALIZED;
	ngpus = 0;
	snprintf(buf, sizeof(buf), "%s", spec ? spec : "");
	for (tok = strtok_r(buf, ",", &save); tok && ngpus < MAX_GPUS;
	     tok = strtok_r(NULL, ",", &save)) {
		struct gpu *g = &gpus[ngpus];
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq = '\0';
		snprintf(g->bus_id, sizeof(g->bus_id), "%s", tok);
		g->version = 6;
		if (sscanf(eq + 1, "%u:%u", &g->active, &g->version) >= 1)
			ngpus++;
	}
	inits++;
	return NVML_SUCCESS;
}

int nvmlShutdown(void)
{
	if (inits <= 0)
		return NVML_ERROR_UNINITIALIZED;
	inits--;
	return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, void **dev)
{
	if (inits <= 0)
		return NVML_ERROR_UNINITIALIZED;
	if (!bus_id || !dev)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < ngpus; i++)
		if (!strcasecmp(gpus[i].bus_id, bus_id)) {
			*dev = &gpus[i];
			return NVML_SUCCESS;
		}
	return NVML_ERROR_NOT_FOUND;
}

int nvmlDeviceGetNvLinkState(void *dev, unsigned link, int *active)
{
	const struct gpu *g = dev;

	if (inits <= 0)
		return NVML_ERROR_UNINITIALIZED;
	if (!g || !active || link >= 18)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!g->active)
		return NVML_ERROR_NOT_SUPPORTED;
	*active = link < g->active;
	return NVML_SUCCESS;
}

int nvmlDeviceGetNvLinkVersion(void *dev, unsigned link, unsigned *version)
{
	const struct gpu *g = dev;

	if (inits <= 0)
		return NVML_ERROR_UNINITIALIZED;
	if (!g || !version || link >= 18)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!g->active)
		return NVML_ERROR_NOT_SUPPORTED;
	*version = g->version;
	return NVML_SUCCESS;
}

const char *nvmlErrorString(int r)
{
	switch (r) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_UNINITIALIZED:
		return "Uninitialized";
	case NVML_ERROR_NOT_FOUND:
		return "Not Found";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	default:
		return "Invalid Argument";
	}
}
