/* A machine's topology with what is wrong with it: discovery
 * (probes/host/topo.h) followed by the findings, one sentence each that
 * an operator can act on. */
#ifndef IX_TOPO_CHECK_H
#define IX_TOPO_CHECK_H

#include "probes/core/err.h"
#include "probes/host/topo.h"

/* Discover everything under root ("" for the live system), then judge it
 * (ix_topo_check). Odd entries become notes (t->pci.notes); only a missing
 * PCI bus is an error. Free t with ix_topo_free. */
int ix_topo_read(const char *root, struct ix_topo *t, struct ix_err *err);

/* Findings over what was scanned: links below both ends' capabilities,
 * RDMA ports not ACTIVE/LinkUp, RoCE MTUs, NICs far from their nearest
 * GPU, AER errors (naming the retimers on the link), CXL memory devices
 * whose links run without CXL.mem or that are not set up, CXL regions not
 * committed. */
void ix_topo_check(const char *root, struct ix_topo *t);

#endif
