/* Unit tests for report/json/read_wire.c (and the writer it reads,
 * wire.c and wire_rdma.c): a capture's figures with an RDMA analysis
 * written and read back equal; an older document without the later
 * members reads; hostile members are refused, naming them. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "probes/capture/pkt.h"
#include "probes/capture/rdmastat.h"
#include "report/json/json.h"
#include "report/json/read.h"

/* A capture's figures: a requester on 10.0.0.1, its responder on
 * 10.0.0.2, a NAK, a retry, an RNR NAK, a CNP; a LID-keyed direction. */
static void figures(struct ix_wire_figures *w)
{
	struct ix_rdma_ctx *c = ix_rdma_new();
	static const struct {
		bool from_a;
		uint8_t op;
		uint32_t psn;
		int syn;
		int64_t t_us;
	} pk[] = {
		{ true, 0x04, 1, -1, 0 },      { false, 0x11, 1, 0x1f, 5 },
		{ true, 0x04, 2, -1, 10 },     { true, 0x04, 4, -1, 20 },
		{ false, 0x11, 3, 0x60, 25 },  { true, 0x04, 3, -1, 300 },
		{ false, 0x11, 4, 0x2e, 305 }, { false, 0x81, 0, -1, 306 },
		{ true, 0x04, 4, -1, 2000 },
	};

	memset(w, 0, sizeof(*w));
	w->present = true;
	snprintf(w->iface, sizeof(w->iface), "eth0");
	for (size_t i = 0; i < sizeof(pk) / sizeof(pk[0]); i++) {
		struct ix_pkt p;

		memset(&p, 0, sizeof(p));
		p.family = 4;
		p.roce = p.bth = true;
		p.src[0] = p.dst[0] = 10;
		p.src[3] = pk[i].from_a ? 1 : 2;
		p.dst[3] = pk[i].from_a ? 2 : 1;
		p.bth_opcode = pk[i].op;
		p.bth_dest_qp = pk[i].from_a ? 0x22 : 0x11;
		p.bth_psn = pk[i].psn;
		p.aeth = pk[i].syn >= 0;
		p.aeth_syndrome = (uint8_t)(pk[i].syn >= 0 ? pk[i].syn : 0);
		p.ecn = i == 3 ? IX_PKT_ECN_CE : 0;
		p.bth_payload = 64;
		ix_rdma_feed(c, &p, 120, 1700000000000000000 + pk[i].t_us * 1000);
	}
	{
		struct ix_pkt p;

		memset(&p, 0, sizeof(p));
		p.ib = p.bth = true;
		p.slid = 7;
		p.dlid = 300;
		p.bth_opcode = 0x0a;
		p.bth_dest_qp = 0x77;
		p.bth_fecn = true;
		ix_rdma_feed(c, &p, 90, 1700000000000000000);
	}
	ix_rdma_get(c, &w->rdma);
	ix_rdma_free(c);
	w->packets = 10;
	w->roce_packets = 9;
	w->ib_packets = 1;
}

static json_t *written(const struct ix_wire_figures *w)
{
	json_t *j = ix_json_wire(w);

	cr_assert_not_null(j);
	return j;
}

