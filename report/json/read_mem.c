/* A saved "mem" result read back (read.h): the nodes with their HMAT
 * classes, each pair's figures and loaded-latency curve, and the pair
 * against the firmware's figures as the run compared them. Every member
 * the document has is required (null where nothing was measured or
 * advertised); the parameters it does not hold (the tests, the buffer sizes
 * asked for) read as 0. */
#include "config.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json/members.h"
#include "report/json/read.h"

#define MEM_AT_MAX 64 /* "cells[4095].advertised" and the like */

/* 1 when o[key] is null, 0 when it is something else; missing is an error
 * naming it (every member is written, null or not). */
static int null_or_not(json_t *o, const char *where, const char *key, const char *want,
		       struct ix_err *err)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return ix_member_bad_type(err, where, key, want, v);
	return json_is_null(v);
}

/* A number in [0, DBL_MAX], or null: -1 (not run, none). */
static int opt_num(json_t *o, const char *where, const char *key, double *out, struct ix_err *err)
{
	if (ix_member_num(o, where, key, IX_MEMBER_NULL, 0, DBL_MAX, out, err) < 0)
		return -1;
	if (ix_member_null(json_object_get(o, key), IX_MEMBER_NULL))
		*out = -1;
	return 0;
}

/* "WHERE.KEY", or KEY when where is "" (cut to fit: a name in a message). */
static const char *member_at(char *buf, size_t len, const char *where, const char *key)
{
	int n = snprintf(buf, len, "%s%s%s", where, *where ? "." : "", key);

	if (n < 0)
		buf[0] = '\0';
	return buf;
}

/* A list of node numbers into a mask; null (nullable) reads as 0. */
static int node_mask(json_t *o, const char *where, const char *key, bool nullable, uint64_t *mask,
		     struct ix_err *err)
{
	char at[MEM_AT_MAX];
	json_t *a, *v;
	size_t i;
	int n = null_or_not(o, where, key, nullable ? "an array or null" : "an array", err);

	*mask = 0;
	if (n < 0 || (n && nullable))
		return n < 0 ? -1 : 0;
	if (ix_member_array(o, where, key, IX_MEM_MAX_NODES, &a, err) < 0)
		return -1;
	member_at(at, sizeof(at), where, key);
	json_array_foreach(a, i, v)
	{
		json_int_t id = json_is_integer(v) ? json_integer_value(v) : -1;

		if (!json_is_integer(v))
			return ix_fail(err, IX_EXIT_FAIL, "%s[%zu] is %s, not a node number", at, i,
				       ix_member_type(v));
		if (id < 0 || id >= IX_MEM_MAX_NODES)
			return ix_fail(err, IX_EXIT_FAIL, "%s[%zu] is %lld, out of range 0 to %d",
				       at, i, (long long)id, IX_MEM_MAX_NODES - 1);
		*mask |= 1ull << id;
	}
	return 0;
}

/* Bytes per second back into the kernel's MB/s. */
static int hmat_mbps(json_t *o, const char *where, const char *key, uint64_t *mbps,
		     struct ix_err *err)
{
	uint64_t Bps;

	if (ix_member_count(o, where, key, IX_MEMBER_NULL, INT64_MAX, &Bps, err) < 0)
		return -1;
	*mbps = (Bps + 500000) / 1000000;
	return 0;
}

static int read_hmat(json_t *nd, const char *where, struct ix_mem_node *n, struct ix_err *err)
{
	char at[MEM_AT_MAX];
	json_t *a, *h;
	size_t k;

	if (ix_member_array(nd, where, "hmat", 2, &a, err) < 0)
		return -1;
	if (json_array_size(a) != 2)
		return ix_fail(err, IX_EXIT_FAIL,
			       "%s.hmat has %zu entries, not 2 (classes 0 and 1)", where,
			       json_array_size(a));
	json_array_foreach(a, k, h)
	{
		struct ix_hmat *x = &n->access[k];

		if (snprintf(at, sizeof(at), "%s.hmat[%zu]", where, k) < 0)
			at[0] = '\0';
		if (json_is_null(h))
			continue;
		if (!json_is_object(h))
			return ix_member_bad_type(err, at, "", "an object or null", h);
		x->present = true;
		if (hmat_mbps(h, at, "read_bandwidth_Bps", &x->read_mbps, err) < 0 ||
		    hmat_mbps(h, at, "write_bandwidth_Bps", &x->write_mbps, err) < 0 ||
		    ix_member_count(h, at, "read_latency_ns", IX_MEMBER_NULL, INT64_MAX,
				    &x->read_ns, err) < 0 ||
		    ix_member_count(h, at, "write_latency_ns", IX_MEMBER_NULL, INT64_MAX,
				    &x->write_ns, err) < 0 ||
		    node_mask(h, at, "initiators", false, &x->initiators, err) < 0)
			return -1;
	}
	return 0;
}

