/*
 * The PCI tree from sysfs: every function under ROOT/sys/bus/pci/devices,
 * its place in the tree (from the real path of its directory), what it is
 * (GPU, NIC, NVMe, CXL, root port, switch port), its link as trained and
 * as capable at both ends, and its AER counters.
 */
#ifndef IX_PCI_H
#define IX_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

enum ix_pci_type {
	IX_PCI_OTHER,
	IX_PCI_GPU,
	IX_PCI_NIC, /* Ethernet */
	IX_PCI_IB,  /* InfiniBand */
	IX_PCI_NVME,
	IX_PCI_CXL,
	IX_PCI_ROOT_PORT,
	IX_PCI_SWITCH_UP,
	IX_PCI_SWITCH_DOWN,
	IX_PCI_BRIDGE,
};

struct ix_pci_link {
	bool present;                      /* current speed and width were read */
	double speed_gts, max_speed_gts;   /* GT/s per lane; 0 when unknown */
	int gen, max_gen;                  /* PCIe generation; 0 when unknown */
	int width, max_width;              /* lanes; 0 when unknown */
	int expected_gen, expected_width;  /* the lower of both ends' capabilities */
	double bps, max_bps, expected_bps; /* per direction, after line encoding */
	bool downtrained;                  /* below what both ends support */
};

#define IX_PCI_NAMES 8 /* netdevs or RDMA devices kept per function */

struct ix_pci_dev {
	char bdf[16];
	uint16_t vendor, device;
	uint32_t class; /* 24 bits: base, sub, interface */
	bool class_known;
	enum ix_pci_type type;
	char driver[64]; /* "" when none is bound */
	int numa_node;   /* -1 when unknown */
	int parent;      /* index of the bridge above, -1 under the host bridge */
	int sw;          /* index of the switch's upstream port it is below, or -1 */
	char host_bridge[32];
	int depth; /* bridges above it */
	struct ix_pci_link link;
	bool aer_known;
	uint64_t aer_cor, aer_nonfatal, aer_fatal;
	char netdevs[IX_PCI_NAMES][32];
	size_t nnetdevs;
	char rdma[IX_PCI_NAMES][32];
	size_t nrdma;
};

struct ix_pci {
	struct ix_pci_dev *v; /* sorted by bdf */
	size_t n;
	char **notes; /* what could not be read, one sentence each */
	size_t nnotes;
};

/* Read the tree under root. Unreadable or odd entries become notes; only a
 * missing ROOT/sys/bus/pci/devices is an error (IX_EXIT_UNAVAILABLE). */
int ix_pci_read(const char *root, struct ix_pci *out, struct ix_err *err);
void ix_pci_free(struct ix_pci *p);
/* The function at bdf, or -1. */
int ix_pci_find(const struct ix_pci *p, const char *bdf);
/* A note (printf-style); false when out of memory. */
bool ix_pci_note(struct ix_pci *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "32.0 GT/s PCIe" -> 32.0; -1 when it is not a speed PCIe has. */
int ix_pcie_parse_speed(const char *s, double *gts);
int ix_pcie_gen(double gts);
/* Per-direction bit/s of a link: 8b/10b for Gen1-2, 128b/130b for Gen3-5,
 * FLIT mode (242 of 256 bytes) for Gen6. */
double ix_pcie_bps(double gts, int width);
const char *ix_pci_type_name(enum ix_pci_type t);

#endif
