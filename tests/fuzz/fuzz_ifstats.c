/*
 * Interface counter bodies a peer controls (probes/ctl/ifwire.h), parsed
 * as the frame layer parses them. The first byte picks the side: even,
 * the agent's decoding of an IFSTATS request; odd, the coordinator's of an
 * IFSTATS_REPLY, whose decoded interfaces are encoded again and must
 * decode to the same, and then go through ixperf ecmp's reading of a flow
 * between two such reads.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "probes/cluster/ecmp.h"
#include "probes/ctl/ifwire.h"
#include "probes/net/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int ok, const char *what, const struct ix_err *err)
{
	if (!ok) {
		fprintf(stderr, "%s: %s\n", what, err ? err->msg : "");
		abort();
	}
}

/* A reply: encoded again it decodes to the same; read twice as a flow's
 * counters, a counter that went down never rises. */
static void reply(json_t *body)
{
	static struct ix_ifstat v[IX_IFSTAT_MAX], again[IX_IFSTAT_MAX], zero[IX_IFSTAT_MAX];
	struct ix_err err = { 0 };
	struct ix_ecmp_hop h;
	uint32_t n, n2;
	bool trunc, trunc2;
	json_t *j;

	if (ix_ifstats_reply_parse(body, v, &n, &trunc, &err) < 0)
		return;
	j = ix_ifstats_reply(v, n, trunc);
	must(j && ix_ifstats_reply_parse(j, again, &n2, &trunc2, &err) == 0,
	     "a reply does not parse again", &err);
	must(n == n2 && trunc == trunc2 && memcmp(v, again, n * sizeof(v[0])) == 0,
	     "a reply decodes otherwise again", NULL);
	json_decref(j);
	memcpy(zero, v, n * sizeof(v[0]));
	for (uint32_t i = 0; i < n; i++)
		zero[i].rx_bytes = zero[i].tx_bytes = 0;
	ix_ecmp_hop_from(&h, v, n, zero, n);
	must(h.in_bytes == 0 && h.out_bytes == 0, "a counter that went down rose", NULL);
	ix_ecmp_hop_from(&h, zero, n, v, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ix_err err = { 0 };
	json_t *body = size ? ix_frame_parse_body(data + 1, size - 1, &err) : NULL;

	if (body && (data[0] & 1))
		reply(body);
	else if (body)
		ix_ifstats_request_parse(body, &err);
	json_decref(body);
	return 0;
}
