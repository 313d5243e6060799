/* Where a rendered document goes: stdout, or a file written atomically. */
#ifndef IX_OUTPUT_H
#define IX_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "probes/core/err.h"

/* Write data to path through a temporary file in the same directory,
 * fsync and rename: readers never see a half-written file. */
int ix_output_atomic(const char *path, const char *data, size_t len, struct ix_err *err);
/* The same for a document written as it is produced (nothing held in
 * memory): write_fn writes to the temporary file, -1 when it cannot. */
int ix_output_atomic_stream(const char *path, int (*write_fn)(FILE *f, void *arg), void *arg,
			    struct ix_err *err);

#endif
