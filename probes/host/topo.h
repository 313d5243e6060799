/*
 * The machine as the fabric sees it: the PCI tree (probes/host/pci.h), NUMA
 * nodes with the HMAT figures, network interfaces, RDMA ports with their
 * GIDs, the CXL bus (probes/host/cxl.h); the GPU/NIC path matrix in nvidia-smi's terms; and findings:
 * what is mis-built or unhealthy, one sentence each.
 */
#ifndef IX_TOPO_H
#define IX_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"
#include "probes/host/cxl.h"
#include "probes/host/hmat.h"
#include "probes/host/links.h"
#include "probes/host/pci.h"

struct ix_numa_node {
	int node;
	char cpus[128]; /* cpulist; "" for a CPU-less node */
	bool memory_known;
	uint64_t memory_bytes;
	/* The GPU whose memory it is, as NVIDIA's driver says
	 * (/proc/driver/nvidia/gpus/BDF/numa_status); "" for a socket's
	 * memory or a CXL expander. */
	char gpu[IX_PCI_BDF_LEN];
	struct ix_hmat access[2]; /* what the firmware advertises (HMAT classes 0, 1) */
};

#define IX_TOPO_GIDS 16

struct ix_gid {
	unsigned index;
	char gid[48];
	char type[16];   /* "IB", "RoCE v1", "RoCE v2", "" when unknown */
	char netdev[32]; /* "" when none */
};

struct ix_rdma_port {
	const struct ix_link *link; /* in the topo's links: state, rate, netdev */
	int pci;                    /* index of its PCI function, or -1 */
	struct ix_gid gids[IX_TOPO_GIDS];
	size_t ngids;
};

struct ix_iface {
	const struct ix_link *link;
	char driver[64];
	int pci; /* the PCI function under it, or -1 */
};

/* Path classes, nearest first, as nvidia-smi topo -m names them. */
enum ix_path {
	IX_PATH_SELF, /* X */
	IX_PATH_PIX,  /* below one PCIe switch */
	IX_PATH_PXB,  /* through several switches, below one root port */
	IX_PATH_PHB,  /* through a host bridge */
	IX_PATH_NODE, /* between host bridges of one NUMA node */
	IX_PATH_SYS,  /* between NUMA nodes */
	/* "?": a function whose place in the PCI tree is unknown (a copy of
	 * sysfs without its links), on a NUMA node not known to differ. */
	IX_PATH_UNKNOWN,
};

enum ix_finding_kind {
	IX_FIND_DOWNTRAINED,
	IX_FIND_PORT_STATE,
	IX_FIND_MTU,
	IX_FIND_NUMA_FAR,
	IX_FIND_AER,
	IX_FIND_CXL, /* a CXL memory device's link protocols, setup, regions */
};

struct ix_finding {
	enum ix_finding_kind kind;
	bool error; /* an error; else a warning */
	char device[64];
	char message[384];
};

struct ix_topo {
	struct ix_pci pci;
	struct ix_links links;
	struct ix_numa_node *numa;
	size_t nnuma;
	struct ix_iface *ifaces;
	size_t nifaces;
	struct ix_rdma_port *ports;
	size_t nports;
	struct ix_cxl cxl; /* the CXL bus; its memory devices' pci set to their functions */
	int *path_dev;     /* PCI indexes of the matrix: GPUs, then NICs */
	size_t npath;
	size_t ngpus;
	uint8_t *paths; /* npath x npath enum ix_path */
	struct ix_finding *findings;
	size_t nfindings;
};

/* Discover everything under root ("" for the live system), without
 * judging it (probes/host/topo_check.h reads and judges). Odd entries
 * become notes (t->pci.notes); only a missing PCI bus is an error. */
int ix_topo_scan(const char *root, struct ix_topo *t, struct ix_err *err);
void ix_topo_free(struct ix_topo *t);

/* The path between two PCI functions. */
enum ix_path ix_topo_path(const struct ix_topo *t, int a, int b);
const char *ix_path_name(enum ix_path p);
const char *ix_finding_name(enum ix_finding_kind k);
/* The GPU nearest the PCI function that carries dev (an RDMA device or a
 * network interface): the nearest path class, then the first in PCI
 * order. Its PCI index and *path, or -1 (dev is no PCI function here, or
 * there is no GPU). */
int ix_topo_nearest_gpu(const struct ix_topo *t, const char *dev, enum ix_path *path);
/* The NUMA node of a PCI function, or -1. */
int ix_topo_numa(const struct ix_topo *t, int pci);

#endif
