/* What one node is made of, as an agent answers an inventory request:
 * kernel, libibverbs, NICs (model, firmware, driver, PCIe link as trained,
 * NUMA node, MTU), GPUs, the topology findings of ixperf topo and the
 * interface addresses with their RDMA devices and leaf switches. Read
 * from sysfs and procfs under a root only ("" for the live system), the
 * addresses aside (the agent's network namespace), in bounded amounts:
 * the whole answer fits one control frame. */
#ifndef IX_NODEINV_H
#define IX_NODEINV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/host/ifaddr.h"
#include "probes/host/pci.h"

#define IX_INV_MAX_NICS     32
#define IX_INV_MAX_GPUS     16
#define IX_INV_MAX_FINDINGS 32
#define IX_INV_STR          64

/* A PCIe link as trained (gen, width) and as capable (max_*). */
struct ix_inv_pcie {
	bool known;
	int gen, width, max_gen, max_width;
	bool downtrained; /* below what both ends support */
};

struct ix_inv_nic {
	char name[32]; /* its network device, else its RDMA device */
	char rdma[32]; /* its RDMA device; "" when none */
	char bdf[IX_PCI_BDF_LEN];
	char model[IX_INV_STR];          /* hca_type, else "vendor:device" */
	char fw[IX_INV_STR];             /* "" when unknown */
	char driver[IX_INV_STR];         /* "" when none is bound */
	char driver_version[IX_INV_STR]; /* /sys/module/DRV/version; "" in-tree */
	bool mtu_known;
	uint32_t mtu;
	int numa_node; /* -1 when unknown */
	struct ix_inv_pcie pcie;
};

struct ix_inv_gpu {
	char bdf[IX_PCI_BDF_LEN];
	char model[IX_INV_STR]; /* the driver's name, else "vendor:device" */
	char driver[IX_INV_STR];
	int numa_node;
	struct ix_inv_pcie pcie;
};

struct ix_inv_finding {
	char kind[24]; /* ix_finding_name: "pcie_downtrained", ... */
	bool error;    /* else a warning */
	char device[64];
	char message[384];
};

struct ix_node_inv {
	char hostname[IX_INV_STR];
	char kernel[IX_INV_STR];     /* "" when unknown */
	char verbs[IX_INV_STR];      /* libibverbs' file name ("libibverbs.so.1.14.44.0") */
	char gpu_driver[IX_INV_STR]; /* "nvidia 535.104.05", "amdgpu 6.3.6"; "" */
	struct ix_inv_nic nics[IX_INV_MAX_NICS];
	uint32_t nnics;
	struct ix_inv_gpu gpus[IX_INV_MAX_GPUS];
	uint32_t ngpus;
	struct ix_inv_finding findings[IX_INV_MAX_FINDINGS];
	uint32_t nfindings;
	uint32_t findings_total; /* before the cut at IX_INV_MAX_FINDINGS */
	bool truncated;          /* more NICs or GPUs than fit */
	/* The agent's interface addresses (ix_ifaddr_list), filled by the
	 * agent's answer: ix_node_inv_read leaves none. */
	struct ix_ifaddr addrs[IX_IFADDR_MAX];
	uint32_t naddrs;
};

/* Read the node under root. Never fails: what cannot be read stays "" or
 * unknown (a host without a PCI bus has no NICs). */
void ix_node_inv_read(const char *root, struct ix_node_inv *inv);
/* "Gen4 x8" (or "unknown") into buf. */
void ix_inv_pcie_str(const struct ix_inv_pcie *p, bool max, char *buf, size_t len);

#endif
