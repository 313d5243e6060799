/* A rank's report (struct ix_coll_rank) as bytes, for the launcher to carry
 * to rank 0; decoding checks every length (the bytes come from another
 * process). */
#ifndef IX_COLL_WIRE_H
#define IX_COLL_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "probes/coll/coll.h"

/* *out is malloc'd, *len bytes long. */
int ix_coll_wire_encode(const struct ix_coll_rank *r, uint8_t **out, size_t *len,
			struct ix_err *err);
/* -1 with err naming what is wrong when buf is not one whole report. */
int ix_coll_wire_decode(const uint8_t *buf, size_t len, struct ix_coll_rank *out,
			struct ix_err *err);

#endif
