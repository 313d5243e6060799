#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/rdma/setup.h"

/* Test parameters of an RDMA test and the setup message both ends
 * exchange (declared in probes/rdma/setup.h). */

#define USAGE(...) ix_fail(err, IX_EXIT_USAGE, __VA_ARGS__)
#define WHAT       "rdma setup: "

/* ---- Parameters ---- */

static const char *const op_names[] = { "write", "read", "send", "write_imm" };
static const char *const kind_names[] = { "bw", "lat", "incast", "mesh" };

const char *ix_rdma_op_name(enum ix_rdma_op op)
{
	return (unsigned)op <= IX_RDMA_OP_WRITE_IMM ? op_names[op] : "?";
}

const char *ix_rdma_kind_name(enum ix_rdma_kind k)
{
	return (unsigned)k <= IX_RDMA_MESH ? kind_names[k] : "?";
}

static int lookup(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

int ix_rdma_op_parse(const char *name)
{
	return lookup(op_names, IX_RDMA_OP_WRITE_IMM + 1, name);
}

int ix_rdma_kind_parse(const char *name)
{
	return lookup(kind_names, IX_RDMA_MESH + 1, name);
}

#define MAX_ITERATIONS (1ull << 40)
#define MAX_DURATION   86400.0
#define MAX_WARMUP     3600.0

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

void ix_rdma_params_init(struct ix_rdma_params *p, enum ix_rdma_kind kind, enum ix_rdma_op op)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->op = op;
	p->inline_size = -1;
	p->warmup_s = -1;
	p->numa_node = -1;
}

/* Defaults and rules that do not depend on the device. */
static int check_options(struct ix_rdma_params *p, struct ix_err *err)
{
	bool lat = p->kind == IX_RDMA_LAT;

	if ((unsigned)p->kind > IX_RDMA_MESH)
		return USAGE("unknown RDMA test kind %d", (int)p->kind);
	if ((unsigned)p->op > IX_RDMA_OP_WRITE_IMM)
		return USAGE("--op must be write, read, send or write_imm");
	if (p->msg_size == 0 || p->msg_size > IX_RDMA_MAX_MSG)
		return USAGE("--size must be 1 B to 2 GiB");
	if (lat && p->bidirectional)
		return USAGE("--bidir does not apply to lat, a ping-pong already");
	if (p->iterations && p->duration_s > 0)
		return USAGE("--iters and --time exclude each other");
	if (p->iterations > MAX_ITERATIONS)
		return USAGE("--iters is above 2^40");
	if (!isfinite(p->duration_s) || p->duration_s < 0 || p->duration_s > MAX_DURATION)
		return USAGE("--time must be 0 to 86400 s");
	if (isnan(p->warmup_s) || p->warmup_s > MAX_WARMUP)
		return USAGE("--warmup must be 0 to 3600 s");
	if (p->service_level > 15)
		return USAGE("--sl must be 0 to 15");
	if (p->mtu_cap && ix_rdma_mtu_bytes(p->mtu_cap) < 0)
		return USAGE("--mtu must be 256, 512, 1024, 2048 or 4096");
	if ((unsigned)p->numa > IX_RDMA_NUMA_NODE ||
	    (p->numa == IX_RDMA_NUMA_NODE && (p->numa_node < 0 || p->numa_node >= 1024)))
		return USAGE("--numa must be none, device or a node number");
	if (ix_rdma_gid_pref_check(&p->gid, err) < 0)
		return -1;
	if (p->qps > IX_RDMA_MAX_QPS)
		return USAGE("--qps %u is above ixperf's limit of %d", p->qps, IX_RDMA_MAX_QPS);
	if (!p->iterations && p->duration_s == 0)
		p->duration_s = lat ? 2 : 10;
	if (p->warmup_s < 0)
		p->warmup_s = p->iterations ? 0 : lat ? 0.5 : 1;
	p->qps = p->qps ? p->qps : 1;
	return 0;
}