static int read_nodes(json_t *res, struct ix_mem_result *r, struct ix_err *err)
{
	json_t *nodes, *nd;
	uint64_t seen = 0, id, mem, free_bytes;
	size_t i;

	if (ix_member_array(res, "", "nodes", IX_MEM_MAX_NODES, &nodes, err) < 0)
		return -1;
	json_array_foreach(nodes, i, nd)
	{
		struct ix_mem_node *n = &r->nodes[i];
		char at[MEM_AT_MAX];

		if (snprintf(at, sizeof(at), "nodes[%zu]", i) < 0)
			at[0] = '\0';
		if (!json_is_object(nd))
			return ix_member_bad_type(err, at, "", "an object", nd);
		if (ix_member_count(nd, at, "node", IX_MEMBER_REQUIRED, IX_MEM_MAX_NODES - 1, &id,
				    err) < 0 ||
		    ix_member_text(nd, at, "cpus", IX_MEMBER_NULL, n->cpus, sizeof(n->cpus), err) <
			    0 ||
		    ix_member_u32(nd, at, "ncpus", &n->ncpus, err) < 0 ||
		    ix_member_count(nd, at, "memory_bytes", IX_MEMBER_NULL, INT64_MAX, &mem, err) <
			    0 ||
		    ix_member_count(nd, at, "free_bytes", IX_MEMBER_NULL, INT64_MAX, &free_bytes,
				    err) < 0 ||
		    read_hmat(nd, at, n, err) < 0)
			return -1;
		if (seen >> id & 1)
			return ix_fail(err, IX_EXIT_FAIL, "%s.node: node %llu is listed twice", at,
				       (unsigned long long)id);
		seen |= 1ull << id;
		n->id = (int)id;
		n->mem_known = !ix_member_null(json_object_get(nd, "memory_bytes"), IX_MEMBER_NULL);
		n->mem_bytes = mem;
		n->free_bytes = free_bytes;
		r->nnodes++;
	}
	return 0;
}

static int read_params(json_t *res, struct ix_mem_result *r, struct ix_err *err)
{
	struct ix_mem_params *p = &r->params;
	uint64_t threads;
	bool huge;
	json_t *o;

	if (ix_member_bool(res, "", "complete", &r->complete, err) < 0 ||
	    ix_member_text(res, "", "error", IX_MEMBER_NULL, r->error, sizeof(r->error), err) < 0 ||
	    ix_member_text(res, "", "sysfs", IX_MEMBER_NULL, r->sysfs, sizeof(r->sysfs), err) < 0 ||
	    ix_member_count(res, "", "llc_bytes", IX_MEMBER_NULL, INT64_MAX, &r->llc_bytes, err) <
		    0 ||
	    ix_member_bool(res, "", "nt_stores", &r->nt_stores, err) < 0 ||
	    ix_member_object(res, "", "params", &o, err) < 0 ||
	    node_mask(o, "params", "initiators", true, &p->initiators, err) < 0 ||
	    node_mask(o, "params", "targets", true, &p->targets, err) < 0 ||
	    ix_member_count(o, "params", "threads", IX_MEMBER_NULL, UINT32_MAX, &threads, err) <
		    0 ||
	    ix_member_num(o, "params", "time_s", IX_MEMBER_REQUIRED, 0, 1e9, &p->time_s, err) < 0 ||
	    ix_member_num(o, "params", "slack", IX_MEMBER_REQUIRED, 0, 1e9, &p->slack, err) < 0 ||
	    ix_member_bool(o, "params", "hugepages", &huge, err) < 0)
		return -1;
	p->threads = (uint32_t)threads;
	p->no_huge = !huge;
	p->sysfs = r->sysfs;
	return 0;
}

