/*
 * The Prometheus text exposition format, version 0.0.4: families with
 * their HELP and TYPE lines, samples with escaped label values, and the
 * metrics of ixperf over the structs its probes fill. Names follow
 * Prometheus' rules: an ixperf_ prefix, base units (bytes, seconds, bits
 * per second where the link speed is meant), _total on counters.
 */
#ifndef IX_PROM_H
#define IX_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "probes/agent/state.h"
#include "probes/host/links.h"
#include "probes/host/pci.h"

#define IX_PROM_LABELS_MAX 4

enum ix_prom_type { IX_PROM_COUNTER, IX_PROM_GAUGE };

struct ix_prom_label {
	const char *name;  /* [a-zA-Z_][a-zA-Z0-9_]* */
	const char *value; /* any UTF-8; escaped as it is written */
};

/* Whether name is a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), or a
 * valid label name when label is true ([a-zA-Z_][a-zA-Z0-9_]*, not
 * starting with "__"). */
bool ix_prom_name_valid(const char *name, bool label);

/* A label value escaped as the format asks: backslash, double quote and
 * line feed as \\, \" and \n. */
void ix_prom_write_escaped(FILE *f, const char *s, bool help);

/* "# HELP name help" and "# TYPE name counter|gauge". */
void ix_prom_family(FILE *f, const char *name, enum ix_prom_type type, const char *help);
/* One sample: name{l1="v1",...} value. */
void ix_prom_sample(FILE *f, const char *name, const struct ix_prom_label *l, size_t nl, double v);
void ix_prom_sample_u64(FILE *f, const char *name, const struct ix_prom_label *l, size_t nl,
			uint64_t v);

/* A link's labels into v (IX_PROM_LABELS_MAX): interface="eth0" for a
 * network device, device="mlx5_0" and port="1" (written into port) for an
 * InfiniBand/RoCE port. Returns how many. */
size_t ix_prom_link_labels(const struct ix_link *l, struct ix_prom_label *v, char *port,
			   size_t plen);

/* Every link of m: counters, rates, speed, fabric counter classes; and
 * with pci (NULL: none), the PCIe link of the function behind each. */
void ix_prom_links(FILE *f, const struct ix_top_model *m, const struct ix_pci *pci);

/* The PCIe link of the function behind each link of m (found by its
 * network device or RDMA device name in pci): as trained and as both
 * ends could train it, its health and its AER counters. */
void ix_prom_pcie(FILE *f, const struct ix_top_model *m, const struct ix_pci *pci);
/* The health of a PCIe link: "ok", "downtrained" (below what both ends
 * support), "uncorrectable" (non-fatal or fatal AER errors counted) or
 * "unknown" (its link was not read). */
const char *ix_prom_pcie_health(const struct ix_pci_dev *d);

/* What an agent has done (probes/agent/state.h). */
void ix_prom_agent(FILE *f, const struct ix_agent_stats *s);

/* The priority a pause counter's name gives ("rx_prio3_pause": 3,
 * "rx_priority_5_xoff": 5), or -1 when it names none. */
int ix_prom_priority(const char *counter);

#endif
