/* Renderers of the machine's topology (report/topo.c). */
#ifndef IX_REPORT_TOPO_H
#define IX_REPORT_TOPO_H

#include <stdio.h>

#include <jansson.h>

#include "probes/topo.h"

/* The "topo" result: numa, pci, interfaces, rdma, cxl, paths, findings,
 * notes (report/ixperf-result.schema.json). */
json_t *ix_json_topo(const struct ix_topo *t);
/* The PCI tree, the path matrix, NUMA and CXL, interfaces and RDMA ports
 * with GIDs, then the findings and notes. */
void ix_text_topo(FILE *f, const struct ix_topo *t);

#endif
