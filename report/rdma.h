/* Renderers of RDMA results (probes/rdma_session.h): perftest-style text
 * tables and the JSON of rdma_bw / rdma_lat results. */
#ifndef IX_REPORT_RDMA_H
#define IX_REPORT_RDMA_H

#include <jansson.h>
#include <stdio.h>

#include "probes/rdma_session.h"

/* The two ends, the GID and MTU chosen and why, placement. */
void ix_text_rdma_begin(FILE *f, const struct ix_rdma_result *r, const char *server);
/* perftest's columns: #bytes #iterations BW peak BW average MsgRate, in
 * Gbit/s (10^9 bit/s) and Mpps; or t_min t_max t_typical t_avg t_stdev
 * 99% 99.9% in microseconds. */
void ix_text_rdma_header(FILE *f, const struct ix_rdma_result *r);
void ix_text_rdma_row(FILE *f, const struct ix_rdma_result *r);
/* After the table: the agent's side, and what was not complete. */
void ix_text_rdma_end(FILE *f, const struct ix_rdma_result *r);

json_t *ix_json_rdma(const struct ix_rdma_result *r);

#endif
