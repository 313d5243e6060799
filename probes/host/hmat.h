/* The memory figures the firmware advertises (ACPI HMAT), as the kernel
 * shows them for each memory node under
 * /sys/devices/system/node/nodeN/accessC/initiators/. */
#ifndef IX_HMAT_H
#define IX_HMAT_H

#include <stdbool.h>
#include <stdint.h>

#define IX_HMAT_MAX_INITIATORS 64 /* nodes an initiator mask holds */

/* One access class of a memory target: the figures of its best
 * initiators (class 0: any initiator, class 1: CPUs only). */
struct ix_hmat {
	bool present;
	uint64_t read_mbps, write_mbps; /* MB/s; 0 = not given */
	uint64_t read_ns, write_ns;     /* 0 = not given */
	uint64_t initiators;            /* bit n: node n is one of them */
};

/* Access class c (0 or 1) of the node whose sysfs directory is node_dir;
 * h->present stays false where the kernel shows none. */
void ix_hmat_read(const char *node_dir, int c, struct ix_hmat *h);

#endif
