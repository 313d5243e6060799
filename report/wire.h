/* Renderers of wire diagnostics (struct ix_wire_figures): JSON and text. */
#ifndef IX_REPORT_WIRE_H
#define IX_REPORT_WIRE_H

#include <stdio.h>

#include <jansson.h>

#include "probes/wirestat.h"

/* The "wire" object of the schema; null when no capture was attached. */
json_t *ix_json_wire(const struct ix_wire_figures *w);
/* A compact block of a few lines; nothing when no capture was attached. */
void ix_text_wire(FILE *f, const struct ix_wire_figures *w);

#endif
