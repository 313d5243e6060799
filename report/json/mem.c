/* The JSON of ixperf mem (the "mem" result of the schema): bandwidths in
 * bytes per second, latencies in nanoseconds; what was not measured, or
 * not advertised, is null. */
#include "config.h"

#include "report/fmt/safe.h"
#include "report/json/json.h"

static json_t *num_or_null(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

static json_t *u64_or_null(uint64_t v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

static json_t *node_list(uint64_t mask)
{
	json_t *a = json_array();

	for (int i = 0; i < IX_MEM_MAX_NODES; i++)
		if (mask >> i & 1)
			json_array_append_new(a, json_integer(i));
	return a;
}

json_t *ix_json_hmat(const struct ix_hmat *h)
{
	if (!h->present)
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "read_bandwidth_Bps",
			 u64_or_null(h->read_mbps * 1000000ull), "write_bandwidth_Bps",
			 u64_or_null(h->write_mbps * 1000000ull), "read_latency_ns",
			 u64_or_null(h->read_ns), "write_latency_ns", u64_or_null(h->write_ns),
			 "initiators", node_list(h->initiators));
}

static json_t *node_json(const struct ix_mem_node *n)
{
	return json_pack(
		"{s:i,s:o,s:i,s:o,s:o,s:[o,o]}", "node", n->id, "cpus",
		n->ncpus ? ix_json_string_lossy(n->cpus) : json_null(), "ncpus", (int)n->ncpus,
		"memory_bytes", n->mem_known ? json_integer((json_int_t)n->mem_bytes) : json_null(),
		"free_bytes", n->mem_known ? json_integer((json_int_t)n->free_bytes) : json_null(),
		"hmat", ix_json_hmat(&n->access[0]), ix_json_hmat(&n->access[1]));
}

static json_t *bw_json(const struct ix_mem_cell *c)
{
	json_t *o = json_object();

	for (int k = 0; k < IX_MEM_NKINDS; k++)
		json_object_set_new(o, ix_mem_kind_name((enum ix_mem_kind)k),
				    c->measured ? num_or_null(c->bw[k]) : json_null());
	return o;
}

static json_t *curve_json(const struct ix_mem_cell *c)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < c->ncurve; i++)
		json_array_append_new(
			a,
			json_pack("{s:o,s:f,s:f}", "delay_ns",
				  i ? json_integer(c->curve[i].delay_ns) : json_null(), "load_Bps",
				  c->curve[i].load_Bps, "latency_ns", c->curve[i].lat_ns));
	return a;
}

static json_t *cell_json(const struct ix_mem_cell *c)
{
	json_t *pages = json_null(), *adv = json_null();

	if (c->measured && c->lat_ns >= 0)
		pages = json_pack("{s:I,s:I,s:b,s:o}", "page_bytes",
				  (json_int_t)c->pages.page_bytes, "huge_bytes",
				  (json_int_t)c->pages.huge_bytes, "huge_asked",
				  c->pages.huge_asked, "thp",
				  c->pages.thp[0] ? json_string(c->pages.thp) : json_null());
	if (c->hmat_class >= 0)
		adv = json_pack("{s:i,s:o,s:o,s:o,s:b}", "class", c->hmat_class, "read_ratio",
				num_or_null(c->ratio_read), "write_ratio",
				num_or_null(c->ratio_write), "latency_ratio",
				num_or_null(c->ratio_lat), "slow", c->slow);
	return json_pack("{s:i,s:i,s:b,s:o,s:i,s:I,s:o,s:o,s:I,s:o,s:o,s:o,s:o}", "initiator",
			 c->initiator, "target", c->target, "measured", c->measured, "note",
			 c->why[0] ? ix_json_string_lossy(c->why) : json_null(), "threads",
			 (int)c->threads, "buffer_bytes", (json_int_t)c->buf_bytes, "bandwidth_Bps",
			 bw_json(c), "latency_ns",
			 c->measured ? num_or_null(c->lat_ns) : json_null(), "latency_buffer_bytes",
			 (json_int_t)c->lat_bytes, "pages", pages, "placed", num_or_null(c->placed),
			 "loaded", curve_json(c), "advertised", adv);
}

json_t *ix_json_mem(const struct ix_mem_result *r)
{
	const struct ix_mem_params *p = &r->params;
	json_t *nodes = json_array(), *cells = json_array(), *slow = json_array();

	for (uint32_t i = 0; i < r->nnodes; i++)
		json_array_append_new(nodes, node_json(&r->nodes[i]));
	for (uint32_t i = 0; i < r->ncells; i++) {
		json_array_append_new(cells, cell_json(&r->cells[i]));
		if (r->cells[i].slow)
			json_array_append_new(slow, json_pack("{s:i,s:i}", "initiator",
							      r->cells[i].initiator, "target",
							      r->cells[i].target));
	}
	return json_pack("{s:s,s:b,s:o,s:{s:o,s:o,s:o,s:f,s:f,s:b},s:o,s:o,s:b,s:o,s:o,s:o}",
			 "kind", "mem", "complete", r->complete, "error",
			 r->complete ? json_null() : ix_json_string_lossy(r->error), "params",
			 "initiators", p->initiators ? node_list(p->initiators) : json_null(),
			 "targets", p->targets ? node_list(p->targets) : json_null(), "threads",
			 p->threads ? json_integer(p->threads) : json_null(), "time_s", p->time_s,
			 "slack", p->slack, "hugepages", !p->no_huge, "sysfs",
			 r->sysfs[0] ? ix_json_string_lossy(r->sysfs) : json_null(), "llc_bytes",
			 u64_or_null(r->llc_bytes), "nt_stores", r->nt_stores, "nodes", nodes,
			 "cells", cells, "slow", slow);
}