/* A node a pair names: one of the document's nodes. */
static int pair_node(json_t *c, const char *at, const char *key, const struct ix_mem_result *r,
		     int *out, struct ix_err *err)
{
	uint64_t id;

	if (ix_member_count(c, at, key, IX_MEMBER_REQUIRED, IX_MEM_MAX_NODES - 1, &id, err) < 0)
		return -1;
	*out = (int)id;
	if (!ix_mem_node(r, *out))
		return ix_fail(err, IX_EXIT_FAIL, "%s.%s: node %d is not one of the nodes", at, key,
			       *out);
	return 0;
}

static int read_bw(json_t *c, const char *at, struct ix_mem_cell *x, struct ix_err *err)
{
	char where[MEM_AT_MAX];
	json_t *o;

	if (ix_member_object(c, at, "bandwidth_Bps", &o, err) < 0)
		return -1;
	member_at(where, sizeof(where), at, "bandwidth_Bps");
	for (int k = 0; k < IX_MEM_NKINDS; k++)
		if (opt_num(o, where, ix_mem_kind_name((enum ix_mem_kind)k), &x->bw[k], err) < 0)
			return -1;
	return 0;
}

static int read_pages(json_t *c, const char *at, struct ix_mem_cell *x, struct ix_err *err)
{
	struct ix_mem_pages *pg = &x->pages;
	char where[MEM_AT_MAX];
	json_t *o;
	int n = null_or_not(c, at, "pages", "an object or null", err);

	if (n != 0)
		return n < 0 ? -1 : 0;
	if (ix_member_object(c, at, "pages", &o, err) < 0)
		return -1;
	member_at(where, sizeof(where), at, "pages");
	if (ix_member_count(o, where, "page_bytes", IX_MEMBER_REQUIRED, INT64_MAX, &pg->page_bytes,
			    err) < 0 ||
	    ix_member_count(o, where, "huge_bytes", IX_MEMBER_REQUIRED, INT64_MAX, &pg->huge_bytes,
			    err) < 0 ||
	    ix_member_bool(o, where, "huge_asked", &pg->huge_asked, err) < 0 ||
	    ix_member_text(o, where, "thp", IX_MEMBER_NULL, pg->thp, sizeof(pg->thp), err) < 0)
		return -1;
	return 0;
}

static int read_curve(json_t *c, const char *at, struct ix_mem_cell *x, struct ix_err *err)
{
	json_t *a, *pt;
	size_t i;

	if (ix_member_array(c, at, "loaded", IX_MEM_CURVE_MAX, &a, err) < 0)
		return -1;
	json_array_foreach(a, i, pt)
	{
		struct ix_mem_point *p = &x->curve[i];
		char where[MEM_AT_MAX];
		uint64_t delay;

		if (snprintf(where, sizeof(where), "%s.loaded[%zu]", at, i) < 0)
			where[0] = '\0';
		if (!json_is_object(pt))
			return ix_member_bad_type(err, where, "", "an object", pt);
		if (ix_member_count(pt, where, "delay_ns", IX_MEMBER_NULL, UINT32_MAX, &delay,
				    err) < 0 ||
		    ix_member_num(pt, where, "load_Bps", IX_MEMBER_REQUIRED, 0, DBL_MAX,
				  &p->load_Bps, err) < 0 ||
		    ix_member_num(pt, where, "latency_ns", IX_MEMBER_REQUIRED, 0, DBL_MAX,
				  &p->lat_ns, err) < 0)
			return -1;
		p->delay_ns = (uint32_t)delay;
		x->ncurve++;
	}
	return 0;
}

/* The pair against the HMAT class that lists its initiator: a class the
 * target node has. */
static int read_advertised(json_t *c, const char *at, const struct ix_mem_result *r,
			   struct ix_mem_cell *x, struct ix_err *err)
{
	char where[MEM_AT_MAX];
	uint64_t k;
	json_t *o;
	int n = null_or_not(c, at, "advertised", "an object or null", err);

