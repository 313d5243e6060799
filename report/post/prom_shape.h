/* The Prometheus series of a traffic pattern's result (kind "pattern")
 * and of the rails side by side (kind "rails"): per-host and summary
 * series, a pattern's tests per pair only when asked. */
#ifndef IX_POST_PROM_SHAPE_H
#define IX_POST_PROM_SHAPE_H

#include <jansson.h>

#include "report/post/expo.h"

void ix_expo_pattern(const struct ix_expo_where *w, json_t *r);
void ix_expo_rails(const struct ix_expo_where *w, json_t *r);

#endif