static int check_queues(struct ix_rdma_params *p, const struct ix_rdma_caps *c, struct ix_err *err)
{
	bool lat = p->kind == IX_RDMA_LAT;
	bool recv = p->op == IX_RDMA_OP_SEND || p->op == IX_RDMA_OP_WRITE_IMM;

	if (!p->tx_depth)
		p->tx_depth =
			lat ? 1 : min_u32(IX_RDMA_DEF_TX_DEPTH, c->max_qp_wr ? c->max_qp_wr : 1);
	if (lat && p->tx_depth != 1)
		return USAGE("--tx-depth does not apply to lat, which keeps one message in flight");
	if (p->tx_depth > IX_RDMA_MAX_DEPTH || p->tx_depth > c->max_qp_wr)
		return USAGE("--tx-depth %u exceeds this device's max_qp_wr %u (or 65536)",
			     p->tx_depth, c->max_qp_wr);
	if (!recv && p->rx_depth)
		return USAGE("--rx-depth applies to send and write_imm only");
	/* perftest's 512, so that a receiver late to repost meets no RNR NAK */
	if (recv && !p->rx_depth)
		p->rx_depth = max_u32(p->tx_depth, min_u32(IX_RDMA_DEF_RX_DEPTH, c->max_qp_wr));
	if (p->rx_depth > IX_RDMA_MAX_DEPTH || p->rx_depth > c->max_qp_wr)
		return USAGE("--rx-depth %u exceeds this device's max_qp_wr %u (or 65536)",
			     p->rx_depth, c->max_qp_wr);
	if (recv && p->rx_depth < p->tx_depth)
		return USAGE("--rx-depth %u is below --tx-depth %u: %s needs a receive posted for "
			     "every message in flight",
			     p->rx_depth, p->tx_depth, ix_rdma_op_name(p->op));
	/* lat: one message in flight, one send in IX_RDMA_LAT_SQ / 2 signaled (as
	 * perftest leaves its latency sends unsignaled): no completion to make
	 * and poll for every message */
	if (!p->cq_mod)
		p->cq_mod = lat ? IX_RDMA_LAT_SQ / 2
				: min_u32(100, p->tx_depth / 2 ? p->tx_depth / 2 : 1);
	if (lat && p->cq_mod > ix_rdma_sq_depth(p))
		return USAGE("--cq-mod %u is above lat's send queue of %u", p->cq_mod,
			     ix_rdma_sq_depth(p));
	if (!lat && p->cq_mod > p->tx_depth)
		return USAGE("--cq-mod %u is above --tx-depth %u", p->cq_mod, p->tx_depth);
	return 0;
}

uint32_t ix_rdma_sq_depth(const struct ix_rdma_params *p)
{
	return p->kind == IX_RDMA_LAT ? max_u32(p->tx_depth, IX_RDMA_LAT_SQ) : p->tx_depth;
}

