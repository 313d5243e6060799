/*
 * Members of a saved document read with their type and range checked, for
 * the readers (read.c). Every function reads o[key] (o itself when key is
 * "") and, when it is not what is wanted, fails with a message naming the
 * member as "WHERE.KEY": "nodes[2].bad is -3, out of range 0 to 4294967295",
 * "matrix.state[0][1] is a number, not a string".
 */
#ifndef IX_REPORT_JSON_MEMBERS_H
#define IX_REPORT_JSON_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "probes/cluster/hostlist.h"
#include "probes/core/err.h"
#include "probes/core/probe.h"

enum ix_member_flags {
	IX_MEMBER_REQUIRED = 0,
	IX_MEMBER_NULLABLE = 1, /* null or absent reads as 0 (NULL for a string) */
	IX_MEMBER_NULL = 2,     /* null reads so too, but absent is an error */
};

/* Whether v (NULL: absent) reads as no value under flags. */
bool ix_member_null(const json_t *v, int flags);

/* "an object", "a number", ..., "null", "missing" (v NULL). */
const char *ix_member_type(const json_t *v);
/* Fails with "WHERE.KEY is <v's type>, not <want>". */
int ix_member_bad_type(struct ix_err *err, const char *where, const char *key, const char *want,
		       const json_t *v);

/* A finite number in [lo, hi]. */
int ix_member_num(json_t *o, const char *where, const char *key, int flags, double lo, double hi,
		  double *out, struct ix_err *err);
/* A whole number in [0, max]. */
int ix_member_count(json_t *o, const char *where, const char *key, int flags, uint64_t max,
		    uint64_t *out, struct ix_err *err);
int ix_member_u32(json_t *o, const char *where, const char *key, uint32_t *out, struct ix_err *err);
/* A whole number or null (not valid). */
int ix_member_opt_u64(json_t *o, const char *where, const char *key, struct ix_opt_u64 *out,
		      struct ix_err *err);
int ix_member_bool(json_t *o, const char *where, const char *key, bool *out, struct ix_err *err);
/* The document's own string (valid while it is). */
int ix_member_str(json_t *o, const char *where, const char *key, int flags, const char **out,
		  struct ix_err *err);
/* A string copied into buf made safe for a terminal, cut to fit. */
int ix_member_text(json_t *o, const char *where, const char *key, int flags, char *buf, size_t len,
		   struct ix_err *err);
/* An array of max entries at most. */
int ix_member_array(json_t *o, const char *where, const char *key, size_t max, json_t **out,
		    struct ix_err *err);
/* The array at key with exactly one entry per host (n of them). */
int ix_member_per_host(json_t *o, const char *key, uint32_t n, json_t **out, struct ix_err *err);
int ix_member_object(json_t *o, const char *where, const char *key, json_t **out,
		     struct ix_err *err);
/* A copy of s made safe for a terminal; NULL when out of memory. */
char *ix_member_strdup(const char *s);

/* Hosts by their written name (a JSON object as the index). */
struct ix_member_hosts {
	struct ix_hostlist *l;
	json_t *index; /* name -> position in l */
};

/* Add the host s names, as ix_host_format writes hosts ("name:port",
 * "[v6]:port", "rN@name:port", "rN@node(addr):port"); anything else fails
 * as "WHERE: 's' is not a host:port". */
int ix_member_host_add(struct ix_member_hosts *hs, const char *s, const char *where,
		       struct ix_err *err);
/* The position of the host o[key] names; add: a new one is added, else it
 * fails as "WHERE.KEY: 's' is not one of the hosts". */
int ix_member_host_of(struct ix_member_hosts *hs, json_t *o, const char *where, const char *key,
		      bool add, uint32_t *out, struct ix_err *err);

#endif
