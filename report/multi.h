/* Renderers of mesh and incast results (JSON and text). */
#ifndef IX_REPORT_MULTI_H
#define IX_REPORT_MULTI_H

#include <stdio.h>

#include <jansson.h>

#include "probes/multi.h"
#include "report/units.h"

json_t *ix_json_mesh(const struct ix_mesh_result *r);
json_t *ix_json_incast(const struct ix_incast_result *r);

/* Matrices are printed up to this many hosts; beyond, summaries only. */
#define IX_TEXT_MATRIX_MAX 16

void ix_text_mesh(FILE *f, const struct ix_mesh_result *r, const struct ix_unit_choice *u);
void ix_text_incast(FILE *f, const struct ix_incast_result *r, const struct ix_unit_choice *u);

#endif