uint64_t ix_rdma_buffer_bytes(const struct ix_rdma_params *p)
{
	bool two = p->kind == IX_RDMA_LAT && p->op == IX_RDMA_OP_WRITE;

	return two ? 2 * p->msg_size : p->msg_size;
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

uint64_t ix_rdma_queue_bytes(const struct ix_rdma_params *p)
{
	bool recv = p->op == IX_RDMA_OP_SEND || p->op == IX_RDMA_OP_WRITE_IMM;
	uint64_t tx = p->tx_depth
			      ? ix_rdma_sq_depth(p)
			      : (p->kind == IX_RDMA_LAT ? IX_RDMA_LAT_SQ : IX_RDMA_DEF_TX_DEPTH);
	uint64_t rx =
		p->rx_depth ? p->rx_depth
			    : (recv ? (tx > IX_RDMA_DEF_RX_DEPTH ? tx : IX_RDMA_DEF_RX_DEPTH) : 1);
	uint64_t qps = p->qps ? p->qps : 1;
	int64_t il = p->inline_size >= 0 ? p->inline_size
					 : (p->kind == IX_RDMA_LAT ? IX_RDMA_LAT_INLINE : 0);
	uint64_t inl = ((uint64_t)il + 63) / 64 * 64;
	uint64_t per_qp =
		pow2_at_least(tx) * (IX_RDMA_SQ_ENTRY + inl) + pow2_at_least(rx) * IX_RDMA_CQ_ENTRY;

	return qps * per_qp + pow2_at_least((tx + rx) * qps) * IX_RDMA_CQ_ENTRY;
}

int ix_rdma_params_check(struct ix_rdma_params *p, const struct ix_rdma_caps *c, struct ix_err *err)
{
	bool read = p->op == IX_RDMA_OP_READ;

	if (check_options(p, err) < 0)
		return -1;
	if (p->msg_size > c->max_msg_size || p->msg_size > c->max_mr_size)
		return USAGE(
			"--size %llu exceeds this device's max_msg_size %llu or max_mr_size %llu",
			(unsigned long long)p->msg_size, (unsigned long long)c->max_msg_size,
			(unsigned long long)c->max_mr_size);
	if (p->qps > c->max_qp)
		return USAGE("--qps %u exceeds this device's max_qp %u", p->qps, c->max_qp);
	if (c->max_sge < 1)
		return USAGE("this device reports max_sge 0: it cannot post a work request");
	if (check_queues(p, c, err) < 0)
		return -1;
	if (p->inline_size < 0)
		p->inline_size = p->kind == IX_RDMA_LAT && !read
					 ? (int32_t)min_u32(IX_RDMA_LAT_INLINE, c->max_inline_data)
					 : 0;
	if (read && p->inline_size > 0)
		return USAGE("--inline does not apply to read");
	if (p->inline_size > IX_RDMA_MAX_INLINE || (uint32_t)p->inline_size > c->max_inline_data)
		return USAGE("--inline %d exceeds this device's max_inline_data %u",
			     (int)p->inline_size, c->max_inline_data);
	if (!read && p->rd_atom)
		return USAGE("--rd-atom applies to read only");
	if (read && !c->max_qp_rd_atom)
		return USAGE("this device cannot serve RDMA reads (max_qp_rd_atom 0)");
	if (read && !p->rd_atom)
		p->rd_atom = min_u32(255, c->max_qp_rd_atom); /* the device's, as perftest */
	if (p->rd_atom > 255 || p->rd_atom > c->max_qp_rd_atom)
		return USAGE("--rd-atom %u exceeds this device's max_qp_rd_atom %u", p->rd_atom,
			     c->max_qp_rd_atom);
	return 0;
}

/* ---- JSON ---- */

static bool gid_zero(const uint8_t g[16])
{
	static const uint8_t zero[16];

	return memcmp(g, zero, 16) == 0;
}

enum ftype { F_U8, F_U32, F_I32, F_U64, F_F64 };

/* The numeric members of "params", with the ranges a filled struct has. */
static const struct field {
	const char *key;
	size_t off;
	enum ftype type;
	double lo, hi; /* exact for integers up to 2^53 */
} fields[] = {
	{ "msg_size", offsetof(struct ix_rdma_params, msg_size), F_U64, 1, IX_RDMA_MAX_MSG },
	{ "qps", offsetof(struct ix_rdma_params, qps), F_U32, 1, IX_RDMA_MAX_QPS },
	{ "tx_depth", offsetof(struct ix_rdma_params, tx_depth), F_U32, 1, IX_RDMA_MAX_DEPTH },
	{ "rx_depth", offsetof(struct ix_rdma_params, rx_depth), F_U32, 0, IX_RDMA_MAX_DEPTH },
	{ "cq_mod", offsetof(struct ix_rdma_params, cq_mod), F_U32, 1, IX_RDMA_MAX_DEPTH },
	{ "inline", offsetof(struct ix_rdma_params, inline_size), F_I32, 0, IX_RDMA_MAX_INLINE },
	{ "rd_atom", offsetof(struct ix_rdma_params, rd_atom), F_U32, 0, 255 },
	{ "iterations", offsetof(struct ix_rdma_params, iterations), F_U64, 0, MAX_ITERATIONS },
	{ "duration", offsetof(struct ix_rdma_params, duration_s), F_F64, 0, MAX_DURATION },
	{ "warmup", offsetof(struct ix_rdma_params, warmup_s), F_F64, 0, MAX_WARMUP },
	{ "traffic_class", offsetof(struct ix_rdma_params, traffic_class), F_U8, 0, 255 },
	{ "service_level", offsetof(struct ix_rdma_params, service_level), F_U8, 0, 15 },
};

static double field_get(const struct ix_rdma_params *p, const struct field *f)
{
	const char *b = (const char *)p + f->off;

	switch (f->type) {
	case F_U8:
		return *(const uint8_t *)b;
	case F_U32:
		return *(const uint32_t *)(const void *)b;
	case F_I32:
		return *(const int32_t *)(const void *)b;
	case F_U64:
		return (double)*(const uint64_t *)(const void *)b;
	default:
		return *(const double *)(const void *)b;
	}
}

static void field_set(struct ix_rdma_params *p, const struct field *f, json_t *x)
{
	char *b = (char *)p + f->off;
	json_int_t v = json_integer_value(x);

	switch (f->type) {
	case F_U8:
		*(uint8_t *)b = (uint8_t)v;
		break;
	case F_U32:
		*(uint32_t *)(void *)b = (uint32_t)v;
		break;
	case F_I32:
		*(int32_t *)(void *)b = (int32_t)v;
		break;
	case F_U64:
		*(uint64_t *)(void *)b = (uint64_t)v;
		break;
	default:
		*(double *)(void *)b = json_number_value(x);
	}
}

/* A member that must be there, of the right type and in lo..hi. */
static json_t *member(json_t *o, const char *pre, const char *k, bool real, double lo, double hi,
		      struct ix_err *err)
{
	json_t *x = json_object_get(o, k);
	double v = json_number_value(x);

	if (!x)
		USAGE(WHAT "'%s%s' is missing", pre, k);
	else if (real ? !json_is_number(x) : !json_is_integer(x))
		USAGE(WHAT "'%s%s' is not %s", pre, k, real ? "a number" : "an integer");
	else if (!isfinite(v) || v < lo || v > hi)
		USAGE(WHAT "'%s%s' = %.17g is out of range (%.17g..%.17g)", pre, k, v, lo, hi);
	else
		return x;
	return NULL;
}

static int get_u32(json_t *o, const char *pre, const char *k, uint32_t lo, uint32_t hi,
		   uint32_t *out, struct ix_err *err)
{
	json_t *x = member(o, pre, k, false, lo, hi, err);

	if (x)
		*out = (uint32_t)json_integer_value(x);
	return x ? 0 : -1;
}

static const char *get_str(json_t *o, const char *pre, const char *k, struct ix_err *err)
{
	json_t *x = json_object_get(o, k);

	if (!json_is_string(x))
		USAGE(WHAT "'%s%s' is %s", pre, k, x ? "not a string" : "missing");
	return json_string_value(x);
}

json_t *ix_rdma_params_json(const struct ix_rdma_params *p)
{
	json_t *o = json_pack("{s:s,s:s,s:b,s:i}", "kind", ix_rdma_kind_name(p->kind), "op",
			      ix_rdma_op_name(p->op), "bidirectional", p->bidirectional, "mtu_cap",
			      p->mtu_cap ? ix_rdma_mtu_bytes(p->mtu_cap) : 0);

	for (size_t i = 0; o && i < sizeof(fields) / sizeof(fields[0]); i++) {
		double v = field_get(p, &fields[i]);

		json_object_set_new(o, fields[i].key,
				    fields[i].type == F_F64 ? json_real(v)
							    : json_integer((json_int_t)v));
	}
	return o;
}

static uint32_t max_qps(const struct ix_rdma_limits *lim)
{
	return lim && lim->max_qps && lim->max_qps < IX_RDMA_MAX_QPS ? lim->max_qps
								     : IX_RDMA_MAX_QPS;
}

int ix_rdma_params_parse(json_t *j, const struct ix_rdma_limits *lim, struct ix_rdma_params *p,
			 struct ix_err *err)
{
	double max_dur = lim && lim->max_duration_s > 0 ? lim->max_duration_s : MAX_DURATION;
	const char *kind, *op;
	uint32_t mtu;
	json_t *bi;

	memset(p, 0, sizeof(*p));
	p->numa_node = -1;
	if (!json_is_object(j))
		return USAGE(WHAT "'params' is missing or not an object");
	if (!(kind = get_str(j, "params.", "kind", err)) ||
	    !(op = get_str(j, "params.", "op", err)))
		return -1;
	if (ix_rdma_kind_parse(kind) < 0 || ix_rdma_op_parse(op) < 0)
		return USAGE(WHAT "'params.%s' \"%.32s\" is unknown",
			     ix_rdma_kind_parse(kind) < 0 ? "kind" : "op",
			     ix_rdma_kind_parse(kind) < 0 ? kind : op);
	p->kind = (enum ix_rdma_kind)ix_rdma_kind_parse(kind);
	p->op = (enum ix_rdma_op)ix_rdma_op_parse(op);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *f = &fields[i];
		json_t *x = member(j, "params.", f->key, f->type == F_F64, f->lo, f->hi, err);

		if (!x)
			return -1;
		field_set(p, f, x);
	}
	if (get_u32(j, "params.", "mtu_cap", 0, 4096, &mtu, err) < 0)
		return -1;
	if (mtu && (p->mtu_cap = ix_rdma_mtu_from_bytes(mtu)) < 0)
		return USAGE(WHAT "'params.mtu_cap' = %u is not an IB MTU", mtu);
	if (!json_is_boolean(bi = json_object_get(j, "bidirectional")))
		return USAGE(WHAT "'params.bidirectional' is missing or not a boolean");
	p->bidirectional = json_is_true(bi);
	if (p->qps > max_qps(lim))
		return USAGE(WHAT "'params.qps' = %u is above this server's limit of %u", p->qps,
			     max_qps(lim));
	if (p->cq_mod > ix_rdma_sq_depth(p))
		return USAGE(WHAT "'params.cq_mod' %u is above the send queue of %u", p->cq_mod,
			     ix_rdma_sq_depth(p));
	if ((p->iterations > 0) == (p->duration_s > 0))
		return USAGE(WHAT
			     "exactly one of 'params.iterations' and 'params.duration' is set");
	if (p->duration_s + p->warmup_s > max_dur)
		return USAGE(WHAT
			     "'params.duration' plus warmup exceeds this server's limit of %.0f s",
			     max_dur);
	return 0;
}