Test(read_wire, rdma_figures_read_back_as_written)
{
	struct ix_wire_figures w, back;
	struct ix_err err = { 0 };
	json_t *j;

	figures(&w);
	cr_assert_eq(w.rdma.nflows, 3);
	j = written(&w);
	cr_assert_eq(ix_json_read_wire(j, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.ib_packets, 1);
	cr_assert_eq(back.rdma.nflows, w.rdma.nflows);
	cr_assert_eq(back.rdma.flows_other, w.rdma.flows_other);
	for (uint32_t i = 0; i < w.rdma.nflows; i++)
		cr_assert_eq(memcmp(&back.rdma.flows[i], &w.rdma.flows[i], sizeof(w.rdma.flows[i])),
			     0, "direction %u", i);
	/* And what is written of the read-back figures is what was written. */
	{
		json_t *again = written(&back);
		char *a = json_dumps(j, JSON_SORT_KEYS), *b = json_dumps(again, JSON_SORT_KEYS);

		cr_assert_str_eq(a, b);
		free(a);
		free(b);
		json_decref(again);
	}
	json_decref(j);
}

Test(read_wire, totals_pairs_and_connections_are_written)
{
	struct ix_wire_figures w;
	json_t *j, *r;

	figures(&w);
	j = written(&w);
	r = json_object_get(j, "rdma");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "total"), "packets")),
		     10);
	cr_assert_eq(json_array_size(json_object_get(r, "host_pairs")), 2);
	cr_assert_eq(json_array_size(json_object_get(r, "connections")), 2);
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(r, "flows"), 2), "src")),
			 "LID 7");
	json_decref(j);
}

Test(read_wire, an_older_document_without_them_reads)
{
	struct ix_wire_figures w, back;
	struct ix_err err = { 0 };
	json_t *j;

	figures(&w);
	j = written(&w);
	json_object_del(j, "rdma");
	json_object_del(j, "ib_packets");
	json_object_del(j, "overlay_packets");
	json_object_del(j, "overlay_ecn_ce");
	cr_assert_eq(ix_json_read_wire(j, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.rdma.nflows, 0);
	cr_assert_eq(back.ib_packets, 0);
	json_decref(j);
}

/* Each change to a written direction, and the message that must name it. */
Test(read_wire, hostile_members_are_named)
{
	static const struct {
		const char *key;
		const char *value; /* JSON */
		const char *msg;
	} cases[] = {
		{ "address_kind", "\"gid\"", "wire.rdma.flows[0].address_kind: 'gid' is none of" },
		{ "src", "\"10.0.0.300\"",
		  "wire.rdma.flows[0].src: '10.0.0.300' is not an address" },
		{ "dst", "7", "wire.rdma.flows[0].dst" },
		{ "dest_qp", "16777216", "wire.rdma.flows[0].dest_qp" },
		{ "peer", "3", "wire.rdma.flows[0].peer" },
		{ "retransmitted", "-1", "wire.rdma.flows[0].retransmitted" },
		{ "naks", "{}", "wire.rdma.flows[0].naks.psn_sequence" },
		{ "ops", "[{\"opcode\": 256, \"packets\": 1}]",
		  "wire.rdma.flows[0].ops[0].opcode" },
		{ "retry_wait", "{\"count\": 1, \"min_ns\": 5, \"mean_ns\": 9, \"max_ns\": 6}",
		  "wire.rdma.flows[0].retry_wait: mean 9 ns is outside 5-6 ns" },
		{ "ack_latency", "[]", "ack_latency" },
	};
	struct ix_wire_figures w, back;

	figures(&w);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = written(&w), *flow;
		struct ix_err err = { 0 };

		flow = json_array_get(json_object_get(json_object_get(j, "rdma"), "flows"), 0);
		json_object_set_new(flow, cases[i].key,
				    json_loads(cases[i].value, JSON_DECODE_ANY, NULL));
		cr_assert_eq(ix_json_read_wire(j, &back, &err), -1, "%s", cases[i].key);
		cr_assert(strstr(err.msg, cases[i].msg), "%s: '%s'", cases[i].key, err.msg);
		json_decref(j);
	}
	{
		json_t *j = written(&w), *flows = json_array();
		struct ix_err err = { 0 };

		for (int k = 0; k < IX_WIRE_RDMA_FLOWS + 1; k++)
			json_array_append(
				flows,
				json_array_get(json_object_get(json_object_get(j, "rdma"), "flows"),
					       0));
		json_object_set_new(json_object_get(j, "rdma"), "flows", flows);
		cr_assert_eq(ix_json_read_wire(j, &back, &err), -1);
		cr_assert(strstr(err.msg, "wire.rdma.flows"), "%s", err.msg);
		json_decref(j);
	}
}
