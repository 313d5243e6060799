/*
 * The PCI tree from sysfs: every function under ROOT/sys/bus/pci/devices,
 * its place in the tree (from the real path of its directory), what it is
 * (GPU, NIC, NVMe, CXL, root port, switch port), its link as trained and
 * as capable at both ends, the retimers on it (from the config space),
 * and its AER counters.
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
	/* Below what both ends support (the lower of the port's and the
	 * device's capability); a link at a GPU that is only slower, not
	 * narrower, is idle_slow instead: GPUs slow their link when idle. */
	bool downtrained, idle_slow;
	/* Retimers on the link, as either end reports them in its PCIe Link
	 * Status 2 register: 0 to 2 where retimers_known, which takes an end
	 * that can detect them and whose config space was read past its first
	 * 64 bytes (only root can). */
	bool retimers_known;
	int retimers;
};

#define IX_PCI_NAMES 8 /* netdevs or RDMA devices kept per function */

/* A PCI address. The domain is 32 bits: the kernel prints it with %04x, so
 * domains above ffff (Intel VMD's, from 10000) are longer; the longest,
 * "ffffffff:ff:1f.7", is 16 characters. */
#define IX_PCI_BDF_LEN 17
struct ix_pci_addr {
	uint32_t domain;
	uint8_t bus, dev, fn;
};

struct ix_pci_dev {
	char bdf[IX_PCI_BDF_LEN]; /* as sysfs names it */
	struct ix_pci_addr addr;
	uint16_t vendor, device;
	uint32_t class; /* 24 bits: base, sub, interface */
	bool class_known;
	enum ix_pci_type type;
	char driver[64]; /* "" when none is bound */
	int numa_node;   /* -1 when unknown */
	int parent;      /* index of the function above, -1 under the host bridge */
	int sw;          /* index of the switch's upstream port it is below, or -1 */
	/* The host bridge of the CPU's root complex it is in ("pci0000:00"),
	 * also for the functions of a domain behind an Intel VMD controller,
	 * whose own host bridge ("pci10000:e0") hangs from the VMD function:
	 * that function is the parent of the domain's root ports. */
	char host_bridge[32];
	bool below_host_bridge; /* right below one: its CPU's, or a VMD domain's */
	int depth;              /* PCI functions above it */
	struct ix_pci_link link;
	bool aer_known;
	uint64_t aer_cor, aer_nonfatal, aer_fatal;
	char netdevs[IX_PCI_NAMES][32];
	size_t nnetdevs;
	char rdma[IX_PCI_NAMES][32];
	size_t nrdma;
};

struct ix_pci {
	struct ix_pci_dev *v; /* sorted by address: domain, bus, device, function */
	size_t n;
	char **notes; /* what could not be read, one sentence each */
	size_t nnotes;
};

/* Read the tree under root. Unreadable or odd entries become notes; only a
 * missing ROOT/sys/bus/pci/devices is an error (IX_EXIT_UNAVAILABLE). */
int ix_pci_read(const char *root, struct ix_pci *out, struct ix_err *err);
void ix_pci_free(struct ix_pci *p);
/* The function at bdf, or -1. The domain may have leading zeros
 * ("00000000:18:00.0", as CUDA writes it). */
int ix_pci_find(const struct ix_pci *p, const char *bdf);
/* "dddd:bb:dd.f" with a domain of 4 to 8 hex digits; false when s is not a
 * PCI address. */
bool ix_pci_parse_bdf(const char *s, struct ix_pci_addr *a);
int ix_pci_addr_cmp(const struct ix_pci_addr *a, const struct ix_pci_addr *b);
/* A note (printf-style); false when out of memory. */
bool ix_pci_note(struct ix_pci *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "32.0 GT/s PCIe" -> 32.0; -1 when it is not a speed PCIe has. */
int ix_pcie_parse_speed(const char *s, double *gts);
int ix_pcie_gen(double gts);
/* Per-direction bit/s of a link: 8b/10b for Gen1-2, 128b/130b for Gen3-5,
 * FLIT mode (242 of 256 bytes) for Gen6. */
double ix_pcie_bps(double gts, int width);
const char *ix_pci_type_name(enum ix_pci_type t);

/* The one rule for a link's health, for l as read (present, gen, width and
 * their maxima): expected_* are the lower of l's and its partner's
 * capability (l's own where the partner is NULL or did not say), and l is
 * downtrained when it runs below them in speed or width; where the link's
 * device end is a GPU and only its speed is low, idle_slow instead. A root
 * or switch downstream port's partner is the function below it, anything
 * else's the function above it; ix_pci_read judges every link so. */
void ix_pci_judge_link(struct ix_pci_link *l, const struct ix_pci_link *partner,
		       bool device_is_gpu);
/* The retimers a function reports on its link, from the n bytes of its
 * config space in cfg (sysfs's "config" file): 0, 1 or 2 from Link Status
 * 2 (bits 6 and 7), with *detect set where Link Capabilities 2 says the
 * function can detect them (bits 23 and 24; one that cannot reports 0).
 * -1 where the bytes do not tell: fewer than the PCI Express capability
 * needs (64 are read without root), no capability list, no PCI Express
 * capability in it (a list that loops or leaves the bytes ends the walk),
 * or one of version 1, which has no Link Status 2. */
int ix_pci_retimers(const uint8_t *cfg, size_t n, bool *detect);
/* Up to len bytes of function bdf's config space (its sysfs "config"
 * file: 64 bytes without root); how many were read, 0 when none. */
size_t ix_pci_config(const char *root, const char *bdf, uint8_t *buf, size_t len);

/* The function at the other end of function i's link: a root or switch
 * downstream port's link goes to the function below it (the first that
 * shows a link: the functions of one device share it), anything else's to
 * the function above it. -1 when that function is not listed. */
int ix_pci_link_partner(const struct ix_pci *p, size_t i);

#endif