json_t *ix_rdma_setup_json(const struct ix_rdma_endpoint *e)
{
	char gid[IX_RDMA_GID_TEXT], addr[24];
	json_t *qps = json_array(), *o;

	ix_rdma_gid_format(e->gid, gid);
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)e->buf_addr);
	for (uint32_t i = 0; qps && i < e->nqps && i < IX_RDMA_MAX_QPS; i++)
		json_array_append_new(qps, json_pack("{s:I,s:I}", "qpn", (json_int_t)e->qps[i].qpn,
						     "psn", (json_int_t)e->qps[i].psn));
	o = json_pack("{s:s,s:i,s:s,s:i,s:i,s:o,s:{s:s,s:I,s:I},s:o}", "link_layer",
		      e->infiniband ? "InfiniBand" : "Ethernet", "lid", (int)e->lid, "gid", gid,
		      "gid_index", e->gid_index, "mtu", e->mtu, "qps", qps, "buffer", "addr", addr,
		      "rkey", (json_int_t)e->rkey, "length", (json_int_t)e->buf_len, "params",
		      ix_rdma_params_json(&e->params));
	if (o && e->numa_node >= 0)
		json_object_set_new(o, "numa_node", json_integer(e->numa_node));
	return o;
}

static int parse_qps(json_t *a, const struct ix_rdma_limits *lim, struct ix_rdma_endpoint *e,
		     struct ix_err *err)
{
	size_t n = json_array_size(a);

