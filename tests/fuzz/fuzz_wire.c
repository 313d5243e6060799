/*
 * Message bodies a peer controls, decoded as the agent, the client and the
 * coordinator decode them. The first byte picks the decoder (its value
 * modulo NDEC) and a variant (the value divided by NDEC: limits, stream
 * counts, a token); the rest is the frame body, parsed as the frame layer
 * parses it:
 *   0 TEST "bw"          ix_wire_parse_bw, then encoded and parsed again
 *   1 TEST "lat"         ix_wire_parse_lat, the same
 *   2 TEST "block"       ix_wire_parse_read, the same
 *   3 TEST/TEST_ACK "rdma"  ix_rdma_setup_parse, then ix_rdma_params_check
 *   4 RDMA "params"      ix_rdma_params_parse, the same
 *   5 REPORT             ix_runner_parse_report, ix_runner_describe
 *   6 RESULT             stream ends and CPU figures as the client reads them
 *   7 INTERVAL           ix_interval_merge_wire into a bandwidth result
 *   8 read figures       ix_wire_parse_read_figures
 *   9 HELLO_ACK          ix_client_answer_hello
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "probes/cluster/runner.h"
#include "probes/core/probe.h"
#include "probes/ctl/auth.h"
#include "probes/ctl/client.h"
#include "probes/ctl/wire.h"
#include "probes/net/proto.h"
#include "probes/net/sampler.h"
#include "probes/rdma/setup.h"

#define NDEC 10

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int ok, const char *what, const struct ix_err *err)
{
	if (!ok) {
		fprintf(stderr, "%s: %s\n", what, err ? err->msg : "");
		abort();
	}
}

/* An agent without limits, and one with tight ones. */
static const struct ix_limits limits[2] = {
	{ 0, 0, 0 },
	{ 30.0, 4, 1000000000ull },
};

static void test_bw(json_t *body, unsigned var)
{
	const struct ix_limits *lim = &limits[var & 1];
	struct ix_bw_params p, q;
	struct ix_err err;
	json_t *j;

	if (ix_wire_parse_bw(json_object_get(body, "bw"), lim, &p, &err) < 0)
		return;
	j = ix_wire_bw_params(&p);
	must(j && ix_wire_parse_bw(j, lim, &q, &err) == 0, "bw parameters do not parse again",
	     &err);
	json_decref(j);
}

static void test_lat(json_t *body, unsigned var)
{
	const struct ix_limits *lim = &limits[var & 1];
	struct ix_lat_params p, q;
	struct ix_err err;
	json_t *j;

	if (ix_wire_parse_lat(json_object_get(body, "lat"), lim, &p, &err) < 0)
		return;
	j = ix_wire_lat_params(&p);
	must(j && ix_wire_parse_lat(j, lim, &q, &err) == 0, "lat parameters do not parse again",
	     &err);
	json_decref(j);
}

static void test_read(json_t *body, unsigned var)
{
	const struct ix_limits *lim = &limits[var & 1];
	struct ix_read_params p, q;
	struct ix_err err;
	json_t *j;

	if (ix_wire_parse_read(json_object_get(body, "block"), lim, &p, &err) < 0)
		return;
	j = ix_wire_read_params(&p);
	must(j && ix_wire_parse_read(j, lim, &q, &err) == 0, "read parameters do not parse again",
	     &err);
	json_decref(j);
}

/* A receiver's RDMA limits, and a device to check the peer's parameters
 * against. */
static const struct ix_rdma_limits rdma_limits = { 4, 1u << 20, 10.0 };
static const struct ix_rdma_caps rdma_caps = {
	.max_qp_wr = 32768,
	.max_sge = 30,
	.max_inline_data = 256,
	.max_qp = 131072,
	.max_qp_rd_atom = 16,
	.max_mr_size = 1ull << 40,
	.max_msg_size = 1u << 30,
};

static void test_rdma_setup(json_t *body, unsigned var)
{
	const struct ix_rdma_limits *lim = var & 1 ? &rdma_limits : NULL;
	struct ix_rdma_endpoint *e = malloc(2 * sizeof(*e));
	struct ix_err err;
	json_t *j;

	if (!e)
		return;
	if (ix_rdma_setup_parse(json_object_get(body, "rdma"), lim, &e[0], &err) == 0) {
		j = ix_rdma_setup_json(&e[0]);
		must(j && ix_rdma_setup_parse(j, lim, &e[1], &err) == 0,
		     "RDMA setup does not parse again", &err);
		json_decref(j);
		(void)ix_rdma_params_check(&e[0].params, &rdma_caps, &err);
	}
	free(e);
}

