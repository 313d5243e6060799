/*
 * The RUN and REPORT bodies of ixperf ecmp --path rdma's two jobs, started
 * at one moment by the coordinator:
 *
 *   at A, towards B: RUN {kind: "bw", bw: ..., rdma: {op: "write", qps,
 *                    ..., sport, phases: {lead, alone, gap}}}
 *                    REPORT {..., phased: {ready, how, qps: [{qpn,
 *                    remote_qpn, flow_label, sport, alone: {start, end,
 *                    bytes}, bytes}], together: {start, end, bytes}}}
 *   at a switch:     RUN {kind: "ifseries", ifseries: {at: [s...],
 *                    names: [if...]}}
 *                    REPORT {ok, error, ifseries: {at: [s...], rx: [[..]],
 *                    tx: [[..]]}}: each named interface's byte counters
 *                    read at each time from the start, as read
 *
 * (probes/rdma/phased.h has the schedule.) Every parser checks ranges:
 * the agents may be hostile.
 */
#ifndef IX_PHASEWIRE_H
#define IX_PHASEWIRE_H

#include <stdatomic.h>
#include <stdint.h>

#include <jansson.h>

#include "probes/core/err.h"
#include "probes/host/ifstats.h"
#include "probes/rdma/phased.h"

#define IX_SERIES_MAX_READS (IX_RDMA_PHASED_MAX_QPS + 2)
#define IX_SERIES_MAX_IFS   16

json_t *ix_phasewire_phases(const struct ix_rdma_phases *ph);
/* warmup_s and duration_s are the caller's (the job's bw). */
int ix_phasewire_parse_phases(json_t *j, struct ix_rdma_phases *ph, struct ix_err *err);

json_t *ix_phasewire_phased(const struct ix_rdma_phased *o);
int ix_phasewire_parse_phased(json_t *j, struct ix_rdma_phased *o, struct ix_err *err);

/* A series of counter reads: the times asked and the interfaces. */
struct ix_series {
	uint32_t nreads, nifs;
	double at_s[IX_SERIES_MAX_READS]; /* asked, then as read */
	char names[IX_SERIES_MAX_IFS][IX_IFNAME_SIZE];
	uint64_t rx[IX_SERIES_MAX_READS][IX_SERIES_MAX_IFS];
	uint64_t tx[IX_SERIES_MAX_READS][IX_SERIES_MAX_IFS];
	bool found[IX_SERIES_MAX_IFS]; /* the interface was there at every read */
};

json_t *ix_phasewire_series_request(const struct ix_series *s);
int ix_phasewire_parse_series_request(json_t *j, struct ix_series *s, struct ix_err *err);
/* Agent: read the series from start_ns (ix_now_ns), stopping early when
 * *stop is set (NULL: never); the REPORT's "ifseries". */
json_t *ix_phasewire_series_run(struct ix_series *s, int64_t start_ns, atomic_int *stop);
/* Coordinator: the reads of a REPORT's "ifseries" into s (whose request
 * it was); -1 with err when malformed. */
int ix_phasewire_parse_series(json_t *j, struct ix_series *s, struct ix_err *err);
/* Read k of s as interface counters (up, not the control connection's). */
uint32_t ix_series_read(const struct ix_series *s, uint32_t k, struct ix_ifstat *out);

#endif
