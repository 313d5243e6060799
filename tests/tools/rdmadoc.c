/* rdmadoc CASE: one ixperf JSON document of an RDMA test run between two
 * SIMULATED devices (tests/unit/probes/rdma/simdev.c) over a socketpair, rendered
 * by the real renderers, for tests/integration/rdma.sh to check against
 * the schema. Cases: write-bw, send-bw, bidir-bw, send-lat, read-lat,
 * vanished. A test tool: nothing on the command line reaches it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json/json.h"
#include "report/text/text.h"
#include "tests/unit/probes/rdma/simdev.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		enum ix_rdma_kind kind;
		enum ix_rdma_op op;
		bool bidir, vanish;
		uint64_t iters;
	} cases[] = {
		{ "write-bw", IX_RDMA_BW, IX_RDMA_OP_WRITE, false, false, 5000 },
		{ "send-bw", IX_RDMA_BW, IX_RDMA_OP_SEND, false, false, 5000 },
		{ "bidir-bw", IX_RDMA_BW, IX_RDMA_OP_WRITE, true, false, 5000 },
		{ "send-lat", IX_RDMA_LAT, IX_RDMA_OP_SEND, false, false, 1000 },
		{ "read-lat", IX_RDMA_LAT, IX_RDMA_OP_READ, false, false, 1000 },
		{ "vanished", IX_RDMA_BW, IX_RDMA_OP_WRITE, false, true, 5000 },
	};
	struct sim_pair *t;
	struct ix_rdma_params p;
	size_t i;
	json_t *doc, *arr;
	bool text = argc == 3 && strcmp(argv[2], "text") == 0;

	if (argc < 2 || argc > 3)
		return 2;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(argv[1], cases[i].name) == 0)
			break;
	if (i == sizeof(cases) / sizeof(cases[0]))
		return 2;
	t = calloc(1, sizeof(*t));
	if (!t)
		return 1;
	t->cdev = sim_dev("sim_c", 0x100, IX_RDMA_MTU_4096);
	t->adev = sim_dev("sim_a", 0x200, IX_RDMA_MTU_2048);
	if (cases[i].vanish)
		t->cdev.vanish_after = 1000;
	ix_rdma_params_init(&p, cases[i].kind, cases[i].op);
	p.msg_size = cases[i].kind == IX_RDMA_LAT ? 8 : 65536;
	p.iterations = cases[i].iters;
	p.bidirectional = cases[i].bidir;
	sim_pair_run(t, &p);
	if (text) {
		ix_text_rdma_begin(stdout, &t->r, "sim-agent");
		ix_text_rdma_header(stdout, &t->r);
		ix_text_rdma_row(stdout, &t->r);
		ix_text_rdma_end(stdout, &t->r);
	} else {
		char *argv0[] = { "ixperf", argv[1] };

		arr = json_array();
		json_array_append_new(arr, ix_json_rdma(&t->r));
		doc = ix_json_document(cases[i].kind == IX_RDMA_LAT ? "lat" : "bw", 2, argv0, arr,
				       t->rc == 0 ? NULL : t->err.msg);
		json_dumpf(doc, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(doc);
	}
	ix_rdma_result_free(&t->r);
	free(t);
	return 0;
}