	x->hmat_class = -1;
	x->ratio_read = x->ratio_write = x->ratio_lat = -1;
	if (n != 0)
		return n < 0 ? -1 : 0;
	if (ix_member_object(c, at, "advertised", &o, err) < 0)
		return -1;
	member_at(where, sizeof(where), at, "advertised");
	if (ix_member_count(o, where, "class", IX_MEMBER_REQUIRED, 1, &k, err) < 0 ||
	    opt_num(o, where, "read_ratio", &x->ratio_read, err) < 0 ||
	    opt_num(o, where, "write_ratio", &x->ratio_write, err) < 0 ||
	    opt_num(o, where, "latency_ratio", &x->ratio_lat, err) < 0 ||
	    ix_member_bool(o, where, "slow", &x->slow, err) < 0)
		return -1;
	if (!ix_mem_node(r, x->target)->access[k].present)
		return ix_fail(err, IX_EXIT_FAIL, "%s.class: node %d has no HMAT class %llu", where,
			       x->target, (unsigned long long)k);
	x->hmat_class = (int)k;
	return 0;
}

static int read_cell(json_t *c, const char *at, const struct ix_mem_result *r,
		     struct ix_mem_cell *x, struct ix_err *err)
{
	if (!json_is_object(c))
		return ix_member_bad_type(err, at, "", "an object", c);
	if (pair_node(c, at, "initiator", r, &x->initiator, err) < 0 ||
	    pair_node(c, at, "target", r, &x->target, err) < 0 ||
	    ix_member_bool(c, at, "measured", &x->measured, err) < 0 ||
	    ix_member_text(c, at, "note", IX_MEMBER_NULL, x->why, sizeof(x->why), err) < 0 ||
	    ix_member_u32(c, at, "threads", &x->threads, err) < 0 ||
	    ix_member_count(c, at, "buffer_bytes", IX_MEMBER_REQUIRED, INT64_MAX, &x->buf_bytes,
			    err) < 0 ||
	    read_bw(c, at, x, err) < 0 || opt_num(c, at, "latency_ns", &x->lat_ns, err) < 0 ||
	    ix_member_count(c, at, "latency_buffer_bytes", IX_MEMBER_REQUIRED, INT64_MAX,
			    &x->lat_bytes, err) < 0 ||
	    read_pages(c, at, x, err) < 0 || opt_num(c, at, "placed", &x->placed, err) < 0 ||
	    read_curve(c, at, x, err) < 0 || read_advertised(c, at, r, x, err) < 0)
		return -1;
	return 0;
}

static int read_cells(json_t *res, struct ix_mem_result *r, struct ix_err *err)
{
	size_t max = (size_t)r->nnodes * r->nnodes, i;
	json_t *cells, *c;

	if (ix_member_array(res, "", "cells", max, &cells, err) < 0)
		return -1;
	r->cells = calloc(json_array_size(cells) + 1, sizeof(*r->cells));
	if (!r->cells)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(cells, i, c)
	{
		char at[MEM_AT_MAX];

		if (snprintf(at, sizeof(at), "cells[%zu]", i) < 0)
			at[0] = '\0';
		if (read_cell(c, at, r, &r->cells[i], err) < 0)
			return -1;
		if (r->cells[i].placed > 1)
			return ix_fail(err, IX_EXIT_FAIL, "%s.placed is %g, out of range 0 to 1",
				       at, r->cells[i].placed);
		r->ncells++;
	}
	return 0;
}

int ix_json_read_mem(json_t *res, struct ix_mem_result *out, struct ix_err *err)
{
	memset(out, 0, sizeof(*out));
	out->params.sysfs = out->sysfs;
	if (!json_is_object(res))
		return ix_member_bad_type(err, "", "result", "an object", res);
	if (read_params(res, out, err) < 0 || read_nodes(res, out, err) < 0 ||
	    read_cells(res, out, err) < 0) {
		ix_mem_result_free(out);
		memset(out, 0, sizeof(*out));
		out->params.sysfs = out->sysfs;
		return -1;
	}
	return 0;
}