static void test_rdma_params(json_t *body, unsigned var)
{
	const struct ix_rdma_limits *lim = var & 1 ? &rdma_limits : NULL;
	struct ix_rdma_params p, q;
	struct ix_err err;
	json_t *j;

	if (ix_rdma_params_parse(json_object_get(body, "params"), lim, &p, &err) < 0)
		return;
	j = ix_rdma_params_json(&p);
	must(j && ix_rdma_params_parse(j, lim, &q, &err) == 0, "RDMA parameters do not parse again",
	     &err);
	json_decref(j);
	(void)ix_rdma_params_check(&p, &rdma_caps, &err);
	(void)ix_rdma_sq_depth(&p);
}

static void test_report(json_t *body)
{
	struct ix_run_figures f;

	(void)ix_runner_describe(body);
	(void)ix_runner_parse_report(body, &f);
}

/* A bandwidth result of 1 to 4 streams per direction, forward, reverse or
 * both, with intervals. */
static void bw_result(struct ix_bw_result *r, unsigned var)
{
	struct ix_bw_params p;

	memset(&p, 0, sizeof(p));
	p.path = "tcp";
	p.msg_size = 131072;
	p.streams = 1 + (var & 3);
	p.mode = (enum ix_mode)((var >> 2) % 3);
	p.duration_s = 10;
	p.interval_s = 1;
	ix_bw_result_init(r, &p);
	for (uint32_t i = 0; r->streams && i < r->nstreams; i++) {
		r->streams[i].id = i;
		r->streams[i].dir = p.mode == IX_MODE_BIDIR     ? (enum ix_dir)(i % 2)
				    : p.mode == IX_MODE_REVERSE ? IX_DIR_REVERSE
								: IX_DIR_FORWARD;
	}
}

/* The client's reading of a RESULT (probes/ctl/client.c): one "end" per
 * stream, the remote CPU, then the summary over both. */
static void test_result(json_t *body, unsigned var)
{
	json_t *arr = json_object_get(body, "streams"), *o;
	struct ix_dir_summary s;
	struct ix_bw_result r;
	size_t i;

	bw_result(&r, var);
	if (r.streams && json_is_array(arr) && json_array_size(arr) == r.nstreams) {
		json_array_foreach(arr, i, o)
		{
			struct ix_stream_end e;

			if (ix_wire_parse_stream_end(json_object_get(o, "end"), &e) < 0)
				break;
			if (i % 2)
				r.streams[i].sender = e;
			else
				r.streams[i].receiver = e;
		}
	}
	ix_wire_parse_cpu(json_object_get(body, "cpu"), &r.cpu_remote);
	ix_bw_summarize(&r, IX_DIR_FORWARD, &s);
	ix_bw_summarize(&r, IX_DIR_REVERSE, &s);
	ix_bw_result_free(&r);
}

static void test_interval(json_t *body, unsigned var)
{
	struct ix_bw_result r;

	bw_result(&r, var);
	if (r.streams) {
		/* Twice: the second merges into an interval that exists. */
		if (ix_interval_merge_wire(&r, body) == 0)
			(void)ix_interval_merge_wire(&r, body);
	}
	ix_bw_result_free(&r);
}

static void test_read_figures(json_t *body)
{
	struct ix_read_figures f, g;
	json_t *j;

	if (ix_wire_parse_read_figures(body, &f) < 0)
		return;
	j = ix_wire_read_figures(&f);
	must(j && ix_wire_parse_read_figures(j, &g) == 0, "read figures do not parse again", NULL);
	json_decref(j);
}

/* The client's challenge as it went out in HELLO: the one of the recorded
 * handshake in the seed corpus (token "secret"), so that its proof checks. */
static const char client_challenge[] =
	"d7f77b0f71cf4ccb94d2557039d14f9f10524bbbe7fd05641ff1a8b704fc91c1";

static void test_hello_ack(json_t *body, unsigned var)
{
	struct ix_token t;
	char mac[IX_AUTH_HEX];
	bool unauth;
	struct ix_err err;

	memset(&t, 0, sizeof(t));
	t.set = var & 1;
	t.len = 6;
	memcpy(t.key, "secret", 6);
	(void)ix_client_answer_hello("peer", &t, body, client_challenge, mac, &unauth, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ix_err err;
	unsigned dec, var;
	json_t *body;

	if (size < 1 || size - 1 > IX_FRAME_MAX)
		return 0;
	dec = data[0] % NDEC;
	var = data[0] / NDEC;
	body = ix_frame_parse_body(data + 1, size - 1, &err);
	if (!body)
		return 0;
	switch (dec) {
	case 0:
		test_bw(body, var);
		break;
	case 1:
		test_lat(body, var);
		break;
	case 2:
		test_read(body, var);
		break;
	case 3:
		test_rdma_setup(body, var);
		break;
	case 4:
		test_rdma_params(body, var);
		break;
	case 5:
		test_report(body);
		break;
	case 6:
		test_result(body, var);
		break;
	case 7:
		test_interval(body, var);
		break;
	case 8:
		test_read_figures(body);
		break;
	default:
		test_hello_ack(body, var);
		break;
	}
	json_decref(body);
	return 0;
}
