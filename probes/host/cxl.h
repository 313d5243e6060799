/*
 * CXL as the kernel's cxl bus shows it, read through libcxl (the ndctl
 * project's): the memory devices, the ports from each root through the
 * switches to each device's endpoint, every port's HDM decoders and the
 * regions; and for each memory device and the port above it, what its
 * Flex Bus port trained with (the CXL protocols and flit mode capable and
 * enabled, from the Flex Bus Port DVSEC in PCI config space, read as
 * root). The PCIe link as trained is the PCI tree's (probes/host/pci.h).
 */
#ifndef IX_CXL_H
#define IX_CXL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IX_CXL_NAME    32
#define IX_CXL_TARGETS 16 /* dports of a port, targets of a decoder or region */

/* What a CXL link end runs: the Flex Bus Port DVSEC (DVSEC id 7 of vendor
 * 0x1e98), its capability and status registers (what the link trained
 * with); on a device without one, the CXL device DVSEC (id 0), its
 * capability and control registers (what the host enabled). The same bits
 * in all four; flit mode only in the Flex Bus's. */
enum {
	IX_FLEXBUS_CACHE = 1u << 0,
	IX_FLEXBUS_IO = 1u << 1,
	IX_FLEXBUS_MEM = 1u << 2,
	IX_FLEXBUS_68B_FLIT = 1u << 5,
};

struct ix_cxl_flexbus {
	bool known;    /* one of the DVSECs was found in config space */
	uint8_t dvsec; /* 7: Flex Bus Port, 0: CXL device */
	uint16_t cap, status;
};

enum ix_cxl_port_kind { IX_CXL_ROOT, IX_CXL_HOST_BRIDGE, IX_CXL_SWITCH, IX_CXL_ENDPOINT };

struct ix_cxl_dport {
	char name[IX_CXL_NAME]; /* the kernel's name of it */
	char pci[24]; /* the PCI function that is this dport (a root or switch port), or "" */
};

struct ix_cxl_port {
	char name[IX_CXL_NAME]; /* root0, port1, endpoint2 */
	enum ix_cxl_port_kind kind;
	int parent; /* index in ports, -1 at a root */
	int depth;
	bool enabled;
	char host[64]; /* what hosts it: ACPI0017:00, pci0000:0c, mem0 */
	int memdev;    /* an endpoint's memory device (index), else -1 */
	struct ix_cxl_dport dports[IX_CXL_TARGETS];
	size_t ndports;
};

struct ix_cxl_decoder {
	char name[IX_CXL_NAME]; /* decoderP.N */
	int port;               /* index in ports */
	uint64_t base, size;    /* host physical range; base ~0 when not set */
	uint64_t dpa_base, dpa_size;
	char mode[8];         /* an endpoint decoder's: "ram", "pmem", "mixed", "none" */
	char target_type[16]; /* "expander", "accelerator", "" */
	bool ram, pmem;       /* a root decoder's capabilities */
	bool locked;
	unsigned ways, granularity;
	char targets[IX_CXL_TARGETS][IX_CXL_NAME];
	size_t ntargets;
	char region[IX_CXL_NAME]; /* "" when none */
};

struct ix_cxl_region {
	char name[IX_CXL_NAME];
	char decoder[IX_CXL_NAME]; /* the root decoder it is carved from */
	uint64_t base, size;
	unsigned ways, granularity;
	bool committed, enabled;
	char targets[IX_CXL_TARGETS][IX_CXL_NAME]; /* endpoint decoders, by position */
	size_t ntargets;
};

struct ix_cxl_memdev {
	char name[IX_CXL_NAME];
	char host[64]; /* its PCI function's address */
	int numa_node; /* the device's own (its PCI function's), -1 when unknown */
	char firmware[64];
	bool serial_known;
	uint64_t serial, ram_bytes, pmem_bytes;
	bool enabled;
	int endpoint; /* index of its endpoint port, -1 when it has none */
	/* Set by the topology (probes/host/topo.h) from its PCI tree: the
	 * function's index (-1 when it is not in the tree), the function
	 * above it (a root or switch downstream port, "" when none) and what
	 * both ends of their link run. */
	int pci;
	char port[24];
	struct ix_cxl_flexbus dev_fb, port_fb;
};

struct ix_cxl {
	bool tree; /* ports, decoders and regions were read (live, through libcxl) */
	struct ix_cxl_memdev *memdevs;
	size_t nmemdevs;
	struct ix_cxl_port *ports;
	size_t nports;
	struct ix_cxl_decoder *decoders;
	size_t ndecoders;
	struct ix_cxl_region *regions;
	size_t nregions;
	char note[160]; /* what could not be read, "" when nothing */
};

/* The live system's CXL bus through libcxl. A system without CXL reads as
 * empty, not as an error; where libcxl cannot start, c->note says why. */
void ix_cxl_read_live(struct ix_cxl *c);
/* A saved sysfs tree (libcxl reads only the live one): the memory devices
 * under ROOT/sys/bus/cxl/devices with what their own directories say
 * (host left "": the topology finds their PCI functions). */
void ix_cxl_read_tree(const char *root, struct ix_cxl *c);
void ix_cxl_free(struct ix_cxl *c);

/* The Flex Bus Port DVSEC in config bytes (n of them: 4096 as root, 64
 * otherwise, where the walk finds nothing). */
bool ix_cxl_flexbus_parse(const uint8_t *cfg, size_t n, struct ix_cxl_flexbus *fb);
/* The same, read from PCI function bdf's config space under root. */
void ix_cxl_flexbus_read(const char *root, const char *bdf, struct ix_cxl_flexbus *fb);
/* "mem" "io" "cache" joined by '+' ("mem+io"), "none" */
const char *ix_cxl_protocols(uint16_t bits, char *buf, size_t len);
/* What is wrong with memdev m's Flex Bus, in a sentence: CXL.mem capable at
 * both ends but not enabled (its link trained as PCIe only: the memory is
 * not reachable), or a protocol one end has on and the other off. Returns
 * false when nothing is. */
bool ix_cxl_link_issue(const struct ix_cxl_memdev *m, char *buf, size_t len);
const char *ix_cxl_port_kind_name(enum ix_cxl_port_kind k);

#endif
