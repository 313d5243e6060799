/*
 * A GPU's NVLinks, as NVIDIA's management library (libnvidia-ml.so.1,
 * opened with dlopen) reports them: how many are active, their version,
 * and what they carry together in one direction.
 */
#ifndef IX_NVML_H
#define IX_NVML_H

#include "probes/core/err.h"

#define IX_NVML_MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS */

struct ix_nvlinks {
	int active;  /* links in the active state */
	int version; /* NVML's nvmlNvlinkVersion_t of the first active link; 0 none */
	double Bps;  /* the active links together, per direction (bytes/s) */
};

/* The NVLinks of the GPU at pci_bus_id ("0000:18:00.0"), through lib (NULL:
 * libnvidia-ml.so.1). -1 with err (IX_EXIT_UNAVAILABLE) when the library
 * does not load or does not know the GPU; a GPU without NVLink has 0
 * active links. */
int ix_nvml_nvlinks(const char *lib, const char *pci_bus_id, struct ix_nvlinks *out,
		    struct ix_err *err);
/* "4.0" for NVML's version 6; "?" for one not known. */
const char *ix_nvlink_version_name(int version);
/* Bytes per second one link of that version carries each way; 0 unknown. */
double ix_nvlink_link_Bps(int version);

#endif
