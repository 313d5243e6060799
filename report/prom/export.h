/*
 * The metrics exporter: an HTTP listener (probes/net/httpd.h) whose
 * /metrics renders, at each scrape, the live monitor's model of this
 * host's links (sampled by its owner, or here with ix_prom_export_step
 * and at each scrape),
 * the PCIe link behind each, read at the scrape, and an agent's counters.
 */
#ifndef IX_PROM_EXPORT_H
#define IX_PROM_EXPORT_H

#include <stdint.h>

#include "probes/agent/agent.h"
#include "probes/core/err.h"
#include "probes/host/links.h"

struct ix_prom_export_config {
	const char *listen; /* "ADDR:PORT", "[V6]:PORT" or ":PORT" */
	const char *title;  /* on the page at /: "ixperf top" */
	const char *sysfs;  /* root of the links and PCI tree read; NULL: the live /sys */
	/* The links, sampled by the caller; NULL: the exporter keeps its own
	 * (physical links, or every link where there are only virtual ones)
	 * and samples it in ix_prom_export_step. */
	struct ix_top_model *model;
	struct ix_agent *agent; /* its counters too; NULL: none */
};

struct ix_prom_export;

/* Parse the address, listen, and (own model) take a first sample. -1 with
 * err: a bad address is IX_EXIT_USAGE. */
int ix_prom_export_open(struct ix_prom_export **out, const struct ix_prom_export_config *cfg,
			struct ix_err *err);
uint16_t ix_prom_export_port(const struct ix_prom_export *e);
/* Serve scrapes until until_ns (ix_now_ns clock; 250 ms at most). */
void ix_prom_export_serve(struct ix_prom_export *e, int64_t until_ns);
/* Tell the exporter the caller's model was sampled now (its age is a
 * metric). */
void ix_prom_export_sampled(struct ix_prom_export *e);
/* Serve until the next sample is due (interval_s after the last one),
 * then sample the model: the loop of a headless exporter. From the first
 * call on, a scrape also samples the model when its reading is over
 * 100 ms old, so that counters are served as of the scrape (a caller that
 * samples the model itself serves its last reading). A failed sample
 * keeps the last one, whose age the metrics show. */
void ix_prom_export_step(struct ix_prom_export *e, double interval_s);
/* The metrics as served now (malloc'd); -1 when out of memory. */
int ix_prom_export_render(struct ix_prom_export *e, char **body, size_t *len);
void ix_prom_export_close(struct ix_prom_export *e);

#endif
