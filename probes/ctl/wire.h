/* Test parameters and figures as control-message bodies. Everything read
 * from the wire is range-checked: the peer may be hostile. */
#ifndef IX_WIRE_H
#define IX_WIRE_H

#include <jansson.h>

#include "probes/core/err.h"
#include "probes/core/probe.h"

/* Server-side limits applied while decoding a TEST request. */
struct ix_limits {
	double max_duration_s; /* 0 = none */
	uint32_t max_streams;
	uint64_t max_rate_bps; /* per stream, 0 = none; unpaced tests get it */
};

json_t *ix_wire_bw_params(const struct ix_bw_params *p);
json_t *ix_wire_lat_params(const struct ix_lat_params *p);
/* Decode the "bw" or "lat" object of a TEST request. */
int ix_wire_parse_bw(json_t *j, const struct ix_limits *lim, struct ix_bw_params *p,
		     struct ix_err *err);
int ix_wire_parse_lat(json_t *j, const struct ix_limits *lim, struct ix_lat_params *p,
		      struct ix_err *err);

json_t *ix_wire_read_params(const struct ix_read_params *p);
int ix_wire_parse_read(json_t *j, const struct ix_limits *lim, struct ix_read_params *p,
		       struct ix_err *err);
json_t *ix_wire_read_figures(const struct ix_read_figures *f);
int ix_wire_parse_read_figures(json_t *j, struct ix_read_figures *f);

json_t *ix_wire_stream_end(const struct ix_stream_end *e);
int ix_wire_parse_stream_end(json_t *j, struct ix_stream_end *e);
json_t *ix_wire_cpu(const struct ix_cpu *c);
void ix_wire_parse_cpu(json_t *j, struct ix_cpu *c);

#endif
