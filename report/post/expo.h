/* The Prometheus text exposition (format 0.0.4) that report/post builds
 * (prom.c walks a document, prom_shape.c its patterns and rails): the
 * metric families, each sample written once into its family's buffer,
 * and the families joined, each after its HELP and TYPE. */
#ifndef IX_POST_EXPO_H
#define IX_POST_EXPO_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "probes/core/err.h"

enum ix_expo_fam {
	F_INFO,
	F_PASS,
	F_VERDICT,
	F_COMPLETE,
	F_DURATION,
	F_TIME,
	F_CHECK,
	F_BW,
	F_LAT,
	F_RETX,
	F_LOSS,
	F_ROUND,
	F_FABRIC,
	F_MESH_PAIRS,
	F_MESH_BAD,
	F_MESH_SUSPECTS,
	F_MESH_MEDIAN,
	F_ODD_NODES,
	F_NODE_BW,
	F_NODE_LAT,
	F_NODE_BAD,
	F_NODE_SUSPECT,
	F_NODE_FAILED,
	F_NODE_ODD,
	F_NODE_FABRIC,
	F_PAT_NODES,
	F_PAT_BAD,
	F_PAT_TESTS,
	F_PAT_MEDIAN,
	F_PAT_CUT,
	F_PAT_OVERSUB,
	F_PAT_NODE_BW,
	F_PAT_NODE_REF,
	F_PAT_NODE_BAD,
	F_RAILS,
	F_RAILS_BAD,
	F_RAILS_REF_BW,
	F_RAILS_REF_LAT,
	F_RAIL_BAD,
	F_RAIL_BW,
	F_RAIL_LAT,
	F_RAIL_PAIRS,
	F_RAILS_NODE_BW,
	F_RAILS_NODE_RAILS,
	NFAM
};

struct ix_expo {
	char *buf[NFAM];
	size_t len[NFAM];
	FILE *f[NFAM];
	json_t *seen;     /* series already written: a duplicate would fail the whole push */
	const char *rail; /* a rail label on every sample (a rail's mesh), or NULL */
};

/* Empty buffers; -1 when out of memory (ix_expo_close frees them). */
int ix_expo_open(struct ix_expo *x);
/* One sample; kv: label name, value, ... NULL. Empty values are left out
 * (Prometheus treats an empty label as an absent one); a series already
 * written is not written again. */
void ix_expo_put(struct ix_expo *x, enum ix_expo_fam fam, double v, const char *const *kv);
/* The families that have samples, in table order, into *body. */
int ix_expo_close(struct ix_expo *x, char **body, size_t *len, struct ix_err *err);

/* What a document's walk knows where it is. */
struct ix_expo_where {
	struct ix_expo *x;
	const char *check, *host, *peer; /* check label, this host, the plan's first host */
	bool pairs;                      /* a mesh's (a pattern's) per-pair series too */
};

#endif
