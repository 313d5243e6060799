/* Text renderer: aligned tables over the result structs. */
#ifndef IX_REPORT_TEXT_H
#define IX_REPORT_TEXT_H

#include <stdio.h>

#include "probes/probe.h"
#include "report/units.h"

void ix_text_bw_begin(FILE *f, const struct ix_bw_params *p, const char *server,
		      const struct ix_unit_choice *u);
void ix_text_bw_interval(FILE *f, const struct ix_bw_result *r, size_t k,
			 const struct ix_unit_choice *u);
void ix_text_bw_summary(FILE *f, const struct ix_bw_result *r, const struct ix_unit_choice *u);
/* Size sweeps: one line per message size. */
void ix_text_bw_sweep_header(FILE *f, const struct ix_unit_choice *u);
void ix_text_bw_sweep_row(FILE *f, const struct ix_bw_result *r, const struct ix_unit_choice *u);

void ix_text_lat_header(FILE *f, const struct ix_lat_params *p, const char *server);
void ix_text_lat_row(FILE *f, const struct ix_lat_result *r);

#endif