	if (!json_is_array(a))
		return USAGE(WHAT "'qps' is missing or not an array");
	if (n < 1 || n > max_qps(lim) || n != e->params.qps)
		return USAGE(WHAT "'qps' has %zu entries, 'params.qps' says %u (limit %u)", n,
			     e->params.qps, max_qps(lim));
	for (size_t i = 0; i < n; i++) {
		json_t *q = json_array_get(a, i);
		char pre[32];

		snprintf(pre, sizeof(pre), "qps[%zu].", i);
		if (!json_is_object(q))
			return USAGE(WHAT "'qps[%zu]' is not an object", i);
		if (get_u32(q, pre, "qpn", 1, 0xffffff, &e->qps[i].qpn, err) < 0 ||
		    get_u32(q, pre, "psn", 0, 0xffffff, &e->qps[i].psn, err) < 0)
			return -1;
		for (size_t k = 0; k < i; k++)
			if (e->qps[k].qpn == e->qps[i].qpn)
				return USAGE(WHAT "'qps[%zu].qpn' repeats qps[%zu]", i, k);
	}
	e->nqps = (uint32_t)n;
	return 0;
}

static int parse_buffer(json_t *b, const struct ix_rdma_limits *lim, struct ix_rdma_endpoint *e,
			struct ix_err *err)
{
	double max = lim && lim->max_buffer ? (double)lim->max_buffer : (double)(1ull << 30);
	const char *addr;
	json_t *len;
	size_t n;

