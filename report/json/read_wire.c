/* The "wire" object read back from a saved document (read.h): the
 * capture's counts and its RDMA transport analysis, every member checked. */
#include "config.h"

#include <arpa/inet.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "probes/capture/rdmastat.h"
#include "report/json/members.h"
#include "report/json/read.h"

static int read_span(json_t *o, const char *where, const char *key, struct ix_wire_span *s,
		     struct ix_err *err)
{
	json_t *v = json_object_get(o, key);
	char at[96];
	double mean;

	memset(s, 0, sizeof(*s));
	if (!v || json_is_null(v))
		return 0;
	snprintf(at, sizeof(at), "%s.%s", where, key);
	if (!json_is_object(v))
		return ix_member_bad_type(err, where, key, "an object or null", v);
	if (ix_member_count(v, at, "count", IX_MEMBER_REQUIRED, INT64_MAX, &s->count, err) < 0 ||
	    ix_member_count(v, at, "min_ns", IX_MEMBER_REQUIRED, INT64_MAX, (uint64_t *)&s->min_ns,
			    err) < 0 ||
	    ix_member_count(v, at, "max_ns", IX_MEMBER_REQUIRED, INT64_MAX, (uint64_t *)&s->max_ns,
			    err) < 0 ||
	    ix_member_num(v, at, "mean_ns", IX_MEMBER_REQUIRED, 0, 9.2e18, &mean, err) < 0)
		return -1;
	if (s->count && (mean < (double)s->min_ns * (1 - 1e-9) ||
			 mean > (double)s->max_ns * (1 + 1e-9) || s->min_ns > s->max_ns))
		return ix_fail(err, IX_EXIT_FAIL, "%s: mean %.0f ns is outside %lld-%lld ns", at,
			       mean, (long long)s->min_ns, (long long)s->max_ns);
	s->sum_ns = llround(mean * (double)s->count);
	return 0;
}

static int read_addr(json_t *o, const char *where, const char *key, uint8_t kind, uint8_t *a,
		     struct ix_err *err)
{
	const char *s;
	unsigned lid;
	int end = 0;

	if (ix_member_str(o, where, key, IX_MEMBER_REQUIRED, &s, err) < 0)
		return -1;
	memset(a, 0, 16);
	if (kind == IX_WIRE_ADDR_LID) {
		if (sscanf(s, "LID %u%n", &lid, &end) == 1 && !s[end] && lid <= 0xffff) {
			a[0] = (uint8_t)(lid >> 8);
			a[1] = (uint8_t)lid;
			return 0;
		}
	} else if (inet_pton(kind == IX_WIRE_ADDR_IP4 ? AF_INET : AF_INET6, s, a) == 1) {
		return 0;
	}
	return ix_fail(err, IX_EXIT_FAIL, "%s.%s: '%.64s' is not an address of its kind", where,
		       key, s);
}

static int read_flow(json_t *f, const char *at, uint32_t nflows, struct ix_wire_rdma_flow *o,
		     struct ix_err *err)
{
	static const struct {
		const char *key;
		size_t off;
	} counts[] = {
#define C(k, m) { k, offsetof(struct ix_wire_rdma_flow, m) }
		C("packets", packets),
		C("bytes", bytes),
		C("payload_bytes", payload),
		C("requests", requests),
		C("responses", responses),
		C("retransmitted", retransmitted),
		C("out_of_sequence", out_of_sequence),
		C("retries", retries),
		C("acks", acks),
		C("rnr_naks", rnr_naks),
		C("ecn_ce", ecn_ce),
		C("cnp", cnp),
		C("fecn", fecn),
		C("becn", becn),
		C("gap_max_ns", gap_max_ns),
		C("ops_other", ops_other),
		C("first_ns", first_ns),
		C("last_ns", last_ns),
#undef C
	};
	static const char *const kinds[] = { "lid", "ipv4", "ipv6" };
	static const uint8_t kind_of[] = { IX_WIRE_ADDR_LID, IX_WIRE_ADDR_IP4, IX_WIRE_ADDR_IP6 };
	const char *kind;
	json_t *naks, *ops, *op, *peer;
	uint64_t v;
	size_t i;
	char where[96];

