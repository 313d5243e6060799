/*
 * NVLinks through NVML, opened with dlopen: the few declarations it needs
 * are here, as NVML's header gives them (nvml.h, NVML API 11+).
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "probes/gpu/nvml.h"

typedef int nvmlReturn_t; /* NVML_SUCCESS 0 */
typedef void *nvmlDevice_t;
typedef int nvmlEnableState_t; /* NVML_FEATURE_ENABLED 1 */

#define NVML_SUCCESS         0
#define NVML_FEATURE_ENABLED 1

struct nvml_fns {
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	nvmlReturn_t (*by_bus_id)(const char *bus_id, nvmlDevice_t *dev);
	nvmlReturn_t (*link_state)(nvmlDevice_t dev, unsigned link, nvmlEnableState_t *active);
	nvmlReturn_t (*link_version)(nvmlDevice_t dev, unsigned link, unsigned *version);
	const char *(*error_string)(nvmlReturn_t r);
};

/* nvmlNvlinkVersion_t: 1 1.0, 2 2.0, 3 2.2, 4 3.0, 5 3.1, 6 4.0, 7 5.0.
 * Each way per link: 20 GB/s (1.0), 25 GB/s (2.x to 4.0), 50 GB/s (5.0). */
static const struct {
	const char *name;
	double Bps;
} versions[] = { { "?", 0 },      { "1.0", 20e9 }, { "2.0", 25e9 }, { "2.2", 25e9 },
		 { "3.0", 25e9 }, { "3.1", 25e9 }, { "4.0", 25e9 }, { "5.0", 50e9 } };
#define NVERSIONS ((int)(sizeof(versions) / sizeof(versions[0])))

const char *ix_nvlink_version_name(int version)
{
	return version > 0 && version < NVERSIONS ? versions[version].name : "?";
}

double ix_nvlink_link_Bps(int version)
{
	return version > 0 && version < NVERSIONS ? versions[version].Bps : 0;
}

static const char *nvml_err(const struct nvml_fns *f, nvmlReturn_t r, char *buf, size_t len)
{
	const char *s = f->error_string ? f->error_string(r) : NULL;

	snprintf(buf, len, "%s (NVML error %d)", s ? s : "unknown", r);
	return buf;
}

static int links_of(const struct nvml_fns *f, const char *bus_id, struct ix_nvlinks *out,
		    const char *name, struct ix_err *err)
{
	nvmlDevice_t dev = NULL;
	char why[128];
	nvmlReturn_t r = f->by_bus_id(bus_id, &dev);

	if (r != NVML_SUCCESS)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s does not know GPU %s: %s", name,
			       bus_id, nvml_err(f, r, why, sizeof(why)));
	for (unsigned l = 0; l < IX_NVML_MAX_LINKS; l++) {
		nvmlEnableState_t on = 0;
		unsigned v = 0;

		/* past the GPU's last link, or no NVLink at all: not supported */
		if (f->link_state(dev, l, &on) != NVML_SUCCESS || on != NVML_FEATURE_ENABLED)
			continue;
		out->active++;
		if (f->link_version(dev, l, &v) == NVML_SUCCESS && !out->version)
			out->version = (int)v;
		out->Bps += ix_nvlink_link_Bps((int)v);
	}
	return 0;
}

int ix_nvml_nvlinks(const char *lib, const char *pci_bus_id, struct ix_nvlinks *out,
		    struct ix_err *err)
{
	const char *name = lib ? lib : "libnvidia-ml.so.1";
	struct nvml_fns f;
	void *h;
	int rc;

	memset(out, 0, sizeof(*out));
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "no %s: %s", name, dlerror());
	*(void **)&f.init = dlsym(h, "nvmlInit_v2");
	*(void **)&f.shutdown = dlsym(h, "nvmlShutdown");
	*(void **)&f.by_bus_id = dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&f.link_state = dlsym(h, "nvmlDeviceGetNvLinkState");
	*(void **)&f.link_version = dlsym(h, "nvmlDeviceGetNvLinkVersion");
	*(void **)&f.error_string = dlsym(h, "nvmlErrorString");
	if (!f.init || !f.shutdown || !f.by_bus_id || !f.link_state || !f.link_version) {
		dlclose(h);
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s lacks the NVLink calls", name);
	}
	if (f.init() != NVML_SUCCESS) {
		dlclose(h);
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s did not initialise", name);
	}
	rc = links_of(&f, pci_bus_id, out, name, err);
	f.shutdown();
	dlclose(h);
	return rc;
}