	if (!json_is_object(b))
		return USAGE(WHAT "'buffer' is missing or not an object");
	if (!(addr = get_str(b, "buffer.", "addr", err)))
		return -1;
	n = strspn(addr + (addr[0] == '0' && addr[1] == 'x' ? 2 : 0), "0123456789abcdefABCDEF");
	if (addr[0] != '0' || addr[1] != 'x' || n < 1 || n > 16 || addr[2 + n])
		return USAGE(WHAT "'buffer.addr' is not 0x and 1 to 16 hex digits");
	e->buf_addr = strtoull(addr + 2, NULL, 16);
	if (get_u32(b, "buffer.", "rkey", 0, UINT32_MAX, &e->rkey, err) < 0 ||
	    !(len = member(b, "buffer.", "length", false, 1, max, err)))
		return -1;
	e->buf_len = (uint64_t)json_integer_value(len);
	if (e->buf_len < e->params.msg_size)
		return USAGE(WHAT "'buffer.length' %llu is below 'params.msg_size' %llu",
			     (unsigned long long)e->buf_len,
			     (unsigned long long)e->params.msg_size);
	if (e->buf_addr > UINT64_MAX - e->buf_len)
		return USAGE(WHAT "'buffer.addr' plus length wraps around");
	return 0;
}

int ix_rdma_setup_parse(json_t *j, const struct ix_rdma_limits *lim, struct ix_rdma_endpoint *e,
			struct ix_err *err)
{
	const char *ll, *gid;
	uint32_t lid, idx, mtu;
	json_t *numa;

	memset(e, 0, sizeof(*e));
	e->numa_node = -1;
	if (!json_is_object(j))
		return USAGE(WHAT "the message is not an object");
	if (!(ll = get_str(j, "", "link_layer", err)))
		return -1;
	if (strcmp(ll, "InfiniBand") != 0 && strcmp(ll, "Ethernet") != 0)
		return USAGE(WHAT "'link_layer' must be \"InfiniBand\" or \"Ethernet\"");
	e->infiniband = strcmp(ll, "InfiniBand") == 0;
	if (get_u32(j, "", "lid", 0, 0xffff, &lid, err) < 0)
		return -1;
	if (e->infiniband && (lid == 0 || lid > 0xbfff))
		return USAGE(WHAT "'lid' = %u: an InfiniBand peer needs a unicast LID (is a subnet "
				  "manager running there?)",
			     lid);
	if (!e->infiniband && lid)
		return USAGE(WHAT "'lid' = %u but RoCE has no LIDs", lid);
	e->lid = (uint16_t)lid;
	if (!(gid = get_str(j, "", "gid", err)))
		return -1;
	if (ix_rdma_gid_parse(gid, e->gid) < 0)
		return USAGE(WHAT "'gid' is not 8 colon-separated groups of 4 hex digits");
	if (gid_zero(e->gid))
		return USAGE(WHAT "'gid' is all zeros");
	if (get_u32(j, "", "gid_index", 0, IX_RDMA_GID_TABLE - 1, &idx, err) < 0 ||
	    get_u32(j, "", "mtu", IX_RDMA_MTU_256, IX_RDMA_MTU_4096, &mtu, err) < 0)
		return -1;
	e->gid_index = (int)idx;
	e->mtu = (int)mtu;
	if (ix_rdma_params_parse(json_object_get(j, "params"), lim, &e->params, err) < 0 ||
	    parse_qps(json_object_get(j, "qps"), lim, e, err) < 0 ||
	    parse_buffer(json_object_get(j, "buffer"), lim, e, err) < 0)
		return -1;
	numa = json_object_get(j, "numa_node");
	if (numa && !json_is_null(numa)) {
		if (!member(j, "", "numa_node", false, 0, 1023, err))
			return -1;
		e->numa_node = (int)json_integer_value(numa);
	}
	return 0;
}