	memset(o, 0, sizeof(*o));
	if (!json_is_object(f))
		return ix_member_bad_type(err, at, "", "an object", f);
	if (ix_member_str(f, at, "address_kind", IX_MEMBER_REQUIRED, &kind, err) < 0)
		return -1;
	for (i = 0; i < 3 && strcmp(kind, kinds[i]) != 0; i++)
		;
	if (i == 3)
		return ix_fail(err, IX_EXIT_FAIL,
			       "%s.address_kind: '%.16s' is none of lid, ipv4, ipv6", at, kind);
	o->kind = kind_of[i];
	if (read_addr(f, at, "src", o->kind, o->src, err) < 0 ||
	    read_addr(f, at, "dst", o->kind, o->dst, err) < 0 ||
	    ix_member_count(f, at, "dest_qp", IX_MEMBER_REQUIRED, 0xffffff, &v, err) < 0)
		return -1;
	o->dest_qp = (uint32_t)v;
	o->peer = -1;
	peer = json_object_get(f, "peer");
	if (peer && !json_is_null(peer)) {
		if (ix_member_count(f, at, "peer", IX_MEMBER_REQUIRED, nflows ? nflows - 1 : 0, &v,
				    err) < 0)
			return -1;
		o->peer = (int32_t)v;
	}
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (ix_member_count(f, at, counts[i].key, IX_MEMBER_REQUIRED, INT64_MAX,
				    (uint64_t *)((char *)o + counts[i].off), err) < 0)
			return -1;
	if (ix_member_count(f, at, "rnr_timer_max_ns", IX_MEMBER_NULLABLE, INT64_MAX, &v, err) < 0)
		return -1;
	o->rnr_timer_max_ns = (int64_t)v;
	if (ix_member_count(f, at, "gap_end_ns", IX_MEMBER_NULLABLE, INT64_MAX, &v, err) < 0)
		return -1;
	o->gap_end_ns = (int64_t)v;
	if (read_span(f, at, "retry_wait", &o->retry_wait, err) < 0 ||
	    read_span(f, at, "ack_latency", &o->ack_latency, err) < 0 ||
	    ix_member_object(f, at, "naks", &naks, err) < 0)
		return -1;
	snprintf(where, sizeof(where), "%s.naks", at);
	for (int k = 0; k < IX_WIRE_NAK__MAX; k++)
		if (ix_member_count(naks, where, ix_rdma_nak_key(k), IX_MEMBER_REQUIRED, INT64_MAX,
				    &o->naks[k], err) < 0)
			return -1;
	if (ix_member_array(f, at, "ops", IX_WIRE_RDMA_OPS, &ops, err) < 0)
		return -1;
	json_array_foreach(ops, i, op)
	{
		snprintf(where, sizeof(where), "%s.ops[%zu]", at, i);
		if (ix_member_count(op, where, "opcode", IX_MEMBER_REQUIRED, 255, &v, err) < 0 ||
		    ix_member_count(op, where, "packets", IX_MEMBER_REQUIRED, INT64_MAX,
				    &o->ops[i].packets, err) < 0)
			return -1;
		o->ops[i].opcode = (uint8_t)v;
	}
	o->nops = (uint32_t)json_array_size(ops);
	return 0;
}

/* The directions; the total, host pairs and connections are rolled up
 * from them again, so they are not read. */
static int read_rdma(json_t *r, struct ix_wire_rdma *out, struct ix_err *err)
{
	json_t *flows, *f;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!r || json_is_null(r))
		return 0;
	if (!json_is_object(r))
		return ix_member_bad_type(err, "wire", "rdma", "an object or null", r);
	if (ix_member_array(r, "wire.rdma", "flows", IX_WIRE_RDMA_FLOWS, &flows, err) < 0 ||
	    ix_member_count(r, "wire.rdma", "flows_other", IX_MEMBER_REQUIRED, INT64_MAX,
			    &out->flows_other, err) < 0)
		return -1;
	json_array_foreach(flows, i, f)
	{
		char at[48];

		snprintf(at, sizeof(at), "wire.rdma.flows[%zu]", i);
		if (read_flow(f, at, (uint32_t)json_array_size(flows), &out->flows[i], err) < 0)
			return -1;
	}
	out->nflows = (uint32_t)json_array_size(flows);
	return 0;
}

int ix_json_read_wire(json_t *w, struct ix_wire_figures *out, struct ix_err *err)
{
	static const struct {
		const char *key;
		size_t off;
	} counts[] = {
#define C(k) { #k, offsetof(struct ix_wire_figures, k) }
		C(packets),
		C(bytes),
		C(dropped),
		C(malformed),
		C(other),
		C(tcp_packets),
		C(tcp_retransmissions),
		C(tcp_dup_acks),
		C(tcp_out_of_order),
		C(tcp_zero_window),
		C(udp_packets),
		C(ecn_ce),
		C(roce_packets),
		C(roce_ecn_ce),
		C(roce_cnp),
		C(qps_other),
#undef C
	};
	json_t *qps, *q;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!w || json_is_null(w))
		return 0;
	if (!json_is_object(w))
		return ix_member_bad_type(err, "wire", "", "an object or null", w);
	if (ix_member_text(w, "wire", "iface", IX_MEMBER_REQUIRED, out->iface, sizeof(out->iface),
			   err) < 0 ||
	    ix_member_text(w, "wire", "filter", IX_MEMBER_NULLABLE, out->filter,
			   sizeof(out->filter), err) < 0)
		return -1;
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (ix_member_count(w, "wire", counts[i].key, IX_MEMBER_REQUIRED, INT64_MAX,
				    (uint64_t *)((char *)out + counts[i].off), err) < 0)
			return -1;
	/* Later additions: absent in documents written before them. */
	if (ix_member_count(w, "wire", "overlay_packets", IX_MEMBER_NULLABLE, INT64_MAX,
			    &out->overlay_packets, err) < 0 ||
	    ix_member_count(w, "wire", "overlay_ecn_ce", IX_MEMBER_NULLABLE, INT64_MAX,
			    &out->overlay_ecn_ce, err) < 0)
		return -1;
	if (ix_member_array(w, "wire", "qps", IX_WIRE_MAX_QPS, &qps, err) < 0)
		return -1;
	json_array_foreach(qps, i, q)
	{
		char at[32];
		uint64_t qp;

		snprintf(at, sizeof(at), "wire.qps[%zu]", i);
		if (ix_member_count(q, at, "qp", IX_MEMBER_REQUIRED, 0xffffff, &qp, err) < 0 ||
		    ix_member_count(q, at, "packets", IX_MEMBER_REQUIRED, INT64_MAX,
				    &out->qps[i].packets, err) < 0 ||
		    ix_member_count(q, at, "ecn_ce", IX_MEMBER_REQUIRED, INT64_MAX,
				    &out->qps[i].ecn_ce, err) < 0)
			return -1;
		out->qps[i].qp = (uint32_t)qp;
	}
	out->nqps = (uint32_t)json_array_size(qps);
	if (ix_member_count(w, "wire", "ib_packets", IX_MEMBER_NULLABLE, INT64_MAX,
			    &out->ib_packets, err) < 0 ||
	    read_rdma(json_object_get(w, "rdma"), &out->rdma, err) < 0)
		return -1;
	out->present = true;
	return 0;
}
