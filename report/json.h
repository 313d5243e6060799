/* JSON renderer over the result structs (jansson). Schema: report/ixperf-result.schema.json */
#ifndef IX_REPORT_JSON_H
#define IX_REPORT_JSON_H

#include <jansson.h>

#include "probes/probe.h"

#define IX_JSON_SCHEMA_VERSION 1

/* Envelope every document carries: schema version, tool, host, time, argv. */
json_t *ix_json_envelope(const char *command, int argc, char **argv);
/* The whole document: envelope, "complete", "error" (NULL = none) and the
 * results array (reference stolen). */
json_t *ix_json_document(const char *command, int argc, char **argv, json_t *results,
			 const char *error);
json_t *ix_json_bw(const struct ix_bw_result *r);
json_t *ix_json_lat(const struct ix_lat_result *r);
/* Latency statistics (lat_stats in the schema), null when there is none. */
json_t *ix_json_lat_stats(const struct ix_lat_stats *s);
json_t *ix_json_opt_u64(struct ix_opt_u64 v);
json_t *ix_json_opt_f64(struct ix_opt_f64 v);

#endif
