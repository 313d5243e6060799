/* Interval sampling of running streams (both ends use it). */
#ifndef IX_SAMPLER_H
#define IX_SAMPLER_H

#include <jansson.h>

#include "probes/core/probe.h"
#include "probes/net/transport.h"

struct ix_sampler {
	double interval_s;
	int64_t t_start;
	uint64_t next_k;
	uint32_t n;
	uint64_t prev_bytes[2 * IX_MAX_STREAMS];
	uint64_t prev_retrans[2 * IX_MAX_STREAMS];
	uint64_t prev_gaps[2 * IX_MAX_STREAMS];
};

void ix_sampler_init(struct ix_sampler *sm, double interval_s, int64_t t_start, uint32_t n);
/* Monotonic time of the next tick, or 0 when there are no intervals. */
int64_t ix_sampler_next(const struct ix_sampler *sm);
/* Take interval sampled-now into out[n] (one entry per local stream). */
void ix_sampler_take(struct ix_sampler *sm, struct ix_stream *s, struct ix_interval_stream *out);

json_t *ix_interval_to_wire(uint64_t k, const struct ix_interval_stream *e, uint32_t n);
/* Merge one end's entries into interval k of r (creating it). */
int ix_interval_merge(struct ix_bw_result *r, uint64_t k, const struct ix_interval_stream *e,
		      uint32_t n);
/* Merge a received INTERVAL body. Malformed bodies are refused. */
int ix_interval_merge_wire(struct ix_bw_result *r, json_t *body);

#endif
